package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The infrastructure lessons' pictures: links, collectives, failures.

// ringCache is what a collective's picture keeps between frames: the
// run's state at the playhead (rewritten in place), the ring's layout and
// the time-against-GPUs chart, made once for the run it was made for.
type ringCache struct {
	snap  collective.Snapshot
	drawn render.CollectiveCache
	run   *collective.Result
	chart []render.TimeVsN
}

func buildCollective(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*collective.Result)
	c := &p.rings
	if c.run != run {
		c.run, c.chart = run, nil
		if cl, ok := m.Lesson.Collective(); ok {
			for _, p := range cl.Sweep() {
				c.chart = append(c.chart, render.TimeVsN{N: p.Ranks, Ring: p.RingTimeS, Star: p.StarTimeS})
			}
		}
	}
	var chart []render.TimeVsN
	if m.shows(scenarios.ViewTimeVsN) {
		chart = c.chart
	}
	run.SnapshotInto(&c.snap, m.Time)
	link, _ := hw.LinkByID(run.Config.Link.ID)
	inter := ""
	if run.Config.Nodes > 1 {
		inter = run.Config.Inter.Name
	}
	return render.AppendCollective(dst, render.CollectiveView{
		Nodes:     run.Config.Nodes,
		InterLink: inter,
		Width:     f.Width, Height: f.Height,
		Stage:    f.Stage,
		Scale:    f.Scale,
		Theme:    f.Theme,
		Words:    f.words(),
		Snapshot: c.snap,
		Cache:    &c.drawn,
		Total:    run.Time,
		Link:     link.Name,
		TimeVsN:  chart,
	})
}

// Contention lanes: the same all-to-all on a non-blocking fat tree and on
// one with a 2:1 spine.
var contentionLanes = [2]string{"canvas.contention.lane_1to1", "canvas.contention.lane_2to1"}

func buildFabric(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.FabricRun)
	t, _ := m.window()
	switch run.View {
	case scenarios.ViewRace:
		lane := func(l hw.Link, s float64) render.RaceLane {
			return render.RaceLane{Name: l.Name, Rated: true, Bandwidth: l.Bandwidth, Latency: l.Latency.Seconds(), Seconds: s}
		}
		return render.AppendRace(dst, render.RaceView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
			Title: f.words().Say("canvas.race.title", "bytes", units.Bytes(run.Bytes)), Time: t,
			Lanes: []render.RaceLane{lane(run.Intra, run.IntraS), lane(run.Inter, run.InterS)}})
	case scenarios.ViewContention:
		return p.contention(dst, run, f, t)
	case scenarios.ViewRack, scenarios.ViewCeiling:
		return p.buildRack(dst, run, f, t)
	}
	w := f.words()
	v := render.SizeChartView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w, YLabel: "s", Current: run.Bytes,
		Pending: m.Pending}
	name := func(a collective.Algo) string { return w.Say("canvas.sizes." + string(a)) }
	fast := run.Fastest()
	v.Highlight = name(fast)
	args := []string{"bytes", units.Bytes(run.Bytes), "ranks", units.Count(int64(run.Ranks)), "nodes", units.Count(int64((run.Ranks + run.GPUsPerNode - 1) / run.GPUsPerNode)),
		"k", strconv.Itoa(run.GPUsPerNode), "fastest", name(fast), "time", units.Duration(run.Forms[fast].Seconds)}
	key := "canvas.sizes.title"
	if m.Pending {
		key = "canvas.sizes.pending"
	}
	if run.GPUsPerNode > 1 {
		key += "_nodes"
	}
	v.Title = w.Say(key, args...)
	v.Crossovers = []render.SizeCrossover{} // the engine's, none or some: never sampled
	for _, c := range run.Crossings {
		v.Crossovers = append(v.Crossovers, render.SizeCrossover{A: name(c.A), B: name(c.B), Bytes: c.Bytes})
	}
	for _, algo := range scenarios.FabricAlgos {
		s := render.SizeSeries{Label: name(algo)}
		for _, p := range run.Sweep {
			s.Bytes = append(s.Bytes, p.Bytes)
			s.Values = append(s.Values, p.Seconds[string(algo)])
		}
		v.Series = append(v.Series, s)
		if fm, ok := run.Forms[algo]; ok {
			v.Parts = append(v.Parts, render.SizePart{Label: name(algo), Latency: fm.Latency, Bandwidth: fm.Bandwidth})
		}
	}
	return render.AppendSizeChart(dst, v)
}

