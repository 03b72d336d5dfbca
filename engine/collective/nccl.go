package collective

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// NCCL's own cost model: the one NCCL evaluates for every collective call
// to choose an algorithm and a protocol (src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime, NCCL 2.2x). A call costs a
// latency — a base for the algorithm and protocol, plus a hardware
// latency for every step the algorithm takes inside a node (NVLink or
// PCIe) and across nodes (the network) — and its bytes over the
// algorithm's bandwidth; NCCL runs the cheapest enabled pair. What this
// adds to the α-β forms of ClosedForm is what changes with scale: a ring
// over many nodes pays a network latency for each of its 2(nodes − 1)
// inter-node steps (≈ 14 µs each with the Simple protocol, where
// ClosedForm charges the link's 5 µs), a tree pays 2·log2(nodes), and the
// low-latency protocols (LL, LL128) trade bandwidth for latency on small
// messages. The bandwidths are this package's: the links' sustained
// (Efficiency) rates, a ring's bus bandwidth across nodes capped by the
// NICs of the ranks a node holds.

// NCCLProto is one of NCCL's three protocols.
type NCCLProto string

const (
	ProtoLL     NCCLProto = "LL"     // 8-byte stores with a flag: lowest latency, half the bandwidth
	ProtoLL128  NCCLProto = "LL128"  // 128-byte lines with a flag: near full bandwidth on NVLink
	ProtoSimple NCCLProto = "Simple" // bulk copies with fences: full bandwidth, highest latency
)

// PAT is NCCL's Parallel Aggregated Trees algorithm for all-gather and
// reduce-scatter with one rank a node (NCCL 2.23 on).
const PAT Algo = "pat"

var ncclProtos = [...]NCCLProto{ProtoLL, ProtoLL128, ProtoSimple}

// ncclBaseLatency is tuning.cc's baseLatencies, µs, by protocol (LL,
// LL128, Simple): ring, tree, PAT.
func ncclBaseLatency(a Algo) [3]float64 {
	switch a {
	case Tree:
		return [3]float64{6.8, 14.0, 8.4}
	case PAT:
		return [3]float64{8.0, 8.0, 8.0}
	}
	return [3]float64{6.6, 14.0, 8.4}
}

// Where a step runs, for tuning.cc's hwLatencies.
const (
	hwNVLink = iota
	hwPCI
	hwNet
)

// ncclHWLatency is tuning.cc's hwLatencies, µs a step, by where the step
// runs (NVLink, PCIe, the network), algorithm and protocol (LL, LL128,
// Simple).
func ncclHWLatency(where int, a Algo) [3]float64 {
	switch where {
	case hwNVLink:
		switch a {
		case Tree:
			return [3]float64{0.6, 1.25, 4.0}
		case PAT:
			return [3]float64{0, 0, 4.0}
		}
		return [3]float64{0.6, 1.9, 3.4}
	case hwPCI:
		switch a {
		case Tree:
			return [3]float64{1.0, 1.9, 4.0}
		case PAT:
			return [3]float64{0, 0, 4.0}
		}
		return [3]float64{1.0, 2.5, 5.7}
	}
	switch a {
	case Tree:
		return [3]float64{5.0, 8.5, 14}
	case PAT:
		return [3]float64{0, 0, 14}
	}
	return [3]float64{2.7, 4.0, 14.0}
}

// ncclTreeCorrection is tuning.cc's treeCorrectionFactor: a tree
// all-reduce's bandwidth at medium sizes, by protocol, for sizes of 64 B
// × 2^i (i = 0…23).
var ncclTreeCorrection = [3][24]float64{
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}

// NCCLNetOverhead is tuning.cc's network post overhead on an Intel host
// (getNetOverhead), µs: an inter-node ring step inside a node costs at
// least this (three times it with the Simple protocol).
const NCCLNetOverhead = 1.0

// NCCLLLMaxBandwidth is tuning.cc's llMaxBws for an Intel host over more
// than two nodes (20.4 GB/s; 39 on two): the LL protocol's ceiling across
// nodes, bytes a second.
const NCCLLLMaxBandwidth = 20.4e9

