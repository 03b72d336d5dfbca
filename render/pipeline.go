package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Proportions of a pipeline timeline, in row heights.
const (
	pipeLane       = 0.35 // the data-parallel lane under a stage row
	pipeLanePhases = 0.6  // … where it carries the all-reduce's name
	pipeGap        = 0.2  // between rows
	pipeMem        = 2.0  // the memory chart
	pipeSum        = 1.0  // the gradient's strip
	pipeVeil       = 170  // alpha of the background veiling what lies after the playhead
)

// AppendPipeline draws pipeline schedules one above the other on one time
// axis, under a headline and a legend of every mark it draws: a row per
// stage (or, for a one-stage time line with Replicas, a row per
// data-parallel replica, every one doing the same work), each forward and
// backward a block as long as it takes (recomputation hatched,
// interleaved chunks in shades of their colour, the micro-batch's number
// inside when there is room — with Phases, the first row's blocks say
// what they are), communication on the critical path a thin dark bar
// inside the row, a data-parallel bucket on a lane under it (lighter
// when compute hides it), the optimizer update, and every gap on a row
// before its last block — the bubble — in the theme's Empty, which
// nothing else in the picture uses (an exposed data-parallel bucket is
// communication, not a bubble); the widest gap of a time line says
// "idle". What lies after the playhead is veiled; under a timeline with
// Memory, stage 0's activation bytes over time as an area, the other
// stages' as lines.
//
// It is drawn every frame, and painted from a cache of its beginning
// (render/paint): so everything that does not move while it plays comes
// first, in full colour — legend, rows, bubbles, blocks, charts, axis —
// and what moves last: a translucent veil of the background over each
// time line's rows and charts after the playhead, the words that stay
// clear of it, the playhead. What it derives from the time lines alone —
// each row's bubbles, the marks to key, the rows — is kept in v.Cache
// between frames (without one it is derived anew), and so is what stands
// still: a frame in which only the playhead has moved copies it and
// draws only what moves. It draws no more
// marks than the pixels can show: marks of one colour that follow each
// other are one rectangle; marks narrower than a pixel, of several
// colours, are their pixel column in the colour covering most of it; a
// recomputed block narrower than its hatching's spacing is hatched with
// one stroke; a bubble under a tenth of a pixel is not drawn; a memory
// chart's steps under a pixel are one, at the highest of them. With a
// cache it allocates nothing but the list's items; its words are
// formatted once (memo).
func AppendPipeline(dst draw.List, v PipelineView) draw.List {
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, v.Theme)
	cache := v.Cache
	if cache == nil {
		cache = new(PipelineCache)
	}
	s := &cache.still
	key := pipeKey{v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words.Lang, v.Headline, v.Replicas, v.Phases, v.Span, v.Ref, v.ExpertComm, v.ContextComm,
		v.StageGPUs, v.ReplicaGPUs}
	if s.ok && s.key == key && cache.holds(v.Timelines) {
		// Only the playhead has moved: what stands still is copied.
		l.Items = append(l.Items, s.items...)
		l.Keys = append(l.Keys, s.keys...)
		l.Hits = append(l.Hits, s.hits...)
	} else {
		s.ok = false
		var ok bool
		if l, ok = pipeStill(l, v, cache, sc, &s.geom); !ok {
			return l
		}
		s.items = append(s.items[:0], l.Items...)
		s.keys = append(s.keys[:0], l.Keys...)
		s.hits = append(s.hits[:0], l.Hits...)
		s.key, s.ok = key, true
	}
	pipeMoving(&l, v, &s.geom, sc)
	return l
}

// pipeKey is everything in a PipelineView that the picture depends on but
// the playhead and the time lines (which PipelineCache.holds follows).
type pipeKey struct {
	w, h     float32
	stage    draw.Rect
	scale    float32
	theme    draw.Theme
	lang     string
	headline string
	replicas int
	phases   bool
	span     float64
	ref      float64
	experts  bool
	context  bool
	stageGPU int
	replGPU  int
}

// pipeGeom is where AppendPipeline's moving marks go, found while drawing
// what stands still: the time axis (x0 … x0+xw for 0 … span), the rows'
// top and the axis' line, what the playhead veils (each rectangle whole;
// the part after the playhead is veiled) and the words over the veils.
type pipeGeom struct {
	x0, xw, rowsTop, ay float32
	span                float64
	veils               []draw.Rect
	over                []draw.Item
	// still: every time line is of a plan that does not fit (Unfit), so
	// none runs and no playhead crosses them; stopped: the bands (top,
	// bottom) of those that do not fit among others that do, which the
	// playhead skips.
	still   bool
	stopped [][2]float32
}

// at is t's x on the time axis, clamped to it.
func (g *pipeGeom) at(t float64) float32 {
	switch {
	case t <= 0:
		return g.x0
	case t >= g.span:
		return g.x0 + g.xw
	}
	return g.x0 + g.xw*float32(t/g.span)
}

