package scene

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom's pictures pass the canvas rules of every other picture (no
// label over another or off the stage, text large enough, every colour
// keyed, no English in a Chinese picture) at each level, in every
// strategy lesson's first step and the sandbox's every step, at the
// step's start, middle and end, in both languages and the four frames.
func TestZoomPictureRules(t *testing.T) {
	got := ruleFailures{}
	var p Picture
	var l render.List
	for _, s := range scenarios.All() {
		if !s.Zooms() {
			continue
		}
		les := prepare(t, s)
		steps := []int{1}
		if s.ID == "sandbox" || s.ID == "ring-allreduce" || s.ID == "nvlink-vs-ib" || s.ID == "collectives-at-scale" || s.ID == "rack-scale-nvlink" || s.ID == "mixture-of-experts" || s.ID == "fault-tolerance" {
			steps = steps[:0]
			for i := range les.Steps {
				steps = append(steps, i+1)
			}
		}
		for _, step := range steps {
			sr := les.Steps[step-1]
			for _, level := range scenarios.ZoomLevels[1:] {
				for _, lang := range []string{"en", "zh"} {
					for _, rf := range ruleFrames {
						f := rf.frame
						f.Lang = lang
						for _, at := range []sim.Time{sr.From, middle(les, step), sr.To} {
							m := Moment{Lesson: les, Step: step, Time: at, Zoom: scenarios.Zoom{Level: level, GPU: 1}}
							l = p.Build(l, m, f)
							checkList(got, s.ID, level+" step "+sr.Step.ID+" "+rf.name+" "+lang, l, f, rf.minText, lang)
						}
					}
				}
			}
		}
	}
	for id, rules := range got {
		for r, ex := range rules {
			t.Errorf("%s zoomed breaks %s: %s", id, r, ex)
		}
	}
}

// At the GPU level the picture names the kernel the engine says the GPU
// runs at the moment, and its strip's lit kernel spans the moment; at the
// node level the zoom's GPU is among the node's; the zoom's levels draw
// different pictures from the step's own.
func TestZoomNamesTheKernel(t *testing.T) {
	s, _ := scenarios.Get("sandbox")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	run := les.Steps[0].Run.(*scenarios.PlanRun)
	a, _, ok := run.Activity()
	if !ok {
		t.Fatal("no activity")
	}
	f := ruleFrames[0].frame
	f.Lang = "en"
	sr := &les.Steps[0]
	seen := map[string]bool{}
	for i := 1; i < 40; i++ {
		at := sr.From + sim.Time(float64(sr.To-sr.From)*float64(i)/40)
		tt := run.ZoomTime(sr, at)
		if tt != at.Seconds() {
			t.Fatalf("the time line's step: zoom at %g s, the playhead at %g", tt, at.Seconds())
		}
		for _, g := range []int{0, 100, 511} {
			act, _ := a.At(g, tt)
			v := zoomGPUView(a, run, g, tt, f)
			if act.Kernel.Name == "" {
				if v.Note == "" {
					t.Errorf("GPU %d at %g s runs no kernel, and the picture says nothing", g, tt)
				}
				continue
			}
			name := f.words().Say("canvas.zoom.k." + act.Kernel.Name)
			if !strings.Contains(v.Kernel, name) {
				t.Errorf("GPU %d at %g s: the picture says %q, the engine %s", g, tt, v.Kernel, act.Kernel.Name)
			}
			if v.Current < 0 || v.Strip[v.Current].Start > tt || v.Strip[v.Current].End < tt || v.Strip[v.Current].Label != name {
				t.Errorf("GPU %d at %g s: strip's lit kernel %d of %+v", g, tt, v.Current, v.Strip)
			}
			seen[act.Kernel.Name] = true
			nv := zoomNodeView(a, run, g, tt, f)
			if nv.Focus < 0 || nv.Focus >= len(nv.GPUs) || nv.GPUs[nv.Focus].Label != f.words().Say("canvas.zoom.s.gpu", "gpu", strconv.Itoa(g)) {
				t.Errorf("node of GPU %d: focus %d of %d", g, nv.Focus, len(nv.GPUs))
			}
		}
	}
	if !seen["up"] || !seen["attention"] {
		t.Errorf("a step's kernels seen: %v (no MLP product, or no attention)", seen)
	}
	var p Picture
	var lists []string
	for _, level := range []string{"", scenarios.ZoomNode, scenarios.ZoomGPU, scenarios.ZoomSM} {
		l := p.Build(render.List{}, Moment{Lesson: les, Step: 1, Time: middle(les, 1), Zoom: scenarios.Zoom{Level: level, GPU: 3}}, f)
		lists = append(lists, l.String())
	}
	for i := range lists {
		if slices.Index(lists, lists[i]) != i {
			t.Errorf("level %d draws level %d's picture", i, slices.Index(lists, lists[i]))
		}
	}
}

