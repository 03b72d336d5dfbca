package parallel

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A mixture of experts under a plan: its MoE layers' parameters, costs,
// all-to-alls and activations on one GPU (Evaluate puts them on the
// stages that hold them).

// moeLayer is one MoE layer of a mixture of experts on one GPU.
type moeLayer struct {
	params  float64 // its parameters on the GPU
	experts float64 // … of which its routed experts' (E ÷ EP of them)
	cost    costs   // compute and TP collectives, a micro-batch
	// Expert parallelism's all-to-alls, a micro-batch: dispatch and
	// combine forward (a2aFwd), again backward, again when the forward is
	// recomputed.
	a2a, a2aFwd  float64
	act, actFull float64 // stored activations; with full recomputation, the recomputed layer's
}

// moeLayerOn is an MoE layer of m under p: the attention as a dense
// layer's, with the shared experts as its feed-forward block (layerCost
// of a dense layer SharedFFN wide), the router (h × E, replicated), and
// the routed experts — E ÷ EP of them on the GPU, TP-sharded like a dense
// FFN — through which the busiest GPU sends its tokens' TopK copies times
// the capacity factor, each expert one product of its share of them.
// With EP > 1 each copy travels to its expert and back: an all-to-all of
// b·s·k·cf·h BF16 values (÷ TP: the TP ranks split the tokens), the part
// for ranks on other nodes at the inter-node link's rate. layerParams and
// denseFFN are a dense layer's parameters on a GPU and its FFN's part.
func moeLayerOn(m model.Transformer, p Plan, cl Cluster, layerParams, denseFFN float64) moeLayer {
	g, dt := cl.GPU, p.Dtype
	h, T := float64(m.Hidden), float64(p.TP)
	ep, E, k, fe, cf := float64(p.ep()), float64(m.Experts), float64(m.TopK), float64(m.ExpertFFN), p.capacity()
	var l moeLayer
	l.experts = E / ep * 3 * h * fe / T
	router, shared := h*E, 3*h*float64(m.SharedFFN)/T
	if m.RouterBias {
		router += E
	}
	if m.SharedGate {
		shared += h
	}
	l.params = layerParams - denseFFN + router + shared + l.experts

	sm := m
	sm.FFNSize = m.SharedFFN // 0: no feed-forward products (layerCost skips them)
	l.cost = layerCost(sm, p, cl)
	n := float64(p.MicroBatch) * float64(m.Seq/p.cp()) // the tokens on this GPU
	local := E / ep
	pairs := n * k * cf // token copies through this GPU's experts
	per := pairs / local
	var fwd, bwd float64
	for _, x := range [...]struct{ n, k float64 }{{2 * fe / T, h}, {h, fe / T}} { // gate and up; down
		fwd += local * gemm(g, dt, per, x.n, x.k)
		bwd += local * (gemm(g, dt, per, x.k, x.n) + gemm(g, dt, x.k, x.n, per))
	}
	fwd += gemm(g, dt, n, E, h) // the router's scores
	bwd += gemm(g, dt, n, h, E) + gemm(g, dt, h, E, n)
	// The experts' SwiGLU, and the tokens copied to their experts and
	// back (permute, unpermute).
	elem := 3*pairs*fe/T*2 + 2*2*pairs*h*2/T
	fwd += elem / (g.HBMBandwidth * MemoryEfficiency)
	bwd += 2 * elem / (g.HBMBandwidth * MemoryEfficiency)
	l.cost.fwd += fwd
	l.cost.bwd += bwd
	if p.Recompute == RecomputeFull {
		l.cost.recompute += fwd
		l.cost.bwd += fwd
	}
	if p.ep() > 1 {
		one := allToAll(pairs*h*2/T, p.ep(), min(p.ep(), dpPerNode(p, cl)), cl.Intra, cl.Inter)
		l.a2aFwd = 2 * one
		l.a2a = 4 * one
		if p.Recompute == RecomputeFull {
			l.a2a += 2 * one
		}
	}
	// Activations: the MLP's as a dense layer's of the width a token
	// goes through (k·cf experts and the shared ones), and the copies
	// dispatched to the experts (their inputs, kept for the backward).
	am := m
	am.FFNSize = int(math.Round(k*cf*fe)) + m.SharedFFN
	disp := 2 * pairs * h / T
	l.act = ActivationBytesCP(am, m.Seq, p.MicroBatch, p.TP, p.cp(), p.SP, p.Flash, p.Recompute)
	if p.Recompute != RecomputeFull {
		l.act += disp
	}
	l.actFull = ActivationBytesCP(am, m.Seq, p.MicroBatch, p.TP, p.cp(), p.SP, p.Flash, RecomputeNone) + disp
	return l
}

// allToAll is one all-to-all in which each of n ranks, k of them on a
// node, sends bytes in all, an equal share to every rank (its own stays):
// what goes to the k − 1 on its node at the node's link rate, what leaves
// it at the inter-node link's, both at once.
func allToAll(bytes float64, n, k int, intra, inter hw.Link) float64 {
	if n <= 1 {
		return 0
	}
	k = min(max(k, 1), n)
	in := bytes * float64(k-1) / float64(n)
	out := bytes * float64(n-k) / float64(n)
	t := 0.0
	if in > 0 {
		t = intra.Latency.Seconds() + in/(intra.Bandwidth*intra.Efficiency)
	}
	if out > 0 {
		t = math.Max(t, inter.Latency.Seconds()+out/(inter.Bandwidth*inter.Efficiency))
	}
	return t
}

// denseOnStage is how many of a mixture of experts' dense first layers
// (DenseLayers) pipeline stage st holds: chunk c of the pp·v, in layer
// order, is stage c mod pp's; each holds L ÷ (pp·v) layers, or with
// Llama 3's balancing (stageLayers) the first and last one fewer.
func denseOnStage(m model.Transformer, pp, v, st int) int {
	if m.DenseLayers == 0 {
		return 0
	}
	mid, ends, err := stageLayers(trainedLayers(m), pp, v)
	if err != nil {
		return 0
	}
	chunks, size := pp*v, mid/v
	n, start := 0, 0
	for c := range chunks {
		sz := size
		if ends != mid && (c == 0 || c == chunks-1) {
			sz--
		}
		if c%pp == st {
			n += max(0, min(start+sz, m.DenseLayers)-start)
		}
		start += sz
	}
	return n
}
