package scenarios

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The zoom's fragment keys: zoom=cluster|node|gpu|sm and gpu=N, a number
// beside the sandbox's gpu knob (a model name) in one fragment; written
// back only when zoomed; refused, named, with the last good state kept.
func TestZoomFragment(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=sandbox&gpu=h200&zoom=gpu&gpu=27")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	st := p.State()
	if st.Config["gpu"] != "h200" || st.Zoom != (Zoom{Level: ZoomGPU, GPU: 27}) {
		t.Fatalf("gpu h200, zoom gpu 27: got %q, %+v", st.Config["gpu"], st.Zoom)
	}
	frag := p.Fragment()
	if !strings.Contains(frag, "&gpu=h200&") || !strings.Contains(frag, "&zoom=gpu&gpu=27") {
		t.Errorf("fragment %s", frag)
	}
	again, errs, err := NewPlayerAt(frag)
	if err != nil || len(errs) > 0 || again.State().Zoom != st.Zoom || again.State().Config["gpu"] != "h200" {
		t.Errorf("reopened %s: %+v %v %v", frag, again.State().Zoom, errs, err)
	}
	if r := p.Report(); r.Zoom == nil || r.Zoom.Level != "gpu" || r.Zoom.GPU != 27 {
		t.Errorf("state().zoom %+v", r.Zoom)
	}
	// Unzoomed, the fragment is as it was before the zoom existed.
	plain, _, _ := NewPlayerAt("scenario=sandbox")
	if f := plain.Fragment(); strings.Contains(f, "zoom") {
		t.Errorf("unzoomed fragment %s", f)
	}
	if r := plain.Report(); r.Zoom == nil || r.Zoom.Level != "cluster" || r.Zoom.GPU != 0 {
		t.Errorf("unzoomed state().zoom %+v", r.Zoom)
	}

	for _, c := range []struct{ frag, field, says string }{
		{"zoom=rack", "zoom", "cluster, node, gpu, sm"},
		{"gpu=512", "gpu", "0–511"},
		{"gpu=-1", "gpu", "-1"}, // not a number: the gpu knob names its models
	} {
		errs := p.ApplyFragment(c.frag)
		if len(errs) != 1 || errs[0].Field != c.field || !strings.Contains(errs[0].Localize("en"), c.says) {
			t.Errorf("%s: %v", c.frag, errs)
			continue
		}
		if got := p.State(); got.Zoom != st.Zoom || got.Config["gpu"] != "h200" {
			t.Errorf("%s: kept %+v %s", c.frag, got.Zoom, got.Config["gpu"])
		}
	}
	// A knob that shrinks the cluster keeps the zoom's GPU inside it.
	if errs := p.ApplyFragment("gpus=16&tp=8&pp=1"); len(errs) > 0 {
		t.Fatal(errs)
	}
	if z := p.State().Zoom; z.GPU != 15 {
		t.Errorf("16 GPUs: zoom's GPU %d", z.GPU)
	}
	// A lesson without the zoom refuses it, naming the field.
	q, _, _ := NewPlayerAt("scenario=roofline")
	if errs := q.ApplyFragment("zoom=gpu"); len(errs) != 1 || errs[0].Field != "zoom" || !strings.Contains(errs[0].Localize("zh"), "缩放") {
		t.Errorf("roofline zoom: %v", errs)
	}
	if q.Report().Zoom != nil {
		t.Errorf("roofline reports a zoom")
	}
}