// pipeMoving draws what moves with the playhead over what pipeStill drew:
// the veils after it, the words that stay clear of them, the reference
// line, the playhead.
func pipeMoving(l *draw.List, v PipelineView, g *pipeGeom, sc float32) {
	th := v.Theme
	play := float32(math.Inf(1))
	if v.Time >= 0 {
		play = g.at(v.Time)
	}
	vc := draw.WithAlpha(th.Background, pipeVeil)
	for _, r := range g.veils {
		if x := draw.Maxf(r.X, play); x < r.X+r.W {
			l.Rect(x, r.Y, r.X+r.W-x, r.H, vc)
		}
	}
	l.Items = append(l.Items, g.over...)
	ts := draw.TextSize(sc)
	if v.Ref > 0 && v.Ref <= g.span {
		// Another configuration's end, to compare with, dashed (the time
		// line's note names it).
		x := g.at(v.Ref)
		for yy := g.rowsTop; yy < g.ay; yy += ts * 0.9 {
			l.Segment(x, yy, x, draw.Minf(yy+ts*0.5, g.ay), 1.5*sc, th.Text)
		}
	}
	if v.Time >= 0 && v.Time <= g.span && !g.still {
		// Down the rows, past the time lines that do not run.
		y := g.rowsTop
		for _, b := range g.stopped {
			if b[0] > y {
				l.Segment(play, y, play, b[0], 1.5*sc, th.Text)
			}
			y = draw.Maxf(y, b[1])
		}
		if y < g.ay {
			l.Segment(play, y, play, g.ay, 1.5*sc, th.Text)
		}
	}
}

