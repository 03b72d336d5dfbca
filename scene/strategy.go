package scene

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The strategy lessons' pictures: a PlanRun's view as one or two render
// views (a time line beside memory bars for recomputation and gradient
// accumulation).

// planFrame is where a strategy picture goes and where its playhead is.
type planFrame struct {
	Frame
	stage render.Rect // the part of the stage this view takes
	t     float64     // the playhead, seconds; −1 all done
	frac  float64     // the playhead as a share of the step's window
	// conceal: the step's question is not answered yet, so a picture that
	// compares configurations shows only the first (the answer waits).
	conceal bool
}

func buildPlan(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.PlanRun)
	pf := planFrame{Frame: f, stage: f.Stage, conceal: m.Pending}
	pf.t, pf.frac = m.window()
	switch run.View {
	case scenarios.ViewTimeline, scenarios.ViewSchedules:
		return render.AppendPipeline(dst, p.pipelineView(m, run, pf))
	case scenarios.ViewRecompute, scenarios.ViewAccum, scenarios.ViewEP:
		// The time lines at the left (on top on a tall stage), memory and
		// time a step beside them, under one headline.
		v := p.pipelineView(m, run, pf)
		head := v.Headline
		v.Headline = ""
		hh := render.HeadlineHeight(f.Stage, f.Scale, head)
		body := f.Stage
		body.Y, body.H = body.Y+hh, body.H-hh
		left, right := pf, pf
		left.stage, right.stage = body, body
		// Side by side on a wide stage, one over the other on a tall one
		// (the stage's shape, not the body's: a headline on two lines
		// does not turn a phone's picture sideways).
		if f.Stage.W >= f.Stage.H {
			left.stage.W = body.W * 0.6
			right.stage.X, right.stage.W = body.X+left.stage.W, body.W-left.stage.W
		} else {
			left.stage.H = body.H * 0.52
			right.stage.Y, right.stage.H = body.Y+left.stage.H, body.H-left.stage.H
		}
		v.Stage = left.stage
		dst = render.AppendPipeline(dst, v)
		p.scratch = render.AppendMemoryBars(p.scratch, p.memoryView(m, run, right))
		dst.Items = append(dst.Items, p.scratch.Items...)
		dst.Keys = append(dst.Keys, p.scratch.Keys...)
		render.Headline(&dst, f.Theme, f.Stage, f.Scale, head)
		return dst
	case scenarios.ViewMemory, scenarios.ViewZeRO:
		return render.AppendMemoryBars(dst, p.memoryView(m, run, pf))
	case scenarios.ViewSeed:
		return render.AppendCards(dst, p.cardsView(m, run, pf))
	case scenarios.ViewSeqSweep:
		return p.buildSweep(dst, m, run, pf)
	case scenarios.ViewCPSplit:
		return p.buildSplit(dst, m, run, pf)
	case scenarios.ViewCPExchange:
		return p.buildExchange(dst, m, run, pf)
	case scenarios.ViewCluster:
		return render.AppendCluster(dst, p.clusters.view(run, pf))
	case scenarios.ViewTPMatrix:
		return render.AppendTPMatrix(dst, tpView(m, run, pf))
	case scenarios.ViewPlanner, scenarios.ViewBudget:
		return render.AppendPlanner(dst, plannerView(m, run, pf))
	case scenarios.ViewScale:
		return render.AppendScale(dst, scaleView(run, pf))
	}
	return empty(dst, f)
}

// say is a canvas word of the frame's language.
func (f planFrame) say(key string, args ...string) string { return f.words().Say(key, args...) }

// fit says whether the fullest GPU fits: "fits", or by how much it is
// over.
func fit(f planFrame, mem parallel.Memory) string {
	if mem.Fits {
		return f.say("canvas.mem.fits")
	}
	return f.say("canvas.mem.overby", "bytes", units.Bytes(mem.Over))
}

// unfit says, for a plan whose fullest GPU does not fit, that it cannot
// run and how far over it is: what a GPU needs against what it can use
// (the numbers table's total_bytes, from the same engine result) and the
// ratio of the two; "" for a plan that fits.
func unfit(w render.Words, mem parallel.Memory) string {
	if mem.Fits || mem.Usable <= 0 {
		return ""
	}
	return w.Say("canvas.unfit", "need", units.Bytes(mem.Total), "usable", units.Bytes(mem.Usable), "ratio", units.Ratio(w.Lang, mem.Total/mem.Usable))
}

// unfitHead is the headline of a picture whose plan — what, in the
// reader's words ("" this plan) — does not fit its GPUs: what a GPU needs
// and how far over what it can use, and that it cannot run, in place of
// a step time it never has; "" for a plan that fits.
func unfitHead(w render.Words, mem parallel.Memory, what string) string {
	if mem.Fits || mem.Usable <= 0 {
		return ""
	}
	if what == "" {
		what = w.Say("canvas.unfit.plan")
	}
	return w.Say("canvas.unfit.head", "what", what, "need", units.Bytes(mem.Total), "over", units.Bytes(mem.Over), "usable", units.Bytes(mem.Usable))
}

