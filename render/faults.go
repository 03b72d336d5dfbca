package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
)

// fltThin is the number of checkpoints above which their ticks are
// thinned to one a pixel column.
const fltThin = 300

// fltTicks are the checkpoint-interval axis's labelled values.
var fltTicks = [...]struct {
	s     float64
	label string
}{
	{1, "1 s"}, {10, "10 s"}, {60, "1 min"}, {600, "10 min"},
	{3600, "1 h"}, {36000, "10 h"}, {360000, "100 h"},
}

// AppendFaults draws a job's days. On top (about 60% of the stage), the
// kept progress against wall time: the sawtooth of v.Progress under a
// faint "no failures" diagonal (progress = wall time), the failures as
// Hot ticks above the plot and the checkpoints as small ticks under its
// axis (one a pixel column at most when there are more than fltThin);
// with a playhead (Time ≥ 0) only what happened before it. Below (about
// 35%), the goodput against the checkpoint interval on a log axis, the
// job's interval marked with the goodput read off the curve, and the
// optimum (Young/Daly) marked "optimal".
func AppendFaults(dst List, v FaultsView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	span := v.Days * 86400
	if !(span > 0) || math.IsInf(span, 0) {
		span = 0
		for _, p := range v.Progress {
			span = math.Max(span, p.Wall)
		}
		for _, e := range v.Events {
			span = math.Max(span, e.At)
		}
		if !(span > 0) || math.IsInf(span, 0) {
			span = 86400
		}
	}
	fltProgress(&l, th, sc, fs, Rect{st.X, st.Y, st.W, st.H * 0.6}, v, span)
	fltGoodput(&l, th, sc, fs, Rect{st.X, st.Y + st.H*0.65, st.W, st.H * 0.35}, v)
	return l
}

