// Package page builds the parts of the page around the canvas that change
// with the lesson — the narration, the prediction question and the
// numbers table — as element trees: plain values that the page (package
// wasm) turns into DOM elements, every text set as text, never as HTML.
// What they hold is decided here, where native tests can check it.
package page

import (
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Node is an element: its tag, attributes (name, value pairs in order),
// its text and its children (after the text).
type Node struct {
	Tag   string
	Attrs []string
	Text  string
	Kids  []Node
}

// El is an element with attributes given as name, value, name, value ….
func El(tag string, attrs ...string) Node { return Node{Tag: tag, Attrs: attrs} }

// Say is n with its text.
func (n Node) Say(text string) Node { n.Text = text; return n }

// Add is n with kids appended.
func (n Node) Add(kids ...Node) Node { n.Kids = append(n.Kids, kids...); return n }

// Attr is n's attribute name ("" when it has none).
func (n Node) Attr(name string) string {
	for i := 0; i+1 < len(n.Attrs); i += 2 {
		if n.Attrs[i] == name {
			return n.Attrs[i+1]
		}
	}
	return ""
}

// Narration is a step's title, bold, then each paragraph of its text.
func Narration(title, text string) []Node {
	out := []Node{El("strong").Say(title)}
	for _, para := range strings.Split(text, "\n") {
		if strings.TrimSpace(para) != "" {
			out = append(out, El("span", "class", "para").Say(para))
		}
	}
	return out
}

// Question is the step's prediction question: the prompt and a button per
// choice (data-choice its index); once answered, the choice marked, right
// or not, and the answer explained.
func Question(q *scenarios.QuestionState, lang string) []Node {
	row := El("div", "class", "choices")
	for i, c := range q.Choices {
		b := El("button", "type", "button", "data-choice", strconv.Itoa(i))
		cls := "choice"
		if q.Answered {
			b.Attrs = append(b.Attrs, "aria-pressed", strconv.FormatBool(i == q.Choice))
			switch {
			case i == q.Answer:
				cls += " right"
			case i == q.Choice:
				cls += " wrong"
			}
		}
		b.Attrs = append(b.Attrs, "class", cls)
		row.Kids = append(row.Kids, b.Say(c))
	}
	out := []Node{El("strong").Say(i18n.T(lang, "ui.predict")), El("p", "id", "predict-prompt").Say(q.Prompt), row}
	if q.Answered {
		verdict := i18n.T(lang, "ui.predict_wrong")
		if q.Correct {
			verdict = i18n.T(lang, "ui.predict_right")
		}
		out = append(out, El("p", "class", "reveal", "role", "status").Say(i18n.T(lang, "ui.predict_verdict", "verdict", verdict, "reveal", q.Reveal)))
	}
	return out
}

// Numbers is the numbers panel of the player's step: a line for the live
// numbers (#live, written as the lesson plays) and the numbers table —
// the column on screen marked, each quantity's source on its own row
// under it, a row that sets a knob (the planner's plans) a button. While
// the step's question waits for an answer the numbers wait too.
func Numbers(p *scenarios.Player, lang string) []Node {
	if q, ok := p.Question(); ok && !q.Answered {
		return []Node{El("p", "class", "locked").Say(i18n.T(lang, "ui.predict_locked"))}
	}
	tb := p.Lesson().Table(p.State().Step, lang)
	head := El("tr")
	for i, h := range tb.Columns {
		th := El("th", "scope", "col")
		if i > 0 && i <= len(tb.ColumnKeys) && tb.ColumnKeys[i-1] == tb.Current {
			th.Attrs = append(th.Attrs, "class", "current")
		}
		head.Kids = append(head.Kids, th.Say(h))
	}
	body := El("tbody")
	for _, r := range tb.Rows {
		th := El("th", "scope", "row")
		if a := r.Action; a != nil {
			th = th.Add(El("button", "type", "button", "class", "row-action", "data-knob", a.Knob, "data-value", a.Value,
				"aria-pressed", strconv.FormatBool(p.State().Config[a.Knob] == a.Value)).Say(r.Label))
		} else {
			th = th.Say(r.Label)
		}
		tr := El("tr").Add(th)
		for i, v := range r.Cells {
			td := El("td", "data-metric", r.Key)
			if i < len(tb.ColumnKeys) {
				td.Attrs = append(td.Attrs, "data-col", tb.ColumnKeys[i])
				if tb.ColumnKeys[i] == tb.Current {
					td.Attrs = append(td.Attrs, "class", "current")
				}
			}
			if pieces := valuePieces(v); len(pieces) > 1 && r.Key != "command" {
				// Each piece without its trailing space, which comes after
				// it on its own: a space inside a piece that does not wrap
				// is no place to wrap.
				for _, piece := range pieces {
					if word, ok := strings.CutSuffix(piece, " "); ok {
						td = td.Add(El("span", "class", "piece").Say(word), El("span").Say(" "))
					} else {
						td = td.Add(El("span", "class", "piece").Say(piece))
					}
				}
				tr.Kids = append(tr.Kids, td)
			} else {
				tr.Kids = append(tr.Kids, td.Say(v))
			}
		}
		body.Kids = append(body.Kids, tr)
		if r.Source != "" {
			body.Kids = append(body.Kids, El("tr", "class", "source-row").Add(
				El("td", "colspan", strconv.Itoa(len(tb.Columns)), "class", "source", "data-source", r.Key).Say(i18n.T(lang, "ui.source_line", "source", r.Source))))
		}
	}
	return []Node{
		El("p", "id", "live", "class", "live", "aria-live", "off"),
		El("table").Add(El("thead").Add(head), body),
	}
}

// valuePieces cuts a table value where a narrow panel may wrap it: after
// " × ", " · " and " / ", and before " (" — "TP 2 × PP 1 × DP 1024 (EP 64)"
// is "TP 2 × ", "PP 1 × ", "DP 1024 ", "(EP 64)". Each piece keeps its
// number and unit together (the page's CSS: a piece does not wrap); the
// pieces joined are the value.
func valuePieces(v string) []string {
	var out []string
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] != ' ' {
			continue
		}
		switch rest := v[i+1:]; {
		case strings.HasPrefix(rest, "("):
			out = append(out, v[start:i+1])
			start = i + 1
		case strings.HasPrefix(rest, "× "), strings.HasPrefix(rest, "· "), strings.HasPrefix(rest, "/ "):
			j := i + 1 + strings.Index(rest, " ") + 1
			out = append(out, v[start:j])
			start = j
			i = j - 1
		}
	}
	return append(out, v[start:])
}

