package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// The fused kernel's block and byte bar are shorter than the three
// kernels' together, in proportion to time and bytes.
func TestFusedPicture(t *testing.T) {
	v := FusedView{
		Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		Unfused: []KernelBlock{{[]string{"LayerNorm"}, 4e8, 1.2e-4}, {[]string{"GeLU"}, 4e8, 1.2e-4}, {[]string{"Dropout"}, 5e8, 1.5e-4}},
		Fused:   []KernelBlock{{[]string{"LayerNorm", "GeLU", "Dropout"}, 5e8, 1.5e-4}},
	}
	l := AppendFused(List{}, v)
	golden.Check(t, "fused.golden", l.String())
	var unfusedW, fusedW float32
	for _, it := range l.Items {
		if it.Kind == FillRect && it.Color.A == 255 {
			if it.Color == Dark.Rim && it.Y >= 290 {
				fusedW += it.W
			} else if it.Y < 290 {
				unfusedW += it.W
			}
		}
	}
	if r := unfusedW / fusedW; r < 2.5 || r > 2.8 {
		t.Errorf("unfused blocks %.0f px against fused %.0f: ×%.2f, want ≈ 390/150 = 2.6", unfusedW, fusedW, r)
	}
}
