package scene

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom in the fault-tolerance lesson: the job's moment of wall time
// (FaultRun.ZoomTime) from one node, one GPU and one SM. While the job
// trains on the GPUs of Meta's Llama 3 plan (16,384: FaultRun.Plan), the
// three levels are a training step's, at the job's progress modulo the
// step's time (FaultRun.StepAt); otherwise they show what the job does —
// training, writing a checkpoint, restarting after a failure, the GPU
// that failed in the hot colour — with the job's numbers.

// faultPhases is how many of the job's phases the GPU's strip shows.
const faultPhases = 6

// fz is one frame's zoom into a fault run: the moment, the plan's step
// where the job trains with one, and the words' values (args: every
// canvas.zoom.f key takes the ones it names from them).
type fz struct {
	run  *scenarios.FaultRun
	m    scenarios.FaultMoment
	g, G int // the zoom's GPU, GPUs a node
	cl   parallel.Cluster
	plan *scenarios.PlanRun
	act  *parallel.StepActivity
	st   float64 // the moment on the plan's step
	w    render.Words
	args []string
}

func (p *Picture) buildFaultZoom(dst render.List, m Moment, f Frame, run *scenarios.FaultRun) (render.List, bool) {
	z := newFZ(run, m, f)
	switch m.Zoom.Level {
	case scenarios.ZoomNode:
		return render.AppendZoomNode(dst, z.node(f)), true
	case scenarios.ZoomGPU:
		return render.AppendZoomGPU(dst, z.gpu(f)), true
	case scenarios.ZoomSM:
		return render.AppendZoomSM(dst, z.sm(f)), true
	}
	return dst, false
}

func newFZ(run *scenarios.FaultRun, m Moment, f Frame) fz {
	z := fz{run: run, cl: run.Cluster(), w: f.words()}
	c := run.Result.Config
	z.m = run.MomentAt(run.ZoomTime(m.StepRun(), m.Time))
	z.g = min(max(m.Zoom.GPU, 0), c.GPUs-1)
	z.G = max(1, z.cl.GPUsPerNode)
	mo := &z.m
	var step int64
	if mo.Phase.Kind == scenarios.FaultTrain {
		if st, n, ok := run.StepAt(mo.Progress); ok {
			z.plan, z.act, _ = run.Plan()
			z.st, step = st, n
		}
	}
	dur := func(s float64) string { return units.LocalDuration(z.w.Lang, s) }
	done := mo.At - mo.Phase.Start
	if mo.Phase.Kind == scenarios.FaultRestart {
		done = mo.At - mo.FailAt
	}
	risk := mo.Progress - mo.Saved
	z.args = []string{"day", day(mo.At), "days", strconv.FormatFloat(c.Days, 'f', 0, 64), "gpu", strconv.Itoa(z.g),
		"node", strconv.Itoa(z.g / z.G), "nodes", units.Count(int64((c.GPUs + z.G - 1) / z.G)), "gpus", units.Count(int64(c.GPUs)),
		"name", z.cl.GPU.Name, "done", dur(done), "cost", dur(c.CheckpointCost), "restart", dur(c.RestartCost),
		"every", dur(c.CheckpointEvery), "risk", dur(risk), "work", dur(risk), "left", dur(math.Max(0, c.CheckpointEvery-risk)),
		"step", units.Count(step), "t", dur(z.st), "fday", day(mo.FailAt), "failed", strconv.Itoa(mo.FailGPU),
		"fnode", strconv.Itoa(mo.FailGPU / z.G), "lost", dur(mo.FailLost), "n", strconv.Itoa(mo.Again)}
	return z
}

// say is the canvas.zoom.f key's words for the moment.
func (z *fz) say(key string) string { return z.w.Say("canvas.zoom.f."+key, z.args...) }

// day is a wall time as the step's picture's clock writes it: days, one
// decimal, rounded down.
func day(t float64) string {
	return strconv.FormatFloat(math.Floor(t/8640)/10, 'f', 1, 64)
}

// kind is the job's phase, "step" while it trains with the plan.
func (z *fz) kind() string {
	if z.act != nil {
		return "step"
	}
	return z.m.Phase.Kind
}

// self is "_self" where the zoom's GPU is the one that failed.
func (z *fz) self() string {
	if z.m.Phase.Kind == scenarios.FaultRestart && z.m.FailGPU == z.g {
		return "_self"
	}
	return ""
}

