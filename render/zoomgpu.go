package render

import (
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
func AppendZoomGPU(dst List, v ZoomGPUView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	st = zoomCrumbs(&l, th, st, sc, v.Crumbs)
	w := v.Words
	fs := clamp(minf(st.W, st.H)/45, 14*sc, 18*sc)
	big := clamp(fs*1.25, 14*sc, 22*sc)
	pad := fs * 0.8
	left, right := st.X+pad, st.X+st.W-pad
	W := right - left
	if W < fs*8 {
		return l
	}
	p := newPlacer(&l, st)

	// The words: the GPU, what it does, the kernel.
	y := st.Y + pad*0.4
	line := func(s string, size float32, c Color, lines int) {
		a, b := s, ""
		if lines == 2 {
			a, b = zoomWrap(s, size, W)
		} else {
			a = zoomFit(s, size, W)
		}
		for _, t := range [2]string{a, b} {
			if t == "" {
				continue
			}
			l.Label(left, y, size, AlignLeft, c, t)
			p.reserve(Rect{left, y, labelW(t, size), size * LineHeight})
			y += size * 1.25
		}
	}
	line(v.Title, fs, th.Text, 2)
	line(v.Doing, fs, th.Dim, 1)
	y += fs * 0.15
	line(v.Kernel, big, th.Text, 2)
	y += fs * 0.5

	// The legend at the bottom: the strip's colours.
	var ex [6]LegendEntry
	k := 0
	var have [5]bool
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
			ex[k] = LegendEntry{Color: zoomActColour(a, th), Label: say(w, zoomActKeys[a])}
			k++
		}
	}
	if comm {
		ex[k] = LegendEntry{Color: commColour(th), Hatch: true, Label: say(w, "canvas.zoom.gpu.collective")}
		k++
	}
	legendH := float32(0)
	if k > 0 {
		legendH = siLegendHeight(W, fs, ex[:k]...)
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
		return left + W*float32(clampF((t-t0)/(t1-t0), 0, 1))
	}
	if hasStrip {
		l.Rect(left, stripY, W, stripH, th.Panel)
		for _, s := range v.Strip {
			xa, xb := at(s.Start), at(s.End)
			sw := xb - xa - 1*sc
			if sw <= 0 {
				sw = minf(xb-xa, 1*sc)
			}
			if sw <= 0 {
				continue
			}
			ink := th.Text
			if s.Comm {
				c := commColour(th)
				l.Rect(xa, stripY, sw, stripH, th.Panel)
				hatchRect(&l, xa, stripY, sw, stripH, fs*0.5, 1.5*sc, c)
				l.Frame(xa, stripY, sw, stripH, 1*sc, c)
			} else {
				fill := zoomActColour(zoomAct(s.Activity), th)
				l.Rect(xa, stripY, sw, stripH, fill)
				ink = zoomInk(fill, th)
			}
			if s.Label != "" && labelW(s.Label, fs)+fs*0.5 <= sw {
				l.Label(xa+sw/2, stripY+(stripH-fs*LineHeight)/2, fs, AlignCenter, ink, s.Label)
			}
		}
		p.reserve(Rect{left, stripY - fs*0.5, W, stripH + fs})
		caption := zoomLabels.get(zKey{w.Lang, "", "", 's', t1 - t0, 0}, func() string {
			return w.Say("canvas.zoom.gpu.strip", "t", units.LocalDuration(w.Lang, t1-t0))
		})
		zgFit(&p, left, stripY+stripH+fs*0.5, fs, AlignLeft, th.Dim, caption, W)
		y = stripY + stripH + fs*0.5 + fs*1.4
	}
	if k > 0 {
		siLegend(&p, th, Rect{left, legendY, W, legendH}, fs, sc, ex[:k]...)
	}

	// The middle: the roofline and the bytes, or what the GPU does instead.
	mid := Rect{left, y + fs*0.3, W, legendY - fs*0.5 - (y + fs*0.3)}
	switch {
	case mid.H < fs*2:
	case v.Note != "":
		zgNote(&p, th, v.Note, Rect{left, mid.Y + fs*0.5, W, mid.H - fs*0.5}, big)
	default:
		bytesH := fs * 1.4 * 4
		var roof, bytes Rect
		if W >= fs*32 {
			bw := minf(W*0.38, fs*20)
			roof = Rect{mid.X, mid.Y, W - bw - fs, mid.H}
			bytes = Rect{mid.X + W - bw, mid.Y + fs*1.4, bw, minf(bytesH, mid.H)}
		} else {
			roof = Rect{mid.X, mid.Y, W, mid.H - bytesH - fs*0.4}
			bytes = Rect{mid.X, mid.Y + mid.H - bytesH, W, bytesH}
		}
		zgRoofline(&p, v, roof, fs, sc)
		zgBytes(&p, v, bytes, fs, sc)
	}

	// What moves: the running span lit, the playhead.
	if hasStrip {
		if c := v.Current; c >= 0 && c < len(v.Strip) {
			xa, xb := at(v.Strip[c].Start), at(v.Strip[c].End)
			o := 2 * sc
			l.Frame(xa-o, stripY-o, maxf(xb-xa-1*sc, 2*sc)+2*o, stripH+2*o, 2.5*sc, th.Text)
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
func zgRoofline(p *siPlacer, v ZoomGPUView, r Rect, fs, sc float32) {
	th := v.Theme
	w := v.Words
	l := p.l
	if v.Peak <= 0 || v.BW <= 0 {
		return
	}
	zgFit(p, r.X, r.Y, fs, AlignLeft, th.Dim, say(w, "canvas.zoom.gpu.y"), r.W)
	yl := labelW("0.01", fs) + fs*0.5
	px, py := r.X+yl, r.Y+fs*1.5
	pw, ph := r.W-yl-fs*0.3, r.Y+r.H-fs*3-py
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
		return px + pw*float32(clampF(fx, 0, 1)), py + ph*(1-float32(clampF(fy, 0, 1)))
	}
	// Decades.
	grid := withAlpha(th.Dim, 60)
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
		p.text(kx, py+ph+fs*0.3, fs, AlignCenter, kc, zoomLabels.get(zKey{"", "", "", 'i', v.Intensity, 0}, func() string { return rfNum(v.Intensity) }))
	}
	for e := math.Ceil(x0); e <= x1; e++ {
		x, _ := pt(math.Pow(10, e), 1e12)
		p.text(x, py+ph+fs*0.3, fs, AlignCenter, th.Dim, zgDecade(int(e)))
	}
	for e := math.Ceil(y0); e <= y1; e++ {
		_, yy := pt(1, math.Pow(10, e)*1e12)
		p.text(px-fs*0.3, yy-fs*0.55, fs, AlignRight, th.Dim, zgDecade(int(e)))
	}
	p.first(px+pw, py+ph+fs*1.7, fs, AlignRight, th.Dim, say(w, "canvas.zoom.gpu.x"), say(w, "canvas.zoom.gpu.x_short"))

	// The roof: the slope up to the ridge, flat after it.
	i0 := math.Max(math.Pow(10, x0), math.Pow(10, y0)*1e12/v.BW)
	ax, ay := pt(i0, i0*v.BW)
	rx, ry := pt(ridge, v.Peak)
	ex, _ := pt(math.Pow(10, x1), v.Peak)
	l.Segment(ax, ay, rx, ry, 3*sc, th.Text)
	l.Segment(rx, ry, ex, ry, 3*sc, th.Text)
	l.Segment(rx, ry, rx, py+ph, 1*sc, withAlpha(th.Dim, 160))
	l.Circle(rx, ry, 4.5*sc, th.Text)
	p.reserve(Rect{rx - 5*sc, ry - 5*sc, 10 * sc, 10 * sc})
	roofLab := zoomLabels.get(zKey{w.Lang, v.GPU, v.Dtype, 'r', v.Peak, 0}, func() string {
		return w.Say("canvas.zoom.gpu.roof", "gpu", v.GPU, "dtype", v.Dtype, "peak", units.FLOPS(v.Peak))
	})
	ridgeLab := zoomLabels.get(zKey{w.Lang, "", "", 'g', ridge, 0}, func() string { return w.Say("canvas.zoom.gpu.ridge", "v", rfNum(ridge)) })
	if kernel {
		// The kernel's point, a line down to its intensity; its label
		// clear of them.
		p.reserve(Rect{kx - 7*sc, ky - 7*sc, 14 * sc, 14 * sc})
		p.reserve(Rect{kx - 2*sc, ky, 4 * sc, py + ph - ky})
		key := "canvas.zoom.gpu.bound_compute"
		switch v.Bound {
		case "memory":
			key = "canvas.zoom.gpu.bound_memory"
		case "shared-memory":
			key = "canvas.zoom.gpu.bound_smem"
		case "":
			key = "canvas.zoom.gpu.bound_none"
		}
		dot := zoomLabels.get(zKey{w.Lang, key, "", 'd', 0, 0}, func() string { return w.Say("canvas.zoom.gpu.dot", "bound", w.Say(key)) })
		for k := 0; k < 4; k++ {
			dy := fs*0.5 + float32(k)*fs*LineHeight
			if p.text(kx+fs*0.6, ky+dy, fs, AlignLeft, kc, dot) || p.text(kx-fs*0.6, ky+dy, fs, AlignRight, kc, dot) ||
				p.text(kx+fs*0.6, ky-dy-fs*LineHeight, fs, AlignLeft, kc, dot) || p.text(kx-fs*0.6, ky-dy-fs*LineHeight, fs, AlignRight, kc, dot) {
				break
			}
		}
		l.Key(kc, dot)
	}
	for k := 0; k < 3; k++ {
		dy := fs*0.3 + float32(k)*fs*LineHeight
		if p.text(rx+fs*0.4, ry+dy, fs, AlignLeft, th.Dim, ridgeLab) || p.text(rx-fs*0.4, ry+dy, fs, AlignRight, th.Dim, ridgeLab) {
			break
		}
	}
	// Over the roof the plot is empty right across (the slope lies under
	// it): the roof's words may reach past the ridge; under it, not.
	if !zgFit(p, ex-fs*0.3, ry-fs*LineHeight-fs*0.4, fs, AlignRight, th.Text, roofLab, ex-px-fs) {
		zgFit(p, ex-fs*0.3, ry+fs*0.3, fs, AlignRight, th.Text, roofLab, ex-rx-fs)
	}
	if kernel {
		l.Segment(kx, ky, kx, py+ph, 1.5*sc, withAlpha(kc, 200))
		l.Circle(kx, ky, 6*sc, kc)
	}
}

