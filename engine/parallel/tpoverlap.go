package parallel

// Transformer Engine's userbuffers overlap of tensor parallelism's
// collectives with the matrix products (transformer_engine/pytorch/
// module/base.py, initialize_ub; NeMo's recipes, tp_overlap_configs/
// userbuffers.py, name the same three methods per product):
//
//   - ring exchange (the all-gathers before QKV and up in the forward,
//     and of the output gradient before the output and down projections'
//     input gradients): the product split into TP chunks, each computed
//     while the next rank's shard arrives peer to peer (on copy engines:
//     one SM), the local shard first — what the product cannot cover,
//     c − g·(TP−1)/TP, is exposed;
//   - pipeline (the reduce-scatters after the output and down
//     projections): the product in 4 splits, each split's
//     reduce-scatter behind the next split's product on ubSMs SMs taken
//     from it, the last split's exposed;
//   - bulk (the reduce-scatters of QKV's and up's input gradients,
//     beside their weight-gradient products, which do not depend on
//     them): the two at once, the product on the SMs the collective
//     leaves.
//
// TE's defaults: num_splits TP for the ring and 4 for the pipeline,
// num_sm 16 for pipeline and bulk (NeMo's tuned recipes take 2–24).
const (
	ubSplits = 4
	ubSMs    = 16
)

// tpOverlapped is one layer's exposed TP communication, forward and
// backward, with the overlap: c is one all-gather or reduce-scatter (half
// an all-reduce of the layer's activations), gf, gd and gw the four
// products' forward, input-gradient and weight-gradient times. What is
// exposed includes the products' slowdown on the SMs the collectives
// take.
func tpOverlapped(c float64, tp, sms int, gf, gd, gw [4]float64) (fwd, bwd float64) {
	const qkv, out, up, down = 0, 1, 2, 3
	slow := 1.0
	if sms > ubSMs {
		slow = float64(sms) / float64(sms-ubSMs)
	}
	ring := func(g float64) float64 {
		return max(0, c-g*float64(tp-1)/float64(tp))
	}
	pipeline := func(g float64) float64 {
		gs, cs := g*slow/ubSplits, c/ubSplits
		return gs + (ubSplits-1)*max(gs, cs) + cs - g
	}
	bulk := func(g float64) float64 { return max(g*slow, c) - g }
	fwd = ring(gf[qkv]) + pipeline(gf[out]) + ring(gf[up]) + pipeline(gf[down])
	bwd = ring(gd[out]) + bulk(gw[qkv]) + ring(gd[down]) + bulk(gw[up])
	return fwd, bwd
}
