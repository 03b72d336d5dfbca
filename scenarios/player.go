package scenarios

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/tinyjson"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// StepSeconds is how long, in wall-clock seconds at speed 1, a step's window
// takes to play, whatever its length in simulated time.
const StepSeconds = 6.0

// Speeds are the playback speeds a reader may choose.
var Speeds = []float64{0.25, 0.5, 1, 2, 4}

// Player is a lesson being watched: the state a URL fragment describes, the
// prepared engine runs, a playhead, and play/pause. It is plain Go — the
// page's wasm code drives it from DOM events and the JS API, and tests drive
// it directly. Every input that can be wrong returns an *InputError and
// leaves the player in its last good state.
type Player struct {
	st      State
	les     *Lesson
	t       sim.Time // playhead on the current step's run
	playing bool
	speed   float64
	errs    []*InputError
	rev     int // bumped on every change the page must show
	// answers are the reader's choices by step, for the configuration
	// they were given under (a knob change asks again).
	answers map[int]answer
	// answered are the answers given since the page last took them, to
	// post to a parent page (TakeAnswers).
	answered []AnswerEvent
	// reduced is step mode, for readers who ask for reduced motion: a
	// step opens on its final picture and playing jumps there at once,
	// with nothing animated in between.
	reduced bool
	plays   int // how many times playing has started
	// pending caches QuestionPending for the state it was worked out in
	// (a question is worded from the engine's numbers: too dear a frame).
	pending struct {
		rev, step int
		les       *Lesson
		lang      string
		valid, is bool
	}
}

type answer struct {
	choice int
	config string
}

// Event names the player reports to the page (and, later, to a parent
// frame).
const (
	EventStep     = "step"
	EventFinished = "finished"
)

// NewPlayer starts at the first lesson's first step with its defaults.
func NewPlayer() (*Player, error) {
	p, _, err := NewPlayerAt("")
	return p, err
}

// NewPlayerAt starts at the state a URL fragment describes, preparing the
// lesson once; the fragment's errors are reported as after
// ApplyFragment, and a configuration the engine refuses falls back to the
// lesson's defaults.
func NewPlayerAt(frag string) (*Player, []*InputError, error) {
	p := &Player{speed: 1}
	st, errs := ApplyFragment(DefaultState(), frag)
	les, perr := prepareState(st)
	if perr != nil {
		s, _ := Get(st.Scenario)
		st.Config = s.Defaults()
		var err error
		if les, err = prepareState(st); err != nil {
			return nil, nil, err
		}
		errs = append(errs, engineError(engineField(st.Scenario, perr), "", perr))
	}
	p.st, p.les = st, les
	p.t = p.step().From
	p.report(errs)
	return p, errs, nil
}

func prepareState(st State) (*Lesson, error) {
	s, ok := Get(st.Scenario)
	if !ok {
		return nil, fmt.Errorf("scenario %q not found", st.Scenario)
	}
	return Prepare(s, st.Config)
}

// adopt switches to st, re-running the engine when the lesson or its
// configuration changed, and keeps the playhead's relative position. When
// the engine rejects the configuration the player keeps its last good
// state and reports why.
func (p *Player) adopt(st State) *InputError {
	les := p.les
	if st.Scenario != p.st.Scenario || !st.Config.Equal(p.st.Config) {
		var err error
		les, err = prepareState(st)
		if err != nil {
			field := engineField(st.Scenario, err)
			e := engineError(field, "", err)
			e.Value = st.Config[field]
			return e
		}
	}
	stepChanged := st.Step != p.st.Step || st.Scenario != p.st.Scenario
	frac := 0.0
	if end := p.run().End(); end > 0 {
		frac = float64(p.t) / float64(end)
	}
	p.st, p.les = st, les
	if stepChanged {
		p.t = p.stepStart()
	} else {
		p.t = sim.Time(math.Round(frac * float64(p.run().End())))
	}
	p.rev++
	return nil
}

