package faults

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Across random jobs (fixed seeds): wall time is accounted for exactly —
// useful work + lost work + checkpoint writing + restarting = the run's
// wall time; every part is non-negative; the recorded trace never runs
// backwards in time, never shows progress ahead of the wall clock, ends at
// the end of the run with the useful work; failures and checkpoints are in
// order and inside the run; recording changes nothing.
func TestRunProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2025))
	ran := 0
	for i := range 200 {
		c := Config{
			GPUs:            1 << rng.IntN(16),
			MTBFGPUHours:    math.Pow(10, 1+5*rng.Float64()),
			CheckpointEvery: math.Pow(10, 1+3.5*rng.Float64()),
			CheckpointCost:  []float64{0, 1, 30, 600}[rng.IntN(4)] * rng.Float64(),
			RestartCost:     []float64{0, 60, 600, 3600}[rng.IntN(4)] * rng.Float64(),
			Days:            math.Pow(10, -2+3*rng.Float64()),
			Seed:            rng.Uint64(),
		}
		if c.Days*86400/c.ClusterMTBF() > 2e4 || c.Days*86400/c.CheckpointEvery > 2e4 {
			continue // keep the test fast
		}
		ran++
		name := fmt.Sprintf("#%d %+v", i, c)
		plain, err := Run(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c.Record = true
		r, err := Run(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Failures != plain.Failures || r.Useful != plain.Useful || r.LostWork != plain.LostWork ||
			r.CheckpointTime != plain.CheckpointTime || r.RestartTime != plain.RestartTime {
			t.Fatalf("%s: recording changed the run", name)
		}
		wall := c.Days * 86400
		for _, v := range []float64{r.Useful, r.LostWork, r.CheckpointTime, r.RestartTime} {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%s: a part of the wall time is %g (%+v)", name, v, r.Metrics())
			}
		}
		if sum := r.Useful + r.LostWork + r.CheckpointTime + r.RestartTime; math.Abs(sum-wall) > 1e-9*wall {
			t.Errorf("%s: useful %g + lost %g + checkpoints %g + restarts %g = %g s, wall time %g s",
				name, r.Useful, r.LostWork, r.CheckpointTime, r.RestartTime, sum, wall)
		}
		if r.Failures != len(r.FailureTimes) {
			t.Errorf("%s: %d failures, %d failure times", name, r.Failures, len(r.FailureTimes))
		}
		for j, ft := range r.FailureTimes {
			if ft < 0 || ft > wall || j > 0 && ft < r.FailureTimes[j-1] {
				t.Fatalf("%s: failure %d at %g s (run of %g s, previous at %v)", name, j, ft, wall, r.FailureTimes[max(0, j-1)])
			}
		}
		for j, ct := range r.CheckpointTimes {
			if ct <= 0 || ct > wall || j > 0 && ct <= r.CheckpointTimes[j-1] {
				t.Fatalf("%s: checkpoint %d at %g s", name, j, ct)
			}
		}
		tr := r.Trace
		if len(tr) == 0 || tr[0] != (TracePoint{}) {
			t.Fatalf("%s: the trace starts at %v", name, tr[:min(1, len(tr))])
		}
		for j, p := range tr {
			if j > 0 && p.Wall < tr[j-1].Wall {
				t.Fatalf("%s: trace point %d at %g s, after a point at %g s", name, j, p.Wall, tr[j-1].Wall)
			}
			if p.Progress < 0 || p.Progress > p.Wall*(1+1e-12)+1e-9 {
				t.Fatalf("%s: trace point %d: progress %g at wall %g", name, j, p.Progress, p.Wall)
			}
		}
		if last := tr[len(tr)-1]; math.Abs(last.Wall-wall) > 1e-9*wall || math.Abs(last.Progress-r.Useful) > 1e-9*wall {
			t.Errorf("%s: the trace ends at %+v; the run at %g s with %g s useful", name, last, wall, r.Useful)
		}
	}
	if ran < 100 {
		t.Errorf("only %d runs", ran)
	}
}

// Validate bounds a run's steps: configurations that ran for hours, or
// forever once a step fell below float64's resolution of the wall clock,
// are refused naming the field and the smallest value allowed.
func TestValidateBoundsTheRun(t *testing.T) {
	base := Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 1800, CheckpointCost: 60, RestartCost: 600, Days: 30, Seed: 1}
	for _, tt := range []struct {
		field string
		set   func(*Config)
	}{
		{"checkpoint-every-s", func(c *Config) { c.CheckpointEvery, c.CheckpointCost = 1e-300, 0 }},
		{"checkpoint-every-s", func(c *Config) { c.CheckpointEvery, c.CheckpointCost, c.Days = 0.1, 0, 3650 }},
		{"mtbf-gpu-hours", func(c *Config) { c.MTBFGPUHours, c.RestartCost = 1e-12, 0 }},
		{"mtbf-gpu-hours", func(c *Config) { c.MTBFGPUHours = 5e-324 }},
	} {
		c := base
		tt.set(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.field+":") || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("%+v: %v; want an error naming %s", c, err, tt.field)
		}
	}
	// The fault-tolerance lesson's extreme runs.
	c := Config{GPUs: 32768, MTBFGPUHours: 100, CheckpointEvery: 60, CheckpointCost: 10, RestartCost: 300, Days: 54, Seed: 1}
	if err := c.Validate(); err != nil {
		t.Errorf("the lesson's extreme: %v", err)
	}
}