// sandboxActivity is the sandbox's first step at its defaults: its plan,
// every GPU's activity, the time line, and the desktop frame in English.
func sandboxActivity(t *testing.T) (*scenarios.PlanRun, *parallel.StepActivity, parallel.Timeline, Frame) {
	t.Helper()
	s, _ := scenarios.Get("sandbox")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	run := les.Steps[0].Run.(*scenarios.PlanRun)
	a, tl, _ := run.Activity()
	f := ruleFrames[0].frame
	f.Lang = "en"
	return run, a, tl, f
}

// Backward, a product's SM view follows its two products in turn: the
// input's gradient (M × K, inner N) first, then the weights' (K × N,
// inner M), each through its own waves.
func TestZoomSMBackward(t *testing.T) {
	run, a, tl, f := sandboxActivity(t)
	for tt := tl.Length / 3; tt < tl.Length; tt += 1e-4 {
		act, _ := a.At(0, tt)
		if act.Kind != "backward" || act.Kernel.Kind != "gemm" {
			continue
		}
		k := act.Kernel
		d := act.KernelEnd - act.KernelStart
		early := zoomSMView(a, run, 0, act.KernelStart+d*0.01, f)
		late := zoomSMView(a, run, 0, act.KernelEnd-d*0.01, f)
		if early.M != int(k.M) || early.N != int(k.K) || early.K != int(k.N) || !strings.Contains(early.Title, "input's gradient") || early.Wave != 1 {
			t.Errorf("early in %s's backward: %d × %d × %d wave %d %q, want the input's gradient %g × %g × %g", k.Name, early.M, early.N, early.K, early.Wave, early.Title, k.M, k.K, k.N)
		}
		if late.M != int(k.K) || late.N != int(k.N) || late.K != int(k.M) || !strings.Contains(late.Title, "weights' gradient") || late.Wave != late.Waves {
			t.Errorf("late in %s's backward: %d × %d × %d wave %d of %d %q, want the weights' gradient %g × %g × %g", k.Name, late.M, late.N, late.K, late.Wave, late.Waves, late.Title, k.K, k.N, k.M)
		}
		return
	}
	t.Fatal("no backward product found")
}