// catalogued is key's text in the reader's language, or def where the
// catalogue has none.
func catalogued(f planFrame, key, def string) string {
	if i18n.Has(f.Lang, key) || i18n.Has(i18n.Fallback, key) {
		return f.say(key)
	}
	return def
}

// recomputeName is a recomputation mode in the reader's words.
func recomputeName(f planFrame, rc parallel.Recompute) string {
	return f.say("canvas.rc." + string(rc))
}

// memoryView is a memory step's bars: one per pipeline stage, ZeRO stage,
// recomputation mode or number of micro-batches, with the step's point
// over them; ZeRO's compared on a zoom where ZeRO-3's is a sliver, with
// each stage's communication under it; recomputation's and accumulation's
// with their time a step under them (accumulation's bars are the
// activations alone: the rest of the memory does not change with m).
func memoryView(m Moment, run *scenarios.PlanRun, f planFrame) render.MemoryBarsView {
	th := f.Theme
	v := render.MemoryBarsView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: th, Words: f.words()}
	cur := run.Result.Memory
	p := run.Config.Plan
	v.Capacity, v.Usable = cur.Capacity, cur.Usable
	bars := run.Bars
	if f.conceal && len(bars) > 1 && (run.View != scenarios.ViewMemory || m.StepRun().Step.Predict == "ep-memory") {
		bars = bars[:1] // (the experts' question: only the dense first stage until it is answered)
	}
	// The question asks what each GPU holds of the model's state: until
	// it is answered, the bars keep only what the answer is not.
	askStates := f.conceal && m.StepRun().Step.Predict == "states-per-gpu"
	for i, b := range bars {
		mem := b.Memory
		bar := render.MemoryBar{Label: b.Label, Segments: []render.MemorySegment{
			{Key: "weights", Bytes: mem.Weights}, {Key: "gradients", Bytes: mem.Gradients}, {Key: "optimizer", Bytes: mem.Optimizer},
			{Key: "activations", Bytes: mem.Activations}, {Key: "buffers", Bytes: mem.Buffers},
		}}
		if askStates {
			bar.Segments = bar.Segments[3:]
		}
		switch run.View {
		case scenarios.ViewZeRO:
			bar.Current = b.Label == "ZeRO-"+strconv.Itoa(p.ZeRO)
			bar.Seconds, bar.Hidden = b.Time.DPComm, b.Time.DPHidden
		case scenarios.ViewRecompute:
			bar.Current = b.Label == string(p.Recompute)
			bar.Label = f.say("canvas.rc.bar." + b.Label)
			bar.Seconds, bar.NoRun = b.Time.Step, !mem.Fits // no step time for what cannot run
		case scenarios.ViewEP:
			bar.Current = b.Label == "EP "+strconv.Itoa(max(p.EP, 1))
			bar.Seconds, bar.Hidden = b.Time.EPComm+b.Time.EPHidden, b.Time.EPHidden
		case scenarios.ViewAccum:
			bar.Current = b.Label == "m="+strconv.Itoa(run.Result.MicroBatches)
			bar.Segments = bar.Segments[3:4]
			bar.Seconds, bar.NoRun = b.Time.Step, !mem.Fits
		case scenarios.ViewMemory:
			bar.Current = mem.Stage == cur.Stage
			bar.Label = f.say("canvas.pipe.stage", "n", strconv.Itoa(i))
			if p.PP == 1 {
				bar.Label = f.say("canvas.mem.gpu")
			}
		}
		v.Bars = append(v.Bars, bar)
	}
	switch run.View {
	case scenarios.ViewZeRO:
		v.Headline = f.say("canvas.zero.head"+strconv.Itoa(p.ZeRO), "gpus", strconv.Itoa(p.DP), "bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
		tallest := 0.0
		for _, b := range bars {
			tallest = max(tallest, b.Memory.Total)
		}
		if tallest > 3*v.Capacity {
			v.Zoom = v.Capacity * 1.25
		}
		v.Lower = render.LowerChart{Title: f.say("canvas.zero.comm"), Solid: f.say("canvas.zero.exposed"), Light: f.say("canvas.zero.hidden"), Color: th.Hot}
	case scenarios.ViewRecompute:
		v.Lower = render.LowerChart{Title: f.say("canvas.rc.time"), Solid: f.say("canvas.rc.step"), Color: th.Dim}
	case scenarios.ViewEP:
		v.Lower = render.LowerChart{Title: f.say("canvas.ep.comm"), Solid: f.say("canvas.ep.exposed"), Light: f.say("canvas.ep.hidden"), Color: th.Hot}
	case scenarios.ViewAccum:
		v.Capacity, v.Usable = 0, 0
		v.Lower = render.LowerChart{Title: f.say("canvas.acc.time"), Solid: f.say("canvas.acc.step"), Color: th.Dim}
	case scenarios.ViewMemory:
		switch {
		case askStates:
			v.Headline = f.say("canvas.mem.ask", "tp", strconv.Itoa(p.TP), "pp", strconv.Itoa(p.PP))
		case p.TP*p.PP == 1:
			v.Headline = f.say("canvas.mem.replica", "bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
		case run.Config.Model.MoE() && p.EP <= 1 && !f.conceal:
			v.Headline = f.say("canvas.mem.experts", "experts", strconv.Itoa(run.Config.Model.Experts), "bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
		case run.Config.Model.MoE() && p.EP <= 1:
			v.Headline = f.say("canvas.mem.experts_ask", "experts", strconv.Itoa(run.Config.Model.Experts))
		default:
			v.Headline = f.say("canvas.mem.split", "tp", strconv.Itoa(p.TP), "pp", strconv.Itoa(p.PP), "bytes", units.Bytes(cur.Total), "fit", fit(f, cur))
		}
	}
	return v
}

// cardsView pours the seed's 100B model into 80 GB cards, one kind of
// bytes a step (the lesson's seed-memory steps in order): the weights in
// FP32 and in BF16; then Adam's moments as the seed counts them, and the
// ZeRO paper's 16 bytes a parameter; then the activations, against the
// seed's 800 GB – 1.2 TB, whose count is the question's answer.
func cardsView(m Moment, run *scenarios.PlanRun, f planFrame) render.CardsView {
	card := float64(run.Config.Cluster.GPU.HBMBytes)
	v := render.CardsView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		Card: card, Progress: f.frac}
	v.Headline = f.say("canvas.cards.head", "model", scenarios.ModelName(f.Lang, run.Config.Model), "params", scenarios.ParamCount(f.Lang, run.Result.Params),
		"gpu", catalogued(f, "gpu."+run.Config.Cluster.GPU.ID, run.Config.Cluster.GPU.Name), "bytes", units.Bytes(card))
	if len(run.Bars) < 5 {
		return v
	}
	// Which of the lesson's seed-memory steps this is.
	k := 0
	for i := 0; i < m.Step-1; i++ {
		if r, ok := m.Lesson.Steps[i].Run.(*scenarios.PlanRun); ok && r.View == scenarios.ViewSeed {
			k++
		}
	}
	fp32, bf16, adam, act, mixed := run.Bars[0].Memory, run.Bars[1].Memory, run.Bars[2].Memory, run.Bars[3].Memory, run.Bars[4].Memory
	lo, hi := 800e9, 1.2e12 // seed 001's estimate of everything together
	// One scale for the three steps: the most any of them pours.
	most := hi
	for _, b := range run.Bars {
		most = max(most, b.Memory.Total)
	}
	v.Slots = parallel.CardsNeeded(most, card)
	seg := func(key string, b float64) render.MemorySegment { return render.MemorySegment{Key: key, Bytes: b} }
	row := func(key string, pour int, segs ...render.MemorySegment) render.CardsRow {
		t := 0.0
		for _, s := range segs {
			t += s.Bytes
		}
		return render.CardsRow{Label: f.say(key, "bytes", units.Bytes(t), "b", strconv.Itoa(run.Config.Plan.MicroBatch)), Segments: segs, Pour: pour}
	}
	switch {
	case k == 0:
		v.Rows = []render.CardsRow{
			row("canvas.cards.fp32", 0, seg("weights", fp32.Weights)),
			row("canvas.cards.bf16", 0, seg("weights", bf16.Weights)),
		}
	case k == 1:
		v.Rows = []render.CardsRow{
			row("canvas.cards.adam", 1, seg("weights", adam.Weights), seg("optimizer", adam.Optimizer)),
			row("canvas.cards.mixed", 0, seg("weights", mixed.Weights), seg("gradients", mixed.Gradients), seg("optimizer", mixed.Optimizer)),
		}
	default:
		v.Rows = []render.CardsRow{
			row("canvas.cards.act", 2, seg("weights", act.Weights), seg("optimizer", act.Optimizer), seg("activations", act.Activations)),
			{Label: f.say("canvas.cards.seed", "lo", units.Bytes(lo), "hi", units.Bytes(hi)), Bytes: lo, High: hi,
				Estimate: f.say("canvas.cards.estimate"), Hidden: f.conceal},
		}
	}
	return v
}

// timelineCache is a run's time lines converted for the renderer, with
// their words, and the time axis the step shares with its neighbours.
type timelineCache struct {
	run     *scenarios.PlanRun
	conceal bool
	lang    string
	tls     []render.Timeline
	head    string
	dphead  string // data parallelism's, with its replicas
	span    float64
	ref     float64 // the step time without overlap, dashed
	views   viewCache
	drawn   render.PipelineCache // what AppendPipeline derives from tls
}

// viewCache is the last memory or cards view made, for the frame and
// step it was made for: rebuilt when either changes, not every frame.
type viewCache struct {
	key   viewKey
	mem   render.MemoryBarsView
	cards render.CardsView
}

type viewKey struct {
	run     *scenarios.PlanRun
	lesson  *scenarios.Lesson
	step    int
	frame   Frame
	stage   render.Rect
	conceal bool
}

func keyOf(m Moment, run *scenarios.PlanRun, f planFrame) viewKey {
	return viewKey{run: run, lesson: m.Lesson, step: m.Step, frame: f.Frame, stage: f.stage, conceal: f.conceal}
}

// memoryView is memoryView(m, run, f), made once for the frame.
func (p *Picture) memoryView(m Moment, run *scenarios.PlanRun, f planFrame) render.MemoryBarsView {
	c := &p.timelines.views
	if k := keyOf(m, run, f); c.key != k || c.mem.Bars == nil {
		c.key, c.mem = k, memoryView(m, run, f)
	}
	return c.mem
}

// cardsView is cardsView(m, run, f), made once for the frame, at the
// playhead's progress.
func (p *Picture) cardsView(m Moment, run *scenarios.PlanRun, f planFrame) render.CardsView {
	c := &p.timelines.views
	if k := keyOf(m, run, f); c.key != k || c.cards.Rows == nil {
		c.key, c.cards = k, cardsView(m, run, f)
	}
	v := c.cards
	v.Progress = f.frac
	return v
}

// pipelineView draws the run's time lines — each with its data-parallel
// all-reduce and optimizer update after the last backward of every stage,
// and the activation memory over time — on the time axis of the
// neighbouring steps that show the same view (so that a saving shows as
// a shorter line), under the step's point. Data parallelism's (show: dp)
// draws its replicas and names the phases of a step. The blocks and
// words depend on the run alone, not on the playhead: they are made once
// per run.
func (p *Picture) pipelineView(m Moment, run *scenarios.PlanRun, f planFrame) render.PipelineView {
	v := render.PipelineView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(), Time: f.t}
	if c := &p.timelines; c.run != run || c.conceal != f.conceal || c.lang != f.Lang {
		*c = timelineCache{run: run, conceal: f.conceal, lang: f.Lang, tls: timelines(run, f, f.conceal), head: headline(run, f), span: sharedSpan(m), ref: overlapRef(m, run)}
		if c.ref > 0 && len(c.tls) == 1 && c.tls[0].Unfit == "" {
			c.tls[0].Note = f.say("canvas.tl.ref", "step", units.Duration(run.Result.Time.Step), "ref", units.Duration(c.ref))
		}
	}
	v.Timelines, v.Headline, v.Span = p.timelines.tls, p.timelines.head, p.timelines.span
	if pl := run.Config.Plan; pl.PP == 1 && m.shows("dp") {
		v.Replicas, v.Phases = pl.DP, true
		if p.timelines.dphead == "" {
			p.timelines.dphead = unfitHead(f.words(), run.Result.Memory, "")
		}
		if p.timelines.dphead == "" {
			p.timelines.dphead = f.say("canvas.tl.dp", "gpus", strconv.Itoa(pl.DP), "step", units.Duration(run.Result.Time.Step))
		}
		v.Headline = p.timelines.dphead
	} else if pl.PP == 1 {
		v.Phases = true
	}
	v.Ref = p.timelines.ref
	v.ExpertComm = run.Config.Plan.EP > 1
	v.ContextComm = run.Config.Plan.CP > 1
	v.Cache = &p.timelines.drawn
	pl := run.Config.Plan
	v.StageGPUs, v.ReplicaGPUs = pl.TP*max(pl.CP, 1)*pl.DP, pl.TP*max(pl.CP, 1) // a click on a row zooms in (zoom.go)
	return v
}

