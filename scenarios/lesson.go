package scenarios

import (
	"fmt"
	"strings"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Run is one engine run a step plays: a time line from 0 to End with named
// marks (see ParseMark). A lesson without a time line (a calculator, a
// chart) has End 0 and every mark at 0.
type Run interface {
	End() sim.Time
	Mark(name string) (sim.Time, bool)
}

// Lesson is a scenario prepared for one configuration: every step's engine
// run with the step's window on its time line. It is what the page plays
// and what `gpuscope scenario run` prints.
type Lesson struct {
	Scenario *Scenario
	Config   Config
	Steps    []StepRun
	engine   lessonEngine
}

// StepRun is one step of a prepared lesson.
type StepRun struct {
	Step     Step
	Config   Config // the lesson's configuration with the step's set: lines applied
	Run      Run
	From, To sim.Time // the window the step plays, on Run's time line
}

// lessonEngine is what one kind of engine adds to a prepared lesson: the
// numbers, the narration's placeholders and the table the page shows.
// Each kind implements it in its own file (kind_collective.go, …).
type lessonEngine interface {
	// metrics are the numbers of a step (1-based), with the JSON names
	// of the matching CLI command.
	metrics(les *Lesson, step int) any
	// narration are the name/value pairs a step's text may quote,
	// formatted for reading in lang.
	narration(les *Lesson, step int, lang string) []string
	// table is the numbers table of a step in a language.
	table(les *Lesson, step int, lang string) Table
	// live is a line of numbers at time t of a step ("" for none).
	live(les *Lesson, step int, t sim.Time, lang string) string
}

// Table is a numbers table: columns (the first labels the rows), rows of
// cells, and where each row's figure comes from.
type Table struct {
	Columns []string
	// ColumnKeys name the value columns for data attributes and tests
	// (e.g. "ring", "star"); Current is the key of the column on screen.
	ColumnKeys []string
	Current    string
	Rows       []TableRow
}

// TableRow is one quantity.
type TableRow struct {
	Key    string // the metric's JSON name
	Label  string
	Cells  []string // one per ColumnKeys
	Source string   // "" when there is nothing to add
	// Action, when set, makes the row's label a button that sets a knob
	// (the planner's ranked plans: rank = N shows that plan).
	Action *Assignment
}

// Prepare runs the engine for every step of s under cfg, as s's kind
// prepares it. It returns an error, not a panic, for a configuration the
// engine rejects.
func Prepare(s *Scenario, cfg Config) (*Lesson, error) {
	k, ok := KindOf(s.Kind)
	if !ok {
		return nil, fmt.Errorf("scenario %s: kind %q is not registered (kinds: %s)", s.ID, s.Kind, strings.Join(KindNames(), ", "))
	}
	return k.prepare(s, cfg)
}

// stepWindows fills the steps of les with runs from run (which may share
// them) and their windows. A mark a run lacks (say round:5 with 2 GPUs)
// plays the whole run rather than failing the lesson.
func (les *Lesson) stepWindows(run func(Config) (Run, error)) error {
	return les.stepWindowsOf(func(_ Step, c Config) (Run, error) { return run(c) })
}

// stepWindowsOf is stepWindows for engines whose run depends on the step
// itself (its show: line picks the picture), not only its configuration.
func (les *Lesson) stepWindowsOf(run func(Step, Config) (Run, error)) error {
	for i, st := range les.Scenario.Steps {
		c := les.Scenario.StepConfig(les.Config, i+1)
		r, err := run(st, c)
		if err != nil {
			return err
		}
		from, ok1 := r.Mark(st.From)
		to, ok2 := r.Mark(st.To)
		if !ok1 || !ok2 {
			from, to = 0, r.End()
		}
		if to < from {
			to = from
		}
		les.Steps = append(les.Steps, StepRun{Step: st, Config: c, Run: r, From: from, To: to})
	}
	return nil
}

func clampStep(les *Lesson, step int) int {
	if step < 1 || step > len(les.Steps) {
		return 1
	}
	return step
}

// Metrics returns the numbers shown during step (1-based), under the CLI's
// JSON names.
// StepNumber is the 1-based number of the step whose id is id; 0 when
// the lesson has none.
func (les *Lesson) StepNumber(id string) int {
	for i, sr := range les.Steps {
		if sr.Step.ID == id {
			return i + 1
		}
	}
	return 0
}

func (les *Lesson) Metrics(step int) any { return les.engine.metrics(les, clampStep(les, step)) }

// StepNarrationArgs are the numbers step (1-based) may quote, by
// placeholder name, formatted for reading in lang: the step's own numbers
// where its kind has them, else the lesson's.
func (les *Lesson) StepNarrationArgs(step int, lang string) []string {
	return les.engine.narration(les, clampStep(les, step), lang)
}

// Narration is step's (1-based) title and text in lang with the engine's
// numbers filled in: what the page shows (Player.Narration) and what
// gpuscope scenario run prints. A step whose plan does not fit its GPUs
// never runs, and its text does not say that it does (unfitText).
func (les *Lesson) Narration(step int, lang string) (title, text string) {
	sr := les.Steps[clampStep(les, step)-1]
	st := sr.Step
	args := les.StepNarrationArgs(step, lang)
	title, text = i18n.T(lang, st.Title, args...), i18n.T(lang, st.Text, args...)
	if r, ok := sr.Run.(*PlanRun); ok && !r.Result.Memory.Fits {
		text = unfitText(lang, st.Text, text, args)
	}
	return title, text
}

// Table is the numbers table of a step in a language.
func (les *Lesson) Table(step int, lang string) Table {
	return les.engine.table(les, clampStep(les, step), lang)
}

// Live is a line of numbers at time t of a step, in a language.
func (les *Lesson) Live(step int, t sim.Time, lang string) string {
	return les.engine.live(les, clampStep(les, step), t, lang)
}

// startEnd is Mark for runs whose only marks are "start" (0) and "end".
func startEnd(name string, end sim.Time) (sim.Time, bool) {
	switch name {
	case "start":
		return 0, true
	case "end":
		return end, true
	}
	return 0, false
}

// prepareWith is the preparer of an engine whose steps each need one run
// of their configuration and nothing lesson-wide beyond the engine part
// newEngine makes.
func prepareWith(newEngine func() lessonEngine, run func(Config) (Run, error)) func(*Scenario, Config) (*Lesson, error) {
	return func(s *Scenario, cfg Config) (*Lesson, error) {
		les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: newEngine()}
		if err := les.stepWindows(run); err != nil {
			return nil, err
		}
		return les, nil
	}
}

// Question is a step's prediction question in the reader's language
// (predict: in a scenario file): the engine words it from the live
// configuration and computes the answer, so it stays right when knobs
// change.
type Question struct {
	ID      string   `json:"id"`
	Prompt  string   `json:"prompt"`
	Choices []string `json:"choices"`
	Answer  int      `json:"-"` // index into Choices
	Reveal  string   `json:"-"` // the answer, explained, once the reader has chosen
}
