package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
)

// CollectiveView is what a collective picture needs: where to draw, at
// what scale, and the engine's state at the playhead.
type CollectiveView struct {
	Width, Height float32   // the whole canvas
	Stage         draw.Rect // the part the picture may use
	Scale         float32   // device pixel ratio; 1 on a plain screen
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Snapshot      collective.Snapshot
	Total         sim.Time // the run's length, for the clock
	Link          string   // short link name for the header, e.g. "NVLink 4"
	// Nodes > 1 splits the GPUs into that many nodes of consecutive GPUs:
	// ring links between nodes (InterLink, e.g. "IB NDR") are drawn thin
	// and hot, the slow hops every round waits for.
	Nodes     int
	InterLink string
	// TimeVsN, when set, adds a chart of both algorithms' time against the
	// number of GPUs in a corner of the stage.
	TimeVsN []TimeVsN
	// Cache, when set, keeps the GPUs' places on the ring and the links'
	// scratch between frames (nil: made every call).
	Cache *CollectiveCache
}

// CollectiveCache keeps what AppendCollective lays out between the frames
// that draw the same ring: the GPUs' places (for the oval they were
// placed on) and its scratch. The zero value is ready to use.
type CollectiveCache struct {
	oval   [6]float32 // cx, cy, rx, ry, GPUs, root: what pos was placed for
	pos    [][2]float32
	active []bool
}

// places is the GPUs' places on the oval (cx, cy, rx, ry) — with root, a
// star's root in the middle first — made again only for another oval.
func (c *CollectiveCache) places(cx, cy, rx, ry float32, n int, root bool) [][2]float32 {
	key := [6]float32{cx, cy, rx, ry, float32(n), 0}
	if root {
		key[5] = 1
	}
	if c.pos != nil && key == c.oval {
		return c.pos
	}
	c.oval = key
	if root {
		c.pos = append(append(c.pos[:0], [2]float32{cx, cy}), ovalPoints(cx, cy, rx, ry, n)...)
	} else {
		c.pos = ovalPoints(cx, cy, rx, ry, n)
	}
	return c.pos
}

// TimeVsN is one point of the time-against-GPU-count chart.
type TimeVsN struct {
	N          int
	Ring, Star float64 // seconds
}

// Collective draws GPUs around a ring (or around a root, for a star),
// the links between them, the chunks each GPU holds — one bar per slice of
// its vector, as tall as the number of GPUs whose data it has summed — and
// the packets in flight.
func Collective(v CollectiveView) draw.List { return AppendCollective(draw.List{}, v) }