// pipeStill draws what does not move while the playhead does, in full
// colour, and says in g where the moving marks go; false: there is
// nothing to draw a time line in.
func pipeStill(l draw.List, v PipelineView, cache *PipelineCache, sc float32, g *pipeGeom) (draw.List, bool) {
	th := v.Theme
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Timelines) == 0 {
		return l, false
	}
	facts := cache.derive(v.Timelines)
	span := v.Span
	if span <= 0 {
		for i := range v.Timelines {
			span = math.Max(span, facts[i].end)
		}
	}
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return l, false
	}
	ts := draw.TextSize(sc)
	fs, pad := draw.HeadFont(st, sc)
	top := st.Y + pad*0.5
	y := top
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		y = st.Y + draw.HeadlineHeight(st, sc, v.Headline)
	}
	var kinds pipeKinds
	for i := range facts {
		kinds.merge(facts[i].kinds)
	}
	y += pipeLegend(&l, v, kinds, st.X+pad, y, st.W-2*pad, ts, sc) + ts*0.2

	// Row labels: as wide as the widest, at the left.
	replicas := 0
	if v.Replicas > 1 {
		replicas = min(v.Replicas, maxReplicaRows)
	}
	labW := float32(0)
	for i := range v.Timelines {
		rows := facts[i].rows
		if replicas > 0 && rows == 1 {
			labW = draw.Maxf(labW, draw.TextWidth(rowLabel(v.Words, "canvas.pipe.gpu", v.Replicas-1), ts))
		} else if rows > 0 {
			labW = draw.Maxf(labW, draw.TextWidth(rowLabel(v.Words, "canvas.pipe.stage", rows-1), ts))
		}
	}
	x0 := st.X + pad + labW + ts*0.5
	xw := st.X + st.W - pad - x0
	titleH := ts * draw.LineHeight * 1.15
	axisH := ts*draw.LineHeight + ts*0.8
	// Row height: what is left after titles and the axis, shared by the
	// rows (with their lanes and gaps) and memory charts.
	var units, fixed float32
	for i, tl := range v.Timelines {
		rows, dp := facts[i].rows, facts[i].dp
		if replicas > 0 && rows == 1 {
			rows = replicas
		}
		units += float32(rows) * rowPitch(1, dp, v.Phases)
		if len(tl.Memory) > 0 {
			units += pipeMem + 2*pipeGap
		}
		if len(tl.Sums) > 0 {
			units += pipeSum + pipeGap
		}
		fixed += titleH
		if i > 0 {
			fixed += ts * 0.4
		}
	}
	if units <= 0 || xw <= 0 {
		return l, false
	}
	rowH := draw.Minf((st.Y+st.H-pad*0.5-y-axisH-fixed)/units, fs*4)
	if units <= 6 {
		rowH = draw.Minf((st.Y+st.H-pad*0.5-y-axisH-fixed)/units, fs*5.5) // one stage: a taller row
	}
	if rowH < 1 {
		return l, false
	}
	at := func(t float64) float32 {
		switch {
		case t <= 0:
			return x0
		case t >= span:
			return x0 + xw
		}
		return x0 + xw*float32(t/span)
	}
	nfs := ts // micro-batch numbers, where a row holds them
	hatch := draw.WithAlpha(th.Background, 170)
	comm := draw.CommColour(th)
	rowsTop := y
	// What moves, drawn after everything else (pipeMoving): the veils
	// after the playhead, then the words over them (over).
	veils := g.veils[:0]
	stopped := g.stopped[:0]
	over := draw.List{Items: g.over[:0]}
	unfit, still := false, true // this time line's plan does not fit; none does
	veil := func(x, y, w, h float32) {
		if w > 0 && h > 0 && !unfit { // a plan that does not run is veiled whole (unfitVeil), not by the playhead
			veils = append(veils, draw.Rect{X: x, Y: y, W: w, H: h})
		}
	}
	for ti, tl := range v.Timelines {
		if ti > 0 {
			y += ts * 0.4
		}
		fa := &facts[ti]
		unfit = tl.Unfit != ""
		still = still && unfit
		rows, dp := fa.rows, fa.dp
		copies := 1
		if replicas > 0 && rows == 1 {
			copies = replicas
		}
		pitch := rowH * rowPitch(1, dp, v.Phases)
		laneH := rowH * lane(v.Phases)
		end := at(fa.end)
		note := draw.TextWidth(tl.Note, ts)
		if tl.Note != "" {
			l.Label(st.X+st.W-pad, y, ts, draw.AlignRight, th.Text, tl.Note)
			note += ts
		}
		l.Label(st.X+pad, y, ts, draw.AlignLeft, th.Text, draw.Fit(tl.Label, ts, st.W-2*pad-note))
		y += titleH
		tlTop := y
		n := rows * copies
		lh := ts * draw.LineHeight
		every := max(1, int(math.Ceil(float64(lh*1.02/pitch))))
		if copies > 1 {
			// The all-reduce joins the replicas: a band behind their rows
			// while it runs.
			if lo, hi := fa.arLo, fa.arHi; hi > lo {
				l.Rect(at(lo), y, at(hi)-at(lo), float32(n)*pitch-pipeGap*rowH, draw.WithAlpha(th.Hot, 45))
			}
		}
		for r := range n {
			ry := y + float32(r)*pitch
			l.Rect(x0, ry, end-x0, rowH, th.Panel)
			if v.StageGPUs > 0 {
				g := r * v.StageGPUs
				if copies > 1 {
					k := r
					if r == n-1 {
						k = v.Replicas - 1
					}
					g = k * max(v.ReplicaGPUs, 1)
				}
				l.Hit(x0, ry, end-x0, rowH, g) // a click on a row zooms into its GPU
			}
			// A label centred on its row, inside the rows' band where the
			// rows are thinner than a line.
			ly := draw.Clamp(ry+(rowH-lh)/2, y, y+float32(n)*pitch-lh)
			if (r%every == 0 || (copies > 1 && r == n-1 && r%every >= (every+1)/2)) && (r == 0 || ly >= y+float32(r-every)*pitch+lh*1.02 || every == 1) && ly+lh <= y+float32(n)*pitch+ts*0.1 {
				label := ""
				if copies > 1 {
					k := r
					if r == n-1 {
						k = v.Replicas - 1
					}
					label = rowLabel(v.Words, "canvas.pipe.gpu", k)
				} else {
					label = rowLabel(v.Words, "canvas.pipe.stage", r)
				}
				l.Label(x0-ts*0.4, ly, ts, draw.AlignRight, th.Dim, label)
			}
		}
		cols := cache.columns(3 * rows) // by row: the block band, the communication band, the data-parallel lane
		for c := range copies {
			pipeBubbles(&l, fa, cols[:rows], y+float32(c)*pitch, pitch, rowH, at, th.Empty)
		}
		for r := range n {
			// The future is veiled: a row and its lane.
			h := rowH
			if dp {
				h += laneH
			}
			veil(x0, y+float32(r)*pitch, end-x0, h)
		}
		for c := range copies {
			cy := y + float32(c)*pitch
			hatches := cache.hatchRuns(rows)
			for _, b := range tl.Blocks {
				if b.Stage < 0 || b.Stage >= rows || !(b.End > b.Start) {
					continue
				}
				xa, xb := at(b.Start), at(b.End)
				if xb <= xa {
					continue
				}
				w := xb - xa
				if w > 4*sc {
					w -= 1 * sc // a hairline between neighbouring blocks
				}
				by, bh := cy+float32(b.Stage)*pitch, rowH
				band := 0
				var col draw.Color
				switch b.Kind {
				case BlockForward:
					col = th.LinkActive
				case BlockBackward, BlockRecompute:
					col = th.Rim
				case BlockComm:
					col = comm
					by, bh = by+rowH/3, rowH/3
					band = 1
				case BlockDPComm:
					col = th.Hot
					if b.Hidden {
						col = draw.WithAlpha(th.Hot, 110)
					}
					by, bh = by+rowH+laneH*0.15, laneH*0.7
					band = 2
				case BlockOptimizer:
					col = th.Dim
				default:
					continue
				}
				if b.Chunk > 0 && b.Kind <= BlockRecompute {
					col = chunkShade(col, b.Chunk)
				}
				row, hr := cols[3*b.Stage:3*b.Stage+3], &hatches[b.Stage]
				if band == 1 {
					// Communication goes over the compute it interrupts:
					// the compute (and its hatching) first.
					row[0].flush(&l)
					hr.flush(&l)
				}
				if b.Kind == BlockRecompute {
					// Its hatching goes over it: what is pending goes
					// first, then the block joins the next.
					hr.add(&l, &row[0], xa, by, w, bh, hatch, draw.Maxf(rowH*0.45, 4*sc), 1.2*sc)
				}
				row[band].add(&l, xa, by, w, bh, col)
				if w < 1 || unfit {
					continue // no room for words; none in a plan that does not run
				}
				tc := th.Background
				word := ""
				size := nfs
				if v.Phases && c == 0 && b.Stage == 0 {
					if s := phaseWord(v.Words, b); s != "" && b.Kind != BlockDPComm && w >= draw.TextWidth(s, ts)+ts*0.6 && bh >= ts*draw.LineHeight {
						word, size = s, ts
					}
				}
				if word == "" && b.MicroBatch >= 0 && b.Kind != BlockComm && b.Kind != BlockDPComm && b.Kind != BlockOptimizer && rowH >= nfs*draw.LineHeight*0.95 {
					if s := draw.SmallInt(b.MicroBatch); w >= draw.TextWidth(s, nfs)+nfs*0.4 {
						word = s
					}
				}
				if word != "" {
					// Words over their block: the block drawn first.
					row[band].flush(&l)
					if band == 0 {
						hr.flush(&l)
					}
					l.Label(xa+w/2, by+(bh-size*draw.LineHeight)/2, size, draw.AlignCenter, tc, word)
				}
			}
			for r := range rows {
				row := cols[3*r : 3*r+3]
				row[0].flush(&l)
				hatches[r].flush(&l)
				row[1].flush(&l)
				row[2].flush(&l)
			}
		}
		if v.Phases && !unfit {
			pipeAllReduce(&over, v, fa, y, rowH, laneH, at, ts)
		}
		if !unfit {
			pipeIdle(&over, v, fa, rows, y, pitch, rowH, at, ts)
		}
		y += float32(n) * pitch
		if len(tl.Sums) > 0 {
			r := draw.Rect{X: x0, Y: y, W: end - x0, H: rowH * pipeSum}
			pipeSums(&l, &over, v, tl, fa.end, r, at, ts)
			veil(r.X, r.Y, r.W, r.H)
			y += rowH * (pipeSum + pipeGap)
		}
		if len(tl.Memory) > 0 {
			r := draw.Rect{X: x0, Y: y + rowH*pipeGap, W: end - x0, H: rowH * pipeMem}
			pipeMemory(&l, &over, v, sc, tl, fa.end, r, at, ts)
			veil(r.X, r.Y, r.W, r.H-0.5*sc) // down to its axis, which stays
			y += rowH * (pipeMem + 2*pipeGap)
		}
		if unfit {
			// The plan does not fit: its rows and charts veiled and
			// hatched whole, over their words, how far over in a box.
			rowsH := float32(n)*pitch - pipeGap*rowH
			box := draw.UnfitVeil(&over, th, draw.Rect{X: x0, Y: tlTop, W: xw, H: y - tlTop}, draw.Rect{X: x0, Y: tlTop, W: xw, H: rowsH}, sc, ts, tl.Unfit)
			l.Key(th.Hot, tl.Unfit)
			stopped = append(stopped, [2]float32{draw.Minf(tlTop, box.Y), draw.Maxf(y, box.Y+box.H)})
		}
	}

	// The time axis under the last timeline, in s, ms or µs.
	ay := y + ts*0.2
	l.Segment(x0, ay, x0+xw, ay, 1*sc, th.Dim)
	unit, name := 1.0, "s"
	switch {
	case span < 1e-3:
		unit, name = 1e-6, "µs"
	case span < 1:
		unit, name = 1e-3, "ms"
	}
	tick := draw.NiceStep(span / unit / 5)
	for float32(span/unit/tick)*draw.TextWidth("0000", ts) > xw*0.8 {
		tick = draw.NiceStep(tick * 2.2)
	}
	for k := 0; float64(k)*tick <= span/unit*1.0001; k++ {
		t := float64(k) * tick
		x := at(t * unit)
		l.Segment(x, ay, x, ay+ts*0.3, 1*sc, th.Dim)
		s := draw.TickLabel(t, draw.Decimals(tick))
		w := draw.TextWidth(s, ts)
		l.Label(draw.Clamp(x, x0+w/2-labW-ts*0.4, x0+xw-w/2), ay+ts*0.4, ts, draw.AlignCenter, th.Dim, s)
	}
	l.Label(x0-ts*0.6-draw.TextWidth("0", ts), ay+ts*0.4, ts, draw.AlignRight, th.Dim, name)

	*g = pipeGeom{x0: x0, xw: xw, rowsTop: rowsTop, ay: ay, span: span, veils: veils, over: over.Items, still: still, stopped: stopped}
	return l, true
}

