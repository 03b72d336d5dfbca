package parallel

import "github.com/gpuscope/gpuscope/engine/model"

// torchtitan's op-level selective activation checkpointing
// (torchtitan/models/llama/parallelize_llama.py, _apply_ac_to_transformer_block
// with selective_ac_option "op", late 2024): inside each layer a policy
// keeps the outputs of the operations in its save list — the matrix
// products (aten.mm), the attention kernels, the reduce-scatters — except
// every second matrix product, counted a layer ("Saves output of all
// compute ops, except every second mm"), and recomputes everything else
// in the backward pass. Its Llama layer runs seven products, wq, wk, wv,
// wo, w1, w3 and w2 (model.py), so wk, wo and w3 run again, and every
// elementwise operation — the norms, rotary positions, the residual adds,
// SiLU and its product — with them.

// recomputeOp is the time op-level checkpointing runs again in one
// layer's backward on a GPU of plan p, n tokens: the elementwise work's
// forward (elem, its time) and the products wk, wo and w3.
func recomputeOp(m model.Transformer, p Plan, cl Cluster, n, elem float64) float64 {
	h, T := float64(m.Hidden), float64(p.TP)
	kv := float64(m.KVHeads*m.HeadDim()) / T
	q := float64(m.Heads*m.HeadDim()) / T
	f := float64(m.FFNSize) / T
	dt := p.matmul()
	return elem + cl.gemm(dt, n, kv, h) + cl.gemm(dt, n, h, q) + cl.gemm(dt, n, f, h)
}

// opActivations is one layer's kept activations under op-level
// checkpointing for tokens (b·s) on a GPU of plan p: the layer's input
// (the checkpoint's), the outputs of wq and wv, of the attention core
// (its output and FlashAttention's softmax statistics, or standard
// attention's scores), of w1 and of w2, in BF16; nothing else.
func opActivations(m model.Transformer, tokens, kvSeq float64, p Plan) float64 {
	h, T := float64(m.Hidden), float64(p.TP)
	div := 1.0
	if p.SP {
		div = T
	}
	q := float64(m.Heads * m.HeadDim())
	v := float64(m.KVHeads * m.HeadDim())
	f := float64(m.FFNSize)
	bytes := 2*h/div + 2*(q+v+q+f)/T + 2*h/div
	A := float64(m.Heads)
	if p.Flash {
		bytes += 4 * A / T
	} else {
		bytes += 2 * A * kvSeq / T
	}
	return bytes * tokens
}