// zgBytes draws the bytes the kernel moves through HBM and through shared
// memory as two bars on one scale, each named with its bytes, and under
// them its FLOP and its time.
func zgBytes(p *siPlacer, v ZoomGPUView, r Rect, fs, sc float32) {
	th := v.Theme
	w := v.Words
	l := p.l
	if r.W < fs*6 || r.H < fs*1.4*3 {
		return
	}
	y := r.Y
	zgFit(p, r.X, y, fs, AlignLeft, th.Dim, say(w, "canvas.zoom.gpu.bytes"), r.W)
	y += fs * 1.4
	hbm := zoomLabels.get(zKey{w.Lang, "", "", 'h', v.HBMBytes, 0}, func() string { return w.Say("canvas.zoom.gpu.hbm", "bytes", units.Bytes(v.HBMBytes)) })
	smem := zoomLabels.get(zKey{w.Lang, "", "", 'm', v.SmemBytes, 0}, func() string {
		return w.Say("canvas.zoom.gpu.smem", "bytes", units.Bytes(v.SmemBytes))
	})
	lw := minf(maxf(siW(hbm, fs), siW(smem, fs))+fs*0.5, r.W*0.72)
	most := math.Max(v.HBMBytes, v.SmemBytes)
	barW := r.W - lw
	for i, b := range [2]float64{v.HBMBytes, v.SmemBytes} {
		lab, c := hbm, th.Dim
		if i == 1 {
			lab, c = smem, th.Link
		}
		zgFit(p, r.X, y, fs, AlignLeft, th.Text, lab, lw-fs*0.5)
		if most > 0 && b > 0 {
			bw := maxf(barW*float32(b/most), 2*sc)
			l.Rect(r.X+lw, y+fs*0.15, bw, fs*0.85, c)
		}
		y += fs * 1.4
	}
	work := zoomLabels.get(zKey{w.Lang, "", "", 'k', v.FLOPs, v.KernelTime}, func() string {
		return w.Say("canvas.zoom.gpu.work", "flop", units.FLOP(v.FLOPs), "t", units.LocalDuration(w.Lang, v.KernelTime))
	})
	if v.FLOPs > 0 || v.KernelTime > 0 {
		zgFit(p, r.X, y, fs, AlignLeft, th.Text, work, r.W)
	}
}

