package scenarios

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/validate"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The job's moments read the engine's trace: a phase's kind is the total
// that grows over it (checkpoint writes, restarts, else training); the
// progress lies between its ends; a restart restarts from the last
// failure, names the GPU the engine drew for it, and ends a restart's
// length after it; the strip's phases end with the moment's, and a
// phase is lost only when a failure struck before a checkpoint kept it.
func TestFaultMoments(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=fault-tolerance")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	run := p.Lesson().Steps[0].Run.(*FaultRun)
	res := run.Result
	c := res.Config
	kinds := map[string]int{}
	for i := 0; i <= 4000; i++ {
		at := c.Days * 86400 * float64(i) / 4000
		m := run.MomentAt(at)
		kinds[m.Phase.Kind]++
		if m.Phase.Start > at || m.Phase.End < at {
			t.Fatalf("%g s: phase %+v does not hold the moment", at, m.Phase)
		}
		if m.Progress < m.Saved-1e-9 || m.Progress > at+1e-6 {
			t.Fatalf("%g s: progress %g, saved %g", at, m.Progress, m.Saved)
		}
		if m.Phase.Kind == FaultRestart {
			if m.FailAt > at || at > m.FailAt+c.RestartCost+1e-6 || m.FailGPU != res.FailedGPUs[m.Failures-1] || m.FailGPU < 0 || m.FailGPU >= c.GPUs {
				t.Fatalf("%g s: restart %+v", at, m)
			}
			if math.Abs(m.Due-math.Min(m.FailAt+c.RestartCost, c.Days*86400)) > 1e-6 {
				t.Fatalf("%g s: restart due at %g, the failure at %g + %g", at, m.Due, m.FailAt, c.RestartCost)
			}
			// The phase ends a restart after its last failure.
			last := 0.0
			for _, f := range res.FailureTimes {
				if f < m.Phase.End {
					last = f
				}
			}
			if math.Abs(m.Phase.End-math.Min(last+c.RestartCost, c.Days*86400)) > 1e-6 {
				t.Fatalf("%g s: restart ends at %g, its last failure at %g + %g", at, m.Phase.End, last, c.RestartCost)
			}
		}
		if m.Due < at || m.Phase.Kind != FaultRestart && m.Due < m.Phase.End-1e-6 {
			t.Fatalf("%g s: %s due at %g, ends at %g", at, m.Phase.Kind, m.Due, m.Phase.End)
		}
		phs := run.PhasesTo(at, 6)
		if len(phs) == 0 || phs[len(phs)-1] != (FaultPhase{Kind: m.Phase.Kind, Start: m.Phase.Start, End: m.Phase.End}) {
			t.Fatalf("%g s: phases %+v end with %+v", at, phs, m.Phase)
		}
		for _, ph := range phs {
			if ph.Lost && (ph.Kind == FaultRestart || ph.End > at) {
				t.Fatalf("%g s: lost phase %+v", at, ph)
			}
		}
	}
	if kinds[FaultTrain] == 0 || kinds[FaultCheckpoint] == 0 || kinds[FaultRestart] == 0 {
		t.Errorf("moments seen: %v", kinds)
	}
	// Right after the first failure past the first hour the work since
	// the checkpoint shows lost, and how much is the trace's drop.
	var f float64
	for _, x := range res.FailureTimes {
		if x >= 3600 {
			f = x
			break
		}
	}
	m := run.MomentAt(f + 1)
	phs := run.PhasesTo(f+1, 6)
	if m.Phase.Kind != FaultRestart || m.FailAt != f || !(m.FailLost > 0) || !phs[len(phs)-2].Lost {
		t.Errorf("after the failure at %g s: %+v, phases %+v", f, m, phs)
	}
	if before := run.PhasesTo(f-1, 6); before[len(before)-1].Lost {
		t.Errorf("before the failure at %g s its work shows lost already: %+v", f, before)
	}
}

// The zoom's plan is Meta's (validate.Llama3): at the lesson's 16,384
// GPUs it is drawn, at its other counts not (the plan does not divide
// them, or more blocks than MaxDrawnBlocks).
func TestFaultPlan(t *testing.T) {
	for _, c := range []struct {
		gpus string
		ok   bool
	}{{"16384", true}, {"1024", false}, {"4096", false}, {"10000", false}, {"32768", false}} {
		p, errs, err := NewPlayerAt("scenario=fault-tolerance&step=4&gpus=" + c.gpus)
		if err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		run := p.StepRun().Run.(*FaultRun)
		plan, a, ok := run.Plan()
		if ok != c.ok {
			t.Errorf("%s GPUs: plan %v, want %v", c.gpus, ok, c.ok)
		}
		if !ok {
			continue
		}
		want := validate.Llama3(run.Result.Config.GPUs)
		if plan.Config.Plan != want.Plan || plan.Config.Model.ID != want.Model.ID || a.GPUs() != run.Result.Config.GPUs {
			t.Errorf("%s GPUs: plan %+v on %d GPUs, want %+v", c.gpus, plan.Config.Plan, a.GPUs(), want.Plan)
		}
		st, n, _ := run.StepAt(2.5*plan.actTL.Length + 0.25)
		if math.Abs(st-(0.5*plan.actTL.Length+0.25)) > 1e-9 || n != 3 {
			t.Errorf("step at 2.5 steps + 0.25 s: %g s into step %d", st, n)
		}
	}
}

