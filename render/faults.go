package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"sort"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// fltThin is the number of events above which their strikes are thinned
// to one a pixel column.
const fltThin = 300

// fltTicks are the checkpoint-interval axis's labelled values, seconds.
var fltTicks = [...]float64{60, 600, 3600, 36000, 86400}

// AppendFaults draws a job's days (FaultsView): the header with the job
// and the day on the clock, the failures and the share kept so far; a
// legend; the whole job; the magnified window (or, with GoodputMain, the
// goodput chart in its place); the goodput chart.
func AppendFaults(dst draw.List, v FaultsView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := draw.Clamp(draw.Minf(st.W, st.H)/40, 14*sc, 20*sc)
	pad := fs * 0.8
	span := v.Days * 86400
	if !(span > 0) || math.IsInf(span, 0) {
		span = 0
		for _, p := range v.Progress {
			span = math.Max(span, p.Wall)
		}
		if !(span > 0) || math.IsInf(span, 0) {
			span = 86400
		}
	}
	t := span
	if v.Time >= 0 {
		t = math.Min(v.Time, span)
	}
	now := fltAt(v.Progress, t)
	w := v.Words

	// Header: the job and the clock; the failures so far and the share of
	// the time kept.
	clock := fltLabels.Get(fltKey{w.Lang, 'c', math.Floor(t/8640) / 10, v.Days}, func() string {
		return w.Say("canvas.faults.clock", "day", fltTrim(strconv.FormatFloat(math.Floor(t/8640)/10, 'f', 1, 64)), "days", fltTrim(strconv.FormatFloat(v.Days, 'f', 1, 64)))
	})
	cw := draw.TextWidth(clock, fs)
	y := st.Y + pad
	t1, t2 := draw.Wrap2(v.Title, fs, st.W-2*pad)
	l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, t1)
	if t2 != "" {
		y += fs * 1.3
		l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, t2)
	}
	y += fs * 1.45
	cache := v.Cache
	if cache == nil {
		cache = new(FaultsCache)
	}
	cache.follow(v.Events)
	failures := cache.failuresBy(t, v.Time)
	kept := 0.0
	if t > 0 {
		kept = math.Min(1, now.Kept/t)
	}
	head := fltLabels.Get(fltKey{w.Lang, 'h', float64(failures)*4 + draw.Pick(v.Pending, 1.0, 0) + draw.Pick(t <= 0, 2.0, 0), math.Round(kept * 1000)}, func() string {
		switch {
		case t <= 0:
			return w.Say("canvas.faults.start")
		case v.Pending:
			return w.Say("canvas.faults.kept", "kept", units.Percent(kept))
		}
		return w.Say("canvas.faults.headline", "failures", units.Count(int64(failures)), "kept", units.Percent(kept))
	})
	h1, h2 := draw.Wrap2(head, fs, st.W-3*pad-cw)
	l.Label(st.X+st.W-pad, y, fs, draw.AlignRight, th.Text, clock)
	l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, h1)
	if h2 != "" {
		y += fs * 1.3
		l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, h2)
	}
	y += fs * 1.45

	// The legend: what the colours of the bar and the sawtooth mean.
	lfs := fs
	entries := [...]draw.LegendEntry{
		{Color: th.LinkActive, Label: w.Say("canvas.faults.key_progress")},
		{Color: th.Hot, Label: w.Say("canvas.faults.key_lost")},
		{Color: th.Dim, Hatch: true, Label: w.Say("canvas.faults.key_restart")},
		{Color: th.Rim, Label: w.Say("canvas.faults.key_checkpoint")},
	}
	ly := y
	lh := draw.Legend(&l, th, st.X+pad, ly, st.W-2*pad, lfs, sc, entries[:]...)
	top := ly + lh + fs*0.4
	bottom := st.Y + st.H - pad
	avail := bottom - top
	if avail <= fs*6 {
		return l
	}

	// Panels: the whole job; the magnified window; the goodput chart —
	// on a short stage the step's main act (the window, or the goodput
	// with GoodputMain) before the others.
	var job, zoom, good draw.Rect
	gap := fs * 0.6
	jobH := draw.Clamp(avail*0.22, fs*5.4, fs*7)
	minPanel := fs * 9
	// The window: no narrower a tooth than 9 px.
	zw := faultZoom(span, v.Chosen, v.MTBF, v.Events, int(draw.Clamp((st.W-2*pad)/(9*sc), 12, 72)))
	hasZoom := !v.GoodputMain && zw[1] > zw[0]
	hasJob := avail >= jobH+gap+minPanel
	hasGood := v.GoodputMain || !hasZoom || avail >= jobH+2*gap+2*minPanel
	y = top
	if hasJob {
		job = draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: jobH}
		y += jobH + gap
	}
	rest := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: bottom - y}
	switch {
	case hasZoom && hasGood:
		zoom = draw.Rect{X: rest.X, Y: rest.Y, W: rest.W, H: rest.H * 0.56}
		good = draw.Rect{X: rest.X, Y: rest.Y + zoom.H + gap, W: rest.W, H: rest.H - zoom.H - gap}
	case hasZoom:
		zoom = rest
	default:
		good = rest
	}
	if hasJob {
		fltJob(&l, th, sc, fs, w, job, zoom, zw, v, span, t, now, cache)
	}
	if zoom.H > 0 {
		fltZoom(&l, th, sc, fs, w, zoom, zw, v, t)
	}
	if good.H > 0 {
		fltGoodput(&l, th, sc, fs, w, good, v)
	}
	return l
}

