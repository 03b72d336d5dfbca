//go:build js && wasm

package main

import (
	"fmt"
	"slices"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The strategy lessons' pictures: a PlanRun's view turned into one or two
// render views (a time line beside memory bars for recomputation and
// gradient accumulation).

// timelineCache is a run's time lines converted for the renderer.
type timelineCache struct {
	run     *scenarios.PlanRun
	conceal bool
	tls     []render.Timeline
}

// planFrame is where a strategy picture goes.
type planFrame struct {
	w, h  float32 // the canvas
	stage render.Rect
	scale float32
	th    render.Theme
	t     float64 // the playhead, seconds; −1 all done
	frac  float64 // the playhead as a share of the step's window
	// conceal: the step's question is not answered yet, so a picture that
	// compares configurations shows only the first (the answer waits).
	conceal bool
}

func (a *app) buildPlan(run *scenarios.PlanRun, f planFrame) {
	switch run.View {
	case scenarios.ViewTimeline, scenarios.ViewSchedules:
		a.list = render.AppendPipeline(a.list, a.pipelineView(run, f, f.stage))
	case scenarios.ViewRecompute, scenarios.ViewAccum:
		left, right := f.stage, f.stage
		if f.stage.W >= f.stage.H {
			left.W = f.stage.W * 0.64
			right.X, right.W = f.stage.X+left.W, f.stage.W-left.W
		} else {
			left.H = f.stage.H * 0.6
			right.Y, right.H = f.stage.Y+left.H, f.stage.H-left.H
		}
		a.list = render.AppendPipeline(a.list, a.pipelineView(run, f, left))
		a.scratch = render.AppendMemoryBars(a.scratch, memoryView(run, f, right))
		a.list.Items = append(a.list.Items, a.scratch.Items...)
	case scenarios.ViewMemory, scenarios.ViewZeRO, scenarios.ViewSeed:
		a.list = render.AppendMemoryBars(a.list, memoryView(run, f, f.stage))
	case scenarios.ViewCluster:
		a.list = render.AppendCluster(a.list, clusterView(run, f))
	case scenarios.ViewTPMatrix:
		a.list = render.AppendTPMatrix(a.list, tpView(f))
	case scenarios.ViewPlanner, scenarios.ViewBudget:
		a.list = render.AppendPlanner(a.list, plannerView(run, f))
	default:
		a.list = render.List{Width: f.w, Height: f.h, Background: f.th.Background, Items: a.list.Items[:0]}
	}
}

func memoryView(run *scenarios.PlanRun, f planFrame, stage render.Rect) render.MemoryBarsView {
	v := render.MemoryBarsView{Width: f.w, Height: f.h, Stage: stage, Scale: f.scale, Theme: f.th}
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

// pipelineView draws the run's time lines, each with its data-parallel
// all-reduce and optimizer update after the last backward of every stage,
// and the activation memory over time.
func (a *app) pipelineView(run *scenarios.PlanRun, f planFrame, stage render.Rect) render.PipelineView {
	v := render.PipelineView{Width: f.w, Height: f.h, Stage: stage, Scale: f.scale, Theme: f.th, Time: f.t}
	// The blocks depend on the run alone, not on the playhead: convert
	// them once per run, not on every frame it plays.
	if c := &a.timelines; c.run == run && c.conceal == f.conceal {
		v.Timelines = c.tls
		return v
	}
	defer func() { a.timelines = timelineCache{run: run, conceal: f.conceal, tls: v.Timelines} }()
	tls := run.Timelines
	if f.conceal && len(tls) > 1 {
		tls = tls[:1]
	}
	for _, pt := range tls {
		tl := pt.Timeline
		res := pt.Result
		out := render.Timeline{Label: fmt.Sprintf("%s  p=%d m=%d", pt.Label, tl.Stages, tl.Micro), Stages: tl.Stages, Length: tl.Length}
		recompute := 0.0 // the share of a backward block that repeats the forward
		switch res.Config.Plan.Recompute {
		case parallel.RecomputeFull:
			recompute = 1.0 / 3
		case parallel.RecomputeSelective:
			recompute = 0.03
		}
		// Each block ends with its tensor-parallel all-reduces, drawn as
		// communication: their share of the stage's forward and backward.
		tpF, tpB := make([]float64, tl.Stages), make([]float64, tl.Stages)
		share := 0.5
		if res.Config.Plan.Recompute == parallel.RecomputeFull {
			share = 1.0 / 3
		}
		for st := range min(tl.Stages, len(res.StageTP)) {
			if f := res.StageForward[st] + res.StageTP[st]*share; f > 0 {
				tpF[st] = res.StageTP[st] * share / f
			}
			if b := res.StageBackward[st] + res.StageTP[st]*(1-share); b > 0 {
				tpB[st] = res.StageTP[st] * (1 - share) / b
			}
		}
		withTP := func(b parallel.Block, kind render.BlockKind, start float64, frac float64) {
			cut := b.End - (b.End-b.Start)*frac
			mb := b.MicroBatch
			if kind == render.BlockRecompute {
				mb = -1
			}
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: kind, MicroBatch: mb, Chunk: b.Chunk, Start: start, End: cut})
			if frac > 0.01 {
				out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockComm, MicroBatch: -1, Start: cut, End: b.End})
			}
		}
		lastB := make([]float64, tl.Stages)
		for _, b := range tl.Blocks {
			switch b.Kind {
			case parallel.Forward:
				withTP(b, render.BlockForward, b.Start, tpF[b.Stage])
			case parallel.Backward:
				split := b.Start + (b.End-b.Start)*recompute
				if recompute > 0.1 {
					out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockRecompute, MicroBatch: -1, Chunk: b.Chunk, Start: b.Start, End: split})
				} else {
					split = b.Start
				}
				withTP(b, render.BlockBackward, split, tpB[b.Stage])
				lastB[b.Stage] = max(lastB[b.Stage], b.End)
			default:
				out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: b.Stage, Kind: render.BlockComm, MicroBatch: -1, Start: b.Start, End: b.End})
			}
		}
		// Data parallelism and the update, after each stage's last backward.
		tm := res.Time
		for st := range tl.Stages {
			end := lastB[st]
			if tm.DPComm > 0 {
				start := max(0, end-tm.DPHidden)
				if tm.DPHidden > 0 {
					out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: st, Kind: render.BlockDPComm, MicroBatch: -1, Start: start, End: end, Hidden: true})
				}
				exposed := tm.DPComm - tm.DPHidden
				out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: st, Kind: render.BlockDPComm, MicroBatch: -1, Start: end, End: end + exposed})
				end += exposed
			}
			out.Blocks = append(out.Blocks, render.TimelineBlock{Stage: st, Kind: render.BlockOptimizer, MicroBatch: -1, Start: end, End: end + tm.Optimizer})
			out.Length = max(out.Length, end+tm.Optimizer)
		}
		out.Memory = memorySeries(tl, pt.ActBytes)
		v.Timelines = append(v.Timelines, out)
	}
	return v
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
	speed := func(l hw.Link) string { return fmt.Sprintf("%s %.0f GB/s", l.Name, l.Bandwidth/1e9) }
	return render.ClusterView{
		Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th,
		Nodes: (cl.GPUs + cl.GPUsPerNode - 1) / cl.GPUsPerNode, GPUsPerNode: cl.GPUsPerNode,
		TP: c.Plan.TP, PP: c.Plan.PP, DP: c.Plan.DP, ColourBy: run.ColourBy, Active: run.ColourBy, Progress: f.frac,
		IntraLabel: speed(cl.Intra), InterLabel: speed(cl.Inter),
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
	return render.TPMatrixView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th,
		X: e.X, A1: e.A1, A2: e.A2, Y1: e.Y1, Y2: e.Y2, B1: e.B1, B2: e.B2, Z1: e.Z1, Z2: e.Z2, Z: e.Z, Phase: phase}
}

func plannerView(run *scenarios.PlanRun, f planFrame) render.PlannerView {
	v := render.PlannerView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th, Usable: run.Result.Memory.Usable}
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
	short := map[string]string{"fits-one-gpu": "fits 1 GPU?", "fits-one-node": "fits 1 node?", "fits-tp-pp": "TP in node + PP fits?"}
	for _, s := range sr.Decision.Steps {
		v.Tree = append(v.Tree, render.DecisionNode{Question: short[s.ID], Answer: s.Answer, Taken: true})
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
