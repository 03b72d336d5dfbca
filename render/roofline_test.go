package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func rooflineView(intensity float64) RooflineView {
	return RooflineView{
		Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		Roofs: []Roof{
			{Name: "A100 80GB", Peak: 312e12, BW: 2.039e12},
			{Name: "H100 SXM", Peak: 989.4e12, BW: 3.35e12, Current: true},
			{Name: "H200 SXM", Peak: 989.4e12, BW: 4.8e12},
		},
		Intensity: intensity,
	}
}

// The kernel's dot sits on the slope below the ridge (hot) and under the
// flat roof above it (rim), and the ridge is labelled with its value.
func TestRooflinePicture(t *testing.T) {
	golden.Check(t, "roofline_h100.golden", AppendRoofline(List{}, rooflineView(10)).String())
	find := func(l List, c Color) (Item, bool) {
		for _, it := range l.Items {
			if it.Kind == FillCircle && it.R == 7 && it.Color == c {
				return it, true
			}
		}
		return Item{}, false
	}
	low, ok1 := find(AppendRoofline(List{}, rooflineView(0.25)), Dark.Hot)
	high, ok2 := find(AppendRoofline(List{}, rooflineView(886)), Dark.Rim)
	ridge, ok3 := find(AppendRoofline(List{}, rooflineView(1000)), Dark.Rim)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("kernel dots: memory-bound %v, compute-bound %v %v", ok1, ok2, ok3)
	}
	if low.Y <= high.Y || high.Y != ridge.Y {
		t.Errorf("dots at y %v (0.25), %v (886), %v (1000): want the low one lower and the two above the ridge on the roof", low.Y, high.Y, ridge.Y)
	}
	found := false
	for _, it := range AppendRoofline(List{}, rooflineView(1)).Items {
		found = found || (it.Kind == Text && it.Text == "ridge 295")
	}
	if !found {
		t.Error("no \"ridge 295\" label for the H100's BF16 roof")
	}
}