// engineField is the knob an engine's error names ("tp: 3 does not divide
// heads 64" → tp; CLI spellings with '-' match knobs with '_'), else
// "config".
func engineField(scenario string, err error) string {
	name, _, ok := strings.Cut(err.Error(), ":")
	if s, found := Get(scenario); ok && found {
		name = strings.ReplaceAll(strings.TrimSpace(name), "-", "_")
		if _, isKnob := s.Knob(name); isKnob {
			return name
		}
	}
	return "config"
}

func (p *Player) step() *StepRun { return &p.les.Steps[p.st.Step-1] }
func (p *Player) run() Run       { return p.step().Run }

// Rev changes whenever something the page shows has changed, except the
// playhead: Time moves every tick while playing, and the page updates its
// clock cheaply without redrawing narration, knobs and numbers.
func (p *Player) Rev() int { return p.rev }

// State is the player's fragment state (lesson, step, language, knobs).
func (p *Player) State() State { return p.st }

// Lesson is the prepared lesson.
func (p *Player) Lesson() *Lesson { return p.les }

// Scenario is the lesson's scenario.
func (p *Player) Scenario() *Scenario { return p.les.Scenario }

// Playing reports whether the playhead is moving.
func (p *Player) Playing() bool { return p.playing }

// Speed is the playback speed factor.
func (p *Player) Speed() float64 { return p.speed }

// Time is the playhead on the current step's run.
func (p *Player) Time() sim.Time { return p.t }

// Errors are the input errors of the last input that had any.
func (p *Player) Errors() []*InputError { return p.errs }

// StepRun is the current step with its run and window.
func (p *Player) StepRun() *StepRun { return p.step() }

// Run is the engine run the current step shows.
func (p *Player) Run() Run { return p.run() }

// Fragment is the URL fragment (without '#') for the current state.
func (p *Player) Fragment() string { return EncodeFragment(p.st) }

func (p *Player) report(errs []*InputError) {
	if len(errs) > 0 {
		p.errs = errs
		p.rev++
	}
}

// ClearErrors forgets the last input errors. Every input that succeeds
// does so: the error on screen is always about the latest input.
func (p *Player) ClearErrors() {
	if len(p.errs) > 0 {
		p.errs = nil
		p.rev++
	}
}

// ApplyFragment applies a URL fragment, field by field; bad fields keep
// their last good value and are reported.
func (p *Player) ApplyFragment(frag string) []*InputError {
	st, errs := ApplyFragment(p.st, frag)
	if err := p.adopt(st); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		p.ClearErrors()
	}
	p.report(errs)
	return errs
}

// Play starts the playhead. At the end of a step's window it moves on to
// the next step first; at the end of the last step (of the lesson, or of
// the embed's range) it replays the step.
func (p *Player) Play() {
	p.ClearErrors()
	if p.t >= p.step().To {
		if p.st.Step < p.LastStep() {
			p.Goto(p.st.Step + 1)
		} else {
			p.t = p.step().From
		}
	}
	if !p.playing {
		p.playing = true
		p.plays++
		p.rev++
	}
}

// Plays counts the times playing has started (Play when paused): the
// page restarts its frame-time means on each (state().perf).
func (p *Player) Plays() int { return p.plays }

// Pause stops the playhead.
func (p *Player) Pause() {
	p.ClearErrors()
	if p.playing {
		p.playing = false
		p.rev++
	}
}

// FirstStep and LastStep are the steps the player may show: the whole
// lesson, or the embed's range (steps=2-4).
func (p *Player) FirstStep() int {
	first, _ := p.st.Embed.Steps.Bounds(len(p.les.Steps))
	return first
}

// LastStep: see FirstStep.
func (p *Player) LastStep() int {
	_, last := p.st.Embed.Steps.Bounds(len(p.les.Steps))
	return last
}

// Goto moves to step n (1-based) at the start of its window; a step
// outside the embed's range is an error, as one outside the lesson.
func (p *Player) Goto(n int) *InputError {
	if n < 1 || n > len(p.les.Steps) {
		err := inputError("error.step", "step", strconv.Itoa(n), "max", strconv.Itoa(len(p.les.Steps)))
		p.report([]*InputError{err})
		return err
	}
	if n < p.FirstStep() || n > p.LastStep() {
		return p.report1(stepRangeError(strconv.Itoa(n), p.FirstStep(), p.LastStep()))
	}
	p.ClearErrors()
	st := p.st
	st.Config = st.Config.Clone()
	st.Step = n
	st.fitZoom(p.les.Scenario) // the step may place fewer GPUs
	p.adopt(st)
	p.t = p.stepStart()
	return nil
}