// Caption is the lines under an exported picture: the lesson and step,
// the step's title, the knobs as name=value and the page's address.
func Caption(p *scenarios.Player, href string) []string {
	st := p.State()
	title, _ := p.Narration()
	var knobs []string
	for _, k := range p.Scenario().Knobs {
		v := st.Config[k.Name]
		if k.Kind == scenarios.KnobBytes {
			v = k.ValueText(st.Lang, v)
		}
		knobs = append(knobs, k.Name+"="+v)
	}
	return []string{
		i18n.T(st.Lang, p.Scenario().Title) + " — " + i18n.T(st.Lang, "ui.step", "n", strconv.Itoa(st.Step), "total", strconv.Itoa(len(p.Lesson().Steps))),
		title,
		strings.Join(knobs, "  ·  "),
		href,
	}
}

// ExportName is the file name of an export of the player's step:
// gpuscope-ID-stepN.EXT.
func ExportName(st scenarios.State, ext string) string {
	return "gpuscope-" + st.Scenario + "-step" + strconv.Itoa(st.Step) + "." + ext
}

// BytePresets are the sizes a bytes knob offers (a value set from a link
// or the API that is not among them is added to its list).
var BytePresets = []int64{1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30, 4 << 30}

// Knob is a knob's labelled control, #knob-NAME: a slider for an int
// (with its value in #knob-NAME-value), a list for bytes and enums, a text
// field for a float.
func Knob(k scenarios.Knob, lang string) Node {
	id := "knob-" + k.Name
	wrap := El("div", "class", "field knob knob-"+k.Name).Add(El("label", "for", id).Say(i18n.T(lang, k.Label)))
	var ctl Node
	switch k.Kind {
	case scenarios.KnobInt:
		ctl = El("input", "type", "range", "min", strconv.FormatInt(k.Min, 10), "max", strconv.FormatInt(k.Max, 10), "step", "1")
	case scenarios.KnobBytes:
		ctl = El("select")
		for _, n := range BytePresets {
			if n >= k.Min && n <= k.Max {
				ctl.Kids = append(ctl.Kids, Option(strconv.FormatInt(n, 10), scenarios.BytesLabel(n)))
			}
		}
	case scenarios.KnobFloat:
		ctl = El("input", "type", "text", "inputmode", "decimal", "spellcheck", "false", "autocomplete", "off")
	default:
		ctl = El("select")
		for _, v := range k.Values {
			ctl.Kids = append(ctl.Kids, Option(v, k.ValueText(lang, v)))
		}
	}
	ctl.Attrs = append(ctl.Attrs, "id", id, "name", k.Name)
	wrap = wrap.Add(ctl)
	if k.Kind == scenarios.KnobInt {
		wrap = wrap.Add(El("output", "id", id+"-value", "for", id))
	}
	return wrap
}

// Option is a list's entry.
func Option(value, text string) Node { return El("option", "value", value).Say(text) }
