package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func memwallView(cur int, progress float64) MemwallView {
	bars := []MemwallBar{
		{Name: "naive", Bytes: 2.7e11, TFLOPS: 1.67},
		{Name: "16×16", Bytes: 1.7e10, TFLOPS: 14.6, Tile: 16},
		{Name: "32×32", Bytes: 8.6e9, TFLOPS: 15.0, Tile: 32},
		{Name: "tensor", Bytes: 1.7e8, TFLOPS: 787, Tile: 128},
	}
	bars[cur].Current = true
	return MemwallView{Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark, Bars: bars, PeakTFLOPS: 989.4, Step: 3, Steps: 16, Progress: progress}
}

// The naive kernel's operands fly straight from HBM (hot); a tiled kernel
// lifts a tile (active colour) and reuses it (rim); the bars grow with
// bytes and TFLOP/s.
func TestMemwallPicture(t *testing.T) {
	golden.Check(t, "memwall_naive.golden", AppendMemwall(List{}, memwallView(0, 0.3)).String())
	golden.Check(t, "memwall_tensor.golden", AppendMemwall(List{}, memwallView(3, 0.7)).String())
	count := func(l List, k Kind, c Color) int {
		n := 0
		for _, it := range l.Items {
			if it.Kind == k && it.Color == c {
				n++
			}
		}
		return n
	}
	naive := AppendMemwall(List{}, memwallView(0, 0.3))
	tiled := AppendMemwall(List{}, memwallView(1, 0.7))
	if count(naive, Line, Dark.Hot) < 12 || count(naive, Line, Dark.Rim) != 0 {
		t.Errorf("naive: %d HBM→SM lines, %d reuse lines", count(naive, Line, Dark.Hot), count(naive, Line, Dark.Rim))
	}
	if count(tiled, Line, Dark.Rim) != 8 {
		t.Errorf("tiled: %d reuse lines from the desk, want 8", count(tiled, Line, Dark.Rim))
	}
}