// stepStart is where a step opens: the start of its window, or its end
// in step mode.
func (p *Player) stepStart() sim.Time {
	if p.reduced {
		return p.step().To
	}
	return p.step().From
}

// SetReducedMotion turns step mode on or off. Turning it on shows the
// current step's final picture.
func (p *Player) SetReducedMotion(on bool) {
	if on == p.reduced {
		return
	}
	p.reduced = on
	if on {
		p.t = p.step().To
		p.playing = false
	}
	p.rev++
}

// ReducedMotion reports whether the player is in step mode.
func (p *Player) ReducedMotion() bool { return p.reduced }

// Step moves delta steps forward (or back), staying within the lesson
// (and the embed's range).
func (p *Player) Step(delta int) {
	n := min(max(p.st.Step+delta, p.FirstStep()), p.LastStep())
	if n != p.st.Step {
		p.Goto(n)
	}
}

// Seek puts the playhead at a fraction (0..1) of the current run.
func (p *Player) Seek(frac float64) {
	if math.IsNaN(frac) {
		return
	}
	frac = math.Max(0, math.Min(1, frac))
	p.t = sim.Time(math.Round(frac * float64(p.run().End())))
}

// SeekTime puts the playhead at a simulated time on the current run.
func (p *Player) SeekTime(t sim.Time) {
	if t < 0 {
		t = 0
	}
	if end := p.run().End(); t > end {
		t = end
	}
	p.t = t
}

// Set changes one setting by its fragment key: a knob of the lesson,
// "lang", "speed", "step" or "scenario".
func (p *Player) Set(key, value string) *InputError {
	if key == "speed" {
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		ok := err == nil
		if ok {
			ok = false
			for _, s := range Speeds {
				ok = ok || s == f
			}
		}
		if !ok {
			e := inputError("error.enum", "speed", value, "allowed", listArg([]string{"0.25", "0.5", "1", "2", "4"}))
			p.report([]*InputError{e})
			return e
		}
		p.speed = f
		p.ClearErrors()
		p.rev++
		return nil
	}
	errs := p.ApplyFragment(escapeKV(key) + "=" + escapeKV(value))
	if len(errs) > 0 {
		return errs[0]
	}
	p.ClearErrors()
	return nil
}

func escapeKV(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "=", "%3D", "#", "%23")
	return r.Replace(s)
}

// Advance moves the playhead by wall seconds of playback (the page passes
// one fixed tick, 1/60 s) and reports what happened: the step's window
// ended (the player pauses there so the reader can read) or the lesson
// finished. A playhead the reader scrubbed outside the window plays on to
// the end of the run.
func (p *Player) Advance(wall float64) []string {
	if !p.playing || !(wall > 0) {
		return nil
	}
	sr := p.step()
	from, end := sr.From, sr.To
	if p.t < from || p.t > end {
		from, end = 0, p.run().End()
	}
	rate := float64(end-from) / StepSeconds * p.speed
	p.t += sim.Time(math.Round(wall * rate))
	if p.reduced {
		p.t = end // step mode: no frames in between
	}
	if p.t < end {
		return nil
	}
	p.t = end
	p.playing = false
	p.rev++
	if p.st.Step >= p.LastStep() {
		return []string{EventFinished}
	}
	return []string{EventStep}
}

// ErrorInfo is an input error as the page's state() reports it.
type ErrorInfo struct {
	Field   string `json:"field"`
	Value   string `json:"value"`
	Message string `json:"message"`
}