// pipeSums draws the gradient summed over a step's micro-batches in r:
// an area of steps from nothing to all of it, named (over the veil) at the left
// and with the time line's note at the right.
func pipeSums(l, over *draw.List, v PipelineView, tl Timeline, end float64, r draw.Rect, at func(float64) float32, ts float32) {
	th := v.Theme
	c := memoryColour("gradients", th)
	l.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	for i, p := range tl.Sums {
		t1 := end
		if i+1 < len(tl.Sums) {
			t1 = tl.Sums[i+1].T
		}
		xa, xb := at(p.T), at(t1)
		f := float32(math.Min(1, math.Max(0, p.Bytes)))
		if xb > xa && f > 0 {
			l.Rect(xa, r.Y+r.H*(1-f), xb-xa, r.H*f, c)
		}
	}
	if r.H >= ts*draw.LineHeight {
		name := draw.Say(v.Words, "canvas.pipe.grad")
		over.Label(r.X+ts*0.3, r.Y+(r.H-ts*draw.LineHeight)/2, ts, draw.AlignLeft, th.Text, name)
		if tl.SumsNote != "" && draw.TextWidth(name, ts)+draw.TextWidth(tl.SumsNote, ts)+ts*1.5 <= r.W {
			over.Label(r.X+r.W-ts*0.3, r.Y+(r.H-ts*draw.LineHeight)/2, ts, draw.AlignRight, th.Text, tl.SumsNote)
		}
	}
}

// maxReplicaRows is the most replica rows a data-parallel time line
// draws; the last is the last replica.
const maxReplicaRows = 8

// pipeKinds are the marks a picture's time lines draw, for its legend.
type pipeKinds struct {
	forward, backward, recompute, comm, dp, hidden, optimizer, idle, memory, sums bool
	chunks                                                                        int // interleaved chunks beyond the first
}

// merge adds the marks of o.
func (k *pipeKinds) merge(o pipeKinds) {
	k.forward, k.backward, k.recompute, k.comm = k.forward || o.forward, k.backward || o.backward, k.recompute || o.recompute, k.comm || o.comm
	k.dp, k.hidden, k.optimizer, k.idle = k.dp || o.dp, k.hidden || o.hidden, k.optimizer || o.optimizer, k.idle || o.idle
	k.memory, k.sums, k.chunks = k.memory || o.memory, k.sums || o.sums, max(k.chunks, o.chunks)
}

func (k *pipeKinds) add(tl Timeline) {
	for _, b := range tl.Blocks {
		switch b.Kind {
		case BlockForward:
			k.forward = true
		case BlockBackward:
			k.backward = true
		case BlockRecompute:
			k.recompute = true
		case BlockComm:
			k.comm = true
		case BlockDPComm:
			if b.Hidden {
				k.hidden = true
			} else {
				k.dp = true
			}
		case BlockOptimizer:
			k.optimizer = true
		}
		if b.Kind <= BlockRecompute {
			k.chunks = max(k.chunks, b.Chunk)
		}
	}
	rows, _ := timelineRows(tl)
	k.idle = k.idle || rows > 1
	k.memory = k.memory || len(tl.Memory) > 0
	k.sums = k.sums || len(tl.Sums) > 0
}

