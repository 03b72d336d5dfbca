package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Assignment is one "knob=value" of a step's set: line; Value is canonical.
type Assignment struct{ Knob, Value string }

// Step is one narrated step of a lesson. Title and Text are i18n keys; From
// and To are marks on the engine trace (see ParseMark); Hide names knobs the
// page hides during the step; Checkpoints names the metrics a golden test
// records for it.
type Step struct {
	ID, Title, Text string
	Set             []Assignment
	From, To        string
	Hide            []string
	Show            []string // extra views on the picture, e.g. time-vs-n
	Checkpoints     []string
	// Predict names the question the step asks before it shows the
	// answer (the engine words it and computes the answer).
	Predict string
	// SamePicture: the step shows the previous step's picture on purpose
	// (picture: same) — its point is in the narration or the numbers.
	SamePicture bool
	Line        int
}

// Scenario is a loaded, checked lesson. Title and Summary are i18n keys;
// Kind names its kind (kinds.go); File is the name it was loaded from.
type Scenario struct {
	ID, Title, Summary, Kind, File string
	Knobs                          []Knob
	Steps                          []Step
}

// reserved are fragment keys a knob may not take as its name.
var reserved = append([]string{"scenario", "step", "lang", "zoom"}, embedKeys...)

// Load reads and checks a scenario file. file names it in error messages.
// Every problem found is a *FileError; when there are several, they are
// joined with errors.Join in line order (use errors.As to get the first).
func Load(file string, src []byte) (*Scenario, error) {
	l := &loader{file: file, s: &Scenario{File: file}, seen: map[string]int{}}
	lines := strings.Split(string(src), "\n")
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimSuffix(raw, "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		line = stripComment(line)
		if line == "" {
			continue
		}
		l.line(n, line)
	}
	l.finish()
	switch len(l.errs) {
	case 0:
		return l.s, nil
	case 1:
		return nil, l.errs[0]
	}
	errs := make([]error, len(l.errs))
	for i, e := range l.errs {
		errs[i] = e
	}
	return nil, errors.Join(errs...)
}

// stripComment drops a '#' comment (at the start of the line or after a
// space) and surrounding spaces.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
			break
		}
	}
	return strings.TrimSpace(line)
}

type loader struct {
	file string
	s    *Scenario
	errs []*FileError
	seen map[string]int // header directive -> line
	step *Step          // the step being read, nil in the header
	// per step: directive -> line, for the single-valued ones
	stepSeen map[string]int
}

