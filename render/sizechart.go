package render

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// sizePalette colours series (and race lanes) in order: the Okabe–Ito
// colours that read on both themes, its vermilion and yellow left out
// (too close to Hot, too faint on Light).
var sizePalette = [...]Color{
	{0x56, 0xb4, 0xe9, 255}, // sky blue
	{0xe6, 0x9f, 0x00, 255}, // orange
	{0x00, 0x9e, 0x73, 255}, // bluish green
	{0xcc, 0x79, 0xa7, 255}, // reddish purple
	{0x00, 0x72, 0xb2, 255}, // blue
}

// AppendSizeChart draws each series against message size on log-log axes
// (a line a decade, sizes labelled "1 kB", "1 MB", "1 GB"), a legend, a
// marker and the size where one curve crosses another between samples,
// and the current size as a vertical line with a dot on each curve; the
// Highlight series is drawn thicker, over the others. Points that a log
// axis cannot show (zero, negative, not finite) are skipped.
func AppendSizeChart(dst List, v SizeChartView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	px, py := st.X+fs*5, st.Y+fs*3.2
	pw, ph := st.W-fs*6.5, st.H-fs*6
	if pw <= 0 || ph <= 0 {
		return l
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
	xlo, xhi := sizeDecades(xmin, xmax, 0, 9)
	ylo, yhi := sizeDecades(ymin, ymax, 0, 1)
	at := func(lx, ly float64) (float32, float32) {
		fx := (lx - float64(xlo)) / float64(xhi-xlo)
		fy := (ly - float64(ylo)) / float64(yhi-ylo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}

	// Grid and labels: a line per decade, labels where they fit.
	xevery := labelEvery(textWidth("100 KB", fs*0.9), pw/float32(xhi-xlo))
	for e := xlo; e <= xhi; e++ {
		x, _ := at(float64(e), float64(ylo))
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		if (e-xlo)%xevery == 0 {
			l.Label(x, py+ph+fs*0.3, fs*0.9, AlignCenter, th.Dim, sizeDecadeBytes(e))
		}
	}
	yevery := labelEvery(fs*1.1, ph/float32(yhi-ylo))
	timeAxis := v.YLabel == "s"
	for e := ylo; e <= yhi; e++ {
		_, y := at(float64(xlo), float64(e))
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		if (e-ylo)%yevery == 0 {
			s := sizeDecade(e)
			if timeAxis {
				s = sizeDecadeTime(e)
			}
			l.Label(px-fs*0.4, y-fs*0.5, fs*0.9, AlignRight, th.Dim, s)
		}
	}
	l.Frame(px, py, pw, ph, 1*sc, th.Dim)
	l.Label(px+pw, py+ph+fs*1.5, fs*0.9, AlignRight, th.Dim, "message size")
	if v.YLabel != "" {
		l.Label(px-fs*0.4, py-fs*1.6, fs*0.9, AlignLeft, th.Dim, v.YLabel)
	}

	// The legend, right-aligned above the plot; the highlighted series'
	// name in the text colour.
	lfs := fs * 0.9
	lw := float32(0)
	for _, s := range v.Series {
		lw += lfs*2.6 + textWidth(s.Label, lfs)
	}
	lx := px + pw - lw + lfs
	for i, s := range v.Series {
		col := sizePalette[i%len(sizePalette)]
		tc := th.Dim
		w := 2 * sc
		if s.Label == v.Highlight && v.Highlight != "" {
			tc, w = th.Text, 4*sc
		}
		l.Segment(lx, st.Y+fs*0.5+lfs*0.55, lx+lfs*1.2, st.Y+fs*0.5+lfs*0.55, w, col)
		l.Label(lx+lfs*1.6, st.Y+fs*0.5, lfs, AlignLeft, tc, s.Label)
		lx += lfs*2.6 + textWidth(s.Label, lfs)
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
			sizeCurve(&l, &v.Series[i], at, 2*sc, sizePalette[i%len(sizePalette)])
		}
	}
	if hi >= 0 {
		sizeCurve(&l, &v.Series[hi], at, 4*sc, sizePalette[hi%len(sizePalette)])
	}

	// Crossovers: where the order of two curves flips.
	for i := range v.Series {
		for j := i + 1; j < len(v.Series); j++ {
			sizeCrossings(&v.Series[i], &v.Series[j], func(lx, ly float64) {
				x, y := at(lx, ly)
				l.Circle(x, y, 5*sc, th.Text)
				l.Label(x, y-fs*1.7, fs*0.9, AlignCenter, th.Text, "crossover "+units.Bytes(math.Pow(10, lx)))
			})
		}
	}

	// The current size: a line, its size, a dot on each curve.
	if v.Current > 0 && !math.IsInf(v.Current, 0) {
		lc := math.Log10(v.Current)
		cx, _ := at(lc, float64(ylo))
		l.Segment(cx, py, cx, py+ph, 1.5*sc, th.Dim)
		l.Label(cx, py-fs*1.3, fs*0.9, AlignCenter, th.Text, units.Bytes(v.Current))
		for i := range v.Series {
			if ly, ok := sizeLogAt(&v.Series[i], lc); ok {
				_, y := at(lc, ly)
				l.Circle(cx, y, 4*sc, sizePalette[i%len(sizePalette)])
			}
		}
	}
	return l
}

// sizeValid reports whether point k of s can sit on log-log axes.
func sizeValid(s *SizeSeries, k int) bool {
	if k >= len(s.Bytes) || k >= len(s.Values) {
		return false
	}
	b, y := s.Bytes[k], s.Values[k]
	return b > 0 && y > 0 && !math.IsInf(b, 0) && !math.IsInf(y, 0)
}

// sizeDecades is the whole decades around lo…hi (values), at least one
// apart; without values, dlo…dhi.
func sizeDecades(lo, hi float64, dlo, dhi int) (int, int) {
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return dlo, dhi
	}
	a := int(math.Floor(math.Log10(lo) + 1e-9))
	b := int(math.Ceil(math.Log10(hi) - 1e-9))
	if b <= a {
		b = a + 1
	}
	return a, b
}

// sizeCurve draws a series' valid points as a polyline, x ascending (a
// point not to the right of the last one drawn is skipped); a single
// point is a dot.
func sizeCurve(l *List, s *SizeSeries, at func(float64, float64) (float32, float32), w float32, col Color) {
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

// Decade labels, made once: bytes 1 B … 100 EB, times 1 ps … 1000 s.
var (
	sizeBytesDecades = func() (t [21]string) {
		for e := range t {
			t[e] = units.Bytes(math.Pow(10, float64(e)))
		}
		return t
	}()
	sizeTimeDecades = func() (t [16]string) {
		for i := range t {
			t[i] = units.Duration(math.Pow(10, float64(i-12)))
		}
		return t
	}()
)

// sizeDecadeBytes labels the decade 10^e bytes: "1 kB", "10 MB".
func sizeDecadeBytes(e int) string {
	if e >= 0 && e < len(sizeBytesDecades) {
		return sizeBytesDecades[e]
	}
	return units.Bytes(math.Pow(10, float64(e)))
}

// sizeDecadeTime labels the decade 10^e seconds: "10 µs", "1 ms".
func sizeDecadeTime(e int) string {
	if i := e + 12; i >= 0 && i < len(sizeTimeDecades) {
		return sizeTimeDecades[i]
	}
	return units.Duration(math.Pow(10, float64(e)))
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
