package model

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Parameter counts against the published sizes.
func TestPresetParams(t *testing.T) {
	tests := []struct {
		id   string
		want float64
		tol  float64
	}{
		{"gpt3-175b", 175e9, 0.01},
		{"llama2-70b", 68.98e9, 0.005}, // the released checkpoint's 68,976,648,192
		{"llama3-405b", 405.85e9, 0.005},
		{"megatron-1t", 1008e9, 0.01},
		{"seed-100b", 100e9, 0.02},
		// The models planned most, against their publishers' counts.
		{"llama3-8b", 8.030261248e9, 1e-9},   // the checkpoint's 8,030,261,248
		{"llama3-70b", 70.553706496e9, 1e-9}, // the checkpoint's 70,553,706,496
		{"qwen2.5-7b", 7.615616512e9, 1e-9},  // the checkpoint's 7,615,616,512
		{"qwen2.5-72b", 72.7e9, 0.001},       // Qwen's model card: 72.7B
		{"mixtral-8x22b", 141e9, 0.005},      // Mistral AI: 141B
		{"llama4-maverick", 400e9, 0.005},    // Meta: 400B (the vision encoder's ≈ 0.87B in it)
		// Meta's 109B counts the vision encoder (≈ 0.87B by
		// Llama4VisionConfig's shapes), which the language model has not:
		// 107.8B, 1.1% under.
		{"llama4-scout", 109e9, 0.015},
	}
	for _, tt := range tests {
		m, ok := Preset(tt.id)
		if !ok {
			t.Fatalf("no preset %q", tt.id)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", tt.id, err)
		}
		if got := m.Params(); math.Abs(got-tt.want)/tt.want > tt.tol {
			t.Errorf("%s: %.4g parameters, want %.4g ±%.1f%%", tt.id, got, tt.want, 100*tt.tol)
		}
	}
}

// The per-layer count agrees with Megatron's closed form for GPT models
// (12h² + 13h a layer, (V + s)·h of embeddings) up to the final norm.
func TestMegatronFormula(t *testing.T) {
	for _, row := range []struct{ L, h, a int }{{24, 2304, 24}, {40, 6144, 48}, {80, 12288, 96}, {96, 12288, 96}} {
		m := Transformer{Layers: row.L, Hidden: row.h, Heads: row.a, KVHeads: row.a, Seq: 2048, Vocab: 51200, FFNSize: 4 * row.h,
			FFN: GeLU, Biases: true, LearnedPositions: true, Tied: true}
		got, want := m.Params(), MegatronParams(row.L, row.h, 51200, 2048)
		if math.Abs(got-want) > 2*float64(row.h) {
			t.Errorf("L=%d h=%d: %.0f parameters, Megatron's formula %.0f", row.L, row.h, got, want)
		}
	}
	// Published rows (Narayanan et al. Table 1), rounded there to a tenth of
	// a billion or two digits: 1.7B (the formula gives 1.65B), 18.4B, 145.6B.
	for _, row := range []struct {
		L, h int
		want float64
	}{{24, 2304, 1.7e9}, {40, 6144, 18.4e9}, {80, 12288, 145.6e9}} {
		if got := MegatronParams(row.L, row.h, 51200, 2048); math.Abs(got-row.want)/row.want > 0.03 {
			t.Errorf("L=%d h=%d: %.4g, want %.4g", row.L, row.h, got, row.want)
		}
	}
}

// The 22B configuration of Korthikanti et al.: one iteration of batch 4 at
// s 2048 is 72·4·48·2048·6144²·(1 + 2048/(6·6144) + 51200/(12·6144·48)).
func TestModelFLOPs(t *testing.T) {
	m := Transformer{Layers: 48, Hidden: 6144, Heads: 64, KVHeads: 64, Seq: 2048, Vocab: 51200, FFNSize: 4 * 6144, FFN: GeLU, Biases: true}
	want := 72.0 * 4 * 48 * 2048 * 6144 * 6144 * (1 + 2048.0/(6*6144) + 51200.0/(12*6144*48))
	if got := m.ModelFLOPs(4, false); math.Abs(got-want)/want > 1e-12 {
		t.Errorf("model FLOPs %g, want %g", got, want)
	}
	if r := m.ModelFLOPs(4, true) / m.ModelFLOPs(4, false); r < 1.3 || r > 1.34 {
		t.Errorf("full recomputation ×%.3f, want ≈ 4/3", r)
	}
}

func TestValidate(t *testing.T) {
	m, _ := Preset("llama3-405b")
	bad := m
	bad.Heads = 100
	if bad.Validate() == nil {
		t.Error("heads not dividing hidden accepted")
	}
	bad = m
	bad.KVHeads = 3
	if bad.Validate() == nil {
		t.Error("kv-heads not dividing heads accepted")
	}
}

