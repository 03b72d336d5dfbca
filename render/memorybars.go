package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
)

// AppendMemoryBars draws one stacked bar per GPU (or stage, or
// configuration), its segments bottom-up in the order given, against a
// solid line at the GPU's capacity and a dashed one at what a job can
// use, under a headline and a legend of the segments it draws. The part
// of a bar over the line it must fit under (Usable, or Capacity without
// one) keeps its segments' colours under a Hot veil (alpha overVeil) with
// a Hot outline, and is labelled "… over"; the current bar is outlined.
// Bars taller than the axis are cut at the top of the plot with a break
// mark. With a Zoom, a second panel beside the first shows the bars
// from 0 to Zoom bytes, labelled as a zoom, so that a small bar on a
// large axis stays visible; with a Lower chart, a row of columns under
// the bars compares each bar's seconds (its solid and light parts) on
// one time axis.
func AppendMemoryBars(dst draw.List, v MemoryBarsView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.Bars)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	tallest := 0.0
	cur := -1
	for i, b := range v.Bars {
		tallest = math.Max(tallest, barTotal(b))
		if b.Current && cur < 0 {
			cur = i
		}
	}
	top := v.Max
	if top <= 0 {
		top = math.Max(tallest, v.Capacity) * 1.08
	}
	if top <= 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return l
	}
	ts := draw.TextSize(sc)
	_, pad := draw.HeadFont(st, sc)
	x, y := st.X+pad, st.Y+pad*0.5
	w := st.W - 2*pad
	if v.Axis != "" {
		// The bars' axis named under their labels: the room for a line
		// taken from the bottom of the stage.
		st.H -= ts * draw.LineHeight * 1.1
		l.Label(st.X+st.W/2, st.Y+st.H-pad*0.5+ts*0.35, ts, draw.AlignCenter, th.Dim, draw.Fit(v.Axis, ts, w))
	}
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		y = st.Y + draw.HeadlineHeight(st, sc, v.Headline)
	}
	// The legend: the segments the bars draw, in the canonical order.
	var entries [len(memoryKeys) + 3]draw.LegendEntry
	ne := 0
	for _, k := range memoryKeys {
		used := false
		for _, b := range v.Bars {
			for _, s := range b.Segments {
				used = used || (s.Key == k.key && s.Bytes > 0)
			}
		}
		if used {
			entries[ne] = draw.LegendEntry{Color: k.col, Label: draw.Say(v.Words, k.say)}
			ne++
		}
	}
	limit := v.Usable
	if limit <= 0 {
		limit = v.Capacity
	}
	for _, b := range v.Bars {
		if limit > 0 && barTotal(b) > limit {
			entries[ne] = draw.LegendEntry{Color: draw.WithAlpha(th.Hot, overVeil), Label: draw.Say(v.Words, "canvas.mem.overline")}
			ne++
			break
		}
	}
	lower := v.Lower.Title != "" && v.Lower.Color.A > 0
	nBars := ne
	if lower {
		entries[ne] = draw.LegendEntry{Color: v.Lower.Color, Label: v.Lower.Solid}
		ne++
		if v.Lower.Light != "" {
			entries[ne] = draw.LegendEntry{Color: v.Lower.Color, Hatch: true, Label: v.Lower.Light}
			ne++
		}
		// A short stage (a phone's lower half) keeps the bars and drops
		// the lower chart, with its legend entries, when both do not fit.
		if ly := y + draw.LegendHeight(w, ts, entries[:ne]...) + ts*0.2; !barsFit(st, sc, ts, ly, true) && barsFit(st, sc, ts, y+draw.LegendHeight(w, ts, entries[:nBars]...)+ts*0.2, false) {
			lower, ne = false, nBars
		}
	}
	y += draw.Legend(&l, th, x, y, w, ts, sc, entries[:ne]...) + ts*0.2

	// Columns: the axis labels, the plot (and the zoom), the lines'
	// labels at the right.
	capLabel, useLabel := "", ""
	if v.Capacity > 0 {
		capLabel = draw.BytesLabel(v.Capacity)
	}
	if v.Usable > 0 {
		useLabel = draw.SayBytes(v.Words, "canvas.mem.usable", v.Usable)
	}
	right := draw.Maxf(draw.TextWidth(capLabel, ts), draw.TextWidth(useLabel, ts)) + ts*0.6
	axisW := draw.TextWidth("0000", ts) + ts*0.5
	px := x + axisW
	pw := st.X + st.W - pad - right - px
	bottom, lowerH, ph, headroom := barsHeight(st, sc, ts, y, lower)
	if pw <= 0 || ph <= headroom+ts {
		return l
	}
	py := y + headroom
	ph -= headroom
	mainW, zoomX, zoomW := pw, float32(0), float32(0)
	if v.Zoom > 0 && v.Zoom < top {
		zoomW = pw * 0.36
		mainW = pw - zoomW - axisW - ts
		zoomX = px + mainW + axisW + ts
	}
	if mainW <= 0 {
		return l
	}
	panels := [2]barPanel{{x: px, w: mainW, top: top}}
	np := 1
	if zoomW > 0 {
		panels[1] = barPanel{x: zoomX, w: zoomW, top: v.Zoom, zoom: true}
		np = 2
	}
	for i := range np {
		drawBarPanel(&l, v, panels[i], py, ph, ts, sc, cur, limit, np == 2 && !panels[i].zoom)
	}
	// The lines' labels, at the right of the last panel, apart.
	last := panels[np-1]
	yAt := func(b float64) float32 { return py + ph*(1-float32(math.Min(b, last.top)/last.top)) }
	lx := last.x + last.w + ts*0.4
	capY := float32(math.Inf(1))
	if v.Capacity > 0 && v.Capacity <= last.top {
		capY = yAt(v.Capacity) - ts*draw.LineHeight/2
		l.Label(lx, capY, ts, draw.AlignLeft, th.Text, capLabel)
	}
	if v.Usable > 0 && v.Usable <= last.top {
		uy := yAt(v.Usable) - ts*draw.LineHeight/2
		if draw.Abs(uy-capY) < ts*draw.LineHeight*1.05 {
			uy = capY + ts*draw.LineHeight*1.05
		}
		l.Label(lx, uy, ts, draw.AlignLeft, th.Dim, draw.Fit(useLabel, ts, st.X+st.W-lx))
	}
	if lower {
		drawLowerChart(&l, v, px, mainW, bottom-lowerH+ts*0.4, lowerH-ts*0.4, ts, sc, cur)
	}
	return l
}

