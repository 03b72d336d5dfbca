package render

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// Proportions of a pipeline timeline, in row heights.
const (
	pipeLane  = 0.35 // the data-parallel lane under a stage row
	pipeGap   = 0.2  // between rows
	pipeMem   = 2.0  // the memory chart
	pipeFaint = 70   // alpha of what lies after the playhead
	// Stages whose bubbles are found in one pass over the blocks with
	// per-stage state on the stack; more rows than this take a pass each.
	pipeFastStages = 256
)

// stageNames label the rows; made once, so that drawing allocates no
// strings for them.
var stageNames = func() (s [64]string) {
	for i := range s {
		s[i] = "S" + strconv.Itoa(i)
	}
	return
}()

func stageName(i int) string {
	if i < len(stageNames) {
		return stageNames[i]
	}
	return "S" + strconv.Itoa(i)
}

// AppendPipeline draws pipeline schedules one above the other on one time
// axis: a row per stage, each forward and backward a block as long as it
// takes (recomputation hatched, interleaved chunks in shades of their
// colour, the micro-batch's number inside when there is room),
// communication on the critical path a thin dark bar inside the row, a
// data-parallel bucket on a lane under it (lighter when compute hides
// it), and every gap on a row before its last block — the bubble — grey
// in the theme's Empty, which nothing else in the picture uses (an
// exposed data-parallel bucket is communication, not a bubble). What lies
// after the playhead is faint; under a timeline with Memory, stage 0's
// activation bytes over time as an area, the other stages' as lines.
//
// It is drawn every frame: it allocates only the list's items and a few
// tick labels, and takes one pass over the blocks when each stage's row
// blocks come in order of start time (as engine/parallel gives compute
// blocks); a stage whose blocks do not is sorted on the stack.
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
	fs := clamp(minf(st.W, st.H)/40, 9*sc, 16*sc)
	pad := fs * 0.8
	x0 := st.X + pad + fs*2.6
	xw := st.X + st.W - pad - x0
	titleH := fs * 1.5
	axisH := fs * 2.6
	// Row height: what is left after titles and the axis, shared by the
	// rows (with their lanes and gaps) and memory charts.
	var units, fixed float32
	for i, tl := range v.Timelines {
		rows, dp := timelineRows(tl)
		units += float32(rows) * rowPitch(1, dp)
		if len(tl.Memory) > 0 {
			units += pipeMem + 2*pipeGap
		}
		fixed += titleH
		if i > 0 {
			fixed += fs * 0.6
		}
	}
	if units <= 0 || xw <= 0 {
		return l
	}
	rowH := minf((st.H-2*pad-axisH-fixed)/units, fs*4)
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
	nfs := minf(fs*0.8, rowH*0.75) // micro-batch numbers
	sfs := maxf(minf(fs*0.85, rowH*0.95), minf(fs*0.7, 8*sc))
	hatch := withAlpha(th.Background, 170)
	comm := mix(th.Hot, Color{0, 0, 0, 255}, 0.3)

	top := st.Y + pad
	y := top
	for ti, tl := range v.Timelines {
		if ti > 0 {
			y += fs * 0.6
		}
		rows, dp := timelineRows(tl)
		pitch := rowH * rowPitch(1, dp)
		end := at(timelineEnd(tl))
		l.Label(st.X+pad, y, fs*0.9, AlignLeft, th.Text, tl.Label)
		y += titleH
		every := max(1, int(math.Ceil(float64(sfs*1.05/pitch))))
		for s := range rows {
			ry := y + float32(s)*pitch
			l.Rect(x0, ry, end-x0, rowH, th.Panel)
			if s%every == 0 {
				l.Label(x0-fs*0.4, ry+(rowH-sfs)/2, sfs, AlignRight, th.Dim, stageName(s))
			}
		}
		pipeBubbles(&l, tl, rows, y, pitch, rowH, at, th.Empty)
		if play < end {
			// The future behind the blocks is veiled: bubbles keep their
			// colour (and count) but fade.
			for s := range rows {
				l.Rect(play, y+float32(s)*pitch, end-play, rowH, withAlpha(th.Background, 150))
			}
		}
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
			by, bh := y+float32(b.Stage)*pitch, rowH
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
				by, bh = by+rowH*(1+pipeLane*0.15), rowH*pipeLane*0.7
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
			if b.MicroBatch >= 0 && b.Kind != BlockComm && b.Kind != BlockDPComm && w >= 1.6*nfs && nfs >= 7*sc {
				tc := th.Background
				if xa+w/2 >= play {
					tc = withAlpha(th.Text, 130)
				}
				l.Label(xa+w/2, by+(bh-nfs)/2, nfs, AlignCenter, tc, strconv.Itoa(b.MicroBatch))
			}
		}
		y += float32(rows) * pitch
		if len(tl.Memory) > 0 {
			pipeMemory(&l, th, sc, tl, Rect{x0, y + rowH*pipeGap, end - x0, rowH * pipeMem}, at, play, sfs, fs)
			y += rowH * (pipeMem + 2*pipeGap)
		}
	}

	// The time axis under the last timeline, in s, ms or µs.
	ay := y + fs*0.2
	l.Segment(x0, ay, x0+xw, ay, 1*sc, th.Dim)
	unit, name := 1.0, "s"
	switch {
	case span < 1e-3:
		unit, name = 1e-6, "µs"
	case span < 1:
		unit, name = 1e-3, "ms"
	}
	step := niceStep(span / unit / 5)
	for k := 0; float64(k)*step <= span/unit*1.0001; k++ {
		t := float64(k) * step
		x := at(t * unit)
		l.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		l.Label(x, ay+fs*0.45, fs*0.8, AlignCenter, th.Dim, strconv.FormatFloat(t, 'f', decimals(step), 64))
	}
	l.Label(x0-fs*0.9, ay+fs*0.45, fs*0.8, AlignRight, th.Dim, name)
	if v.Time >= 0 && v.Time <= span {
		l.Segment(play, top, play, ay, 1.5*sc, th.Text)
	}
	return l
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

// rowPitch is the height a stage takes for rows of height h.
func rowPitch(h float32, dp bool) float32 {
	if dp {
		return h * (1 + pipeLane + pipeGap)
	}
	return h * (1 + pipeGap)
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
func pipeMemory(l *List, th Theme, sc float32, tl Timeline, r Rect, at func(float64) float32, play, sfs, fs float32) {
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
	level := func(b float64) float32 { return base - r.H*float32(math.Max(0, b)/peak) }
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
	l.Label(r.X-fs*0.4, r.Y+(r.H-sfs)/2, sfs, AlignRight, th.Dim, "act")
	l.Label(r.X+r.W, r.Y-sfs*0.2, sfs, AlignRight, th.Dim, "max "+units.Bytes(peak))
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
