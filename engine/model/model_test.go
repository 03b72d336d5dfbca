package model

import (
	"math"
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
