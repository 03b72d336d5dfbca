package scene

import (
	"fmt"
	"slices"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
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
		return render.AppendPipeline(dst, p.pipelineView(run, pf))
	case scenarios.ViewRecompute, scenarios.ViewAccum:
		left, right := pf, pf
		if f.Stage.W >= f.Stage.H {
			left.stage.W = f.Stage.W * 0.64
			right.stage.X, right.stage.W = f.Stage.X+left.stage.W, f.Stage.W-left.stage.W
		} else {
			left.stage.H = f.Stage.H * 0.6
			right.stage.Y, right.stage.H = f.Stage.Y+left.stage.H, f.Stage.H-left.stage.H
		}
		dst = render.AppendPipeline(dst, p.pipelineView(run, left))
		p.scratch = render.AppendMemoryBars(p.scratch, memoryView(run, right))
		dst.Items = append(dst.Items, p.scratch.Items...)
		dst.Keys = append(dst.Keys, p.scratch.Keys...)
		return dst
	case scenarios.ViewMemory, scenarios.ViewZeRO, scenarios.ViewSeed:
		return render.AppendMemoryBars(dst, memoryView(run, pf))
	case scenarios.ViewCluster:
		return render.AppendCluster(dst, clusterView(run, pf))
	case scenarios.ViewTPMatrix:
		return render.AppendTPMatrix(dst, tpView(pf))
	case scenarios.ViewPlanner, scenarios.ViewBudget:
		return render.AppendPlanner(dst, plannerView(run, pf))
	}
	return empty(dst, f)
}

func memoryView(run *scenarios.PlanRun, f planFrame) render.MemoryBarsView {
	v := render.MemoryBarsView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words()}
	cur := run.Result.Memory
	v.Capacity, v.Usable = cur.Capacity, cur.Usable
	bars := run.Bars
	if f.conceal && len(bars) > 1 && run.View != scenarios.ViewMemory && run.View != scenarios.ViewSeed {
		bars = bars[:1]
	}
	for _, b := range bars {
		m := b.Memory
		if v.Capacity == 0 {
			v.Capacity, v.Usable = m.Capacity, m.Usable
		}
		bar := render.MemoryBar{Label: b.Label, Segments: []render.MemorySegment{
			{Key: "weights", Bytes: m.Weights}, {Key: "gradients", Bytes: m.Gradients}, {Key: "optimizer", Bytes: m.Optimizer},
			{Key: "activations", Bytes: m.Activations}, {Key: "buffers", Bytes: m.Buffers},
		}}
		switch run.View {
		case scenarios.ViewZeRO:
			bar.Current = b.Label == fmt.Sprintf("ZeRO-%d", run.Config.Plan.ZeRO)
		case scenarios.ViewRecompute:
			bar.Current = b.Label == string(run.Config.Plan.Recompute)
		case scenarios.ViewAccum:
			bar.Current = b.Label == fmt.Sprintf("m=%d", run.Result.MicroBatches)
		case scenarios.ViewMemory:
			bar.Current = m.Stage == cur.Stage
		}
		v.Bars = append(v.Bars, bar)
	}
	return v
}

// timelineCache is a run's time lines converted for the renderer.
type timelineCache struct {
	run     *scenarios.PlanRun
	conceal bool
	tls     []render.Timeline
}

// pipelineView draws the run's time lines, each with its data-parallel
// all-reduce and optimizer update after the last backward of every stage,
// and the activation memory over time. The blocks depend on the run alone,
// not on the playhead: they are converted once per run.
func (p *Picture) pipelineView(run *scenarios.PlanRun, f planFrame) render.PipelineView {
	v := render.PipelineView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(), Time: f.t}
	if c := &p.timelines; c.run != run || c.conceal != f.conceal {
		*c = timelineCache{run: run, conceal: f.conceal, tls: timelines(run, f.conceal)}
	}
	v.Timelines = p.timelines.tls
	return v
}

// timelines converts a run's schedules to drawn time lines.
func timelines(run *scenarios.PlanRun, conceal bool) []render.Timeline {
	tls := run.Timelines
	if conceal && len(tls) > 1 {
		tls = tls[:1]
	}
	out := make([]render.Timeline, 0, len(tls))
	for _, pt := range tls {
		out = append(out, timeline(pt))
	}
	return out
}