// state().zoom says what the zoom's GPU does at the moment: while the
// job trains, the plan's kernel at the job's progress modulo the step;
// writing a checkpoint; restarting (the finished step's moment, after
// the first failure past the first hour). The moment is kept when the
// zoom changes level, and a screen reader hears it.
func TestZoomFaultState(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=fault-tolerance&zoom=gpu&gpu=27")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	p.Answer(0) // the step's question: its description then says the zoom
	run := p.StepRun().Run.(*FaultRun)
	_, a, ok := run.Plan()
	if !ok {
		t.Fatal("no plan at 16,384 GPUs")
	}
	seen := map[string]bool{}
	sr := p.StepRun()
	for i := 1; i < 200; i++ {
		p.SeekTime(sr.From + sim.Time(float64(sr.To-sr.From)*float64(i)/200))
		z := p.Report().Zoom
		m := run.MomentAt(p.Time().Seconds())
		if z.TimeS != p.Time().Seconds() || z.GPU != 27 || z.Level != ZoomGPU {
			t.Fatalf("zoom %+v at %g s", z, p.Time().Seconds())
		}
		seen[m.Phase.Kind] = true
		if m.Phase.Kind != FaultTrain {
			if z.Block != m.Phase.Kind || z.Kernel != "" {
				t.Errorf("%g s: %s, zoom %+v", z.TimeS, m.Phase.Kind, z)
			}
			continue
		}
		st, _, _ := run.StepAt(m.Progress)
		act, _ := a.At(27, st)
		want := string(act.Kind)
		if want == "" {
			want = FaultTrain
		}
		if z.Block != want || z.Kernel != act.Kernel.Name || z.Stage != act.Stage || z.Layer != act.Layer {
			t.Errorf("%g s: zoom %+v; the plan at %g s into its step: %s %s stage %d layer %d", z.TimeS, z, st, act.Kind, act.Kernel.Name, act.Stage, act.Layer)
		}
		if act.Kernel.Name != "" && !seen["kernel"] {
			seen["kernel"] = true
			t0 := z.TimeS
			if e := p.Command([]byte(`{"type":"zoom","level":"sm"}`)); e != nil {
				t.Fatal(e)
			}
			if s := p.Report().Zoom; s.TimeS != t0 || s.Kernel != z.Kernel || s.Level != ZoomSM {
				t.Errorf("zoomed to the SM: %+v, was %+v", s, z)
			}
			if d := p.Description(); !strings.Contains(d, "Zoomed into the SMs of GPU 27") || !strings.Contains(d, i18n.T("en", "canvas.zoom.k."+z.Kernel)) {
				t.Errorf("description %q", d)
			}
			p.Command([]byte(`{"type":"zoom","level":"gpu"}`))
		}
		if act.Kind == parallel.Backward {
			seen["backward"] = true
		}
	}
	for _, k := range []string{FaultTrain, FaultCheckpoint, "kernel", "backward"} {
		if !seen[k] {
			t.Errorf("never seen %s: %v", k, seen)
		}
	}
	// The finished step: a restart.
	p.SeekTime(sr.To)
	z := p.Report().Zoom
	if z.Block != FaultRestart || z.TimeS != run.ZoomTime(sr, sr.To) || z.Kernel != "" {
		t.Errorf("finished step: zoom %+v", z)
	}
	if d := p.Description(); !strings.Contains(d, "Zoomed into GPU 27") || !strings.Contains(d, i18n.T("en", "canvas.zoom.s.doing_restart")) {
		t.Errorf("description %q", d)
	}
	// 10,000 GPUs (the second step): no plan, the job's phases alone.
	if e := p.Goto(2); e != nil {
		t.Fatal(e)
	}
	p.SeekTime(p.StepRun().From + 1)
	if z := p.Report().Zoom; z.Block != FaultTrain || z.Kernel != "" || z.Layer != -1 {
		t.Errorf("10,000 GPUs: zoom %+v", z)
	}
	// The step's own 10,000 GPUs bound the zoom's GPU (the reader's gpus
	// knob is the default 16,384 there).
	if errs := p.ApplyFragment("gpu=10000"); len(errs) != 1 || !strings.Contains(errs[0].Localize("en"), "0–9999") {
		t.Errorf("gpu 10000 of 10,000: %v", errs)
	}
}
