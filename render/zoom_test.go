package render

import "github.com/gpuscope/gpuscope/render/draw"
import "testing"

// The zoom's transition scales the arriving picture about the stage's
// centre (up to its size zooming in, down to it zooming out) and fades
// it in; at its end the picture is as built.
func TestZoomTransition(t *testing.T) {
	st := draw.Rect{X: 0, Y: 0, W: 200, H: 100}
	base := draw.List{Items: []draw.Item{{Kind: draw.FillRect, X: 150, Y: 50, W: 20, H: 10, Color: draw.Color{R: 10, G: 20, B: 30, A: 255}},
		{Kind: draw.Text, X: 100, Y: 50, Size: 20, Color: draw.Color{R: 1, G: 2, B: 3, A: 255}, Text: "x"}}}
	at := func(in bool, p float32) draw.List {
		l := draw.List{Items: append([]draw.Item(nil), base.Items...)}
		ZoomTransition(&l, st, in, p)
		return l
	}
	if got := at(true, 1); got.Items[0] != base.Items[0] || got.Items[1] != base.Items[1] {
		t.Errorf("at the end: %+v", got.Items)
	}
	in0, out0 := at(true, 0), at(false, 0)
	if in0.Items[0].X >= 150 || in0.Items[0].W >= 20 || in0.Items[0].Color.A >= 255 {
		t.Errorf("zooming in starts smaller and faint: %+v", in0.Items[0])
	}
	if out0.Items[0].X <= 150 || out0.Items[0].W <= 20 {
		t.Errorf("zooming out starts larger: %+v", out0.Items[0])
	}
	if in0.Items[1].X != 100 || in0.Items[1].Y != 50 || in0.Items[1].Size >= 20 {
		t.Errorf("the centre stays, text scales: %+v", in0.Items[1])
	}
	prev := in0.Items[0].W
	for _, p := range []float32{0.25, 0.5, 0.75, 1} {
		w := at(true, p).Items[0].W
		if w < prev {
			t.Errorf("zooming in shrinks at %g: %g after %g", p, w, prev)
		}
		prev = w
	}
}
