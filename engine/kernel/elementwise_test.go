package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// LayerNorm → GeLU → Dropout over BF16: unfused, every operation reads 2
// bytes and writes 2 (dropout 1 more for its mask): 13 bytes an element;
// fused, the chain reads 2 and writes 2 + 1: 5. Both memory-bound.
func TestFusedElementwise(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	chain := []ElementwiseOp{LayerNorm, GeLU, Dropout}
	const n = 8 * 2048 * 12288 // tokens × hidden of a GPT-3 layer's activations
	un, err := Elementwise(chain, n, hw.BF16, g, false)
	if err != nil {
		t.Fatal(err)
	}
	fu, _ := Elementwise(chain, n, hw.BF16, g, true)
	if un.HBMBytes != 13*n || fu.HBMBytes != 5*n || len(un.Kernels) != 3 || len(fu.Kernels) != 1 {
		t.Errorf("bytes %g unfused (%d kernels), %g fused (%d); want 13n and 5n", un.HBMBytes, len(un.Kernels), fu.HBMBytes, len(fu.Kernels))
	}
	if un.FLOPs != fu.FLOPs || un.FLOPs != 24*n {
		t.Errorf("FLOPs %g and %g, want 24n both", un.FLOPs, fu.FLOPs)
	}
	// Time: bytes ÷ 3.35 TB/s plus a launch per kernel.
	want := 13*n/3.35e12 + 3*LaunchOverhead
	if math.Abs(un.TimeS-want)/want > 1e-9 {
		t.Errorf("unfused %g s, want %g", un.TimeS, want)
	}
	if r := un.TimeS / fu.TimeS; r < 2.5 || r > 2.7 {
		t.Errorf("fusing saves ×%.2f, want ≈ 13/5 = 2.6", r)
	}
	if _, err := Elementwise(chain, 0, hw.BF16, g, true); err == nil {
		t.Error("0 elements accepted")
	}
}

// Each kernel's traffic splits into its reads and its writes: in BF16 an
// unfused LayerNorm reads 2 and writes 2 bytes an element, dropout
// writes 2 + its 1-byte mask; fused, 2 in and 3 out.
func TestElementwiseReadsAndWrites(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	chain := []ElementwiseOp{LayerNorm, GeLU, Dropout}
	un, _ := Elementwise(chain, 1000, hw.BF16, g, false)
	fu, _ := Elementwise(chain, 1000, hw.BF16, g, true)
	for i, want := range [][2]float64{{2000, 2000}, {2000, 2000}, {2000, 3000}} {
		if k := un.Kernels[i]; k.ReadBytes != want[0] || k.WriteBytes != want[1] || k.HBMBytes != want[0]+want[1] {
			t.Errorf("unfused %v: read %g, write %g; want %v", k.Ops, k.ReadBytes, k.WriteBytes, want)
		}
	}
	if k := fu.Kernels[0]; k.ReadBytes != 2000 || k.WriteBytes != 3000 {
		t.Errorf("fused: read %g, write %g; want 2000 and 3000", k.ReadBytes, k.WriteBytes)
	}
}