// overlapRef is, for a step that hides its all-reduce, the step time of
// a neighbouring step with the same view that does not (the saving shows
// as the gap to it); 0 for none.
func overlapRef(m Moment, run *scenarios.PlanRun) float64 {
	if pl := run.Config.Plan; pl.PP != 1 || !pl.Overlap || run.Result.Time.DPHidden <= 0 {
		return 0
	}
	lo, hi := sameViewSteps(m)
	for i := lo; i <= hi; i++ {
		if r := m.Lesson.Steps[i].Run.(*scenarios.PlanRun); !r.Config.Plan.Overlap && len(r.Timelines) > 0 {
			return r.Timelines[0].Timeline.Length
		}
	}
	return 0
}

// sameViewSteps are the steps (0-based, lo to hi) around m's that show
// the same view.
func sameViewSteps(m Moment) (lo, hi int) {
	steps := m.Lesson.Steps
	view := m.StepRun().Run.(*scenarios.PlanRun).View
	same := func(i int) bool {
		r, ok := steps[i].Run.(*scenarios.PlanRun)
		return ok && r.View == view
	}
	lo, hi = m.Step-1, m.Step-1
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi+1 < len(steps) && same(hi+1) {
		hi++
	}
	return lo, hi
}

// sharedSpan is the longest time line of the steps around m's that show
// the same view: one time axis for them all.
func sharedSpan(m Moment) float64 {
	steps := m.Lesson.Steps
	lo, hi := sameViewSteps(m)
	span := 0.0
	for i := lo; i <= hi; i++ {
		for _, t := range steps[i].Run.(*scenarios.PlanRun).Timelines {
			span = max(span, t.Timeline.Length)
		}
	}
	return span
}

