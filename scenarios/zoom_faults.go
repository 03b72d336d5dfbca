package scenarios

import (
	"math"
	"sort"
	"sync"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/validate"
)

// The zoom in the fault-tolerance lesson (issue 21): the job's moment of
// wall time — training, writing a checkpoint, or restarting after a
// failure (faults.Result.Trace) — from one node, one GPU and one SM.
// While it trains, a GPU runs the training step of Meta's Llama 3 405B
// plan (validate.Llama3: TP 8 × PP 16, the rest DP, 2,048 sequences a
// step) where the plan fits the job's GPUs and its time line can be
// drawn: at 16,384 GPUs, the lesson's default. The step's moment is the
// job's progress — the training time kept so far, the work since the
// checkpoint included — modulo the step's time: the clock that a failure
// throws back to the checkpoint.

// faultZoomGPUs is the job's GPUs.
func faultZoomGPUs(_ *Scenario, c Config, _ int) int { return FaultConfig(c).GPUs }

// What the job does at a moment: a FaultPhase's Kind (and a zoom's
// Block).
const (
	FaultTrain      = "train"
	FaultCheckpoint = "checkpoint"
	FaultRestart    = "restart"
)

// FaultPhase is a stretch of the job's wall time doing one thing, from
// Start to End (seconds). Lost: its work was thrown away by a failure
// (training, or a checkpoint's write, since the last checkpoint).
type FaultPhase struct {
	Kind       string
	Start, End float64
	Lost       bool
}

// FaultMoment is the job at a wall time At (seconds).
type FaultMoment struct {
	At    float64
	Phase FaultPhase
	// Due is when the phase would end as the job knows it at At: the
	// next checkpoint's work done, the write's or the restart's time
	// over (a failure yet to come may end it sooner, or restart it).
	Due float64
	// Progress is the work done at At (kept, and since the checkpoint);
	// Saved the part of it in the last checkpoint, which finished at
	// SavedAt (0: none yet, the job's start).
	Progress, Saved, SavedAt float64
	// Failures is how many failures struck by At. In a restart: the
	// failure it restarts from (FailAt, FailGPU — the GPU, −1 where the
	// run did not record it) and the work the restart's first failure
	// threw away (FailLost, seconds); Again, how many failures struck
	// again during the restart.
	Failures int
	FailAt   float64
	FailGPU  int
	FailLost float64
	Again    int
}

// faultPlan is the Llama 3 plan a fault run's zoom draws, made once.
type faultPlan struct {
	once sync.Once
	run  *PlanRun
	act  *parallel.StepActivity
}

// Plan is Meta's Llama 3 405B plan on the job's GPUs (validate.Llama3)
// with its activity, made on first use; false where it does not divide
// the GPUs (TP 8 × PP 16, a whole number of micro-batches for each of DP
// replicas in 2,048 sequences, interleaving's multiple of PP) or its time
// line is more than a picture draws (MaxDrawnBlocks).
func (r *FaultRun) Plan() (*PlanRun, *parallel.StepActivity, bool) {
	p := r.plan
	if p == nil {
		return nil, nil, false
	}
	p.once.Do(func() {
		g := r.Result.Config.GPUs
		if g%128 != 0 {
			return
		}
		c := validate.Llama3(g)
		if c.Validate() != nil {
			return
		}
		res, err := parallel.Evaluate(c)
		if err != nil {
			return
		}
		run := &PlanRun{Config: c, Result: res}
		if a, _, ok := run.Activity(); ok {
			p.run, p.act = run, a
		}
	})
	return p.run, p.act, p.act != nil
}

// Cluster is the H100 cluster the job runs on, Llama 3's (8 GPUs a node
// on NVLink 4, InfiniBand to the rest), its plan or not.
func (r *FaultRun) Cluster() parallel.Cluster { return validate.Llama3(r.Result.Config.GPUs).Cluster }

// StepAt is where the plan's training step stands after progress seconds
// of the job's work: the moment on its time line (seconds), and which
// step of the job it is (1-based); false without a plan.
func (r *FaultRun) StepAt(progress float64) (t float64, step int64, ok bool) {
	run, _, ok := r.Plan()
	if !ok {
		return 0, 0, false
	}
	n := run.actTL.Length
	if !(n > 0) {
		return 0, 0, false
	}
	k := math.Floor(math.Max(progress, 0) / n)
	return progress - k*n, int64(k) + 1, true
}

// ZoomTime is the moment the zoom shows for the playhead t of step sr,
// in seconds of wall time: the playhead itself; a still or finished step
// shows the restart after the first failure past the job's first hour
// (where the step's picture magnifies the job), half-way through it —
// the job's middle where none fails.
func (r *FaultRun) ZoomTime(sr *StepRun, t sim.Time) float64 {
	if sr.To > sr.From && t < sr.To {
		return t.Seconds()
	}
	end := r.end.Seconds()
	c := r.Result.Config
	for _, f := range r.Result.FailureTimes {
		if f >= 3600 {
			return math.Min(f+c.RestartCost/2, math.Max(f, end-1e-3))
		}
	}
	return end / 2
}