// barsHeight is the bars' vertical room under a legend ending at y: the
// plot's bottom, the lower chart's height (when there is one), the
// plot's height and the headroom for the totals above the tallest bar.
func barsHeight(st draw.Rect, sc, ts, y float32, lower bool) (bottom, lowerH, ph, headroom float32) {
	_, pad := draw.HeadFont(st, sc)
	bottom = st.Y + st.H - pad*0.5
	if lower {
		lowerH = draw.Clamp((bottom-y)*0.36, ts*4.5, ts*12)
	}
	ph = bottom - lowerH - ts*draw.LineHeight*1.3 - y
	headroom = ts * draw.LineHeight * 2.4
	return bottom, lowerH, ph, headroom
}

// barsFit says whether bars under a legend ending at y have room to be
// drawn (AppendMemoryBars draws none otherwise).
func barsFit(st draw.Rect, sc, ts, y float32, lower bool) bool {
	_, _, ph, headroom := barsHeight(st, sc, ts, y, lower)
	return ph > headroom+ts
}

// barTotal is a bar's bytes.
func barTotal(b MemoryBar) float64 {
	t := 0.0
	for _, s := range b.Segments {
		t += math.Max(0, s.Bytes)
	}
	return t
}

// barPanel is where one set of the bars is drawn: from x, w wide, on an
// axis up to top bytes; a zoom says so in its corner.
type barPanel struct {
	x, w float32
	top  float64
	zoom bool
}