// pipeLegend draws the legend of the kinds drawn, and keys the chunks'
// shades; it returns its height.
func pipeLegend(l *draw.List, v PipelineView, k pipeKinds, x, y, w, ts, sc float32) float32 {
	th := v.Theme
	var e [16]draw.LegendEntry
	n := 0
	entry := func(c draw.Color, hatch bool, label string) {
		if n < len(e) {
			e[n] = draw.LegendEntry{Color: c, Hatch: hatch, Label: label}
			n++
		}
	}
	add := func(c draw.Color, hatch bool, key string) { entry(c, hatch, draw.Say(v.Words, key)) }
	if k.forward {
		add(th.LinkActive, false, "canvas.pipe.forward")
	}
	if k.backward {
		add(th.Rim, false, "canvas.pipe.backward")
	}
	if k.recompute {
		add(th.Rim, true, "canvas.pipe.recompute")
	}
	for c := 1; c <= k.chunks && c < chunkShades; c++ {
		entry(chunkShade(th.LinkActive, c), false, chunkLabel(v.Words, c, k.chunks+1))
	}
	if k.comm {
		key := "canvas.pipe.comm"
		if v.ExpertComm {
			key = "canvas.pipe.comm_ep"
		} else if v.ContextComm {
			key = "canvas.pipe.comm_cp"
		}
		add(draw.CommColour(th), false, key)
	}
	if k.dp {
		add(th.Hot, false, "canvas.pipe.allreduce")
	}
	if k.hidden {
		add(draw.WithAlpha(th.Hot, 110), false, "canvas.pipe.hidden")
	}
	if k.optimizer {
		add(th.Dim, false, "canvas.pipe.update")
	}
	if k.idle {
		add(th.Empty, false, "canvas.pipe.idle")
	}
	if k.sums {
		add(memoryColour("gradients", th), false, "canvas.pipe.grad")
	}
	if k.memory {
		add(memoryColour("activations", th), false, "canvas.pipe.activations")
	}
	// The chunks' backward shades mean what their forward shades do.
	for c := 1; c <= k.chunks && c < chunkShades; c++ {
		l.Key(chunkShade(th.Rim, c), chunkLabel(v.Words, c, k.chunks+1))
	}
	return draw.Legend(l, th, x, y, w, ts, sc, e[:n]...)
}

// chunkShades is how many shades tell interleaved chunks apart before
// they come round again (chunkShade).
const chunkShades = 4

var chunkKeys = [chunkShades]string{"", "canvas.pipe.chunk2", "canvas.pipe.chunk3", "canvas.pipe.chunk4"}

// chunkLabel names the chunks drawn in shade c of a stage's v chunks:
// model chunk c + 1, and with more than four chunks (the shades come
// round again every four) every fourth after it, "model chunks 2, 6".
func chunkLabel(w draw.Words, c, v int) string {
	if c+chunkShades >= v {
		return draw.Say(w, chunkKeys[c])
	}
	return draw.SayMemo.Get(draw.WordKey{Lang: w.Lang, Key: "canvas.pipe.chunks", N: c<<16 | v}, func() string {
		var list []string
		for i := c; i < v; i += chunkShades {
			list = append(list, strconv.Itoa(i+1))
		}
		return w.Say("canvas.pipe.chunks", "list", strings.Join(list, w.Say("list.sep"))) // inside the memo: w.Say, not say
	})
}

// phaseWord is what a block of the first row says with Phases: forward,
// backward, all-reduce, update.
func phaseWord(w draw.Words, b TimelineBlock) string {
	switch b.Kind {
	case BlockForward:
		return draw.Say(w, "canvas.pipe.forward")
	case BlockBackward:
		return draw.Say(w, "canvas.pipe.backward")
	case BlockOptimizer:
		return draw.Say(w, "canvas.pipe.update")
	}
	return ""
}

// allReduceSpan is when stage 0's data-parallel all-reduce runs.
func allReduceSpan(tl Timeline) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, b := range tl.Blocks {
		if b.Kind == BlockDPComm && b.Stage == 0 && b.End > b.Start {
			lo, hi = math.Min(lo, b.Start), math.Max(hi, b.End)
		}
	}
	return lo, hi
}

// pipeAllReduce names the data-parallel all-reduce on the first row's
// lane, where it fits.
func pipeAllReduce(l *draw.List, v PipelineView, fa *lineFacts, y0, rowH, laneH float32, at func(float64) float32, ts float32) {
	lo, hi := fa.arLo, fa.arHi
	if hi <= lo {
		return
	}
	s := draw.Say(v.Words, "canvas.pipe.allreduce")
	xa, xb := at(lo), at(hi)
	if xb-xa >= draw.TextWidth(s, ts)+ts*0.4 && laneH >= ts*draw.LineHeight*0.95 {
		l.Label((xa+xb)/2, y0+rowH+(laneH-ts*draw.LineHeight)/2, ts, draw.AlignCenter, v.Theme.Text, s)
	}
}

