package paint

import (
	"testing"

	"github.com/gpuscope/gpuscope/render/draw"
)

// list is n static rectangles followed by the moving part: a playhead
// at x.
func list(n int, x float32) []draw.Item {
	var l draw.List
	for i := range n {
		l.Rect(float32(i%100), float32(i/100), 1, 1, draw.Color{R: 200, A: 255})
	}
	l.Segment(x, 0, x, 100, 1.5, draw.Color{A: 255})
	l.Rect(x, 0, 100, 100, draw.Color{R: 255, G: 255, B: 255, A: 170})
	return l.Items
}

func TestPrefixCachePlan(t *testing.T) {
	k := layerKey{w: 800, h: 600, bg: draw.Color{R: 255, G: 255, B: 255, A: 255}}
	type step struct {
		name    string
		key     layerKey
		items   []draw.Item
		n       int
		rebuild bool
	}
	other := k
	other.w = 1600 // the device pixel ratio changed
	dark := k
	dark.bg = draw.Color{R: 20, G: 20, B: 20, A: 255} // the theme changed
	changed := list(3000, 40)
	changed[10].Color.G = 1 // a static item changed: another run
	steps := []step{
		{"first frame: nothing to compare with", k, list(3000, 10), 0, false},
		{"second frame shares the static part: the layer is drawn", k, list(3000, 11), 3000, true},
		{"then used", k, list(3000, 12), 3000, false},
		{"and used", k, list(3000, 13), 3000, false},
		{"paused: the same list, the layer still holds its prefix", k, list(3000, 13), 3000, false},
		{"another size: painted directly", other, list(3000, 26), 0, false},
		{"… then cached at that size", other, list(3000, 27), 3000, true},
		{"another background: painted directly", dark, list(3000, 27), 0, false},
		{"back to the first size and background, the old list is gone", k, list(3000, 14), 0, false},
		{"… and cached again", k, list(3000, 15), 3000, true},
		{"a static item changed: the layer's prefix is no longer one", k, changed, 10, false},
	}
	// The last step: 10 items in common with the layer, too few: painted
	// directly (n = 0).
	steps[len(steps)-1].n = 0
	steps = append(steps,
		step{"the changed run's next frame is cached", k, func() []draw.Item { c := list(3000, 41); c[10].Color.G = 1; return c }(), 3000, true},
		step{"a short list is painted directly", k, list(500, 1), 0, false},
		step{"… and its next frame too", k, list(500, 2), 0, false},
		step{"a list with a short stable part (under half)", k, append(list(1600, 3), list(2000, 3)...), 0, false},
	)
	var c prefixCache
	for _, s := range steps {
		n, rebuild := c.plan(s.key, s.items)
		if n != s.n || rebuild != s.rebuild {
			t.Errorf("%s: plan = %d, %v; want %d, %v", s.name, n, rebuild, s.n, s.rebuild)
		}
	}
}

// Two frames that differ only in their last items: the layer holds the
// first frame's whole shared prefix, and a frame identical to the
// layer's items paints nothing after the layer.
func TestPrefixCacheWholeList(t *testing.T) {
	k := layerKey{w: 10, h: 10}
	a := list(2000, 5)
	var c prefixCache
	c.plan(k, a)
	if n, rebuild := c.plan(k, a); n != len(a) || !rebuild {
		t.Fatalf("an identical list: plan = %d, %v; want %d, true", n, rebuild, len(a))
	}
	if n, rebuild := c.plan(k, a); n != len(a) || rebuild {
		t.Fatalf("again: plan = %d, %v; want %d, false", n, rebuild, len(a))
	}
	// Playing again: the playhead moves; the layer (which holds the
	// playhead) no longer matches, and the previous list gives the
	// static part.
	if n, rebuild := c.plan(k, list(2000, 6)); n != 2000 || !rebuild {
		t.Fatalf("playing: plan = %d, %v; want 2000, true", n, rebuild)
	}
	c.forget()
	if n, rebuild := c.plan(k, list(2000, 7)); n != 2000 || !rebuild {
		t.Fatalf("after forget: plan = %d, %v; want 2000, true (from the previous list)", n, rebuild)
	}
}