// AppendCollective is Collective drawing into dst, reusing its item
// storage: the page calls it every frame.
func AppendCollective(dst draw.List, v CollectiveView) draw.List {
	sn := v.Snapshot
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || sn.Ranks < 1 {
		return l
	}
	n := sn.Ranks
	star := sn.Algo == collective.Star
	nodes := v.Nodes > 1 && n%v.Nodes == 0

	// Header: what is running and the clock; under them the phase and
	// round, and the run's length. Words in the reader's language.
	fs := draw.Clamp(st.W/48, 14*sc, 22*sc)
	pad := fs * 0.8
	w := v.Words
	clock := collClock.Get(collClockKey{w.Lang, sn.Time}, func() string { return w.Say("canvas.clock", "t", sn.Time.String()) })
	total := collClock.Get(collClockKey{w.Lang + "\x00of", v.Total}, func() string { return w.Say("canvas.ring.of", "total", v.Total.String()) })
	cw := draw.Maxf(draw.TextWidth(clock, fs), draw.TextWidth(total, fs*0.9))
	l.Label(st.X+st.W-pad, st.Y+pad, fs, draw.AlignRight, th.Text, clock)
	l.Label(st.X+st.W-pad, st.Y+pad+fs*1.4, fs*0.9, draw.AlignRight, th.Dim, total)
	hw := st.W - 3*pad - cw
	l.Label(st.X+pad, st.Y+pad, fs, draw.AlignLeft, th.Text, draw.Fit(collTitle(w, v, n), fs, hw))
	l.Label(st.X+pad, st.Y+pad+fs*1.4, fs*0.9, draw.AlignLeft, draw.Pick(sn.Done, th.Text, th.Dim), draw.Fit(progress(w, sn), fs*0.9, hw))

	// The legend under the picture: the chunks (bar height: GPUs summed),
	// a link sending, the hot colour.
	lfs := fs * 0.9
	chunkLabel := w.Say("canvas.ring.key_chunks")
	strip := lfs * 2.2 // the chunk swatch: a few bars of the chunks' colours
	entries := [2]draw.LegendEntry{{Color: th.LinkActive, Label: w.Say("canvas.ring.key_sending")}}
	ne := 1
	switch {
	case star:
		entries[1], ne = draw.LegendEntry{Color: th.Hot, Label: w.Say("canvas.star.key_queue")}, 2
	case nodes:
		entries[1], ne = draw.LegendEntry{Color: th.Hot, Label: collInter(w, v.InterLink)}, 2
	}
	legW := st.W - 2*pad
	chunkW := strip + lfs*0.4 + draw.TextWidth(chunkLabel, lfs) + lfs
	lineH := lfs * draw.LineHeight * 1.15
	ownLine := chunkW > legW*0.6 // the chunks' entry on a line of its own
	var legH float32
	if ownLine {
		legH = lineH + draw.LegendHeight(legW, lfs, entries[:ne]...)
	} else {
		legH = draw.LegendHeight(legW-chunkW, lfs, entries[:ne]...)
	}
	legY := st.Y + st.H - pad - legH
	{
		x, y := st.X+pad, legY
		k := min(sn.Chunks, 6)
		for i := 0; i < k; i++ {
			c := draw.Chunk(i*max(1, sn.Chunks/k), sn.Chunks)
			bh := lfs * 0.9 * float32(i+1) / float32(k)
			l.Rect(x+float32(i)*strip/float32(k), y+(lfs*draw.LineHeight+lfs*0.9)/2-bh, strip/float32(k)-sc, bh, c)
		}
		for i := 0; i < sn.Chunks; i++ {
			l.Key(draw.Chunk(i, sn.Chunks), chunkLabel)
		}
		l.Label(x+strip+lfs*0.4, y, lfs, draw.AlignLeft, th.Text, draw.Fit(chunkLabel, lfs, legW-strip-lfs*0.4))
		if ownLine {
			draw.Legend(&l, th, x, y+lineH, legW, lfs, sc, entries[:ne]...)
		} else {
			draw.Legend(&l, th, x+chunkW, y, legW-chunkW, lfs, sc, entries[:ne]...)
		}
	}
	st.H = legY - pad*0.5 - st.Y

	// The time-against-N chart takes the right-hand side of a wide stage
	// or the bottom of a tall one; the GPUs get the rest.
	var chart draw.Rect
	top := st.Y + pad + fs*3
	if star {
		top += fs * 1.3 // the queue's line
	}
	if len(v.TimeVsN) > 1 {
		if st.W >= st.H*1.3 {
			cw := draw.Clamp(st.W*0.38, 200*sc, 420*sc)
			ch := draw.Minf(cw*0.75, st.Y+st.H-top)
			chart = draw.Rect{X: st.X + st.W - cw - pad, Y: top + (st.Y+st.H-top-ch)/2, W: cw, H: ch}
			st.W -= cw + 2*pad
		} else {
			ch := draw.Clamp(st.H*0.34, 120*sc, 260*sc)
			cw := draw.Minf(st.W-2*pad, ch/0.6)
			chart = draw.Rect{X: st.X + (st.W-cw)/2, Y: st.Y + st.H - ch, W: cw, H: ch}
			st.H -= ch + pad
		}
	}

	// Geometry: an oval in the space under the header.
	cx := st.X + st.W/2
	cy := top + (st.Y+st.H-top)/2
	others := n
	if star {
		others = n - 1
	}
	// An oval (at most 1.6 times wider than tall, or the reverse) uses a
	// wide, short stage such as an embed's. The oval, the boxes on it and
	// the labels under and beside them must fit: shrink the radii until
	// radius + box/2 (+ label) ≤ half the space.
	halfW := 0.5*st.W - pad/2
	halfH := 0.5*(st.Y+st.H-top) - pad/2
	aspect := draw.Clamp(halfW/draw.Maxf(halfH, 1), 1/1.6, 3)
	// Box size: most of the gap between neighbours, evenly spaced along
	// the oval's perimeter (Ramanujan's approximation).
	boxFor := func(rx, ry float32) float32 {
		per := math.Pi * (3*(rx+ry) - float32(math.Sqrt(float64((3*rx+ry)*(rx+3*ry)))))
		b := draw.Clamp(per/float32(others)*0.6, 8*sc, 120*sc)
		if star {
			b = draw.Clamp(b, 8*sc, draw.Minf(rx, ry)*0.5)
		}
		return b
	}
	ls := 14 * sc // GPU labels
	labW := draw.TextWidth("GPU 00", ls)
	fit := func(labelled bool) (rx, ry, box float32) {
		ry = 0.9 * draw.Minf(halfH, halfW/aspect)
		rx = ry * aspect
		box = boxFor(rx, ry)
		for i := 0; i < 6; i++ {
			lab, side := float32(0), float32(0)
			if labelled {
				lab, side = ls*1.4, draw.Maxf(0, labW-box)/2
			}
			over := draw.Maxf(ry+box/2+lab-halfH, (rx+box/2+side-halfW)/aspect)
			if over <= 0 {
				break
			}
			ry -= over
			rx = ry * aspect
			box = boxFor(rx, ry)
		}
		if ry < 8*sc {
			ry, rx = 8*sc, 8*sc*aspect
		}
		return rx, ry, box
	}
	// Labels only where they fit beside their neighbours, and not at the
	// price of a much smaller ring: a short stage (an embed's) drops them
	// and gives their room to the GPUs.
	labelled := n <= 16
	rx, ry, box := fit(labelled)
	if labelled {
		if _, bry, bbox := fit(false); labW > box*1.6 || bbox > box*1.25 || bry > ry*1.25 {
			labelled = false
			rx, ry, box = fit(false)
		}
	}
	// GPUs evenly spaced along the oval (by length, not by angle, so the
	// ends of a wide oval are not crowded); a star's root in the middle.
	cache := v.Cache
	if cache == nil {
		cache = new(CollectiveCache)
	}
	var pos [][2]float32
	if star {
		pos = cache.places(cx, cy, rx, ry, others, true)
	} else {
		pos = cache.places(cx, cy, rx, ry, n, false)
	}

	// Which links carry a packet right now, and the root's queue.
	cache.active = draw.Grow(cache.active, n)
	active := cache.active // ring: link i→i+1; star: spoke to i
	clear(active)
	queued := 0
	for _, p := range sn.Packets {
		if p.Waiting {
			queued++
			continue
		}
		k := p.Src
		if star && p.Src == 0 {
			k = p.Dst
		}
		active[k] = true
	}

	// Links under everything else.
	lw := draw.Clamp(box/10, 1.5*sc, 5*sc)
	for i := 0; i < n; i++ {
		c := th.Link
		if active[i] {
			c = th.LinkActive
		}
		if star {
			if i == 0 {
				continue
			}
			if queued > 0 && active[i] {
				c = th.Hot
			}
			l.Segment(pos[0][0], pos[0][1], pos[i][0], pos[i][1], lw, c)
			continue
		}
		j := (i + 1) % n
		if nodes && i/(n/v.Nodes) != j/(n/v.Nodes) {
			// Between nodes: a thin hot line (the legend names its link).
			c = th.Hot
			if !active[i] {
				c.A = 150
			}
			l.Segment(pos[i][0], pos[i][1], pos[j][0], pos[j][1], draw.Maxf(lw*0.4, 1*sc), c)
			continue
		}
		l.Segment(pos[i][0], pos[i][1], pos[j][0], pos[j][1], lw, c)
	}

	// GPUs with their chunks.
	for i := 0; i < n; i++ {
		x, y := pos[i][0]-box/2, pos[i][1]-box/2
		l.Rect(x, y, box, box, th.GPU)
		rim := th.Rim
		rw := draw.Clamp(box/24, 1*sc, 3*sc)
		if star && i == 0 && queued > 0 {
			rim, rw = th.Hot, rw*2
		}
		l.Frame(x, y, box, box, rw, rim)
		drawChunks(&l, th, sn, i, x+rw*1.5, y+rw*1.5, box-rw*3, box-rw*3)
		if labelled || i == 0 {
			l.Label(pos[i][0], y+box+ls*0.2, ls, draw.AlignCenter, th.Dim, gpuName(i))
		}
	}

	// Packets in flight, on top.
	ps := draw.Clamp(box/4, 4*sc, 18*sc)
	for _, p := range sn.Packets {
		if p.Waiting {
			continue
		}
		a, b := pos[p.Src], pos[p.Dst]
		t := float32(p.Progress)
		x := a[0] + (b[0]-a[0])*t
		y := a[1] + (b[1]-a[1])*t
		l.Rect(x-ps/2, y-ps/2, ps, ps, draw.Chunk(p.Chunk, sn.Chunks))
		l.Frame(x-ps/2, y-ps/2, ps, ps, draw.Clamp(ps/8, 1, 2*sc), th.Text)
	}
	if chart.W > 0 {
		drawTimeVsN(&l, th, sc, w, chart, v.TimeVsN, n)
	}
	if star && queued > 0 {
		// The hot spot, in words under the header: chunks queued for the
		// root's one link.
		msg := collQueue.Get(collQueueKey{w.Lang, queued}, func() string { return w.Say("canvas.star.queued", "n", strconv.Itoa(queued)) })
		l.Label(st.X+pad, st.Y+pad+fs*2.7, fs*0.9, draw.AlignLeft, th.Hot, draw.Fit(msg, fs*0.9, st.W-2*pad))
	}
	return l
}