// PlayerState is what the page's window.gpuscope.state() returns (less the
// page's own perf and ready fields). Its JSON names are a contract.
type PlayerState struct {
	Scenario string      `json:"scenario"`
	Step     int         `json:"step"`
	Steps    int         `json:"steps"`
	StepID   string      `json:"step_id"`
	Playing  bool        `json:"playing"`
	TimeS    float64     `json:"time_s"`
	EndS     float64     `json:"end_s"`
	FromS    float64     `json:"from_s"`
	ToS      float64     `json:"to_s"`
	Speed    float64     `json:"speed"`
	Lang     string      `json:"lang"`
	Config   StateConfig `json:"config"`
	Metrics  any         `json:"metrics"`
	Error    *string     `json:"error"`
	Errors   []ErrorInfo `json:"errors"`
	Fragment string      `json:"fragment"`
	// Question is the step's prediction question, null when it asks
	// none; its answer and the numbers wait until the reader has chosen.
	Question *QuestionState `json:"question"`
	// ReducedMotion is step mode: each step shown at its end, nothing
	// animated (the reader or the embed asked for reduced motion).
	ReducedMotion bool `json:"reduced_motion"`
	// Zoom is the zoom's level and GPU, in the lessons that have one.
	Zoom *ZoomState `json:"zoom,omitempty"`
}

// ZoomState is the zoom as state() reports it.
type ZoomState struct {
	Level string `json:"level"` // cluster, node, gpu or sm
	GPU   int    `json:"gpu"`
	// Zoomed in: the moment the zoom shows (seconds on the plan's time
	// line) and what the GPU does then — its stage, the time line's
	// block ("" waiting), the layer (−1 none) and the kernel ("" none).
	TimeS  float64 `json:"time_s,omitempty"`
	Stage  int     `json:"stage,omitempty"`
	Block  string  `json:"block,omitempty"`
	Layer  int     `json:"layer,omitempty"`
	Kernel string  `json:"kernel,omitempty"`
}

// StateConfig is the lesson's configuration as state() reports it, by
// the fragment's keys: the value of an int or float knob as a JSON
// number, as set takes it ({"gpus": 16}); an enum's (even one whose
// choices are numbers, such as a strategy lesson's gpus) and a byte
// size's as the string the fragment writes ("nvlink4", "268435456").
type StateConfig map[string]any

// stateConfig is the player's configuration as a StateConfig.
func (p *Player) stateConfig() StateConfig {
	out := make(StateConfig, len(p.st.Config))
	for name, v := range p.st.Config {
		out[name] = v
		k, ok := p.les.Scenario.Knob(name)
		if !ok {
			continue
		}
		switch k.Kind {
		case KnobInt:
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[name] = n
			}
		case KnobFloat:
			if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				out[name] = f
			}
		}
	}
	return out
}

// QuestionState is a step's question as the page shows it.
type QuestionState struct {
	Question
	Answered bool   `json:"answered"`
	Choice   int    `json:"choice"`  // the reader's, −1 before
	Correct  bool   `json:"correct"` // once answered
	Answer   int    `json:"answer"`  // the right choice, −1 before answering
	Reveal   string `json:"reveal"`  // "" before answering
}

// Question is the current step's question with the reader's answer.
func (p *Player) Question() (*QuestionState, bool) {
	q, ok := p.les.Question(p.st.Step, p.st.Lang)
	if !ok {
		return nil, false
	}
	qs := &QuestionState{Question: q, Choice: -1, Answer: -1}
	if a, ok := p.answers[p.st.Step]; ok && a.config == EncodeFragment(State{Scenario: p.st.Scenario, Step: p.st.Step, Config: p.st.Config}) {
		qs.Answered, qs.Choice, qs.Correct, qs.Answer, qs.Reveal = true, a.choice, a.choice == q.Answer, q.Answer, q.Reveal
	}
	return qs, true
}

// QuestionPending reports whether the current step asks a question the
// reader has not answered yet — Question's !Answered, remembered until
// the state changes, so that a picture may ask every frame.
func (p *Player) QuestionPending() bool {
	c := &p.pending
	if c.valid && c.rev == p.rev && c.step == p.st.Step && c.les == p.les && c.lang == p.st.Lang {
		return c.is
	}
	q, ok := p.Question()
	c.rev, c.step, c.les, c.lang, c.valid, c.is = p.rev, p.st.Step, p.les, p.st.Lang, true, ok && !q.Answered
	return c.is
}

