package render

import "github.com/gpuscope/gpuscope/render/draw"

// The zoom's SM level when the GPU runs no matrix product: its SMs as a
// grid, those at work in the time line's colour of what they do and the
// rest waiting, over the memory (or the link) they pull from — a pipe as
// wide as the share of its bandwidth the kernel fills, its bytes moving
// up and down. A memory-bound pass fills HBM's pipe and leaves the
// tensor cores idle; attention keeps its scores on chip and sends a
// trickle; during a collective the bytes cross the links while the SMs
// wait on them (its copies and sums take a few, which the engine does not
// count); a waiting GPU is a grey grid. The words under it say the same (ZoomSMView.Note).

// ZoomSMFlow is what crosses between the SMs and the memory or link
// under them.
type ZoomSMFlow int

const (
	// FlowNone: nothing moves (the GPU waits).
	FlowNone ZoomSMFlow = iota
	// FlowHBM: a memory-bound pass, every element read from HBM and
	// written back once.
	FlowHBM
	// FlowOnChip: attention, K and V streaming in, the scores kept in
	// the SMs.
	FlowOnChip
	// FlowLink: a collective's buffers to and from the links.
	FlowLink
)

// ZoomSMPass is what a GPU's SMs do when it runs no matrix product.
type ZoomSMPass struct {
	Activity ZoomActivity // the colour of the SMs at work, the time line's
	Busy     int          // how many of the view's SMs work; the rest wait
	Flow     ZoomSMFlow
	// Share is the part of the bar's bandwidth the kernel fills (0–1):
	// the pipe's width.
	Share    float64
	Numbers  string  // the kernel's numbers, a line or two
	BusyKey  string  // the legend's words for the SMs at work
	WaitKey  string  // … for the rest, when not just "waiting"
	Bar      string  // the memory's or link's words: "HBM: 3.35 TB/s"
	OnChip   string  // attention: what stays in the SMs, beside its thin pipe
	Progress float64 // through the kernel (0–1)
}

// zoomSMPassGeom is the grid of SMs: c columns of cells s wide from (x,
// y), gap apart.
type zoomSMPassGeom struct {
	x, y, s, gap float32
	c, n         int
}

func (g zoomSMPassGeom) cell(i int) (x, y float32) {
	return g.x + float32(i%g.c)*(g.s+g.gap), g.y + float32(i/g.c)*(g.s+g.gap)
}

// zoomSMPassLayout fits n square cells into w × h, the largest that do.
func zoomSMPassLayout(n int, x, y, w, h, sc float32) (zoomSMPassGeom, bool) {
	best := zoomSMPassGeom{}
	for c := 1; c <= n; c++ {
		r := (n + c - 1) / c
		s := draw.Minf(w/(float32(c)*1.18), h/(float32(r)*1.18))
		if s > best.s {
			best = zoomSMPassGeom{s: s, c: c, n: n}
		}
	}
	if best.s < 4*sc {
		return best, false
	}
	best.s = draw.Minf(best.s, 40*sc)
	best.gap = best.s * 0.18
	r := (n + best.c - 1) / best.c
	gw, gh := float32(best.c)*(best.s+best.gap)-best.gap, float32(r)*(best.s+best.gap)-best.gap
	best.x, best.y = x+(w-gw)/2, y+(h-gh)/2
	return best, true
}

