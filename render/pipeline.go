package render

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// Proportions of a pipeline timeline, in row heights.
const (
	pipeLane       = 0.35 // the data-parallel lane under a stage row
	pipeLanePhases = 0.6  // … where it carries the all-reduce's name
	pipeGap        = 0.2  // between rows
	pipeMem        = 2.0  // the memory chart
	pipeSum        = 1.0  // the gradient's strip
	pipeFaint      = 70   // alpha of what lies after the playhead
	// Stages whose bubbles are found in one pass over the blocks with
	// per-stage state on the stack; more rows than this take a pass each.
	pipeFastStages = 256
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
// "idle". What lies after the playhead is faint; under a timeline with
// Memory, stage 0's activation bytes over time as an area, the other
// stages' as lines.
//
// It is drawn every frame: it allocates only the list's items, and takes
// one pass over the blocks when each stage's row blocks come in order of
// start time (as engine/parallel gives compute blocks); a stage whose
// blocks do not is sorted on the stack. Its words are formatted once
// (memo).
func AppendPipeline(dst List, v PipelineView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Timelines) == 0 {
		return l
	}
	span := v.Span
	if span <= 0 {
		for _, tl := range v.Timelines {
			span = math.Max(span, timelineEnd(tl))
		}
	}
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return l
	}
	ts := textSize(sc)
	fs, pad := headFont(st, sc)
	top := st.Y + pad*0.5
	y := top
	if v.Headline != "" {
		Headline(&l, th, st, sc, v.Headline)
		y = st.Y + HeadlineHeight(st, sc)
	}
	var kinds pipeKinds
	for _, tl := range v.Timelines {
		kinds.add(tl)
	}
	y += pipeLegend(&l, v, kinds, st.X+pad, y, st.W-2*pad, ts, sc) + ts*0.2

	// Row labels: as wide as the widest, at the left.
	replicas := 0
	if v.Replicas > 1 {
		replicas = min(v.Replicas, maxReplicaRows)
	}
	labW := float32(0)
	for _, tl := range v.Timelines {
		rows, _ := timelineRows(tl)
		if replicas > 0 && rows == 1 {
			labW = maxf(labW, labelWidth(rowLabel(v.Words, "canvas.pipe.gpu", v.Replicas-1), ts))
		} else if rows > 0 {
			labW = maxf(labW, labelWidth(rowLabel(v.Words, "canvas.pipe.stage", rows-1), ts))
		}
	}
	x0 := st.X + pad + labW + ts*0.5
	xw := st.X + st.W - pad - x0
	titleH := ts * LineHeight * 1.15
	axisH := ts*LineHeight + ts*0.8
	// Row height: what is left after titles and the axis, shared by the
	// rows (with their lanes and gaps) and memory charts.
	var units, fixed float32
	for i, tl := range v.Timelines {
		rows, dp := timelineRows(tl)
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
		return l
	}
	rowH := minf((st.Y+st.H-pad*0.5-y-axisH-fixed)/units, fs*4)
	if units <= 6 {
		rowH = minf((st.Y+st.H-pad*0.5-y-axisH-fixed)/units, fs*5.5) // one stage: a taller row
	}
	if rowH < 1 {
		return l
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
	play := float32(math.Inf(1))
	if v.Time >= 0 {
		play = at(v.Time)
	}
	nfs := ts // micro-batch numbers, where a row holds them
	hatch := withAlpha(th.Background, 170)
	comm := commColour(th)
	rowsTop := y
	for ti, tl := range v.Timelines {
		if ti > 0 {
			y += ts * 0.4
		}
		rows, dp := timelineRows(tl)
		copies := 1
		if replicas > 0 && rows == 1 {
			copies = replicas
		}
		pitch := rowH * rowPitch(1, dp, v.Phases)
		laneH := rowH * lane(v.Phases)
		end := at(timelineEnd(tl))
		note := labelWidth(tl.Note, ts)
		if tl.Note != "" {
			l.Label(st.X+st.W-pad, y, ts, AlignRight, th.Text, tl.Note)
			note += ts
		}
		l.Label(st.X+pad, y, ts, AlignLeft, th.Text, fitText(tl.Label, ts, st.W-2*pad-note))
		y += titleH
		n := rows * copies
		lh := ts * LineHeight
		every := max(1, int(math.Ceil(float64(lh*1.02/pitch))))
		if copies > 1 {
			// The all-reduce joins the replicas: a band behind their rows
			// while it runs.
			if lo, hi := allReduceSpan(tl); hi > lo {
				l.Rect(at(lo), y, at(hi)-at(lo), float32(n)*pitch-pipeGap*rowH, withAlpha(th.Hot, 45))
			}
		}
		for r := range n {
			ry := y + float32(r)*pitch
			l.Rect(x0, ry, end-x0, rowH, th.Panel)
			// A label centred on its row, inside the rows' band where the
			// rows are thinner than a line.
			ly := clamp(ry+(rowH-lh)/2, y, y+float32(n)*pitch-lh)
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
				l.Label(x0-ts*0.4, ly, ts, AlignRight, th.Dim, label)
			}
		}
		for c := range copies {
			pipeBubbles(&l, tl, rows, y+float32(c)*pitch, pitch, rowH, at, th.Empty)
		}
		if play < end {
			// The future behind the blocks is veiled: bubbles keep their
			// colour (and count) but fade.
			for r := range n {
				l.Rect(play, y+float32(r)*pitch, end-play, rowH, withAlpha(th.Background, 150))
			}
		}
		for c := range copies {
			cy := y + float32(c)*pitch
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
				var col Color
				switch b.Kind {
				case BlockForward:
					col = th.LinkActive
				case BlockBackward, BlockRecompute:
					col = th.Rim
				case BlockComm:
					col = comm
					by, bh = by+rowH/3, rowH/3
				case BlockDPComm:
					col = th.Hot
					if b.Hidden {
						col = withAlpha(th.Hot, 110)
					}
					by, bh = by+rowH+laneH*0.15, laneH*0.7
				case BlockOptimizer:
					col = th.Dim
				default:
					continue
				}
				if b.Chunk > 0 && b.Kind <= BlockRecompute {
					col = chunkShade(col, b.Chunk)
				}
				splitRect(&l, xa, by, w, bh, play, col)
				if b.Kind == BlockRecompute {
					hc := hatch
					if xa >= play {
						hc = withAlpha(hatch, hatch.A/3)
					}
					hatchRect(&l, xa, by, w, bh, maxf(rowH*0.45, 4*sc), 1.2*sc, hc)
				}
				tc := th.Background
				if xa+w/2 >= play {
					tc = withAlpha(th.Text, 130)
				}
				if v.Phases && c == 0 && b.Stage == 0 {
					if s := phaseWord(v.Words, b); s != "" && b.Kind != BlockDPComm && w >= labelWidth(s, ts)+ts*0.6 && bh >= ts*LineHeight {
						l.Label(xa+w/2, by+(bh-ts*LineHeight)/2, ts, AlignCenter, tc, s)
						continue
					}
				}
				if b.MicroBatch >= 0 && b.Kind != BlockComm && b.Kind != BlockDPComm && b.Kind != BlockOptimizer && rowH >= nfs*LineHeight*0.95 {
					if s := smallInt(b.MicroBatch); w >= labelWidth(s, nfs)+nfs*0.4 {
						l.Label(xa+w/2, by+(bh-nfs*LineHeight)/2, nfs, AlignCenter, tc, s)
					}
				}
			}
		}
		if v.Phases {
			pipeAllReduce(&l, v, tl, y, rowH, laneH, at, ts)
		}
		pipeIdle(&l, v, tl, rows, y, pitch, rowH, at, ts)
		y += float32(n) * pitch
		if len(tl.Sums) > 0 {
			pipeSums(&l, v, sc, tl, Rect{x0, y, end - x0, rowH * pipeSum}, at, play, ts)
			y += rowH * (pipeSum + pipeGap)
		}
		if len(tl.Memory) > 0 {
			pipeMemory(&l, v, sc, tl, Rect{x0, y + rowH*pipeGap, end - x0, rowH * pipeMem}, at, play, ts)
			y += rowH * (pipeMem + 2*pipeGap)
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
	tick := niceStep(span / unit / 5)
	for float32(span/unit/tick)*labelWidth("0000", ts) > xw*0.8 {
		tick = niceStep(tick * 2.2)
	}
	for k := 0; float64(k)*tick <= span/unit*1.0001; k++ {
		t := float64(k) * tick
		x := at(t * unit)
		l.Segment(x, ay, x, ay+ts*0.3, 1*sc, th.Dim)
		s := tickLabel(t, decimals(tick))
		w := labelWidth(s, ts)
		l.Label(clamp(x, x0+w/2-labW-ts*0.4, x0+xw-w/2), ay+ts*0.4, ts, AlignCenter, th.Dim, s)
	}
	l.Label(x0-ts*0.6-labelWidth("0", ts), ay+ts*0.4, ts, AlignRight, th.Dim, name)
	if v.Ref > 0 && v.Ref <= span {
		// Another configuration's end, to compare with, dashed (the time
		// line's note names it).
		x := at(v.Ref)
		for yy := rowsTop; yy < ay; yy += ts * 0.9 {
			l.Segment(x, yy, x, minf(yy+ts*0.5, ay), 1.5*sc, th.Text)
		}
	}
	if v.Time >= 0 && v.Time <= span {
		l.Segment(play, rowsTop, play, ay, 1.5*sc, th.Text)
	}
	return l
}