// Answer records the reader's choice (0-based) for the current step's
// question.
func (p *Player) Answer(choice int) *InputError {
	q, ok := p.les.Question(p.st.Step, p.st.Lang)
	if !ok {
		return p.report1(inputError("error.no_question", "choice", strconv.Itoa(choice)))
	}
	if choice < 0 || choice >= len(q.Choices) {
		return p.cmdErr("choice", strconv.Itoa(choice), "error.allowed.range", "min", "0", "max", strconv.Itoa(len(q.Choices)-1))
	}
	if p.answers == nil {
		p.answers = map[int]answer{}
	}
	p.answers[p.st.Step] = answer{choice, EncodeFragment(State{Scenario: p.st.Scenario, Step: p.st.Step, Config: p.st.Config})}
	if len(p.answered) < maxAnswered {
		p.answered = append(p.answered, AnswerEvent{
			Source: "gpuscope", Version: MessageVersion, Type: "answer",
			Lesson: p.st.Scenario, Step: p.st.Step, StepID: p.step().Step.ID,
			Question: q.ID, Choice: choice, Correct: choice == q.Answer,
		})
	}
	p.rev++
	p.ClearErrors()
	return nil
}

// maxAnswered bounds the answers kept for a page that never takes them.
const maxAnswered = 64

// TakeAnswers returns the answers given since it was last called, oldest
// first, and forgets them: the page posts each to the parent page once
// (an "answer" event), stamping its time.
func (p *Player) TakeAnswers() []AnswerEvent {
	out := p.answered
	p.answered = nil
	return out
}

// Report returns the player's state for the page.
func (p *Player) Report() PlayerState {
	sr := p.step()
	ps := PlayerState{
		Scenario: p.st.Scenario,
		Step:     p.st.Step,
		Steps:    len(p.les.Steps),
		StepID:   sr.Step.ID,
		Playing:  p.playing,
		TimeS:    p.t.Seconds(),
		EndS:     p.run().End().Seconds(),
		FromS:    sr.From.Seconds(),
		ToS:      sr.To.Seconds(),
		Speed:    p.speed,
		Lang:     p.st.Lang,
		Config:   p.stateConfig(),
		Metrics:  p.les.Metrics(p.st.Step),
		Errors:   []ErrorInfo{},
		Fragment: p.Fragment(),

		ReducedMotion: p.reduced,
	}
	if p.les.Scenario.Zooms() {
		ps.Zoom = &ZoomState{Level: p.st.Zoom.At(), GPU: p.st.Zoom.GPU}
		p.zoomReport(ps.Zoom)
	}
	if q, ok := p.Question(); ok {
		ps.Question = q
	}
	if len(p.errs) > 0 {
		msg := p.ErrorText(p.st.Lang)
		ps.Error = &msg
		for _, e := range p.errs {
			ps.Errors = append(ps.Errors, ErrorInfo{Field: e.Field, Value: e.Value, Message: e.Localize(p.st.Lang)})
		}
	}
	return ps
}

// ErrorText is the last input errors in one language, one per line.
func (p *Player) ErrorText(lang string) string {
	var lines []string
	for _, e := range p.errs {
		msg := e.Localize(lang)
		if v, ok := p.keptValue(e.Field); ok {
			msg += i18n.T(lang, "error.kept", "field", e.Field, "value", v)
		}
		lines = append(lines, msg)
	}
	return strings.Join(lines, "\n")
}