// command({type: "zoom"}): a level, a GPU, or a step in or out; the
// playhead stays where it was; bad fields are named.
func TestZoomCommand(t *testing.T) {
	p, _, err := NewPlayerAt("scenario=sandbox")
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Command([]byte(`{"type":"goto","time_s":1.5}`)); e != nil {
		t.Fatal(e)
	}
	t0 := p.Report().TimeS
	for _, c := range []struct {
		cmd   string
		level string
		gpu   int
	}{
		{`{"type":"zoom","level":"sm"}`, "sm", 0},
		{`{"type":"zoom","delta":-1,"gpu":300}`, "gpu", 300},
		{`{"type":"zoom","delta":-1}`, "node", 300},
		{`{"type":"zoom","level":"cluster"}`, "cluster", 300},
		{`{"type":"zoom","delta":-1}`, "cluster", 300},
		{`{"type":"zoom","delta":1,"gpu":"7"}`, "node", 7},
	} {
		if e := p.Command([]byte(c.cmd)); e != nil {
			t.Fatalf("%s: %v", c.cmd, e)
		}
		r := p.Report()
		if r.Zoom.Level != c.level || r.Zoom.GPU != c.gpu || r.TimeS != t0 {
			t.Errorf("%s: zoom %+v at %g s, want %s %d at %g", c.cmd, r.Zoom, r.TimeS, c.level, c.gpu, t0)
		}
		// Zoomed in on the time line's step: the moment is the playhead,
		// and the GPU's kernel is the engine's at that moment.
		if c.level != "cluster" {
			a, _, ok := p.Run().(*PlanRun).Activity()
			if !ok {
				t.Fatal("no activity")
			}
			act, _ := a.At(c.gpu, t0)
			if r.Zoom.TimeS != t0 || r.Zoom.Kernel != act.Kernel.Name || r.Zoom.Kernel == "" || r.Zoom.Stage != act.Stage || r.Zoom.Layer != act.Layer {
				t.Errorf("%s: zoom reports %+v; the engine at %g s: stage %d layer %d %s", c.cmd, r.Zoom, t0, act.Stage, act.Layer, act.Kernel.Name)
			}
		}
	}
	for _, c := range []struct{ cmd, field string }{
		{`{"type":"zoom","level":"rack"}`, "zoom"},
		{`{"type":"zoom","level":3}`, "level"},
		{`{"type":"zoom","delta":2}`, "delta"},
		{`{"type":"zoom","gpu":1e9}`, "gpu"},
		{`{"type":"zoom","gpu":512}`, "gpu"},
		{`{"type":"zoom"}`, "zoom"},
	} {
		e := p.Command([]byte(c.cmd))
		if e == nil || e.Field != c.field {
			t.Errorf("%s: %v, want an error naming %s", c.cmd, e, c.field)
		}
		if r := p.Report(); r.Zoom.Level != "node" || r.Zoom.GPU != 7 {
			t.Errorf("%s changed the zoom: %+v", c.cmd, r.Zoom)
		}
	}
	// A screen reader hears the level and what the GPU runs.
	if d := p.Description(); !strings.Contains(d, "Zoomed into the node of GPU 7") {
		t.Errorf("description %q", d)
	}
	if e := p.Command([]byte(`{"type":"zoom","level":"gpu"}`)); e != nil {
		t.Fatal(e)
	}
	z := p.Report().Zoom
	if d := p.Description(); z.Kernel == "" || !strings.Contains(d, "Zoomed into GPU 7") || !strings.Contains(d, i18n.T("en", "canvas.zoom.k."+z.Kernel)) {
		t.Errorf("description %q (kernel %s)", d, z.Kernel)
	}
}

// The ring lesson has the zoom: in a reduce-scatter round a GPU runs a
// reduction (the chunk that arrived added into its own), in an
// all-gather round a copy; a screen reader hears it without a stage.
func TestZoomRingState(t *testing.T) {
	p, errs, err := NewPlayerAt("scenario=ring-allreduce&zoom=gpu&gpu=3")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	for i, want := range map[string]string{"reduce-scatter": KernelReduce, "all-gather": KernelCopy} {
		n := 0
		for j, st := range p.Lesson().Steps {
			if st.Step.ID == i {
				n = j + 1
			}
		}
		if n == 0 {
			t.Fatalf("no step %s", i)
		}
		if e := p.Goto(n); e != nil {
			t.Fatal(e)
		}
		sr := p.StepRun()
		p.SeekTime(sr.From + (sr.To-sr.From)/2)
		z := p.Report().Zoom
		if z.Kernel != want || z.Block != i || z.GPU != 3 {
			t.Errorf("%s: zoom %+v, want %s", i, z, want)
		}
		if d := p.Description(); !strings.Contains(d, "Zoomed into GPU 3 at") || strings.Contains(d, "stage") {
			t.Errorf("%s: description %q", i, d)
		}
	}
	if errs := p.ApplyFragment("gpu=8"); len(errs) != 1 || !strings.Contains(errs[0].Localize("en"), "allowed 0–7") {
		t.Errorf("gpu 8 of 8: %v", errs)
	}
}
