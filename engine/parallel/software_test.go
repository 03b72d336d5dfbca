package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// FP8 as Transformer Engine runs it under Megatron-Core (te.go): a
// layer's quantize kernel is its casts and transposes, by hand —
// forward, the QKV and up inputs' transposed FP8 copies (the fused
// LayerNorm writes FP8: read 1, write 1), the output and down
// projections' inputs cast and transposed (read 2, write 2: the
// attention's and the activation's BF16 outputs), and the weights cast
// and transposed once a step (read 2, write 2, spread over the step's
// 64 micro-batches); backward, all four output gradients cast and
// transposed (read 2, write 2: the activation's backward writes BF16);
// a launch a cast, the weights' a step, and each way the amaxes'
// concatenation and fused update once a chunk of 12 layers, with their
// all-reduce over TP (3 FP32 amaxes a module) — at MemoryEfficiency of
// HBM. In BF16 there is none.
func TestFP8CastsAsTransformerEngine(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	g := gpu(t, "h100")
	p := Plan{TP: 4, PP: 8, DP: 4, Interleave: 1, SP: true, Recompute: RecomputeNone, Flash: true, MicroBatch: 1,
		GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.FP8, Overlap: true}
	cl := DefaultCluster(g, 128)
	ks, err := LayerKernels(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	n, h, f, T := 2048.0, 12288.0, 4*12288.0, 4.0
	M, chunk := 256.0/4, 96.0/8
	weights := 3*h/T*h + h*h/T + f/T*h + h*f/T
	fwd := n*h*2 + n*(h/T)*4 + n*h*2 + n*(f/T)*4 + weights*4/M // qkv, out, up, down inputs; the weights
	bwd := n*(3*h/T)*4 + n*h*4 + n*(f/T)*4 + n*h*4             // qkv, out, up, down output gradients
	reduce := ncclTime(collective.AllReduce, 3*4*4*chunk, 4, 4, cl) / chunk
	bw := g.HBMBandwidth * MemoryEfficiency
	wantF := fwd/bw + (4+4/M+2/chunk)*kernel.LaunchOverhead + reduce
	wantB := bwd/bw + (4+2/chunk)*kernel.LaunchOverhead + reduce
	for _, k := range ks {
		if k.Name != "quantize" {
			continue
		}
		if math.Abs(k.ForwardS-wantF) > 1e-9*wantF || math.Abs(k.BackwardS-wantB) > 1e-9*wantB {
			t.Errorf("quantize: %.4g s forward, %.4g backward; by hand %.4g and %.4g", k.ForwardS, k.BackwardS, wantF, wantB)
		}
	}
	p.Dtype = hw.BF16
	ks, _ = LayerKernels(Config{Model: m, Plan: p, Cluster: DefaultCluster(g, 128)})
	for _, k := range ks {
		if k.Name == "quantize" && (k.ForwardS != 0 || k.BackwardS != 0) {
			t.Errorf("BF16: a quantize pass of %.4g s", k.ForwardS+k.BackwardS)
		}
	}
}

// FlashAttention-2 on an H100 makes the attention core slower by the
// measured ratio, and nothing else; FlashAttention-3 on an A100 is
// refused by name.
func TestFlashVersionInAPlan(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	p := Plan{TP: 8, PP: 16, DP: 1, Interleave: 1, SP: true, Recompute: RecomputeNone, Flash: true, MicroBatch: 1,
		GlobalBatch: 16, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	cl := DefaultCluster(gpu(t, "h100"), 128)
	att := func(v int) (fwd, bwd, gemm float64) {
		p.FlashVersion = v
		ks, err := LayerKernels(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			switch k.Name {
			case "attention":
				fwd, bwd = k.ForwardS, k.BackwardS
			case "qkv":
				gemm = k.ForwardS
			}
		}
		return
	}
	f3, b3, g3 := att(0)
	f2, b2, g2 := att(2)
	if math.Abs(f2/f3-646.0/370) > 1e-9 || math.Abs(b2/b3-559.0/318) > 1e-9 || g2 != g3 {
		t.Errorf("8k attention, FlashAttention-2 over -3: forward ×%.4f, backward ×%.4f (want 646/370, 559/318); QKV %g vs %g", f2/f3, b2/b3, g2, g3)
	}
	p.FlashVersion = 3
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(gpu(t, "a100-80gb"), 128)}); err == nil {
		t.Error("FlashAttention-3 on an A100: no error")
	}
}