// contention draws the contention step: the two fat trees with their
// links' loads, each with its run's time on one scale.
func (p *Picture) contention(dst render.List, run *scenarios.FabricRun, f Frame, t float64) render.List {
	w := f.words()
	trees := make([]render.FatTree, len(contentionLanes))
	for i, key := range contentionLanes {
		tr := run.Trees[i]
		ft := render.FatTree{Name: w.Say(key), Short: [2]string{"1:1", "2:1"}[i], Leaves: tr.Leaves, Spines: tr.Spines, NodesPerLeaf: tr.NodesPerLeaf, Seconds: run.Contention[i].Seconds}
		for _, k := range tr.Links {
			ft.Links = append(ft.Links, render.FatTreeLink{Up: k.Up, Node: k.GPU, Leaf: k.Leaf, Spine: k.Spine, Bandwidth: k.Bandwidth, Busy: k.Busy})
		}
		trees[i] = ft
	}
	return render.AppendFatTree(dst, render.FatTreeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Title: w.Say("canvas.contention.title", "bytes", units.Bytes(run.Bytes), "gpus", units.Count(scenarios.ContentionGPUs)), Trees: trees, Time: t})
}

// faultCache is a fault run's trace, events and sweep, converted once per
// run: the trace has a point for every failure and checkpoint of 54 days.
type faultCache struct {
	result      *faults.Result
	view        render.FaultsView
	lang, title string // the header, in the language it was made for
	drawn       render.FaultsCache
}

func buildFaults(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.FaultRun)
	r := run.Result
	if c := &p.faults; c.result != &run.Result {
		met := r.Metrics()
		v := render.FaultsView{Days: r.Config.Days, Chosen: r.Config.CheckpointEvery, ChosenGoodput: met.Goodput, Optimum: met.OptimalIntervalS}
		v.Progress = make([]render.ProgressPoint, 0, len(r.Trace))
		for _, pt := range r.Trace {
			v.Progress = append(v.Progress, render.ProgressPoint{Wall: pt.Wall, Kept: pt.Progress, Saved: pt.Saved, Lost: pt.Lost, Restart: pt.Restart, Ckpt: pt.Checkpoint})
		}
		v.Events = make([]render.FaultEvent, 0, len(r.FailureTimes)+len(r.CheckpointTimes))
		for _, t := range r.FailureTimes {
			v.Events = append(v.Events, render.FaultEvent{At: t, Kind: render.FaultFailure})
		}
		for _, t := range r.CheckpointTimes {
			v.Events = append(v.Events, render.FaultEvent{At: t, Kind: render.FaultCheckpoint})
		}
		for _, s := range run.Sweep {
			v.Sweep = append(v.Sweep, render.GoodputPoint{Interval: s.CheckpointEveryS, Goodput: s.Goodput})
		}
		v.MTBF = met.ClusterMTBFS
		*c = faultCache{result: &run.Result, view: v}
	}
	v := p.faults.view
	w := f.words()
	v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.Width, f.Height, f.Stage, f.Scale, f.Theme, w
	if c := &p.faults; c.lang != w.Lang || c.title == "" {
		c.lang = w.Lang
		c.title = w.Say("canvas.faults.title", "gpus", units.Count(int64(r.Config.GPUs)), "mtbf", units.LocalDuration(w.Lang, r.Config.ClusterMTBF()),
			"every", units.LocalDuration(w.Lang, r.Config.CheckpointEvery))
	}
	v.Title = p.faults.title
	v.GoodputMain = m.shows(scenarios.ViewGoodput)
	v.Pending = m.Pending
	v.Time, _ = m.window()
	v.Cache = &p.faults.drawn
	return render.AppendFaults(dst, v)
}