// appendZoomSMPass draws v.Pass from y down: the numbers, the SMs over
// their memory or link, the legend and the note.
func appendZoomSMPass(p *draw.Placer, v ZoomSMView, sc, fs, y float32) {
	th, st, w, ps := v.Theme, v.Stage, v.Words, v.Pass
	pad := fs * 0.8
	fw := st.W - 2*pad
	x := st.X + pad
	if ps.Numbers != "" {
		y += p.Wrap(x, y, fs, draw.AlignLeft, th.Dim, ps.Numbers, fw, 2) + fs*0.4
	}
	bottom := st.Y + st.H - pad
	note := draw.Lines(v.Note, fs, fw, 3)
	noteH := float32(len(note)) * fs * draw.LineHeight
	busy := zoomActColour(ps.Activity, th)
	sms := max(v.SMs, 1)
	nb := min(max(ps.Busy, 0), sms)
	wait := ps.WaitKey
	if wait == "" {
		wait = w.Say("canvas.zoom.sm.key_sm_waiting")
	}
	legend := [2]draw.LegendEntry{{Color: busy, Hatch: false, Label: ps.BusyKey}, {Color: th.Empty, Hatch: false, Label: wait}}
	keys := legend[:]
	switch {
	case nb == 0:
		keys = legend[1:]
	case nb == sms:
		keys = legend[:1]
	}
	lh := draw.LegendHeight(fw, fs, keys...)
	area := draw.Rect{X: x, Y: y, W: fw, H: bottom - noteH - lh - fs*0.8 - y}
	if area.H < fs*6 || area.W < fs*8 {
		zoomSMNote(p, th, sc, fs, draw.Rect{X: x, Y: y, W: fw, H: bottom - y}, v.Note)
		return
	}
	barH := fs * 1.7
	band := draw.Clamp(area.H*0.22, fs*2, fs*5)
	g, ok := zoomSMPassLayout(sms, area.X, area.Y, area.W, area.H-barH-band, sc)
	if !ok {
		zoomSMNote(p, th, sc, fs, draw.Rect{X: x, Y: y, W: fw, H: bottom - y}, v.Note)
		return
	}
	gridBottom := g.y + float32((sms+g.c-1)/g.c)*(g.s+g.gap) - g.gap
	barY := gridBottom + band
	p.Reserve(draw.Rect{X: area.X, Y: area.Y, W: area.W, H: barY + barH - area.Y})

	// The still parts: the SMs, the bar and its words, the pipe, the
	// legend and the note.
	for i := range sms {
		cx, cy := g.cell(i)
		if i < nb {
			p.L.Rect(cx, cy, g.s, g.s, busy)
		} else {
			p.L.Rect(cx, cy, g.s, g.s, th.Empty)
		}
	}
	barCol := th.Link
	if ps.Flow == FlowNone {
		barCol = th.Empty
	}
	p.L.Rect(area.X, barY, area.W, barH, barCol)
	if ps.Bar != "" {
		p.L.Label(area.X+area.W/2, barY+(barH-fs*draw.LineHeight)/2, fs, draw.AlignCenter, zoomInk(barCol, th), draw.Fit(ps.Bar, fs, area.W-fs))
	}
	pipeW, pipeX := float32(0), float32(0)
	if ps.Flow != FlowNone && (nb > 0 || ps.Flow == FlowLink) {
		pipeW = draw.Maxf(area.W*float32(clamp01(ps.Share)), 3*sc)
		pipeX = area.X + (area.W-pipeW)/2
		if ps.OnChip != "" && pipeX+pipeW+fs*0.6+draw.TextWidth(ps.OnChip, fs) > area.X+area.W {
			pipeX = area.X + fs // a narrow stage: the pipe to the left, its words beside it
		}
		p.L.Rect(pipeX, gridBottom+g.gap, pipeW, barY-gridBottom-g.gap, draw.WithAlpha(barCol, 120))
		if side := ps.OnChip; side != "" {
			lx := pipeX + pipeW + fs*0.6
			p.L.Label(lx, gridBottom+(band-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, draw.Fit(side, fs, area.X+area.W-lx))
		}
	}
	ly := barY + barH + fs*0.5
	if lh > 0 {
		draw.PlacerLegend(p, th, draw.Rect{X: x, Y: ly, W: fw, H: lh}, fs, sc, keys...)
	}
	ny := ly + lh + fs*0.3
	for i, s := range note {
		p.L.Label(x, ny+float32(i)*fs*draw.LineHeight, fs, draw.AlignLeft, th.Text, s)
	}

	// What moves: each busy SM's share of the kernel, and the bytes in
	// the pipe — down from HBM and up from the SMs (or out to the link
	// and in from it).
	pr := clamp01(ps.Progress)
	if pipeW <= 0 || pr <= 0 {
		return // a moment without a kernel's progress: the pipe, no packets
	}
	// Columns of packets across the pipe, a wide pipe many: up from HBM
	// (reads) and down to it (writes) by turns.
	ph := barY - gridBottom - g.gap
	pk := draw.Clamp(fs*0.5, 3*sc, ph/3)
	cols := int(draw.Clamp(pipeW/(fs*2.5), 2, 16))
	px := pipeX
	for c := range cols {
		cx := px + pipeW*(float32(c)+0.5)/float32(cols) - pk/2
		for k := range 2 {
			f := float32(frac(pr*6 + float64(k)/2 + float64(c)*0.37))
			if c%2 == 0 {
				f = 1 - f
			}
			p.L.Rect(cx, gridBottom+g.gap+(ph-pk)*f, pk, pk, th.Text)
		}
	}
}

// clamp01 is f within 0–1 (0 for NaN).
func clamp01(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	return min(f, 1)
}

// frac is f's fractional part.
func frac(f float64) float64 { return f - float64(int64(f)) }
