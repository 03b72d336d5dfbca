package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/model"
)

// The ZeRO paper's row: Ψ = 7.5B, N = 64 → 120 GB, 31.4 GB, 16.6 GB,
// 1.88 GB.
func TestZeROPublishedRow(t *testing.T) {
	want := []float64{120e9, 31.4e9, 16.6e9, 1.875e9}
	for stage, w := range want {
		m, err := ZeROStates(7.5e9, 64, stage, 16)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Total(); math.Abs(got-w)/w > 0.005 {
			t.Errorf("stage %d: %.4g bytes, want %.4g", stage, got, w)
		}
	}
	// 18 bytes a parameter: FP32 gradients.
	m, _ := ZeROStates(1e9, 1, 0, 18)
	if m.Total() != 18e9 {
		t.Errorf("18 bytes/param: %g", m.Total())
	}
	// The seed's 175B: 16 bytes × 175B = 2.8 TB (the seed counts 12: 2.1).
	m, _ = ZeROStates(175e9, 1, 0, 16)
	if m.Total() != 2.8e12 {
		t.Errorf("175B model states %g, want 2.8e12", m.Total())
	}
	// The seed's 3D plan: 175B over TP 8 × PP 8 = 64 shards: 350 GB of
	// BF16 weights → 5.47 GB a GPU; 16 bytes a parameter → 43.75 GB.
	m, _ = ZeROStates(175e9/64, 1, 0, 16)
	if m.Weights != 350e9/64 || m.Total() != 43.75e9 {
		t.Errorf("175B / 64: weights %g, total %g; want 5.47e9 and 43.75e9", m.Weights, m.Total())
	}
	for _, bad := range []struct{ n, stage, bpp int }{{0, 0, 16}, {8, 4, 16}, {8, 1, 12}} {
		if _, err := ZeROStates(1e9, bad.n, bad.stage, bad.bpp); err == nil {
			t.Errorf("ZeROStates(%v) accepted", bad)
		}
	}
}

// Korthikanti et al.'s Table 2, evaluated for GPT-3's shape (s 2048, b 1,
// h 12288, a 96, t 8): each row's formula, and the ordering it teaches.
func TestActivationBytes(t *testing.T) {
	s, b, h, a, tp := 2048, 1, 12288, 96, 8
	sbh := float64(s * b * h)
	rows := []struct {
		name string
		sp   bool
		rc   Recompute
		t    int
		want float64
	}{
		{"no parallelism", false, RecomputeNone, 1, sbh * (34 + 5*96*2048.0/12288)},
		{"tensor parallel", false, RecomputeNone, tp, sbh * (10 + 24/8.0 + 5*96*2048.0/(12288*8))},
		{"tensor + sequence parallel", true, RecomputeNone, tp, sbh / 8 * (34 + 5*96*2048.0/12288)},
		{"tensor parallel + selective", false, RecomputeSelective, tp, sbh * (10 + 24/8.0)},
		{"tensor + sequence + selective", true, RecomputeSelective, tp, 34 * sbh / 8},
		{"full recompute", false, RecomputeFull, tp, 2 * sbh},
	}
	for _, r := range rows {
		got := ActivationBytesPerLayer(s, b, h, a, r.t, r.sp, r.rc)
		if math.Abs(got-r.want)/r.want > 1e-12 {
			t.Errorf("%s: %g bytes, want %g", r.name, got, r.want)
		}
	}
	// Sequence parallelism with selective recomputation keeps 34·s·b·h/t:
	// 5× less than tensor parallelism alone at GPT-3's shape.
	tpOnly := ActivationBytesPerLayer(s, b, h, a, tp, false, RecomputeNone)
	best := ActivationBytesPerLayer(s, b, h, a, tp, true, RecomputeSelective)
	if r := tpOnly / best; r < 4 || r > 6 {
		t.Errorf("TP alone / TP+SP+selective = %.2f, want ≈ 5", r)
	}
}

func TestBubbleFraction(t *testing.T) {
	tests := []struct {
		p, m, v int
		want    float64
	}{
		{4, 8, 1, 3.0 / 8},
		{8, 64, 1, 7.0 / 64},
		{8, 64, 2, 7.0 / 128},
		{1, 8, 1, 0},
	}
	for _, tt := range tests {
		if got := BubbleFraction(tt.p, tt.m, tt.v); got != tt.want {
			t.Errorf("BubbleFraction(%d, %d, %d) = %g, want %g", tt.p, tt.m, tt.v, got, tt.want)
		}
	}
}

// A model trained without dropout (Llama 3) stores no masks: per layer
// 2·s·b·h bytes fewer (a byte each for attention's and the MLP's), ÷ TP
// with sequence parallelism; with standard attention the scores' mask
// and the dropout's output as well, 3·a·s²·b ÷ TP. Its residual adds
// move no mask either, so the step is a little shorter.
func TestNoDropout(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	with := m
	with.NoDropout = false
	s, b, h, a, T := 8192.0, 1.0, 16384.0, 128.0, 8.0
	for _, flash := range []bool{true, false} {
		got := ActivationBytesCP(with, 8192, 1, 8, 1, true, flash, RecomputeNone) - ActivationBytesCP(m, 8192, 1, 8, 1, true, flash, RecomputeNone)
		want := 2 * s * b * h / T
		if !flash {
			want += 3 * a * s * s * b / T
		}
		if !within(got, want, 1e-12) {
			t.Errorf("flash %v: dropout's masks %.6g bytes a layer, by hand %.6g", flash, got, want)
		}
	}
	p := Plan{TP: 8, PP: 16, DP: 128, Interleave: 1, MicroBatch: 1, GlobalBatch: 2048, Schedule: OneFOneB, BytesPerParam: 16,
		Dtype: "bf16", Recompute: RecomputeNone, Flash: true, SP: true, Overlap: true}
	cl := DefaultCluster(gpu(t, "h100"), 16384)
	r0, err0 := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	r1, err1 := Evaluate(Config{Model: with, Plan: p, Cluster: cl})
	if err0 != nil || err1 != nil {
		t.Fatal(err0, err1)
	}
	st := r0.Memory.Stage
	mem0, mem1 := r0.StageMemory[st], r1.StageMemory[st]
	if d, want := mem1.Activations-mem0.Activations, float64(mem0.InFlight*mem0.Layers)*2*s*b*h/T; !within(d, want, 1e-9) {
		t.Errorf("stage %d: %.6g bytes of masks, by hand %d in flight × %d layers × 2sbh/t = %.6g", st, d, mem0.InFlight, mem0.Layers, want)
	}
	if !(r0.Time.Step < r1.Time.Step) {
		t.Errorf("without dropout %.6g s, with %.6g s", r0.Time.Step, r1.Time.Step)
	}
}
