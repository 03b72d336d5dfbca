package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The scale-out picture (issue 37): one model's MFU against the GPU
// count on a log axis, the engine's curve beside published points, and
// under it, on the same GPU axis, where each step's time goes — a bar a
// GPU count, stacked by share of the step — so that what is lost at scale
// (exposed communication, the wait for the slowest GPU) grows in sight.

// ScaleParts are the slices of a scale bar, bottom up: the engine's
// Time.Compute, Bubble, Exposed, Optimizer and Straggler.
var ScaleParts = [...]string{"compute", "bubble", "exposed", "optimizer", "straggler"}

// scalePartColour is a scale bar's slice colour: the planner's for the
// parts it has (compute, bubble, optimizer; exposed communication as its
// DP colour), Okabe–Ito yellow for the wait for the slowest GPU.
func scalePartColour(i int, th draw.Theme) draw.Color {
	switch ScaleParts[i] {
	case "exposed":
		return PlanPartColour("dp", th)
	case "straggler":
		return draw.Color{R: 0xf0, G: 0xe4, B: 0x42, A: 255}
	}
	return PlanPartColour(ScaleParts[i], th)
}

// ScaleColumn is one GPU count of the engine's curve.
type ScaleColumn struct {
	GPUs int
	MFU  float64
	// Runs: the plan fits in memory (a plan that does not is drawn as an
	// empty bar and no point: it cannot run).
	Runs bool
	Over float64 // bytes over the usable memory of a plan that does not run
	// Parts are the step's time by ScaleParts, as shares of the step
	// (they add up to 1).
	Parts [len(ScaleParts)]float64
}

// ScaleMark is a point beside the curve: a published figure, or the
// engine at another batch.
type ScaleMark struct {
	GPUs int
	MFU  float64
	// Hollow: the mark of the second batch (the published rows of the
	// smaller batch).
	Hollow bool
}

// ScaleView is what the scale picture needs; its words are canvas.scale.*
// keys the scene fills.
type ScaleView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Headline      string
	Curve         []ScaleColumn // doubling GPU counts, left to right
	Small         []ScaleMark   // the engine at the second batch (a dashed line)
	Published     []ScaleMark
	// Shown is how many of Curve's columns the playhead has reached (the
	// marks at or below the last shown GPU count are drawn).
	Shown int
	// The words: the panels' titles, the GPU axis, the legend (engine,
	// engine at the second batch, published; then the parts in
	// ScaleParts' order) and the label over a plan that does not fit.
	MFUTitle, TimeTitle, Axis string
	KeyEngine, KeySmall       string
	KeyPublished              string
	PartLabels                [len(ScaleParts)]string
	NoFit                     string
}

// Bounds of the MFU axis: 38% to 56%, ticks every 5 points from 40%
// (every plan of the step, and every published point, lies within it);
// the ticks say where it starts.
const (
	scaleMFULo, scaleMFUHi = 0.38, 0.56
)