// A token's parameters in the mixtures of experts planned most, against
// their publishers' counts (which include the input embedding, as
// ActiveParams does): Mixtral 8x22B 39B (Mistral AI), Llama 4 Scout and
// Maverick 17B (Meta), within the rounding of the figure.
func TestPresetActiveParams(t *testing.T) {
	for _, tt := range []struct {
		id        string
		want, tol float64
	}{
		{"mixtral-8x22b", 39e9, 0.005},
		{"llama4-scout", 17e9, 0.015},
		{"llama4-maverick", 17e9, 0.015},
	} {
		m, _ := Preset(tt.id)
		if got := m.ActiveParams(); math.Abs(got-tt.want)/tt.want > tt.tol {
			t.Errorf("%s: %.4g active parameters, want %.4g ±%.1f%%", tt.id, got, tt.want, 100*tt.tol)
		}
	}
}

// The presets of released models are their config.json files: read by
// FromHFConfig at the preset's sequence length, the same counts.
func TestPresetsAreTheirConfigs(t *testing.T) {
	for id, file := range map[string]string{
		"mixtral-8x7b": "mixtral-8x7b.json", "deepseek-v3": "deepseek-v3.json",
		"llama3-8b": "llama3-8b.json", "llama3-70b": "llama3-70b.json", "qwen2.5-7b": "qwen2.5-7b.json", "qwen2.5-72b": "qwen2.5-72b.json",
		"mixtral-8x22b": "mixtral-8x22b.json", "llama4-scout": "llama4-scout.json", "llama4-maverick": "llama4-maverick.json",
	} {
		p, ok := Preset(id)
		if !ok {
			t.Fatalf("no preset %s", id)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		data, err := os.ReadFile(filepath.Join("testdata", "hf", file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := FromHFConfig(data, p.Seq)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if m.Params() != p.Params() || m.ActiveParams() != p.ActiveParams() || m.MTPParams() != p.MTPParams() || m.MoELayers() != p.MoELayers() {
			t.Errorf("%s: preset %.6g (%.6g active), its config.json %.6g (%.6g)", id, p.Params(), p.ActiveParams(), m.Params(), m.ActiveParams())
		}
	}
}

// Nemotron-4 340B (arXiv 2406.11704 Table 1 and §2.1: 96 layers, hidden
// 18432, 96 heads, 8 KV heads, squared ReLU in an MLP 4h = 73728 wide,
// no biases, untied embeddings of a 256,000 vocabulary), by hand: a
// layer's Q and O 2·18432² = 679,477,248, K and V 2·18432·(8·192) =
// 56,623,104, the MLP two matrices 2·18432·73728 = 2,717,908,992 (a
// SwiGLU's three would be 4,076,863,488), two norms 36,864: 3,454,046,208;
// 96 of them 331,588,435,968, the embeddings 2·256000·18432 =
// 9,437,184,000 and the final norm 18,432: 341,025,638,400 (NVIDIA:
// 340B). A ReLU model of the same sizes counts the same; GPT style (OPT)
// adds the biases: Q, K, V, O 18432 + 2·1536 + 18432, the MLP's 73728 +
// 18432, the norms' shifts 2·18432, a layer 168,960 more.
func TestUngatedFFNParams(t *testing.T) {
	m := Transformer{Layers: 96, Hidden: 18432, Heads: 96, KVHeads: 8, Seq: 4096, Vocab: 256000, FFNSize: 73728, FFN: SquaredReLU, NoDropout: true}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if got, want := m.LayerParams(), 3454046208.0; got != want {
		t.Errorf("relu2 layer: %.0f parameters, by hand %.0f", got, want)
	}
	if got, want := m.Params(), 341025638400.0; got != want {
		t.Errorf("Nemotron-4 340B: %.0f parameters, by hand %.0f", got, want)
	}
	r := m
	r.FFN = ReLU
	if got, want := r.Params(), 341025638400.0; got != want {
		t.Errorf("relu without biases: %.0f parameters, by hand %.0f", got, want)
	}
	r.Biases = true
	if got, want := r.LayerParams(), 3454046208.0+18432+2*1536+18432+73728+18432+2*18432; got != want {
		t.Errorf("relu with biases, a layer: %.0f parameters, by hand %.0f", got, want)
	}
	g := m
	g.FFN = SwiGLU
	if got, want := g.LayerParams()-m.LayerParams(), 18432.0*73728; got != want {
		t.Errorf("swiglu over relu2, a layer: %.0f parameters more, by hand %.0f (one matrix)", got, want)
	}
	if !GeLU.GPTStyle() || !ReLU.GPTStyle() || SwiGLU.GPTStyle() || SquaredReLU.GPTStyle() {
		t.Error("GPT style: gelu and relu (GPT-3, OPT), not swiglu nor relu2 (Llama, Nemotron-4)")
	}
	if !SwiGLU.Gated() || GeLU.Gated() || ReLU.Gated() || SquaredReLU.Gated() {
		t.Error("only swiglu is gated")
	}
	bad := m
	bad.FFN = "relu3"
	if err := bad.Validate(); err == nil || err.Error() != `ffn-kind: "relu3"; allowed gelu, swiglu, relu, relu2` {
		t.Errorf("ffn-kind relu3: %v", err)
	}
}
