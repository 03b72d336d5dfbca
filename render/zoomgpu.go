package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The GPU of the zoom (issue 21): one GPU at a moment of the step. The
// kernel it runs is the picture's point: named large at the top, lit in
// the strip of the layer's kernels (in run order, each as wide as it
// takes, the playhead at the moment), and placed as a point under the
// GPU's roofline — which bound holds it, on which side of the ridge —
// beside the bytes it moves through HBM and through shared memory on one
// scale, its FLOP and its time. A GPU that runs no kernel with a point (a
// collective, a wait, the optimizer) says what it does instead (Note) in
// place of the roofline and the bytes; the strip stays.

// AppendZoomGPU draws one GPU at a moment (ZoomGPUView). What stays while
// the kernel runs comes first — the words, the strip, the roofline, the
// bytes, the legend — and what moves last: the running span's outline and
// the playhead.
func AppendZoomGPU(dst draw.List, v ZoomGPUView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	st = zoomCrumbs(&l, th, st, sc, v.Crumbs)
	w := v.Words
	fs := draw.Clamp(draw.Minf(st.W, st.H)/45, 14*sc, 18*sc)
	big := draw.Clamp(fs*1.25, 14*sc, 22*sc)
	pad := fs * 0.8
	left, right := st.X+pad, st.X+st.W-pad
	W := right - left
	if W < fs*8 {
		return l
	}
	p := draw.NewPlacer(&l, st)

	// The words: the GPU, what it does, the kernel.
	y := st.Y + pad*0.4
	line := func(s string, size float32, c draw.Color, lines int) {
		a, b := s, ""
		if lines == 2 {
			a, b = draw.Wrap2(s, size, W)
		} else {
			a = draw.Fit(s, size, W)
		}
		for _, t := range [2]string{a, b} {
			if t == "" {
				continue
			}
			l.Label(left, y, size, draw.AlignLeft, c, t)
			p.Reserve(draw.Rect{X: left, Y: y, W: draw.TextWidth(t, size), H: size * draw.LineHeight})
			y += size * 1.25
		}
	}
	line(v.Title, fs, th.Text, 2)
	if v.Unfit != "" {
		// A plan that does not fit runs no kernel: under the title, a
		// veiled and hatched panel, how far over in a box on it.
		y += fs * 0.5
		r := draw.Rect{X: left, Y: y, W: W, H: st.Y + st.H - pad*0.5 - y}
		draw.UnfitVeil(&l, th, r, r, sc, fs, v.Unfit)
		return l
	}
	line(v.Doing, fs, th.Dim, 1)
	y += fs * 0.15
	line(v.Kernel, big, th.Text, 2)
	y += fs * 0.5

	// The legend at the bottom: the strip's colours.
	var ex [len(zoomActOrder) + 1]draw.LegendEntry
	k := 0
	var have [len(zoomActKeys)]bool
	comm := false
	for _, s := range v.Strip {
		if s.Comm {
			comm = true
		} else {
			have[zoomAct(s.Activity)] = true
		}
	}
	for _, a := range zoomActOrder {
		if have[a] {
			ex[k] = draw.LegendEntry{Color: zoomActColour(a, th), Label: draw.Say(w, zoomActKeys[a])}
			k++
		}
	}
	if comm {
		ex[k] = draw.LegendEntry{Color: draw.CommColour(th), Hatch: true, Label: draw.Say(w, "canvas.zoom.gpu.collective")}
		k++
	}
	legendH := float32(0)
	if k > 0 {
		legendH = draw.LegendHeight(W, fs, ex[:k]...)
	}
	legendY := st.Y + st.H - pad*0.5 - legendH

	// The strip: the layer's kernels on one time axis.
	stripY, stripH := y+fs*0.4, fs*2
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, s := range v.Strip {
		t0, t1 = math.Min(t0, s.Start), math.Max(t1, math.Max(s.End, s.Start))
	}
	hasStrip := len(v.Strip) > 0 && t1 > t0
	at := func(t float64) float32 {
		return left + W*float32(draw.ClampF((t-t0)/(t1-t0), 0, 1))
	}
	if hasStrip {
		l.Rect(left, stripY, W, stripH, th.Panel)
		for _, s := range v.Strip {
			xa, xb := at(s.Start), at(s.End)
			sw := xb - xa - 1*sc
			if sw <= 0 {
				sw = draw.Minf(xb-xa, 1*sc)
			}
			if sw <= 0 {
				continue
			}
			ink := th.Text
			if s.Comm {
				c := draw.CommColour(th)
				l.Rect(xa, stripY, sw, stripH, th.Panel)
				draw.Hatch(&l, xa, stripY, sw, stripH, fs*0.5, 1.5*sc, c)
				l.Frame(xa, stripY, sw, stripH, 1*sc, c)
			} else {
				fill := zoomActColour(zoomAct(s.Activity), th)
				l.Rect(xa, stripY, sw, stripH, fill)
				ink = zoomInk(fill, th)
			}
			if s.Label != "" && draw.TextWidth(s.Label, fs)+fs*0.5 <= sw {
				l.Label(xa+sw/2, stripY+(stripH-fs*draw.LineHeight)/2, fs, draw.AlignCenter, ink, s.Label)
			}
		}
		p.Reserve(draw.Rect{X: left, Y: stripY - fs*0.5, W: W, H: stripH + fs})
		key := v.StripKey
		if key == "" {
			key = "canvas.zoom.gpu.strip"
		}
		caption := zoomSay(w, key, "t", 'd', t1-t0, "", 0, 0)
		(&p).Fit(left, stripY+stripH+fs*0.5, fs, draw.AlignLeft, th.Dim, caption, W)
		y = stripY + stripH + fs*0.5 + fs*1.4
	}
	if k > 0 {
		draw.PlacerLegend(&p, th, draw.Rect{X: left, Y: legendY, W: W, H: legendH}, fs, sc, ex[:k]...)
	}

	// The middle: the roofline and the bytes, or what the GPU does instead.
	mid := draw.Rect{X: left, Y: y + fs*0.3, W: W, H: legendY - fs*0.5 - (y + fs*0.3)}
	switch {
	case mid.H < fs*2:
	case v.Note != "":
		zgNote(&p, th, v.Note, draw.Rect{X: left, Y: mid.Y + fs*0.5, W: W, H: mid.H - fs*0.5}, big)
	default:
		zgMiddle(&p, v, mid, fs, sc)
	}

	// What moves: the running span lit, the playhead.
	if hasStrip {
		if c := v.Current; c >= 0 && c < len(v.Strip) {
			xa, xb := at(v.Strip[c].Start), at(v.Strip[c].End)
			o := 2 * sc
			l.Frame(xa-o, stripY-o, draw.Maxf(xb-xa-1*sc, 2*sc)+2*o, stripH+2*o, 2.5*sc, th.Text)
		}
		x := at(v.Time)
		l.Segment(x, stripY-fs*0.45, x, stripY+stripH+fs*0.45, 2*sc, th.Text)
		l.Circle(x, stripY-fs*0.45, 3.5*sc, th.Text)
	}
	return l
}

