package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// Standard attention's curve climbs twice as steeply as FlashAttention's.
func TestAttentionChart(t *testing.T) {
	var pts []AttentionPoint
	for n := 256; n <= 65536; n *= 2 {
		pts = append(pts, AttentionPoint{Seq: n, Standard: float64(n) * float64(n) * 8, Flash: float64(n) * 1024})
	}
	l := AppendAttention(List{}, AttentionView{Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark, Points: pts, Seq: 2048})
	golden.Check(t, "attention.golden", l.String())
	var std, fl []Item
	for _, it := range l.Items {
		if it.Kind == FillCircle && it.R == 3.5 {
			if it.Color == Dark.Hot {
				std = append(std, it)
			} else if it.Color == Dark.Rim {
				fl = append(fl, it)
			}
		}
	}
	if len(std) != 9 || len(fl) != 9 {
		t.Fatalf("%d standard and %d flash points, want 9 each", len(std), len(fl))
	}
	rise := func(p []Item) float32 { return p[0].Y - p[len(p)-1].Y }
	if r := rise(std) / rise(fl); r < 1.9 || r > 2.1 {
		t.Errorf("standard rises %.2f× as much as flash, want 2 (N² against N)", r)
	}
}