// NCCLGroup is a communicator as NCCL's model sees it.
type NCCLGroup struct {
	Ranks int // ranks in the communicator
	Nodes int // the nodes they span; Ranks ÷ Nodes a node (rounded down)
	// Intra is the link between a node's GPUs, Inter a GPU's NIC; the
	// ranks of one node reach the network through as many NICs as they
	// are (one a GPU).
	Intra, Inter hw.Link
	// PAT: NCCL 2.23 and later, whose PAT algorithm runs all-gather and
	// reduce-scatter over one rank a node in log2(nodes) network steps.
	PAT bool
}

// NCCLCost is a collective's cost as NCCL's model gives it, and the
// algorithm and protocol NCCL chooses for it.
type NCCLCost struct {
	Algo    Algo
	Proto   NCCLProto
	Latency float64 // seconds
	// Bandwidth is the algorithm bandwidth, bytes a second: the message
	// over the time its bytes take.
	Bandwidth float64
	Seconds   float64 // Latency + bytes ÷ Bandwidth
}

// NCCLTime is what NCCL's model charges for op (all-reduce,
// reduce-scatter or all-gather) on g, bytes the vector (reduce-scatter's
// input, all-gather's output), with the algorithm and protocol it picks:
// the cheapest of ring and tree (all-reduce) or ring and, with g.PAT and
// one rank a node, PAT (reduce-scatter, all-gather), each with LL, LL128
// and Simple.
func NCCLTime(op Op, g NCCLGroup, bytes float64) (NCCLCost, error) {
	if err := g.check(op, bytes); err != nil {
		return NCCLCost{}, err
	}
	if g.Ranks == 1 {
		return NCCLCost{Algo: Ring, Proto: ProtoSimple}, nil
	}
	algos, n := [2]Algo{Ring}, 1
	switch {
	case op == AllReduce:
		algos[1], n = Tree, 2
	case g.PAT && g.Ranks == g.Nodes && g.Nodes > 1:
		algos[1], n = PAT, 2
	}
	best := NCCLCost{Seconds: math.Inf(1)}
	for _, a := range algos[:n] {
		for i, p := range ncclProtos {
			if a == PAT && p != ProtoSimple {
				continue
			}
			lat, bw := g.latency(op, a, i), g.bandwidth(op, a, i)
			if a == Tree {
				bw *= treeCorrection(i, bytes)
			}
			if a == Ring && p == ProtoSimple && g.Nodes > 1 && op == AllReduce {
				lat *= 1.4 // tuning.cc's "plateau effect of ring" (compute capability 8.0 and later)
			}
			c := NCCLCost{Algo: a, Proto: p, Latency: lat, Bandwidth: bw, Seconds: lat + bytes/bw}
			if c.Seconds < best.Seconds {
				best = c
			}
		}
	}
	return best, nil
}

func (g NCCLGroup) check(op Op, bytes float64) error {
	switch {
	case op != AllReduce && op != ReduceScatter && op != AllGather:
		return fmt.Errorf("op: %s; allowed allreduce, reducescatter, allgather", op)
	case g.Ranks < 1:
		return fmt.Errorf("ranks: %d; at least 1", g.Ranks)
	case g.Nodes < 1 || g.Nodes > g.Ranks:
		return errs.Range("nodes", g.Nodes, 1, g.Ranks, " (the ranks)")
	case !(bytes >= 0) || math.IsInf(bytes, 0):
		return fmt.Errorf("bytes: %g; must be a finite size ≥ 0", bytes)
	case eff(g.Intra) <= 0 || eff(g.Inter) <= 0:
		return fmt.Errorf("links: no bandwidth")
	}
	return nil
}

// intraKind is where a step inside a node runs: NVLink, or PCIe.
func (g NCCLGroup) intraKind() int {
	if g.Intra.ID == "pcie5" {
		return hwPCI
	}
	return hwNVLink
}