// zgRoofline draws the GPU's roofline in r on log-log axes (both titled
// "log scale"), fitted round the ridge and the kernel: the slope and the
// roof, the ridge marked, the kernel's point at its intensity and
// attained throughput, named with its bound.
func zgRoofline(p *draw.Placer, v ZoomGPUView, r draw.Rect, fs, sc float32) {
	th := v.Theme
	w := v.Words
	l := p.L
	if v.Peak <= 0 || v.BW <= 0 {
		return
	}
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, draw.Say(w, "canvas.zoom.gpu.y"), r.W)
	yl := draw.TextWidth("0.01", fs) + fs*0.5
	px, py := r.X+yl, r.Y+fs*1.5
	pw, ph := r.W-yl-fs*1.2, r.Y+r.H-fs*3-py
	lh := fs * draw.LineHeight
	if pw < fs*6 || ph < fs*3 {
		return
	}
	ridge := v.Peak / v.BW
	kernel := v.Intensity > 0 && v.Attained > 0
	lo, hi := ridge, ridge
	if kernel {
		lo, hi = math.Min(lo, v.Intensity), math.Max(hi, v.Intensity)
	}
	x0, x1 := math.Floor(math.Log10(lo))-1, math.Ceil(math.Log10(hi))+1
	y1 := math.Log10(v.Peak/1e12) + 0.5
	y0 := math.Log10(v.BW * math.Pow(10, x0) / 1e12)
	if kernel {
		y0 = math.Min(y0, math.Log10(v.Attained/1e12)-0.3)
	}
	y0 = math.Max(y0, y1-6)
	pt := func(in, flops float64) (float32, float32) {
		fx := (math.Log10(in) - x0) / (x1 - x0)
		fy := (math.Log10(flops/1e12) - y0) / (y1 - y0)
		return px + pw*float32(draw.ClampF(fx, 0, 1)), py + ph*(1-float32(draw.ClampF(fy, 0, 1)))
	}
	// Decades.
	grid := draw.WithAlpha(th.Dim, 60)
	for e := math.Ceil(x0); e <= x1; e++ {
		x, _ := pt(math.Pow(10, e), 1e12)
		l.Segment(x, py, x, py+ph, 1*sc, grid)
	}
	for e := math.Ceil(y0); e <= y1; e++ {
		_, yy := pt(1, math.Pow(10, e)*1e12)
		l.Segment(px, yy, px+pw, yy, 1*sc, grid)
	}
	l.Frame(px, py, pw, ph, 1*sc, th.Dim)
	kc := th.Hot
	var kx, ky float32
	if kernel {
		kx, ky = pt(v.Intensity, v.Attained)
		p.Text(kx, py+ph+fs*0.3, fs, draw.AlignCenter, kc, zoomSay(w, "", "", 'n', v.Intensity, "", 0, 0))
	}
	for e := math.Ceil(x0); e <= x1; e++ {
		x, _ := pt(math.Pow(10, e), 1e12)
		p.Text(x, py+ph+fs*0.3, fs, draw.AlignCenter, th.Dim, zgDecade(int(e)))
	}
	for e := math.Ceil(y0); e <= y1; e++ {
		_, yy := pt(1, math.Pow(10, e)*1e12)
		p.Text(px-fs*0.3, yy-fs*0.55, fs, draw.AlignRight, th.Dim, zgDecade(int(e)))
	}
	p.First(px+pw, py+ph+fs*1.7, fs, draw.AlignRight, th.Dim, draw.Say(w, "canvas.zoom.gpu.x"), draw.Say(w, "canvas.zoom.gpu.x_short"))

	// The roof: the slope up to the ridge, flat after it.
	i0 := math.Max(math.Pow(10, x0), math.Pow(10, y0)*1e12/v.BW)
	ax, ay := pt(i0, i0*v.BW)
	rx, ry := pt(ridge, v.Peak)
	ex, _ := pt(math.Pow(10, x1), v.Peak)
	l.Segment(ax, ay, rx, ry, 3*sc, th.Text)
	l.Segment(rx, ry, ex, ry, 3*sc, th.Text)
	l.Segment(rx, ry, rx, py+ph, 1*sc, draw.WithAlpha(th.Dim, 160))
	l.Circle(rx, ry, 4.5*sc, th.Text)
	// No label touches the slope (a staircase of boxes along it) or the
	// roof; none but the kernel's the ridge's drop or the plot's frame.
	m := 2.5 * sc
	zgReserve(p, draw.Rect{X: rx - 5*sc, Y: ry - 5*sc, W: 10 * sc, H: 10 * sc}, draw.Rect{X: rx, Y: ry - m, W: ex - rx, H: 2 * m})
	steps := min(16, int((ay-ry)/(fs*0.5))+1)
	for i := 0; i < steps; i++ {
		f0, f1 := float32(i)/float32(steps), float32(i+1)/float32(steps)
		xa, xb := ax+(rx-ax)*f0, ax+(rx-ax)*f1
		ya, yb := ay+(ry-ay)*f0, ay+(ry-ay)*f1
		p.Reserve(draw.Rect{X: xa - m, Y: yb - m, W: xb - xa + 2*m, H: ya - yb + 2*m})
	}
	roofLab := zoomLabels.Get(zKey{w.Lang, v.GPU, v.Dtype, 'r', v.Peak, 0}, func() string {
		return w.Say("canvas.zoom.gpu.roof", "gpu", v.GPU, "dtype", v.Dtype, "peak", units.FLOPS(v.Peak))
	})
	if kernel {
		// The kernel's point, a line down to its intensity; its label
		// clear of them.
		p.Reserve(draw.Rect{X: kx - 7*sc, Y: ky - 7*sc, W: 14 * sc, H: 14 * sc})
		p.Reserve(draw.Rect{X: kx - 2*sc, Y: ky, W: 4 * sc, H: py + ph - ky})
		key := "canvas.zoom.gpu.bound_compute"
		switch v.Bound {
		case "memory":
			key = "canvas.zoom.gpu.bound_memory"
		case "shared-memory":
			key = "canvas.zoom.gpu.bound_smem"
		case "":
			key = "canvas.zoom.gpu.bound_none"
		}
		dot := zoomLabels.Get(zKey{w.Lang, key, "", 'd', 0, 0}, func() string { return w.Say("canvas.zoom.gpu.dot", "bound", w.Say(key)) })
		// Beside the dot, under or over it, on one line or two, nearest
		// first.
		a, b := draw.Wrap2(dot, fs, draw.TextWidth(dot, fs)*0.6)
		for k := 0; k < 8; k++ {
			s, t, h := dot, "", lh
			if k%2 == 1 {
				s, t, h = a, b, 2*lh
			}
			dy := fs*0.5 + float32(k/2)*lh
			if zgText2(p, kx+fs*0.6, ky+dy, fs, draw.AlignLeft, kc, s, t) || zgText2(p, kx-fs*0.6, ky+dy, fs, draw.AlignRight, kc, s, t) ||
				zgText2(p, kx+fs*0.6, ky-dy-h, fs, draw.AlignLeft, kc, s, t) || zgText2(p, kx-fs*0.6, ky-dy-h, fs, draw.AlignRight, kc, s, t) {
				break
			}
		}
		l.Key(kc, dot)
	}
	zgReserve(p, draw.Rect{X: rx - m, Y: ry, W: 2 * m, H: py + ph - ry}, draw.Rect{X: px, Y: py - m, W: pw, H: 2 * m}, draw.Rect{X: px, Y: py + ph - m, W: pw, H: 2 * m}, draw.Rect{X: px - m, Y: py, W: 2 * m, H: ph}, draw.Rect{X: px + pw - m, Y: py, W: 2 * m, H: ph})
	// Over the roof the plot is empty right across (the slope lies under
	// it): the roof's words may reach past the ridge; under it, not.
	if !p.Fit(ex-fs*0.3, ry-fs*draw.LineHeight-fs*0.4, fs, draw.AlignRight, th.Text, roofLab, ex-px-fs) {
		p.Fit(ex-fs*0.3, ry+fs*0.3, fs, draw.AlignRight, th.Text, roofLab, ex-rx-fs)
	}
	// The ridge's value beside its dot: under the roof right of the drop,
	// over the slope's end, or lower down either side of the drop.
	// In a plot too small for it, under the axis.
	ridgeLab := zoomSay(w, "canvas.zoom.gpu.ridge", "v", 'n', ridge, "", 0, 0)
	if !p.Text(rx+fs*0.4, ry+fs*0.3, fs, draw.AlignLeft, th.Dim, ridgeLab) && !p.Text(rx-fs*0.4, ry-fs*0.3-lh, fs, draw.AlignRight, th.Dim, ridgeLab) {
		y := ry + fs*0.3
		for ; y+lh < py+ph; y += lh * 0.5 {
			if p.Text(rx+fs*0.4, y, fs, draw.AlignLeft, th.Dim, ridgeLab) || p.Text(rx-fs*0.4, y, fs, draw.AlignRight, th.Dim, ridgeLab) {
				break
			}
		}
		if y+lh >= py+ph && !p.Text(rx, py+ph+fs*1.7, fs, draw.AlignCenter, th.Dim, ridgeLab) {
			p.Text(px, py+ph+fs*1.7, fs, draw.AlignLeft, th.Dim, ridgeLab)
		}
	}
	if kernel {
		l.Segment(kx, ky, kx, py+ph, 1.5*sc, draw.WithAlpha(kc, 200))
		l.Circle(kx, ky, 6*sc, kc)
	}
}

