package scenarios

import (
	"strconv"
	"strings"
	"sync"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The zoom (issue 21): a strategy lesson's moment seen from the cluster
// (the step's own picture), one node, one GPU or one SM of that GPU. Its
// fragment keys are zoom=cluster|node|gpu|sm and gpu=N (which GPU,
// 0-based, in Megatron's rank order). In the lessons whose gpu knob is
// the GPU's model (the sandbox, the planner) the two share the key: a
// number is the zoom's GPU, a name the model; "#gpu=h200&gpu=27" sets
// both.

// Zoom levels, outermost first.
const (
	ZoomCluster = "cluster"
	ZoomNode    = "node"
	ZoomGPU     = "gpu"
	ZoomSM      = "sm"
)

// ZoomLevels are the levels in zooming order.
var ZoomLevels = []string{ZoomCluster, ZoomNode, ZoomGPU, ZoomSM}

// Zoom is the zoom's state: its level ("" is the cluster) and its GPU.
type Zoom struct {
	Level string
	GPU   int
}

// At reports the level, "cluster" for the zero Zoom.
func (z Zoom) At() string {
	if z.Level == "" {
		return ZoomCluster
	}
	return z.Level
}

// Zooms reports whether the lesson has the zoom: its kind says how many
// GPUs a configuration places (Kind.zoomGPUs).
func (s *Scenario) Zooms() bool { return s.LessonKind().zoomGPUs != nil }

// zoomGPUs is how many GPUs st's step places: the knobs with the step's
// set: lines applied (a lesson's steps may place different clusters);
// 0 in a lesson without the zoom.
func (st State) zoomGPUs(s *Scenario) int {
	if k := s.LessonKind(); k.zoomGPUs != nil {
		return k.zoomGPUs(s, s.StepConfig(st.Config, st.Step), st.Step)
	}
	return 0
}

// planZoomGPUs is a strategy lesson's cluster.
func planZoomGPUs(_ *Scenario, c Config, _ int) int {
	pc, err := planConfig(c)
	if err != nil {
		return 0
	}
	return pc.Cluster.GPUs
}

// ringZoomGPUs is the ring lesson's GPUs.
func ringZoomGPUs(_ *Scenario, c Config, _ int) int { return int(c.Int("gpus")) }

// zoomRun is a step's run the zoom looks inside (a kind with zoomGPUs):
// it adds to z (its Level and GPU set) what GPU z.GPU does at the
// playhead t of step sr — the moment (TimeS), and what the kind knows of
// it (Stage, Block, Layer, Kernel; a kernel named is a canvas.zoom.k.
// key) — and says which ui.desc_ keys describe it for a screen reader
// (desc: "ui.desc_zoom_" where "" is returned).
type zoomRun interface {
	zoomReport(z *ZoomState, sr *StepRun, t sim.Time) (desc string)
}

// zoomGPUKey is where ApplyFragment keeps a numeric gpu value apart from
// the gpu knob's model name.
const zoomGPUKey = "\x00gpu"

// isIndex reports whether v is a GPU index as the fragment writes one.
func isIndex(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 7 {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// setZoomLevel applies zoom=v to st.
func (st *State) setZoomLevel(s *Scenario, v string) *InputError {
	if !s.Zooms() {
		return inputError("error.zoom_lesson", "zoom", v)
	}
	l := strings.ToLower(strings.TrimSpace(v))
	for _, z := range ZoomLevels {
		if l == z {
			if l == ZoomCluster {
				l = ""
			}
			st.Zoom.Level = l
			return nil
		}
	}
	return inputError("error.zoom", "zoom", v, "allowed", listArg(ZoomLevels))
}

// checkZoomGPU applies gpu=v (a number) to st once its knobs are set:
// a GPU of the plan, else an error naming the range (st keeps its GPU).
func (st *State) checkZoomGPU(s *Scenario, v string) *InputError {
	if !s.Zooms() {
		return inputError("error.zoom_lesson", "gpu", v)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	total := st.zoomGPUs(s)
	if err != nil || n < 0 || n >= total {
		return inputError("error.zoom_gpu", "gpu", v, "max", strconv.Itoa(max(0, total-1)))
	}
	st.Zoom.GPU = n
	return nil
}

// fitZoom keeps the zoom's GPU within the plan (a knob that shrinks the
// cluster moves it to the last GPU) and clears it in a lesson without a
// zoom.
func (st *State) fitZoom(s *Scenario) {
	if !s.Zooms() {
		st.Zoom = Zoom{}
		return
	}
	if n := st.zoomGPUs(s); st.Zoom.GPU >= n {
		st.Zoom.GPU = max(0, n-1)
	}
}

// Activity is what the step's plan does GPU by GPU, moment by moment
// (parallel.StepActivity), worked out on first use and kept with the
// run; false where the plan has no time line to zoom into (DualPipe, or
// more blocks than a picture draws).
func (r *PlanRun) Activity() (*parallel.StepActivity, parallel.Timeline, bool) {
	if r.zoomed {
		return r.act, r.actTL, r.act != nil
	}
	r.zoomed = true
	p := r.Config.Plan
	if 2*p.PP*r.Result.MicroBatches*max(1, p.Interleave) > MaxDrawnBlocks {
		return nil, r.actTL, false
	}
	var err error
	if len(r.Timelines) > 0 && (r.View == ViewTimeline || r.View == ViewAccum) {
		r.actTL = r.Timelines[0].Timeline
	} else if r.actTL, err = r.Result.Timeline(); err != nil {
		return nil, r.actTL, false
	}
	r.act, err = parallel.NewStepActivity(r.Result, r.actTL)
	if err != nil {
		r.act = nil
	}
	return r.act, r.actTL, r.act != nil
}

// ZoomTime is the moment the zoom shows for the playhead t of step sr,
// in seconds on the plan's time line: the playhead itself where the
// step draws that time line; elsewhere (the cluster, memory) its share
// of the step's window; a still or finished step shows the time line's
// middle (a pipeline's steady state).
func (r *PlanRun) ZoomTime(sr *StepRun, t sim.Time) float64 {
	_, tl, _ := r.Activity()
	if !(sr.To > sr.From && t < sr.To) {
		return tl.Length / 2
	}
	if r.View == ViewTimeline || r.View == ViewAccum {
		return t.Seconds()
	}
	return float64(t-sr.From) / float64(sr.To-sr.From) * tl.Length
}

// Collective kernels: what a rank's SMs run during a collective's round.
const (
	KernelReduce = "reduce" // adds the chunk that arrived into its own (reduce-scatter; the star's root gathering)
	KernelCopy   = "copy"   // keeps the chunk that arrived as it is (all-gather, broadcast)
	KernelSend   = "send"   // only sends: its chunk read out onto the link
)

// CollectiveKernel is what rank m's SMs run then: a reduction of what
// arrives, a copy, a send alone, or nothing ("").
func CollectiveKernel(m collective.RankMoment) string {
	switch {
	case len(m.Recvs) > 0 && (m.Recvs[0].Phase == collective.PhaseReduceScatter || m.Recvs[0].Phase == collective.PhaseGather):
		return KernelReduce
	case len(m.Recvs) > 0:
		return KernelCopy
	case len(m.Sends) > 0:
		return KernelSend
	}
	return ""
}

// activities keeps the last runs' activity indexes (the page's picture
// and its state ask every frame).
var activities struct {
	mu   sync.Mutex
	runs [4]*collective.Result
	acts [4]*collective.Activity
	next int
}

// CollectiveActivity is r's activity index, made once a run.
func CollectiveActivity(r *collective.Result) (*collective.Activity, bool) {
	activities.mu.Lock()
	defer activities.mu.Unlock()
	for i, x := range activities.runs {
		if x == r && activities.acts[i] != nil {
			return activities.acts[i], true
		}
	}
	a, err := collective.NewActivity(r)
	if err != nil {
		return nil, false
	}
	i := activities.next % len(activities.runs)
	activities.runs[i], activities.acts[i], activities.next = r, a, activities.next+1
	return a, true
}

// zoomReport adds what the zoom's GPU runs at the moment to z, and
// returns the prefix of the ui.desc_ keys that describe it.
func (p *Player) zoomReport(z *ZoomState) string {
	if z.Level == ZoomCluster {
		return ""
	}
	switch r := p.run().(type) {
	case *collective.Result:
		a, ok := CollectiveActivity(r)
		if !ok {
			return ""
		}
		m, err := a.At(min(z.GPU, r.Config.Ranks-1), p.t)
		if err != nil {
			return ""
		}
		z.TimeS, z.Kernel = p.t.Seconds(), CollectiveKernel(m)
		if z.Kernel != "" {
			z.Block = m.Phase.String()
		}
		z.Layer = -1
		return "ui.desc_zoomr_" // a ring's GPUs have no stage
	case zoomRun:
		return r.zoomReport(z, p.step(), p.t)
	}
	return ""
}

// zoomReport is what the plan's GPU z.GPU does at the zoom's moment.
func (r *PlanRun) zoomReport(z *ZoomState, sr *StepRun, at sim.Time) string {
	a, _, ok := r.Activity()
	if !ok {
		return ""
	}
	t := r.ZoomTime(sr, at)
	act, err := a.At(min(z.GPU, a.GPUs()-1), t)
	if err != nil {
		return ""
	}
	z.TimeS, z.Stage, z.Block, z.Layer, z.Kernel = t, act.Stage, string(act.Kind), act.Layer, act.Kernel.Name
	return ""
}

// zoomDescription is the zoom's level for a screen reader: which node,
// GPU or SM the picture shows and what that GPU runs at the moment; ""
// at the cluster.
func (p *Player) zoomDescription(lang string) string {
	if !p.les.Scenario.Zooms() || p.st.Zoom.At() == ZoomCluster {
		return ""
	}
	z := ZoomState{Level: p.st.Zoom.At(), GPU: p.st.Zoom.GPU}
	key := p.zoomReport(&z)
	if key == "" {
		key = "ui.desc_zoom_"
	}
	t := func(key string, args ...string) string { return i18n.T(lang, key, args...) }
	what := t("canvas.zoom.s.doing_wait")
	switch {
	case z.Kernel != "":
		what = t("canvas.zoom.k." + z.Kernel)
	case z.Block == string(parallel.AllReduce):
		what = t("canvas.zoom.s.doing_allreduce")
	case z.Block == string(parallel.Optimizer):
		what = t("canvas.zoom.s.doing_optimizer")
	case z.Block != "":
		what = t("canvas.zoom.s.doing_" + z.Block)
	}
	return t(key+z.Level, "gpu", strconv.Itoa(z.GPU), "stage", strconv.Itoa(z.Stage), "what", what,
		"t", units.LocalDuration(lang, z.TimeS))
}
