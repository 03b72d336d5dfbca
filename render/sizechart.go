package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// AppendSizeChart draws each series against message size on log-log axes
// (a line a decade, sizes labelled "1 kB", "1 MB", "1 GB", both axes said
// to be log scales), a legend, a marker and the size where one curve
// crosses another between samples, and the current size as a vertical
// line with a dot on each curve; the Highlight series is drawn thicker,
// over the others. Under the chart, Parts split each algorithm's time at
// the current size into latency and bandwidth. With Pending the curves,
// the crossovers and the parts wait (the question asks which is fastest).
// Points that a log axis cannot show (zero, negative, not finite) are
// skipped.
func AppendSizeChart(dst draw.List, v SizeChartView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	w := v.Words
	fs := draw.Clamp(draw.Minf(st.W, st.H)/40, 14*sc, 18*sc)
	pad := fs * 0.8
	y := st.Y + pad
	if v.Title != "" {
		t1, t2 := draw.Wrap2(v.Title, fs, st.W-2*pad)
		l.Label(st.X+pad, y, fs, draw.AlignLeft, draw.Pick(v.Pending, th.Dim, th.Text), t1)
		if t2 != "" {
			y += fs * 1.3
			l.Label(st.X+pad, y, fs, draw.AlignLeft, draw.Pick(v.Pending, th.Dim, th.Text), t2)
		}
		y += fs * 1.45
	}
	// The legend: a line swatch and the series' name, wrapping; the
	// highlighted series' name in the text colour.
	{
		x := st.X + pad
		for i, s := range v.Series {
			col := draw.Palette[i%len(draw.Palette)]
			l.Key(col, s.Label)
			ew := fs*1.6 + draw.TextWidth(s.Label, fs) + fs
			if x > st.X+pad && x+ew-fs > st.X+st.W-pad {
				x, y = st.X+pad, y+fs*1.3
			}
			tc, lw := th.Dim, 2*sc
			if s.Label == v.Highlight && v.Highlight != "" && !v.Pending {
				tc, lw = th.Text, 4*sc
			}
			l.Segment(x, y+fs*0.6, x+fs*1.2, y+fs*0.6, lw, col)
			l.Label(x+fs*1.6, y, fs, draw.AlignLeft, tc, s.Label)
			x += ew
		}
		y += fs * 1.45
	}
	timeAxis := v.YLabel == "s"
	if timeAxis {
		l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Dim, draw.Fit(w.Say("canvas.sizes.y"), fs, st.W-2*pad))
		y += fs * 1.35
	}
	// The parts under the chart, or beside it on a wide, short stage, when
	// there is room for them.
	var parts draw.Rect
	right := st.X + st.W - pad
	bottom := st.Y + st.H - pad
	if len(v.Parts) > 0 {
		if st.W > st.H*1.8 {
			pw := (st.W - 2*pad) * 0.4
			parts = draw.Rect{X: right - pw, Y: y + fs*1.5, W: pw, H: bottom - y - fs*1.5}
			right = parts.X - fs*1.2
		} else if st.Y+st.H-y > fs*22 {
			ph := float32(len(v.Parts))*sizeRowH(w, v, fs, st.W-2*pad) + draw.LegendHeight(st.W-2*pad, fs, sizePartEntries(th, w)...) + fs*2.9
			if _, _, zoom := sizeGap(v.Parts, 1); zoom > 0 {
				ph += fs * 1.4 // the gap's line
			}
			if ph < (bottom-y)*0.36 { // the chart keeps most of the stage
				parts = draw.Rect{X: st.X + pad, Y: bottom - ph, W: st.W - 2*pad, H: ph}
				bottom = parts.Y - fs*0.8
			}
		}
	}

	// The axes' decades: the points' extent, the current size included.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i := range v.Series {
		s := &v.Series[i]
		for k := range min(len(s.Bytes), len(s.Values)) {
			if sizeValid(s, k) {
				xmin, xmax = math.Min(xmin, s.Bytes[k]), math.Max(xmax, s.Bytes[k])
				ymin, ymax = math.Min(ymin, s.Values[k]), math.Max(ymax, s.Values[k])
			}
		}
	}
	if v.Current > 0 && !math.IsInf(v.Current, 0) {
		xmin, xmax = math.Min(xmin, v.Current), math.Max(xmax, v.Current)
	}
	xlo, xhi := draw.Decades(xmin, xmax, 0, 9)
	ylo, yhi := draw.Decades(ymin, ymax, 0, 1)
	ylab := func(e int) string {
		if timeAxis {
			return draw.DecadeTime(e)
		}
		return sizeDecade(e)
	}
	var yw float32
	for e := ylo; e <= yhi; e++ {
		yw = draw.Maxf(yw, draw.TextWidth(ylab(e), fs))
	}
	px, py := st.X+pad+yw+fs*0.5, y+fs*1.5
	pw, ph := right-fs*0.5-px, bottom-fs*2.9-py
	if pw <= 0 || ph <= fs*2 {
		return l
	}
	at := func(lx, ly float64) (float32, float32) {
		fx := (lx - float64(xlo)) / float64(xhi-xlo)
		fy := (ly - float64(ylo)) / float64(yhi-ylo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}

	// Grid and labels: a line per decade, labels where they fit (the
	// first size from the axis on, clear of the times).
	xevery := draw.LabelEvery(draw.TextWidth("100 kB", fs), pw/float32(xhi-xlo))
	lastR := float32(-1e9)
	for e := xlo; e <= xhi; e++ {
		x, _ := at(float64(e), float64(ylo))
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		if (e-xlo)%xevery == 0 {
			s := draw.DecadeBytes(e)
			sw := draw.TextWidth(s, fs)
			al, left := draw.AlignCenter, x-sw/2
			if e == xlo {
				al, left = draw.AlignLeft, x
			} else if e == xhi || x+sw/2 > right {
				al, left = draw.AlignRight, x-sw
			}
			if left > lastR+fs*0.4 {
				l.Label(x, py+ph+fs*0.3, fs, al, th.Dim, s)
				lastR = left + sw
			}
		}
	}
	yevery := draw.LabelEvery(fs*1.2, ph/float32(yhi-ylo))
	for e := ylo; e <= yhi; e++ {
		_, y := at(float64(xlo), float64(e))
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		if (e-ylo)%yevery == 0 && (e > ylo || ph > fs*3) {
			ly := y - fs*0.6
			switch e {
			case ylo:
				ly = y - fs*1.1 // clear of the sizes under the axis
			case yhi:
				if ph/float32(yhi-ylo) < fs*2.6 {
					continue // no room under the top line
				}
				ly = y + fs*0.1 // clear of the size above
			}
			l.Label(px-fs*0.4, ly, fs, draw.AlignRight, th.Dim, ylab(e))
		}
	}
	l.Frame(px, py, pw, ph, 1*sc, th.Dim)
	xl := w.Say("canvas.sizes.x")
	l.Label(px+pw, py+ph+fs*1.5, fs, draw.AlignRight, th.Dim, draw.Fit(xl, fs, pw))

	// The current size: a line and its size (its dots come last).
	hasCur := v.Current > 0 && !math.IsInf(v.Current, 0)
	lc := 0.0
	if hasCur {
		lc = math.Log10(v.Current)
		cx, _ := at(lc, float64(ylo))
		l.Segment(cx, py, cx, py+ph, 1.5*sc, th.Dim)
		cs := units.Bytes(v.Current)
		l.Label(draw.Clamp(cx, px+draw.TextWidth(cs, fs)/2, px+pw-draw.TextWidth(cs, fs)/2), py-fs*1.4, fs, draw.AlignCenter, th.Text, cs)
	}
	if v.Pending {
		// The answer waits: only the axes and the size asked about.
		return l
	}

	// The curves, the highlighted one last and thickest.
	hi := -1
	for i := range v.Series {
		if v.Highlight != "" && v.Series[i].Label == v.Highlight {
			hi = i
		}
	}
	for i := range v.Series {
		if i != hi {
			sizeCurve(&l, &v.Series[i], at, 2*sc, draw.Palette[i%len(draw.Palette)])
		}
	}
	if hi >= 0 {
		sizeCurve(&l, &v.Series[hi], at, 4*sc, draw.Palette[hi%len(draw.Palette)])
	}

	// Crossovers: where the order of two curves flips (once where two
	// curves that coincide cross a third) — the engine's sizes when it
	// gives them, else found between the samples.
	var marked [8][2]float32
	nm := 0
	mark := func(lx, ly, bytes float64) {
		x, y := at(lx, ly)
		for k := range nm {
			if draw.Abs(marked[k][0]-x) < fs && draw.Abs(marked[k][1]-y) < fs {
				return
			}
		}
		if nm < len(marked) {
			marked[nm] = [2]float32{x, y}
			nm++
		}
		l.Circle(x, y, 5*sc, th.Text)
		s := sizeLabels.Get(sizeKey{w.Lang, bytes}, func() string { return w.Say("canvas.sizes.crossover", "bytes", units.Bytes(bytes)) })
		sw := draw.TextWidth(s, fs)
		l.Label(draw.Clamp(x, px+sw/2, px+pw-sw/2), draw.Maxf(y-fs*1.7, py+fs*0.1), fs, draw.AlignCenter, th.Text, s)
	}
	if v.Crossovers != nil {
		for _, c := range v.Crossovers {
			for i := range v.Series {
				if v.Series[i].Label != c.A || !(c.Bytes > 0) {
					continue
				}
				lx := math.Log10(c.Bytes)
				if ly, ok := sizeLogAt(&v.Series[i], lx); ok {
					mark(lx, ly, c.Bytes)
				}
			}
		}
	} else {
		for i := range v.Series {
			for j := i + 1; j < len(v.Series); j++ {
				sizeCrossings(&v.Series[i], &v.Series[j], func(lx, ly float64) { mark(lx, ly, math.Pow(10, lx)) })
			}
		}
	}
	if hasCur {
		cx, _ := at(lc, float64(ylo))
		for i := range v.Series {
			if ly, ok := sizeLogAt(&v.Series[i], lc); ok {
				_, y := at(lc, ly)
				l.Circle(cx, y, 4*sc, draw.Palette[i%len(draw.Palette)])
			}
		}
	}
	if parts.H > 0 {
		sizeParts(&l, th, sc, fs, w, parts, v)
	}
	return l
}

