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
		Time:    -1,
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

// Half-way through the unfused chain, the fused kernel is done and the
// three kernels are not.
func TestFusedPictureAnimates(t *testing.T) {
	v := FusedView{
		Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		Unfused: []KernelBlock{{[]string{"LayerNorm"}, 4e8, 1.2e-4}, {[]string{"GeLU"}, 4e8, 1.2e-4}, {[]string{"Dropout"}, 5e8, 1.5e-4}},
		Fused:   []KernelBlock{{[]string{"LayerNorm", "GeLU", "Dropout"}, 5e8, 1.5e-4}},
		Time:    1.95e-4,
	}
	var solidTop, solidBottom, faintTop float32
	for _, it := range AppendFused(List{}, v).Items {
		if it.Kind != FillRect || it.H < 50 {
			continue
		}
		switch {
		case it.Color.A == 255 && it.Y < 290:
			solidTop += it.W
		case it.Color.A == 255:
			solidBottom += it.W
		case it.Color.A == 70 && it.Y < 290:
			faintTop += it.W
		}
	}
	if solidBottom < 200 || faintTop < 400 || solidTop > faintTop {
		t.Errorf("solid top %.0f, faint top %.0f, solid fused %.0f: want the fused kernel done and the three half done", solidTop, faintTop, solidBottom)
	}
}