// pipeSums draws the gradient summed over a step's micro-batches in r:
// an area of steps from nothing to all of it, faint after the playhead,
// named at the left and with the time line's note at the right.
func pipeSums(l *List, v PipelineView, sc float32, tl Timeline, r Rect, at func(float64) float32, play, ts float32) {
	th := v.Theme
	c := memoryColour("gradients", th)
	l.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	end := timelineEnd(tl)
	for i, p := range tl.Sums {
		t1 := end
		if i+1 < len(tl.Sums) {
			t1 = tl.Sums[i+1].T
		}
		xa, xb := at(p.T), at(t1)
		f := float32(math.Min(1, math.Max(0, p.Bytes)))
		if xb > xa && f > 0 {
			splitRect(l, xa, r.Y+r.H*(1-f), xb-xa, r.H*f, play, c)
		}
	}
	if r.H >= ts*LineHeight {
		name := say(v.Words, "canvas.pipe.grad")
		l.Label(r.X+ts*0.3, r.Y+(r.H-ts*LineHeight)/2, ts, AlignLeft, th.Text, name)
		if tl.SumsNote != "" && labelWidth(name, ts)+labelWidth(tl.SumsNote, ts)+ts*1.5 <= r.W {
			l.Label(r.X+r.W-ts*0.3, r.Y+(r.H-ts*LineHeight)/2, ts, AlignRight, th.Text, tl.SumsNote)
		}
	}
}