// Where the GPU runs no matrix product, the SM level draws what its
// SMs do from the engine's counts: a memory pass streams its bytes at
// the engine's share of HBM (MemoryEfficiency) with every SM at work;
// attention keeps its scores on chip, its HBM share what its bytes over
// its time make; the bubble and a collective leave every SM waiting.
func TestZoomSMPassFromEngine(t *testing.T) {
	run, a, tl, f := sandboxActivity(t)
	g := run.Config.Cluster.GPU
	seen := map[string]bool{}
	for tt := 0.0; tt < tl.Length; tt += tl.Length / 20000 {
		act, _ := a.At(0, tt)
		v := zoomSMView(a, run, 0, tt, f)
		c, ok := a.Counts(act)
		var kind string
		switch {
		case ok && c.GEMM != nil:
			if v.Pass != nil {
				t.Fatalf("%s at %g s: a product drawn as a pass", act.Kernel.Name, tt)
			}
			continue
		case ok && act.Kernel.Kind == parallel.KernelMemory:
			kind = "memory"
			if v.Pass == nil || v.Pass.Flow != render.FlowHBM || v.Pass.Busy != g.SMs || math.Abs(v.Pass.Share-parallel.MemoryEfficiency) > 1e-9 ||
				!strings.Contains(v.Pass.Numbers, units.Bytes(c.HBMBytes)) {
				t.Errorf("%s at %g s: %+v, want every SM streaming %s at %g of HBM", act.Kernel.Name, tt, v.Pass, units.Bytes(c.HBMBytes), parallel.MemoryEfficiency)
			}
		case ok && act.Kernel.Kind == parallel.KernelAttention:
			kind = "attention"
			if want := c.HBMBytes / c.TimeS / g.HBMBandwidth; v.Pass == nil || v.Pass.Flow != render.FlowOnChip || math.Abs(v.Pass.Share-want) > 1e-9 || v.Pass.Share > 0.5 || v.Pass.OnChip == "" {
				t.Errorf("attention at %g s: %+v, want its scores on chip at %g of HBM", tt, v.Pass, want)
			}
		case ok && c.Comm, act.Kind == parallel.AllReduce:
			kind = "comm"
			if v.Pass == nil || v.Pass.Flow != render.FlowLink || v.Pass.Busy != 0 {
				t.Errorf("%s at %g s: %+v, want the SMs waiting on the links", act.Kernel.Name, tt, v.Pass)
			}
		case !ok && act.Kind == "":
			kind = "wait"
			if v.Pass == nil || v.Pass.Flow != render.FlowNone || v.Pass.Busy != 0 {
				t.Errorf("waiting at %g s: %+v", tt, v.Pass)
			}
		}
		seen[kind] = true
	}
	for _, k := range []string{"memory", "attention", "comm", "wait"} {
		if !seen[k] {
			t.Errorf("no %s moment in the sandbox's step (seen %v)", k, seen)
		}
	}
}

// The ring lesson's zoom: during a reduce-scatter round a GPU adds the
// chunk that arrived into its own — a reduction at 1/6 FLOP a byte, far
// left of the ridge, memory-bound — its round lit among the ring's 14;
// in the node, each GPU's send to the next lit.
func TestZoomRing(t *testing.T) {
	s, _ := scenarios.Get("ring-allreduce")
	les := prepare(t, s)
	var p Picture
	f := ruleFrames[0].frame
	f.Lang = "en"
	for i, sr := range les.Steps {
		if sr.Step.ID != "reduce-scatter" {
			continue
		}
		m := Moment{Lesson: les, Step: i + 1, Time: middle(les, i+1), Zoom: scenarios.Zoom{Level: scenarios.ZoomGPU, GPU: 3}}
		r := sr.Run.(*collective.Result)
		a, _ := scenarios.CollectiveActivity(r)
		v := ringGPUView(a, r, 3, m, f)
		if !strings.HasPrefix(v.Kernel, "reduce: adds the 32 MiB chunk from GPU 2") || math.Abs(v.Intensity-1.0/6) > 1e-9 || v.Bound != "memory" ||
			len(v.Strip) != 14 || v.Current < 0 || v.Current > 6 {
			t.Errorf("GPU 3 mid reduce-scatter: %q, intensity %g, %s, round %d of %d", v.Kernel, v.Intensity, v.Bound, v.Current, len(v.Strip))
		}
		nv := ringNodeView(a, r, 3, m, f)
		if len(nv.GPUs) != 8 || len(nv.Flows) != 8 {
			t.Errorf("the node mid reduce-scatter: %d GPUs, %d flows", len(nv.GPUs), len(nv.Flows))
		}
		for _, fl := range nv.Flows {
			if fl.To != (fl.From+1)%8 {
				t.Errorf("flow %d → %d, want the next GPU", fl.From, fl.To)
			}
		}
		if l := p.Build(render.List{}, m, f); len(l.Items) == 0 {
			t.Error("no picture")
		}
		return
	}
	t.Fatal("no reduce-scatter step")
}
