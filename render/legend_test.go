package render

import "testing"

// A legend keys every entry, labels it, and wraps within its width
// without overlapping labels; LegendHeight agrees with what it draws.
func TestLegend(t *testing.T) {
	entries := []LegendEntry{{Dark.LinkActive, false, "forward"}, {Dark.Rim, false, "backward"}, {Dark.Rim, true, "recomputed"}, {Dark.Hot, false, "all-reduce"}}
	for _, w := range []float32{1000, 150} {
		var l List
		h := Legend(&l, Dark, 10, 20, w, 14, 1, entries...)
		if h != LegendHeight(w, 14, entries...) {
			t.Errorf("width %v: drew %v px, LegendHeight says %v", w, h, LegendHeight(w, 14, entries...))
		}
		if len(l.Keys) != 4 || !l.Keys[2].Hatch || l.Keys[3].Label != "all-reduce" {
			t.Errorf("width %v: keys %+v", w, l.Keys)
		}
		var boxes []Rect
		for _, it := range l.Items {
			if it.Kind != Text {
				continue
			}
			b := it.Bounds()
			if b.X+b.W > 10+w+1 && w < 1000 {
				t.Errorf("width %v: %q ends at %v", w, it.Text, b.X+b.W)
			}
			for _, o := range boxes {
				if b.X < o.X+o.W && o.X < b.X+b.W && b.Y < o.Y+o.H && o.Y < b.Y+b.H {
					t.Errorf("width %v: %q overlaps another label", w, it.Text)
				}
			}
			boxes = append(boxes, b)
		}
		if w == 150 && h < 14*LineHeight*2 {
			t.Errorf("width 150: %v px tall, want the legend wrapped", h)
		}
	}
}