// fltJob draws the whole job in r: a bar of the wall time so far stacked
// by what it became, the failures struck over it, the day axis, the
// magnified window bracketed with lines down to zoom's corners.
func fltJob(l *draw.List, th draw.Theme, sc, fs float32, w draw.Words, r, zoom draw.Rect, zw [2]float64, v FaultsView, span, t float64, now ProgressPoint, cache *FaultsCache) {
	title := fltLabels.Get(fltKey{w.Lang, 'j', v.Days, 0}, func() string {
		return w.Say("canvas.faults.job", "days", units.LocalDuration(w.Lang, span))
	})
	l.Label(r.X, r.Y, fs, draw.AlignLeft, th.Dim, draw.Fit(title, fs, r.W))
	stripY := r.Y + fs*1.45 // the failures' strikes
	stripH := fs * 0.7
	barY := stripY + stripH + fs*0.15
	barH := draw.Maxf(fs*1.1, r.H-(barY-r.Y)-fs*1.5)
	axisY := barY + barH
	at := func(s float64) float32 { return r.X + r.W*float32(math.Min(math.Max(s/span, 0), 1)) }

	// The bar: what the wall time so far became, on the whole job's axis.
	l.Rect(r.X, barY, r.W, barH, th.Panel)
	x := r.X
	for _, part := range [...]struct {
		s     float64
		c     draw.Color
		hatch bool
	}{{now.Kept, th.LinkActive, false}, {now.Lost, th.Hot, false}, {now.Restart, th.Dim, true}, {now.Ckpt, th.Rim, false}} {
		pw := r.W * float32(math.Max(part.s, 0)/span)
		if pw <= 0 {
			continue
		}
		if part.hatch {
			draw.Hatch(l, x, barY, pw, barH, draw.Maxf(4*sc, barH/4), 1*sc, part.c)
		} else {
			l.Rect(x, barY, pw, barH, part.c)
		}
		x += pw
	}
	l.Frame(r.X, barY, r.W, barH, 1*sc, th.Link)
	// Days under the bar.
	days := span / 86400
	step := draw.NiceStep(days / 6)
	unit := w.Say("canvas.faults.days")
	unitX := r.X + r.W - draw.TextWidth(unit, fs)
	l.Label(r.X+r.W, axisY+fs*0.3, fs, draw.AlignRight, th.Dim, unit)
	for k := 0; float64(k)*step <= days*1.0001 && k < 100; k++ {
		tx := at(float64(k) * step * 86400)
		l.Segment(tx, axisY, tx, axisY+fs*0.3, 1*sc, th.Dim)
		label := fltLabels.Get(fltKey{"", 'd', float64(k) * step, 0}, func() string {
			return fltTrim(strconv.FormatFloat(float64(k)*step, 'f', draw.Decimals(step), 64))
		})
		al, right := draw.AlignCenter, tx+draw.TextWidth(label, fs)/2
		if k == 0 {
			al, right = draw.AlignLeft, tx+draw.TextWidth(label, fs)
		}
		if right < unitX-fs*0.4 {
			l.Label(tx, axisY+fs*0.3, fs, al, th.Dim, label)
		}
	}

	// Failures so far, struck over the bar (one a pixel column when
	// dense); none while the question waits.
	if !v.Pending {
		for _, k := range cache.strikesOn(v.Events, r.X, r.W, span) {
			if k.at > t || (v.Time >= 0 && k.at >= v.Time) {
				continue
			}
			l.Segment(k.x, stripY, k.x, stripY+stripH, 1.5*sc, th.Hot)
		}
	}
	// The playhead, and the magnified window with its magnifier lines.
	if v.Time >= 0 && v.Time < span {
		px := at(v.Time)
		l.Segment(px, stripY, px, axisY, 1.5*sc, th.Text)
	}
	if zoom.H > 0 && zw[1] > zw[0] {
		zx0, zx1 := at(zw[0]), at(zw[1])
		if zx1-zx0 < 3*sc {
			zx1 = zx0 + 3*sc
		}
		l.Frame(zx0, barY-2*sc, zx1-zx0, barH+4*sc, 2*sc, th.Text)
		l.Segment(zx0, axisY+2*sc, zoom.X, zoom.Y, 1*sc, th.Dim)
		l.Segment(zx1, axisY+2*sc, zoom.X+zoom.W, zoom.Y, 1*sc, th.Dim)
	}
}

