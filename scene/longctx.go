package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The long-context lesson's pictures: the fullest GPU's memory as the
// sequence doubles (bars growing one by one as the step plays), the
// sequence dealt to a context-parallel group beside its memory at each
// CP, and the K/V exchange of one layer, all-gather against ring.

// longCache is what the lesson's pictures take from the run and the
// frame, made once: rebuilt when either changes, not every frame.
type longCache struct {
	key   viewKey
	bars  render.MemoryBarsView
	grown []render.MemoryBar // the bars as far as the playhead has grown them
	split render.CPSplitView
	head  string // a headline over two pictures
	ex    render.CPExchangeView
}

// growth is the share of its window a step's picture takes to build
// (bars to appear, chunks to be dealt); it holds still after, so that its
// middle — a poster, a handout — shows it whole.
const growth = 0.45

// grown is how far a picture at frac of its window is built, 0 to 1.
func grown(f planFrame) float64 {
	if f.t < 0 {
		return 1
	}
	return min(1, f.frac/growth)
}

// sweepShown is how many of n bars a step shows: one more at each n-th
// of its growth, all once grown.
func sweepShown(n int, f planFrame) int {
	return min(n, 1+int(grown(f)*float64(n)))
}

// buildSweep draws the sweep: the bars of the sequence lengths appear
// one by one as the step plays, on the axis of the tallest (so that
// none moves as the next appears); while the step's question waits,
// those from the asked length on stay empty.
func (p *Picture) buildSweep(dst render.List, m Moment, run *scenarios.PlanRun, f planFrame) render.List {
	c := &p.long
	if k := keyOf(m, run, f); c.key != k || c.bars.Bars == nil {
		c.key, c.bars = k, sweepView(run, f)
		c.grown = make([]render.MemoryBar, len(c.bars.Bars))
	}
	v := c.bars
	shown := sweepShown(len(v.Bars), f)
	for i, b := range v.Bars {
		c.grown[i] = b
		if i >= shown || (f.conceal && b.Current) {
			c.grown[i].Segments = nil
		}
	}
	v.Bars = c.grown
	return render.AppendMemoryBars(dst, v)
}