// zgMiddle lays out the roofline and the bytes in mid: the bytes in a
// column at the right where the roofline keeps room beside it, else
// under it across the width. The bytes come first and whole — every bar
// named with its bytes, the ratio where the bars differ 50× or more, the
// FLOP and the time; the roofline takes what is left, its labels kept
// inside its own part.
func zgMiddle(p *draw.Placer, v ZoomGPUView, mid draw.Rect, fs, sc float32) {
	w := v.Words
	var b zgBytesText
	b.t[0] = draw.Say(w, "canvas.zoom.gpu.bytes")
	b.t[1] = draw.SayBytes(w, "canvas.zoom.gpu.hbm", v.HBMBytes)
	b.t[2] = draw.SayBytes(w, "canvas.zoom.gpu.smem", v.SmemBytes)
	lo, hi, key := v.HBMBytes, v.SmemBytes, "canvas.zoom.gpu.ratio_smem"
	if lo > hi {
		lo, hi, key = hi, lo, "canvas.zoom.gpu.ratio_hbm"
	}
	if lo > 0 && hi >= 50*lo {
		b.t[3] = zoomSay(w, key, "n", 'n', math.Round(hi/lo), "", 0, 0)
	}
	switch {
	case v.FLOPs == 0 && v.HBMBytes > 0 && v.KernelTime > 0:
		// A pass without arithmetic (a norm, a copy, a cast) is at 0
		// FLOP a byte, left of any log axis: how fast HBM streams it,
		// and why the roofline has no point.
		b.t[4] = zoomSay(w, "canvas.zoom.gpu.work_bw", "t", 'd', v.KernelTime, "rate", 'r', v.HBMBytes/v.KernelTime)
		b.t[5] = draw.Say(w, "canvas.zoom.gpu.no_point")
	case v.FLOPs > 0 || v.KernelTime > 0:
		b.t[4] = zoomSay(w, "canvas.zoom.gpu.work", "flop", 'f', v.FLOPs, "t", 'd', v.KernelTime)
	}
	n, textW := 0, float32(0)
	for i, s := range b.t {
		if s != "" {
			n++
		}
		if i == 1 || i == 2 {
			b.nw = draw.Maxf(b.nw, draw.TextWidth(s, fs))
		} else {
			textW = draw.Maxf(textW, draw.TextWidth(s, fs))
		}
	}
	b.row = draw.Clamp(mid.H/float32(n), fs*draw.LineHeight, fs*1.35)
	h := float32(n) * b.row
	// The roofline's labels stay on its side of the bytes.
	var roof, bytes draw.Rect
	st := p.Stage
	clip := st
	if bw := draw.Maxf(draw.Maxf(textW, b.nw+fs*5.6), draw.Minf(mid.W*0.38, fs*20)); mid.W-bw-fs >= fs*20 && h <= mid.H {
		roof = draw.Rect{X: mid.X, Y: mid.Y, W: mid.W - bw - fs, H: mid.H}
		bytes = draw.Rect{X: mid.X + mid.W - bw, Y: mid.Y + draw.Minf(fs*1.4, mid.H-h), W: bw, H: h}
		clip.W = bytes.X - fs*0.5 - clip.X
	} else {
		bytes = draw.Rect{X: mid.X, Y: mid.Y + draw.Maxf(mid.H-h, 0), W: mid.W, H: h}
		roof = draw.Rect{X: mid.X, Y: mid.Y, W: mid.W, H: bytes.Y - fs*0.4 - mid.Y}
		clip.H = bytes.Y - clip.Y
	}
	zgBytes(p, v, &b, bytes, fs, sc)
	p.Stage = clip
	zgRoofline(p, v, roof, fs, sc)
	p.Stage = st
}