// fltZoom draws the magnified window in r: the work not yet in a
// checkpoint against the wall time, up to the playhead.
func fltZoom(l *draw.List, th draw.Theme, sc, fs float32, w draw.Words, r draw.Rect, zw [2]float64, v FaultsView, t float64) {
	from, to := zw[0], zw[1]
	title := fltLabels.Get(fltKey{w.Lang, 'z', from, to}, func() string {
		return w.Say("canvas.faults.zoom", "span", units.LocalDuration(w.Lang, to-from), "day", strconv.Itoa(int(from/86400)+1))
	})
	l.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	l.Frame(r.X, r.Y, r.W, r.H, 1*sc, th.Link)
	l.Label(r.X+fs*0.5, r.Y+fs*0.3, fs, draw.AlignLeft, th.Text, draw.Fit(title, fs, r.W-fs))
	ymax := v.Chosen
	yl := fltLabels.Get(fltKey{w.Lang, 'y', ymax, 0}, func() string { return units.LocalDuration(w.Lang, ymax) })
	px := r.X + draw.TextWidth(yl, fs) + fs*0.9
	py := r.Y + fs*2.2
	pw := r.X + r.W - fs*0.7 - px
	ph := r.Y + r.H - fs*2.9 - py
	if pw <= 0 || ph <= 0 || !(ymax > 0) {
		return
	}
	xAt := func(s float64) float32 { return px + pw*float32((s-from)/(to-from)) }
	yAt := func(u float64) float32 { return py + ph*(1-float32(math.Min(math.Max(u/ymax, 0), 1))) }
	base := py + ph
	l.Segment(px, base, px+pw, base, 1*sc, th.Dim)
	l.Segment(px, py, px, base, 1*sc, th.Dim)
	l.Label(px-fs*0.4, py-fs*0.6, fs, draw.AlignRight, th.Dim, yl)
	if ph > fs*1.4 {
		l.Label(px-fs*0.4, base-fs*0.6, fs, draw.AlignRight, th.Dim, "0")
	}
	// Hours since the job began, under the axis.
	hours := (to - from) / 3600
	step := draw.NiceStep(hours / 6)
	first := math.Ceil(from/3600/step) * step
	for h := first; h*3600 <= to+1e-6; h += step {
		x := xAt(h * 3600)
		l.Segment(x, base, x, base+fs*0.3, 1*sc, th.Dim)
		label := fltLabels.Get(fltKey{"", 'H', h, 0}, func() string { return fltTrim(strconv.FormatFloat(h, 'f', draw.Decimals(step), 64)) })
		l.Label(x, base+fs*0.3, fs, draw.AlignCenter, th.Dim, label)
	}
	xl := w.Say("canvas.faults.zoom_x")
	l.Label(px+pw, base+fs*1.5, fs, draw.AlignRight, th.Dim, draw.Fit(xl, fs, pw))

	// The sawtooth, segment by segment, clipped to the window and the
	// playhead.
	pts := v.Progress
	limit := to
	if v.Time >= 0 {
		limit = math.Min(limit, v.Time)
	}
	i := sort.Search(len(pts), func(k int) bool { return pts[k].Wall >= from })
	if i > 0 {
		i--
	}
	fill := draw.WithAlpha(th.LinkActive, 70)
	lost := draw.WithAlpha(th.Hot, 110)
	for ; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		if a.Wall >= limit {
			break
		}
		if b.Wall <= from {
			continue
		}
		// Clip the segment to [from, limit].
		w0, w1 := math.Max(a.Wall, from), math.Min(b.Wall, limit)
		lerp := func(x, y, at float64) float64 {
			if b.Wall <= a.Wall {
				return y
			}
			return x + (y-x)*(at-a.Wall)/(b.Wall-a.Wall)
		}
		ua := lerp(a.Kept-a.Saved, b.Kept-b.Saved, w0)
		ub := lerp(a.Kept-a.Saved, b.Kept-b.Saved, w1)
		x0, x1 := xAt(w0), xAt(w1)
		switch {
		case b.Wall > a.Wall && b.Kept > a.Kept:
			// Computing: the tooth climbs; red when a failure ends it.
			c, f := th.LinkActive, fill
			if i+2 < len(pts) && pts[i+2].Wall == b.Wall && pts[i+2].Lost > b.Lost && w1 == b.Wall {
				c, f = th.Hot, lost
			}
			fltUnder(l, x0, yAt(ua), x1, yAt(ub), base, f)
			l.Segment(x0, yAt(ua), x1, yAt(ub), 2*sc, c)
		case b.Wall > a.Wall && b.Restart > a.Restart:
			draw.Hatch(l, x0, py, x1-x0, ph, draw.Maxf(5*sc, fs*0.5), 1*sc, th.Dim)
		case b.Wall > a.Wall:
			// Writing a checkpoint: the top of the tooth, in the save's
			// colour; then the save.
			l.Segment(x0, yAt(ua), x1, yAt(ub), 2*sc, th.Rim)
			if b.Saved > a.Saved && w1 == b.Wall {
				l.Segment(x1, yAt(ub), x1, base, 1*sc, th.LinkActive)
				l.Circle(x1, base, 2*sc, th.Rim)
			}
		case b.Lost > a.Lost:
			// A failure: the unsaved work falls to nothing.
			l.Segment(x0, yAt(a.Kept-a.Saved), x0, base, 2*sc, th.Hot)
		}
	}
	// Every failure in the window, struck above the plot (one during a
	// restart loses nothing, but restarts the restart).
	for _, e := range v.Events {
		if e.Kind != FaultFailure || e.At < from || e.At > limit || (v.Time >= 0 && e.At >= v.Time) {
			continue
		}
		x := xAt(e.At)
		l.Segment(x, py-fs*0.5, x, py+fs*0.2, 3*sc, th.Hot)
	}
	if v.Time >= from && v.Time < to {
		x := xAt(v.Time)
		l.Segment(x, py, x, base, 1.5*sc, th.Text)
	}
}

