package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"
)

// A legend keys every entry, labels it, and wraps within its width
// without overlapping labels; LegendHeight agrees with what it draws.
func TestLegend(t *testing.T) {
	entries := []draw.LegendEntry{{Color: draw.Dark.LinkActive, Hatch: false, Label: "forward"}, {Color: draw.Dark.Rim, Hatch: false, Label: "backward"}, {Color: draw.Dark.Rim, Hatch: true, Label: "recomputed"}, {Color: draw.Dark.Hot, Hatch: false, Label: "all-reduce"}}
	for _, w := range []float32{1000, 150} {
		var l draw.List
		h := draw.Legend(&l, draw.Dark, 10, 20, w, 14, 1, entries...)
		if h != draw.LegendHeight(w, 14, entries...) {
			t.Errorf("width %v: drew %v px, LegendHeight says %v", w, h, draw.LegendHeight(w, 14, entries...))
		}
		if len(l.Keys) != 4 || !l.Keys[2].Hatch || l.Keys[3].Label != "all-reduce" {
			t.Errorf("width %v: keys %+v", w, l.Keys)
		}
		var boxes []draw.Rect
		for _, it := range l.Items {
			if it.Kind != draw.Text {
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
		if w == 150 && h < 14*draw.LineHeight*2 {
			t.Errorf("width 150: %v px tall, want the legend wrapped", h)
		}
	}
}

// A title of pieces wraps between them, its separator dropped: not
// "… · b:" / "micro-batch size", nor "… GB200 · GPU" / "0 …"; a line
// of one piece too long for a boundary to leave half the width breaks
// at its last space.
func TestWrap2Pieces(t *testing.T) {
	for _, c := range []struct {
		s      string
		w      float32
		a, b   string
		noDots bool
	}{
		{"v: virtual pipeline stages a GPU · Z: ZeRO stage · b: micro-batch size", 0, "v: virtual pipeline stages a GPU · Z: ZeRO stage", "b: micro-batch size", false},
		{"NVL72 的 NVLink 域：72 颗 GB200 · GPU 0 把 1 GB 发给 GPU 71", 0, "NVL72 的 NVLink 域：72 颗 GB200", "GPU 0 把 1 GB 发给 GPU 71", true},
		{"The NVL72's NVLink domain: 72 × GB200 · 1 GB from GPU 0 to GPU 71", 0, "The NVL72's NVLink domain: 72 × GB200", "1 GB from GPU 0 to GPU 71", true},
		{"Node 3 of 32: 8 × H100, NVLink 4 (450 GB/s one way)", 0, "Node 3 of 32: 8 × H100,", "NVLink 4 (450 GB/s one way)", true},
		{"bottleneck: the uplinks to the spine, 99.8% busy", draw.TextWidth("bottleneck: the uplinks to the spine,", 16) + 1, "bottleneck: the uplinks to the spine,", "99.8% busy", true},
		{"The NVL72's NVLink domain: 72 × GB200 · 1 GB from GPU 0 to GPU 71", draw.TextWidth("The NVL72's NVLink domain: 72 × GB200 ·", 16) - 1, "The NVL72's NVLink domain:", "72 × GB200 · 1 GB from GPU 0 to GPU 71", true},
		{"one long piece without any separator at all in it", 0, "", "", true},
	} {
		const fs = 16
		w := c.w
		if w == 0 {
			w = draw.TextWidth(c.s, fs) * 0.75
		}
		a, b := draw.Wrap2(c.s, fs, w)
		if draw.TextWidth(a, fs) > w || draw.TextWidth(b, fs) > w {
			t.Errorf("%q: %q / %q, wider than %g", c.s, a, b, w)
		}
		if c.a != "" && (a != c.a || b != c.b) {
			t.Errorf("%q: %q / %q, want %q / %q", c.s, a, b, c.a, c.b)
		}
		for _, l := range []string{a, b} {
			if strings.HasPrefix(l, "·") || strings.HasSuffix(l, "·") || strings.HasPrefix(l, " ") || strings.HasSuffix(l, " ") {
				t.Errorf("%q: line %q begins or ends with a separator", c.s, l)
			}
		}
		if a+" "+b != c.s && c.a == "" {
			t.Errorf("%q: broke into %q / %q, not at a space", c.s, a, b)
		}
	}
}