// maxReplicaRows is the most replica rows a data-parallel time line
// draws; the last is the last replica.
const maxReplicaRows = 8

// commColour is communication on the critical path: Hot, darkened.
func commColour(th Theme) Color { return mix(th.Hot, Color{0, 0, 0, 255}, 0.3) }

// pipeKinds are the marks a picture's time lines draw, for its legend.
type pipeKinds struct {
	forward, backward, recompute, comm, dp, hidden, optimizer, idle, memory, sums bool
	chunks                                                                        int // interleaved chunks beyond the first
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
func pipeLegend(l *List, v PipelineView, k pipeKinds, x, y, w, ts, sc float32) float32 {
	th := v.Theme
	var e [16]LegendEntry
	n := 0
	add := func(c Color, hatch bool, key string) {
		if n < len(e) {
			e[n] = LegendEntry{Color: c, Hatch: hatch, Label: say(v.Words, key)}
			n++
		}
	}
	if k.forward {
		add(th.LinkActive, false, "canvas.pipe.forward")
	}
	if k.backward {
		add(th.Rim, false, "canvas.pipe.backward")
	}
	if k.recompute {
		add(th.Rim, true, "canvas.pipe.recompute")
	}
	for c := 1; c <= k.chunks && c < 4; c++ {
		add(chunkShade(th.LinkActive, c), false, chunkKeys[c])
	}
	if k.comm {
		add(commColour(th), false, "canvas.pipe.comm")
	}
	if k.dp {
		add(th.Hot, false, "canvas.pipe.allreduce")
	}
	if k.hidden {
		add(withAlpha(th.Hot, 110), false, "canvas.pipe.hidden")
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
	for c := 1; c <= k.chunks && c < 4; c++ {
		l.Key(chunkShade(th.Rim, c), say(v.Words, chunkKeys[c]))
	}
	return Legend(l, th, x, y, w, ts, sc, e[:n]...)
}

var chunkKeys = [4]string{"", "canvas.pipe.chunk2", "canvas.pipe.chunk3", "canvas.pipe.chunk4"}

// phaseWord is what a block of the first row says with Phases: forward,
// backward, all-reduce, update.
func phaseWord(w Words, b TimelineBlock) string {
	switch b.Kind {
	case BlockForward:
		return say(w, "canvas.pipe.forward")
	case BlockBackward:
		return say(w, "canvas.pipe.backward")
	case BlockOptimizer:
		return say(w, "canvas.pipe.update")
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
func pipeAllReduce(l *List, v PipelineView, tl Timeline, y0, rowH, laneH float32, at func(float64) float32, ts float32) {
	lo, hi := allReduceSpan(tl)
	if hi <= lo {
		return
	}
	s := say(v.Words, "canvas.pipe.allreduce")
	xa, xb := at(lo), at(hi)
	if xb-xa >= labelWidth(s, ts)+ts*0.4 && laneH >= ts*LineHeight*0.95 {
		l.Label((xa+xb)/2, y0+rowH+(laneH-ts*LineHeight)/2, ts, AlignCenter, v.Theme.Text, s)
	}
}

// pipeIdle says "idle" in the widest bubble of a time line, where it
// fits.
func pipeIdle(l *List, v PipelineView, tl Timeline, rows int, y0, pitch, rowH float32, at func(float64) float32, ts float32) {
	if rows < 2 || rowH < ts*LineHeight {
		return
	}
	bs, ba, bb := -1, 0.0, 0.0
	for s := range rows {
		stageBubbles(tl, s, func(a, b float64) {
			if b-a > bb-ba {
				bs, ba, bb = s, a, b
			}
		})
	}
	if bs < 0 {
		return
	}
	word := say(v.Words, "canvas.pipe.idle")
	xa, xb := at(ba), at(bb)
	if xb-xa < labelWidth(word, ts)+ts {
		return
	}
	l.Label((xa+xb)/2, y0+float32(bs)*pitch+(rowH-ts*LineHeight)/2, ts, AlignCenter, v.Theme.Dim, word)
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
// count). Rows whose blocks come in order of
// start time take one pass for all; the others are sorted one by one.
func pipeBubbles(l *List, tl Timeline, rows int, y0, pitch, rowH float32, at func(float64) float32, c Color) {
	gap := func(s int, a, b float64) {
		if xa, xb := at(a), at(b); xb > xa {
			l.Rect(xa, y0+float32(s)*pitch, xb-xa, rowH, c)
		}
	}
	var last, cover [pipeFastStages]float64
	var unsorted [pipeFastStages]bool
	fast := min(rows, pipeFastStages)
	for s := range fast {
		last[s] = math.Inf(-1)
	}
	for i := range tl.Blocks {
		b := &tl.Blocks[i]
		if s := b.Stage; s >= 0 && s < fast && covers(b) {
			unsorted[s] = unsorted[s] || b.Start < last[s]
			last[s] = b.Start
		}
	}
	for i := range tl.Blocks {
		b := &tl.Blocks[i]
		s := b.Stage
		if s < 0 || s >= fast || unsorted[s] || !covers(b) {
			continue
		}
		if b.Start > cover[s] {
			gap(s, cover[s], b.Start)
		}
		cover[s] = math.Max(cover[s], b.End)
	}
	for s := range rows {
		if s >= fast || unsorted[s] {
			stageBubbles(tl, s, func(a, b float64) { gap(s, a, b) })
		}
	}
}

// stageBubbles finds one stage's gaps when its blocks are out of order, by
// sorting them (in a buffer on the stack up to 512 blocks).
func stageBubbles(tl Timeline, s int, gap func(a, b float64)) {
	var buf [512][2]float64
	iv := buf[:0] // on the stack up to its size; past it append moves it to the heap
	for i := range tl.Blocks {
		b := &tl.Blocks[i]
		if b.Stage == s && covers(b) {
			iv = append(iv, [2]float64{b.Start, b.End})
		}
	}
	// Sorting is n log n; a scan for the next uncovered time per gap was
	// quadratic and took 70 ms a frame for 8 interleaved stages of 32
	// micro-batches (over 512 blocks a stage).
	slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	cover := 0.0
	for _, x := range iv {
		if x[0] > cover {
			gap(cover, x[0])
		}
		cover = math.Max(cover, x[1])
	}
}

// pipeMemory draws activation bytes over time in r: stage 0's as an area
// of steps, the others' as thin levels behind it, on a scale up to the largest, which is
// labelled.
func pipeMemory(l *List, v PipelineView, sc float32, tl Timeline, r Rect, at func(float64) float32, play, ts float32) {
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
	end := timelineEnd(tl)
	area := memoryColour("activations", th)
	// The peak a line under the chart's top, where its labels go.
	h := r.H
	if r.H >= ts*LineHeight*2.2 {
		h = r.H - ts*LineHeight
	}
	level := func(b float64) float32 { return base - h*float32(math.Max(0, b)/peak) }
	// The other stages first, behind stage 0's area: a thin level a step,
	// joined while it holds.
	for s := len(tl.Memory) - 1; s >= 1; s-- {
		pts := tl.Memory[s]
		var sx, sy float32
		for i, p := range pts {
			xa, yy := at(p.T), level(p.Bytes)
			if i > 0 && yy != sy {
				memLevel(l, sx, xa, sy, play, sc, th.Dim)
			}
			if i == 0 || yy != sy {
				sx, sy = xa, yy
			}
		}
		if len(pts) > 0 {
			memLevel(l, sx, at(end), sy, play, sc, th.Dim)
		}
	}
	if len(tl.Memory) > 0 {
		pts := tl.Memory[0]
		for i, p := range pts {
			t1 := end
			if i+1 < len(pts) {
				t1 = pts[i+1].T
			}
			xa, xb, yy := at(p.T), at(t1), level(p.Bytes)
			if xb > xa && yy < base {
				splitRect(l, xa, yy, xb-xa, base-yy, play, area)
			}
		}
	}
	l.Segment(r.X, base, r.X+r.W, base, 1*sc, th.Link)
	if r.H >= ts*LineHeight*1.1 {
		// Its peak at the right; its name at the left where both fit (the
		// legend names it too).
		pk, name := maxLabel(v.Words, peak), say(v.Words, "canvas.pipe.activations")
		l.Label(r.X+r.W, r.Y, ts, AlignRight, th.Dim, pk)
		if labelWidth(pk, ts)+labelWidth(name, ts)+ts*1.5 <= r.W {
			l.Label(r.X+ts*0.3, r.Y, ts, AlignLeft, th.Dim, name)
		}
	}
}

// memLevel draws a level of a memory line from xa to xb, faint after the
// playhead.
func memLevel(l *List, xa, xb, y, play, sc float32, c Color) {
	switch {
	case xb <= xa:
	case play >= xb:
		l.Segment(xa, y, xb, y, 1*sc, withAlpha(c, 200))
	case play <= xa:
		l.Segment(xa, y, xb, y, 1*sc, withAlpha(c, pipeFaint))
	default:
		l.Segment(xa, y, play, y, 1*sc, withAlpha(c, 200))
		l.Segment(play, y, xb, y, 1*sc, withAlpha(c, pipeFaint))
	}
}

// splitRect fills a rectangle solid up to x = play and faint after it.
func splitRect(l *List, x, y, w, h, play float32, c Color) {
	switch {
	case play >= x+w:
		l.Rect(x, y, w, h, c)
	case play <= x:
		l.Rect(x, y, w, h, withAlpha(c, uint8(int(c.A)*pipeFaint/255)))
	default:
		l.Rect(x, y, play-x, h, c)
		l.Rect(play, y, x+w-play, h, withAlpha(c, uint8(int(c.A)*pipeFaint/255)))
	}
}

// hatchRect draws 45° lines every step pixels across a rectangle,
// clipped to it.
func hatchRect(l *List, x, y, w, h, step, width float32, c Color) {
	if w <= 0 || h <= 0 || step <= 0 {
		return
	}
	// A line from (c, y+h) to (c+h, y), for c from x−h to x+w.
	for c0 := x - h + step/2; c0 < x+w; c0 += step {
		ulo := maxf(0, (x-c0)/h)
		uhi := minf(1, (x+w-c0)/h)
		if uhi <= ulo {
			continue
		}
		l.Segment(c0+ulo*h, y+h-ulo*h, c0+uhi*h, y+h-uhi*h, width, c)
	}
}

// chunkShade tells interleaved chunks apart: chunk 1 lighter, 2 darker,
// 3 lighter still, then around again.
func chunkShade(c Color, chunk int) Color {
	switch chunk % 4 {
	case 1:
		return mix(c, Color{255, 255, 255, c.A}, 0.45)
	case 2:
		return mix(c, Color{0, 0, 0, c.A}, 0.35)
	case 3:
		return mix(c, Color{255, 255, 255, c.A}, 0.7)
	}
	return c
}

// mix is a + (b − a)·f per channel, keeping a's alpha.
func mix(a, b Color, f float64) Color {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*f)) }
	return Color{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), a.A}
}

// wordKey is a catalogue key in a language, with a number.
type wordKey struct {
	lang, key string
	n         int
}

var sayMemo memo[wordKey]

// say is w.Say(key), formatted once per language.
func say(w Words, key string) string {
	return sayMemo.get(wordKey{w.Lang, key, -1}, func() string { return w.Say(key) })
}

// rowLabel is a row's label (key with {n}), formatted once.
func rowLabel(w Words, key string, n int) string {
	return sayMemo.get(wordKey{w.Lang, key, n}, func() string { return w.Say(key, "n", strconv.Itoa(n)) })
}

// maxLabel is the activation chart's "max …", formatted once a value.
func maxLabel(w Words, b float64) string {
	return maxLabels.get(maxKey{w.Lang, b}, func() string { return w.Say("canvas.pipe.max", "bytes", bytesLabel(b)) })
}

type maxKey struct {
	lang string
	b    float64
}

var maxLabels memo[maxKey]

// smallInts are the micro-batch numbers, made once.
var smallInts = func() (s [256]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return
}()

func smallInt(i int) string {
	if i >= 0 && i < len(smallInts) {
		return smallInts[i]
	}
	return strconv.Itoa(i)
}

// tickLabel is an axis tick's number, formatted once.
func tickLabel(t float64, dec int) string {
	return tickLabels.get(tickKey{t, dec}, func() string { return strconv.FormatFloat(t, 'f', dec, 64) })
}

type tickKey struct {
	t   float64
	dec int
}

var tickLabels memo[tickKey]