// drawBarPanel draws the bars on one panel: gridlines and their values,
// the capacity and usable lines, the bars with their veils and breaks,
// the totals above them and their labels under them.
func drawBarPanel(l *draw.List, v MemoryBarsView, p barPanel, py, ph, ts, sc float32, cur int, limit float64, zoomed bool) {
	th := v.Theme
	n := len(v.Bars)
	y := func(b float64) float32 { return py + ph*(1-float32(math.Min(b, p.top)/p.top)) }
	// The axis in GB (TB beyond 10 TB): gridlines at a round step.
	unit, name := 1e9, "GB"
	if p.top >= 1e13 {
		unit, name = 1e12, "TB"
	}
	step := draw.NiceStep(p.top / unit / 4)
	for ph*float32(step*unit/p.top) < ts*draw.LineHeight*1.1 && step*unit < p.top {
		step = draw.NiceStep(step * 2.2)
	}
	for g := 0.0; g*unit <= p.top*1.0001; g += step {
		gy := y(g * unit)
		l.Segment(p.x, gy, p.x+p.w, gy, 1*sc, th.Panel)
		l.Label(p.x-ts*0.3, gy-ts*draw.LineHeight/2, ts, draw.AlignRight, th.Dim, draw.TickLabel(g, draw.Decimals(step)))
	}
	l.Label(p.x-ts*0.3, py-ts*draw.LineHeight*2.3, ts, draw.AlignRight, th.Dim, name)
	l.Segment(p.x, py+ph, p.x+p.w, py+ph, 1*sc, th.Dim)
	if p.zoom {
		// The zoom's frame and its name: what range it shows.
		l.Frame(p.x, py, p.w, ph, 1*sc, th.Link)
		l.Label(p.x+p.w, py-ts*draw.LineHeight*2.3, ts, draw.AlignRight, th.Dim, draw.Fit(draw.SayBytes(v.Words, "canvas.mem.zoom", p.top), ts, p.w))
	}

	slot := p.w / float32(n)
	bw := draw.Minf(slot*0.62, ts*6)
	for i, b := range v.Bars {
		x := p.x + slot*(float32(i)+0.5) - bw/2
		t := barTotal(b)
		sum := 0.0
		for _, s := range b.Segments {
			if s.Bytes <= 0 {
				continue
			}
			lo, hi := sum, math.Min(sum+s.Bytes, p.top)
			sum += s.Bytes
			if hi > lo {
				l.Rect(x, y(hi), bw, y(lo)-y(hi), memoryColour(s.Key, th))
			}
		}
		if limit > 0 && t > limit && limit < p.top {
			// The part over the line keeps its colours under a Hot veil.
			yt := y(t)
			l.Rect(x, yt, bw, y(limit)-yt, draw.WithAlpha(th.Hot, overVeil))
			l.Frame(x, yt, bw, y(limit)-yt, 2*sc, th.Hot)
		}
		if t > p.top {
			// Cut at the top of the plot: a break mark across the bar.
			for k := float32(0); k < 2; k++ {
				by := py + ts*(0.5+0.5*k)
				l.Segment(x-2*sc, by+ts*0.3, x+bw+2*sc, by-ts*0.3, 2*sc, th.Background)
			}
		}
		if i == cur {
			barTop := y(t)
			l.Frame(x-2*sc, barTop-2*sc, bw+4*sc, draw.Maxf(py+ph-barTop, 0)+2*sc, 2*sc, th.Text)
		}
	}
	// The capacity (solid) and what a job can use (dashed).
	if v.Capacity > 0 && v.Capacity <= p.top {
		cy := y(v.Capacity)
		l.Segment(p.x, cy, p.x+p.w, cy, 2*sc, th.Text)
	}
	if v.Usable > 0 && v.Usable <= p.top {
		uy := y(v.Usable)
		dash, gap := ts*0.6, ts*0.4
		for x := p.x; x < p.x+p.w; x += dash + gap {
			l.Segment(x, uy, draw.Minf(x+dash, p.x+p.w), uy, 1.5*sc, th.Text)
		}
	}

	// Under the bars, their labels: the current bar's, then the others
	// left to right where they clear those placed.
	var lastR, curL, curR float32 = float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1))
	label := func(i int) {
		b := v.Bars[i]
		col := th.Dim
		if i == cur {
			col = th.Text
		}
		s := draw.Fit(b.Label, ts, draw.Maxf(slot, ts*4))
		w := draw.TextWidth(s, ts)
		cx := draw.Clamp(p.x+slot*(float32(i)+0.5), p.x+w/2, p.x+p.w-w/2)
		lo, hi := cx-w/2-ts*0.3, cx+w/2+ts*0.3
		if i != cur && (lo < lastR || (lo < curR && hi > curL)) {
			return
		}
		l.Label(cx, py+ph+ts*0.3, ts, draw.AlignCenter, col, s)
		if i == cur {
			curL, curR = lo, hi
		} else {
			lastR = hi
		}
	}
	if cur >= 0 {
		label(cur)
	}
	for i := range v.Bars {
		if i != cur {
			label(i)
		}
	}
	// Above each bar its total and, over the line, by how much — two
	// lines where a slot holds them, else the one that matters (the
	// excess on a bar over the line); the current bar's first, then the
	// others left to right where they clear those placed. On a zoom, a
	// bar cut at its top says only that it goes on.
	lh := ts * draw.LineHeight
	var boxes [16]draw.Rect // the labels placed, where there are few
	nb := 0
	lastHi := float32(math.Inf(-1))
	draw := func(i int) {
		b := v.Bars[i]
		t := barTotal(b)
		if t <= 0 || (zoomed && t <= v.Zoom) {
			return // nothing, or a bar the zoom shows and labels
		}
		col := th.Dim
		if i == cur {
			col = th.Text
		}
		var lines [2]barText
		k := 1
		switch {
		case t > p.top && p.zoom:
			lines[0] = barText{"↑", col}
		case limit > 0 && t > limit:
			ex := draw.SayBytes(v.Words, "canvas.mem.over", t-limit)
			lines[0] = barText{ex, th.Hot}
			if tot := draw.BytesLabel(t); draw.TextWidth(ex, ts) <= slot*0.98 && draw.TextWidth(tot, ts) <= slot*0.98 {
				lines[1], k = barText{tot, col}, 2
			}
		default:
			lines[0] = barText{draw.BytesLabel(t), col}
		}
		if k == 2 && draw.Maxf(draw.TextWidth(lines[0].s, ts), draw.TextWidth(lines[1].s, ts)) > p.w {
			k = 1
		}
		lines[0].s = draw.Fit(lines[0].s, ts, p.w)
		wmax := float32(0)
		for j := range k {
			wmax = draw.Maxf(wmax, draw.TextWidth(lines[j].s, ts))
		}
		cx := draw.Clamp(p.x+slot*(float32(i)+0.5), p.x+wmax/2, p.x+p.w-wmax/2)
		ly := draw.Maxf(y(t), py) - lh*float32(k) - ts*0.15
		box := draw.Rect{X: cx - wmax/2 - ts*0.2, Y: ly, W: wmax + ts*0.4, H: lh * float32(k)}
		if n > len(boxes) {
			// Many bars: left to right, each clear of the one before.
			if i != cur && box.X < lastHi {
				return
			}
			lastHi = box.X + box.W
		} else {
			for j := range nb {
				if o := boxes[j]; box.X < o.X+o.W && o.X < box.X+box.W && box.Y < o.Y+o.H && o.Y < box.Y+box.H {
					return
				}
			}
			boxes[nb], nb = box, nb+1
		}
		for j := range k {
			l.Label(cx, ly+lh*float32(j), ts, draw.AlignCenter, lines[j].c, lines[j].s)
		}
	}
	if cur >= 0 {
		draw(cur)
	}
	for i := range v.Bars {
		if i != cur {
			draw(i)
		}
	}
}