// latency is tuning.cc's latency of op by algorithm a and protocol p
// (an index into ncclProtos), seconds.
func (g NCCLGroup) latency(op Op, a Algo, p int) float64 {
	n, nodes := float64(g.Ranks), float64(g.Nodes)
	ppn := g.Ranks / g.Nodes
	lat := ncclBaseLatency(a)[p]
	intra := ncclHWLatency(g.intraKind(), a)[p]
	// With one rank a node every step is exposed: the tree's network
	// latency stands for the ring's too.
	inter := ncclHWLatency(hwNet, a)[p]
	if ppn == 1 {
		inter = ncclHWLatency(hwNet, Tree)[p]
	}
	switch a {
	case Ring:
		steps, interSteps := n-1, nodes-1
		if op == AllReduce {
			steps, interSteps = 2*(n-1), 2*(nodes-1)
		}
		if g.Nodes == 1 {
			interSteps = 0
		} else {
			over := NCCLNetOverhead
			if ncclProtos[p] == ProtoSimple {
				over *= 3
			}
			intra = math.Max(intra, over)
		}
		lat += float64(float64(steps-interSteps)*intra) + float64(interSteps*inter)
	case Tree:
		lat += 2 * (float64(float64(ppn-1)*intra) + float64(float64(log2i(g.Nodes))*inter))
	case PAT:
		lat += float64(float64(log2i(g.Nodes))*inter/3.5) + float64(n*2.8)
	}
	return lat * 1e-6
}

// bandwidth is op's algorithm bandwidth by algorithm a and protocol p,
// bytes a second, as tuning.cc refines a ring's bus bandwidth — NVLink's
// inside one node; across nodes the NICs of a node's ranks, no more than
// NVLink: a ring's LL at half of it (and at most llMax), its LL128 at
// 92%; a tree all-reduce at 92%, its LL at 1/3.8 (at most llMax), its
// LL128 at 120/128 across nodes (7/9 inside one); PAT at 75%; then
// turned into algorithm bandwidth (a ring's n/steps, a tree's half; PAT's
// bus bandwidth as it is).
func (g NCCLGroup) bandwidth(op Op, a Algo, p int) float64 {
	bus := eff(g.Intra)
	if g.Nodes > 1 {
		bus = math.Min(bus, float64(g.Ranks/g.Nodes)*eff(g.Inter))
	}
	llMax := g.llMax()
	proto := ncclProtos[p]
	switch {
	case a == Ring && proto == ProtoLL:
		bus = math.Min(llMax, bus*0.5)
	case a == Ring && proto == ProtoLL128:
		bus *= 0.92
	case a == Tree:
		bus *= 0.92
		switch proto {
		case ProtoLL:
			bus = math.Min(bus/3.8, llMax)
		case ProtoLL128:
			if g.Nodes == 1 {
				bus = bus * 7 / 9
			} else {
				bus = bus * 120 / 128
			}
		}
	case a == PAT:
		return bus * 0.75
	}
	if a == Tree {
		return bus * 0.5
	}
	n := float64(g.Ranks)
	steps := n - 1
	if op == AllReduce {
		steps = 2 * (n - 1)
	}
	return bus * n / steps
}

// llMax is tuning.cc's llMaxBws, bytes a second: inside one node by the
// GPU's generation (told by its NVLink: Ampere 87.7 GB/s, Hopper 141,
// Blackwell 282), across nodes an Intel host's 39 on two nodes and 20.4
// on more.
func (g NCCLGroup) llMax() float64 {
	switch {
	case g.Nodes == 2:
		return 39e9
	case g.Nodes > 2:
		return NCCLLLMaxBandwidth
	}
	switch g.Intra.ID {
	case "nvlink4", "nvlink4-h800":
		return 141e9
	case "nvlink5":
		return 282e9
	}
	return 87.7e9
}

// treeCorrection is ncclTreeCorrection for a message of bytes.
func treeCorrection(p int, bytes float64) float64 {
	i := log2i(int(bytes) >> 6)
	if i < 0 || i >= 23 {
		return 1
	}
	return ncclTreeCorrection[p][i]
}

// log2i is ⌊log2 n⌋ (−1 for n < 1), as NCCL's log2i.
func log2i(n int) int {
	if n < 1 {
		return -1
	}
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}
