package page

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios"
)

func player(t *testing.T, frag string) *scenarios.Player {
	t.Helper()
	p, errs, err := scenarios.NewPlayerAt(frag)
	if err != nil || len(errs) > 0 {
		t.Fatalf("NewPlayerAt(%q): %v %v", frag, err, errs)
	}
	return p
}

// find is every node under n (n included) with the tag.
func find(n Node, tag string) []Node {
	var out []Node
	if n.Tag == tag {
		out = append(out, n)
	}
	for _, k := range n.Kids {
		out = append(out, find(k, tag)...)
	}
	return out
}

func TestNarration(t *testing.T) {
	got := Narration("Title", "One.\n\n  \nTwo.")
	if len(got) != 3 || got[0].Tag != "strong" || got[0].Text != "Title" || got[1].Text != "One." || got[2].Text != "Two." || got[2].Attr("class") != "para" {
		t.Errorf("Narration = %+v, want the title and two paragraphs", got)
	}
}

// Before the answer: the prompt and a button per choice, the numbers
// locked. After: the choices marked and the reveal, the numbers shown.
func TestQuestionAndNumbers(t *testing.T) {
	p := player(t, "scenario=pipeline-parallel&step=1")
	q, ok := p.Question()
	if !ok {
		t.Fatal("pipeline-parallel step 1 asks no question")
	}
	nodes := Question(q, "en")
	if len(nodes) != 3 || nodes[1].Text != q.Prompt || len(nodes[2].Kids) != len(q.Choices) {
		t.Fatalf("Question before the answer = %+v", nodes)
	}
	if got := Numbers(p, "en"); len(got) != 1 || got[0].Attr("class") != "locked" {
		t.Errorf("numbers before the answer: %+v, want the locked line", got)
	}
	wrong := (q.Answer + 1) % len(q.Choices)
	if err := p.Answer(wrong); err != nil {
		t.Fatal(err)
	}
	q, _ = p.Question()
	nodes = Question(q, "en")
	if len(nodes) != 4 || !strings.Contains(nodes[3].Text, q.Reveal) {
		t.Fatalf("Question after the answer = %+v, want the reveal", nodes)
	}
	for i, b := range nodes[2].Kids {
		want := "choice"
		switch i {
		case q.Answer:
			want = "choice right"
		case wrong:
			want = "choice wrong"
		}
		if b.Attr("class") != want || b.Attr("data-choice") == "" {
			t.Errorf("choice %d: class %q, want %q", i, b.Attr("class"), want)
		}
	}
	num := Numbers(p, "en")
	if len(num) != 2 || num[0].Attr("id") != "live" || num[1].Tag != "table" {
		t.Fatalf("Numbers after the answer = %+v", num)
	}
	tb := p.Lesson().Table(1, "en")
	rows := find(num[1], "tr")
	sources := 0
	for _, r := range tb.Rows {
		if r.Source != "" {
			sources++
		}
	}
	if want := 1 + len(tb.Rows) + sources; len(rows) != want {
		t.Errorf("%d rows, want a head, %d quantities and %d sources", len(rows), len(tb.Rows), sources)
	}
	for _, td := range find(num[1], "td") {
		if td.Attr("data-metric") == "" && td.Attr("data-source") == "" {
			t.Errorf("a cell names neither its metric nor its source: %+v", td)
		}
	}
}

// The planner's ranked plans are buttons that set the rank knob, the one
// on screen pressed.
func TestNumbersActions(t *testing.T) {
	p := player(t, "scenario=strategy-planner&step=2")
	if q, ok := p.Question(); ok && !q.Answered {
		p.Answer(q.Answer)
	}
	var pressed, buttons int
	for _, n := range Numbers(p, "en") {
		for _, b := range find(n, "button") {
			buttons++
			if b.Attr("data-knob") != "rank" || b.Attr("data-value") == "" {
				t.Errorf("row button %+v does not set the rank", b)
			}
			if b.Attr("aria-pressed") == "true" {
				pressed++
			}
		}
	}
	if buttons < 2 || pressed != 1 {
		t.Errorf("%d plan buttons, %d pressed; want several, one pressed", buttons, pressed)
	}
}

func TestKnob(t *testing.T) {
	s, _ := scenarios.Get("ring-allreduce")
	for _, k := range s.Knobs {
		n := Knob(k, "zh")
		ctl := n.Kids[1]
		if n.Kids[0].Tag != "label" || n.Kids[0].Attr("for") != "knob-"+k.Name || ctl.Attr("id") != "knob-"+k.Name || ctl.Attr("name") != k.Name {
			t.Errorf("%s: %+v", k.Name, n)
		}
		switch k.Kind {
		case scenarios.KnobInt:
			if ctl.Attr("type") != "range" || len(n.Kids) != 3 || n.Kids[2].Attr("id") != "knob-"+k.Name+"-value" {
				t.Errorf("%s: an int knob is a slider with its value: %+v", k.Name, n)
			}
		case scenarios.KnobBytes:
			if len(ctl.Kids) == 0 || ctl.Kids[0].Text != "1 KiB" {
				t.Errorf("%s: sizes %+v, want the presets from 1 KiB", k.Name, ctl.Kids)
			}
		case scenarios.KnobEnum:
			if len(ctl.Kids) != len(k.Values) {
				t.Errorf("%s: %d options, want %d", k.Name, len(ctl.Kids), len(k.Values))
			}
		}
	}
}

func TestCaption(t *testing.T) {
	p := player(t, "scenario=ring-allreduce&step=2&gpus=16&bytes=268435456&lang=en")
	got := Caption(p, "http://x/#a")
	if len(got) != 4 || !strings.Contains(got[0], "Step 2 / 6") || !strings.Contains(got[2], "gpus=16") || !strings.Contains(got[2], "bytes=256 MiB") || got[3] != "http://x/#a" {
		t.Errorf("Caption = %q", got)
	}
	if got := ExportName(p.State(), "png"); got != "gpuscope-ring-allreduce-step2.png" {
		t.Errorf("ExportName = %q", got)
	}
}

// A value wraps between its pieces only, and the pieces are the value.
func TestValuePieces(t *testing.T) {
	for v, want := range map[string][]string{
		"TP 2 × PP 1 × DP 1024 (EP 64)": {"TP 2 × ", "PP 1 × ", "DP 1024 ", "(EP 64)"},
		"1.07 s (1.04 s hidden)":        {"1.07 s ", "(1.04 s hidden)"},
		"64.8 GB / 79.2 GB":             {"64.8 GB / ", "79.2 GB"},
		"2.27 s · 64.8 GB":              {"2.27 s · ", "64.8 GB"},
		"12.4 s":                        {"12.4 s"},
		"":                              {""},
		"a ×":                           {"a ×"},
	} {
		got := valuePieces(v)
		if strings.Join(got, "") != v || !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", v, got, want)
		}
	}
}