// sizePartEntries are the parts' legend.
func sizePartEntries(th draw.Theme, w draw.Words) []draw.LegendEntry {
	return []draw.LegendEntry{
		{Color: draw.Palette[3], Label: w.Say("canvas.sizes.latency")},
		{Color: draw.Palette[4], Label: w.Say("canvas.sizes.bandwidth")},
	}
}

// sizeGapRatio is how many times as long as the fastest the slowest
// part may take before the short bars, drawn on the slowest's axis, turn
// into hairlines: past it each short bar gets an inset (PICTURES.md: "a
// 50× gap gets an inset or a broken axis").
const sizeGapRatio = 50

// sizeInset is the share of the bars' width an inset may take.
const sizeInset = 0.55

// sizeGap is the parts' longest and shortest times and, when the longest
// is over sizeGapRatio times the shortest, the zoom (1, 2 or 5 × 10ᵏ) at
// which every bar under longest ÷ sizeGapRatio is drawn again in an inset
// of the share room of the bars' width; zoom 0: no inset.
func sizeGap(parts []SizePart, room float64) (long, short, zoom float64) {
	short = math.Inf(1)
	for _, p := range parts {
		if t := p.Latency + p.Bandwidth; t > 0 && !math.IsInf(t, 0) {
			long, short = math.Max(long, t), math.Min(short, t)
		}
	}
	if !(long > short*sizeGapRatio) {
		return long, short, 0
	}
	// The longest of the short bars fills at most the inset.
	var most float64
	for _, p := range parts {
		if t := p.Latency + p.Bandwidth; t > 0 && t*sizeGapRatio < long {
			most = math.Max(most, t)
		}
	}
	zoom = 1
	for _, z := range []float64{1, 2, 5} {
		for e := 0; e < 12; e++ {
			c := z * math.Pow(10, float64(e))
			if most*c <= long*sizeInset*room && c > zoom {
				zoom = c
			}
		}
	}
	return long, short, zoom
}

