package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Op-level checkpointing's kept bytes by hand for Llama 3 8B on one GPU
// with FlashAttention, a token: the input 2·4096, wq's output 2·4096,
// wv's 2·1024, the attention output 2·4096 and its statistics 4·32, w1's
// 2·14,336, w2's 2·4096: 63,616 bytes — under half of Megatron's
// selective recomputation's (which keeps the norms' outputs, K, the
// gate and up outputs and the down projection's input too).
func TestOpActivationsByHand(t *testing.T) {
	m, _ := model.Preset("llama3-8b")
	p := Plan{TP: 1, Flash: true, Recompute: RecomputeOp}
	if got := opActivations(m, 1, 8192, p); got != 63616 {
		t.Errorf("a token: %g bytes kept, want 63,616", got)
	}
	sel := layerActivations(m, 1, 8192, 1, Plan{TP: 1, Flash: true, Recompute: RecomputeSelective})
	if !(63616 < sel/2) {
		t.Errorf("selective keeps %g bytes a token, want more than twice op's", sel)
	}
}

// In a plan: op-level checkpointing runs again, each layer, the
// elementwise work's forward and the products wk, wo and w3 — so the
// compute is the plan's without recomputation plus exactly that — and
// counts those products in the hardware FLOPs; its memory is the kept
// bytes, with the layer being recomputed whole; a mixture of experts is
// refused.
func TestRecomputeOpInAPlan(t *testing.T) {
	m, _ := model.Preset("llama3-8b")
	m.Seq = 8192
	g := gpu(t, "h100")
	cl := DefaultCluster(g, 8)
	p := Plan{TP: 1, PP: 1, DP: 8, Interleave: 1, ZeRO: 3, Recompute: RecomputeNone, Flash: true, MicroBatch: 2, GlobalBatch: 16,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true, Eager: true}
	none, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	p.Recompute = RecomputeOp
	op, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	n := 2 * 8192.0
	run := cl.perGPU()
	run.GPU = sustained(run.GPU) // as Evaluate runs the products
	elem := n * 626688 / (g.HBMBandwidth * MemoryEfficiency)
	per := elem + run.gemm(hw.BF16, n, 1024, 4096) + run.gemm(hw.BF16, n, 4096, 4096) + run.gemm(hw.BF16, n, 14336, 4096)
	if got, want := op.Time.Compute-none.Time.Compute, 32*per; math.Abs(got-want) > 1e-9*want {
		t.Errorf("op-level checkpointing adds %g s of compute, want %g", got, want)
	}
	if got, want := op.HardwareFLOPs-none.HardwareFLOPs, 16*8192*32*2*4096.0*(1024+4096+14336); math.Abs(got-want) > 1e-9*want {
		t.Errorf("hardware FLOPs %g more, want %g", got, want)
	}
	// Every layer keeps op's bytes in place of all of them, but the one
	// being recomputed holds all of them again meanwhile.
	p.Recompute = RecomputeNone
	all := layerActivations(m, 8192, 8192, 2, p)
	p.Recompute = RecomputeOp
	kept := layerActivations(m, 8192, 8192, 2, p)
	if got, want := none.Memory.Activations-op.Memory.Activations, 31*(all-kept); math.Abs(got-want) > 1e-9*want {
		t.Errorf("activations %g with op-level checkpointing, %g without: %g less, want 31 × %g", op.Memory.Activations, none.Memory.Activations, got, all-kept)
	}
	moe, _ := model.Preset("mixtral-8x7b")
	p.Eager = false
	if _, err := Evaluate(Config{Model: moe, Plan: p, Cluster: cl}); err == nil {
		t.Error("op-level checkpointing of a mixture of experts: no error")
	}
}
