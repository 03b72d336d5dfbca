//go:build js

package paint

import (
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/hajimehoshi/ebiten/v2"
	"golang.org/x/image/math/fixed"

	"github.com/gpuscope/gpuscope/render/draw"
	canvasfont "github.com/gpuscope/gpuscope/render/font"
)

// maxVertices keeps a batch's vertex indices within uint16.
const maxVertices = math.MaxUint16 + 1

// Painter paints display lists, keeping its vertex buffers, its glyph atlas
// and its font faces from one frame to the next. The zero value is ready to
// use. A Painter must be used from one goroutine (Ebiten's Draw).
type Painter struct {
	shader    *ebiten.Shader
	shaderErr error
	opts      ebiten.DrawTrianglesShaderOptions

	dst *ebiten.Image // during Draw
	vs  []ebiten.Vertex
	is  []uint16

	atlas   atlas
	faces   [maxTextSize - minTextSize + 1]*face
	alpha   []byte      // scratch for a glyph's coverage
	browser browserText // draws the runes the canvas font lacks (CJK)

	prefix prefixCache   // which of a list's first items layer holds
	layer  *ebiten.Image // those items painted on transparent, dst's size
	drew   int           // items the last Draw took from layer
}

var defaultPainter Painter

// Draw paints l on dst with a package Painter: it clears dst to
// l.Background and paints the items in order. Call it from the game's Draw.
func Draw(dst *ebiten.Image, l draw.List) {
	defaultPainter.Draw(dst, l)
}

// LayerItems is how many display items the package Painter's last Draw
// took from its layer rather than painting them (0: none).
func LayerItems() int { return defaultPainter.drew }

// Draw clears dst to l.Background and paints l's items in order. A long
// list whose beginning is the previous frame's is painted from a layer
// holding that beginning (prefix.go): only the items after it are turned
// into quads.
func (p *Painter) Draw(dst *ebiten.Image, l draw.List) {
	bg := l.Background
	dst.Fill(color.NRGBA{bg.R, bg.G, bg.B, bg.A})
	if p.shader == nil && p.shaderErr == nil {
		p.shader, p.shaderErr = ebiten.NewShader(shader)
	}
	if p.shader == nil {
		return // cannot happen: the shader source is fixed
	}
	b := dst.Bounds()
	n, rebuild := p.prefix.plan(layerKey{w: b.Dx(), h: b.Dy(), bg: bg}, l.Items)
	p.drew = n
	if n > 0 {
		if rebuild {
			if p.layer != nil && p.layer.Bounds().Size() != b.Size() {
				p.layer.Deallocate() // its memory now, not at the next GC
				p.layer = nil
			}
			if p.layer == nil {
				p.layer = ebiten.NewImageWithOptions(image.Rect(0, 0, b.Dx(), b.Dy()), &ebiten.NewImageOptions{Unmanaged: true})
			} else {
				p.layer.Clear()
			}
			p.paint(p.layer, l.Items[:n])
		}
		var op ebiten.DrawImageOptions
		op.GeoM.Translate(float64(b.Min.X), float64(b.Min.Y))
		dst.DrawImage(p.layer, &op)
	}
	p.paint(dst, l.Items[n:])
}

// paint paints items on dst, over what it holds.
func (p *Painter) paint(dst *ebiten.Image, items []draw.Item) {
	p.dst = dst
	for i := range items {
		it := &items[i]
		if it.Color.A == 0 {
			continue
		}
		switch it.Kind {
		case draw.FillRect:
			p.box(it.X+it.W/2, it.Y+it.H/2, it.W/2, it.H/2, 0, 0, it.Color)
		case draw.StrokeRect:
			p.frame(it)
		case draw.FillCircle:
			p.box(it.X, it.Y, it.R, it.R, it.R, 0, it.Color)
		case draw.Line:
			p.line(it)
		case draw.Text:
			p.text(it)
		}
	}
	p.flush()
	p.dst = nil
}

// flush sends the quads gathered so far to the GPU in one call.
func (p *Painter) flush() {
	if len(p.vs) == 0 {
		return
	}
	p.opts.Images[0] = p.atlas.image()
	p.dst.DrawTrianglesShader(p.vs, p.is, p.shader, &p.opts)
	p.vs, p.is = p.vs[:0], p.is[:0]
}

// frame adds a rectangle outline whose stroke straddles the rectangle's
// edges, with mitred (square) corners, as vector.StrokeRect draws it.
func (p *Painter) frame(it *draw.Item) {
	hw, hh := it.W/2, it.H/2
	if hw < 0 || hh < 0 || it.Width <= 0 {
		return
	}
	c, s := thin(it.Width, it.Color)
	p.box(it.X+hw, it.Y+hh, hw+s, hh+s, 0, 2*s, c)
}

// line adds a segment with butt ends, as vector.StrokeLine draws it.
func (p *Painter) line(it *draw.Item) {
	dx, dy := it.X2-it.X, it.Y2-it.Y
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n == 0 || it.Width <= 0 {
		return
	}
	c, s := thin(it.Width, it.Color)
	ux, uy := dx/n, dy/n
	p.shape((it.X+it.X2)/2, (it.Y+it.Y2)/2, ux, uy, n/2, s, 0, 0, c)
}

// thin turns a stroke width into a half width of at least half a pixel,
// fading the colour of a stroke narrower than a pixel by its width.
func thin(width float32, c draw.Color) (draw.Color, float32) {
	if width >= 1 {
		return c, width / 2
	}
	c.A = uint8(float32(c.A)*width + 0.5)
	return c, 0.5
}