// sizeParts draws in r, for each algorithm at the current size, its time
// and a bar of its latency and bandwidth shares: which regime it is in.
// The bars share one axis, 0 to the slowest's time, so their lengths are
// the times; a bar over sizeGapRatio times shorter than the slowest keeps
// its true length (a pixel at least) and is drawn again, zoomed, in a
// framed inset beside it, and a line under the bars says the ratio and
// the zoom.
func sizeParts(l *draw.List, th draw.Theme, sc, fs float32, w draw.Words, r draw.Rect, v SizeChartView) {
	title := sizeLabels.Get(sizeKey{w.Lang + "\x00parts", v.Current}, func() string {
		return w.Say("canvas.sizes.parts", "bytes", units.Bytes(v.Current))
	})
	t1, t2 := draw.Wrap2(title, fs, r.W)
	l.Label(r.X, r.Y, fs, draw.AlignLeft, th.Dim, t1)
	y := r.Y + fs*1.4
	if t2 != "" {
		l.Label(r.X, y-fs*0.1, fs, draw.AlignLeft, th.Dim, t2)
		y += fs * 1.3
	}
	y += draw.Legend(l, th, r.X, y, r.W, fs, sc, sizePartEntries(th, w)...)
	nameW := sizeNameW(w, v, fs)
	stacked := nameW > r.W*0.5 // the bar under its name
	bx, bw, rowH := r.X+nameW, r.W-nameW, fs*1.5
	if stacked {
		bx, bw, rowH = r.X, r.W, fs*2.6
	}
	// The inset's frame starts a little after the sliver it magnifies;
	// the zoom is chosen for the room left in the frame.
	ix := bx + bw/sizeGapRatio + fs*0.5
	iw := bw - (ix - bx) - fs*0.2
	long, short, zoom := sizeGap(v.Parts, float64(iw/bw))
	if !(long > 0) {
		return
	}
	var slow, fast string
	bottom := y
	for i, p := range v.Parts {
		tot := p.Latency + p.Bandwidth
		col := th.Dim
		for k, s := range v.Series {
			if s.Label == p.Label {
				col = draw.Palette[k%len(draw.Palette)]
			}
		}
		ry := y + float32(i)*rowH
		if ry+rowH > r.Y+r.H+fs*0.5 {
			break
		}
		bottom = ry + rowH
		l.Label(r.X, ry, fs, draw.AlignLeft, col, draw.Fit(sizePartLabel(w, p), fs, draw.Pick(stacked, r.W, nameW-fs*0.5)))
		if !(tot > 0) || math.IsInf(tot, 0) {
			continue
		}
		if tot == long && slow == "" {
			slow = p.Label
		}
		if tot == short && fast == "" {
			fast = p.Label
		}
		by := ry + fs*0.15
		if stacked {
			by = ry + fs*1.25
		}
		bh := fs * 0.9
		n := bw * float32(tot/long) // its true length on the slowest's axis
		sizeBar(l, bx, by, draw.Maxf(n, 1*sc), bh, p)
		if zoom > 0 && tot*sizeGapRatio < long {
			l.Frame(ix, by-fs*0.1, iw, bh+fs*0.2, 1*sc, th.Link)
			zl := n * float32(zoom)
			sizeBar(l, ix+fs*0.1, by, zl, bh, p)
			zt := sizeLabels.Get(sizeKey{w.Lang + "\x00zoom", zoom}, func() string { return units.Ratio(w.Lang, zoom) })
			if zw := draw.TextWidth(zt, fs); ix+fs*0.1+zl+fs*0.3+zw <= ix+iw-fs*0.2 {
				l.Label(ix+fs*0.1+zl+fs*0.3, by+bh/2-fs*draw.LineHeight/2, fs, draw.AlignLeft, th.Dim, zt)
			}
		}
	}
	if zoom > 0 && slow != "" && fast != "" {
		msg := sizeLabels.Get(sizeKey{w.Lang + "\x00gap\x00" + slow + "\x00" + fast + "\x00" + strconv.FormatFloat(long/short, 'g', -1, 64), zoom}, func() string {
			return w.Say("canvas.sizes.gap", "slow", slow, "fast", fast, "ratio", units.Ratio(w.Lang, long/short), "zoom", units.Ratio(w.Lang, zoom))
		})
		l.Label(r.X, bottom+fs*0.2, fs, draw.AlignLeft, th.Hot, draw.Fit(msg, fs, r.W))
	}
}

