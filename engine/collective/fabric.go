package collective

import (
	"fmt"
	"slices"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
)

// Flow-level runs of collectives on a topology (issue 6): the algorithm's
// steps as sets of flows that share links (engine/topo), so contention —
// an oversubscribed spine, two rings on one NIC — shows in the time. At
// scale a step's flows are aggregated per link, not per packet, a ring's
// 2(n−1) identical steps are simulated once, and a pipelined tree's one
// step, whose flows all stream at the pace of its slowest stage, is its
// busiest link's load.

// FabricResult is a collective run on a topology.
type FabricResult struct {
	Seconds        float64
	SentPerRank    float64 // the busiest rank's bytes
	MaxUtilization float64 // the busiest link's bytes ÷ (bandwidth × time)
	Steps          int     // algorithm steps
	Simulated      int     // distinct steps the flow solver ran (0 for a tree: its busiest link's load)
	// LinkBytes are the bytes each link of the topology carried, by
	// topo.LinkID (a tree's as its pipelined halves load them).
	LinkBytes []float64
}

// withEfficiency is a link at its protocol efficiency: the flow solver
// shares what NCCL can actually push through it.
func withEfficiency(l hw.Link) hw.Link {
	l.Bandwidth = eff(l)
	return l
}

// FabricTopology builds the topology gpuscope collective names: one node
// on an NVSwitch, n ranks in nodes of gpusPerNode on a fat tree, or n
// ranks in GB200 NVL72 racks of 72 (gpusPerNode unused) on a fat tree.
func FabricTopology(kind string, n, gpusPerNode int, intra, inter hw.Link, oversubscription float64) (*topo.Topology, error) {
	switch kind {
	case "single-node":
		return topo.SingleNode(n, withEfficiency(intra))
	case "fat-tree":
		nodes := (n + gpusPerNode - 1) / gpusPerNode
		return topo.FatTree(nodes, gpusPerNode, withEfficiency(intra), withEfficiency(inter), oversubscription)
	case "nvl72":
		racks := (n + topo.NVL72GPUs - 1) / topo.NVL72GPUs
		return topo.NVL72(racks, withEfficiency(intra), withEfficiency(inter), oversubscription)
	}
	return nil, fmt.Errorf("topology: %q; allowed single-node, fat-tree, nvl72", kind)
}

// MaxFabricFlows bounds one step's flows (all-to-all has n² of them).
const MaxFabricFlows = 1 << 18

