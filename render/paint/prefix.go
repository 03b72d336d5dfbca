package paint

import "github.com/gpuscope/gpuscope/render/draw"

// The prefix cache: a dense picture's display list begins with what does
// not change while a lesson plays (blocks, axes, labels, legend) and ends
// with what moves (the veil after the playhead, the playhead, highlights),
// so the painter keeps the list's stable beginning drawn on an offscreen
// layer, on transparent, and each frame fills the background, draws the
// layer and paints only the items after it. Source-over compositing of
// premultiplied colours is associative, so this is direct painting to
// within 8-bit rounding of the layer's pixels.
//
// What to cache is decided here, without Ebiten, so that it is tested
// natively; paint.go only draws.

// Thresholds of the prefix cache: a layer is drawn for a prefix shared by
// two successive frames of at least minLayerItems items and at least half
// of the list. Shorter lists are painted directly: a layer costs a
// full-canvas copy each frame and a redraw whenever its prefix changes.
const minLayerItems = 1500

// layerKey is what the layer's pixels depend on besides its items: the
// destination's size and the background the list is painted over.
type layerKey struct {
	w, h int
	bg   draw.Color
}

// prefixCache follows the lists painted and says, for each, how much of
// it the layer holds. The zero value holds nothing.
type prefixCache struct {
	key   layerKey
	items []draw.Item // what the layer holds (a copy); empty: no layer
	prev  []draw.Item // the last list painted without the layer (a copy)
	pkey  layerKey    // … and its key
}

// plan says how to paint items over a destination of key k: draw the
// layer, then paint items[n:]. With rebuild, the layer must first be
// cleared and items[:n] painted on it. n = 0: paint the list directly.
//
// The layer is used when it holds a prefix of items. Otherwise, when
// items share a prefix long enough (minLayerItems, and half the list)
// with the last list painted without the layer, or with the layer's own
// items, the layer is redrawn with that prefix; else the list is painted
// directly and remembered, to be compared with the next one.
func (c *prefixCache) plan(k layerKey, items []draw.Item) (n int, rebuild bool) {
	if len(c.items) > 0 && k == c.key && len(c.items) <= len(items) && commonPrefix(c.items, items) == len(c.items) {
		return len(c.items), false
	}
	common := 0
	if k == c.key {
		common = commonPrefix(c.items, items)
	}
	if k == c.pkey {
		common = max(common, commonPrefix(c.prev, items))
	}
	c.prev, c.pkey = append(c.prev[:0], items...), k
	if common >= minLayerItems && 2*common >= len(items) {
		c.items, c.key = append(c.items[:0], items[:common]...), k
		return common, true
	}
	return 0, false
}

// forget drops the layer's items, so that the next list is painted
// directly (the layer's image was lost or reallocated).
func (c *prefixCache) forget() { c.items = c.items[:0] }

// commonPrefix is how many items a and b begin with in common.
func commonPrefix(a, b []draw.Item) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