// sizeBar draws a part's bar of width bw at (x, y): its latency share,
// then its bandwidth share.
func sizeBar(l *draw.List, x, y, bw, h float32, p SizePart) {
	lw := bw * float32(p.Latency/(p.Latency+p.Bandwidth))
	l.Rect(x, y, lw, h, draw.Palette[3])
	l.Rect(x+lw, y, bw-lw, h, draw.Palette[4])
}

// sizePartLabel is a part's row label: the series and its time.
func sizePartLabel(w draw.Words, p SizePart) string {
	tot := p.Latency + p.Bandwidth
	return sizeLabels.Get(sizeKey{w.Lang + "\x00" + p.Label, tot}, func() string { return p.Label + " · " + units.Duration(tot) })
}

// sizeNameW is the parts' label column.
func sizeNameW(w draw.Words, v SizeChartView, fs float32) float32 {
	var nw float32
	for _, p := range v.Parts {
		nw = draw.Maxf(nw, draw.TextWidth(sizePartLabel(w, p), fs))
	}
	return nw + fs
}

// sizeRowH is a part's row in width: one line, or two with the bar under
// its name when the names take more than half the width.
func sizeRowH(w draw.Words, v SizeChartView, fs, width float32) float32 {
	if sizeNameW(w, v, fs) > width*0.5 {
		return fs * 2.6
	}
	return fs * 1.5
}