// timeline is one schedule of a strategy step, drawn: its blocks with
// the shares of each that the engine's result gives (stageShares), and
// the step's data-parallel and optimizer time.
func timeline(pt scenarios.PlanTimeline) render.Timeline {
	label := fmt.Sprintf("%s  p=%d m=%d", pt.Label, pt.Timeline.Stages, pt.Timeline.Micro)
	return convert(label, pt.Timeline, stageShares(pt.Result, pt.Timeline.Stages), pt.ActBytes)
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
// sh (zero shares: whole compute blocks), sends as communication, each
// stage's data-parallel all-reduce (the part hidden behind the backward
// drawn as such) and optimizer update as the engine's time line places
// them, and act bytes a chunk-micro-batch holds on each stage as memory
// over time (nil: none).
func convert(label string, tl parallel.Timeline, sh shares, act []float64) render.Timeline {
	out := render.Timeline{Label: label, Stages: tl.Stages, Length: tl.Length}
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
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockDPComm, MicroBatch: -1, Start: b.Start, End: b.End, Hidden: b.Hidden})
		case parallel.Optimizer:
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockOptimizer, MicroBatch: -1, Start: b.Start, End: b.End})
		default:
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
		slices.SortStableFunc(out[st], func(x, y render.MemoryPoint) int {
			switch {
			case x.T < y.T:
				return -1
			case x.T > y.T:
				return 1
			}
			return 0
		})
	}
	return out
}

func clusterView(run *scenarios.PlanRun, f planFrame) render.ClusterView {
	c := run.Config
	cl := c.Cluster
	return render.ClusterView{
		Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		Nodes: (cl.GPUs + cl.GPUsPerNode - 1) / cl.GPUsPerNode, GPUsPerNode: cl.GPUsPerNode,
		TP: c.Plan.TP, PP: c.Plan.PP, DP: c.Plan.DP, ColourBy: run.ColourBy, Active: run.ColourBy, Progress: f.frac,
		IntraName: cl.Intra.Name, IntraBW: cl.Intra.Bandwidth, InterName: cl.Inter.Name, InterBW: cl.Inter.Bandwidth,
	}
}

// tpExample is the tensor-parallel lesson's matrices, computed once.
var tpExample = parallel.NewTPExample()

func tpView(f planFrame) render.TPMatrixView {
	e := tpExample
	phase := 4
	if f.t >= 0 {
		phase = min(4, int(f.frac*5))
	}
	return render.TPMatrixView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		X: e.X, A1: e.A1, A2: e.A2, Y1: e.Y1, Y2: e.Y2, B1: e.B1, B2: e.B2, Z1: e.Z1, Z2: e.Z2, Z: e.Z, Phase: phase}
}

// plannerQuestions are the decision tree's questions, short enough for the
// canvas.
var plannerQuestions = map[string]string{"fits-one-gpu": "fits 1 GPU?", "fits-one-node": "fits 1 node?", "fits-tp-pp": "TP in node + PP fits?"}

func plannerView(run *scenarios.PlanRun, f planFrame) render.PlannerView {
	v := render.PlannerView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(), Usable: run.Result.Memory.Usable}
	if run.View == scenarios.ViewBudget {
		budget := run.Budget
		if f.conceal && len(budget) > 1 {
			budget = budget[:1]
		}
		for i, b := range budget {
			label := "seed step"
			if i > 0 {
				label = "compute x1.2"
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
	for _, s := range sr.Decision.Steps {
		v.Tree = append(v.Tree, render.DecisionNode{Question: plannerQuestions[s.ID], Answer: s.Answer, Taken: true})
	}
	v.Branch = sr.Decision.Branch
	selected := run.Selected()
	for i, r := range sr.Plans {
		if i >= 12 {
			break
		}
		p := r.Config.Plan
		tm := r.Time
		v.Plans = append(v.Plans, render.PlanRow{
			Label:  fmt.Sprintf("TP%d PP%d DP%d v%d Z%d %s b%d", p.TP, p.PP, p.DP, p.Interleave, p.ZeRO, p.Recompute, p.MicroBatch),
			Step:   tm.Step,
			Memory: r.Memory.Total,
			Parts: []render.TimePart{{Key: "compute", Seconds: tm.Compute}, {Key: "tp", Seconds: tm.TPComm}, {Key: "pp", Seconds: tm.PPComm},
				{Key: "dp", Seconds: tm.DPComm - tm.DPHidden}, {Key: "bubble", Seconds: tm.Bubble}, {Key: "optimizer", Seconds: tm.Optimizer}},
			Selected: i == selected,
		})
	}
	return v
}
