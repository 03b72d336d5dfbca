//go:build js && wasm

package main

import (
	"fmt"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The infrastructure lessons' pictures (issue 6).

func (a *app) buildFabric(run *scenarios.FabricRun, f planFrame) {
	if run.View == scenarios.ViewRace {
		lane := func(name string, bw float64, lat float64, s float64) render.RaceLane {
			return render.RaceLane{Label: fmt.Sprintf("%s  %.0f GB/s", name, bw/1e9), Bandwidth: bw, Latency: lat, Seconds: s}
		}
		a.list = render.AppendRace(a.list, render.RaceView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th,
			Bytes: run.Bytes, Time: f.t, Lanes: []render.RaceLane{
				lane(run.Intra.Name, run.Intra.Bandwidth, run.Intra.Latency.Seconds(), run.IntraS),
				lane(run.Inter.Name, run.Inter.Bandwidth, run.Inter.Latency.Seconds(), run.InterS),
			}})
		return
	}
	if run.View == scenarios.ViewContention {
		lane := func(name string, r float64) render.RaceLane {
			bw := 0.0
			if r > 0 {
				bw = run.Bytes / r
			}
			return render.RaceLane{Label: name, Bandwidth: bw, Seconds: r}
		}
		a.list = render.AppendRace(a.list, render.RaceView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th,
			Bytes: run.Bytes, Time: f.t, Lanes: []render.RaceLane{
				lane("fat tree 1:1", run.Contention[0].Seconds),
				lane("fat tree 2:1", run.Contention[1].Seconds),
			}})
		return
	}
	v := render.SizeChartView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th, YLabel: "s", Current: run.Bytes}
	if !f.conceal {
		v.Highlight = string(run.Fastest())
	}
	for _, algo := range scenarios.FabricAlgos {
		s := render.SizeSeries{Label: string(algo)}
		for _, p := range run.Sweep {
			s.Bytes = append(s.Bytes, p.Bytes)
			s.Values = append(s.Values, p.Seconds[string(algo)])
		}
		v.Series = append(v.Series, s)
	}
	a.list = render.AppendSizeChart(a.list, v)
}

func (a *app) buildFaults(run *scenarios.FaultRun, f planFrame) {
	r := run.Result
	c := r.Config
	v := render.FaultsView{Width: f.w, Height: f.h, Stage: f.stage, Scale: f.scale, Theme: f.th, Days: c.Days,
		Chosen: c.CheckpointEvery, Optimum: r.Metrics().OptimalIntervalS, Time: f.t}
	for _, p := range r.Trace {
		v.Progress = append(v.Progress, render.ProgressPoint{Wall: p.Wall, Kept: p.Progress})
	}
	for _, t := range r.FailureTimes {
		v.Events = append(v.Events, render.FaultEvent{At: t, Kind: render.FaultFailure})
	}
	for _, t := range r.CheckpointTimes {
		v.Events = append(v.Events, render.FaultEvent{At: t, Kind: render.FaultCheckpoint})
	}
	for _, s := range run.Sweep {
		v.Sweep = append(v.Sweep, render.GoodputPoint{Interval: s.CheckpointEveryS, Goodput: s.Goodput})
	}
	a.list = render.AppendFaults(a.list, v)
}
