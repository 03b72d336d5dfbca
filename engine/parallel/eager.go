package parallel

import "github.com/gpuscope/gpuscope/engine/model"

// eagerElementwise is the bytes one layer's elementwise work moves in its
// forward pass under PyTorch's eager mode, where each operation is its own
// kernel that reads its inputs from HBM and writes its output back —
// counted operation by operation from torchtitan's Llama as it ran in
// late 2024 (torchtitan/models/llama/model.py and models/norms.py, no
// torch.compile):
//
//   - RMSNorm, twice a layer: x.float() (reads 2 bytes an element,
//     writes 4), pow(2) (4, 4), mean over the row (4, ·), x · rsqrt (4,
//     4), type_as (4, 2), · weight (2, 2): 36 bytes an element. A
//     LayerNorm is F.layer_norm, one kernel: 4, as a fused norm.
//   - rotary positions (a model without learned positions): Q and K
//     .float() (2, 4), their complex product with freqs_cis (4, 4),
//     type_as (4, 2): 20 bytes an element of Q and of K.
//   - repeat_kv, with fewer K/V heads than heads: K and V expanded and
//     reshaped into a copy (reads K's size, writes Q's): 2 + 2 a head's
//     element each.
//   - the attention output's transpose(1, 2).contiguous(): 4 bytes an
//     element of Q.
//   - the feed-forward's activation: SwiGLU's silu (2, 2) and product
//     (4, 2), 10 bytes an element of f; GeLU and ReLU one kernel, 4;
//     squared ReLU relu then square, 8.
//   - the two residual adds (4, 2), and with dropout a dropout before
//     each (2, 2 and a byte of mask).
//
// hl is the elements of h this GPU's layer norms and adds touch (h/TP a
// token with sequence parallelism), q and kv the elements of Q and of K
// (each of K and V) it holds, fl the activation's (f/TP a token). The
// fused count the engine uses otherwise (layerCostOf) is 2·2 for each
// norm, 3 (3.5 with dropout) for each add and 6 or 4 for the activation.
// A backward moves about twice these bytes, as for the fused kernels.
func eagerElementwise(m model.Transformer, hl, q, kv, fl float64) float64 {
	b := 2 * normBytes(m, true) * hl
	if !m.LearnedPositions {
		b += 20 * (q + kv)
	}
	if kv < q {
		b += 2 * (2*kv + 2*q)
	}
	b += 4 * q
	switch m.FFN {
	case model.SwiGLU:
		b += 10 * fl
	case model.SquaredReLU:
		b += 8 * fl
	default:
		b += 4 * fl
	}
	add := 6.0
	if !m.NoDropout {
		add += 5
	}
	return b + 2*add*hl
}

// normBytes is the bytes one norm moves an element of h: a fused kernel
// reads and writes it in BF16 (4); in eager mode an RMSNorm is seven
// kernels (36), a LayerNorm F.layer_norm's one (4).
func normBytes(m model.Transformer, eager bool) float64 {
	if eager && !m.Biases {
		return 36
	}
	return 4
}