// box adds an axis-aligned shape centred on (cx, cy).
func (p *Painter) box(cx, cy, hw, hh, radius, stroke float32, c draw.Color) {
	if hw <= 0 || hh <= 0 {
		return
	}
	p.shape(cx, cy, 1, 0, hw, hh, radius, stroke, c)
}

// shape adds the shape of half size (hw, hh) centred on (cx, cy), its x
// axis along the unit vector (ux, uy), as a quad one pixel larger on every
// side; the shader works out each pixel's coverage. radius rounds the
// corners (radius = hw = hh is a circle); a positive stroke hollows the
// shape, leaving a band that wide inside its edge.
func (p *Painter) shape(cx, cy, ux, uy, hw, hh, radius, stroke float32, c draw.Color) {
	a := float32(c.A) / 255
	// A shape narrower than a pixel is drawn a pixel wide and fainter.
	if hw < 0.5 {
		a *= 2 * hw
		hw = 0.5
	}
	if hh < 0.5 {
		a *= 2 * hh
		hh = 0.5
	}
	radius = min(radius, hw, hh)
	r, g, b := float32(c.R)/255*a, float32(c.G)/255*a, float32(c.B)/255*a
	ex, ey := hw+1, hh+1 // the quad's half size, with room for the soft edge
	// Corners: centre ∓ the half length along (ux, uy) ∓ the half width
	// across it.
	ax, ay := ex*ux, ex*uy
	bx, by := -ey*uy, ey*ux
	v := p.quad()
	v[0] = ebiten.Vertex{DstX: cx - ax - bx, DstY: cy - ay - by, SrcX: -ex, SrcY: -ey}
	v[1] = ebiten.Vertex{DstX: cx + ax - bx, DstY: cy + ay - by, SrcX: ex, SrcY: -ey}
	v[2] = ebiten.Vertex{DstX: cx - ax + bx, DstY: cy - ay + by, SrcX: -ex, SrcY: ey}
	v[3] = ebiten.Vertex{DstX: cx + ax + bx, DstY: cy + ay + by, SrcX: ex, SrcY: ey}
	for i := range v {
		v[i].ColorR, v[i].ColorG, v[i].ColorB, v[i].ColorA = r, g, b, a
		v[i].Custom0, v[i].Custom1, v[i].Custom2, v[i].Custom3 = hw, hh, radius, stroke
	}
}

// glyphQuad adds a glyph: the atlas rectangle (sx, sy, w, h) copied to
// (x, y) on the destination, tinted by the premultiplied colour.
func (p *Painter) glyphQuad(x, y, sx, sy, w, h int, r, g, b, a float32) {
	x0, y0, x1, y1 := float32(x), float32(y), float32(x+w), float32(y+h)
	s0, t0, s1, t1 := float32(sx), float32(sy), float32(sx+w), float32(sy+h)
	v := p.quad()
	v[0] = ebiten.Vertex{DstX: x0, DstY: y0, SrcX: s0, SrcY: t0}
	v[1] = ebiten.Vertex{DstX: x1, DstY: y0, SrcX: s1, SrcY: t0}
	v[2] = ebiten.Vertex{DstX: x0, DstY: y1, SrcX: s0, SrcY: t1}
	v[3] = ebiten.Vertex{DstX: x1, DstY: y1, SrcX: s1, SrcY: t1}
	for i := range v {
		v[i].ColorR, v[i].ColorG, v[i].ColorB, v[i].ColorA = r, g, b, a
		v[i].Custom0 = -1 // a glyph, not a shape
	}
}

// quad appends the four vertices (top left, top right, bottom left, bottom
// right) and six indices of one more quad, and returns the vertices to
// fill in. It flushes first if the batch's indices would overflow uint16.
func (p *Painter) quad() []ebiten.Vertex {
	if len(p.vs)+4 > maxVertices {
		p.flush()
	}
	n := len(p.vs)
	p.vs = slices.Grow(p.vs, 4)[:n+4]
	base := uint16(n)
	p.is = append(p.is, base, base+1, base+2, base+1, base+3, base+2)
	return p.vs[n : n+4 : n+4]
}

// text adds one label, the top of its line box at it.Y.
func (p *Painter) text(it *draw.Item) {
	f := p.face(it.Size)
	if f == nil || it.Text == "" {
		return
	}
	pen := fixed.Int26_6(math.Round(float64(it.X) * 64))
	switch it.Align {
	case draw.AlignCenter:
		pen -= f.width(it.Text) / 2
	case draw.AlignRight:
		pen -= f.width(it.Text)
	}
	y := int(math.Round(float64(it.Y))) + f.ascent
	a := float32(it.Color.A) / 255
	r, g, b := float32(it.Color.R)/255*a, float32(it.Color.G)/255*a, float32(it.Color.B)/255*a
	for _, ch := range it.Text {
		x, sub := split(pen)
		if ch >= 0x2e80 && canvasfont.Fallback(ch) {
			x, sub = pen.Round(), 0 // the browser's glyphs sit on whole pixels
		}
		if gl := p.glyph(f, ch, sub); gl.w > 0 {
			p.glyphQuad(x+gl.dx, y+gl.dy, gl.x, gl.y, gl.w, gl.h, r, g, b, a)
		}
		pen += f.advance(ch)
	}
}

// face returns the face for a text size in pixels, rounded and clamped to
// minTextSize..maxTextSize, or nil if the font could not be loaded.
func (p *Painter) face(size float32) *face {
	px := int(math.Round(float64(size)))
	px = max(minTextSize, min(maxTextSize, px))
	if f := p.faces[px-minTextSize]; f != nil {
		return f
	}
	f, err := newFace(px)
	if err != nil {
		return nil
	}
	p.faces[px-minTextSize] = f
	return f
}