// gpuName is "GPU i", formatted once.
func gpuName(i int) string {
	if i < len(gpuNames) {
		return gpuNames[i]
	}
	return "GPU " + strconv.Itoa(i)
}

var gpuNames = func() (t [64]string) {
	for i := range t {
		t[i] = "GPU " + strconv.Itoa(i)
	}
	return t
}()

type collClockKey struct {
	lang string
	t    sim.Time
}

type collQueueKey struct {
	lang string
	n    int
}

var (
	collClock  draw.Memo[collClockKey]
	collQueue  draw.Memo[collQueueKey]
	collTitles draw.Memo[collTitleKey]
	collPhases draw.Memo[collPhaseKey]
)

type collTitleKey struct {
	lang, link, inter string
	star              bool
	n, nodes          int
}

// collTitle is the header: the algorithm, the GPUs, the link(s).
func collTitle(w draw.Words, v CollectiveView, n int) string {
	star := v.Snapshot.Algo == collective.Star
	k := collTitleKey{w.Lang, v.Link, v.InterLink, star, n, v.Nodes}
	return collTitles.Get(k, func() string {
		switch {
		case star:
			return w.Say("canvas.star.title", "n", strconv.Itoa(n), "link", v.Link)
		case v.Nodes > 1:
			return w.Say("canvas.ring.title_nodes", "n", strconv.Itoa(n), "nodes", strconv.Itoa(v.Nodes), "link", v.Link, "inter", v.InterLink)
		}
		return w.Say("canvas.ring.title", "n", strconv.Itoa(n), "link", v.Link)
	})
}

