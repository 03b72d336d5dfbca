package scenarios

import (
	"slices"
	"sort"
)

// Layer is one of the curriculum's three layers.
type Layer string

// The layers, from the chip up.
const (
	Silicon        Layer = "silicon"
	Strategy       Layer = "strategy"
	Infrastructure Layer = "infrastructure"
)

// Layers are the curriculum's layers in its order.
var Layers = []Layer{Silicon, Strategy, Infrastructure}

// A Kind is one kind of lesson: what a scenario file's kind: line names,
// and everything gpuscope knows about it. This file is the registry — the
// one place a kind is declared. The loader checks a scenario's show: and
// predict: lines against it, Prepare runs it, the course files the lesson
// under its layer, and package scene draws it (one picture builder a
// kind, keyed by the Kind constants below; a test fails if one is
// missing).
//
// A new kind is one entry here, a kind_NAME.go with its preparer (and its
// questions in questions_NAME.go), a picture builder in package scene,
// scenario data and i18n keys.
type Kind struct {
	Name  string
	Layer Layer
	// Views are what a step's show: line may name: a picture of its own
	// or a layer added to the kind's one picture. None: the kind has one
	// picture.
	Views []string
	// prepare runs the engine for every step of a scenario under a
	// configuration.
	prepare func(s *Scenario, cfg Config) (*Lesson, error)
	// questions are the prediction questions a step's predict: line may
	// name, by id.
	questions map[string]asker
	// zoomGPUs is how many GPUs step (1-based) of a lesson of the kind
	// places under c (the knobs with the step's set: lines applied), the GPUs the zoom (issue 21) can look inside (0 when the
	// configuration makes none); nil: the kind has no zoom. Its steps'
	// runs then report what a GPU does at a moment (zoomRun, zoom.go)
	// and package scene draws its node, GPU and SM.
	zoomGPUs func(s *Scenario, c Config, step int) int
}

// Kind names: what the scenario files' kind: lines say.
const (
	KindCPUGPU     = "cpugpu"
	KindLaunch     = "launch"
	KindMemwall    = "memwall"
	KindRoofline   = "roofline"
	KindFused      = "fused"
	KindAttention  = "attention"
	KindNumfmt     = "numfmt"
	KindPlan       = "plan"
	KindCollective = "collective"
	KindFabric     = "fabric"
	KindFaults     = "faults"
	KindMoE        = "moe"
	KindQuantize   = "quantize"
)

// kinds is the registry, in the curriculum's order of layers.
var kinds = []Kind{
	{Name: KindCPUGPU, Layer: Silicon, prepare: prepareCPUGPU},
	{Name: KindLaunch, Layer: Silicon, prepare: prepareLaunch},
	{Name: KindMemwall, Layer: Silicon, prepare: prepareMemwall},
	{Name: KindRoofline, Layer: Silicon, Views: []string{ViewSweep}, prepare: prepareRoofline},
	{Name: KindFused, Layer: Silicon, prepare: prepareFused},
	{Name: KindAttention, Layer: Silicon, Views: []string{ViewSweep}, prepare: prepareAttention},
	{Name: KindNumfmt, Layer: Silicon, Views: []string{ViewTraining}, prepare: prepareNumfmt},
	{Name: KindQuantize, Layer: Silicon, Views: []string{ViewRoof}, prepare: prepareQuantize, questions: quantizeQuestions},
	{Name: KindPlan, Layer: Strategy, Views: append(append(append(slices.Clone(planViews), ClusterModes...), TPMatrixParts...), PlannerParts...), prepare: preparePlan, questions: planQuestions, zoomGPUs: planZoomGPUs},
	{Name: KindMoE, Layer: Strategy, Views: []string{ViewPlacement}, prepare: prepareMoE, questions: moeQuestions, zoomGPUs: moeZoomGPUs},
	{Name: KindCollective, Layer: Infrastructure, Views: []string{ViewTimeVsN}, prepare: prepareCollective, zoomGPUs: ringZoomGPUs},
	{Name: KindFabric, Layer: Infrastructure, Views: fabricViews, prepare: prepareFabric, questions: fabricQuestions, zoomGPUs: fabricZoomGPUs},
	{Name: KindFaults, Layer: Infrastructure, Views: []string{ViewGoodput}, prepare: prepareFaults, questions: faultQuestions, zoomGPUs: faultZoomGPUs},
}

// Views that add a layer to a kind's one picture.
const (
	ViewSweep    = "sweep"     // roofline, attention: the point moves along the axis as the step plays
	ViewTraining = "training"  // numfmt: the toy training run's loss curves
	ViewTimeVsN  = "time-vs-n" // collective: ring and star time against the number of GPUs
)

// Kinds are the registered kinds, in the curriculum's order of layers.
func Kinds() []Kind { return slices.Clone(kinds) }

// KindOf is the kind called name.
func KindOf(name string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// KindNames are the registered kinds' names.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// Questions are the ids of the questions the kind's steps may ask, sorted.
func (k Kind) Questions() []string {
	out := make([]string, 0, len(k.questions))
	for id := range k.questions {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Kind is the scenario's kind (the zero Kind for a scenario that was not
// loaded).
func (s *Scenario) LessonKind() Kind {
	k, _ := KindOf(s.Kind)
	return k
}
