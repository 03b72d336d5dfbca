package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// FlashAttention-2 on an H100 runs at its own measured rates, not
// FlashAttention-3's: at 2,048 keys 362 and 291 TFLOP/s forward and
// backward against 625 and 501 (the FlashAttention-3 paper's H100
// benchmarks); on an A100, FlashAttention-2 keeps the shares it always
// had. A version beyond 2 and 3 is refused.
func TestFlashAttentionVersions(t *testing.T) {
	h100, _ := hw.GPUByID("h100")
	a100, _ := hw.GPUByID("a100-80gb")
	f, b := FlashEfficiencyOf(2, h100, 2048)
	if math.Abs(f-362.0/989) > 1e-9 || math.Abs(b-291.0/989) > 1e-9 {
		t.Errorf("FlashAttention-2 on H100 at 2k: %.4f, %.4f of peak; want 362/989, 291/989", f, b)
	}
	f3, b3 := FlashEfficiencyOf(3, h100, 2048)
	if f3 != 625.0/989 || b3 != 501.0/989 {
		t.Errorf("FlashAttention-3 at 2k: %.4f %.4f", f3, b3)
	}
	if fa, ba := FlashEfficiencyOf(2, a100, 2048); fa != f3 || ba != b3 {
		t.Errorf("FlashAttention-2 on A100: %.4f %.4f, want the shares it had (%.4f %.4f)", fa, ba, f3, b3)
	}
	c := AttentionConfig{Batch: 1, Heads: 32, Seq: 4096, HeadDim: 128, Dtype: hw.BF16, GPU: h100, Impl: FlashAttention}
	r3, err := Attention(c)
	if err != nil {
		t.Fatal(err)
	}
	c.FlashVersion = 2
	r2, err := Attention(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r2.TimeS/r3.TimeS, 638.0/368; math.Abs(got-want) > 1e-9 {
		t.Errorf("4k forward, FlashAttention-2 over -3: %.4f, want 638/368 = %.4f", got, want)
	}
	c.FlashVersion = 4
	if _, err := Attention(c); err == nil {
		t.Error("flash-version 4: no error")
	}
}

// A per-tensor FP8 GEMM reaches a smaller share of its doubled peak than
// BF16 does of its own (measured best shapes on an H100: 1,402.6 of
// 1,978.9 against 794.5 of 989.4): 8192³ in FP8 takes 0.82/0.72/2 of
// BF16's time, 1.76× faster, not 2×. A block-scaled product keeps its own
// accounting.
func TestFP8GEMMEfficiency(t *testing.T) {
	h100, _ := hw.GPUByID("h100")
	run := func(d hw.Dtype) float64 {
		r, err := GEMM(GEMMConfig{M: 8192, N: 8192, K: 8192, Dtype: d, GPU: h100, Kernel: TensorTiled})
		if err != nil {
			t.Fatal(err)
		}
		return r.ComputeS
	}
	if got, want := run(hw.BF16)/run(hw.FP8), 2*FP8TensorEfficiency/TensorEfficiency; math.Abs(got-want) > 1e-3*want {
		t.Errorf("BF16 over FP8 compute time at 8192³: %.4f, want %.4f", got, want)
	}
	if r := 2 * FP8TensorEfficiency / TensorEfficiency; r < 1.70 || r > 1.80 {
		t.Errorf("FP8's speed-up on a large product %.3f; the measured best shapes give 1.77", r)
	}
}

// A causal mask halves FlashAttention's work, at its measured causal
// rate: at 8,192 tokens 602 TFLOP/s forward (of the masked count) on an
// H100, the backward at its unmasked 559 × 602/646; standard attention
// computes every score either way. A ring's blocks run unmasked at
// their own length.
func TestCausalAttention(t *testing.T) {
	h100, _ := hw.GPUByID("h100")
	c := AttentionConfig{Batch: 1, Heads: 16, Seq: 8192, HeadDim: 128, Dtype: hw.BF16, GPU: h100, Impl: FlashAttention, Causal: true}
	r, err := Attention(c)
	if err != nil {
		t.Fatal(err)
	}
	peak := 989.4e12
	half := 16 * 4 * 8192.0 * 8192 * 128 / 2
	if want := half / (peak * 602 / 989); math.Abs(r.ComputeS-want) > 1e-9*want {
		t.Errorf("causal forward %.6g s, by hand %.6g", r.ComputeS, want)
	}
	if want := 2.5 * half / (peak * 559 * 602 / 646 / 989); math.Abs(r.BackwardS-want) > 1e-9*want {
		t.Errorf("causal backward %.6g s, by hand %.6g", r.BackwardS, want)
	}
	if r.WorkFLOPs != half || r.FLOPs != 2*half {
		t.Errorf("FLOPs %g (the full count) and work %g (half)", r.FLOPs, r.WorkFLOPs)
	}
	c.CallKeys, c.CallQueries = 1024, 1024
	r, _ = Attention(c)
	if want := half / (peak * 565 / 989); math.Abs(r.ComputeS-want) > 1e-9*want {
		t.Errorf("ring blocks of 1,024: %.6g s, by hand %.6g", r.ComputeS, want)
	}
	c.Impl, c.CallKeys, c.CallQueries = StandardAttention, 0, 0
	s, _ := Attention(c)
	c.Causal = false
	u, _ := Attention(c)
	if s.TimeS != u.TimeS {
		t.Errorf("standard attention: causal %g s, unmasked %g s; want the same", s.TimeS, u.TimeS)
	}
}
