package scenarios

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
)

// The mixture-of-experts lesson has the zoom: while the step plays, a GPU
// is in the dispatch all-to-all; at the step's end (as reduced motion
// shows it) its experts compute — the gate-and-up products, the moment
// kept across a change of level; the fragment's gpu= is the model when a
// name, the zoom's GPU when a number.
func TestZoomMoEState(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=mixture-of-experts&zoom=gpu&gpu=3")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	sr := p.StepRun()
	run := sr.Run.(*RouteRun)
	p.SeekTime(sr.From + (sr.To-sr.From)/2)
	z := p.Report().Zoom
	if z.Kernel != parallel.KernelDispatch || z.GPU != 3 || z.Layer != -1 || z.TimeS != p.Report().TimeS {
		t.Errorf("mid dispatch: zoom %+v (playhead %g s)", z, p.Report().TimeS)
	}
	p.SeekTime(sr.To)
	z = p.Report().Zoom
	l := run.ZoomLayer()
	if s, _ := l.At(3, l.Still); z.Kernel != parallel.KernelExpertsUp || s.Name != z.Kernel || z.TimeS != l.Still || !(l.Still > run.Result.DispatchS) {
		t.Errorf("step's end: zoom %+v, the layer's still moment %g s (%s), dispatch %g s", z, l.Still, s.Name, run.Result.DispatchS)
	}
	if e := p.Command([]byte(`{"type":"zoom","level":"sm"}`)); e != nil {
		t.Fatal(e)
	}
	if z2 := p.Report().Zoom; z2.Level != ZoomSM || z2.TimeS != z.TimeS || z2.Kernel != z.Kernel {
		t.Errorf("zoomed into the SM: %+v, was %+v", z2, z)
	}
	if errs := p.ApplyFragment("gpu=8"); len(errs) != 1 || !strings.Contains(errs[0].Localize("en"), "allowed 0–7") {
		t.Errorf("gpu 8 of 8: %v", errs)
	}

	// The last step takes the knobs: an H800's, GPU 5 zoomed.
	q, errs, err := NewPlayerAt("scenario=mixture-of-experts&step=4&gpu=h800&zoom=gpu&gpu=5")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	st := q.State()
	if st.Config["gpu"] != "h800" || st.Zoom != (Zoom{Level: ZoomGPU, GPU: 5}) || q.StepRun().Run.(*RouteRun).ZoomLayer().GPU.ID != "h800" {
		t.Errorf("gpu h800, zoom gpu 5: got %q, %+v", st.Config["gpu"], st.Zoom)
	}
	if f := q.Fragment(); !strings.Contains(f, "gpu=h800") || !strings.Contains(f, "zoom=gpu&gpu=5") {
		t.Errorf("fragment %s", f)
	}
	if d := q.Description(); !strings.Contains(d, "Zoomed into GPU 5 at") || !strings.Contains(d, "EP dispatch") || strings.Contains(d, "stage") {
		t.Errorf("description %q", d)
	}

	// The placement step spreads DeepSeek-V3's experts over 64 GPUs: its
	// GPU 40 can be zoomed into; back on the first step's 8, the zoom
	// moves to its last.
	r, errs, err := NewPlayerAt("scenario=mixture-of-experts&step=2&zoom=node&gpu=40")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if z := r.Report().Zoom; z.GPU != 40 || z.Kernel != parallel.KernelDispatch {
		t.Errorf("step 2, GPU 40: %+v", z)
	}
	if e := r.Goto(1); e != nil {
		t.Fatal(e)
	}
	if z := r.State().Zoom; z.GPU != 7 {
		t.Errorf("back on step 1 (8 GPUs): zoom %+v, want GPU 7", z)
	}
}