// fltUnder fills the area between a line from (x0, y0) to (x1, y1) and
// the baseline, as vertical slices.
func fltUnder(l *draw.List, x0, y0, x1, y1, base float32, c draw.Color) {
	wd := x1 - x0
	if wd <= 0 {
		return
	}
	n := int(draw.Clamp(wd/3, 1, 24))
	sw := wd / float32(n)
	for k := 0; k < n; k++ {
		f := (float32(k) + 0.5) / float32(n)
		y := y0 + (y1-y0)*f
		if y < base {
			l.Rect(x0+float32(k)*sw, y, sw, base-y, c)
		}
	}
}

// fltGoodput draws the goodput against the checkpoint interval in r.
func fltGoodput(l *draw.List, th draw.Theme, sc, fs float32, w draw.Words, r draw.Rect, v FaultsView) {
	title := w.Say("canvas.faults.goodput")
	l.Label(r.X, r.Y, fs, draw.AlignLeft, th.Dim, draw.Fit(title, fs, r.W))
	px := r.X + draw.TextWidth("100%", fs) + fs*0.6
	py := r.Y + fs*2.9
	pw := r.X + r.W - fs*0.5 - px
	ph := r.Y + r.H - fs*2.9 - py
	if pw <= 0 || ph <= fs*2 {
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
		lo, hi = 60, 86400
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
			l.Label(px-fs*0.4, y-fs*0.6, fs, draw.AlignRight, th.Dim, [3]string{"0%", "50%", "100%"}[k/2])
		}
	}
	lastR := float32(-1e9)
	for _, s := range fltTicks {
		if lt := math.Log10(s); lt < llo-1e-9 || lt > lhi+1e-9 {
			continue
		}
		x := xAt(s)
		label := fltLabels.Get(fltKey{w.Lang, 't', s, 0}, func() string { return units.LocalDuration(w.Lang, s) })
		lw := draw.TextWidth(label, fs)
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		lx, al := x-lw/2, draw.AlignCenter
		if lx < px {
			lx, al = px, draw.AlignLeft // clear of the percentages
		}
		if lx > lastR+fs*0.4 && lx+lw <= r.X+r.W {
			l.Label(draw.Pick(al == draw.AlignLeft, px, x), py+ph+fs*0.3, fs, al, th.Dim, label)
			lastR = lx + lw
		}
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	xl := w.Say("canvas.faults.interval")
	l.Label(px+pw, py+ph+fs*1.5, fs, draw.AlignRight, th.Dim, draw.Fit(xl, fs, pw))

	// The curve, intervals ascending.
	var lx, ly float32
	var last float64
	has := false
	first := [2]float32{}
	for _, g := range v.Sweep {
		if !fltValid(g.Interval) || (has && g.Interval <= last) {
			continue
		}
		x, y := xAt(g.Interval), yAt(g.Goodput)
		if has {
			l.Segment(lx, ly, x, y, 2.5*sc, th.LinkActive)
		} else {
			first = [2]float32{x, y}
		}
		lx, ly, last, has = x, y, g.Interval, true
	}
	l.Key(th.LinkActive, title)
	roomy := v.GoodputMain && ph > fs*6
	if roomy && has {
		// Both ways to lose: the writes at the left, the failures at the
		// right.
		_ = first
		often := w.Say("canvas.faults.too_often")
		rare := w.Say("canvas.faults.too_rare")
		l.Label(px+fs*0.3, py-fs*1.4, fs, draw.AlignLeft, th.Dim, draw.Fit(often, fs, pw*0.45))
		l.Label(px+pw, py-fs*1.4, fs, draw.AlignRight, th.Dim, draw.Fit(rare, fs, pw*0.45))
	}

	// Daly's optimum: a line to the axis, its value at its foot; this
	// job's interval with its own goodput above its dot.
	if fltValid(v.Optimum) {
		x := xAt(v.Optimum)
		y := py
		if g, ok := fltGoodputAt(v.Sweep, v.Optimum); ok {
			y = yAt(g)
		}
		l.Segment(x, y, x, py+ph, 1.5*sc, th.Rim)
		l.Circle(x, y, 5*sc, th.Rim)
		s := fltLabels.Get(fltKey{w.Lang, 'o', v.Optimum, 0}, func() string {
			return w.Say("canvas.faults.optimum", "every", units.LocalDuration(w.Lang, v.Optimum))
		})
		sw := draw.TextWidth(s, fs)
		lx, al := x+fs*0.4, draw.AlignLeft
		if lx+sw > r.X+r.W {
			lx, al = x-fs*0.4, draw.AlignRight
		}
		l.Label(lx, py+ph-fs*1.5, fs, al, th.Rim, s)
		l.Key(th.Rim, s)
	}
	if fltValid(v.Chosen) {
		x := xAt(v.Chosen)
		g := math.Min(math.Max(v.ChosenGoodput, 0), 1)
		y := yAt(g)
		l.Segment(x, y, x, py+ph, 1*sc, th.Dim)
		l.Circle(x, y, 5.5*sc, th.Text)
		s := fltLabels.Get(fltKey{w.Lang, 'x', v.Chosen, g}, func() string {
			return w.Say("canvas.faults.this_job", "every", units.LocalDuration(w.Lang, v.Chosen), "goodput", units.Percent(g))
		})
		sw := draw.TextWidth(s, fs)
		lx := draw.Clamp(x-sw/2, r.X, r.X+r.W-sw)
		ty := y - fs*1.9 // above the dot; under it where the annotations take the top
		if roomy {
			ty = y + fs*0.7
		}
		l.Label(lx, ty, fs, draw.AlignLeft, th.Text, s)
	}
}

