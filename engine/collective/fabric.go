package collective

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
)

// Flow-level runs of collectives on a topology (issue 6): the algorithm's
// steps as sets of flows that share links (engine/topo), so contention —
// an oversubscribed spine, two rings on one NIC — shows in the time. At
// scale a step's flows are aggregated per link, not per packet, and a
// ring's 2(n−1) identical steps are simulated once.

// FabricResult is a collective run on a topology.
type FabricResult struct {
	Seconds        float64
	SentPerRank    float64 // the busiest rank's bytes
	MaxUtilization float64 // the busiest link's bytes ÷ (bandwidth × time)
	Steps          int     // algorithm steps
	Simulated      int     // distinct steps the flow solver ran
}

// withEfficiency is a link at its protocol efficiency: the flow solver
// shares what NCCL can actually push through it.
func withEfficiency(l hw.Link) hw.Link {
	l.Bandwidth = eff(l)
	return l
}

// FabricTopology builds the topology gpuscope collective names: one node
// on an NVSwitch, or n ranks in nodes of gpusPerNode on a fat tree.
func FabricTopology(kind string, n, gpusPerNode int, intra, inter hw.Link, oversubscription float64) (*topo.Topology, error) {
	switch kind {
	case "single-node":
		return topo.SingleNode(n, withEfficiency(intra))
	case "fat-tree":
		nodes := (n + gpusPerNode - 1) / gpusPerNode
		return topo.FatTree(nodes, gpusPerNode, withEfficiency(intra), withEfficiency(inter), oversubscription)
	}
	return nil, fmt.Errorf("topology: %q; allowed single-node, fat-tree", kind)
}

// MaxFabricFlows bounds one step's flows (all-to-all has n² of them).
const MaxFabricFlows = 1 << 18

// RunOnFabric runs op by algo for n ranks (GPUs 0…n−1 of t, node by
// node) on the topology. Ring, hierarchical, ring broadcast and all-to-all
// run as flows; the others (tree, star, NVLS) have no flow schedule here and
// return an error naming the algorithm, for the caller to fall back on
// the closed form.
func RunOnFabric(t *topo.Topology, op Op, algo Algo, n int, bytes float64) (FabricResult, error) {
	if n < 2 || n > t.GPUs() {
		return FabricResult{}, fmt.Errorf("ranks: %d; allowed 2–%d on this topology", n, t.GPUs())
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
			Steps: 1, Simulated: sr.Simulated}, nil
	default:
		return FabricResult{}, fmt.Errorf("algo: %s %s has no flow schedule (ring and hierarchical all-reduce, reduce-scatter and all-gather, ring broadcast and all-to-all do)", algo, op)
	}
	sr, err := topo.Steps(t, steps)
	if err != nil {
		return FabricResult{}, err
	}
	res.Seconds, res.MaxUtilization, res.Simulated = sr.Time, sr.MaxUtilization, sr.Simulated
	return res, nil
}
