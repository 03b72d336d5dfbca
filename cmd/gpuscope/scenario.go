package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

const scenarioUsage = `usage: gpuscope scenario list [--json] [--lang en|zh]
       gpuscope scenario run ID [--json] [--lang en|zh] [--KNOB VALUE ...]

The lessons, headless. list prints each lesson's id, steps and title; run
plays one and prints each step's title, narration and numbers (with --json,
the page's state().metrics for each step), in English or, with --lang zh,
Chinese. A lesson's knobs are its flags: gpuscope scenario run ID --help
lists them with their allowed values and defaults.`

func runScenario(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "gpuscope scenario: missing subcommand; allowed: list, run")
		return 2
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stdout, scenarioUsage)
		return 0
	}
	switch args[0] {
	case "list":
		return scenarioList(args[1:], stdout, stderr)
	case "run":
		return scenarioRun(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "gpuscope scenario: unknown subcommand %q; allowed: list, run\n", args[0])
	return 2
}

type scenarioInfo struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Steps int      `json:"steps"`
	Knobs []string `json:"knobs"`
}

func scenarioList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{langKnob}, "json")
	fs.help = cmdHelp{name: "gpuscope scenario list", usage: "[--json] [--lang en|zh]", about: "The lessons: id, steps and title (with --json, their knobs too).",
		flags: map[string]flagDoc{"json": {what: "print the list as JSON"}, "lang": langDoc}}
	if err := fs.parse(args); err != nil || len(fs.args) > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q; allowed flags: %s", fs.args[0], fs.allowed())
		}
		return fs.stop(err, stdout, stderr)
	}
	var infos []scenarioInfo
	for _, s := range scenarios.All() {
		info := scenarioInfo{ID: s.ID, Title: i18n.T(fs.value("lang"), s.Title), Steps: len(s.Steps)}
		for _, k := range s.Knobs {
			info.Knobs = append(info.Knobs, k.Name)
		}
		infos = append(infos, info)
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, infos)
	}
	for _, in := range infos {
		fmt.Fprintf(stdout, "%-16s %d steps  %s\n", in.ID, in.Steps, in.Title)
	}
	return 0
}

type stepReport struct {
	Step  int    `json:"step"`
	ID    string `json:"id"`
	Title string `json:"title"`
	// Text is the step's narration, its numbers filled in as the page
	// fills them.
	Text   string           `json:"text"`
	Config scenarios.Config `json:"config"`
	// ConfigNumbers are config's numeric settings as JSON numbers (config
	// keeps the strings the URL fragment writes).
	ConfigNumbers map[string]knobNumber `json:"config_numbers"`
	FromS         float64               `json:"from_s"`
	ToS           float64               `json:"to_s"`
	Metrics       any                   `json:"metrics"`
}

// knobNumber is a numeric setting: its value as a JSON number, and its
// unit, "bytes" for a byte size (none for a count or a number whose unit
// the knob's name says, as days or checkpoint_min).
type knobNumber struct {
	Value json.Number `json:"value"`
	Unit  string      `json:"unit,omitempty"`
}

// configNumbers are cfg's settings whose knob takes a number (an int, a
// real or a byte size, or an enum of numbers such as nodes), as numbers.
func configNumbers(s *scenarios.Scenario, cfg scenarios.Config) map[string]knobNumber {
	out := map[string]knobNumber{}
	for name, v := range cfg {
		k, ok := s.Knob(name)
		if !ok {
			continue
		}
		switch k.Kind {
		case scenarios.KnobInt, scenarios.KnobBytes, scenarios.KnobEnum:
			if k.Kind == scenarios.KnobEnum && !scenarios.NumericValue(v) {
				continue
			}
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				kn := knobNumber{Value: json.Number(strconv.FormatInt(n, 10))}
				if k.Kind == scenarios.KnobBytes {
					kn.Unit = "bytes"
				}
				out[name] = kn
			}
		case scenarios.KnobFloat:
			if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				out[name] = knobNumber{Value: json.Number(strconv.FormatFloat(f, 'g', -1, 64))}
			}
		}
	}
	return out
}

// langKnob is scenario's --lang: the language of titles, narration and
// tables, from the catalogues the page reads.
var langKnob = scenarios.Knob{Name: "lang", Kind: scenarios.KnobEnum, Values: i18n.Langs(), Default: i18n.Fallback}

var langDoc = flagDoc{what: "the language of the lessons' titles, narration and tables (the page's lang)"}