// headline is a time-line step's point, from its numbers.
//
// A plan that does not fit has no step time: its headline says so, and
// how far over it is (unfitHead) — but for the schedules, whose headline
// names what is compared, and a question still open.
func headline(run *scenarios.PlanRun, f planFrame) string {
	res := run.Result
	p, tm := run.Config.Plan, res.Time
	d := units.Duration
	switch run.View {
	case scenarios.ViewSchedules:
		return f.say("canvas.tl.schedules", "p", strconv.Itoa(p.PP), "m", strconv.Itoa(res.MicroBatches))
	case scenarios.ViewEP:
		if f.conceal {
			return f.say("canvas.ep.ask", "ep", strconv.Itoa(max(p.EP, 1)))
		}
	}
	if h := unfitHead(f.words(), res.Memory, planWhat(run, f)); h != "" {
		return h
	}
	switch run.View {
	case scenarios.ViewRecompute:
		if p.Recompute == parallel.RecomputeFull && len(run.Timelines) == 3 && !f.conceal {
			none := run.Timelines[0].Result
			return f.say("canvas.rc.headfull", "act", units.Bytes(res.Memory.Activations), "none", units.Bytes(none.Memory.Activations),
				"pct", units.Percent(tm.Step/none.Time.Step-1))
		}
		return f.say("canvas.rc.head", "mode", recomputeName(f, p.Recompute), "act", units.Bytes(res.Memory.Activations), "step", d(tm.Step))
	case scenarios.ViewAccum:
		return f.say("canvas.acc.head", "m", strconv.Itoa(res.MicroBatches), "step", d(tm.Step), "total", units.Bytes(res.Memory.Total))
	case scenarios.ViewEP:
		return f.say("canvas.ep.head", "ep", strconv.Itoa(max(p.EP, 1)), "mem", units.Bytes(res.Memory.Total), "a2a", d(tm.EPComm+tm.EPHidden),
			"exposed", d(tm.EPComm), "step", d(tm.Step), "share", units.Percent(tm.EPComm/tm.Step))
	}
	switch {
	case p.CP > 1:
		key := "canvas.tl.cp"
		if m := run.Config.Model; m.ID == "llama3-405b" && m.Seq == 131072 {
			key = "canvas.lc.llama3" // Llama 3's 131K row, against Meta's figure
		}
		return f.say(key, "tp", strconv.Itoa(p.TP), "cp", strconv.Itoa(p.CP), "pp", strconv.Itoa(p.PP), "dp", strconv.Itoa(p.DP),
			"gpus", units.Count(int64(run.Config.Cluster.GPUs)), "step", d(tm.Step), "tflops", strconv.FormatFloat(scenarios.ModelTFLOPS(res), 'f', 0, 64))
	case p.PP > 1:
		return f.say("canvas.tl.pipe", "step", d(tm.Step), "share", units.Percent(scenarios.BubbleShare(res)))
	case tm.DPComm > 0 && tm.DPHidden > 0:
		return f.say("canvas.tl.overlap", "hidden", d(tm.DPHidden), "comm", d(tm.DPComm), "step", d(tm.Step))
	case tm.DPComm > 0:
		return f.say("canvas.tl.serial", "comm", d(tm.DPComm), "step", d(tm.Step))
	}
	return f.say("canvas.tl.one", "step", d(tm.Step))
}

