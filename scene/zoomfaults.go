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

// fz is one frame's zoom into a fault run: the moment, and the plan's
// step where the job trains with one.
type fz struct {
	run  *scenarios.FaultRun
	m    scenarios.FaultMoment
	g    int
	cl   parallel.Cluster
	plan *scenarios.PlanRun
	act  *parallel.StepActivity
	st   float64 // the moment on the plan's step
	step int64
	w    render.Words
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
	z.m = run.MomentAt(run.ZoomTime(m.StepRun(), m.Time))
	z.g = min(max(m.Zoom.GPU, 0), run.Result.Config.GPUs-1)
	if z.m.Phase.Kind == scenarios.FaultTrain {
		if st, n, ok := run.StepAt(z.m.Progress); ok {
			z.plan, z.act, _ = run.Plan()
			z.st, z.step = st, n
		}
	}
	return z
}

// day is a wall time as the step's picture's clock writes it: days, one
// decimal, rounded down.
func day(t float64) string {
	return strconv.FormatFloat(math.Floor(t/8640)/10, 'f', 1, 64)
}

func (z *fz) dur(s float64) string { return units.LocalDuration(z.w.Lang, s) }

// clock is the step's picture's clock at the moment.
func (z *fz) clock() string {
	return z.w.Say("canvas.faults.clock", "day", day(z.m.At), "days", strconv.FormatFloat(z.run.Result.Config.Days, 'f', 0, 64))
}

// state is what the job does, in a few words with its times.
func (z *fz) state() string {
	c := z.run.Result.Config
	m := z.m
	switch m.Phase.Kind {
	case scenarios.FaultCheckpoint:
		return z.w.Say("canvas.zoom.f.state_checkpoint", "done", z.dur(m.At-m.Phase.Start), "cost", z.dur(c.CheckpointCost))
	case scenarios.FaultRestart:
		return z.w.Say("canvas.zoom.f.state_restart", "done", z.dur(m.At-m.FailAt), "restart", z.dur(c.RestartCost))
	}
	if z.act != nil {
		return z.w.Say("canvas.zoom.f.state_step", "step", units.Count(z.step), "t", z.dur(z.st), "risk", z.dur(m.Progress-m.Saved))
	}
	return z.w.Say("canvas.zoom.f.state_train", "risk", z.dur(m.Progress-m.Saved))
}

// activity is the colour of GPU g's job at the moment (the job's, not a
// kernel's).
func (z *fz) activity(g int) render.ZoomActivity {
	switch z.m.Phase.Kind {
	case scenarios.FaultCheckpoint:
		return render.ZoomCheckpoint
	case scenarios.FaultRestart:
		if g == z.m.FailGPU {
			return render.ZoomFailed
		}
		return render.ZoomRestart
	}
	return render.ZoomTrain
}

// progress is how far the job's phase has got (0–1): the checkpoint's
// write, the restart, the work towards the next checkpoint.
func (z *fz) progress() float64 {
	c := z.run.Result.Config
	m := z.m
	switch m.Phase.Kind {
	case scenarios.FaultCheckpoint:
		return progress(m.At, m.Phase.Start, m.Phase.Start+c.CheckpointCost)
	case scenarios.FaultRestart:
		return progress(m.At, m.FailAt, m.FailAt+c.RestartCost)
	}
	return progress(m.Progress-m.Saved, 0, c.CheckpointEvery)
}

func (z *fz) nodeTitle(node, nodes int) string {
	return z.w.Say("canvas.zoom.f.node_title", "node", strconv.Itoa(node), "nodes", units.Count(int64(nodes)), "state", z.state())
}

func (z *fz) node(f Frame) render.ZoomNodeView {
	w := z.w
	G := max(1, z.cl.GPUsPerNode)
	gpus := z.run.Result.Config.GPUs
	node, nodes := z.g/G, (gpus+G-1)/G
	var v render.ZoomNodeView
	if z.act != nil {
		v = zoomNodeView(z.act, z.plan, z.g, z.st, f)
	} else {
		v = render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
			Crumbs:    zoomCrumbs(w, scenarios.ZoomNode, node, z.g),
			IntraName: z.cl.Intra.Name, IntraBW: z.cl.Intra.Bandwidth, InterName: z.cl.Inter.Name, InterBW: z.cl.Inter.Bandwidth,
		}
		first, last := node*G, min(node*G+G, gpus)
		v.Focus = z.g - first
		doing := zsay(w, "canvas.zoom.s.doing_", z.m.Phase.Kind)
		failed := ""
		if z.m.Phase.Kind == scenarios.FaultRestart {
			failed = w.Say("canvas.zoom.f.failed", "day", day(z.m.FailAt))
		}
		pr := z.progress()
		for r := first; r < last; r++ {
			ng := render.ZoomNodeGPU{GPU: r, Label: zsay(w, "canvas.zoom.s.", "gpu", "gpu", strconv.Itoa(r)), Doing: doing,
				Activity: z.activity(r), Progress: pr}
			if ng.Activity == render.ZoomFailed {
				ng.Doing = failed
			}
			v.GPUs = append(v.GPUs, ng)
		}
		// The failed GPU elsewhere: a line to zoom in on it.
		if fg := z.m.FailGPU; z.m.Phase.Kind == scenarios.FaultRestart && fg >= 0 && fg/G != node {
			v.Alert = w.Say("canvas.zoom.f.alert", "gpu", strconv.Itoa(fg), "node", strconv.Itoa(fg/G), "day", day(z.m.FailAt))
			v.AlertGPU = fg
		}
	}
	v.Title = z.nodeTitle(node, nodes)
	v.Clock = z.clock()
	return v
}

