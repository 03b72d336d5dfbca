package draw

import "math"

// The label placer and the layout the silicon and zoom pictures share
// (cpu-vs-gpu, simt-launch, memory-wall, roofline, fused-kernels,
// flash-attention, number-formats, the GPU and SM zooms): one rule for
// text sizes and a placer that
// draws a label only where it overlaps no other label and stays on the
// stage (PICTURES.md rule 8).

// MinText is the smallest text of a silicon picture at scale 1: 12 CSS
// px at 1280×800 and, × 1.5, 20 px in presentation mode.
const MinText = 13.5

// TextSizes is a picture's text sizes on its stage: fs for labels and big
// for its headline, both at least siMinText × scale.
func TextSizes(st Rect, sc float32) (fs, big float32) {
	fs = Clamp(Minf(st.W, st.H)/40, MinText*sc, 17*sc)
	big = Clamp(fs*1.2, MinText*sc, 21*sc)
	return fs, big
}

// Box is the box a label of s at (x, y) takes (TextWidth).
func Box(x, y, fs float32, a Align, s string) Rect {
	w := TextWidth(s, fs)
	switch a {
	case AlignCenter:
		x -= w / 2
	case AlignRight:
		x -= w
	}
	return Rect{x, y, w, fs * LineHeight}
}

// Placer draws labels that fit: inside the stage and over no label
// placed before. Its boxes live in the placer (no allocation a frame).
type Placer struct {
	L     *List
	Stage Rect
	boxes [128]Rect
	n     int
}

func NewPlacer(l *List, st Rect) Placer { return Placer{L: l, Stage: st} }

// Free reports whether r is on the stage and clear of every placed box.
func (p *Placer) Free(r Rect) bool {
	st := p.Stage
	if r.X < st.X || r.Y < st.Y || r.X+r.W > st.X+st.W || r.Y+r.H > st.Y+st.H {
		return false
	}
	for i := 0; i < p.n; i++ {
		if siOverlap(r, p.boxes[i]) {
			return false
		}
	}
	return true
}

// Reserve keeps r clear of later labels (a legend, a headline).
func (p *Placer) Reserve(r Rect) {
	if p.n < len(p.boxes) {
		p.boxes[p.n] = r
		p.n++
	}
}

// Text draws s if it fits and reports whether it did.
func (p *Placer) Text(x, y, fs float32, a Align, c Color, s string) bool {
	if s == "" {
		return false
	}
	b := Box(x, y, fs, a, s)
	if !p.Free(b) {
		return false
	}
	p.L.Label(x, y, fs, a, c, s)
	p.Reserve(b)
	return true
}

// First draws the first of the texts that fits at (x, y).
func (p *Placer) First(x, y, fs float32, a Align, c Color, texts ...string) bool {
	for _, s := range texts {
		if p.Text(x, y, fs, a, c, s) {
			return true
		}
	}
	return false
}

// Fit draws s at (x, y), cut to width w (and to the stage) if needed, if
// its line is free.
func (p *Placer) Fit(x, y, fs float32, a Align, c Color, s string, w float32) bool {
	st := p.Stage
	switch a {
	case AlignLeft:
		w = Minf(w, st.X+st.W-x)
	case AlignRight:
		w = Minf(w, x-st.X)
	case AlignCenter:
		w = Minf(w, 2*Minf(x-st.X, st.X+st.W-x))
	}
	if w < fs {
		return false
	}
	return p.Text(x, y, fs, a, c, Fit(s, fs, w))
}

func siOverlap(a, b Rect) bool {
	return a.X+a.W > b.X && b.X+b.W > a.X && a.Y+a.H > b.Y && b.Y+b.H > a.Y
}

// PlacerLegend draws a legend row (Legend) at the bottom of r, reserves it in
// the placer and returns the height it took (0 when it does not fit).
func PlacerLegend(p *Placer, th Theme, r Rect, fs, sc float32, entries ...LegendEntry) float32 {
	h := LegendHeight(r.W, fs, entries...)
	if h > r.H || len(entries) == 0 {
		return 0
	}
	y := r.Y + r.H - h
	Legend(p.L, th, r.X, y, r.W, fs, sc, entries...)
	p.Reserve(Rect{r.X, y, r.W, h})
	return h
}

// PlacerHeadline draws the step's headline across the top of the stage, on
// two lines where one is too short, and returns the y below it.
func PlacerHeadline(p *Placer, th Theme, st Rect, big float32, c Color, s string) float32 {
	pad := big * 0.6
	y := st.Y + pad*0.6
	h := p.Wrap(st.X+pad, y, big, AlignLeft, c, s, st.W-2*pad, 2)
	if h == 0 {
		h = big * LineHeight
	}
	return y + h + pad*0.4
}

// Wrap draws s in lines of at most w pixels (at most maxLines, the last
// cut with an ellipsis) and returns the height it took.
func (p *Placer) Wrap(x, y, fs float32, a Align, c Color, s string, w float32, maxLines int) float32 {
	lines := Lines(s, fs, w, maxLines)
	for i, ln := range lines {
		p.Fit(x, y+float32(i)*fs*LineHeight, fs, a, c, ln, w)
	}
	return float32(len(lines)) * fs * LineHeight
}

// Arrow draws a line from (x1, y1) to (x2, y2) with a head at the end.
func Arrow(l *List, x1, y1, x2, y2, w, head float32, c Color) {
	l.Segment(x1, y1, x2, y2, w, c)
	dx, dy := x2-x1, y2-y1
	n := float32(math.Hypot(float64(dx), float64(dy)))
	if n <= 0 {
		return
	}
	ux, uy := dx/n, dy/n
	bx, by := x2-ux*head, y2-uy*head
	l.Segment(x2, y2, bx-uy*head*0.6, by+ux*head*0.6, w, c)
	l.Segment(x2, y2, bx+uy*head*0.6, by-ux*head*0.6, w, c)
}

// Frac clamps a fraction to 0 … 1 (NaN is 0).
func Frac(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	return math.Min(f, 1)
}

// TimeAxis draws a seconds axis at ay from x0 to x1 — ticks at a nice
// step up to tmax, placed by at — and, before tmax, the playhead at t
// from top down to the ticks.
func TimeAxis(p *Placer, th Theme, sc, fs, x0, x1, ay, top float32, tmax, t float64, at func(float64) float32) {
	p.L.Segment(x0, ay, x1, ay, 1*sc, th.Dim)
	step := NiceStep(tmax / 4)
	for k := 0; float64(k)*step <= tmax*1.0001 && k < 20; k++ {
		x := at(float64(k) * step)
		p.L.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		p.Text(x, ay+fs*0.4, fs, AlignCenter, th.Dim, DurationLabel(float64(k)*step))
	}
	if t < tmax {
		x := at(t)
		p.L.Segment(x, top, x, ay+fs*0.3, 1.5*sc, th.Text)
	}
}