// planWhat is the run's plan in the reader's words where the picture
// compares it with others (a recomputation mode, a number of
// micro-batches, an EP degree); "" where it is the picture's one plan.
func planWhat(run *scenarios.PlanRun, f planFrame) string {
	p := run.Config.Plan
	switch run.View {
	case scenarios.ViewRecompute:
		return recomputeName(f, p.Recompute)
	case scenarios.ViewAccum:
		return f.say("canvas.acc.label", "m", strconv.Itoa(run.Result.MicroBatches), "b", strconv.Itoa(p.MicroBatch))
	case scenarios.ViewEP:
		return "EP " + strconv.Itoa(max(p.EP, 1))
	}
	return ""
}

// timelines converts a run's schedules to drawn time lines, with their
// labels and times in the reader's words.
func timelines(run *scenarios.PlanRun, f planFrame, conceal bool) []render.Timeline {
	tls := run.Timelines
	if conceal && len(tls) > 1 {
		tls = tls[:1]
	}
	out := make([]render.Timeline, 0, len(tls))
	for _, pt := range tls {
		t := timeline(pt)
		pl := pt.Result.Config.Plan
		switch run.View {
		case scenarios.ViewRecompute:
			t.Label = recomputeName(f, pl.Recompute)
		case scenarios.ViewEP:
			t.Label = f.say("canvas.ep.label", "ep", strconv.Itoa(max(pl.EP, 1)), "mem", units.Bytes(pt.Result.Memory.Total),
				"a2a", units.Duration(pt.Result.Time.EPComm))
		case scenarios.ViewAccum:
			t.Label = f.say("canvas.acc.label", "m", strconv.Itoa(pt.Result.MicroBatches), "b", strconv.Itoa(pl.MicroBatch))
			t.Sums = sumsSeries(pt.Timeline)
			t.SumsNote = f.say("canvas.acc.note", "m", strconv.Itoa(pt.Result.MicroBatches))
		default:
			switch {
			case pl.PP == 1 && pl.EP > 1:
				t.Label = f.say("canvas.tl.dplabel_ep", "gpus", strconv.Itoa(pl.DP), "ep", strconv.Itoa(pl.EP), "m", strconv.Itoa(pt.Result.MicroBatches))
			case pl.PP == 1:
				t.Label = f.say("canvas.tl.dplabel", "gpus", strconv.Itoa(pl.DP), "m", strconv.Itoa(pt.Result.MicroBatches))
			default:
				t.Label = f.say("canvas.tl.label", "sched", scheduleName(f, pl), "p", strconv.Itoa(pl.PP), "m", strconv.Itoa(pt.Result.MicroBatches))
			}
		}
		t.Unfit = unfit(f.words(), pt.Result.Memory)
		if t.Unfit == "" { // a plan that does not run has no step time
			t.Note = f.say("canvas.tl.step", "step", units.Duration(pt.Result.Time.Step))
		}
		out = append(out, t)
	}
	return out
}