// fltProgress draws the kept progress against wall time over span
// seconds in r.
func fltProgress(l *List, th Theme, sc, fs float32, r Rect, v FaultsView, span float64) {
	px, py := r.X+fs*4, r.Y+fs*2.4
	pw, ph := r.W-fs*5.5, r.H-fs*5.2
	if pw <= 0 || ph <= 0 {
		return
	}
	playing := v.Time >= 0
	limit := span
	if playing {
		limit = math.Min(v.Time, span)
	}
	xAt := func(wall float64) float32 { return px + pw*float32(wall/span) }
	yAt := func(kept float64) float32 { return py + ph*(1-float32(kept/span)) }

	// Grid: wall time in days; kept progress in days, or hours for a
	// short job.
	days := span / 86400
	step := niceStep(days / 6)
	for k := 0; float64(k)*step <= days*1.0001 && k < 100; k++ {
		x := xAt(float64(k) * step * 86400)
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		l.Label(x, py+ph+fs*0.6, fs*0.85, AlignCenter, th.Dim, fltTrim(strconv.FormatFloat(float64(k)*step, 'f', decimals(step), 64)))
	}
	unit, title := 86400.0, "kept progress, days"
	if days < 2 {
		unit, title = 3600, "kept progress, hours"
	}
	ystep := niceStep(span / unit / 4)
	for k := 0; float64(k)*ystep*unit <= span*1.0001 && k < 100; k++ {
		y := yAt(float64(k) * ystep * unit)
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		l.Label(px-fs*0.4, y-fs*0.5, fs*0.85, AlignRight, th.Dim, fltTrim(strconv.FormatFloat(float64(k)*ystep, 'f', decimals(ystep), 64)))
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	l.Label(px+fs*0.4, py+fs*0.3, fs*0.9, AlignLeft, th.Dim, title)
	l.Label(px+pw, py+ph+fs*1.6, fs*0.85, AlignRight, th.Dim, "days")

	// The legend, top right: what the ticks are (swatches as rects, so
	// that the ticks are the only lines in their colours).
	ck := th.Dim
	ck.A = 150
	lfs := fs * 0.85
	gx := px + pw - textWidth("checkpoints", lfs)
	l.Rect(gx-lfs*0.6, r.Y+fs*0.2+lfs*0.1, 1.5*sc, lfs*0.8, ck)
	l.Label(gx, r.Y+fs*0.2, lfs, AlignLeft, th.Dim, "checkpoints")
	gx -= lfs*2 + textWidth("failures", lfs)
	l.Rect(gx-lfs*0.6, r.Y+fs*0.2+lfs*0.1, 2*sc, lfs*0.8, th.Hot)
	l.Label(gx, r.Y+fs*0.2, lfs, AlignLeft, th.Dim, "failures")

	// The reference: progress = wall time.
	l.Segment(xAt(0), yAt(0), xAt(span), yAt(span), 1*sc, th.Link)
	l.Label(xAt(span*0.85)-fs*0.4, yAt(span*0.85)-fs*1.4, fs*0.85, AlignRight, th.Dim, "no failures")

	// The sawtooth, up to the playhead (or the end of the span); kept
	// progress is never more than the wall time nor less than zero.
	var lx, ly float32
	var lw, lk float64
	has := false
	for _, p := range v.Progress {
		w := p.Wall
		if !(w >= 0) {
			continue
		}
		k := math.Min(math.Max(p.Kept, 0), w)
		end := false
		if w > limit {
			if !has || lw >= limit {
				break
			}
			f := (limit - lw) / (w - lw)
			w, k = limit, lk+f*(k-lk)
			end = true
		}
		x, y := xAt(w), yAt(k)
		if has && (x != lx || y != ly) {
			l.Segment(lx, ly, x, y, 2*sc, th.LinkActive)
		}
		lx, ly, lw, lk, has = x, y, w, k, true
		if end {
			break
		}
	}
	if playing && has {
		l.Circle(lx, ly, 3.5*sc, th.LinkActive)
	}

	// Events before the playhead: failures above the plot, checkpoints
	// under the axis, thinned to one a pixel column when dense.
	before := func(at float64) bool { return at >= 0 && at <= span && (!playing || at < v.Time) }
	ckpts := 0
	for _, e := range v.Events {
		switch {
		case e.Kind == FaultFailure && before(e.At):
			x := xAt(e.At)
			l.Segment(x, py-fs*0.9, x, py-fs*0.1, 1.5*sc, th.Hot)
		case e.Kind == FaultCheckpoint && before(e.At):
			ckpts++
		}
	}
	var cols [256]uint64 // pixel columns with a tick, when thinning
	last := -1
	for _, e := range v.Events {
		if e.Kind != FaultCheckpoint || !before(e.At) {
			continue
		}
		x := xAt(e.At)
		if ckpts > fltThin {
			c := int(x - px)
			if c < len(cols)*64 {
				if cols[c>>6]&(1<<(c&63)) != 0 {
					continue
				}
				cols[c>>6] |= 1 << (c & 63)
			} else if c == last {
				continue
			}
			last = c
		}
		l.Segment(x, py+ph+1*sc, x, py+ph+fs*0.45, 1*sc, ck)
	}

	if playing && v.Time <= span {
		x := xAt(v.Time)
		l.Segment(x, py-fs*0.9, x, py+ph, 1*sc, th.Text)
	}
}

// fltGoodput draws the goodput against the checkpoint interval in r.
func fltGoodput(l *List, th Theme, sc, fs float32, r Rect, v FaultsView) {
	px, py := r.X+fs*4, r.Y+fs*1.4
	pw, ph := r.W-fs*5.5, r.H-fs*4
	if pw <= 0 || ph <= 0 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range v.Sweep {
		if fltValid(g.Interval) {
			lo, hi = math.Min(lo, g.Interval), math.Max(hi, g.Interval)
		}
	}
	for _, s := range [2]float64{v.Chosen, v.Optimum} {
		if fltValid(s) {
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	if !(lo <= hi) {
		lo, hi = 60, 36000
	}
	llo, lhi := math.Log10(lo), math.Log10(hi)
	if lhi-llo < 1e-9 {
		llo, lhi = llo-0.5, lhi+0.5
	}
	xAt := func(s float64) float32 { return px + pw*float32((math.Log10(s)-llo)/(lhi-llo)) }
	yAt := func(g float64) float32 { return py + ph*(1-float32(math.Min(math.Max(g, 0), 1))) }

	for k := 0; k <= 4; k++ {
		y := yAt(float64(k) / 4)
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		if k%2 == 0 {
			l.Label(px-fs*0.4, y-fs*0.5, fs*0.85, AlignRight, th.Dim, [3]string{"0%", "50%", "100%"}[k/2])
		}
	}
	for _, t := range fltTicks {
		if lt := math.Log10(t.s); lt < llo-1e-9 || lt > lhi+1e-9 {
			continue
		}
		x := xAt(t.s)
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		l.Label(x, py+ph+fs*0.3, fs*0.85, AlignCenter, th.Dim, t.label)
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	l.Label(px-fs*0.4, py-fs*1.4, fs*0.9, AlignLeft, th.Dim, "goodput")
	l.Label(px+pw, py+ph+fs*1.4, fs*0.85, AlignRight, th.Dim, "checkpoint interval")

	// The curve, intervals ascending.
	var lx, ly float32
	var last float64
	has := false
	for _, g := range v.Sweep {
		if !fltValid(g.Interval) || (has && g.Interval <= last) {
			continue
		}
		x, y := xAt(g.Interval), yAt(g.Goodput)
		if has {
			l.Segment(lx, ly, x, y, 2*sc, th.LinkActive)
		}
		lx, ly, last, has = x, y, g.Interval, true
	}

	// The optimum, then the job's interval with its goodput; the job's
	// label on the side away from the optimum.
	if fltValid(v.Optimum) {
		x, y := xAt(v.Optimum), py
		if g, ok := fltGoodputAt(v.Sweep, v.Optimum); ok {
			y = yAt(g)
			l.Segment(x, y, x, py+ph, 1*sc, th.Rim)
			l.Circle(x, y, 5*sc, th.Rim)
		} else {
			l.Segment(x, py, x, py+ph, 1*sc, th.Rim)
		}
		l.Label(x, y-fs*1.6, fs*0.85, AlignCenter, th.Rim, "optimal")
	}
	if fltValid(v.Chosen) {
		x := xAt(v.Chosen)
		g, ok := fltGoodputAt(v.Sweep, v.Chosen)
		if !ok {
			l.Segment(x, py, x, py+ph, 1*sc, th.Text)
			return
		}
		y := yAt(g)
		l.Segment(x, y, x, py+ph, 1*sc, th.Dim)
		l.Circle(x, y, 5*sc, th.Text)
		s := units.Duration(v.Chosen) + " · " + units.Percent(math.Min(math.Max(g, 0), 1))
		if fltValid(v.Optimum) && v.Chosen < v.Optimum {
			l.Label(x-fs*0.5, y-fs*1.6, fs*0.85, AlignRight, th.Text, s)
		} else {
			l.Label(x+fs*0.5, y-fs*1.6, fs*0.85, AlignLeft, th.Text, s)
		}
	}
}

// fltTrim drops a number's trailing zeros after the point: "0.50" is
// "0.5", "1.0" is "1".
func fltTrim(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

func fltValid(s float64) bool { return s > 0 && !math.IsInf(s, 0) }

// fltGoodputAt reads the goodput at interval s off the sweep: linear
// between neighbouring points on the log axis, the end values beyond
// them; false without points.
func fltGoodputAt(sweep []GoodputPoint, s float64) (float64, bool) {
	ls := math.Log10(s)
	var pl, pg float64
	has := false
	for _, g := range sweep {
		if !fltValid(g.Interval) {
			continue
		}
		li := math.Log10(g.Interval)
		if has && li <= pl {
			continue
		}
		if li >= ls {
			if !has || li == ls {
				return g.Goodput, true
			}
			return pg + (g.Goodput-pg)*(ls-pl)/(li-pl), true
		}
		pl, pg, has = li, g.Goodput, true
	}
	return pg, has
}
