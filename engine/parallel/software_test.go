package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// FP8 as Transformer Engine runs it: a layer's quantize kernel is its
// casts and transposes, by hand — forward, the QKV, up and down inputs'
// transposed FP8 copies (read 1, write 1) and the output projection's
// input cast and transposed (read 2, write 2); backward, the output
// gradients of QKV, the output projection and the down projection cast
// and transposed (read 2, write 2), the up projection's written in FP8 by
// the activation's backward — at MemoryEfficiency of HBM. In BF16 there
// is none.
func TestFP8CastsAsTransformerEngine(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	g := gpu(t, "h100")
	p := Plan{TP: 4, PP: 8, DP: 4, Interleave: 1, SP: true, Recompute: RecomputeNone, Flash: true, MicroBatch: 1,
		GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.FP8, Overlap: true}
	ks, err := LayerKernels(Config{Model: m, Plan: p, Cluster: DefaultCluster(g, 128)})
	if err != nil {
		t.Fatal(err)
	}
	n, h, f, T := 2048.0, 12288.0, 4*12288.0, 4.0
	fwd := n*h*2 + n*(h/T)*4 + n*h*2 + n*(f/T)*2 // qkv, out, up, down inputs
	bwd := n*(3*h/T)*4 + n*h*4 + n*h*4           // qkv, out, down output gradients
	bw := g.HBMBandwidth * MemoryEfficiency
	for _, k := range ks {
		if k.Name != "quantize" {
			continue
		}
		if math.Abs(k.ForwardS-fwd/bw) > 1e-9*fwd/bw || math.Abs(k.BackwardS-bwd/bw) > 1e-9*bwd/bw {
			t.Errorf("quantize: %.4g s forward, %.4g backward; by hand %.4g and %.4g", k.ForwardS, k.BackwardS, fwd/bw, bwd/bw)
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