// pipeIdle says "idle" in the widest bubble of a time line, where it
// fits.
func pipeIdle(l *draw.List, v PipelineView, fa *lineFacts, rows int, y0, pitch, rowH float32, at func(float64) float32, ts float32) {
	if rows < 2 || rowH < ts*draw.LineHeight || fa.idleRow < 0 {
		return
	}
	word := draw.Say(v.Words, "canvas.pipe.idle")
	xa, xb := at(fa.idle[0]), at(fa.idle[1])
	if xb-xa < draw.TextWidth(word, ts)+ts {
		return
	}
	l.Label((xa+xb)/2, y0+float32(fa.idleRow)*pitch+(rowH-ts*draw.LineHeight)/2, ts, draw.AlignCenter, v.Theme.Dim, word)
}

// timelineRows is a timeline's stages (from its blocks when Stages is
// unset) and whether it has a data-parallel lane.
func timelineRows(tl Timeline) (rows int, dp bool) {
	rows = tl.Stages
	derive := rows <= 0
	for _, b := range tl.Blocks {
		if b.Kind == BlockDPComm {
			dp = true
			if !derive {
				break
			}
		}
		if derive {
			rows = max(rows, b.Stage+1)
		}
	}
	return rows, dp
}

// timelineEnd is a timeline's Length, or its last block's end without
// one.
func timelineEnd(tl Timeline) float64 {
	if tl.Length > 0 {
		return tl.Length
	}
	end := 0.0
	for _, b := range tl.Blocks {
		end = math.Max(end, b.End)
	}
	return end
}

// rowPitch is the height a stage takes for rows of height h: with a
// data-parallel lane, taller with the phases named.
func rowPitch(h float32, dp, phases bool) float32 {
	if dp {
		return h * (1 + lane(phases) + pipeGap)
	}
	return h * (1 + pipeGap)
}

// lane is the data-parallel lane's height in rows.
func lane(phases bool) float32 {
	if phases {
		return pipeLanePhases
	}
	return pipeLane
}

// covers says whether a block keeps its stage from a bubble: all blocks
// but a hidden data-parallel bucket, which runs under compute (an exposed
// one is time spent on communication, drawn as such, not a bubble).
func covers(b *TimelineBlock) bool { return !(b.Kind == BlockDPComm && b.Hidden) && b.End > b.Start }

// pipeBubbles fills, on each row, the gaps between 0 and the row's last
// block end that no block covers (a hidden data-parallel bucket does not
// count): fa's, found once. Gaps narrower than a pixel merge into pixel
// columns (cols, one a row); under a tenth of a pixel they are not drawn
// (the painter would show a hairline at half strength, overstating
// them tenfold).
func pipeBubbles(l *draw.List, fa *lineFacts, cols []column, y0, pitch, rowH float32, at func(float64) float32, c draw.Color) {
	for s := range min(fa.rows, len(cols)) {
		y := y0 + float32(s)*pitch
		for _, g := range fa.gaps[fa.gapStart[s]:fa.gapStart[s+1]] {
			xa, xb := at(g[0]), at(g[1])
			switch {
			case xb-xa < 0.1:
			case xb-xa < 1:
				cols[s].add(l, xa, y, xb-xa, rowH, c)
			default:
				l.Rect(xa, y, xb-xa, rowH, c)
			}
		}
		cols[s].flush(l)
	}
}

// PipelineCache keeps what AppendPipeline derives from a view's time
// lines alone between the frames that draw them (PipelineView.Cache),
// and its working memory. The zero value is ready to use; it follows
// the time lines it is given, deriving again when they are other ones
// (another slice, or blocks in other storage).
type PipelineCache struct {
	tls     []Timeline
	blocks  []*TimelineBlock // each time line's first block, when derived
	nblocks []int
	facts   []lineFacts
	cols    []column
	hatches []hatchRun
	still   pipeStillCache
	iv      [][2]float64 // scratch: one row's covered intervals
}

// pipeStillCache is the last picture AppendPipeline drew but for what
// moves with the playhead: its items and keys, for the view it was drawn
// for, and where the moving marks go.
type pipeStillCache struct {
	ok    bool
	key   pipeKey
	items []draw.Item
	keys  []draw.Key
	hits  []draw.Hit
	geom  pipeGeom
}

// lineFacts are one time line's: its rows, whether it has a
// data-parallel lane, its end, the marks it draws, stage 0's all-reduce,
// each row's bubbles (gaps[gapStart[s]:gapStart[s+1]] for row s) and
// the widest of them.
type lineFacts struct {
	rows       int
	dp         bool
	end        float64
	kinds      pipeKinds
	arLo, arHi float64
	gaps       [][2]float64
	gapStart   []int
	idleRow    int // −1: none
	idle       [2]float64
}

// derive is the facts of tls, from the cache when it holds them.
func (c *PipelineCache) derive(tls []Timeline) []lineFacts {
	if c.holds(tls) {
		return c.facts
	}
	c.tls = tls
	c.blocks, c.nblocks = c.blocks[:0], c.nblocks[:0]
	c.facts = draw.Grow(c.facts, len(tls))
	for i := range tls {
		tl := &tls[i]
		var first *TimelineBlock
		if len(tl.Blocks) > 0 {
			first = &tl.Blocks[0]
		}
		c.blocks, c.nblocks = append(c.blocks, first), append(c.nblocks, len(tl.Blocks))
		c.facts[i] = c.lineFacts(*tl, c.facts[i])
	}
	return c.facts
}

func (c *PipelineCache) holds(tls []Timeline) bool {
	if len(tls) != len(c.tls) || len(tls) == 0 || &tls[0] != &c.tls[0] {
		return false
	}
	for i := range tls {
		var first *TimelineBlock
		if len(tls[i].Blocks) > 0 {
			first = &tls[i].Blocks[0]
		}
		if first != c.blocks[i] || len(tls[i].Blocks) != c.nblocks[i] {
			return false
		}
	}
	return true
}