// sweepView is the sweep's bars: one a sequence length, the step's own
// outlined, on one axis up to the tallest.
func sweepView(run *scenarios.PlanRun, f planFrame) render.MemoryBarsView {
	th := f.Theme
	cur := run.Result.Memory
	pc := run.Config
	p := pc.Plan
	v := render.MemoryBarsView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: th, Words: f.words(),
		Capacity: cur.Capacity, Usable: cur.Usable, Axis: f.say("canvas.lc.seq_axis")}
	tallest := 0.0
	for _, b := range run.Bars {
		mem := b.Memory
		seq, _ := strconv.Atoi(b.Label)
		v.Bars = append(v.Bars, render.MemoryBar{Label: units.Count(int64(seq)), Current: seq == pc.Model.Seq, Segments: []render.MemorySegment{
			{Key: "weights", Bytes: mem.Weights}, {Key: "gradients", Bytes: mem.Gradients}, {Key: "optimizer", Bytes: mem.Optimizer},
			{Key: "activations", Bytes: mem.Activations}, {Key: "buffers", Bytes: mem.Buffers},
		}})
		tallest = max(tallest, mem.Total)
	}
	v.Max = max(tallest, cur.Capacity) * 1.08
	model := scenarios.ModelName(f.Lang, pc.Model)
	seq := units.Count(int64(pc.Model.Seq))
	tp, pp := strconv.Itoa(p.TP), strconv.Itoa(p.PP)
	switch cp := cpOf(run); {
	case f.conceal:
		v.Headline = f.say("canvas.lc.sweep_ask", "model", model, "tp", tp, "pp", pp, "seq", seq)
	case cp > 1:
		v.Headline = f.say("canvas.lc.sweep_head_cp", "model", model, "tp", tp, "pp", pp, "cp", strconv.Itoa(cp), "seq", seq,
			"bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
	default:
		v.Headline = f.say("canvas.lc.sweep_head", "model", model, "tp", tp, "pp", pp, "seq", seq,
			"bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
	}
	return v
}

// cpOf is the run's context parallelism, at least 1.
func cpOf(run *scenarios.PlanRun) int { return max(1, run.Config.Plan.CP) }

// buildSplit draws the sequence dealt to the CP group — the chunks fly to
// their GPUs as the step plays — beside (on a tall stage, over) the
// fullest GPU's memory at CP 1, 2, 4 … the step's CP.
func (p *Picture) buildSplit(dst render.List, m Moment, run *scenarios.PlanRun, f planFrame) render.List {
	c := &p.long
	if k := keyOf(m, run, f); c.key != k || c.split.GPUs == nil {
		c.key = k
		c.split, c.bars, c.head = splitViews(run, f)
	}
	sv := c.split
	sv.Progress = grown(f)
	dst = render.AppendCPSplit(dst, sv)
	p.scratch = render.AppendMemoryBars(p.scratch, c.bars)
	dst.Items = append(dst.Items, p.scratch.Items...)
	dst.Keys = append(dst.Keys, p.scratch.Keys...)
	render.Headline(&dst, f.Theme, f.Stage, f.Scale, c.head)
	return dst
}

// splitViews are the split step's two pictures and where each goes: the
// sequence and its GPUs, and the memory bars, under one headline.
func splitViews(run *scenarios.PlanRun, f planFrame) (render.CPSplitView, render.MemoryBarsView, string) {
	pc := run.Config
	cp := cpOf(run)
	seq := pc.Model.Seq
	cur := run.Result.Memory
	nocp := cur
	if len(run.Bars) > 0 {
		nocp = run.Bars[0].Memory
	}
	head := f.say("canvas.lc.split_head", "cp", strconv.Itoa(cp), "local", units.Count(int64(seq/cp)), "seq", units.Count(int64(seq)),
		"act", units.Bytes(cur.Activations), "act1", units.Bytes(nocp.Activations))
	hh := render.HeadlineHeight(f.stage, f.Scale, head)
	body := f.stage
	body.Y, body.H = body.Y+hh, body.H-hh
	left, right := body, body
	if f.stage.W >= f.stage.H {
		left.W = body.W * 0.62
		right.X, right.W = body.X+left.W, body.W-left.W
	} else {
		left.H = body.H * 0.56
		right.Y, right.H = body.Y+left.H, body.H-left.H
	}
	sv := render.CPSplitView{Width: f.Width, Height: f.Height, Stage: left, Scale: f.Scale, Theme: f.Theme, CP: cp,
		Sequence: f.say("canvas.lc.sequence", "seq", units.Count(int64(seq)), "chunks", strconv.Itoa(2*cp)),
		First:    f.say("canvas.lc.first"), Last: units.Count(int64(seq)),
		Each: f.say("canvas.lc.each", "last", strconv.Itoa(2*cp-1), "local", units.Count(int64(seq/cp))),
		Work: f.say("canvas.lc.work")}
	for g := range cp {
		sv.GPUs = append(sv.GPUs, f.say("canvas.lc.gpu", "n", strconv.Itoa(g)))
		sv.Short = append(sv.Short, strconv.Itoa(g))
	}
	bv := render.MemoryBarsView{Width: f.Width, Height: f.Height, Stage: right, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		Capacity: cur.Capacity, Usable: cur.Usable, Axis: f.say("canvas.lc.cp_axis")}
	for _, b := range run.Bars {
		mem := b.Memory
		n, _ := strconv.Atoi(b.Label) // a split's bars are labelled with their CP
		bv.Bars = append(bv.Bars, render.MemoryBar{Label: b.Label, Current: n == cp, Segments: []render.MemorySegment{
			{Key: "weights", Bytes: mem.Weights}, {Key: "gradients", Bytes: mem.Gradients}, {Key: "optimizer", Bytes: mem.Optimizer},
			{Key: "activations", Bytes: mem.Activations}, {Key: "buffers", Bytes: mem.Buffers},
		}})
	}
	return sv, bv, head
}

// buildExchange races one layer's attention on GPU 0 with the other
// GPUs' keys and values all-gathered first (Llama 3's) against passed
// round a ring, on one time axis: the step's clock is the layer's.
func (p *Picture) buildExchange(dst render.List, m Moment, run *scenarios.PlanRun, f planFrame) render.List {
	c := &p.long
	if k := keyOf(m, run, f); c.key != k || c.ex.Lanes == nil {
		c.key, c.ex = k, exchangeView(run, f)
	}
	v := c.ex
	v.Time = f.t
	return render.AppendCPExchange(dst, v)
}

// exchangeLanes are the two ways of one layer, from the engine's
// CPLayer: all-gather, each other GPU's K/V arriving in turn, then the
// attention over all of them; the ring, the attention on the block in
// hand while the next arrives, a step every max(attention of a block,
// its send).
func exchangeLanes(l parallel.CPLayer) (ag, ring render.CPExchangeLane) {
	cp := l.CP
	piece := l.AllGather / float64(cp-1)
	a := l.Attention / float64(cp)
	for k := 1; k < cp; k++ {
		ag.Sends = append(ag.Sends, render.Interval{Start: piece * float64(k-1), End: piece * float64(k)})
		ag.SendSrc = append(ag.SendSrc, k)
	}
	for k := range cp {
		ag.Computes = append(ag.Computes, render.Interval{Start: l.AllGather + float64(a*float64(k)), End: l.AllGather + float64(a*float64(k+1))})
		ag.CompSrc = append(ag.CompSrc, k)
	}
	ag.End = l.AllGather + l.Attention
	step := max(a, l.Send)
	for k := range cp {
		src := (cp - k) % cp // the ring brings GPU 0 its left neighbour's block, then the one before
		ring.Computes = append(ring.Computes, render.Interval{Start: step * float64(k), End: float64(step*float64(k)) + a})
		ring.CompSrc = append(ring.CompSrc, src)
		if k > 0 {
			ring.Sends = append(ring.Sends, render.Interval{Start: step * float64(k-1), End: float64(step*float64(k-1)) + l.Send})
			ring.SendSrc = append(ring.SendSrc, src)
		}
	}
	ring.End = float64(step*float64(cp-1)) + a // products forced (no FMA): the same picture in WebAssembly
	return ag, ring
}

// exchangeView is the exchange step's picture, less the clock.
func exchangeView(run *scenarios.PlanRun, f planFrame) render.CPExchangeView {
	l := run.Exchange
	v := render.CPExchangeView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(), CP: l.CP,
		LinkRow: f.say("canvas.lc.link"), GPURow: f.say("canvas.lc.gpu0"),
		Transfer: f.say("canvas.lc.transfer"), Compute: f.say("canvas.lc.compute"), Waiting: f.say("canvas.lc.waiting"),
		Axis: f.say("canvas.lc.axis")}
	if l.CP < 2 {
		return v
	}
	ag, ring := exchangeLanes(l)
	ag.Name, ring.Name = f.say("canvas.lc.allgather"), f.say("canvas.lc.ring")
	d := units.Duration
	ag.Note = f.say("canvas.lc.lane_note", "t", d(ag.End), "wait", d(ag.End-l.Attention))
	ring.Note = f.say("canvas.lc.lane_note", "t", d(ring.End), "wait", d(ring.End-l.Attention))
	v.Lanes = []render.CPExchangeLane{ag, ring}
	v.Span = max(ag.End, ring.End)
	v.SpanLabel = d(v.Span)
	v.Headline = f.say("canvas.lc.ex_head", "cp", strconv.Itoa(l.CP), "ag", d(ag.End), "ring", d(ring.End))
	m := run.Config.Model
	if m.KVHeads > 0 && m.KVHeads < m.Heads {
		v.Note = f.say("canvas.lc.gqa", "kv", strconv.Itoa(m.KVHeads), "d", strconv.Itoa(m.HeadDim()), "heads", strconv.Itoa(m.Heads),
			"share", "1/"+strconv.Itoa(m.Heads/m.KVHeads), "bytes", units.Bytes(l.KVBytes))
	}
	return v
}
