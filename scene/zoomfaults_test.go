package scene

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

func faultLesson(t testing.TB, frag string) *scenarios.Lesson {
	t.Helper()
	p, errs, err := scenarios.NewPlayerAt(frag)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	return p.Lesson()
}

// The fault-tolerance zoom says the engine's numbers. The finished step
// shows the restart after the first failure past the first hour: the GPU
// the engine drew for it is struck in its node, its GPU says it failed
// and restarts (the restart's time, the work lost — the trace's drop),
// the strip lights the restart after the lost work; another node names
// the failed GPU on a line whose click zooms in on it. While training,
// the GPU names the kernel Meta's plan runs at the job's progress modulo
// its step, and the job's step; while writing a checkpoint, the write's
// time. On 10,000 GPUs (no plan) the picture says why no kernel is
// drawn, and a zoom GPU beyond the step's cluster is kept inside it.
func TestFaultZoomSaysTheEngine(t *testing.T) {
	les := faultLesson(t, "scenario=fault-tolerance")
	run := les.Steps[0].Run.(*scenarios.FaultRun)
	sr := &les.Steps[0]
	c := run.Result.Config
	f := ruleFrames[0].frame
	f.Lang = "en"
	w := f.words()
	at := run.ZoomTime(sr, sr.To)
	m := run.MomentAt(at)
	if m.Phase.Kind != scenarios.FaultRestart || m.FailGPU < 0 {
		t.Fatalf("finished step's moment %+v", m)
	}
	fg := m.FailGPU
	moment := func(g int, t sim.Time) Moment {
		return Moment{Lesson: les, Step: 1, Time: t, Zoom: scenarios.Zoom{Level: scenarios.ZoomNode, GPU: g}}
	}
	z := newFZ(run, moment(fg, sr.To), f)
	nv := z.node(f)
	if got := nv.GPUs[nv.Focus]; got.GPU != fg || got.Activity != render.ZoomFailed || !strings.Contains(got.Doing, day(m.FailAt)) {
		t.Errorf("the failed GPU %d in its node: %+v", fg, got)
	}
	for i, g := range nv.GPUs {
		if i != nv.Focus && g.Activity != render.ZoomRestart {
			t.Errorf("GPU %d in a restart: %+v", g.GPU, g)
		}
	}
	if nv.Alert != "" {
		t.Errorf("the failed GPU's own node alerts %q", nv.Alert)
	}
	gv := z.gpu(f)
	done := units.LocalDuration("en", at-m.FailAt)
	if want := w.Say("canvas.zoom.f.big_restart_self", "done", done, "restart", units.LocalDuration("en", c.RestartCost)); gv.Kernel != want {
		t.Errorf("failed GPU says %q, want %q", gv.Kernel, want)
	}
	if lost := units.LocalDuration("en", m.FailLost); !(m.FailLost > 0) || !strings.Contains(gv.Note, lost) {
		t.Errorf("note %q, lost %s", gv.Note, lost)
	}
	n := len(gv.Strip)
	if gv.Current != n-1 || gv.Strip[n-1].Activity != render.ZoomRestart || gv.Strip[n-2].Activity != render.ZoomLost ||
		gv.Strip[n-1].End != m.FailAt+c.RestartCost || gv.Time != at {
		t.Errorf("strip %+v, current %d at %g s", gv.Strip, gv.Current, gv.Time)
	}
	if sv := z.sm(f); !strings.Contains(sv.Note, done) || sv.TilesM != 0 {
		t.Errorf("SMs in a restart: %q", sv.Note)
	}

	// Another node: the line to the failed GPU, a click on it goes there.
	other := (fg/8 + 1) % (c.GPUs / 8) * 8
	var p Picture
	l := p.Build(render.List{}, moment(other, sr.To), f)
	found := false
	for _, h := range l.Hits {
		if h.GPU == fg {
			g, ok := l.HitAt(h.X+h.W/2, h.Y+h.H/2)
			found = ok && g == fg
		}
	}
	if !found {
		t.Errorf("node %d: no click to the failed GPU %d (hits %+v)", other/8, fg, l.Hits)
	}
	zo := newFZ(run, moment(other, sr.To), f)
	if nv := zo.node(f); nv.AlertGPU != fg || !strings.Contains(nv.Alert, "GPU "+strconv.Itoa(fg)) {
		t.Errorf("node %d: alert %q → %d", other/8, nv.Alert, nv.AlertGPU)
	}

	// Training and checkpoints over the job.
	_, a, ok := run.Plan()
	if !ok {
		t.Fatal("no plan at 16,384 GPUs")
	}
	kernels, ckpts := 0, 0
	for i := 1; i < 400; i++ {
		tt := sr.From + sim.Time(float64(sr.To-sr.From)*float64(i)/400)
		z := newFZ(run, moment(27, tt), f)
		switch z.m.Phase.Kind {
		case scenarios.FaultCheckpoint:
			ckpts++
			gv := z.gpu(f)
			want := w.Say("canvas.zoom.f.big_checkpoint", "done", units.LocalDuration("en", tt.Seconds()-z.m.Phase.Start), "cost", units.LocalDuration("en", c.CheckpointCost))
			if gv.Kernel != want || gv.Strip[gv.Current].Activity != render.ZoomCheckpoint {
				t.Errorf("%g s: checkpoint says %q, want %q", tt.Seconds(), gv.Kernel, want)
			}
		case scenarios.FaultTrain:
			st, step, _ := run.StepAt(z.m.Progress)
			act, _ := a.At(27, st)
			gv := z.gpu(f)
			if !strings.Contains(gv.Title, units.Count(step)) {
				t.Errorf("%g s: title %q, step %d", tt.Seconds(), gv.Title, step)
			}
			if act.Kernel.Name != "" {
				kernels++
				if name := kernelName(w, act.Kernel.Name); !strings.Contains(gv.Kernel, name) || gv.Strip[gv.Current].Label != name {
					t.Errorf("%g s: GPU says %q, the plan runs %s", tt.Seconds(), gv.Kernel, act.Kernel.Name)
				}
			}
		}
	}
	if kernels == 0 || ckpts == 0 {
		t.Errorf("kernels named %d times, checkpoints %d", kernels, ckpts)
	}

	// 10,000 GPUs: no plan; the zoom's GPU kept in the step's cluster.
	sr2 := &les.Steps[1]
	run2 := sr2.Run.(*scenarios.FaultRun)
	m2 := Moment{Lesson: les, Step: 2, Time: sr2.From + 1, Zoom: scenarios.Zoom{Level: scenarios.ZoomGPU, GPU: 16000}}
	z2 := newFZ(run2, m2, f)
	if gv := z2.gpu(f); z2.g != 9999 || !strings.Contains(gv.Note, w.Say("canvas.zoom.f.no_plan")) || !strings.Contains(gv.Crumbs, "GPU 9999") {
		t.Errorf("10,000 GPUs, zoom GPU 16000: GPU %d, note %q, crumbs %q", z2.g, gv.Note, gv.Crumbs)
	}
}

// A frame of the zoom stays within its budget (≤ 4 ms of Go): run with
// go test -bench FaultZoom ./scene.
func BenchmarkFaultZoom(b *testing.B) {
	les := faultLesson(b, "scenario=fault-tolerance")
	sr := les.Steps[0]
	f := ruleFrames[0].frame
	f.Lang = "en"
	var p Picture
	var l render.List
	for _, level := range scenarios.ZoomLevels[1:] {
		b.Run(level, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tt := sr.From + sim.Time(float64(sr.To-sr.From)*float64(i%997)/997)
				l = p.Build(l, Moment{Lesson: les, Step: 1, Time: tt, Zoom: scenarios.Zoom{Level: level, GPU: 27}}, f)
			}
		})
	}
}