// sumsSeries is the share of a step's gradient summed on stage 0 over
// time: a micro-batch's worth more at the end of each backward, nothing
// again once the update has used it.
func sumsSeries(tl parallel.Timeline) []render.MemoryPoint {
	var ends []float64
	update := -1.0
	for _, b := range tl.Blocks {
		switch {
		case b.Stage == 0 && b.Kind == parallel.Backward:
			ends = append(ends, b.End)
		case b.Stage == 0 && b.Kind == parallel.Optimizer:
			update = b.End
		}
	}
	if len(ends) == 0 {
		return nil
	}
	slices.Sort(ends)
	out := []render.MemoryPoint{{T: 0, Bytes: 0}}
	for k, e := range ends {
		out = append(out, render.MemoryPoint{T: e, Bytes: float64(k+1) / float64(len(ends))})
	}
	if update > 0 {
		out = append(out, render.MemoryPoint{T: update, Bytes: 0})
	}
	return out
}

// scheduleName is a pipeline schedule in the reader's words.
func scheduleName(f planFrame, pl parallel.Plan) string {
	if pl.Schedule == parallel.Interleaved {
		return f.say("canvas.sched.interleaved", "v", strconv.Itoa(pl.Interleave))
	}
	return f.say("canvas.sched." + string(pl.Schedule))
}

// timeline is one schedule of a strategy step, drawn: its blocks with
// the shares of each that the engine's result gives (stageShares). Its
// Length is the engine's time line's: the step time.
func timeline(pt scenarios.PlanTimeline) render.Timeline {
	return convert(pt.Timeline, stageShares(pt.Result, pt.Timeline.Stages), pt.ActBytes)
}

// shares are, per stage, the parts of a forward and of a backward block
// that are tensor-parallel communication (drawn at the block's end), and
// the part of a backward block that repeats the forward (recomputation,
// drawn hatched at its start).
type shares struct{ tpF, tpB, rec []float64 }

// stageShares reads a result's shares.
func stageShares(res parallel.Result, stages int) shares {
	sh := shares{make([]float64, stages), make([]float64, stages), make([]float64, stages)}
	for st := range min(stages, len(res.StageTP), len(res.StageTPForward), len(res.StageRecompute)) {
		fwdTP, bwdTP := res.StageTPForward[st], res.StageTP[st]-res.StageTPForward[st]
		if f := res.StageForward[st] + fwdTP; f > 0 {
			sh.tpF[st] = fwdTP / f
		}
		if b := res.StageBackward[st] + bwdTP; b > 0 {
			sh.tpB[st] = bwdTP / b
			sh.rec[st] = res.StageRecompute[st] / b
		}
	}
	return sh
}

// convert draws a schedule's blocks: each forward and backward split by
// sh (zero shares: whole compute blocks), sends as communication (one
// bar with the tensor-parallel communication that ends where the send
// starts: one mark, not two), each
// stage's data-parallel all-reduce (the part hidden behind the backward
// drawn as such, bucket by bucket) and optimizer update as the engine's
// time line places them, and act bytes a chunk-micro-batch holds on each
// stage as memory over time (nil: none).
func convert(tl parallel.Timeline, sh shares, act []float64) render.Timeline {
	out := render.Timeline{Stages: tl.Stages, Length: tl.Length, Blocks: make([]render.TimelineBlock, 0, 2*len(tl.Blocks))}
	type commKey struct {
		stage int
		end   float64
	}
	commAt := map[commKey]int{} // a block's communication bar by its stage and end
	at := func(v []float64, st int) float64 {
		if st < len(v) {
			return v[st]
		}
		return 0
	}
	block := func(b parallel.Block, kind render.BlockKind, start, commShare float64) {
		cut := b.End - (b.End-b.Start)*commShare
		mb := b.MicroBatch
		if kind == render.BlockRecompute {
			mb = -1
		}
		out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: kind, MicroBatch: mb, Chunk: b.Chunk, Start: start, End: cut})
		if commShare > 0.01 {
			commAt[commKey{b.Stage, b.End}] = len(out.Blocks)
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockComm, MicroBatch: -1, Start: cut, End: b.End})
		}
	}
	for _, b := range tl.Blocks {
		switch b.Kind {
		case parallel.Forward:
			block(b, render.BlockForward, b.Start, at(sh.tpF, b.Stage))
		case parallel.Backward:
			split := b.Start
			if r := at(sh.rec, b.Stage); r > 0 {
				split = b.Start + (b.End-b.Start)*r
				out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockRecompute, MicroBatch: -1, Chunk: b.Chunk, Start: b.Start, End: split})
			}
			block(b, render.BlockBackward, split, at(sh.tpB, b.Stage))
		case parallel.AllReduce:
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockDPComm, MicroBatch: b.MicroBatch, Start: b.Start, End: b.End, Hidden: b.Hidden})
		case parallel.Optimizer:
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockOptimizer, MicroBatch: -1, Start: b.Start, End: b.End})
		default:
			if i, ok := commAt[commKey{b.Stage, b.Start}]; ok && out.Blocks[i].End == b.Start {
				out.Blocks[i].End = b.End // the send continues the bar
				commAt[commKey{b.Stage, b.End}] = i
				continue
			}
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockComm, MicroBatch: -1, Start: b.Start, End: b.End})
		}
	}
	out.Memory = memorySeries(tl, act)
	return out
}

