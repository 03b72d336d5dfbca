package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

func roof(t *testing.T, gpu string, d hw.Dtype) Roofline {
	t.Helper()
	g, ok := hw.GPUByID(gpu)
	if !ok {
		t.Fatalf("no GPU %q", gpu)
	}
	r, err := NewRoofline(g, d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Ridge points of issue 3: H100 BF16 ≈ 295 FLOP/byte (989.4 T / 3.35 T),
// H200 ≈ 206 (989.4 T / 4.8 T); A100 BF16 312 T / 2.039 T ≈ 153.
func TestRidgePoints(t *testing.T) {
	tests := []struct {
		gpu   string
		d     hw.Dtype
		ridge float64
	}{
		{"h100", hw.BF16, 295.3},
		{"h200", hw.BF16, 206.1},
		{"a100-80gb", hw.BF16, 153.0},
		{"h100", hw.FP8, 590.7},
		{"h100", hw.FP32, 19.97},
	}
	for _, tt := range tests {
		r := roof(t, tt.gpu, tt.d)
		if got := r.Ridge(); math.Abs(got-tt.ridge)/tt.ridge > 0.002 {
			t.Errorf("%s %s ridge = %.2f, want %.1f", tt.gpu, tt.d, got, tt.ridge)
		}
	}
}

func TestAttainableAndBound(t *testing.T) {
	r := roof(t, "h100", hw.BF16)
	// An elementwise kernel: 1 FLOP per 4 bytes moved — deep in memory-bound land.
	if got, want := r.Attainable(0.25), 0.25*3.35e12; got != want || r.Bound(0.25) != "memory" {
		t.Errorf("intensity 0.25: %g FLOP/s %s, want %g memory", got, r.Bound(0.25), want)
	}
	// A large GEMM at 1000 FLOP/byte is compute-bound at the peak.
	if got := r.Attainable(1000); got != 989.4e12 || r.Bound(1000) != "compute" {
		t.Errorf("intensity 1000: %g %s", got, r.Bound(1000))
	}
	// At the ridge both limits meet.
	if a := r.Attainable(r.Ridge()); math.Abs(a-r.Peak)/r.Peak > 1e-12 {
		t.Errorf("at the ridge %g, want the peak", a)
	}
}

func TestNoFP8OnA100(t *testing.T) {
	g, _ := hw.GPUByID("a100")
	if _, err := NewRoofline(g, hw.FP8); err == nil {
		t.Error("A100 FP8 roofline: no error")
	}
}