func (z *fz) node(f Frame) render.ZoomNodeView {
	w := z.w
	gpus := z.run.Result.Config.GPUs
	node := z.g / z.G
	var v render.ZoomNodeView
	if z.act != nil {
		v = zoomNodeView(z.act, z.plan, z.g, z.st, f)
	} else {
		m := &z.m
		v = render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
			Crumbs:    zoomCrumbs(w, scenarios.ZoomNode, node, z.g),
			IntraName: z.cl.Intra.Name, IntraBW: z.cl.Intra.Bandwidth, InterName: z.cl.Inter.Name, InterBW: z.cl.Inter.Bandwidth,
		}
		first, last := node*z.G, min(node*z.G+z.G, gpus)
		v.Focus = z.g - first
		// The GPUs in the job's colour, through its phase: the work
		// towards the next checkpoint, the write, the restart.
		c := z.run.Result.Config
		act, pr := render.ZoomTrain, progress(m.Progress-m.Saved, 0, c.CheckpointEvery)
		switch m.Phase.Kind {
		case scenarios.FaultCheckpoint:
			act, pr = render.ZoomCheckpoint, progress(m.At, m.Phase.Start, m.Phase.Start+c.CheckpointCost)
		case scenarios.FaultRestart:
			act, pr = render.ZoomRestart, progress(m.At, m.FailAt, m.FailAt+c.RestartCost)
		}
		doing := zsay(w, "canvas.zoom.s.doing_", m.Phase.Kind)
		for r := first; r < last; r++ {
			ng := render.ZoomNodeGPU{GPU: r, Label: zsay(w, "canvas.zoom.s.", "gpu", "gpu", strconv.Itoa(r)), Doing: doing, Activity: act, Progress: pr}
			if act == render.ZoomRestart && r == m.FailGPU {
				ng.Activity, ng.Doing = render.ZoomFailed, z.say("failed")
			}
			v.GPUs = append(v.GPUs, ng)
		}
		// The failed GPU elsewhere: a line to zoom in on it.
		if act == render.ZoomRestart && m.FailGPU >= 0 && m.FailGPU/z.G != node {
			v.Alert, v.AlertGPU = z.say("alert"), m.FailGPU
		}
	}
	v.Title = w.Say("canvas.zoom.f.node_title", append(z.args, "state", z.say("state_"+z.kind()))...)
	v.Clock = w.Say("canvas.faults.clock", z.args...)
	return v
}

func (z *fz) gpu(f Frame) render.ZoomGPUView {
	w := z.w
	if z.act != nil {
		v := zoomGPUView(z.act, z.plan, z.g, z.st, f)
		v.Title = w.Say("canvas.zoom.f.gpu_title_plan", append(z.args, "title", v.Title)...)
		return v
	}
	m := &z.m
	k := m.Phase.Kind
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, z.g/z.G, z.g), Title: z.say("gpu_title"), Doing: w.Say("canvas.faults.clock", z.args...),
		Kernel: z.say("big_" + k + z.self()), Note: z.say("note_" + k + z.self()), Time: m.At, Current: -1, GPU: z.cl.GPU.Name}
	switch {
	case k == scenarios.FaultTrain:
		v.Note += z.say("no_plan")
	case m.Again > 0:
		v.Note += z.say("note_again")
	}
	// The strip: the job's last phases, the one under way lit, as long as
	// the job knows it then (Due).
	phs := z.run.PhasesTo(m.At, faultPhases)
	for i, ph := range phs {
		sp := render.ZoomSpan{Start: ph.Start, End: ph.End, Label: zsay(w, "canvas.zoom.f.span_", ph.Kind), Activity: render.ZoomTrain}
		switch {
		case ph.Lost:
			sp.Activity, sp.Label = render.ZoomLost, zsay(w, "canvas.zoom.f.span_", "lost")
		case ph.Kind == scenarios.FaultCheckpoint:
			sp.Activity = render.ZoomCheckpoint
		case ph.Kind == scenarios.FaultRestart:
			sp.Activity = render.ZoomRestart
		}
		if i == len(phs)-1 {
			sp.End, v.Current = m.Due, i
		}
		v.Strip = append(v.Strip, sp)
	}
	v.StripKey = "canvas.zoom.f.strip"
	return v
}

func (z *fz) sm(f Frame) render.ZoomSMView {
	if z.act != nil {
		return zoomSMView(z.act, z.plan, z.g, z.st, f)
	}
	w := z.w
	v := render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomSM, z.g/z.G, z.g), SMs: z.cl.GPU.SMs, SmemPerSM: z.cl.GPU.SharedMemPerSM,
		Title: zsay(w, "canvas.zoom.s.sm_title_none", "", "gpu", strconv.Itoa(z.g)), Note: z.say("sm_" + z.m.Phase.Kind)}
	if z.m.Phase.Kind == scenarios.FaultTrain {
		v.Note += z.say("no_plan")
	}
	return v
}