func (l *loader) fail(line int, field, format string, args ...any) {
	l.errs = append(l.errs, &FileError{File: l.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

var (
	// kind: names the lesson's kind; engine: is its older spelling, still
	// read.
	headerDirectives = []string{"scenario", "title", "summary", "kind", "engine", "knob"}
	stepDirectives   = []string{"title", "text", "set", "from", "to", "hide", "show", "checkpoint", "predict", "picture"}
)

func (l *loader) line(n int, line string) {
	name, rest, ok := strings.Cut(line, ":")
	name, rest = strings.TrimSpace(name), strings.TrimSpace(rest)
	if !ok || !isIdent(name) {
		field, _, _ := strings.Cut(line, " ")
		l.fail(n, field, "not a directive (want name: value)")
		return
	}
	if name == "step" {
		l.openStep(n, rest)
		return
	}
	if l.step == nil {
		if !slices.Contains(headerDirectives, name) {
			if slices.Contains(stepDirectives, name) {
				l.fail(n, name, "outside a step (put it after a step: line)")
			} else {
				l.fail(n, name, "unknown directive (allowed: %s, step)", strings.Join(headerDirectives, ", "))
			}
			return
		}
		l.header(n, name, rest)
		return
	}
	if !slices.Contains(stepDirectives, name) {
		if slices.Contains(headerDirectives, name) {
			l.fail(n, name, "must come before the first step")
		} else {
			l.fail(n, name, "unknown directive in a step (allowed: %s)", strings.Join(stepDirectives, ", "))
		}
		return
	}
	l.stepLine(n, name, rest)
}

// once checks that a single-valued directive appears once in seen and
// holds exactly one word.
func (l *loader) once(seen map[string]int, n int, name, rest string) bool {
	if first, dup := seen[name]; dup {
		l.fail(n, name, "given twice (first on line %d)", first)
		return false
	}
	seen[name] = n
	if rest == "" {
		l.fail(n, name, "missing value")
		return false
	}
	if strings.ContainsAny(rest, " \t") {
		l.fail(n, name, "%q: want a single word", rest)
		return false
	}
	return true
}

// key checks an i18n key.
func (l *loader) key(n int, field, key string) bool {
	if missingKey(key) {
		l.fail(n, field, "unknown i18n key %s (add it to scenarios/i18n/en.txt and zh.txt)", key)
		return false
	}
	return true
}

func (l *loader) header(n int, name, rest string) {
	if name == "knob" {
		l.knob(n, rest)
		return
	}
	field := name // as the file spells it
	if name == "engine" {
		name = "kind"
	}
	if !l.once(l.seen, n, name, rest) {
		return
	}
	switch name {
	case "scenario":
		if !isID(rest) {
			l.fail(n, name, "%q: want lower-case letters, digits and '-'", rest)
			return
		}
		l.s.ID = rest
	case "title":
		if l.key(n, name, rest) {
			l.s.Title = rest
		}
	case "summary":
		if l.key(n, name, rest) {
			l.s.Summary = rest
		}
	case "kind":
		if _, ok := KindOf(rest); !ok {
			l.fail(n, field, "unknown kind %q (kinds: %s)", rest, strings.Join(KindNames(), ", "))
			return
		}
		l.s.Kind = rest
	}
}

func (l *loader) knob(n int, rest string) {
	f := strings.Fields(rest)
	if len(f) < 2 {
		l.fail(n, "knob", "want: knob: NAME KIND option=value ...")
		return
	}
	k := Knob{Name: f[0], Line: n}
	if !isIdent(k.Name) {
		l.fail(n, "knob", "%q: a knob name is lower-case letters, digits and '_'", k.Name)
		return
	}
	if slices.Contains(reserved, k.Name) {
		l.fail(n, "knob", "%s: the name is reserved for the URL fragment", k.Name)
		return
	}
	if prev, ok := l.s.Knob(k.Name); ok {
		l.fail(n, "knob", "%s: declared twice (first on line %d)", k.Name, prev.Line)
		return
	}
	kind := slices.Index(knobKindNames, f[1])
	if kind < 0 {
		l.fail(n, "knob", "%s: unknown kind %q (allowed: %s)", k.Name, f[1], strings.Join(knobKindNames, ", "))
		return
	}
	k.Kind = KnobKind(kind)
	opts := map[string]string{}
	for _, o := range f[2:] {
		name, value, ok := strings.Cut(o, "=")
		allowed := []string{"min", "max", "default", "label"}
		if k.Kind == KnobEnum {
			allowed = []string{"values", "default", "label"}
		}
		switch {
		case !ok || value == "":
			l.fail(n, "knob", "%s: %q: want option=value", k.Name, o)
			return
		case !slices.Contains(allowed, name):
			l.fail(n, "knob", "%s: unknown option %q for a %s knob (allowed: %s)", k.Name, name, k.Kind, strings.Join(allowed, ", "))
			return
		case opts[name] != "":
			l.fail(n, "knob", "%s: option %s given twice", k.Name, name)
			return
		}
		opts[name] = value
	}
	var need []string
	if k.Kind == KnobEnum {
		need = []string{"values", "default", "label"}
	} else {
		need = []string{"min", "max", "default", "label"}
	}
	for _, o := range need {
		if opts[o] == "" {
			l.fail(n, "knob", "%s: missing option %s=", k.Name, o)
			return
		}
	}
	if !l.key(n, "knob", opts["label"]) {
		return
	}
	k.Label = opts["label"]
	switch k.Kind {
	case KnobFloat:
		for _, b := range []struct {
			opt string
			dst *float64
		}{{"min", &k.FMin}, {"max", &k.FMax}} {
			v, err := strconv.ParseFloat(opts[b.opt], 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				l.fail(n, "knob", "%s: %s=%s is not a finite number", k.Name, b.opt, opts[b.opt])
				return
			}
			*b.dst = v
		}
		if k.FMin > k.FMax {
			l.fail(n, "knob", "%s: min=%s is above max=%s", k.Name, opts["min"], opts["max"])
			return
		}
	case KnobInt, KnobBytes:
		for _, b := range []struct {
			opt string
			dst *int64
		}{{"min", &k.Min}, {"max", &k.Max}} {
			v, ok := l.bound(k.Kind, opts[b.opt])
			if !ok {
				l.fail(n, "knob", "%s: %s=%s is not a %s", k.Name, b.opt, opts[b.opt], map[KnobKind]string{KnobInt: "whole number", KnobBytes: "byte size"}[k.Kind])
				return
			}
			*b.dst = v
		}
		if k.Min > k.Max {
			l.fail(n, "knob", "%s: min=%s is above max=%s", k.Name, opts["min"], opts["max"])
			return
		}
	case KnobEnum:
		k.Values = strings.Split(opts["values"], ",")
		for i, v := range k.Values {
			switch {
			case !isID(v):
				l.fail(n, "knob", "%s: value %q: want lower-case letters, digits and '-'", k.Name, v)
				return
			case slices.Contains(k.Values[:i], v):
				l.fail(n, "knob", "%s: value %s listed twice", k.Name, v)
				return
			case !NumericValue(v) && missingKey(k.ValueLabel(v)):
				l.fail(n, "knob", "%s: value %s has no label: add the i18n key %s", k.Name, v, k.ValueLabel(v))
				return
			}
		}
	}
	def, err := k.Parse(opts["default"])
	if err != nil {
		l.fail(n, "knob", "default: %s", err.Error())
		return
	}
	k.Default = def
	l.s.Knobs = append(l.s.Knobs, k)
}

func (l *loader) bound(kind KnobKind, text string) (int64, bool) {
	if kind == KnobBytes {
		n, ok, overflow := parseBytes(text)
		return n, ok && !overflow
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

func (l *loader) openStep(n int, id string) {
	if !isID(id) {
		l.fail(n, "step", "%q: a step id is lower-case letters, digits and '-'", id)
	} else {
		for _, s := range l.s.Steps {
			if s.ID == id {
				l.fail(n, "step", "%s: a step with this id is on line %d", id, s.Line)
				break
			}
		}
	}
	l.finishStep()
	l.s.Steps = append(l.s.Steps, Step{ID: id, Line: n})
	l.step = &l.s.Steps[len(l.s.Steps)-1]
	l.stepSeen = map[string]int{}
}

func (l *loader) stepLine(n int, name, rest string) {
	st := l.step
	switch name {
	case "title", "text", "from", "to":
		if !l.once(l.stepSeen, n, name, rest) {
			return
		}
		switch name {
		case "title":
			if l.key(n, name, rest) {
				st.Title = rest
			}
		case "text":
			if l.key(n, name, rest) {
				st.Text = rest
			}
		case "from", "to":
			if _, ok := ParseMark(rest); !ok {
				l.fail(n, name, "bad mark %q (want start, end, phase:NAME with NAME in %s, round:K with K ≥ 1, or round:last-rs)", rest, strings.Join(Phases, "|"))
				return
			}
			if name == "from" {
				st.From = rest
			} else {
				st.To = rest
			}
		}
	case "set":
		if rest == "" {
			l.fail(n, name, "missing knob=value")
			return
		}
		for _, a := range strings.Fields(rest) {
			knob, value, ok := strings.Cut(a, "=")
			if !ok {
				l.fail(n, name, "%q: want knob=value", a)
				continue
			}
			k, ok := l.s.Knob(knob)
			if !ok {
				l.fail(n, name, "unknown knob %q (knobs: %s)", knob, strings.Join(l.s.knobNames(), ", "))
				continue
			}
			if slices.ContainsFunc(st.Set, func(x Assignment) bool { return x.Knob == knob }) {
				l.fail(n, name, "%s set twice in this step", knob)
				continue
			}
			v, err := k.Parse(value)
			if err != nil {
				l.fail(n, name, "%s", err.Error())
				continue
			}
			st.Set = append(st.Set, Assignment{Knob: knob, Value: v})
		}
	case "hide":
		if rest == "" {
			l.fail(n, name, "missing knob name")
			return
		}
		for _, knob := range strings.Fields(rest) {
			switch {
			case !slices.ContainsFunc(l.s.Knobs, func(k Knob) bool { return k.Name == knob }):
				l.fail(n, name, "unknown knob %q (knobs: %s)", knob, strings.Join(l.s.knobNames(), ", "))
			case slices.Contains(st.Hide, knob):
				l.fail(n, name, "%s hidden twice in this step", knob)
			default:
				st.Hide = append(st.Hide, knob)
			}
		}
	case "show":
		k, ok := KindOf(l.s.Kind)
		if !ok {
			l.fail(n, name, "the scenario's kind: must come before a step can show a view")
			return
		}
		views := "none"
		if len(k.Views) > 0 {
			views = strings.Join(k.Views, ", ")
		}
		for _, v := range strings.Fields(rest) {
			if !slices.Contains(k.Views, v) {
				l.fail(n, name, "view %q is not one a %s lesson shows (allowed: %s)", v, k.Name, views)
				continue
			}
			st.Show = append(st.Show, v)
		}
		if rest == "" {
			l.fail(n, name, "missing view name (allowed: %s)", views)
		}
	case "predict":
		k, ok := KindOf(l.s.Kind)
		switch {
		case !isID(rest):
			l.fail(n, name, "want one question id (lower-case letters, digits and '-'), got %q", rest)
		case st.Predict != "":
			l.fail(n, name, "a step asks one question")
		case !ok:
			l.fail(n, name, "the scenario's kind: must come before a step can ask a question")
		case k.questions[rest] == nil:
			allowed := "none"
			if q := k.Questions(); len(q) > 0 {
				allowed = strings.Join(q, ", ")
			}
			l.fail(n, name, "question %q is not one a %s lesson asks (allowed: %s)", rest, k.Name, allowed)
		default:
			st.Predict = rest
		}
	case "picture":
		switch {
		case rest != "same":
			l.fail(n, name, "%q: want same (the step shows the previous step's picture on purpose)", rest)
		case len(l.s.Steps) == 1:
			l.fail(n, name, "the first step has no previous picture to share")
		case st.SamePicture:
			l.fail(n, name, "given twice")
		default:
			st.SamePicture = true
		}
	case "checkpoint":
		if rest == "" {
			l.fail(n, name, "missing metric names")
			return
		}
		for _, m := range strings.Fields(rest) {
			switch {
			case missingKey("metric." + m):
				l.fail(n, name, "unknown metric %q (no i18n key metric.%s)", m, m)
			case slices.Contains(st.Checkpoints, m):
				l.fail(n, name, "%s listed twice in this step", m)
			default:
				st.Checkpoints = append(st.Checkpoints, m)
			}
		}
	}
}

// finishStep reports the required fields the current step lacks.
func (l *loader) finishStep() {
	if l.step == nil {
		return
	}
	for _, f := range []string{"title", "text", "from", "to"} {
		if _, ok := l.stepSeen[f]; !ok {
			l.fail(l.step.Line, f, "step %s has no %s:", l.step.ID, f)
		}
	}
}

func (l *loader) finish() {
	l.finishStep()
	for _, f := range []string{"scenario", "title", "summary", "kind"} {
		if _, ok := l.seen[f]; !ok {
			l.fail(1, f, "missing (every scenario file needs scenario:, title:, summary:, kind:)")
		}
	}
	if len(l.s.Steps) == 0 {
		l.fail(1, "step", "the scenario has no steps")
	}
	slices.SortStableFunc(l.errs, func(a, b *FileError) int { return a.Line - b.Line })
}

// isIdent: a lower-case letter, then lower-case letters, digits and '_'.
func isIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isID: lower-case letters, digits and '-', not starting or ending with '-'.
func isID(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Knob returns the knob called name.
func (s *Scenario) Knob(name string) (Knob, bool) {
	for _, k := range s.Knobs {
		if k.Name == name {
			return k, true
		}
	}
	return Knob{}, false
}

// customSizes are a model of one's own's sizes: while a lesson's model
// knob names a preset, which has sizes of its own, they change nothing.
var customSizes = []string{"layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "ffn_kind"}

// HiddenKnobs are the knobs step (1-based) shows no control for under cfg:
// those its hide: line names and, in a lesson whose model knob offers a
// model of one's own, that model's sizes while a preset is chosen (a
// control that moves nothing would be silently wrong).
func (s *Scenario) HiddenKnobs(step int, cfg Config) []string {
	var out []string
	if step >= 1 && step <= len(s.Steps) {
		out = slices.Clone(s.Steps[step-1].Hide)
	}
	if k, ok := s.Knob("model"); ok && slices.Contains(k.Values, "custom") && cfg["model"] != "custom" {
		for _, name := range customSizes {
			if _, ok := s.Knob(name); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func (s *Scenario) knobNames() []string {
	names := make([]string, len(s.Knobs))
	for i, k := range s.Knobs {
		names[i] = k.Name
	}
	return names
}

// Defaults returns a new Config holding every knob's default.
func (s *Scenario) Defaults() Config {
	c := make(Config, len(s.Knobs))
	for _, k := range s.Knobs {
		c[k.Name] = k.Default
	}
	return c
}

// Set returns a copy of cfg with knob name set to text (canonicalised). On
// error it returns an unchanged copy of cfg: an unknown knob is
// error.unknown_key, a bad value the knob's own error.
func (s *Scenario) Set(cfg Config, name, text string) (Config, *InputError) {
	k, ok := s.Knob(name)
	if !ok {
		return cfg.Clone(), inputError("error.unknown_key", name, text, "allowed", listArg(s.knobNames()))
	}
	v, err := k.Parse(text)
	if err != nil {
		return cfg.Clone(), err
	}
	out := cfg.Clone()
	out[name] = v
	return out, nil
}

// StepConfig returns a copy of cfg with the set: assignments of step (1-based)
// applied; for a step out of range, a plain copy.
func (s *Scenario) StepConfig(cfg Config, step int) Config {
	out := cfg.Clone()
	if step < 1 || step > len(s.Steps) {
		return out
	}
	for _, a := range s.Steps[step-1].Set {
		out[a.Knob] = a.Value
	}
	return out
}

// repair returns cfg with every knob of s holding a valid canonical value:
// cfg's own where it parses, the default otherwise. Keys that are not knobs
// of s are dropped.
func (s *Scenario) repair(cfg Config) Config {
	out := make(Config, len(s.Knobs))
	for _, k := range s.Knobs {
		v, err := k.Parse(cfg[k.Name])
		if err != nil || v != cfg[k.Name] {
			v = k.Default
		}
		out[k.Name] = v
	}
	return out
}

// missingKey reports whether the English catalogue lacks key. The
// browser build has no catalogue until the page hands it over, after the
// scenarios load: it checks nothing (the tests, with every catalogue
// embedded, check every key).
func missingKey(key string) bool {
	return i18n.Loaded(i18n.Fallback) && !i18n.Has(i18n.Fallback, key)
}