type sizeKey struct {
	lang string
	v    float64
}

var sizeLabels draw.Memo[sizeKey]

// sizeValid reports whether point k of s can sit on log-log axes.
func sizeValid(s *SizeSeries, k int) bool {
	if k >= len(s.Bytes) || k >= len(s.Values) {
		return false
	}
	b, y := s.Bytes[k], s.Values[k]
	return b > 0 && y > 0 && !math.IsInf(b, 0) && !math.IsInf(y, 0)
}

// sizeCurve draws a series' valid points as a polyline, x ascending (a
// point not to the right of the last one drawn is skipped); a single
// point is a dot.
func sizeCurve(l *draw.List, s *SizeSeries, at func(float64, float64) (float32, float32), w float32, col draw.Color) {
	var lx, ly float32
	drawn := 0
	for k := range min(len(s.Bytes), len(s.Values)) {
		if !sizeValid(s, k) {
			continue
		}
		x, y := at(math.Log10(s.Bytes[k]), math.Log10(s.Values[k]))
		if drawn > 0 && x <= lx {
			continue
		}
		if drawn > 0 {
			l.Segment(lx, ly, x, y, w, col)
		}
		lx, ly = x, y
		drawn++
	}
	if drawn == 1 {
		l.Circle(lx, ly, w*1.5, col)
	}
}