func scenarioRun(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintf(stdout, "usage: gpuscope scenario run ID [--json] [--KNOB VALUE ...]\n\nPlays a lesson headless and prints each step's numbers. ID is one of:\n%s\n\ngpuscope scenario run ID --help lists the lesson's knobs.\n",
			wrap(strings.Join(scenarios.IDs(), ", "), "  ", 80))
		return 0
	}
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "gpuscope scenario run: missing lesson id; allowed: %s\n", strings.Join(scenarios.IDs(), ", "))
		return 2
	}
	s, ok := scenarios.Get(args[0])
	if !ok {
		fmt.Fprintf(stderr, "gpuscope scenario run: %q is not a lesson; allowed: %s\n", args[0], strings.Join(scenarios.IDs(), ", "))
		return 2
	}
	fs := newFlagSet(append(slices.Clone(s.Knobs), langKnob), "json")
	fs.help = cmdHelp{name: "gpuscope scenario run", usage: s.ID + " [--json] [--lang en|zh] [--KNOB VALUE ...]",
		about: i18n.T("en", s.Title) + "\n\nEach step's title, narration and numbers, the lesson played headless. The flags\nare the lesson's knobs (the page's URL fragment keys; a step may set some of\nthem itself) and --lang, the language of the text.",
		flags: map[string]flagDoc{"json": {what: "print each step's configuration and numbers as JSON"}, "lang": langDoc}}
	for _, k := range s.Knobs {
		fs.help.flags[k.Name] = flagDoc{what: i18n.T("en", k.Label)}
	}
	if err := fs.parse(args[1:]); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope scenario run: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	cfg := s.Defaults()
	for _, k := range s.Knobs {
		cfg[k.Name] = fs.value(k.Name)
	}
	les, err := scenarios.Prepare(s, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope scenario run: %v\n", err)
		return 2
	}
	lang := fs.value("lang")
	var reps []stepReport
	for i, st := range les.Steps {
		title, text := les.Narration(i+1, lang)
		reps = append(reps, stepReport{
			Step: i + 1, ID: st.Step.ID, Title: title, Text: text, Config: st.Config, ConfigNumbers: configNumbers(s, st.Config),
			FromS: st.From.Seconds(), ToS: st.To.Seconds(), Metrics: les.Metrics(i + 1),
		})
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, reps)
	}
	for i, r := range reps {
		fmt.Fprintf(stdout, "step %d  %-15s %s\n", r.Step, r.ID, r.Title)
		fmt.Fprintf(stdout, "%s\n", wrapWide(r.Text, "  ", 80))
		tb := les.Table(i+1, lang)
		rows := [][]string{append([]string{""}, tb.Columns[1:]...)}
		for _, row := range tb.Rows {
			rows = append(rows, append([]string{row.Label}, row.Cells...))
		}
		fmt.Fprint(stdout, tableText(rows, "  "))
	}
	return 0
}

// tableText lays rows out in columns, each cell padded to its column's
// width on a terminal (a Chinese character takes two columns): the
// labels, then the values with " | " between them, so a Chinese table's
// columns line up as an English one's do.
func tableText(rows [][]string, indent string) string {
	var widths []int
	for _, row := range rows {
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], columns(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		line := indent
		for j, c := range row {
			switch {
			case j == 1:
				line += "   "
			case j > 1:
				line += "  |  "
			}
			line += c
			if j < len(row)-1 {
				line += strings.Repeat(" ", widths[j]-columns(c))
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}

// columns is how many terminal columns s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	return n
}

// wrapWide is wrap for text that may be Chinese: a wide character counts
// two columns and a line may break before one (but not before the
// punctuation that closes a phrase) as well as at a space.
func wrapWide(text, indent string, width int) string {
	type token struct {
		s     string
		w     int
		space bool // a space went before it
	}
	var tokens []token
	space := false
	for _, word := range strings.Fields(text) {
		space = true
		start, w := 0, 0
		flush := func(end int) {
			if end > start {
				tokens = append(tokens, token{word[start:end], w, space})
				space, start, w = false, end, 0
			}
		}
		for i, r := range word {
			if wide(r) && !strings.ContainsRune("，。、；：？！）》」』", r) {
				flush(i)
			}
			if wide(r) {
				w += 2
			} else {
				w++
			}
		}
		flush(len(word))
	}
	var lines []string
	line, col := indent, 0
	for _, t := range tokens {
		sep := 0
		if t.space && col > 0 {
			sep = 1
		}
		if col > 0 && len(indent)+col+sep+t.w > width {
			lines = append(lines, line)
			line, col, sep = indent, 0, 0
		}
		if sep == 1 {
			line += " "
		}
		line += t.s
		col += sep + t.w
	}
	return strings.Join(append(lines, line), "\n")
}

// wide reports whether r takes two columns: CJK characters and the full
// width forms.
func wide(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFF60 || r >= 0x3040 && r <= 0x30FF
}