// lineFacts derives tl's facts, reusing the storage of old.
func (c *PipelineCache) lineFacts(tl Timeline, old lineFacts) lineFacts {
	f := lineFacts{end: timelineEnd(tl), idleRow: -1, gaps: old.gaps[:0], gapStart: old.gapStart[:0]}
	f.rows, f.dp = timelineRows(tl)
	f.kinds.add(tl)
	f.arLo, f.arHi = allReduceSpan(tl)
	for s := range max(f.rows, 0) {
		f.gapStart = append(f.gapStart, len(f.gaps))
		iv := c.iv[:0]
		for i := range tl.Blocks {
			if b := &tl.Blocks[i]; b.Stage == s && covers(b) {
				iv = append(iv, [2]float64{b.Start, b.End})
			}
		}
		// sort.Slice, not slices.SortFunc: the wasm links it already,
		// and a generic instantiation is ≈ 10 kB of code.
		sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
		cover := 0.0
		for _, x := range iv {
			if x[0] > cover {
				f.gaps = append(f.gaps, [2]float64{cover, x[0]})
				if f.idleRow < 0 || x[0]-cover > f.idle[1]-f.idle[0] {
					f.idleRow, f.idle = s, [2]float64{cover, x[0]}
				}
			}
			cover = math.Max(cover, x[1])
		}
		c.iv = iv
	}
	f.gapStart = append(f.gapStart, len(f.gaps))
	return f
}

// columns is n cleared column accumulators.
func (c *PipelineCache) columns(n int) []column {
	c.cols = draw.Grow(c.cols, n)
	clear(c.cols)
	return c.cols
}

// hatchRuns is n cleared hatch runs.
func (c *PipelineCache) hatchRuns(n int) []hatchRun {
	c.hatches = draw.Grow(c.hatches, n)
	clear(c.hatches)
	return c.hatches
}

// column holds a row band's (one y and height) latest marks, pending,
// to draw fewer of them. Marks of one colour that follow each other
// within half a pixel are drawn as one (recomputation and the backward
// it starts, a block's communication and the send after it); marks of
// several colours narrower than a pixel in one pixel column as that
// column, in the colour covering most of it. More marks than pixels
// cannot be seen, and each costs Draw time.
type column struct {
	x0, x1, y, h float32 // what is pending: its extent and band
	n            int     // colours gathered; 0: nothing pending
	c            [4]draw.Color
	cover        [4]float32
}

// add draws a mark from x, w wide, in colour c, or joins it to what is
// pending.
func (k *column) add(l *draw.List, x, y, w, h float32, c draw.Color) {
	if k.n > 0 && y == k.y && h == k.h {
		switch {
		case k.n == 1 && c == k.c[0] && x <= k.x1+0.5 && x >= k.x0:
			k.x1, k.cover[0] = draw.Maxf(k.x1, x+w), k.cover[0]+w
			return
		case w < 1 && k.x1-k.x0 < 1 && math.Floor(float64(x)) == math.Floor(float64(k.x0)):
			k.x1 = draw.Maxf(k.x1, x+w)
			for i := range k.n {
				if k.c[i] == c {
					k.cover[i] += w
					return
				}
			}
			if k.n < len(k.c) {
				k.c[k.n], k.cover[k.n] = c, w
				k.n++
			}
			return
		}
	}
	k.flush(l)
	*k = column{x0: x, x1: x + w, y: y, h: h, n: 1, c: [4]draw.Color{c}, cover: [4]float32{w}}
}

// flush draws what is pending: one colour as it lies, several as their
// pixel column.
func (k *column) flush(l *draw.List) {
	switch {
	case k.n == 1:
		l.Rect(k.x0, k.y, k.x1-k.x0, k.h, k.c[0])
	case k.n > 1:
		best := 0
		for i := 1; i < k.n; i++ {
			if k.cover[i] > k.cover[best] {
				best = i
			}
		}
		l.Rect(float32(math.Floor(float64(k.x0))), k.y, 1, k.h, k.c[best])
	}
	k.n = 0
}

// hatchRun is a row's recomputation hatched as one while its blocks
// follow each other within a pixel: narrow blocks would each take a line
// or two of hatching, thousands a frame.
type hatchRun struct {
	x0, x1, y, h, step, width float32
	c                         draw.Color
	on                        bool
}

// add hatches the block at x, w wide, in colour c: with the run when it
// touches it, else after drawing the run. main is the row's block band,
// drawn first (hatching goes over the blocks).
func (r *hatchRun) add(l *draw.List, main *column, x, y, w, h float32, c draw.Color, step, width float32) {
	if r.on && x <= r.x1+1 && c == r.c && y == r.y && h == r.h {
		r.x1 = draw.Maxf(r.x1, x+w)
		return
	}
	main.flush(l)
	r.flush(l)
	*r = hatchRun{x0: x, x1: x + w, y: y, h: h, step: step, width: width, c: c, on: true}
}

// flush draws the run's hatching: a run narrower than the hatching's
// spacing is one stroke across its middle (its lines would be as many
// dashes, one under another, a few pixels apart, in a block a pixel or
// two wide).
func (r *hatchRun) flush(l *draw.List) {
	if !r.on {
		return
	}
	r.on = false
	if w := r.x1 - r.x0; w < r.step && w < r.h {
		cy := r.y + r.h/2
		l.Segment(r.x0, cy+w/2, r.x1, cy-w/2, r.width, r.c)
		return
	}
	draw.Hatch(l, r.x0, r.y, r.x1-r.x0, r.h, r.step, r.width, r.c)
}