// fltAt is the job's state at wall time t, linear between the points
// around it (the first point before them all).
func fltAt(pts []ProgressPoint, t float64) ProgressPoint {
	if len(pts) == 0 {
		return ProgressPoint{Wall: t}
	}
	i := sort.Search(len(pts), func(k int) bool { return pts[k].Wall > t })
	switch {
	case i == 0:
		return pts[0]
	case i == len(pts):
		return pts[len(pts)-1]
	}
	a, b := pts[i-1], pts[i]
	if b.Wall <= a.Wall {
		return b
	}
	f := (t - a.Wall) / (b.Wall - a.Wall)
	mix := func(x, y float64) float64 { return x + (y-x)*f }
	return ProgressPoint{Wall: t, Kept: mix(a.Kept, b.Kept), Saved: a.Saved, Lost: a.Lost,
		Restart: mix(a.Restart, b.Restart), Ckpt: mix(a.Ckpt, b.Ckpt)}
}

// faultZoom is the window the picture magnifies: about two failures'
// worth of the job (at least 36 checkpoint intervals, at most a day and
// teeth intervals: teeth wide enough to see), in whole hours, starting on
// a whole hour a little before the first failure after the first hour.
func faultZoom(span, every, mtbf float64, events []FaultEvent, teeth int) [2]float64 {
	if !(span > 0) || !(every > 0) || !(mtbf > 0) {
		return [2]float64{}
	}
	length := math.Max(36*every, 2.5*mtbf)
	length = math.Min(length, math.Min(86400, float64(teeth)*every))
	if length >= 2*3600 {
		length = math.Round(length/3600) * 3600
	}
	length = math.Min(math.Max(length, 600), span)
	from := 0.0
	for _, e := range events {
		if e.Kind == FaultFailure && e.At >= 3600 {
			from = math.Floor((e.At-0.25*length)/3600) * 3600
			break
		}
	}
	from = math.Max(0, math.Min(from, span-length))
	return [2]float64{from, from + length}
}