// zgBytesText is the bytes' lines: the heading, the HBM and the shared
// memory bars' names, the ratio (or ""), the work (or ""), why there is
// no point on the roofline (or ""); the bars' widest name and the row
// height.
type zgBytesText struct {
	t       [6]string
	nw, row float32
}

// zgBytes draws the bytes the kernel moves through HBM and through shared
// memory as two bars on one scale, each named with its bytes; where they
// differ 50× or more, how many times; under them its FLOP and its time.
func zgBytes(p *draw.Placer, v ZoomGPUView, b *zgBytesText, r draw.Rect, fs, sc float32) {
	th := v.Theme
	l := p.L
	most := math.Max(v.HBMBytes, v.SmemBytes)
	y := r.Y
	for i, s := range b.t {
		if s == "" {
			continue
		}
		c, w := th.Text, r.W
		switch i {
		case 0:
			c = th.Dim
		case 1, 2:
			w = b.nw // the widest name's own width (a width less a margin can round below it and cut it)
			if x := [2]float64{v.HBMBytes, v.SmemBytes}[i-1]; most > 0 && x > 0 {
				bc := th.Dim
				if i == 2 {
					bc = th.Link
				}
				bx := b.nw + fs*0.6 // the bars start a margin after the widest name
				l.Rect(r.X+bx, y+fs*0.15, draw.Maxf((r.W-bx)*float32(x/most), 2*sc), fs*0.85, bc)
			}
		}
		s = draw.Fit(s, fs, w)
		l.Label(r.X, y, fs, draw.AlignLeft, c, s)
		p.Reserve(draw.Rect{X: r.X, Y: y, W: draw.TextWidth(s, fs), H: fs * draw.LineHeight})
		y += b.row
	}
}

