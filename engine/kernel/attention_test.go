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
	// When K and V of the heads in flight outgrow L2, FlashAttention pays
	// the paper's 2·N²·d/Br re-reads.
	f := attn(t, FlashAttention, 1<<17)
	if f.KVInL2 {
		t.Error("N = 131072: K and V still reported in L2")
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
