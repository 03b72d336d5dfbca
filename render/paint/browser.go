//go:build js

package paint

import (
	"math"
	"strconv"
	"syscall/js"
)

// cjkFonts is the CSS font-family list the browser draws CJK runes with:
// the common Simplified Chinese system fonts of Linux, macOS and Windows,
// then whatever sans-serif font the browser has for them.
const cjkFonts = `"Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei", sans-serif`

// browserText rasterises the runes the canvas font lacks and the browser
// draws (render/font.Fallback: CJK) with a 2D canvas of the page's own:
// white text on transparent, whose alpha becomes the glyph's coverage in
// the painter's atlas. Each rune is drawn centred in a cell one em wide
// (the advance render/font measures) on the face's baseline. This is the
// painter's one use of syscall/js: embedding a CJK font would cost 100 KB
// or more of main.wasm.
type browserText struct {
	canvas, ctx js.Value // created on first use
	w, h        int      // the canvas's size
	rgba        []byte   // scratch for getImageData
}

// pad is the margin around the cell on the scratch canvas, for strokes
// that reach outside it.
const pad = 4

// mask draws r at f's size and returns its coverage, cropped to its ink,
// in *scratch (reused). It returns an empty mask if the page has no
// canvas (or no font for r: then there is no ink).
func (b *browserText) mask(f *face, r rune, scratch *[]byte) mask {
	if b.ctx.IsUndefined() || b.ctx.IsNull() {
		doc := js.Global().Get("document")
		if !doc.Truthy() {
			return mask{}
		}
		b.canvas = doc.Call("createElement", "canvas")
		b.ctx = b.canvas.Call("getContext", "2d", map[string]any{"willReadFrequently": true})
		if !b.ctx.Truthy() {
			b.ctx = js.Undefined()
			return mask{}
		}
	}
	em := f.px
	w, h := em+2*pad, int(math.Ceil(1.5*float64(em)))+2*pad
	if w > b.w || h > b.h {
		b.w, b.h = max(w, b.w), max(h, b.h)
		b.canvas.Set("width", b.w) // resizing resets the context's state
		b.canvas.Set("height", b.h)
	}
	ctx := b.ctx
	ctx.Call("clearRect", 0, 0, b.w, b.h)
	ctx.Set("font", strconv.Itoa(em)+"px "+cjkFonts)
	ctx.Set("fillStyle", "#fff")
	ctx.Set("textAlign", "center")
	ctx.Set("textBaseline", "alphabetic")
	baseline := pad + f.ascent
	ctx.Call("fillText", string(r), pad+float64(em)/2, baseline)
	data := ctx.Call("getImageData", 0, 0, w, h).Get("data")
	if n := 4 * w * h; cap(b.rgba) < n {
		b.rgba = make([]byte, n)
	} else {
		b.rgba = b.rgba[:n]
	}
	js.CopyBytesToGo(b.rgba, data)

	// Crop to the ink.
	x0, y0, x1, y1 := w, h, 0, 0
	for y := range h {
		for x := range w {
			if b.rgba[4*(y*w+x)+3] != 0 {
				x0, y0 = min(x0, x), min(y0, y)
				x1, y1 = max(x1, x+1), max(y1, y+1)
			}
		}
	}
	if x1 <= x0 || y1 <= y0 {
		return mask{}
	}
	a := (*scratch)[:0]
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			a = append(a, b.rgba[4*(y*w+x)+3])
		}
	}
	*scratch = a
	return mask{w: x1 - x0, h: y1 - y0, dx: x0 - pad, dy: y0 - baseline, alpha: a}
}