// collInter is the legend's entry for the hops between nodes.
func collInter(w draw.Words, inter string) string {
	return collTitles.Get(collTitleKey{lang: w.Lang, inter: inter, n: -1}, func() string { return w.Say("canvas.ring.key_inter", "inter", inter) })
}

// drawTimeVsN draws in r the time of ring and star against the number of
// GPUs, time on a log scale (the star's (N−1)·S/B climbs, the ring's
// 2(N−1)/N·S/B stays flat: on a linear axis the ring would lie on the
// axis), the current count marked with both times.
func drawTimeVsN(l *draw.List, th draw.Theme, sc float32, w draw.Words, r draw.Rect, pts []TimeVsN, cur int) {
	fs := draw.Clamp(r.W/22, 14*sc, 18*sc)
	x0, y0 := r.X, r.Y
	l.Rect(x0, y0, r.W, r.H, th.Panel)
	l.Frame(x0, y0, r.W, r.H, 1*sc, th.Link)
	lo, hi := math.Inf(1), 0.0
	for _, p := range pts {
		for _, s := range [2]float64{p.Ring, p.Star} {
			if s > 0 {
				lo, hi = math.Min(lo, s), math.Max(hi, s)
			}
		}
	}
	if !(hi > 0) {
		return
	}
	dlo, dhi := draw.Decades(lo, hi, -3, 0)
	// Plot area inside the margins: the decades' labels on the left, the
	// title above, the counts and the axis name below.
	lab := draw.TextWidth(draw.DecadeTime(dlo), fs)
	for e := dlo; e <= dhi; e++ {
		lab = draw.Maxf(lab, draw.TextWidth(draw.DecadeTime(e), fs))
	}
	px, py := x0+lab+fs*0.9, y0+fs*2.4
	pw, ph := x0+r.W-fs*0.8-px, y0+r.H-fs*3-py
	if pw <= 0 || ph <= 0 {
		return
	}
	l.Label(x0+fs*0.5, y0+fs*0.35, fs, draw.AlignLeft, th.Dim, draw.Fit(w.Say("canvas.ring.chart_y"), fs, r.W-fs))
	nlo, nhi := float64(pts[0].N), float64(pts[len(pts)-1].N)
	if nhi <= nlo {
		nhi = nlo + 1
	}
	at := func(n int, sec float64) (float32, float32) {
		fx := (float64(n) - nlo) / (nhi - nlo)
		fy := (math.Log10(math.Max(sec, 1e-300)) - float64(dlo)) / float64(dhi-dlo)
		return px + pw*float32(fx), py + ph*(1-float32(draw.Clamp(float32(fy), 0, 1)))
	}
	// Decades, axes, the current count.
	every := draw.LabelEvery(fs*1.2, ph/float32(dhi-dlo))
	for e := dlo; e <= dhi; e++ {
		y := py + ph*(1-float32(e-dlo)/float32(dhi-dlo))
		l.Segment(px, y, px+pw, y, 1*sc, th.Background)
		if (e-dlo)%every == 0 {
			l.Label(px-fs*0.3, y-fs*0.6, fs, draw.AlignRight, th.Dim, draw.DecadeTime(e))
		}
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	if cx, _ := at(cur, 1); cx >= px && cx <= px+pw {
		l.Segment(cx, py, cx, py+ph, 1*sc, th.Dim)
	}
	// Counts under the axis: the first, then powers of two that fit.
	lastR := float32(-1e9)
	for i, p := range pts {
		if i != 0 && (p.N < 8 || p.N&(p.N-1) != 0) {
			continue
		}
		x, _ := at(p.N, 1)
		s := strconv.Itoa(p.N)
		hw := draw.TextWidth(s, fs) / 2
		if x-hw < lastR+fs*0.5 {
			continue
		}
		l.Label(x, py+ph+fs*0.2, fs, draw.AlignCenter, th.Dim, s)
		lastR = x + hw
	}
	xl := w.Say("canvas.ring.chart_x")
	l.Label(px+pw, py+ph+fs*1.45, fs, draw.AlignRight, th.Dim, xl)
	// The two curves, with their names at their ends.
	for _, c := range []struct {
		key string
		col draw.Color
		sec func(TimeVsN) float64
	}{
		{"canvas.ring.chart_star", th.Hot, func(p TimeVsN) float64 { return p.Star }},
		{"canvas.ring.chart_ring", th.LinkActive, func(p TimeVsN) float64 { return p.Ring }},
	} {
		name := w.Say(c.key)
		l.Key(c.col, name)
		var lx, ly float32
		for i, p := range pts {
			x, y := at(p.N, c.sec(p))
			if i > 0 {
				l.Segment(lx, ly, x, y, 2*sc, c.col)
			}
			l.Circle(x, y, 2.5*sc, c.col)
			lx, ly = x, y
		}
		// Above the star's end, under the ring's (the star is the higher).
		ny := ly - fs*1.35
		if c.col == th.LinkActive {
			ny = ly + fs*0.35
		}
		l.Label(lx, draw.Clamp(ny, py, py+ph-fs*1.2), fs, draw.AlignRight, c.col, name)
	}
}

// drawChunks fills a GPU's inner box with one bar per chunk, as tall as
// the share of GPUs summed into it; when bars would be thinner than a
// pixel and a half, one bar shows the average instead.
func drawChunks(l *draw.List, th draw.Theme, sn collective.Snapshot, rank int, x, y, w, h float32) {
	n, c := sn.Ranks, sn.Chunks
	if w <= 0 || h <= 0 || len(sn.Contrib) < (rank+1)*c {
		return
	}
	row := sn.Contrib[rank*c : (rank+1)*c]
	if w/float32(c) < 1.5 {
		sum := 0
		for _, k := range row {
			sum += int(k)
		}
		f := float32(sum) / float32(n*c)
		l.Rect(x, y, w, h, th.Empty)
		l.Rect(x, y+h*(1-f), w, h*f, th.LinkActive)
		return
	}
	bw := w / float32(c)
	gap := float32(0)
	if bw >= 4 {
		gap = 1
	}
	for k := 0; k < c; k++ {
		bx := x + float32(k)*bw
		l.Rect(bx, y, bw-gap, h, th.Empty)
		f := float32(row[k]) / float32(n)
		l.Rect(bx, y+h*(1-f), bw-gap, h*f, draw.Chunk(k, c))
	}
}

// ovalPoints places n points clockwise around an oval, the first at 12
// o'clock, evenly spaced by arc length (measured on a polygon of 8n
// sides, at least 256).
func ovalPoints(cx, cy, rx, ry float32, n int) [][2]float32 {
	pts := make([][2]float32, n)
	if n == 0 {
		return pts
	}
	samples := max(256, 8*n)
	at := func(k int) (float64, float64) {
		a := -math.Pi/2 + 2*math.Pi*float64(k)/float64(samples)
		return float64(cx) + float64(rx)*math.Cos(a), float64(cy) + float64(ry)*math.Sin(a)
	}
	cum := make([]float64, samples+1)
	px, py := at(0)
	for k := 1; k <= samples; k++ {
		x, y := at(k)
		cum[k] = cum[k-1] + math.Hypot(x-px, y-py)
		px, py = x, y
	}
	k := 0
	for i := 0; i < n; i++ {
		want := cum[samples] * float64(i) / float64(n)
		for k < samples && cum[k+1] < want {
			k++
		}
		x0, y0 := at(k)
		x1, y1 := at(k + 1)
		f := 0.0
		if d := cum[k+1] - cum[k]; d > 0 {
			f = (want - cum[k]) / d
		}
		pts[i] = [2]float32{float32(x0 + (x1-x0)*f), float32(y0 + (y1-y0)*f)}
	}
	return pts
}

// progress names the phase and round in the reader's language:
// "Reduce-Scatter, round 3 of 7", "gather onto GPU 0", and what the run
// did once done: the bytes a GPU sent in binary units, as the lesson's
// vector (256 MiB) and its narration count them.
func progress(w draw.Words, sn collective.Snapshot) string {
	n := sn.Ranks
	k := collPhaseKey{lang: w.Lang, star: sn.Algo == collective.Star, round: sn.Round, phase: sn.Phase, done: sn.Done, n: n}
	if sn.Done && len(sn.Sent) > 0 {
		k.sent = sn.Sent[0]
	}
	return collPhases.Get(k, func() string {
		rounds := strconv.Itoa(n - 1)
		switch {
		case sn.Round == 0:
			return w.Say("canvas.ring.ready")
		case k.star && sn.Done:
			return w.Say("canvas.star.done", "sent", units.BytesIEC(float64(k.sent)))
		case k.star && sn.Phase == collective.PhaseBroadcast:
			return w.Say("canvas.star.broadcast")
		case k.star:
			return w.Say("canvas.star.gather")
		case sn.Done:
			return w.Say("canvas.ring.done", "rounds", strconv.Itoa(2*(n-1)), "sent", units.BytesIEC(float64(k.sent)))
		case sn.Phase == collective.PhaseAllGather:
			return w.Say("canvas.ring.allgather", "k", strconv.Itoa(sn.Round-(n-1)), "n", rounds)
		}
		return w.Say("canvas.ring.reducescatter", "k", strconv.Itoa(sn.Round), "n", rounds)
	})
}

type collPhaseKey struct {
	lang       string
	star, done bool
	round, n   int
	phase      collective.Phase
	sent       int64
}