// zgNote draws the note in r, wrapped to its width (as many lines as r
// holds, the last cut), its lines worked out once a note.
func zgNote(p *siPlacer, th Theme, s string, r Rect, fs float32) {
	n := max(1, min(6, int(r.H/(fs*LineHeight))))
	all := zoomLabels.get(zKey{"", s, "", 'n', float64(fs), float64(r.W)*10 + float64(n)}, func() string {
		return strings.Join(siWrap(s, fs, r.W, n), "\x00")
	})
	y := r.Y
	for all != "" {
		var ln string
		ln, all, _ = strings.Cut(all, "\x00")
		zgFit(p, r.X, y, fs, AlignLeft, th.Text, ln, r.W)
		y += fs * LineHeight
	}
}

// zgFit is siPlacer.fit with the cut label memoized (siFit allocates).
func zgFit(p *siPlacer, x, y, fs float32, a Align, c Color, s string, w float32) bool {
	st := p.stage
	switch a {
	case AlignLeft:
		w = minf(w, st.X+st.W-x)
	case AlignRight:
		w = minf(w, x-st.X)
	case AlignCenter:
		w = minf(w, 2*minf(x-st.X, st.X+st.W-x))
	}
	if w < fs {
		return false
	}
	if siW(s, fs) > w {
		s = zoomLabels.get(zKey{"", s, "", 'c', float64(fs), float64(w)}, func() string { return siFit(s, fs, w) })
	}
	return p.text(x, y, fs, a, c, s)
}

// zgDecades are the decades' labels (pow10), made once.
var zgDecades = func() (d [25]string) {
	for i := range d {
		d[i] = pow10(i - 12)
	}
	return
}()

func zgDecade(e int) string {
	if e >= -12 && e < 13 {
		return zgDecades[e+12]
	}
	return pow10(e)
}
