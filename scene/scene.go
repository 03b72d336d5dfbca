package scene

import (
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Moment is what a picture shows: a step of a prepared lesson at a
// playhead.
type Moment struct {
	Lesson *scenarios.Lesson
	Step   int      // 1-based
	Time   sim.Time // the playhead on the step's run
	// Pending: the step asks a question the reader has not answered yet,
	// so what it asks about stays hidden (a comparison shows only its
	// first configuration).
	Pending bool
	// Zoom is the zoom's level and GPU: a strategy step drawn from a
	// node, a GPU or an SM (zoom.go) instead of its own picture.
	Zoom scenarios.Zoom
}

// At is the player's moment.
func At(p *scenarios.Player) Moment {
	return Moment{Lesson: p.Lesson(), Step: p.State().Step, Time: p.Time(), Pending: p.QuestionPending(), Zoom: p.State().Zoom}
}

// StepRun is the moment's step.
func (m Moment) StepRun() *scenarios.StepRun { return &m.Lesson.Steps[m.Step-1] }

// shows reports whether the step's show: line names view.
func (m Moment) shows(view string) bool {
	for _, v := range m.StepRun().Step.Show {
		if v == view {
			return true
		}
	}
	return false
}

// Frame is where and how a picture is drawn.
type Frame struct {
	Width, Height float32     // the canvas, device pixels
	Stage         render.Rect // the part of the canvas the picture may use
	Scale         float32     // text and stroke sizes: the device pixel ratio, × 1.5 in presentation mode
	Theme         render.Theme
	Lang          string // the reader's language, "en" or "zh"
}

// words are the canvas's words in each language, made once.
var words = map[string]render.Words{}

func init() {
	for _, lang := range i18n.Langs() {
		words[lang] = render.Words{Lang: lang, T: func(key string, args ...string) string { return i18n.T(lang, key, args...) }}
	}
}

// words are the frame's language's canvas words (English for a language
// the catalogue lacks).
func (f Frame) words() render.Words {
	if w, ok := words[f.Lang]; ok {
		return w
	}
	return words[i18n.Fallback]
}

// Picture builds a lesson's pictures and keeps, between frames, what they
// compute from a run alone. The zero Picture is ready to use; one Picture
// serves one page (it is not safe for concurrent use).
type Picture struct {
	timelines timelineCache
	faults    faultCache
	rings     ringCache
	numfmt    numfmtCache
	clusters  clusterCache
	moe       moeCache
	quant     quantCache
	long      longCache
	rack      rackCache
	scratch   render.List // a second picture before it joins the list
}

// builder draws one kind's pictures.
type builder func(p *Picture, dst render.List, m Moment, f Frame) render.List

// builders has one builder for every registered kind (scenarios/kinds.go).
var builders = map[string]builder{
	scenarios.KindCPUGPU:     buildCPUGPU,
	scenarios.KindLaunch:     buildLaunch,
	scenarios.KindMemwall:    buildMemwall,
	scenarios.KindRoofline:   buildRoofline,
	scenarios.KindFused:      buildFused,
	scenarios.KindAttention:  buildAttention,
	scenarios.KindNumfmt:     buildNumfmt,
	scenarios.KindPlan:       buildPlan,
	scenarios.KindCollective: buildCollective,
	scenarios.KindFabric:     buildFabric,
	scenarios.KindFaults:     buildFaults,
	scenarios.KindMoE:        buildMoE,
	scenarios.KindQuantize:   buildQuantize,
}

// Build is the picture of m in f, built over dst's storage (pass the
// previous frame's list to reuse it).
func (p *Picture) Build(dst render.List, m Moment, f Frame) render.List {
	if m.Lesson == nil || m.Step < 1 || m.Step > len(m.Lesson.Steps) {
		return empty(dst, f)
	}
	b, ok := builders[m.Lesson.Scenario.Kind]
	if !ok {
		return empty(dst, f)
	}
	if m.Zoom.Level != "" && m.Lesson.Scenario.Zooms() {
		if l, ok := p.buildZoom(dst, m, f); ok {
			return l
		}
	}
	return b(p, dst, m, f)
}

// HasBuilder reports whether kind has a picture builder.
func HasBuilder(kind string) bool {
	_, ok := builders[kind]
	return ok
}

// empty is a blank canvas.
func empty(dst render.List, f Frame) render.List {
	return render.List{Width: f.Width, Height: f.Height, Background: f.Theme.Background, Items: dst.Items[:0], Keys: dst.Keys[:0]}
}

// window is where the playhead is in the step's window: t the playhead in
// seconds and frac its share of the window; a still step (an empty
// window), or the window's end, is t = −1 (everything done) and frac = 1.
func (m Moment) window() (t, frac float64) {
	sr := m.StepRun()
	if sr.To > sr.From && m.Time < sr.To {
		return m.Time.Seconds(), float64(m.Time-sr.From) / float64(sr.To-sr.From)
	}
	return -1, 1
}
