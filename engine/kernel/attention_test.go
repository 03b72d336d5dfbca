package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

func attn(t *testing.T, impl AttentionImpl, n int) AttentionResult {
	t.Helper()
	g, _ := hw.GPUByID("h100")
	r, err := Attention(AttentionConfig{Batch: 1, Heads: 16, Seq: n, HeadDim: 128, Dtype: hw.BF16, GPU: g, Impl: impl})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Standard attention's HBM traffic grows ~quadratically in N; FlashAttention's
// ~linearly (K and V re-reads stay in L2) over the lesson's range.
func TestAttentionTrafficGrowth(t *testing.T) {
	for _, n := range []int{1024, 2048, 4096, 8192} {
		s1, s2 := attn(t, StandardAttention, n), attn(t, StandardAttention, 2*n)
		f1, f2 := attn(t, FlashAttention, n), attn(t, FlashAttention, 2*n)
		if r := s2.HBMBytes / s1.HBMBytes; r < 3.5 {
			t.Errorf("standard N=%d→%d: HBM ×%.2f, want ≈ 4 (quadratic)", n, 2*n, r)
		}
		if r := f2.HBMBytes / f1.HBMBytes; math.Abs(r-2) > 0.01 {
			t.Errorf("flash N=%d→%d: HBM ×%.2f, want 2 (linear)", n, 2*n, r)
		}
		if f1.HBMBytes >= s1.HBMBytes/4 {
			t.Errorf("N=%d: flash %g bytes vs standard %g; want far less", n, f1.HBMBytes, s1.HBMBytes)
		}
	}
	// Hand-worked standard traffic: (4N² + 4Nd)·2 bytes per head.
	s := attn(t, StandardAttention, 2048)
	if want := 16 * (4*2048.0*2048 + 4*2048*128) * 2; s.HBMBytes != want {
		t.Errorf("standard N=2048: %g bytes, want %g", s.HBMBytes, want)
	}
	f := attn(t, FlashAttention, 1<<17)
	if f.KVInL2 {
		t.Error("N = 131072: K and V still reported in L2")
	}
}

// When K and V outgrow L2, each wave of a head's blocks reads them from
// HBM again, and no more: the blocks of a wave share them through L2.
// Hand-worked for 16 heads, d = 128, BF16 on an H100 (132 SMs, 50 MB L2):
// at N = 32,768 one head is in flight (256 blocks ≥ 132), its K and V
// 2·32768·128·2 = 16.8 MB fit in 25 MB: 16 × 4·N·d × 2 = 537 MB. At
// 65,536 they are 33.5 MB and do not; 512 blocks are ⌈512 ÷ 132⌉ = 4
// waves: 16 × (2 + 4·2)·N·d × 2 = 2.68 GB — ×5 for ×2 in N, and still
// 1/205 of standard attention's 16 × 4·N²·2 = 550 GB.
func TestFlashAttentionKVWaves(t *testing.T) {
	f32, f64 := attn(t, FlashAttention, 32768), attn(t, FlashAttention, 65536)
	if !f32.KVInL2 || f32.KVReads != 1 || f32.HBMBytes != 16*4*32768.0*128*2 {
		t.Errorf("N = 32768: in L2 %v, %d reads, %g bytes; want true, 1, %g", f32.KVInL2, f32.KVReads, f32.HBMBytes, 16*4*32768.0*128*2)
	}
	if want := 16 * 10 * 65536.0 * 128 * 2; f64.KVInL2 || f64.KVReads != 4 || f64.HBMBytes != want {
		t.Errorf("N = 65536: in L2 %v, %d reads, %g bytes; want false, 4, %g", f64.KVInL2, f64.KVReads, f64.HBMBytes, want)
	}
	s64 := attn(t, StandardAttention, 65536)
	if r := s64.HBMBytes / f64.HBMBytes; r < 150 {
		t.Errorf("N = 65536: standard moves only %.0f× FlashAttention's bytes, want ≈ 205×", r)
	}
}

// The seed's GPT-3 score matrices: batch 1024, 96 heads, sequence 2048, 2
// bytes: 1024·96·2048²·2 = 824,633,720,832 bytes (the seed writes 822 GB).
func TestGPT3ScoreBytes(t *testing.T) {
	g, _ := hw.GPUByID("a100")
	r, err := Attention(AttentionConfig{Batch: 1024, Heads: 96, Seq: 2048, HeadDim: 128, Dtype: hw.FP16, GPU: g, Impl: StandardAttention})
	if err != nil {
		t.Fatal(err)
	}
	if r.ScoreBytes != 824633720832 {
		t.Errorf("GPT-3 score bytes %.0f, want 824633720832", r.ScoreBytes)
	}
}

// FlashAttention's tiled online softmax gives the same output as the
// direct formula (to rounding).
func TestAttentionTiledMatchesReference(t *testing.T) {
	for _, blk := range [][2]int{{8, 8}, {16, 5}, {37, 53}, {1, 1}} {
		if e := AttentionTilingError(3, 37, 53, 16, blk[0], blk[1]); e > 1e-12 {
			t.Errorf("blocks %v: largest difference %g, want ≤ 1e-12", blk, e)
		}
	}
}

func TestAttentionRejects(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	for _, c := range []AttentionConfig{
		{Batch: 0, Heads: 1, Seq: 8, HeadDim: 8, Dtype: hw.BF16, GPU: g, Impl: FlashAttention},
		{Batch: 1, Heads: 1, Seq: 8, HeadDim: 8, Dtype: hw.BF16, GPU: g, Impl: "fast"},
		{Batch: 1, Heads: 1, Seq: 8, HeadDim: 8, Dtype: hw.BF16, GPU: g, Impl: FlashAttention, BlockQ: 3},
	} {
		if _, err := Attention(c); err == nil {
			t.Errorf("Attention(%+v): no error", c)
		}
	}
}

// FlashAttention runs at its measured rates, not a GEMM's: at the
// lengths FlashAttention-3's BF16 benchmarks measured on an H100 (head
// dim 128) exactly their TFLOP/s over its 989 peak, between them linear
// in log₂ of the length, outside them held. By hand at 8,192 keys, 16
// heads: 16 × 4 × 8192² × 128 = 5.50e11 FLOPs forward at 646/989 of the
// peak, backward 2.5 times as many at 559/989 — 1.16× the forward's
// time a FLOP, where the engine before timed both at the GEMM's 82%.
func TestFlashEfficiencyMeasured(t *testing.T) {
	for _, tt := range []struct {
		n        int
		fwd, bwd float64 // TFLOP/s
	}{{512, 467, 316}, {2048, 625, 501}, {16384, 648, 561}, {64, 467, 316}, {1 << 20, 648, 561}} {
		f, b := FlashEfficiency(tt.n)
		if math.Abs(f-tt.fwd/989) > 1e-12 || math.Abs(b-tt.bwd/989) > 1e-12 {
			t.Errorf("N = %d: %.4f, %.4f of peak; want %.4f, %.4f", tt.n, f, b, tt.fwd/989, tt.bwd/989)
		}
	}
	// Midway in log₂ between 4,096 and 8,192 (√(4096·8192) ≈ 5793).
	if f, b := FlashEfficiency(5793); math.Abs(f-642.0/989) > 2e-4 || math.Abs(b-550.5/989) > 2e-4 {
		t.Errorf("N = 5793: %.4f, %.4f; want ≈ %.4f, %.4f", f, b, 642.0/989, 550.5/989)
	}
	r := attn(t, FlashAttention, 8192)
	g, _ := hw.GPUByID("h100")
	peak, _ := g.PeakFLOPS(hw.BF16)
	flops := 16 * 4 * 8192.0 * 8192 * 128
	if want := flops / (peak * 646 / 989); r.FLOPs != flops || math.Abs(r.ComputeS/want-1) > 1e-12 || r.TimeS != r.ComputeS {
		t.Errorf("N = 8192: %g FLOPs, %g s (time %g s); want %g, %g s, compute-bound", r.FLOPs, r.ComputeS, r.TimeS, flops, want)
	}
	if want := 2.5 * flops / (peak * 559 / 989); math.Abs(r.BackwardS/want-1) > 1e-12 {
		t.Errorf("N = 8192 backward: %g s; want %g", r.BackwardS, want)
	}
	if slower := r.BackwardS / (2.5 * r.TimeS); slower < 1.1 || slower > 1.2 {
		t.Errorf("backward a FLOP %.3f× the forward's time; want 646/559 ≈ 1.16", slower)
	}
	if f, _ := FlashEfficiency(8192); f >= TensorEfficiency {
		t.Errorf("FlashAttention's forward at %.3f of peak, a GEMM's %.2f: want below", f, TensorEfficiency)
	}
	// Standard attention's products are cuBLAS GEMMs: its backward is
	// twice its forward, at the GEMM's rate.
	if s := attn(t, StandardAttention, 2048); s.BackwardS != 2*s.TimeS {
		t.Errorf("standard backward %g s, forward %g s; want twice", s.BackwardS, s.TimeS)
	}
}

// A sequence's attention run as several FlashAttention calls (context
// parallelism): the forward at the rate measured at a call's keys, the
// backward at its queries' — FlashAttention's forward blocks of queries
// loop over the keys, its backward blocks of keys over the queries. By
// hand at 8,192 tokens and 16 heads, calls of 512 queries against 4,096
// keys: the same FLOPs, forward at 638/989 of the peak, backward at
// 316/989 (the whole sequence's: 646 and 559); FlashAttention-2's on
// Hopper at 368 and 214. Out of range refused.
func TestFlashAttentionCalls(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	peak, _ := g.PeakFLOPS(hw.BF16)
	flops := 16 * 4 * 8192.0 * 8192 * 128
	for _, tt := range []struct {
		version  int
		fwd, bwd float64
	}{{3, 638, 316}, {2, 368, 214}} {
		c := AttentionConfig{Batch: 1, Heads: 16, Seq: 8192, HeadDim: 128, Dtype: hw.BF16, GPU: g, Impl: FlashAttention, FlashVersion: tt.version, CallKeys: 4096, CallQueries: 512}
		r, err := Attention(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := flops / (peak * tt.fwd / 989); r.FLOPs != flops || math.Abs(r.TimeS/want-1) > 1e-12 {
			t.Errorf("FlashAttention-%d, calls of 512 queries × 4,096 keys: forward %g s; want %g", tt.version, r.TimeS, want)
		}
		if want := 2.5 * flops / (peak * tt.bwd / 989); math.Abs(r.BackwardS/want-1) > 1e-12 {
			t.Errorf("FlashAttention-%d, calls of 512 queries × 4,096 keys: backward %g s; want %g", tt.version, r.BackwardS, want)
		}
	}
	for _, bad := range [][2]int{{-1, 0}, {0, 8193}} {
		c := AttentionConfig{Batch: 1, Heads: 16, Seq: 8192, HeadDim: 128, Dtype: hw.BF16, GPU: g, Impl: FlashAttention, CallKeys: bad[0], CallQueries: bad[1]}
		if _, err := Attention(c); err == nil {
			t.Errorf("calls of %d keys and %d queries accepted", bad[0], bad[1])
		}
	}
}