// Command runs a command given as JSON, as the page's
// window.gpuscope.command() and (later) postMessage receive them:
//
//	{"type":"play"} {"type":"pause"}
//	{"type":"step"} or {"type":"step","delta":-1}
//	{"type":"goto","step":3} or {"type":"goto","time_s":0.0004}
//	{"type":"set","gpus":16,"lang":"zh"} or {"type":"set","key":"gpus","value":"16"}
//
// A malformed command changes nothing and returns an error naming the
// field and what is allowed.
func (p *Player) Command(raw []byte) *InputError {
	m, err := parseObject(raw)
	if err != nil || m == nil {
		return p.cmdErr("command", string(raw), "error.allowed.json_object")
	}
	typ, _ := m["type"].(string)
	switch typ {
	case "play":
		p.Play()
	case "pause":
		p.Pause()
	case "step":
		d := 1
		if v, ok := m["delta"]; ok {
			f, ok := v.(float64)
			if !ok || f != math.Trunc(f) || math.Abs(f) > 1000 {
				return p.cmdErr("delta", fmt.Sprint(v), "error.allowed.delta")
			}
			d = int(f)
		}
		p.Step(d)
	case "goto":
		if v, ok := m["time_s"]; ok {
			f, ok := v.(float64)
			if !ok || f < 0 || math.IsInf(f, 0) {
				return p.cmdErr("time_s", fmt.Sprint(v), "error.allowed.time_s")
			}
			p.SeekTime(sim.FromSeconds(f))
			return nil
		}
		v, ok := m["step"]
		f, isNum := v.(float64)
		if s, isStr := v.(string); isStr {
			n, err := strconv.Atoi(s)
			f, isNum = float64(n), err == nil
		}
		if !ok || !isNum || f != math.Trunc(f) {
			return p.cmdErr("step", fmt.Sprint(v), "error.allowed.range", "min", strconv.Itoa(p.FirstStep()), "max", strconv.Itoa(p.LastStep()))
		}
		if f < 1 || f > float64(len(p.les.Steps)) {
			return p.Goto(int(math.Max(-1, math.Min(f, 1e6))))
		}
		return p.Goto(int(f))
	case "set":
		var pairs [][2]string
		if k, ok := m["key"].(string); ok {
			pairs = append(pairs, [2]string{k, valueText(m["value"])})
		} else {
			for _, k := range sortedKeys(m) {
				if k != "type" {
					pairs = append(pairs, [2]string{k, valueText(m[k])})
				}
			}
		}
		if len(pairs) == 0 {
			return p.cmdErr("set", string(raw), "error.allowed.set")
		}
		// The knobs together, as one fragment: values valid only in
		// company (DeepSeek-V3 and EP 64; Mixtral has 8 experts) are
		// checked against each other, not one at a time in key order.
		var frag []string
		for _, kv := range pairs {
			if kv[0] == "speed" {
				if err := p.Set(kv[0], kv[1]); err != nil {
					return err
				}
				continue
			}
			frag = append(frag, escapeKV(kv[0])+"="+escapeKV(kv[1]))
		}
		if len(frag) > 0 {
			if errs := p.ApplyFragment(strings.Join(frag, "&")); len(errs) > 0 {
				return errs[0]
			}
			p.ClearErrors()
		}
	case "answer":
		f, ok := m["choice"].(float64)
		if !ok || f != math.Trunc(f) {
			return p.cmdErr("choice", fmt.Sprint(m["choice"]), "error.allowed.choice")
		}
		return p.Answer(int(f))
	case "hf-config":
		text, _ := m["json"].(string)
		return p.HFConfig(text)
	case "zoom":
		return p.zoomCommand(m)
	default:
		return p.cmdErr("type", fmt.Sprint(m["type"]), "error.allowed.list", "list", listArg([]string{"play", "pause", "step", "goto", "set", "answer", "hf-config", "zoom"}))
	}
	return nil
}