// phase is the phase of trace segment i (points i to i+1).
func (r *FaultRun) phase(i int) FaultPhase {
	tr := r.Result.Trace
	a, b := tr[i], tr[i+1]
	ph := FaultPhase{Kind: FaultTrain, Start: a.Wall, End: b.Wall}
	switch {
	case b.Checkpoint > a.Checkpoint:
		ph.Kind = FaultCheckpoint
	case b.Restart > a.Restart:
		ph.Kind = FaultRestart
	}
	return ph
}

// lostBy reports whether segment i's work was thrown away by a failure
// by wall time t: one strikes before a checkpoint saves it.
func (r *FaultRun) lostBy(i int, t float64) bool {
	tr := r.Result.Trace
	saved := tr[i].Saved
	for k := i + 1; k < len(tr); k++ {
		switch {
		case tr[k].Saved > saved:
			return false
		case tr[k].Wall > t:
			return false
		case k+1 < len(tr) && tr[k+1].Wall == tr[k].Wall && tr[k+1].Progress < tr[k].Progress:
			return true
		}
	}
	return false
}

// segmentAt is the trace segment at wall time t: the last whose start is
// at or before t and that lasts; −1 for a trace without one.
func (r *FaultRun) segmentAt(t float64) int {
	tr := r.Result.Trace
	i := sort.Search(len(tr), func(k int) bool { return tr[k].Wall > t }) - 1
	i = min(max(i, 0), len(tr)-2)
	for i >= 0 && tr[i+1].Wall <= tr[i].Wall {
		i--
	}
	return i
}

// MomentAt is the job at wall time t (clamped to the job).
func (r *FaultRun) MomentAt(t float64) FaultMoment {
	res := &r.Result
	t = math.Min(math.Max(t, 0), r.end.Seconds())
	m := FaultMoment{At: t, FailGPU: -1}
	m.Failures = sort.Search(len(res.FailureTimes), func(k int) bool { return res.FailureTimes[k] > t })
	i := r.segmentAt(t)
	if i < 0 {
		m.Phase = FaultPhase{Kind: FaultTrain, End: t}
		return m
	}
	tr := res.Trace
	m.Phase = r.phase(i)
	a, b := tr[i], tr[i+1]
	m.Progress, m.Saved = a.Progress, a.Saved
	if m.Phase.Kind == FaultTrain && b.Wall > a.Wall {
		m.Progress += (b.Progress - a.Progress) * math.Min(1, (t-a.Wall)/(b.Wall-a.Wall))
	}
	cp := sort.Search(len(res.CheckpointTimes), func(k int) bool { return res.CheckpointTimes[k] > t })
	if cp > 0 {
		m.SavedAt = res.CheckpointTimes[cp-1]
	}
	c := res.Config
	switch m.Phase.Kind {
	case FaultTrain:
		m.Due = t + c.CheckpointEvery - (m.Progress - m.Saved)
	case FaultCheckpoint:
		m.Due = m.Phase.Start + c.CheckpointCost
	}
	if m.Phase.Kind == FaultRestart && m.Failures > 0 {
		last := m.Failures - 1
		m.FailAt = res.FailureTimes[last]
		if last < len(res.FailedGPUs) {
			m.FailGPU = res.FailedGPUs[last]
		}
		first := sort.Search(len(res.FailureTimes), func(k int) bool { return res.FailureTimes[k] >= a.Wall })
		m.Again = last - first
		if i > 0 {
			m.FailLost = a.Lost - tr[i-1].Lost
		}
		m.Due = m.FailAt + c.RestartCost
	}
	m.Due = math.Min(math.Max(m.Due, t), r.end.Seconds())
	return m
}

// PhasesTo are the job's last n phases to the one at wall time t, in
// order, each marked lost where a failure by t threw its work away.
func (r *FaultRun) PhasesTo(t float64, n int) []FaultPhase {
	i := r.segmentAt(math.Min(math.Max(t, 0), r.end.Seconds()))
	var out []FaultPhase
	for k := i; k >= 0 && len(out) < n; k-- {
		if r.Result.Trace[k+1].Wall <= r.Result.Trace[k].Wall {
			continue
		}
		ph := r.phase(k)
		ph.Lost = ph.Kind != FaultRestart && r.lostBy(k, t)
		out = append(out, ph)
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// zoomReport is what GPU z.GPU does at the zoom's moment: the job's phase
// (Block train, checkpoint or restart), and while it trains with the
// plan, the plan's stage, block (forward, backward, …; train in the
// pipeline's bubble), layer and kernel.
func (r *FaultRun) zoomReport(z *ZoomState, sr *StepRun, at sim.Time) string {
	t := r.ZoomTime(sr, at)
	m := r.MomentAt(t)
	z.TimeS, z.Block, z.Layer = t, m.Phase.Kind, -1
	if m.Phase.Kind != FaultTrain {
		return "ui.desc_zoomfault_"
	}
	_, a, ok := r.Plan()
	st, _, _ := r.StepAt(m.Progress)
	if !ok {
		return "ui.desc_zoomfault_"
	}
	act, err := a.At(min(z.GPU, a.GPUs()-1), st)
	if err != nil {
		return "ui.desc_zoomfault_"
	}
	z.Stage, z.Layer, z.Kernel = act.Stage, act.Layer, act.Kernel.Name
	if act.Kind != "" {
		z.Block = string(act.Kind)
	}
	return "ui.desc_zoomfault_"
}
