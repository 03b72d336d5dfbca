package scenarios

import (
	"strconv"
	"strings"
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

// Zooms reports whether the lesson has the zoom: its strategy lessons
// (kind plan), the sandbox among them.
func (s *Scenario) Zooms() bool { return s.Kind == KindPlan }

// zoomGPUs is how many GPUs a zoomable lesson's configuration places
// (0 when the configuration does not make a plan).
func (s *Scenario) zoomGPUs(c Config) int {
	if !s.Zooms() {
		return 0
	}
	pc, err := planConfig(c)
	if err != nil {
		return 0
	}
	return pc.Cluster.GPUs
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
	total := s.zoomGPUs(st.Config)
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
	if n := s.zoomGPUs(st.Config); st.Zoom.GPU >= n {
		st.Zoom.GPU = max(0, n-1)
	}
}