// RunOnFabric runs op by algo for n ranks (GPUs 0…n−1 of t, node by
// node) on the topology, as steps of flows that share links:
//
//   - ring all-reduce, reduce-scatter and all-gather: 2(n−1) or n−1
//     identical steps of S/n to the next rank, simulated once;
//   - hierarchical (whole nodes only): a ring in every node, one ring per
//     rail across nodes, a ring in every node again;
//   - tree all-reduce and broadcast: NCCL's double binary tree, pipelined
//     (treeOnFabric);
//   - star all-reduce: a gather onto rank 0, then a scatter from it;
//   - NVLS all-reduce: every GPU's port to the NVSwitch (nvlsOnFabric);
//   - ring broadcast: a pipelined chain; all-to-all: every pair at once.
//
// Any other pairing returns an error naming the algorithm, for the caller
// to fall back on the closed form; so do NVLS across nodes (as ClosedForm
// does) and schedules beyond MaxFabricFlows.
func RunOnFabric(t *topo.Topology, op Op, algo Algo, n int, bytes float64) (FabricResult, error) {
	if n < 2 || n > t.GPUs() {
		return FabricResult{}, errs.Range("ranks", n, 2, t.GPUs(), " on this topology")
	}
	k := t.GPUsPerNode()
	ringSteps := func(ranks []int, per float64, times int, id uint64) topo.RepeatedStep {
		st := topo.RepeatedStep{Times: times}
		for i, r := range ranks {
			st.Flows = append(st.Flows, topo.Flow{Src: r, Dst: ranks[(i+1)%len(ranks)], Bytes: per, ID: id + uint64(i)})
		}
		return st
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var steps []topo.RepeatedStep
	res := FabricResult{}
	N := float64(n)
	switch {
	case algo == Ring && (op == AllReduce || op == ReduceScatter || op == AllGather):
		times := n - 1
		if op == AllReduce {
			times = 2 * (n - 1)
		}
		steps = []topo.RepeatedStep{ringSteps(all, bytes/N, times, 0)}
		res.Steps, res.SentPerRank = times, float64(times)*bytes/N
	case algo == Hierarchical && (op == AllReduce || op == ReduceScatter || op == AllGather) && n > k && n%k == 0:
		nodes := n / k
		// Inside every node at once: a ring of k (reduce-scatter or
		// all-gather: k−1 steps of S/k).
		var intra topo.RepeatedStep
		for node := range nodes {
			ranks := make([]int, k)
			for i := range ranks {
				ranks[i] = node*k + i
			}
			s := ringSteps(ranks, bytes/float64(k), k-1, uint64(node*k))
			intra.Flows = append(intra.Flows, s.Flows...)
		}
		intra.Times = k - 1
		// Across nodes, one ring per rail: GPU g of every node, an
		// all-reduce of S/k (2(N−1) steps of S/(k·N)).
		var across topo.RepeatedStep
		acrossTimes := 2 * (nodes - 1)
		if op != AllReduce {
			acrossTimes = nodes - 1
		}
		for g := range k {
			ranks := make([]int, nodes)
			for i := range ranks {
				ranks[i] = i*k + g
			}
			s := ringSteps(ranks, bytes/float64(k)/float64(nodes), acrossTimes, uint64(1<<32+g*nodes))
			across.Flows = append(across.Flows, s.Flows...)
		}
		across.Times = acrossTimes
		steps = []topo.RepeatedStep{intra, across}
		if op == AllReduce {
			steps = append(steps, intra) // all-gather inside the node
		}
		res.Steps = intra.Times*(len(steps)-1) + across.Times
		res.SentPerRank = float64(intra.Times*(len(steps)-1))*bytes/float64(k) + float64(acrossTimes)*bytes/float64(k)/float64(nodes)
	case op == AllToAll && (algo == Ring || algo == Star):
		if n*(n-1) > MaxFabricFlows {
			return FabricResult{}, fmt.Errorf("ranks: %d; an all-to-all of %d flows is beyond the flow solver (at most %d)", n, n*(n-1), MaxFabricFlows)
		}
		var st topo.RepeatedStep
		st.Times = 1
		for s := range n {
			for d := range n {
				if s != d {
					st.Flows = append(st.Flows, topo.Flow{Src: s, Dst: d, Bytes: bytes / N, ID: uint64(s*n + d)})
				}
			}
		}
		steps = []topo.RepeatedStep{st}
		res.Steps, res.SentPerRank = 1, (N-1)/N*bytes
	case op == Broadcast && algo == Ring:
		// A pipelined chain 0 → 1 → … → n−1: every hop carries the whole
		// message at once (chunks pipelined), and the first chunk pays
		// each hop's latency on its way down the chain.
		var st topo.RepeatedStep
		st.Times = 1
		var fill float64
		for i := 0; i+1 < n; i++ {
			st.Flows = append(st.Flows, topo.Flow{Src: i, Dst: i + 1, Bytes: bytes, ID: uint64(i)})
			if i > 0 {
				fill += t.PathLatency(i, i+1, uint64(i)).Seconds()
			}
		}
		sr, err := topo.Steps(t, []topo.RepeatedStep{st})
		if err != nil {
			return FabricResult{}, err
		}
		return FabricResult{Seconds: sr.Time + fill, SentPerRank: bytes, MaxUtilization: sr.MaxUtilization * sr.Time / (sr.Time + fill),
			Steps: 1, Simulated: sr.Simulated, LinkBytes: sr.LinkBytes}, nil
	case algo == Tree && (op == AllReduce || op == Broadcast):
		return treeOnFabric(t, op, n, bytes)
	case algo == Star && op == AllReduce:
		// Rank 0 gathers every other vector (n−1 flows into its one port),
		// adds, and sends the sum back (n−1 flows out of it): ClosedForm's
		// 2α + 2(n−1)·S/B. With several GPUs a node, ranks in node 0 reach
		// it over NVLink and PXN spreads the sends over node 0's NICs, so
		// the flows beat the closed form, which puts every rank behind a NIC.
		var gather, scatter topo.RepeatedStep
		gather.Times, scatter.Times = 1, 1
		for r := 1; r < n; r++ {
			gather.Flows = append(gather.Flows, topo.Flow{Src: r, Dst: 0, Bytes: bytes, ID: uint64(r)})
			scatter.Flows = append(scatter.Flows, topo.Flow{Src: 0, Dst: r, Bytes: bytes, ID: uint64(n + r)})
		}
		steps = []topo.RepeatedStep{gather, scatter}
		res.Steps, res.SentPerRank = 2, float64(float64(n-1)*bytes)
	case algo == NVLS && op == AllReduce:
		return nvlsOnFabric(t, n, bytes)
	case algo == Hierarchical && (op == AllReduce || op == ReduceScatter || op == AllGather):
		return FabricResult{}, fmt.Errorf("ranks: %d; hierarchical runs as flows over whole nodes only: a multiple of %d GPUs per node, more than one node", n, k)
	default:
		return FabricResult{}, fmt.Errorf("algo: %s %s has no flow schedule (ring and hierarchical run all-reduce, reduce-scatter and all-gather; tree all-reduce and broadcast; star and nvls all-reduce; ring broadcast; ring and star all-to-all)", algo, op)
	}
	sr, err := topo.Steps(t, steps)
	if err != nil {
		return FabricResult{}, err
	}
	res.Seconds, res.MaxUtilization, res.Simulated, res.LinkBytes = sr.Time, sr.MaxUtilization, sr.Simulated, sr.LinkBytes
	return res, nil
}

// btreeParent is rank r's parent in NCCL's binary tree over n ranks
// (ncclGetBtree in NCCL's src/graph/trees.cc), -1 for the root, rank 0.
// Rank r's parent clears r's lowest set bit b and sets the next one up,
// (r ^ b) | 2b, or only clears it when that is past the last rank; rank 0
// has one child, the highest power of two below n, and odd ranks are
// leaves. The tree is ⌈log2 n⌉ hops deep.
func btreeParent(n, r int) int {
	if r == 0 {
		return -1
	}
	b := r & -r
	if up := (r ^ b) | b<<1; up < n {
		return up
	}
	return r ^ b
}

// doubleBinaryTree is NCCL's double binary tree over n ranks (ncclGetDtree):
// the parent of every rank (-1 at a root) in two trees. The first is
// btreeParent's; the second is its mirror image r ↦ n−1−r when n is even,
// and the same tree shifted by one rank, r ↦ r+1 mod n, when n is odd. The
// mirror turns the first tree's interior ranks (even) into leaves (odd) and
// the shift nearly so, so no rank forwards to more than two children over
// both trees (TestDoubleBinaryTree): both halves of the message reach every
// rank at full speed.
func doubleBinaryTree(n int) [2][]int32 {
	var trees [2][]int32
	for i := range trees {
		trees[i] = make([]int32, n)
	}
	for r := range n {
		trees[0][r] = int32(btreeParent(n, r))
		var p int
		if n%2 == 0 {
			if p = btreeParent(n, n-1-r); p >= 0 {
				p = n - 1 - p
			}
		} else if p = btreeParent(n, (r-1+n)%n); p >= 0 {
			p = (p + 1) % n
		}
		trees[1][r] = int32(p)
	}
	return trees
}

// rootAtZero relabels a tree so that rank 0 is its root: the root and rank
// 0 swap places. A broadcast from rank 0 roots both trees there.
func rootAtZero(parent []int32) {
	root := int32(slices.Index(parent, -1))
	if root <= 0 {
		return
	}
	swap := func(r int32) int32 {
		switch r {
		case 0:
			return root
		case root:
			return 0
		}
		return r
	}
	parent[0], parent[root] = parent[root], parent[0]
	for r, p := range parent {
		parent[r] = swap(p)
	}
}

// treeLatency is a tree's pipeline fill on t: the latency the first chunk
// pays on its way from the farthest leaf up to the root (up) and from the
// root down to the farthest leaf (down), each hop at its path's latency
// (Topology.PathLatency: 1 µs over NVLink, 5 µs through a NIC, 6 µs for a
// PXN hop of the hw catalog).
func treeLatency(t *topo.Topology, parent []int32) (up, down float64) {
	n := len(parent)
	toRoot, fromRoot := make([]float64, n), make([]float64, n)
	done := make([]bool, n)
	var chain []int32
	for r := range parent {
		chain = chain[:0]
		for x := int32(r); x >= 0 && !done[x]; x = parent[x] {
			chain = append(chain, x)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			x := chain[i]
			if p := parent[x]; p >= 0 {
				toRoot[x] = toRoot[p] + t.PathLatency(int(x), int(p), 0).Seconds()
				fromRoot[x] = fromRoot[p] + t.PathLatency(int(p), int(x), 0).Seconds()
			}
			done[x] = true
		}
		up, down = max(up, toRoot[r]), max(down, fromRoot[r])
	}
	return up, down
}

// treeOnFabric runs a tree all-reduce or broadcast of bytes over ranks
// 0…n−1 of t as NCCL does: a double binary tree (doubleBinaryTree) built
// over the ranks in rank order, node by node, each tree carrying half the
// message in pipelined chunks. (NCCL builds its trees over nodes, with a
// chain through each node's GPUs; over ranks in node order the same code
// puts most edges inside a node, on NVLink, and the rest on the network
// between nodes, and at one GPU per node it is NCCL's tree exactly.)
//
// Pipelined, every edge of a tree carries its half once in each phase that
// uses it, and all edges stream at once: an all-reduce sends the half up
// each edge (reduce) and down it (broadcast), a broadcast only down. So the
// schedule is one step of flows, one per edge and direction, routed on t
// (NVLink, NIC, PXN hop, spine by ECMP) and added up per link. A pipeline
// moves at the pace of its slowest stage — no edge can forward chunks
// faster than they reach it — so every flow streams at one common rate and
// the step takes as long as the busiest link needs for its bytes, contention
// (an oversubscribed uplink, two flows hashed onto one spine) included.
// Then comes the pipeline fill: the latency of the deepest path up and back
// down (treeLatency), 2·⌈log2 n⌉ hops in all.
//
// Against ClosedForm: the fill is its 2·⌈log2 n⌉·α when every hop has the
// same latency (one node, or one GPU per node). The bandwidth term differs
// in mechanism: here it comes from link sharing — an interior rank's two
// children share its port on the way up, its two children's copies share
// it on the way down — and an interior rank sends 2S in all (1.5S in the
// tree where it forwards, 0.5S where it is a leaf; NCCL's tuner also
// counts 2S, its tree algorithm bandwidth being half the bus bandwidth,
// in src/graph/tuning.cc), where the closed form charges every
// rank the average 2(n−1)/n·S. The two agree exactly at n = 2 and to
// 1/(n−1) above (≤ 1.6% from 64 ranks). What no link sharing produces is a
// tree's protocol cost — a rank reduces and forwards every chunk — so an
// all-reduce's flows carry bytes/TreeEfficiency, exactly where the closed
// form divides by it; a broadcast runs at full speed in both. SentPerRank
// and MaxUtilization count the real bytes.
func treeOnFabric(t *topo.Topology, op Op, n int, bytes float64) (FabricResult, error) {
	if !(bytes >= 0 && bytes <= topo.MaxBytes) {
		return FabricResult{}, errs.RangeG("bytes", bytes, 0, topo.MaxBytes, "")
	}
	trees := doubleBinaryTree(n)
	if op == Broadcast {
		rootAtZero(trees[1])
	}
	half := bytes / 2
	protocol := 1.0 // share of the links' bandwidth the payload gets
	if op == AllReduce {
		protocol = TreeEfficiency
	}
	per := half / protocol
	load := make([]float64, t.NumLinks()) // bytes per link
	sends := make([]int, n)               // halves each rank sends
	flow := func(src, dst int, id uint64) {
		for _, l := range t.Path(src, dst, id) {
			load[l] += per
		}
		sends[src]++
	}
	for i, parent := range trees {
		for r, p := range parent {
			if p < 0 {
				continue
			}
			id := uint64(i)<<32 | uint64(r)<<1
			flow(int(p), r, id) // down: broadcast
			if op == AllReduce {
				flow(r, int(p), id|1) // up: reduce
			}
		}
	}
	var stream float64 // seconds the busiest link takes for its bytes
	for l, b := range load {
		if b > 0 {
			stream = max(stream, b/t.Bandwidth(topo.LinkID(l)))
		}
	}
	var fill float64
	for _, parent := range trees {
		up, down := treeLatency(t, parent)
		if op == Broadcast {
			up = 0
		}
		fill = max(fill, up+down)
	}
	res := FabricResult{Seconds: stream + fill, SentPerRank: float64(float64(slices.Max(sends)) * half), Steps: 1, LinkBytes: load}
	if res.Seconds > 0 {
		res.MaxUtilization = stream / res.Seconds * protocol
	}
	return res, nil
}

// nvlsOnFabric runs an NVLS all-reduce of bytes over GPUs 0…n−1 of one
// NVSwitch node. The switch adds the GPUs' shards as they pass
// (multimem.ld_reduce) and multicasts each GPU's reduced shard to all
// (multimem.st), pipelined, so each GPU's port carries (1 + 1/n)·S each
// way: up, its whole vector to be reduced and its shard of the sum to be
// multicast; down, its shard of the sum and everyone's multicast shards.
// The topology's flows run GPU to GPU through the switch, which has no limit
// of its own, so one flow from each GPU to the next carries those bytes:
// it loads the sender's up port and the receiver's down port, which is all
// that matters (who receives a flow is bookkeeping — in-switch reduction has
// no GPU-to-GPU pairs). The flows carry bytes/NVLSEfficiency, as the closed
// form divides by it, and the run pays the switch's latency twice (reduce,
// then multicast), ClosedForm's 2α. Ranks across nodes are refused as
// ClosedForm refuses them, and so is a node without an NVSwitch.
func nvlsOnFabric(t *topo.Topology, n int, bytes float64) (FabricResult, error) {
	if k := t.GPUsPerNode(); n > k {
		return FabricResult{}, fmt.Errorf("algo: nvls reduces inside one NVSwitch; %d ranks span %d nodes of %d (use hierarchical across nodes)", n, (n+k-1)/k, k)
	}
	if l, _ := t.Link(0); l.Kind != topo.KindNVLink {
		return FabricResult{}, fmt.Errorf("algo: nvls reduces inside an NVSwitch; these GPUs have %s links (use ring)", l.Kind)
	}
	perPort := float64((1 + 1/float64(n)) * bytes)
	st := topo.RepeatedStep{Times: 1}
	for g := range n {
		st.Flows = append(st.Flows, topo.Flow{Src: g, Dst: (g + 1) % n, Bytes: perPort / NVLSEfficiency, ID: uint64(g)})
	}
	sr, err := topo.Steps(t, []topo.RepeatedStep{st})
	if err != nil {
		return FabricResult{}, err
	}
	// The step paid one switch latency; the multicast pays a second.
	res := FabricResult{Seconds: sr.Time + t.PathLatency(0, 1, 0).Seconds(), SentPerRank: perPort, Steps: 1, Simulated: sr.Simulated, LinkBytes: sr.LinkBytes}
	if res.Seconds > 0 {
		res.MaxUtilization = float64(sr.MaxUtilization*sr.Time) / res.Seconds * NVLSEfficiency
	}
	return res, nil
}
