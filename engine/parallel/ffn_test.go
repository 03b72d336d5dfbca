package parallel

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// nemotron4 is Nemotron-4 340B as its report gives it (arXiv 2406.11704
// §2.1, Table 1): 96 layers, hidden 18432, 96 heads of 192, 8 KV heads,
// squared ReLU in an MLP 73728 wide, no biases, rotary positions, untied
// embeddings of 256,000, dropout zero, 4,096-token sequences.
func nemotron4() model.Transformer {
	return model.Transformer{ID: "custom", Name: "Nemotron-4 340B", Layers: 96, Hidden: 18432, Heads: 96, KVHeads: 8, Seq: 4096,
		Vocab: 256000, FFNSize: 73728, FFN: model.SquaredReLU, NoDropout: true}
}

// An ungated MLP's activations, by hand on a Nemotron-4 340B layer (TP 8,
// SP, FlashAttention, the attention core recomputed, no dropout; s·b =
// 4096, h = 18432, f = 73728): the norms' inputs and outputs 4 × 2 bytes
// × s·h ÷ t = 75,497,472; Q, K, V (18432 + 2·1536 wide) and O's input
// (18432), 2 bytes each, s ÷ t of them: 40,894,464; the MLP, squared
// ReLU, relu(x) for its backward and the down projection's input, 2·f
// each: 4·73728·512 = 150,994,944 — 267,386,880 bytes, as a GeLU's
// (whose input is kept instead). A ReLU keeps only its output, which is
// the down projection's input: 75,497,472 less.
func TestUngatedFFNActivations(t *testing.T) {
	m := nemotron4()
	relu2 := ActivationBytes(m, 4096, 1, 8, true, true, RecomputeSelective)
	if want := 267386880.0; relu2 != want {
		t.Errorf("relu2 layer: %.0f bytes of activations, by hand %.0f", relu2, want)
	}
	g := m
	g.FFN = model.GeLU
	if got := ActivationBytes(g, 4096, 1, 8, true, true, RecomputeSelective); got != relu2 {
		t.Errorf("gelu layer of the same sizes: %.0f bytes, relu2's %.0f: the same accounting", got, relu2)
	}
	r := m
	r.FFN = model.ReLU
	if got, want := ActivationBytes(r, 4096, 1, 8, true, true, RecomputeSelective), relu2-75497472; got != want {
		t.Errorf("relu layer: %.0f bytes, by hand %.0f (its output is the down projection's input)", got, want)
	}
	// The activation recomputed (moe_act): the down projection's input
	// not kept; ReLU then keeps its input in its output's place.
	p := Plan{TP: 8, SP: true, Flash: true, Recompute: RecomputeSelective, RecomputeModules: ModuleCoreAttn | ModuleMoEAct}
	if got, want := layerActivations(m, 4096, 4096, 1, p), relu2-2*73728*512; got != want {
		t.Errorf("relu2 with moe_act: %.0f bytes, by hand %.0f", got, want)
	}
	if got, want := layerActivations(r, 4096, 4096, 1, p), relu2-75497472; got != want {
		t.Errorf("relu with moe_act: %.0f bytes, by hand %.0f", got, want)
	}
}

// An ungated MLP's products and passes are GeLU's, whatever its
// activation: two matrices, 2·h·f FLOPs a token forward each way, the
// activation read and written (2 × 2 bytes × f a token); SwiGLU's third
// matrix adds h·f. Nemotron-4 340B's step of 2,304 sequences: per token
// and layer 2·(2·18432² + 2·18432·1536 + 2·18432·73728) + 4·4096·18432
// FLOPs forward, the head 2·18432·256000, times 3.
func TestUngatedFFNCosts(t *testing.T) {
	m := nemotron4()
	h, kv, f, s, V := 18432.0, 1536.0, 73728.0, 4096.0, 256000.0
	layer := 2*(2*h*h+2*h*kv+2*h*f) + 4*s*h
	want := 3 * 2304 * s * (96*layer + 2*h*V)
	got, _ := StepFLOPs(m, 2304, RecomputeSelective)
	if !within(got, want, 1e-12) {
		t.Errorf("relu2 step: %.6g model FLOPs, by hand %.6g", got, want)
	}
	g := m
	g.FFN = model.GeLU
	if gg, _ := StepFLOPs(g, 2304, RecomputeSelective); gg != got {
		t.Errorf("gelu step: %.6g FLOPs, relu2's %.6g", gg, got)
	}
	sw := m
	sw.FFN = model.SwiGLU
	if gs, _ := StepFLOPs(sw, 2304, RecomputeSelective); !within(gs-got, 3*2304*s*96*2*h*f, 1e-9) {
		t.Errorf("swiglu step: %.6g FLOPs more, by hand %.6g", gs-got, 3*2304*s*96*2*h*f)
	}
	// A layer's time: relu2's and relu's those of a GeLU of the same
	// sizes (the same products and passes); SwiGLU's longer.
	g100, _ := hw.GPUByID("h100")
	cl := DefaultCluster(sustained(g100), 8)
	p := Plan{TP: 8, PP: 1, DP: 1, Interleave: 1, SP: true, Flash: true, Recompute: RecomputeSelective, MicroBatch: 1, GlobalBatch: 1,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}
	base := layerCost(g, p, cl)
	for _, k := range []model.FFN{model.SquaredReLU, model.ReLU} {
		x := m
		x.FFN = k
		if c := layerCost(x, p, cl); c != base {
			t.Errorf("%s layer: %+v, gelu's %+v", k, c, base)
		}
	}
	if c := layerCost(sw, p, cl); c.fwd <= base.fwd {
		t.Errorf("swiglu layer forward %.6g s, not above gelu's %.6g", c.fwd, base.fwd)
	}
}
