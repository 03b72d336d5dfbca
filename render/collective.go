package render

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
)

// Rect is an axis-aligned rectangle in device pixels.
type Rect struct{ X, Y, W, H float32 }

// CollectiveView is what a collective picture needs: where to draw, at
// what scale, and the engine's state at the playhead.
type CollectiveView struct {
	Width, Height float32 // the whole canvas
	Stage         Rect    // the part the picture may use
	Scale         float32 // device pixel ratio; 1 on a plain screen
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
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
func Collective(v CollectiveView) List { return AppendCollective(List{}, v) }

// AppendCollective is Collective drawing into dst, reusing its item
// storage: the page calls it every frame.
func AppendCollective(dst List, v CollectiveView) List {
	sn := v.Snapshot
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || sn.Ranks < 1 {
		return l
	}
	n := sn.Ranks

	// Header: what is running and the clock. Canvas text is notation only
	// (terms practitioners keep in English, numbers); prose lives in the
	// page, in both languages.
	fs := clamp(st.W/48, 12*sc, 22*sc)
	pad := fs * 0.8
	title := "Ring AllReduce"
	if sn.Algo == collective.Star {
		title = "Star AllReduce"
	}
	header := title + " · " + strconv.Itoa(n) + " × GPU · " + v.Link
	if v.Nodes > 1 {
		header += " · " + strconv.Itoa(v.Nodes) + " nodes, " + v.InterLink + " between"
	}
	l.Label(st.X+pad, st.Y+pad, fs, AlignLeft, th.Text, header)
	l.Label(st.X+pad, st.Y+pad+fs*1.4, fs*0.85, AlignLeft, th.Dim, progress(sn))
	l.Label(st.X+st.W-pad, st.Y+pad, fs, AlignRight, th.Text, "t = "+sn.Time.String())
	l.Label(st.X+st.W-pad, st.Y+pad+fs*1.4, fs*0.85, AlignRight, th.Dim, "/ "+v.Total.String())

	// The time-against-N chart takes the right-hand side of a wide stage
	// or the bottom of a tall one; the GPUs get the rest.
	var chart Rect
	if len(v.TimeVsN) > 1 {
		if st.W >= st.H {
			cw := clamp(st.W*0.36, 150*sc, 360*sc)
			chart = Rect{st.X + st.W - cw - pad, st.Y + pad + fs*3, cw, cw * 0.65}
			chart.Y = st.Y + (st.H-chart.H)/2
			st.W -= cw + pad
		} else {
			ch := clamp(st.H*0.3, 100*sc, 240*sc)
			cw := minf(st.W-2*pad, ch/0.65)
			chart = Rect{st.X + (st.W-cw)/2, st.Y + st.H - ch - pad, cw, ch}
			st.H -= ch + pad
		}
	}

	// Geometry: an oval in the space under the header.
	top := st.Y + pad + fs*3
	cx := st.X + st.W/2
	cy := top + (st.Y+st.H-top)/2
	others := n
	if sn.Algo == collective.Star {
		others = n - 1
	}
	// An oval (at most 1.6 times wider than tall, or the reverse) uses a
	// wide, short stage such as an embed's. The oval, the boxes on it and
	// the labels under them must fit: shrink the radii until radius +
	// box/2 (+ label, vertically) ≤ half the space.
	halfW := 0.5*st.W - pad/2
	halfH := 0.5*(st.Y+st.H-top) - pad/2
	aspect := clamp(halfW/maxf(halfH, 1), 1/1.6, 1.6)
	// Box size: most of the gap between neighbours, evenly spaced along
	// the oval's perimeter (Ramanujan's approximation).
	boxFor := func(rx, ry float32) float32 {
		per := math.Pi * (3*(rx+ry) - float32(math.Sqrt(float64((3*rx+ry)*(rx+3*ry)))))
		b := clamp(per/float32(others)*0.6, 8*sc, 120*sc)
		if sn.Algo == collective.Star {
			b = clamp(b, 8*sc, minf(rx, ry)*0.5)
		}
		return b
	}
	ry := 0.8 * minf(halfH, halfW/aspect)
	rx := ry * aspect
	box := boxFor(rx, ry)
	for i := 0; i < 4; i++ {
		lab := clamp(box/5, 10*sc, 16*sc) * 1.4
		if n > 16 {
			lab = 0
		}
		over := maxf(ry+box/2+lab-halfH, (rx+box/2-halfW)/aspect)
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
	// GPUs evenly spaced along the oval (by length, not by angle, so the
	// ends of a wide oval are not crowded); a star's root in the middle.
	var pos [][2]float32
	if sn.Algo == collective.Star {
		pos = append([][2]float32{{cx, cy}}, ovalPoints(cx, cy, rx, ry, others)...)
	} else {
		pos = ovalPoints(cx, cy, rx, ry, n)
	}

	// Which links carry a packet right now, and the root's queue.
	active := make([]bool, n) // ring: link i→i+1; star: spoke to i
	queued := 0
	for _, p := range sn.Packets {
		if p.Waiting {
			queued++
			continue
		}
		k := p.Src
		if sn.Algo == collective.Star && p.Src == 0 {
			k = p.Dst
		}
		active[k] = true
	}

	// Links under everything else.
	lw := clamp(box/10, 1.5*sc, 5*sc)
	for i := 0; i < n; i++ {
		c := th.Link
		if active[i] {
			c = th.LinkActive
		}
		if sn.Algo == collective.Star {
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
		if v.Nodes > 1 && n%v.Nodes == 0 && i/(n/v.Nodes) != j/(n/v.Nodes) {
			// Between nodes: a thin hot line with its link's name.
			c = th.Hot
			if !active[i] {
				c.A = 150
			}
			l.Segment(pos[i][0], pos[i][1], pos[j][0], pos[j][1], maxf(lw*0.4, 1*sc), c)
			if n <= 32 {
				// Outside the oval, clear of the boxes.
				mx, my := (pos[i][0]+pos[j][0])/2, (pos[i][1]+pos[j][1])/2
				dx, dy := mx-cx, my-cy
				if d := float32(math.Hypot(float64(dx), float64(dy))); d > 0 {
					mx += dx / d * (box*0.6 + fs*1.2)
					my += dy / d * (box*0.6 + fs*0.8)
				}
				l.Label(mx, my-fs*0.35, fs*0.7, AlignCenter, th.Hot, v.InterLink)
			}
			continue
		}
		l.Segment(pos[i][0], pos[i][1], pos[j][0], pos[j][1], lw, c)
	}

	// GPUs with their chunks.
	for i := 0; i < n; i++ {
		x, y := pos[i][0]-box/2, pos[i][1]-box/2
		l.Rect(x, y, box, box, th.GPU)
		rim := th.Rim
		rw := clamp(box/24, 1*sc, 3*sc)
		if sn.Algo == collective.Star && i == 0 && queued > 0 {
			rim, rw = th.Hot, rw*2
		}
		l.Frame(x, y, box, box, rw, rim)
		drawChunks(&l, th, sn, i, x+rw*1.5, y+rw*1.5, box-rw*3, box-rw*3)
		if n <= 16 || i == 0 {
			ls := clamp(box/5, 10*sc, 16*sc)
			l.Label(pos[i][0], y+box+ls*0.25, ls, AlignCenter, th.Dim, "GPU"+strconv.Itoa(i))
		}
	}

	// Packets in flight, on top.
	ps := clamp(box/4, 4*sc, 18*sc)
	for _, p := range sn.Packets {
		if p.Waiting {
			continue
		}
		a, b := pos[p.Src], pos[p.Dst]
		t := float32(p.Progress)
		x := a[0] + (b[0]-a[0])*t
		y := a[1] + (b[1]-a[1])*t
		l.Rect(x-ps/2, y-ps/2, ps, ps, Chunk(p.Chunk, sn.Chunks))
		l.Frame(x-ps/2, y-ps/2, ps, ps, clamp(ps/8, 1, 2*sc), th.Text)
	}
	if chart.W > 0 {
		drawTimeVsN(&l, th, sc, chart, v.TimeVsN, n)
	}
	if sn.Algo == collective.Star && queued > 0 {
		// The hot spot: chunks queued for the root's one link.
		qs := clamp(box/4, 11*sc, 18*sc)
		l.Label(pos[0][0]+box/2+qs*0.4, pos[0][1]-box/2-qs*1.3, qs, AlignLeft, th.Hot, "×"+strconv.Itoa(queued))
	}
	return l
}

// drawTimeVsN draws in r the time of ring and star against the number of
// GPUs (linear axes, so the star's (N−1)·S/B is a straight line), the
// current count marked: the star climbs, the ring stays flat.
func drawTimeVsN(l *List, th Theme, sc float32, r Rect, pts []TimeVsN, cur int) {
	w, h := r.W, r.H
	fs := clamp(w/20, 9*sc, 14*sc)
	x0, y0 := r.X, r.Y
	l.Rect(x0, y0, w, h, th.Panel)
	l.Frame(x0, y0, w, h, 1*sc, th.Link)
	// Plot area inside the margins.
	px, py := x0+fs*3.2, y0+fs*1.6
	pw, ph := w-fs*4.2, h-fs*3.6
	var top float64
	for _, p := range pts {
		top = math.Max(top, math.Max(p.Ring, p.Star))
	}
	if top <= 0 || pw <= 0 || ph <= 0 {
		return
	}
	lo, hi := float64(pts[0].N), float64(pts[len(pts)-1].N)
	if hi <= lo {
		hi = lo + 1
	}
	at := func(n int, sec float64) (float32, float32) {
		fx := (float64(n) - lo) / (hi - lo)
		return px + pw*float32(fx), py + ph*(1-float32(sec/top))
	}
	// Axes, the current count, and the scale.
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	if cx, _ := at(cur, 0); cx >= px && cx <= px+pw {
		l.Segment(cx, py, cx, py+ph, 1*sc, th.Dim)
	}
	l.Label(px-fs*0.3, py-fs*0.6, fs, AlignRight, th.Dim, units.Duration(top))
	l.Label(px-fs*0.3, py+ph-fs*0.6, fs, AlignRight, th.Dim, "0")
	for i, p := range pts {
		// The first count and the powers of two from 16 on, so that the
		// crowded small counts do not overlap.
		if i == 0 || (p.N >= 16 && p.N&(p.N-1) == 0) {
			x, _ := at(p.N, 0)
			l.Label(x, py+ph+fs*0.2, fs, AlignCenter, th.Dim, strconv.Itoa(p.N))
		}
	}
	l.Label(px+pw, py+ph+fs*1.2, fs, AlignRight, th.Dim, "N GPUs")
	// The two curves, with their names at their ends.
	for _, c := range []struct {
		name string
		col  Color
		sec  func(TimeVsN) float64
	}{
		{"Star", th.Hot, func(p TimeVsN) float64 { return p.Star }},
		{"Ring", th.LinkActive, func(p TimeVsN) float64 { return p.Ring }},
	} {
		var lx, ly float32
		for i, p := range pts {
			x, y := at(p.N, c.sec(p))
			if i > 0 {
				l.Segment(lx, ly, x, y, 2*sc, c.col)
			}
			l.Circle(x, y, 2.5*sc, c.col)
			lx, ly = x, y
		}
		l.Label(lx-fs*0.4, ly-fs*1.3, fs, AlignRight, c.col, c.name)
	}
}

// drawChunks fills a GPU's inner box with one bar per chunk, as tall as
// the share of GPUs summed into it; when bars would be thinner than a
// pixel and a half, one bar shows the average instead.
func drawChunks(l *List, th Theme, sn collective.Snapshot, rank int, x, y, w, h float32) {
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
		l.Rect(bx, y+h*(1-f), bw-gap, h*f, Chunk(k, c))
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

func clamp(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func maxf(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func minf(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

// progress names the phase and round: "Reduce-Scatter 3/7", "AllGather
// 2/7", "Gather 1/2", "Broadcast 2/2".
func progress(sn collective.Snapshot) string {
	n := sn.Ranks
	switch {
	case sn.Round == 0:
		return "t = 0"
	case sn.Algo == collective.Star && sn.Done:
		return "AllReduce 2/2"
	case sn.Algo == collective.Star && sn.Phase == collective.PhaseBroadcast:
		return "Broadcast 2/2"
	case sn.Algo == collective.Star:
		return "Gather 1/2"
	case sn.Done:
		return "AllReduce " + strconv.Itoa(2*(n-1)) + "/" + strconv.Itoa(2*(n-1))
	case sn.Phase == collective.PhaseAllGather:
		return "AllGather " + strconv.Itoa(sn.Round-(n-1)) + "/" + strconv.Itoa(n-1)
	}
	return "Reduce-Scatter " + strconv.Itoa(sn.Round) + "/" + strconv.Itoa(n-1)
}