// sizeLogAt is log10 of s's value at log10 size lx, linear between
// neighbouring points on the log-log axes; false outside the series.
func sizeLogAt(s *SizeSeries, lx float64) (float64, bool) {
	var pb, pv float64
	has := false
	for k := range min(len(s.Bytes), len(s.Values)) {
		if !sizeValid(s, k) {
			continue
		}
		b, y := math.Log10(s.Bytes[k]), math.Log10(s.Values[k])
		switch {
		case b == lx:
			return y, true
		case b > lx:
			if !has || b <= pb {
				return 0, false
			}
			return pv + (y-pv)*(lx-pb)/(b-pb), true
		}
		pb, pv, has = b, y, true
	}
	return 0, false
}

// sizeCursor walks a series' valid points on log-log axes.
type sizeCursor struct {
	s      *SizeSeries
	k      int     // the next valid point not yet passed, or past the end
	pb, pv float64 // the last point passed
	has    bool
}

func (c *sizeCursor) skip() {
	for c.k < len(c.s.Bytes) && c.k < len(c.s.Values) && !sizeValid(c.s, c.k) {
		c.k++
	}
}

// next is log10 of the next point's size, +Inf past the end.
func (c *sizeCursor) next() float64 {
	if c.k >= len(c.s.Bytes) || c.k >= len(c.s.Values) {
		return math.Inf(1)
	}
	return math.Log10(c.s.Bytes[c.k])
}

func (c *sizeCursor) advance() {
	c.pb, c.pv, c.has = math.Log10(c.s.Bytes[c.k]), math.Log10(c.s.Values[c.k]), true
	c.k++
	c.skip()
}

// at is log10 of the value at lx, which must not be left of the last
// point passed: false outside the series.
func (c *sizeCursor) at(lx float64) (float64, bool) {
	if !c.has || lx < c.pb {
		return 0, false
	}
	if lx == c.pb {
		return c.pv, true
	}
	nb := c.next()
	if math.IsInf(nb, 1) || nb <= c.pb {
		return 0, false
	}
	nv := math.Log10(c.s.Values[c.k])
	return c.pv + (nv-c.pv)*(lx-c.pb)/(nb-c.pb), true
}

// sizeCrossings calls cross with the point (log10 size, log10 value) of
// each place where the curves of a and b (straight between points on the
// log-log axes) change order. Touching without passing is no crossing.
func sizeCrossings(a, b *SizeSeries, cross func(lx, ly float64)) {
	ca, cb := sizeCursor{s: a}, sizeCursor{s: b}
	ca.skip()
	cb.skip()
	var lastD, lastX, lastY float64
	lastSign := 0
	zero, zx, zy := false, 0.0, 0.0
	for {
		xa, xb := ca.next(), cb.next()
		x := math.Min(xa, xb)
		if math.IsInf(x, 1) {
			return
		}
		if xa == x {
			ca.advance()
		}
		if xb == x {
			cb.advance()
		}
		ya, oka := ca.at(x)
		yb, okb := cb.at(x)
		if !oka || !okb {
			continue
		}
		d := ya - yb
		sign := 0
		if d > 0 {
			sign = 1
		} else if d < 0 {
			sign = -1
		}
		if sign == 0 {
			if lastSign != 0 && !zero {
				zero, zx, zy = true, x, ya
			}
			continue
		}
		if lastSign != 0 && sign != lastSign {
			if zero {
				cross(zx, zy)
			} else {
				f := lastD / (lastD - d)
				cross(lastX+f*(x-lastX), lastY+f*(ya-lastY))
			}
		}
		zero = false
		lastSign, lastD, lastX, lastY = sign, d, x, ya
	}
}

// sizeDecade labels a decade of a plain axis: "0.001" … "100", "1k",
// "10k", "1M", … and "1e-4" below.
func sizeDecade(e int) string {
	switch {
	case e < -3:
		return "1e" + strconv.Itoa(e)
	case e < 0:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', -e, 64)
	case e < 3:
		return strconv.Itoa(int(math.Pow(10, float64(e))))
	}
	prefixes := [...]string{"k", "M", "G", "T", "P", "E"}
	p := min((e-3)/3, len(prefixes)-1)
	return strconv.FormatFloat(math.Pow(10, float64(e-3-3*p)), 'f', 0, 64) + prefixes[p]
}
