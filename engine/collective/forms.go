package collective

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// Operations and algorithms beyond the first lesson's (issue 6). The
// packet-level engine (Run) still runs all-reduce by ring and star; these
// have closed α-β forms here and flow-level runs on a topology.
const (
	ReduceScatter Op = "reducescatter"
	AllGather     Op = "allgather"
	Broadcast     Op = "broadcast"
	AllToAll      Op = "alltoall"

	Tree         Algo = "tree"         // NCCL's double binary tree, pipelined
	Hierarchical Algo = "hierarchical" // reduce-scatter in the node, all-reduce across, all-gather in the node
	NVLS         Algo = "nvls"         // NVLink SHARP: the NVSwitch adds the data in flight
)

// Ops and Algos list every operation and algorithm.
var (
	Ops   = []Op{AllReduce, ReduceScatter, AllGather, Broadcast, AllToAll}
	Algos = []Algo{Ring, Tree, Hierarchical, Star, NVLS}
)

// NVLSEfficiency is an NVLS all-reduce's bandwidth relative to a ring's on
// the same NVLink (as TreeEfficiency is a tree's), so that it applies on top
// of the link's protocol efficiency, in the closed form and on the flow
// model's links alike: nccl-tests measure ≈ 480 GB/s bus bandwidth on 8
// H100s, where in-switch reduction's ideal at a ring's 82% of 450 GB/s is
// 2(n−1)/n × 369 / (1 + 1/n) = 574 GB/s (each GPU sends its vector up once
// and receives the sum once, plus its shard's round trip): 480/574 ≈ 0.84,
// which is 0.84 × 0.82 ≈ 69% of the raw 450 GB/s.
const NVLSEfficiency = 0.84

// TreeEfficiency is a double binary tree's bandwidth relative to a ring's
// on the same links. In α-β terms both move ≈ 2S per rank each way, but a
// tree rank reduces and forwards at once, its two children share its one
// NIC, and NCCL's tuner accordingly rates trees below rings for large
// messages: we take 85%. It is what makes the ring win again above the
// crossover (Crossover).
const TreeEfficiency = 0.85

// BusFactor converts algorithm bandwidth to bus bandwidth as nccl-tests
// does: 2(n−1)/n for all-reduce, (n−1)/n for reduce-scatter, all-gather
// and all-to-all, 1 for broadcast.
func BusFactor(op Op, n int) float64 {
	if n < 1 {
		return 0
	}
	N := float64(n)
	switch op {
	case AllReduce:
		return 2 * (N - 1) / N
	case ReduceScatter, AllGather, AllToAll:
		return (N - 1) / N
	}
	return 1
}

// Form is a collective's closed-form cost.
type Form struct {
	Seconds float64
	// SentPerRank is what the busiest rank sends, bytes.
	SentPerRank float64
	// Latency and Bandwidth split Seconds into its α and β parts.
	Latency, Bandwidth float64
}

// eff is a link's bandwidth at its protocol efficiency (1 when unset).
func eff(l hw.Link) float64 {
	e := l.Efficiency
	if e <= 0 || e > 1 {
		e = 1
	}
	return l.Bandwidth * e
}