// memorySeries is each stage's activation bytes over time: up by a
// chunk-micro-batch's share at each forward, down at each backward.
func memorySeries(tl parallel.Timeline, per []float64) [][]render.MemoryPoint {
	if len(per) != tl.Stages || tl.Stages > 16 {
		return nil
	}
	out := make([][]render.MemoryPoint, tl.Stages)
	held := make([]float64, tl.Stages)
	for _, b := range tl.Blocks {
		switch b.Kind {
		case parallel.Forward:
			held[b.Stage] += per[b.Stage]
		case parallel.Backward:
			held[b.Stage] -= per[b.Stage]
		default:
			continue
		}
		out[b.Stage] = append(out[b.Stage], render.MemoryPoint{T: b.End, Bytes: max(0, held[b.Stage])})
	}
	for st := range out {
		slices.SortStableFunc(out[st], func(x, y render.MemoryPoint) int { return cmp.Compare(x.T, y.T) })
	}
	return out
}

// clusterCache holds what a cluster step's picture takes from its run
// and the reader's language — the step's parts and the headline's words —
// made once, not every frame.
type clusterCache struct {
	run      *scenarios.PlanRun
	lang     string
	conceal  bool
	headline string
	unfit    string // the plan does not fit: how far over ("" fits)
	parts    [6]render.TimePart
}

// view is clusterView with the run's parts and headline from the cache.
func (c *clusterCache) view(run *scenarios.PlanRun, f planFrame) render.ClusterView {
	if c.run != run || c.lang != f.Lang || c.conceal != f.conceal {
		tm := run.Result.Time
		c.run, c.lang, c.conceal = run, f.Lang, f.conceal
		c.parts = [6]render.TimePart{{Key: "compute", Seconds: tm.Compute}, {Key: "tp", Seconds: tm.TPComm}, {Key: "pp", Seconds: tm.PPComm},
			{Key: "dp", Seconds: tm.DPComm - tm.DPHidden}, {Key: "bubble", Seconds: tm.Bubble}, {Key: "optimizer", Seconds: tm.Optimizer}}
		c.headline = clusterHeadline(run, f.words(), f.conceal)
		c.unfit = unfit(f.words(), run.Result.Memory)
	}
	v := clusterView(run, f)
	v.Parts, v.Headline, v.Unfit = c.parts[:], c.headline, c.unfit
	return v
}

// clusterView is a cluster step's picture at f, less its parts and
// headline (clusterCache.view adds them).
func clusterView(run *scenarios.PlanRun, f planFrame) render.ClusterView {
	c := run.Config
	cl := c.Cluster
	w := f.words()
	v := render.ClusterView{
		Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Nodes: (cl.GPUs + cl.GPUsPerNode - 1) / cl.GPUsPerNode, GPUsPerNode: cl.GPUsPerNode,
		TP: c.Plan.TP, PP: c.Plan.PP, DP: c.Plan.DP, CP: c.Plan.CP, ColourBy: run.ColourBy, Active: run.ColourBy, Progress: f.frac,
		IntraName: cl.Intra.Name, IntraBW: cl.Intra.Bandwidth, InterName: cl.Inter.Name, InterBW: cl.Inter.Bandwidth,
		Time: f.t, Pending: f.conceal,
	}
	v.Step = run.Result.Time.Step
	return v
}

// clusterHeadline says which link the step's collective uses and what
// it costs: one instance (the page's clock runs over it) and its share of
// the step — the latter not while the step's question waits; for a plan
// that does not fit, that it cannot run and how far over it is.
func clusterHeadline(run *scenarios.PlanRun, w render.Words, conceal bool) string {
	if h := unfitHead(w, run.Result.Memory, ""); h != "" {
		return h // no collective runs on a plan that does not fit
	}
	c := run.Config
	cl := c.Cluster
	each, per, hidden := run.ClusterCollective()
	if each <= 0 {
		return w.Say("canvas.cluster.none_" + run.ColourBy)
	}
	// The link the engine costs the collective over (its slowest).
	var link string
	switch run.ColourBy {
	case "tp":
		link = parallel.TPLink(c.Plan, cl).Name
	case "pp":
		link = parallel.PipelineLink(c.Plan, cl).Name
	default:
		link = parallel.DPLink(c.Plan, cl).Name
	}
	key := "canvas.cluster.head_" + run.ColourBy
	if conceal {
		key += "_pending"
	}
	return w.Say(key, "link", link, "each", units.Duration(each), "per", units.Duration(per), "hidden", units.Duration(hidden),
		"step", units.Duration(run.Result.Time.Step))
}

