package browsertest

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scene"
)

// The fault-tolerance lesson's zoom: at the finished step the job
// restarts after a failure, and a click on the line naming the failed
// GPU zooms in on it; while the job trains, the zoom's GPU runs the
// kernel the native engine names for the same moment; each level draws,
// in both languages.
func TestZoomFaults(t *testing.T) {
	link := "scenario=fault-tolerance&step=1&zoom=node&gpu=0"
	p, errs, err := scenarios.NewPlayerAt(link)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	sr := p.StepRun()
	run := sr.Run.(*scenarios.FaultRun)
	end := sr.To
	fm := run.MomentAt(run.ZoomTime(sr, end))
	// A moment of training at which GPU 0 runs a kernel of the plan.
	var train sim.Time
	_, a, _ := run.Plan()
	for i := 1; i < 400 && train == 0; i++ {
		at := sr.From + sim.Time(float64(sr.To-sr.From)*float64(i)/400)
		if m := run.MomentAt(at.Seconds()); m.Phase.Kind == scenarios.FaultTrain {
			st, _, _ := run.StepAt(m.Progress)
			if act, _ := a.At(0, st); act.Kernel.Name != "" {
				train = at
			}
		}
	}
	if fm.Phase.Kind != scenarios.FaultRestart || fm.FailGPU/8 == 0 || train == 0 {
		t.Fatalf("the finished step's moment %+v; a kernel at %v", fm, train)
	}

	ctx := open(t, "index.html#"+link)
	waitReady(ctx)
	goTo := func(at sim.Time) zoomState {
		t.Helper()
		command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, at.Seconds()))
		settle(ctx)
		var st zoomState
		evalJSON(ctx, "window.gpuscope.state()", &st)
		p.Command([]byte(fmt.Sprintf(`{"type":"goto","time_s":%g}`, at.Seconds())))
		z := p.Report().Zoom
		if st.Zoom == nil || st.Zoom.Block != z.Block || st.Zoom.Kernel != z.Kernel || st.Zoom.Stage != z.Stage || st.Zoom.TimeS != z.TimeS {
			t.Errorf("at %g s: page %+v, native %+v", at.Seconds(), st.Zoom, z)
		}
		return st
	}
	if st := goTo(end); st.Zoom.Block != scenarios.FaultRestart {
		t.Errorf("the finished step: zoom %+v, want a restart", st.Zoom)
	}
	// The node of GPU 0 names the failed GPU; a click there zooms in on it.
	var vw, vh float64
	evalJSON(ctx, "window.innerWidth", &vw)
	evalJSON(ctx, "window.innerHeight", &vh)
	r := elementRect(ctx, "#stage")
	frame := scene.Frame{Width: float32(vw), Height: float32(vh), Stage: render.Rect{X: float32(r.X), Y: float32(r.Y), W: float32(r.Width), H: float32(r.Height)},
		Scale: 1, Theme: render.Light, Lang: "en"}
	var pic scene.Picture
	l := pic.Build(render.List{}, scene.Moment{Lesson: p.Lesson(), Step: 1, Time: p.Time(), Zoom: scenarios.Zoom{Level: "node"}}, frame)
	var target *render.Hit
	for i := range l.Hits {
		if l.Hits[i].GPU == fm.FailGPU {
			target = &l.Hits[i]
		}
	}
	if target == nil {
		t.Fatalf("node 0 has no line to the failed GPU %d", fm.FailGPU)
	}
	screenshot(ctx, "zoom-faults-node-alert")
	chromedpRun(t, ctx, chromedp.MouseClickXY(float64(target.X+target.W/2), float64(target.Y+target.H/2)))
	settle(ctx)
	var clicked zoomState
	evalJSON(ctx, "window.gpuscope.state()", &clicked)
	if clicked.Zoom == nil || clicked.Zoom.Level != "gpu" || clicked.Zoom.GPU != fm.FailGPU {
		t.Errorf("a click on the failed GPU's line: zoom %+v, want GPU %d", clicked.Zoom, fm.FailGPU)
	}
	screenshot(ctx, "zoom-faults-failed-gpu")
	command(ctx, `{type: "zoom", level: "node", gpu: 0}`)
	// Training: the plan's kernel, at every level.
	if st := goTo(train); st.Zoom.Kernel == "" {
		t.Errorf("training at %g s: zoom %+v", train.Seconds(), st.Zoom)
	}
	zoomLevelsDraw(t, ctx, "faults")
	zh := open(t, "index.html#"+link+"&lang=zh")
	waitReady(zh)
	command(zh, fmt.Sprintf(`{type: "goto", time_s: %g}`, end.Seconds()))
	settle(zh)
	screenshot(zh, "zoom-faults-node-zh")
}
