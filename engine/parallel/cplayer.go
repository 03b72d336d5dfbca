package parallel

import "github.com/gpuscope/gpuscope/engine/collective"

// CPLayer is one layer's forward on a context-parallel rank for one
// micro-batch, as the engine costs it (layerCost, cpComm): what the
// long-context lesson draws of the K/V exchange, all-gather against ring.
type CPLayer struct {
	CP int
	// Attention is the rank's attention core forward, seconds: its s/CP
	// queries against every key, 1/CP of the sequence's.
	Attention float64
	// KVBytes are K and V of the whole sequence on one GPU (its KV
	// heads, BF16); a ring block is KVBytes/CP.
	KVBytes float64
	// AllGather is their all-gather over the CP ranks, seconds; Send one
	// ring step's pass of a block to the next rank.
	AllGather, Send float64
	// Exposed is what each algorithm leaves of its forward traffic on
	// the critical path: all of the all-gather; for the ring, CP − 1
	// steps of max(0, Send − Attention/CP).
	ExposedAllGather, ExposedRing float64
}

// CPLayerForward is c's CPLayer (zero for a plan without context
// parallelism).
func CPLayerForward(c Config) CPLayer {
	p, cl := c.Plan, c.Cluster.perGPU()
	cp := p.cp()
	if cp < 2 {
		return CPLayer{CP: 1}
	}
	cost := layerCost(c.Model, p, cl)
	l := CPLayer{CP: cp, Attention: cost.attn, KVBytes: cost.kvFull}
	ring, ag := p, p
	ring.CPAlgo, ag.CPAlgo = CPRing, CPAllGather
	ring.Recompute, ag.Recompute = RecomputeNone, RecomputeNone // the forward alone
	l.ExposedRing, _ = cpComm(ring, cl, l.KVBytes, l.Attention, 0)
	l.ExposedAllGather, _ = cpComm(ag, cl, l.KVBytes, l.Attention, 0)
	l.AllGather = collectiveTime(collective.AllGather, l.KVBytes, cp, cpPerNode(p, cl), cl)
	link := cl.Intra
	if cpPerNode(p, cl) < cp {
		link = cl.Inter
	}
	l.Send = link.Latency.Seconds() + l.KVBytes/float64(cp)/(link.Bandwidth*link.Efficiency)
	return l
}