// pipeMemory draws activation bytes over time in r: stage 0's as an area
// of steps, the others' as thin levels behind it, on a scale up to the largest, which is
// labelled (over the veil).
func pipeMemory(l, over *draw.List, v PipelineView, sc float32, tl Timeline, end float64, r draw.Rect, at func(float64) float32, ts float32) {
	th := v.Theme
	peak := 0.0
	for _, pts := range tl.Memory {
		for _, p := range pts {
			peak = math.Max(peak, p.Bytes)
		}
	}
	if peak <= 0 || r.W <= 0 {
		return
	}
	base := r.Y + r.H
	area := memoryColour("activations", th)
	// The peak a line under the chart's top, where its labels go.
	h := r.H
	if r.H >= ts*draw.LineHeight*2.2 {
		h = r.H - ts*draw.LineHeight
	}
	level := func(b float64) float32 { return base - h*float32(math.Max(0, b)/peak) }
	// The other stages first, behind stage 0's area: a thin level a step,
	// joined while it holds — every other one of a deep pipeline's (16
	// stages' levels, a line a pixel each, were 10,000 lines a frame for
	// three time lines, and as many near-identical lines tell no more).
	every := 1
	if len(tl.Memory) > 8 {
		every = (len(tl.Memory) + 7) / 8
	}
	for s := len(tl.Memory) - 1; s >= 1; s-- {
		if (len(tl.Memory)-1-s)%every != 0 {
			continue
		}
		var m narrowSteps
		pts := tl.Memory[s]
		var sx, sy float32
		for i, p := range pts {
			xa, yy := at(p.T), level(p.Bytes)
			if i > 0 && yy != sy {
				m.step(sx, xa, sy, func(xa, xb, y float32) { memLevel(l, xa, xb, y, sc, th.Dim) })
			}
			if i == 0 || yy != sy {
				sx, sy = xa, yy
			}
		}
		if len(pts) > 0 {
			m.step(sx, at(end), sy, func(xa, xb, y float32) { memLevel(l, xa, xb, y, sc, th.Dim) })
		}
		m.flush(func(xa, xb, y float32) { memLevel(l, xa, xb, y, sc, th.Dim) })
	}
	if len(tl.Memory) > 0 {
		var m narrowSteps
		mark := func(xa, xb, y float32) {
			if y < base {
				l.Rect(xa, y, xb-xa, base-y, area)
			}
		}
		pts := tl.Memory[0]
		for i, p := range pts {
			t1 := end
			if i+1 < len(pts) {
				t1 = pts[i+1].T
			}
			if xa, xb := at(p.T), at(t1); xb > xa {
				m.step(xa, xb, level(p.Bytes), mark)
			}
		}
		m.flush(mark)
	}
	l.Segment(r.X, base, r.X+r.W, base, 1*sc, th.Link)
	if r.H >= ts*draw.LineHeight*1.1 {
		// Its peak at the right; its name at the left where both fit (the
		// legend names it too).
		pk, name := maxLabel(v.Words, peak), draw.Say(v.Words, "canvas.pipe.activations")
		over.Label(r.X+r.W, r.Y, ts, draw.AlignRight, th.Dim, pk)
		if draw.TextWidth(pk, ts)+draw.TextWidth(name, ts)+ts*1.5 <= r.W {
			over.Label(r.X+ts*0.3, r.Y, ts, draw.AlignLeft, th.Dim, name)
		}
	}
}

// narrowSteps joins the steps of a memory chart narrower than a pixel:
// consecutive ones are drawn as one, at the highest of them (the least
// y), once they span a pixel.
type narrowSteps struct {
	x0, x1, y float32
	on        bool
}

// step draws the step from xa to xb at y, or joins it to the narrow ones.
func (m *narrowSteps) step(xa, xb, y float32, mark func(xa, xb, y float32)) {
	if xb-xa >= 1 {
		m.flush(mark)
		mark(xa, xb, y)
		return
	}
	if !m.on {
		*m = narrowSteps{xa, xb, y, true}
	} else {
		m.x1, m.y = xb, draw.Minf(m.y, y)
	}
	if m.x1-m.x0 >= 1 {
		m.flush(mark)
	}
}

func (m *narrowSteps) flush(mark func(xa, xb, y float32)) {
	if m.on {
		mark(m.x0, m.x1, m.y)
		m.on = false
	}
}

// memLevel draws a level of a memory line from xa to xb.
func memLevel(l *draw.List, xa, xb, y, sc float32, c draw.Color) {
	if xb > xa {
		l.Segment(xa, y, xb, y, 1*sc, draw.WithAlpha(c, 200))
	}
}

// chunkShade tells interleaved chunks apart: chunk 1 lighter, 2 darker,
// 3 lighter still, then around again.
func chunkShade(c draw.Color, chunk int) draw.Color {
	switch chunk % chunkShades {
	case 1:
		return draw.Mix(c, draw.Color{R: 255, G: 255, B: 255, A: c.A}, 0.45)
	case 2:
		return draw.Mix(c, draw.Color{R: 0, G: 0, B: 0, A: c.A}, 0.35)
	case 3:
		return draw.Mix(c, draw.Color{R: 255, G: 255, B: 255, A: c.A}, 0.7)
	}
	return c
}

// rowLabel is a row's label (key with {n}), formatted once.
func rowLabel(w draw.Words, key string, n int) string {
	return draw.SayMemo.Get(draw.WordKey{Lang: w.Lang, Key: key, N: n}, func() string { return w.Say(key, "n", strconv.Itoa(n)) })
}

// maxLabel is the activation chart's "max …", formatted once a value.
func maxLabel(w draw.Words, b float64) string {
	return maxLabels.Get(maxKey{w.Lang, b}, func() string { return w.Say("canvas.pipe.max", "bytes", draw.BytesLabel(b)) })
}

type maxKey struct {
	lang string
	b    float64
}

var maxLabels draw.Memo[maxKey]
