package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// eagerElementwise by hand for Llama 3.1 8B's layer on one GPU (h 4096,
// 32 heads of 128, 8 K/V heads, f 14,336, no dropout), a token at a time:
// two RMSNorms 2·36·4096 = 294,912; rotary on Q and K 20·(4096 + 1024) =
// 102,400; repeat_kv for K and V 2·(2·1024 + 2·4096) = 20,480; the
// output's transpose 4·4096 = 16,384; SwiGLU 10·14,336 = 143,360; two
// adds 12·4096 = 49,152: 626,688 bytes, against the fused kernels'
// 2·2·2·4096 + 2·3·2·4096 + 6·14,336 = 167,936.
func TestEagerElementwiseByHand(t *testing.T) {
	m, ok := model.Preset("llama3-8b")
	if !ok {
		t.Fatal("no llama3-8b")
	}
	if got := eagerElementwise(m, 4096, 4096, 1024, 14336); got != 626688 {
		t.Errorf("Llama 3 8B, a token: %g bytes, want 626,688", got)
	}
	// A GPT layer (LayerNorm, GeLU, learned positions, all heads K/V,
	// dropout): F.layer_norm 2·4, no rotary, no copies of K/V, the
	// transpose 4, GeLU 4·4h, adds with dropout 2·11: only the transpose
	// and the dropouts apart from the fused kernels' count.
	g := gpt(1, 1024, 16)
	want := 2*4*1024 + 4*1024 + 4*4096 + 2*11*1024.0
	if got := eagerElementwise(g, 1024, 1024, 1024, 4096); got != want {
		t.Errorf("GPT layer, a token: %g bytes, want %g", got, want)
	}
}

// In a plan: eager mode adds its extra bytes three times a layer
// (forward and a backward of twice the bytes) at HBM's rate, and nothing
// else; it is refused for a mixture of experts and beside the fused
// SwiGLU kernel.
func TestEagerInAPlan(t *testing.T) {
	m, _ := model.Preset("llama3-8b")
	m.Seq = 8192
	g := gpu(t, "h100")
	cl := DefaultCluster(g, 8)
	p := Plan{TP: 1, PP: 1, DP: 8, Interleave: 1, ZeRO: 3, Recompute: RecomputeNone, Flash: true, MicroBatch: 2, GlobalBatch: 16,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	fused, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	p.Eager = true
	eager, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	n := 2 * 8192.0
	extra := n * (626688 - 167936) // bytes a layer, forward
	want := 3 * extra * float64(m.Layers) / (g.HBMBandwidth * MemoryEfficiency)
	if got := eager.Time.Compute - fused.Time.Compute; math.Abs(got-want) > 1e-9*want {
		t.Errorf("eager mode adds %g s of compute, want %g", got, want)
	}
	if eager.Memory != fused.Memory {
		t.Errorf("eager mode changed memory: %+v, %+v", eager.Memory, fused.Memory)
	}
	p.FusedSwiGLU = true
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl}); err == nil || !strings.HasPrefix(err.Error(), "eager:") {
		t.Errorf("eager with the fused SwiGLU kernel: %v, want an error naming eager", err)
	}
	moe, _ := model.Preset("mixtral-8x7b")
	p.FusedSwiGLU = false
	if _, err := Evaluate(Config{Model: moe, Plan: p, Cluster: cl}); err == nil || !strings.HasPrefix(err.Error(), "eager:") {
		t.Errorf("eager for a mixture of experts: %v, want an error naming eager", err)
	}
}

// Recomputing the norms (--recompute-modules layernorm) in eager mode
// runs RMSNorm's seven kernels again, not a fused norm's one: 2·(36 − 4)
// bytes an element of h more a layer than the fused plan's recomputation.
func TestEagerNormsRecomputed(t *testing.T) {
	m, _ := model.Preset("llama3-8b")
	m.Seq = 8192
	g := gpu(t, "h100")
	cl := DefaultCluster(g, 8)
	p := Plan{TP: 1, PP: 1, DP: 8, Interleave: 1, ZeRO: 3, Recompute: RecomputeSelective, RecomputeModules: ModuleLayerNorm, Flash: true,
		MicroBatch: 2, GlobalBatch: 16, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	fused := layerCost(m, p, cl)
	p.Eager = true
	eager := layerCost(m, p, cl)
	want := 2 * (36 - 4) * 2 * 8192 * 4096.0 / (g.HBMBandwidth * MemoryEfficiency)
	if got := eager.recompute - fused.recompute; math.Abs(got-want) > 1e-9*want {
		t.Errorf("eager norms recomputed: %g s more a layer, want %g", got, want)
	}
}