// zgText2 is siPlacer.text of a label on one or two lines (t the
// second, or ""), both or neither.
func zgText2(p *draw.Placer, x, y, fs float32, a draw.Align, c draw.Color, s, t string) bool {
	if t != "" && !p.Free(draw.Box(x, y+fs*draw.LineHeight, fs, a, t)) || !p.Text(x, y, fs, a, c, s) {
		return false
	}
	p.Text(x, y+fs*draw.LineHeight, fs, a, c, t)
	return true
}

func zgReserve(p *draw.Placer, rs ...draw.Rect) {
	for _, r := range rs {
		p.Reserve(r)
	}
}

// zgNote draws the note in r, wrapped to its width (as many lines as r
// holds, the last cut), its lines worked out once a note.
func zgNote(p *draw.Placer, th draw.Theme, s string, r draw.Rect, fs float32) {
	n := max(1, min(6, int(r.H/(fs*draw.LineHeight))))
	all := zoomLabels.Get(zKey{"", s, "", 'n', float64(fs), float64(r.W)*10 + float64(n)}, func() string {
		return strings.Join(draw.Lines(s, fs, r.W, n), "\x00")
	})
	y := r.Y
	for all != "" {
		var ln string
		ln, all, _ = strings.Cut(all, "\x00")
		p.Fit(r.X, y, fs, draw.AlignLeft, th.Text, ln, r.W)
		y += fs * draw.LineHeight
	}
}

// zgDecades are the decades' labels (pow10), made once.
var zgDecades = func() (d [25]string) {
	for i := range d {
		d[i] = draw.Pow10(i - 12)
	}
	return
}()

func zgDecade(e int) string {
	if e >= -12 && e < 13 {
		return zgDecades[e+12]
	}
	return draw.Pow10(e)
}
