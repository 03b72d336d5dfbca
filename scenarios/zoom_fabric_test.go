package scenarios

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// The fabric lessons zoom: the race's GPU 0 sends on both links while the
// playhead runs (a copy engine's, the SMs free), GPU 1 receives until
// NVLink is done; the moment is kept across a change of level; the
// range is each lesson's: two nodes of 8, collectives-at-scale's ranks
// (its hierarchical step's 16,384), the rack's 72.
func TestZoomFabricState(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=nvlink-vs-ib&zoom=gpu&gpu=0")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	r := p.StepRun().Run.(*FabricRun)
	p.SeekTime(p.StepRun().From + (p.StepRun().To-p.StepRun().From)/2)
	z := p.Report().Zoom
	if z.Kernel != KernelSend || z.Block != "send" || z.GPU != 0 || z.TimeS != p.Time().Seconds() || z.TimeS <= r.IntraS {
		t.Errorf("GPU 0 mid race: %+v", z)
	}
	if e := p.Command([]byte(`{"type":"zoom","level":"sm"}`)); e != nil {
		t.Fatal(e)
	}
	if z2 := p.Report().Zoom; z2.Level != ZoomSM || z2.TimeS != z.TimeS || z2.Kernel != KernelSend {
		t.Errorf("zoomed to the SM: %+v, was %+v", z2, z)
	}
	q, _, _ := NewPlayerAt("scenario=nvlink-vs-ib&step=2&zoom=sm&gpu=0") // no question pending
	if d := q.Description(); !strings.Contains(d, "Zoomed into the SMs of GPU 0") || !strings.Contains(d, "send") {
		t.Errorf("description %q", d)
	}
	if errs := p.ApplyFragment("gpu=1"); len(errs) > 0 {
		t.Fatal(errs)
	}
	if z := p.Report().Zoom; z.Block != "" || z.Kernel != "" { // NVLink's bytes are in
		t.Errorf("GPU 1 mid race: %+v", z)
	}
	p.SeekTime(p.StepRun().From + sim.FromSeconds(r.IntraS/2))
	if z := p.Report().Zoom; z.Block != "receive" {
		t.Errorf("GPU 1 early: %+v", z)
	}
	if errs := p.ApplyFragment("gpu=16"); len(errs) != 1 || !strings.Contains(errs[0].Localize("en"), "allowed 0–15") {
		t.Errorf("gpu 16 of 16: %v", errs)
	}
	for _, c := range []struct {
		frag string
		max  string
	}{{"scenario=collectives-at-scale&gpu=99999", "0–1023"}, {"scenario=rack-scale-nvlink&gpu=72", "0–71"}} {
		_, errs, _ := NewPlayerAt(c.frag + "&zoom=node")
		if len(errs) != 1 || !strings.Contains(errs[0].Localize("en"), c.max) {
			t.Errorf("%s: %v", c.frag, errs)
		}
	}
}

// collectives-at-scale's still step shows the fastest all-reduce a
// quarter of the way in, in its own seconds: the tree's at 64 KB, GPU 5
// adding as the first chunk climbs a level a round;
// in the contention step a GPU past the 128 is the last.
func TestZoomFabricSizesState(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=collectives-at-scale&zoom=gpu&gpu=5")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	r := p.StepRun().Run.(*FabricRun)
	z := p.Report().Zoom
	if f := r.Forms[collective.Tree]; r.Fastest() != collective.Tree || z.TimeS != f.Seconds/4 || z.Kernel != KernelReduce || z.Block != string(collective.LegTreeUp) {
		t.Errorf("64 KB: zoom %+v; tree %g s", z, f.Seconds)
	}
	if errs := p.ApplyFragment("gpu=1000"); len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, st := range p.Lesson().Steps {
		if st.Step.ID == "contention" {
			p.Goto(i + 1)
		}
	}
	if z := p.Report().Zoom; z.GPU != ContentionGPUs-1 || z.Kernel != KernelSend || z.Block != "all-to-all" {
		t.Errorf("contention, GPU 1000: %+v", z)
	}
}