// ClosedForm is the α-β cost of op by algo for n ranks of bytes each,
// gpusPerNode of them sharing a node's NVLink (intra) and the rest joined
// by one NIC per GPU (inter); a single node when n ≤ gpusPerNode. S is
// the vector (all-reduce, reduce-scatter's input, all-gather's output,
// broadcast's message, all-to-all's send buffer). Without contention the
// flow-level runs agree with these (tested).
//
//	ring all-reduce      2(n−1)·(α + S/(n·B))
//	ring RS / AG         (n−1)·(α + S/(n·B))
//	tree all-reduce      2·⌈log2 n⌉·α + 2·(n−1)/n · S/(B·TreeEfficiency)   (pipelined)
//	hierarchical         RS in the node + all-reduce of S/k across + AG in the node
//	NVLS all-reduce      2α + (1 + 1/n)·S/(B·NVLSEfficiency)   (one node)
//	star all-reduce      2α + 2(n−1)·S/B
//	broadcast (ring)     (n−1)·α + S/B   (pipelined chain); tree: ⌈log2 n⌉·α + S/B
//	all-to-all           (n−1)·(α + S/(n·B))
//
// B is the slowest link a step crosses at its protocol efficiency: NVLink
// inside one node, the NIC across nodes (a ring over nodes crosses a NIC on
// every step). The tree all-reduce's 2(n−1)/n·S is the average rank's; the
// double binary tree's interior ranks send 2S, which RunOnFabric charges:
// n/(n−1) of this bandwidth term.
func ClosedForm(op Op, algo Algo, n, gpusPerNode int, bytes float64, intra, inter hw.Link) (Form, error) {
	if n < 1 {
		return Form{}, fmt.Errorf("ranks: %d; at least 1", n)
	}
	if gpusPerNode < 1 {
		return Form{}, fmt.Errorf("gpus-per-node: %d; at least 1", gpusPerNode)
	}
	if !(bytes >= 0) || math.IsInf(bytes, 0) {
		return Form{}, fmt.Errorf("bytes: %g; must be a finite size ≥ 0", bytes)
	}
	if n == 1 {
		return Form{}, nil
	}
	N := float64(n)
	oneNode := n <= gpusPerNode
	link := inter
	if oneNode {
		link = intra
	}
	alpha, B := link.Latency.Seconds(), eff(link)
	logN := math.Ceil(math.Log2(N))
	var f Form
	ring := func(steps float64, s float64) Form {
		return Form{Latency: steps * alpha, Bandwidth: steps * s / (N * B), SentPerRank: steps * s / N}
	}
	switch {
	case op == AllReduce && algo == Ring:
		f = ring(2*(N-1), bytes)
	case (op == ReduceScatter || op == AllGather) && (algo == Ring || algo == Hierarchical && oneNode):
		f = ring(N-1, bytes)
	case op == AllToAll && (algo == Ring || algo == Star):
		f = ring(N-1, bytes)
	case op == AllReduce && algo == Tree:
		f = Form{Latency: 2 * logN * alpha, Bandwidth: 2 * (N - 1) / N * bytes / (B * TreeEfficiency), SentPerRank: 2 * (N - 1) / N * bytes}
	case op == Broadcast && algo == Ring:
		f = Form{Latency: (N - 1) * alpha, Bandwidth: bytes / B, SentPerRank: bytes}
	case op == Broadcast && algo == Tree:
		// Two trees, half the message each (treeOnFabric): a rank forwards
		// to two children in one tree and is a leaf in the other.
		f = Form{Latency: logN * alpha, Bandwidth: bytes / B, SentPerRank: bytes}
	case op == AllReduce && algo == Star:
		f = Form{Latency: 2 * alpha, Bandwidth: 2 * (N - 1) * bytes / B, SentPerRank: (N - 1) * bytes}
	case op == AllReduce && algo == NVLS:
		if !oneNode {
			return Form{}, fmt.Errorf("algo: nvls reduces inside one NVSwitch; %d ranks span %d nodes of %d (use hierarchical across nodes)", n, int(math.Ceil(N/float64(gpusPerNode))), gpusPerNode)
		}
		f = Form{Latency: 2 * alpha, Bandwidth: (1 + 1/N) * bytes / (B * NVLSEfficiency), SentPerRank: (1 + 1/N) * bytes}
	case algo == Hierarchical && (op == AllReduce || op == ReduceScatter || op == AllGather):
		if oneNode {
			return ClosedForm(op, Ring, n, gpusPerNode, bytes, intra, inter)
		}
		k := gpusPerNode
		nodes := int(math.Ceil(N / float64(k)))
		in, err := ClosedForm(ReduceScatter, Ring, k, k, bytes, intra, inter)
		if err != nil {
			return Form{}, err
		}
		across, err := ClosedForm(op, Ring, nodes, 1, bytes/float64(k), intra, inter)
		if err != nil {
			return Form{}, err
		}
		f = Form{Latency: across.Latency, Bandwidth: across.Bandwidth, SentPerRank: across.SentPerRank}
		switch op {
		case AllReduce: // reduce-scatter and all-gather inside the node
			f.Latency += 2 * in.Latency
			f.Bandwidth += 2 * in.Bandwidth
			f.SentPerRank += 2 * in.SentPerRank
		default: // one of them
			f.Latency += in.Latency
			f.Bandwidth += in.Bandwidth
			f.SentPerRank += in.SentPerRank
		}
	default:
		return Form{}, fmt.Errorf("algo: %s cannot run %s; allowed %s", algo, op, allowedAlgos(op))
	}
	f.Seconds = f.Latency + f.Bandwidth
	return f, nil
}

// allowedAlgos lists the algorithms ClosedForm runs op with.
func allowedAlgos(op Op) string {
	switch op {
	case AllReduce:
		return "ring, tree, hierarchical, star, nvls"
	case ReduceScatter, AllGather:
		return "ring, hierarchical"
	case Broadcast:
		return "ring, tree"
	case AllToAll:
		return "ring (pairwise exchange)"
	}
	return "none"
}

// Crossover is the message size at which a tree all-reduce and a ring
// all-reduce over n ranks take the same time: below it the tree's
// 2·⌈log2 n⌉ latencies beat the ring's 2(n−1); above it both are
// bandwidth-bound and the ring's α-free pipeline wins. Found by bisection
// on the closed forms (0 when one always wins).
func Crossover(n, gpusPerNode int, intra, inter hw.Link) float64 {
	diff := func(s float64) float64 {
		t, err1 := ClosedForm(AllReduce, Tree, n, gpusPerNode, s, intra, inter)
		r, err2 := ClosedForm(AllReduce, Ring, n, gpusPerNode, s, intra, inter)
		if err1 != nil || err2 != nil {
			return 0
		}
		return t.Seconds - r.Seconds
	}
	lo, hi := 1.0, 1e13
	if diff(lo) >= 0 || diff(hi) <= 0 {
		return 0
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if diff(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}