func (z *fz) gpu(f Frame) render.ZoomGPUView {
	w := z.w
	c := z.run.Result.Config
	G := max(1, z.cl.GPUsPerNode)
	if z.act != nil {
		v := zoomGPUView(z.act, z.plan, z.g, z.st, f)
		v.Title = w.Say("canvas.zoom.f.gpu_title_plan", "title", v.Title, "day", day(z.m.At), "step", units.Count(z.step), "risk", z.dur(z.m.Progress-z.m.Saved))
		return v
	}
	m := z.m
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, z.g/G, z.g),
		Title:  w.Say("canvas.zoom.f.gpu_title", "gpu", strconv.Itoa(z.g), "name", z.cl.GPU.Name, "gpus", units.Count(int64(c.GPUs))),
		Doing:  w.Say("canvas.faults.clock", "day", day(m.At), "days", strconv.FormatFloat(c.Days, 'f', 0, 64)),
		Time:   m.At, Current: -1, GPU: z.cl.GPU.Name,
	}
	// The strip: the job's last phases, the one under way lit, as long as
	// the job knows it then (Due).
	phs := z.run.PhasesTo(m.At, faultPhases)
	for i, ph := range phs {
		sp := render.ZoomSpan{Start: ph.Start, End: ph.End, Label: zsay(w, "canvas.zoom.f.span_", ph.Kind)}
		if i == len(phs)-1 {
			sp.End = m.Due
		}
		switch {
		case ph.Lost:
			sp.Activity, sp.Label = render.ZoomLost, zsay(w, "canvas.zoom.f.span_", "lost")
		case ph.Kind == scenarios.FaultCheckpoint:
			sp.Activity = render.ZoomCheckpoint
		case ph.Kind == scenarios.FaultRestart:
			sp.Activity = render.ZoomRestart
		default:
			sp.Activity = render.ZoomTrain
		}
		if ph.Start <= m.At && m.At <= ph.End && ph.Kind == m.Phase.Kind && ph.Start == m.Phase.Start {
			v.Current = i
		}
		v.Strip = append(v.Strip, sp)
	}
	if n := len(v.Strip); n > 0 {
		v.Caption = w.Say("canvas.zoom.f.strip", "t", z.dur(v.Strip[n-1].End-v.Strip[0].Start))
	}
	switch m.Phase.Kind {
	case scenarios.FaultCheckpoint:
		v.Kernel = w.Say("canvas.zoom.f.big_checkpoint", "done", z.dur(m.At-m.Phase.Start), "cost", z.dur(c.CheckpointCost))
		v.Note = w.Say("canvas.zoom.f.note_checkpoint", "cost", z.dur(c.CheckpointCost), "every", z.dur(c.CheckpointEvery),
			"work", z.dur(m.Progress-m.Saved))
	case scenarios.FaultRestart:
		self := ""
		if m.FailGPU == z.g {
			self = "_self"
		}
		v.Kernel = w.Say("canvas.zoom.f.big_restart"+self, "done", z.dur(m.At-m.FailAt), "restart", z.dur(c.RestartCost))
		key := "canvas.zoom.f.note_restart" + self
		v.Note = w.Say(key, "failed", strconv.Itoa(m.FailGPU), "node", strconv.Itoa(m.FailGPU/G), "day", day(m.FailAt),
			"lost", z.dur(m.FailLost), "restart", z.dur(c.RestartCost), "gpus", units.Count(int64(c.GPUs)))
		if m.Again > 0 {
			v.Note += w.Say("canvas.zoom.f.note_again", "n", strconv.Itoa(m.Again))
		}
	default:
		v.Kernel = w.Say("canvas.zoom.f.big_train", "risk", z.dur(m.Progress-m.Saved))
		v.Note = w.Say("canvas.zoom.f.note_train", "left", z.dur(math.Max(0, c.CheckpointEvery-(m.Progress-m.Saved))),
			"every", z.dur(c.CheckpointEvery)) + w.Say("canvas.zoom.f.no_plan", "gpus", units.Count(int64(c.GPUs)))
	}
	return v
}

func (z *fz) sm(f Frame) render.ZoomSMView {
	if z.act != nil {
		return zoomSMView(z.act, z.plan, z.g, z.st, f)
	}
	w := z.w
	c := z.run.Result.Config
	m := z.m
	G := max(1, z.cl.GPUsPerNode)
	v := render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomSM, z.g/G, z.g), SMs: z.cl.GPU.SMs, SmemPerSM: z.cl.GPU.SharedMemPerSM,
		Title: w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(z.g))}
	switch m.Phase.Kind {
	case scenarios.FaultCheckpoint:
		v.Note = w.Say("canvas.zoom.f.sm_checkpoint", "done", z.dur(m.At-m.Phase.Start), "cost", z.dur(c.CheckpointCost))
	case scenarios.FaultRestart:
		v.Note = w.Say("canvas.zoom.f.sm_restart", "day", day(m.FailAt), "done", z.dur(m.At-m.FailAt), "restart", z.dur(c.RestartCost))
	default:
		v.Note = w.Say("canvas.zoom.f.sm_train") + w.Say("canvas.zoom.f.no_plan", "gpus", units.Count(int64(c.GPUs)))
	}
	return v
}