// barText is a line of text above a bar.
type barText struct {
	s string
	c draw.Color
}

// drawLowerChart draws, under the bars, a column per bar of its seconds
// (the solid part, then the light part above it) on one axis from 0 to
// the longest, each labelled with its seconds, under the chart's title;
// a bar that cannot run (NoRun) gets no column, only those words.
func drawLowerChart(l *draw.List, v MemoryBarsView, px, pw, y, h, ts, sc float32, cur int) {
	th := v.Theme
	n := len(v.Bars)
	longest := 0.0
	noRun := false
	for _, b := range v.Bars {
		if b.NoRun {
			noRun = true
			continue
		}
		longest = math.Max(longest, b.Seconds)
	}
	l.Label(px, y, ts, draw.AlignLeft, th.Text, draw.Fit(v.Lower.Title, ts, pw))
	top := y + ts*draw.LineHeight*1.1 + ts*draw.LineHeight // the title, then a line for the values
	base := y + h
	if (longest <= 0 && !noRun) || base-top < ts {
		return
	}
	slot := pw / float32(n)
	bw := draw.Minf(slot*0.62, ts*6)
	colH := base - top
	l.Segment(px, base, px+pw, base, 1*sc, th.Dim)
	if noRun {
		// What cannot run, on the axis where its column would stand.
		// On two lines where a column's slot is narrow.
		s1, s2 := draw.Wrap2(draw.Say(v.Words, "canvas.mem.norun"), ts, slot-ts*0.2)
		s1, s2 = draw.Fit(s1, ts, slot-ts*0.2), draw.Fit(s2, ts, slot-ts*0.2)
		for i, b := range v.Bars {
			if b.NoRun {
				cx := px + slot*(float32(i)+0.5)
				y := base - ts*draw.LineHeight - ts*0.1
				if s2 != "" {
					l.Label(cx, y, ts, draw.AlignCenter, th.Hot, s2)
					y -= ts * draw.LineHeight
				}
				l.Label(cx, y, ts, draw.AlignCenter, th.Hot, s1)
			}
		}
	}
	for i, b := range v.Bars {
		if b.Seconds <= 0 || b.NoRun {
			continue
		}
		x := px + slot*(float32(i)+0.5) - bw/2
		hh := colH * float32(b.Seconds/longest)
		light := colH * float32(math.Min(b.Hidden, b.Seconds)/longest)
		l.Rect(x, base-hh+light, bw, hh-light, v.Lower.Color)
		if light > 0 {
			draw.Hatch(l, x, base-hh, bw, light, draw.Maxf(bw*0.25, 4*sc), 1.2*sc, v.Lower.Color)
			l.Frame(x, base-hh, bw, light, 1*sc, v.Lower.Color)
		}
		if i == cur {
			l.Frame(x-2*sc, base-hh-2*sc, bw+4*sc, hh+2*sc, 2*sc, th.Text)
		}
	}
	// The columns' seconds: the current one's, then the others left to
	// right where they clear those placed.
	var lastR, curL, curR float32 = float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1))
	label := func(i int) {
		b := v.Bars[i]
		if b.Seconds <= 0 || b.NoRun {
			return
		}
		s := draw.DurationLabel(b.Seconds)
		w := draw.TextWidth(s, ts)
		cx := draw.Clamp(px+slot*(float32(i)+0.5), px+w/2, px+pw-w/2)
		lo, hi := cx-w/2-ts*0.2, cx+w/2+ts*0.2
		if i != cur && (lo < lastR || (lo < curR && hi > curL)) {
			return
		}
		col := th.Dim
		if i == cur {
			col = th.Text
			curL, curR = lo, hi
		} else {
			lastR = hi
		}
		l.Label(cx, base-colH*float32(b.Seconds/longest)-ts*draw.LineHeight-ts*0.1, ts, draw.AlignCenter, col, s)
	}
	if cur >= 0 {
		label(cur)
	}
	for i := range v.Bars {
		if i != cur {
			label(i)
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