// AppendScale draws the scale-out picture: the headline; the MFU panel
// (the engine's curve, a circle a GPU count, and its value at both ends;
// the second batch's engine points dashed; the published points as
// squares, hollow for the second batch, with the first and last value);
// under it the bars of the step's time by part on the same GPU axis,
// written "log scale"; the legend at the bottom.
func AppendScale(dst draw.List, v ScaleView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Curve) == 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs := draw.Clamp(draw.Minf(st.W, st.H)/44, draw.TextSize(sc), 17*sc)
	pad := fs * 0.8
	y := st.Y
	if v.Headline != "" {
		hh := draw.HeadlineHeight(st, sc, v.Headline)
		draw.Headline(&l, th, st, sc, v.Headline)
		p.Reserve(draw.Rect{X: st.X, Y: st.Y, W: st.W, H: hh})
		y += hh
	}
	// The legend: the curve's marks, then the bar parts.
	engineC, pubC := th.LinkActive, th.Hot
	entries := []draw.LegendEntry{{Color: engineC, Label: v.KeyEngine}, {Color: th.Dim, Label: v.KeySmall}, {Color: pubC, Label: v.KeyPublished}}
	for _, c := range v.Curve {
		if !c.Runs && v.NoFit != "" {
			entries = append(entries, draw.LegendEntry{Color: th.Empty, Label: v.NoFit})
			break
		}
	}
	// A part too thin to see in any bar (the optimizer's few
	// milliseconds) is neither drawn nor keyed.
	var visible [len(ScaleParts)]bool
	for _, c := range v.Curve {
		for k, s := range c.Parts {
			visible[k] = visible[k] || s >= scaleThinnest
		}
	}
	for i := range ScaleParts {
		if visible[i] {
			entries = append(entries, draw.LegendEntry{Color: scalePartColour(i, th), Label: v.PartLabels[i]})
		}
	}
	body := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - y - pad*0.5}
	lh := draw.PlacerLegend(&p, th, body, fs, sc, entries...)
	body.H -= lh + pad*0.5

	// The GPU axis under the bars: ticks, then its title.
	line := fs * draw.LineHeight
	axisH := 2*line + pad*0.3
	yw := draw.TextWidth("60%", fs) + fs*0.5 // the y ticks' column
	plot := draw.Rect{X: body.X + yw, Y: body.Y, W: body.W - yw, H: body.H - axisH}
	if plot.W < 10*fs || plot.H < 8*line {
		return l
	}
	// The two panels: MFU over the bars, each with its title line.
	gap := pad * 0.8
	share := float32(0.6)
	if st.W < st.H {
		share = 0.52 // a phone: the bars need their height too
	}
	mfuH := (plot.H - gap) * share
	mfuP := draw.Rect{X: plot.X, Y: plot.Y + line, W: plot.W, H: mfuH - line}
	barP := draw.Rect{X: plot.X, Y: plot.Y + mfuH + gap + line, W: plot.W, H: plot.H - mfuH - gap - line}
	p.Fit(body.X, plot.Y, fs, draw.AlignLeft, th.Text, v.MFUTitle, body.W)
	p.Fit(body.X, plot.Y+mfuH+gap, fs, draw.AlignLeft, th.Text, v.TimeTitle, body.W)

	n := len(v.Curve)
	colW := plot.W / float32(n)
	lo := math.Log2(float64(v.Curve[0].GPUs))
	hi := math.Log2(float64(v.Curve[n-1].GPUs))
	xOf := func(g int) float32 {
		f := float32(0.5)
		if hi > lo {
			f = float32((math.Log2(float64(g)) - lo) / (hi - lo))
		}
		return plot.X + colW/2 + f*(plot.W-colW)
	}
	yOf := func(m float64) float32 {
		f := float32((m - scaleMFULo) / (scaleMFUHi - scaleMFULo))
		return mfuP.Y + mfuP.H*(1-draw.Clamp(f, 0, 1))
	}
	// Grid lines and ticks: MFU every 10 points, shares 0, 50 and 100%.
	stroke := 1 * sc
	for m := 0.40; m <= scaleMFUHi+1e-9; m += 0.05 {
		yy := yOf(m)
		l.Segment(plot.X, yy, plot.X+plot.W, yy, stroke, th.Link)
		p.Text(plot.X-fs*0.3, yy-line/2, fs, draw.AlignRight, th.Dim, units.Percent(m))
	}
	for _, s := range []float64{0, 0.5, 1} {
		yy := barP.Y + barP.H*float32(1-s)
		l.Segment(plot.X, yy, plot.X+plot.W, yy, stroke, th.Link)
		p.Text(plot.X-fs*0.3, yy-line/2, fs, draw.AlignRight, th.Dim, units.Percent(s))
	}
	// The GPU counts under the bars: every one where they fit, else
	// every other.
	widest := draw.TextWidth(units.Count(int64(v.Curve[n-1].GPUs)), fs) + fs*0.6
	stride := 1
	for stride < n && widest > colW*float32(stride) {
		stride *= 2
	}
	ay := barP.Y + barP.H + pad*0.3
	for i := 0; i < n; i += stride {
		c := v.Curve[i]
		p.Text(xOf(c.GPUs), ay, fs, draw.AlignCenter, th.Text, units.Count(int64(c.GPUs)))
	}
	if stride > 1 && (n-1)%stride != 0 {
		c := v.Curve[n-1]
		p.Text(xOf(c.GPUs), ay, fs, draw.AlignCenter, th.Text, units.Count(int64(c.GPUs)))
	}
	p.Fit(plot.X+plot.W/2, ay+line, fs, draw.AlignCenter, th.Dim, v.Axis, plot.W)

	// The bars, as far as the playhead.
	shown := min(max(v.Shown, 0), n)
	bw := colW * 0.62
	// The plans that cannot run: one empty block over their columns (the
	// legend says why), how far over at each column's foot where it fits.
	var noFitFrom, noFitTo float32 = -1, -1
	for _, c := range v.Curve {
		if !c.Runs {
			x := xOf(c.GPUs) - bw/2
			if noFitFrom < 0 {
				noFitFrom = x
			}
			noFitTo = x + bw
		}
	}
	if noFitFrom >= 0 {
		l.Rect(noFitFrom, barP.Y, noFitTo-noFitFrom, barP.H, th.Empty)
	}
	for i := 0; i < n; i++ {
		c := v.Curve[i]
		x := xOf(c.GPUs) - bw/2
		if !c.Runs {
			if o := "+" + units.Bytes(c.Over); draw.TextWidth(o, fs) <= colW-fs*0.1 {
				p.Text(x+bw/2, barP.Y+barP.H-line-fs*0.3, fs, draw.AlignCenter, th.Text, o)
			}
			continue
		}
		if i >= shown {
			l.Frame(x, barP.Y, bw, barP.H, stroke, th.Link)
			continue
		}
		top := barP.Y + barP.H
		for k, s := range c.Parts {
			h := barP.H * float32(s)
			if h <= 0 || !visible[k] {
				continue
			}
			l.Rect(x, top-h, bw, h, scalePartColour(k, th))
			top -= h
		}
		// The compute's share on the bar, where every bar's fits.
		if s := units.Percent(c.Parts[0]); c.Parts[0] > 0 && draw.TextWidth("00.0%", fs) <= bw {
			p.Text(x+bw/2, barP.Y+barP.H-line-fs*0.3, fs, draw.AlignCenter, scaleInk, s)
		}
	}

	// The curves: the second batch dashed, then the engine's, then the
	// published points over them.
	r := fs * 0.28
	var last int
	for i, c := range v.Curve[:shown] {
		if !c.Runs {
			continue
		}
		last = i
	}
	maxG := 0
	if shown > 0 {
		maxG = v.Curve[shown-1].GPUs
	}
	prevX, prevY, have := float32(0), float32(0), false
	for _, m := range v.Small {
		if m.GPUs > maxG {
			break
		}
		x, yy := xOf(m.GPUs), yOf(m.MFU)
		if have {
			dashed(&l, prevX, prevY, x, yy, 2*stroke, fs*0.5, th.Dim)
		}
		l.Circle(x, yy, r*0.8, th.Dim)
		prevX, prevY, have = x, yy, true
	}
	have = false
	first := -1
	for i, c := range v.Curve[:shown] {
		if !c.Runs {
			continue
		}
		x, yy := xOf(c.GPUs), yOf(c.MFU)
		if have {
			l.Segment(prevX, prevY, x, yy, 2.5*stroke, engineC)
		} else {
			first = i
		}
		prevX, prevY, have = x, yy, true
	}
	for _, c := range v.Curve[:shown] {
		if c.Runs {
			l.Circle(xOf(c.GPUs), yOf(c.MFU), r, engineC)
		}
	}
	side := r * 2.2
	for _, m := range v.Published {
		if m.GPUs > maxG {
			continue
		}
		x, yy := xOf(m.GPUs), yOf(m.MFU)
		if m.Hollow {
			l.Rect(x-side/2, yy-side/2, side, side, th.Background)
			l.Frame(x-side/2, yy-side/2, side, side, 2*stroke, pubC)
		} else {
			l.Rect(x-side/2, yy-side/2, side, side, pubC)
		}
	}
	// The values at the ends: the published first and last beside their
	// marks, the engine's first and last beside its points, each where
	// it is clear of the marks and of the other labels.
	var pubShown []ScaleMark
	for _, m := range v.Published {
		if m.GPUs <= maxG {
			pubShown = append(pubShown, m)
		}
	}
	for _, m := range v.Published {
		x, yy := xOf(m.GPUs), yOf(m.MFU)
		p.Reserve(draw.Rect{X: x - side/2, Y: yy - side/2, W: side, H: side})
	}
	for _, c := range v.Curve[:shown] {
		if c.Runs {
			x, yy := xOf(c.GPUs), yOf(c.MFU)
			p.Reserve(draw.Rect{X: x - r, Y: yy - r, W: 2 * r, H: 2 * r})
		}
	}
	// The lines too, as dots along them, so that no label sits on one.
	along := func(pts [][2]float32) {
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			d := float32(math.Hypot(float64(b[0]-a[0]), float64(b[1]-a[1])))
			for t := float32(0); t <= d; t += fs * 0.8 {
				f := t / max(d, 1)
				x, yy := a[0]+(b[0]-a[0])*f, a[1]+(b[1]-a[1])*f
				p.Reserve(draw.Rect{X: x - 1, Y: yy - 1, W: 2, H: 2})
			}
		}
	}
	var pts [][2]float32
	for _, c := range v.Curve[:shown] {
		if c.Runs {
			pts = append(pts, [2]float32{xOf(c.GPUs), yOf(c.MFU)})
		}
	}
	along(pts)
	pts = pts[:0]
	for _, m := range v.Small {
		if m.GPUs <= maxG {
			pts = append(pts, [2]float32{xOf(m.GPUs), yOf(m.MFU)})
		}
	}
	along(pts)
	label := func(x, yy, off float32, c draw.Color, s string) {
		for _, at := range [...]struct {
			dx, dy float32
			a      draw.Align
		}{{0, off, draw.AlignCenter}, {0, -off - line, draw.AlignCenter}, {-off, -line / 2, draw.AlignRight}, {off, -line / 2, draw.AlignLeft}, {-off, -line, draw.AlignRight}, {-off, 0, draw.AlignRight}, {off, -line, draw.AlignLeft}, {off, 0, draw.AlignLeft}, {0, -off - line, draw.AlignRight}, {0, off, draw.AlignRight}} {
			if p.Text(x+at.dx, yy+at.dy, fs, at.a, c, s) {
				return
			}
		}
	}
	if k := len(pubShown); k > 0 {
		m := pubShown[0]
		label(xOf(m.GPUs), yOf(m.MFU), side*0.7, pubC, units.Percent(m.MFU))
		if k > 1 {
			m = pubShown[k-1]
			label(xOf(m.GPUs), yOf(m.MFU), side*0.7, pubC, units.Percent(m.MFU))
		}
	}
	if first >= 0 {
		for j, i := range []int{first, last} {
			if j == 1 && i == first {
				break
			}
			c := v.Curve[i]
			label(xOf(c.GPUs), yOf(c.MFU), r*1.6, engineC, units.Percent(c.MFU))
		}
	}
	return l
}

// scaleThinnest is the smallest share of a step a part must take in some
// bar to be drawn and keyed.
const scaleThinnest = 0.002

// scaleInk is the text on a bar's compute: dark on its green in every
// theme.
var scaleInk = draw.Color{R: 0x10, G: 0x14, B: 0x1c, A: 255}

// dashed draws a dashed segment from (x1, y1) to (x2, y2): dashes of
// length dash with gaps as long.
func dashed(l *draw.List, x1, y1, x2, y2, width, dash float32, c draw.Color) {
	dx, dy := x2-x1, y2-y1
	d := float32(math.Hypot(float64(dx), float64(dy)))
	if d <= 0 || dash <= 0 {
		return
	}
	for s := float32(0); s < d; s += 2 * dash {
		e := min(s+dash, d)
		l.Segment(x1+dx*s/d, y1+dy*s/d, x1+dx*e/d, y1+dy*e/d, width, c)
	}
}