// tpExample is the tensor-parallel lesson's matrices, computed once.
var tpExample = parallel.NewTPExample()

// tpView is one layer's MLP over two GPUs: a columns step plays its
// first half (phases 0–2), a rows step its second (2–4), the whole of it
// otherwise; the step's window is one layer's forward (the engine's), and
// the rows step says what its all-reduces cost.
func tpView(m Moment, run *scenarios.PlanRun, f planFrame) render.TPMatrixView {
	e := tpExample
	w := f.words()
	lo, hi, part := 0, 4, 0
	head := ""
	switch {
	case m.shows("columns"):
		lo, hi, part = 0, 2, 1
		head = w.Say("canvas.tp.head_columns")
	case m.shows("rows"):
		lo, hi, part = 2, 4, 2
		c, comm := run.LayerForward()
		head = w.Say("canvas.tp.head_rows", "comm", units.Duration(comm), "total", units.Duration(c+comm),
			"tp", strconv.Itoa(run.Config.Plan.TP))
	}
	phase := hi
	if f.t >= 0 {
		phase = min(hi, lo+int(f.frac*float64(hi-lo+1)))
	}
	return render.TPMatrixView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		X: e.X, A1: e.A1, A2: e.A2, Y1: e.Y1, Y2: e.Y2, B1: e.B1, B2: e.B2, Z1: e.Z1, Z2: e.Z2, Z: e.Z, Phase: phase,
		Part: part, Headline: head}
}

func plannerView(m Moment, run *scenarios.PlanRun, f planFrame) render.PlannerView {
	w := f.words()
	v := render.PlannerView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: w, Usable: run.Result.Memory.Usable}
	if run.View == scenarios.ViewBudget {
		budget := run.Budget
		if f.conceal && len(budget) > 1 {
			budget = budget[:1]
		}
		for i, b := range budget {
			label := w.Say("canvas.plan.budget_seed")
			if i > 0 {
				label = w.Say("canvas.plan.budget_faster")
			}
			v.Plans = append(v.Plans, render.PlanRow{Label: label, Step: b.Step(), Selected: i == 0, Parts: []render.TimePart{
				{Key: "compute", Seconds: b.Compute}, {Key: "dp", Seconds: b.DPSync}, {Key: "bubble", Seconds: b.Bubble},
			}})
		}
		return v
	}
	sr := run.Search
	if sr == nil {
		return v
	}
	// The tree's questions with the reader's bytes: what a GPU would hold
	// on the branch against what it can use.
	for _, s := range sr.Decision.Steps {
		v.Tree = append(v.Tree, render.DecisionNode{Question: w.Say("canvas.plan.q_"+s.ID, "need", units.Bytes(s.Need), "have", units.Bytes(s.Have)),
			Answer: s.Answer, Taken: true})
	}
	v.Branch = sr.Decision.Branch
	selected := run.Selected()
	if selected < len(sr.Plans) {
		q := sr.Plans[selected].Config.Plan
		v.Chosen = scenarios.PlanBranch(q.TP, q.PP)
		v.ChosenKey = w.Say("canvas.plan.key_chosen", "rank", strconv.Itoa(selected+1), "plan", scenarios.ChosenPlan(w.Lang, sr.Plans[selected]))
	}
	for i, r := range sr.Plans {
		if i >= 12 {
			break
		}
		p := r.Config.Plan
		tm := r.Time
		dims := fmt.Sprintf("TP%d PP%d DP%d ", p.TP, p.PP, p.DP)
		if r.Config.Model.MoE() {
			dims += fmt.Sprintf("EP%d ", max(p.EP, 1))
		}
		if p.CP > 1 {
			dims += fmt.Sprintf("CP%d ", p.CP) + w.Say("canvas.plan.cp_"+string(p.CPAlgo)) + " "
		}
		v.Plans = append(v.Plans, render.PlanRow{
			Label: dims + fmt.Sprintf("v%d Z%d b%d ", p.Interleave, p.ZeRO, p.MicroBatch) +
				w.Say("canvas.plan.rc_"+string(p.Recompute)),
			Step:   tm.Step,
			Memory: r.Memory.Total,
			Parts: []render.TimePart{{Key: "compute", Seconds: tm.Compute}, {Key: "tp", Seconds: tm.TPComm}, {Key: "ep", Seconds: tm.EPComm}, {Key: "cp", Seconds: tm.CPComm}, {Key: "pp", Seconds: tm.PPComm},
				{Key: "dp", Seconds: tm.DPComm - tm.DPHidden}, {Key: "bubble", Seconds: tm.Bubble}, {Key: "optimizer", Seconds: tm.Optimizer}},
			Selected: i == selected,
		})
	}
	v.Note = w.Say("canvas.plan.codes")
	if m.shows("tree") {
		v.Plans, v.Note = nil, ""
	}
	return v
}
