package parallel

import (
	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/kernel"
)

// Per-tensor FP8 as NVIDIA's Transformer Engine runs it around a dense
// layer's four products (its Linear modules), beyond the products
// themselves. Read in TransformerEngine's transformer_engine/pytorch/
// module/linear.py, layernorm_linear.py, base.py and fp8.py at v1.2
// (4f9662fb, December 2023: llm-foundry's runs of January 2024) and
// v1.6 (c81733f1, May 2024: NeMo's Megatron-Core of 2024), and in
// Megatron-LM's megatron/core at core_r0.8.0:
//
//   - each product's input cast to FP8 and transposed in one pass,
//     fp8_cast_transpose_fused (read 2 bytes, write 1 + 1: the FP8 copy
//     for the forward product, its transpose for the weight gradient,
//     Hopper's FP8 products taking only the "TN" layout) — or, where
//     the LayerNorm is fused into the module and writes FP8 itself
//     (layernorm_linear.py: layernorm_fwd_fp8), only the transpose
//     (read 1, write 1). Megatron-Core fuses the norm into the QKV and
//     up projections (gpt_layer_specs.py: TELayerNormColumnParallelLinear)
//     but runs the MLP's activation itself between linear_fc1 and
//     linear_fc2 (both TE modules, not TE's LayerNormMLP), in BF16: the
//     down projection casts its input, and the up projection's output
//     gradient, which the activation's backward writes in BF16, is cast
//     and transposed in its backward (base.py grad_output_preprocess:
//     fp8_cast_transpose(_bgrad)_fused, read 2, write 1 + 1), as every
//     product's is. llm-foundry's fc_type te swaps each nn.Linear for a
//     plain te.Linear (Plan.TELinear): no norm is fused.
//   - the weights cast and transposed to FP8 (linear.py:
//     fp8_cast_transpose_fused(weight), read 2, write 1 + 1) whenever
//     the module is called with is_first_microbatch None or True:
//     Megatron-Core passes it (schedules.py set_is_first_microbatch,
//     custom_layers/transformer_engine.py), so once a step, its cost
//     here spread over the step's micro-batches; llm-foundry's MPT
//     calls its modules without it (none in llmfoundry/ at 5e85bd62d:
//     Plan.TELinear), so every micro-batch.
//   - the delayed-scaling recipe's amaxes: taken by the cast kernels as
//     they run (free), then at each fp8_autocast region's end (forward)
//     and backward, concatenated (torch.cat), all-reduced with MAX over
//     the region's fp8_group — synchronously (v1.6 fp8.py
//     reduce_tensor_across_group_op_max, async_op=False; v1.2 unless
//     NVTE_ASYNC_AMAX_REDUCTION) — and turned into new scales: v1.6 in
//     one fused kernel for all modules (fused_amax_and_scale_update_
//     after_reduction), v1.2 module by module, each copying its reduced
//     amax back (copy_amax_from_global_buffer) and running the
//     torch.compile'd _fused_amax_and_scale_update (counted as one
//     kernel: a lower bound). Megatron-Core's region is a
//     TransformerBlock, a model chunk (transformer_block.py), its
//     fp8_group the TP × CP group (get_amax_reduction_group); Composer's
//     (composer/core/precision.py, amp_fp8) is the whole forward, its
//     te.fp8_autocast given no fp8_group: TE's default, all ranks.
//   - what stays BF16 is left as it was: the attention core (attDtype),
//     the norms, activation and residual adds (the elementwise passes),
//     and the output head and router (headDtype).
//
// Each kernel is charged its launch (kernel.LaunchOverhead), each
// cast's bytes at the engine's HBM rate, in series with the products.

// teFP8 is one layer's Transformer Engine work on one micro-batch:
// bytes through HBM forward and backward, kernels launched each way,
// and the seconds of its amax all-reduces each way.
type teFP8 struct {
	fwdBytes, bwdBytes     float64
	fwdKernels, bwdKernels float64
	fwdReduce, bwdReduce   float64
}

// teLinear charges one M×N×K product run by a Transformer Engine
// module: its input (M×K) cast and transposed, or where a fused norm
// writes it in FP8 (normFused), only transposed; its output gradient
// (M×N) cast and transposed; a kernel each.
func (t *teFP8) teLinear(M, N, K float64, normFused bool) {
	if normFused {
		t.fwdBytes += M * K * 2
	} else {
		t.fwdBytes += M * K * 4
	}
	t.fwdKernels++
	t.bwdBytes += M * N * 4
	t.bwdKernels++
}

// teWeights charges the layer's weights, elems values on this GPU, cast
// and transposed (read 2, write 1 + 1, a kernel a module) on a share of
// the micro-batches: 1 (every micro-batch) or 1/M (once a step of M).
func (t *teFP8) teWeights(elems, modules, share float64) {
	t.fwdBytes += elems * 4 * share
	t.fwdKernels += modules * share
}

// teAmax charges the delayed scaling's bookkeeping for a layer of
// modules TE modules, one region's reduction spread over the region's
// layers (regionShare = 1 ÷ its layers), each way: per module, TE 1.2's
// two kernels (perModule), per region the concatenation and TE 1.6's
// fused update (perRegion), and the region's all-reduce (reduce
// seconds).
func (t *teFP8) teAmax(modules, perModule, perRegion, regionShare, reduce float64) {
	k := modules*perModule + perRegion*regionShare
	t.fwdKernels += k
	t.bwdKernels += k
	t.fwdReduce += reduce * regionShare
	t.bwdReduce += reduce * regionShare
}

// seconds is t's time each way at HBM rate bw.
func (t teFP8) seconds(bw float64) (fwd, bwd float64) {
	return t.fwdBytes/bw + t.fwdKernels*kernel.LaunchOverhead + t.fwdReduce,
		t.bwdBytes/bw + t.bwdKernels*kernel.LaunchOverhead + t.bwdReduce
}

// teLayer is a dense layer's Transformer Engine work for plan p, of a
// model of layers layers: its products mats (M×N×K as n × mats[i].n ×
// mats[i].k), the output projection at index out and the down
// projection at down.
func teLayer(p Plan, cl Cluster, layers int, n float64, mats []mm, out, down int) teFP8 {
	var t teFP8
	var elems, modules float64
	for i, x := range mats {
		if x.n <= 0 || x.k <= 0 {
			continue
		}
		t.teLinear(n, x.n, x.k, !p.TELinear && i != out && i != down)
		elems += x.n * x.k
		modules++
	}
	share := 1.0 // the weights cast every micro-batch
	if !p.TELinear && p.DP > 0 && p.MicroBatch > 0 {
		share = 1 / float64(max(p.microBatches(), 1))
	}
	t.teWeights(elems, modules, share)
	// The region: a model chunk of Megatron-Core, its TP × CP group; the
	// whole model under Composer, all ranks.
	perModule, perRegion := 0.0, 2.0
	ranks := p.TP * p.cp()
	regionLayers := float64(layers) / float64(max(p.PP, 1)*max(p.Interleave, 1))
	if p.TELinear {
		perModule, perRegion = 2, 1
		ranks = cl.GPUs
		regionLayers = float64(layers)
	}
	// The amaxes: FP32, three a module forward (input, weight, output),
	// two backward (TE's FP8FwdTensors, FP8BwdTensors); the forward's,
	// the larger, for both.
	amaxBytes := 3 * 4 * modules * regionLayers
	reduce := ncclTime(collective.AllReduce, amaxBytes, ranks, min(ranks, cl.GPUsPerNode), cl)
	t.teAmax(modules, perModule, perRegion, 1/max(regionLayers, 1), reduce)
	return t
}