// zoomCommand is {"type":"zoom","level":"sm"}, with "gpu": N for which
// GPU, or "delta": 1 (in) or -1 (out) for the next level: applied as the
// fragment's zoom and gpu keys, so that it is checked as they are.
func (p *Player) zoomCommand(m map[string]any) *InputError {
	var frag []string
	if v, ok := m["level"]; ok {
		s, isStr := v.(string)
		if !isStr {
			return p.cmdErr("level", fmt.Sprint(v), "error.allowed.list", "list", listArg(ZoomLevels))
		}
		frag = append(frag, "zoom="+escapeKV(s))
	}
	if v, ok := m["delta"]; ok {
		f, isNum := v.(float64)
		if !isNum || (f != 1 && f != -1) {
			return p.cmdErr("delta", fmt.Sprint(v), "error.allowed.delta")
		}
		if !p.les.Scenario.Zooms() {
			return p.report1(inputError("error.zoom_lesson", "zoom", fmt.Sprint(v)))
		}
		frag = append(frag, "zoom="+ZoomLevels[min(max(slices.Index(ZoomLevels, p.st.Zoom.At())+int(f), 0), len(ZoomLevels)-1)])
	}
	if v, ok := m["gpu"]; ok {
		f, isNum := v.(float64)
		if s, isStr := v.(string); isStr && isIndex(s) {
			n, _ := strconv.Atoi(strings.TrimSpace(s))
			f, isNum = float64(n), true
		}
		if !isNum || f != math.Trunc(f) || f < 0 || f > 1e7 {
			return p.report1(inputError("error.zoom_gpu", "gpu", fmt.Sprint(v), "max", strconv.Itoa(max(0, p.st.zoomGPUs(p.les.Scenario)-1))))
		}
		frag = append(frag, "gpu="+strconv.Itoa(int(f)))
	}
	if len(frag) == 0 {
		return p.cmdErr("zoom", "", "error.allowed.zoom")
	}
	if errs := p.ApplyFragment(strings.Join(frag, "&")); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// HFConfig sets the lesson's model to a pasted Hugging Face config.json:
// model=custom and its sizes (layers, hidden, heads, kv_heads, ffn, vocab,
// ffn_kind; head_dim and a mixture of experts' experts, top_k,
// expert_ffn, shared_ffn, dense_layers; latent attention's kv_lora_rank,
// q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim and
// mtp_layers), keeping the lesson's sequence length. Latent attention
// (DeepSeek-V2, V3) is refused with its sizes in a lesson without those
// knobs and in the planner (its search too slow for the page); so is a
// mixture with MoE layers only every k-th (Llama 4 Maverick), which no
// lesson's knobs place. A config that does not parse, or a lesson without a model of the reader's own, changes nothing
// and reports why.
func (p *Player) HFConfig(text string) *InputError {
	s := p.les.Scenario
	if k, ok := s.Knob("model"); !ok || !slices.Contains(k.Values, "custom") {
		return p.report1(inputError("error.hf_lesson", "hf_config", ""))
	}
	seq := p.st.Config.IntOf("seq")
	if seq <= 0 {
		seq = 4096 // not the config's max_position_embeddings: that is inference's reach, not a training length
	}
	m, err := model.FromHFConfig([]byte(text), seq)
	if err != nil {
		e := engineError("hf_config", shown(text), err)
		p.report([]*InputError{e})
		return e
	}
	if m.MoEEvery > 1 {
		// Read right, but no lesson's knobs place MoE layers every k-th.
		e := inputError("error.hf_moe_every", "hf_config", shown(text), "name", m.Name, "every", strconv.Itoa(m.MoEEvery))
		e.params = []paramArg{{"total", m.Params()}, {"active", m.ActiveParams()}}
		return p.report1(e)
	}
	_, holds := p.st.Config["kv_lora_rank"]
	if m.MLA() && !holds {
		// Read right, but a lesson without latent sizes cannot hold it.
		e := inputError("error.hf_mla", "hf_config", shown(text), "name", m.Name)
		e.params = []paramArg{{"total", m.Params()}, {"active", m.ActiveParams()}}
		return p.report1(e)
	}
	// Every shape field, a dense model's experts 0 and a model without
	// latent attention's latent sizes 0: a paste replaces the last model
	// whole.
	frag := fmt.Sprintf("model=custom&layers=%d&hidden=%d&heads=%d&kv_heads=%d&ffn=%d&vocab=%d&ffn_kind=%s&seq=%d"+
		"&head_dim=%d&experts=%d&top_k=%d&expert_ffn=%d&shared_ffn=%d&dense_layers=%d",
		m.Layers, m.Hidden, m.Heads, m.KVHeads, m.FFNSize, m.Vocab, m.FFN, m.Seq,
		m.HeadSize, m.Experts, m.TopK, m.ExpertFFN, m.SharedFFN, m.DenseLayers)
	if holds {
		frag += "&kv_lora_rank=" + strconv.Itoa(m.KVLoRA) + "&q_lora_rank=" + strconv.Itoa(m.QLoRA) + "&qk_nope_head_dim=" + strconv.Itoa(m.QKNope) +
			"&qk_rope_head_dim=" + strconv.Itoa(m.QKRope) + "&v_head_dim=" + strconv.Itoa(m.VHead) + "&mtp_layers=" + strconv.Itoa(m.MTPLayers)
	}
	if errs := p.ApplyFragment(frag); len(errs) > 0 {
		return errs[0]
	}
	p.ClearErrors()
	return nil
}

// report1 reports one error and returns it.
func (p *Player) report1(e *InputError) *InputError {
	p.report([]*InputError{e})
	return e
}

// cmdErr is the error of a command's bad field: allowedKey words what
// is allowed (an error.allowed.* key), its placeholders filled from
// args.
func (p *Player) cmdErr(field, value, allowedKey string, args ...string) *InputError {
	e := inputError("error.command_field", field, value, args...)
	e.Local = []string{"allowed", allowedKey}
	p.report([]*InputError{e})
	return e
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := tinyjson.Marshal(v)
	return string(b)
}

// parseObject reads a JSON object as encoding/json.Unmarshal does into a
// map[string]any: nil for null, an error for anything but an object.
func parseObject(raw []byte) (map[string]any, error) {
	v, err := tinyjson.Parse(raw)
	if err != nil {
		return nil, err
	}
	return v.Object()
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// Narration is the current step's title and text in the player's language,
// with the engine's numbers filled in.
func (p *Player) Narration() (title, text string) {
	return p.les.Narration(p.st.Step, p.st.Lang)
}

// keptValue is the value a field kept after a bad input, for the error
// message ("— kept gpus = 8").
func (p *Player) keptValue(field string) (string, bool) {
	switch field {
	case "scenario":
		return p.st.Scenario, true
	case "step":
		return strconv.Itoa(p.st.Step), true
	case "steps":
		return strconv.Itoa(p.FirstStep()) + "-" + strconv.Itoa(p.LastStep()), true
	case "lang":
		return p.st.Lang, true
	case "speed":
		return strconv.FormatFloat(p.speed, 'f', -1, 64), true
	}
	v, ok := p.st.Config[field]
	return v, ok
}

// Description is a text account of what the picture shows at this step,
// for screen readers (the page puts it in a live region, updated per step,
// not per frame): the step, its title and the step's numbers, or a note
// that they wait for the reader's prediction. Its punctuation comes from
// the catalogue (ui.desc_*), full-width in Chinese.
func (p *Player) Description() string {
	lang := p.st.Lang
	t := func(key string, args ...string) string { return i18n.T(lang, key, args...) }
	title, _ := p.Narration()
	head := t("ui.desc_head", "step", t("ui.step", "n", strconv.Itoa(p.st.Step), "total", strconv.Itoa(len(p.les.Steps))),
		"title", sentence(lang, title))
	if q, ok := p.Question(); ok && !q.Answered {
		return head + t("ui.predict_locked")
	}
	head += p.zoomDescription(lang)
	tb := p.les.Table(p.st.Step, lang)
	var rows []string
	for _, r := range tb.Rows {
		if r.Key == "command" {
			continue // a command line to type, not something the picture shows
		}
		var cells []string
		for j, c := range r.Cells {
			if len(tb.ColumnKeys) > 1 && j+1 < len(tb.Columns) {
				c = t("ui.desc_cell", "column", tb.Columns[j+1], "value", c)
			}
			cells = append(cells, c)
		}
		rows = append(rows, t("ui.desc_row", "label", r.Label, "cells", strings.Join(cells, t("ui.desc_cell_sep"))))
	}
	if len(rows) == 0 {
		return head
	}
	return head + sentence(lang, strings.Join(rows, t("ui.desc_row_sep")))
}

// sentence ends s with a full stop in lang, unless it ends with one
// already (a title that asks a question).
func sentence(lang, s string) string {
	if s == "" || strings.ContainsRune(".?!。？！", []rune(s)[len([]rune(s))-1]) {
		return s
	}
	return s + i18n.T(lang, "ui.full_stop")
}