// FaultsCache keeps what AppendFaults derives from a view's events between
// the frames that draw them (FaultsView.Cache): the failures' times in
// order, to count those so far, and their strikes on the job's axis. The
// zero value is ready to use; it follows the events it is given (another
// slice, or another length, and it derives them again).
type FaultsCache struct {
	first   *FaultEvent
	n       int
	fails   []float64 // the failures' times, ascending
	strikes []fltStrike
	axis    [3]float64 // the strikes' axis: x, width, span (0 span: none yet)
}

// fltStrike is a failure's mark on the job's axis: its x, and the time it
// is struck from (the earliest failure in its pixel column, when thinned).
type fltStrike struct {
	x  float32
	at float64
}

// follow derives the failures' times again when events are other ones.
func (c *FaultsCache) follow(events []FaultEvent) {
	var first *FaultEvent
	if len(events) > 0 {
		first = &events[0]
	}
	if first == c.first && len(events) == c.n && c.fails != nil {
		return
	}
	c.first, c.n, c.axis = first, len(events), [3]float64{}
	c.fails = c.fails[:0]
	for _, e := range events {
		if e.Kind == FaultFailure {
			c.fails = append(c.fails, e.At)
		}
	}
	sort.Float64s(c.fails)
}

// failuresBy is how many failures have happened by t (by the playhead
// time, before it; negative: no playhead).
func (c *FaultsCache) failuresBy(t, playhead float64) int {
	return sort.Search(len(c.fails), func(i int) bool {
		a := c.fails[i]
		return a > t || (playhead >= 0 && a >= playhead)
	})
}

// strikesOn is the failures' strikes on an axis from x, w wide, for span
// seconds: one a failure, or, above fltThin failures, one a pixel column
// (the column's earliest), in the events' order.
func (c *FaultsCache) strikesOn(events []FaultEvent, x, w float32, span float64) []fltStrike {
	if axis := [3]float64{float64(x), float64(w), span}; axis == c.axis {
		return c.strikes
	} else {
		c.axis = axis
	}
	c.strikes = c.strikes[:0]
	var col [4096]int32 // a column's strike, +1; 0: none yet
	thin := len(c.fails) > fltThin
	for _, e := range events {
		if e.Kind != FaultFailure {
			continue
		}
		fx := x + w*float32(math.Min(math.Max(e.At/span, 0), 1))
		if k := int(fx - x); thin && k >= 0 && k < len(col) {
			if i := col[k]; i > 0 {
				if e.At < c.strikes[i-1].at {
					c.strikes[i-1] = fltStrike{fx, e.At}
				}
				continue
			}
			col[k] = int32(len(c.strikes) + 1)
		}
		c.strikes = append(c.strikes, fltStrike{fx, e.At})
	}
	return c.strikes
}

type fltKey struct {
	lang string
	kind byte
	a, b float64
}

var fltLabels draw.Memo[fltKey]

// fltTrim drops a number's trailing zeros after the point: "0.50" is
// "0.5", "1.0" is "1".
func fltTrim(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			for len(s) > 0 && s[len(s)-1] == '0' {
				s = s[:len(s)-1]
			}
			if s[len(s)-1] == '.' {
				s = s[:len(s)-1]
			}
			return s
		}
	}
	return s
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
