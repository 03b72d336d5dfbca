//go:build js

package paint

import (
	"image"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	canvasfont "github.com/gpuscope/gpuscope/render/font"
)

// Text sizes are clamped to this range of whole pixels (render/font's
// Size rounds and clamps the same way, for the builders' measurements).
const (
	minTextSize = canvasfont.MinSize
	maxTextSize = canvasfont.MaxSize
)

// subpixels is how many horizontal positions within a pixel a glyph is
// rasterised for: the pen moves by the font's fractional advances and each
// glyph is drawn from the nearest quarter pixel, so spacing stays even
// while every glyph lands on whole pixels.
const subpixels = 4

// atlasSize is the side of the glyph atlas, in pixels: room for the ASCII
// glyphs (all four sub-pixel variants) of about six sizes up to 24 px.
const atlasSize = 1024

// A face is the canvas font (render/font's subset of Go Regular) at one
// pixel size. Its glyphs are rasterised on demand into the painter's
// atlas; its advances are render/font's, so that the builders measure
// what is drawn.
//
// (Ebiten's text/v2 would do this too, but it draws each glyph with its own
// DrawImage, about ten times the cost of a quad here, and importing it
// links go-text/typesetting's tables: about 190 KB more gzipped wasm.)
type face struct {
	f      font.Face
	px     int // the size
	ascent int // pixels from the top of the line box to the baseline
	ascii  [128][subpixels]glyph
	other  map[glyphKey]glyph
}

type glyphKey struct {
	r   rune
	sub int
}

// A glyph is a rune rasterised at one sub-pixel offset into the atlas
// rectangle (x, y, w, h) (w = 0 for a blank glyph), to be drawn with its
// top left at (dx, dy) from the pen's whole pixel on the baseline. It is
// valid while gen is the atlas's generation.
type glyph struct {
	x, y, w, h int
	dx, dy     int
	gen        int
}

func newFace(px int) (*face, error) {
	tt, err := canvasfont.Parse()
	if err != nil {
		return nil, err
	}
	f, err := opentype.NewFace(tt, &opentype.FaceOptions{
		Size:    float64(px),
		DPI:     72, // so that Size is in pixels
		Hinting: font.HintingNone,
	})
	if err != nil {
		return nil, err
	}
	return &face{f: f, px: px, ascent: f.Metrics().Ascent.Round()}, nil
}

// advance is r's advance (render/font.AdvanceFixed).
func (f *face) advance(r rune) fixed.Int26_6 {
	return canvasfont.AdvanceFixed(r, f.px)
}

// width is the advance of s. (Go Regular has no kerning table, so the
// advances are all there is.)
func (f *face) width(s string) fixed.Int26_6 {
	var w fixed.Int26_6
	for _, r := range s {
		w += f.advance(r)
	}
	return w
}

// split rounds a pen position to the nearest sub-pixel step and returns its
// whole pixel and the step.
func split(pen fixed.Int26_6) (px, sub int) {
	const step = 64 / subpixels
	q := (pen + step/2) &^ (step - 1)
	return int(q >> 6), int(q&63) / step
}

// glyph returns r rasterised sub/subpixels of a pixel right of a pixel's
// left edge, placing it in the atlas the first time. A rune the browser
// draws (render/font.Fallback) has one variant, on whole pixels.
func (p *Painter) glyph(f *face, r rune, sub int) glyph {
	p.atlas.image() // so that the generation is at least 1
	if r >= 0 && r < 128 {
		g := &f.ascii[r][sub]
		if g.gen != p.atlas.gen {
			*g = p.rasterise(f, r, sub)
		}
		return *g
	}
	k := glyphKey{r, sub}
	g, ok := f.other[k]
	if !ok || g.gen != p.atlas.gen {
		g = p.rasterise(f, r, sub)
		if f.other == nil {
			f.other = make(map[glyphKey]glyph)
		}
		f.other[k] = g
	}
	return g
}

// A mask is a glyph's coverage, one byte a pixel, row by row, w×h, to be
// drawn with its top left at (dx, dy) from the pen's whole pixel on the
// baseline (w = 0: nothing to draw).
type mask struct {
	w, h, dx, dy int
	alpha        []byte
}

// fontMask rasterises r from the canvas font with x/image.
func (p *Painter) fontMask(f *face, r rune, sub int) mask {
	dot := fixed.Point26_6{X: fixed.Int26_6(sub * 64 / subpixels)}
	dr, m, mp, _, ok := f.f.Glyph(dot, r)
	if !ok || dr.Empty() {
		return mask{}
	}
	a := p.alpha[:0]
	for j := 0; j < dr.Dy(); j++ {
		for i := 0; i < dr.Dx(); i++ {
			_, _, _, v := m.At(mp.X+i, mp.Y+j).RGBA()
			a = append(a, byte(v>>8))
		}
	}
	p.alpha = a
	return mask{w: dr.Dx(), h: dr.Dy(), dx: dr.Min.X, dy: dr.Min.Y, alpha: a}
}

// rasterise draws r into the atlas: from the canvas font, or through the
// browser for a rune the font lacks that the browser draws. When the atlas
// is full it is emptied (after drawing what is queued) and every glyph is
// rasterised again as it is next used.
func (p *Painter) rasterise(f *face, r rune, sub int) glyph {
	var m mask
	if canvasfont.Fallback(r) {
		m = p.browser.mask(f, r, &p.alpha)
	} else {
		m = p.fontMask(f, r, sub)
	}
	if m.w <= 0 || m.h <= 0 {
		return glyph{gen: p.atlas.gen}
	}
	x, y, ok := p.atlas.place(m.w, m.h)
	if !ok {
		p.flush()
		p.atlas.reset()
		if x, y, ok = p.atlas.place(m.w, m.h); !ok {
			return glyph{gen: p.atlas.gen} // larger than the atlas
		}
	}
	pix := p.atlas.pix[:0]
	for _, v := range m.alpha[:m.w*m.h] {
		pix = append(pix, v, v, v, v) // premultiplied white
	}
	p.atlas.pix = pix
	p.atlas.img.SubImage(image.Rect(x, y, x+m.w, y+m.h)).(*ebiten.Image).WritePixels(pix)
	return glyph{x: x, y: y, w: m.w, h: m.h, dx: m.dx, dy: m.dy, gen: p.atlas.gen}
}

// atlas packs glyph images into one image in shelves, so that a whole
// display list, glyphs and shapes, is one DrawTrianglesShader call.
type atlas struct {
	img          *ebiten.Image
	gen          int // counts resets; 0 until the image exists
	x, y, shelfH int
	pix          []byte // scratch for WritePixels
}

// image returns the atlas image, creating it on first use.
func (a *atlas) image() *ebiten.Image {
	if a.img == nil {
		a.img = ebiten.NewImage(atlasSize, atlasSize)
		a.gen = 1
	}
	return a.img
}

// place finds room for a w×h glyph, with a pixel of padding.
func (a *atlas) place(w, h int) (x, y int, ok bool) {
	a.image()
	if a.x+w+1 > atlasSize {
		a.x, a.y, a.shelfH = 0, a.y+a.shelfH, 0
	}
	if a.y+h+1 > atlasSize || w+1 > atlasSize {
		return 0, 0, false
	}
	x, y = a.x, a.y
	a.x += w + 1
	a.shelfH = max(a.shelfH, h+1)
	return x, y, true
}

// reset empties the atlas; glyphs placed before are stale.
func (a *atlas) reset() {
	a.image().Clear()
	a.x, a.y, a.shelfH = 0, 0, 0
	a.gen++
}
