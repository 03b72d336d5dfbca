package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// good is a small valid scenario; the bad-file tests change one line of it.
const good = `# a test lesson
scenario: t
title: lesson.ring-allreduce.title
summary: lesson.ring-allreduce.summary
engine: collective
knob: gpus  int   min=2 max=64 default=8 label=knob.gpus
knob: bytes bytes min=1KiB max=4GiB default=256MiB label=knob.bytes
knob: link  enum  values=nvlink4,ib-ndr default=nvlink4 label=knob.link
step: one
  title: step.ring-allreduce.star.title
  text: step.ring-allreduce.star.text   # trailing comment
  set: link=ib-ndr gpus=16
  from: start
  to: end
  hide: link
  checkpoint: time_s rounds
step: two
  title: step.ring-allreduce.ring.title
  text: step.ring-allreduce.ring.text
  from: round:1
  to: phase:all-gather
`

func TestLoadGood(t *testing.T) {
	s, err := Load("t.scn", []byte(good))
	if err != nil {
		t.Fatalf("Load(good) error: %v", err)
	}
	if got, want := s.ID, "t"; got != want {
		t.Errorf("ID = %q, want %q", got, want)
	}
	if got, want := len(s.Knobs), 3; got != want {
		t.Fatalf("len(Knobs) = %d, want %d", got, want)
	}
	bytes, _ := s.Knob("bytes")
	if got, want := bytes, (Knob{Name: "bytes", Kind: KnobBytes, Min: 1024, Max: 4 << 30, Default: "268435456", Label: "knob.bytes", Line: 7}); !knobEqual(got, want) {
		t.Errorf("Knob(bytes) = %+v, want %+v", got, want)
	}
	one := s.Steps[0]
	if got, want := one.Set, []Assignment{{"link", "ib-ndr"}, {"gpus", "16"}}; !slices.Equal(got, want) {
		t.Errorf("Steps[0].Set = %v, want %v", got, want)
	}
	if got, want := one.Hide, []string{"link"}; !slices.Equal(got, want) {
		t.Errorf("Steps[0].Hide = %v, want %v", got, want)
	}
	if got, want := one.Checkpoints, []string{"time_s", "rounds"}; !slices.Equal(got, want) {
		t.Errorf("Steps[0].Checkpoints = %v, want %v", got, want)
	}
	if got, want := one.Text, "step.ring-allreduce.star.text"; got != want {
		t.Errorf("Steps[0].Text = %q, want %q", got, want)
	}
	two := s.Steps[1]
	if two.ID != "two" || two.From != "round:1" || two.To != "phase:all-gather" || two.Line != 17 {
		t.Errorf("Steps[1] = %+v, want id two, round:1..phase:all-gather, line 17", two)
	}
}

func knobEqual(a, b Knob) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.Min == b.Min && a.Max == b.Max &&
		slices.Equal(a.Values, b.Values) && a.Default == b.Default && a.Label == b.Label && a.Line == b.Line
}

// replaceLine returns good with line n (1-based) replaced by repl (which
// may hold several lines, or none).
func replaceLine(n int, repl string) string {
	lines := strings.Split(good, "\n")
	lines[n-1] = repl
	return strings.Join(lines, "\n")
}

func TestLoadBad(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line      int
		field     string
		msgSubstr string
	}{
		{"unknown directive", replaceLine(5, "engine: collective\ncolour: red"), 6, "colour", "unknown directive"},
		{"not a directive", replaceLine(5, "engine: collective\njust words"), 6, "just", "not a directive"},
		{"missing scenario", replaceLine(2, ""), 1, "scenario", "missing"},
		{"missing summary", replaceLine(4, ""), 1, "summary", "missing"},
		{"duplicate title", replaceLine(3, "title: lesson.ring-allreduce.title\ntitle: lesson.ring-allreduce.title"), 4, "title", "given twice (first on line 3)"},
		{"bad id", replaceLine(2, "scenario: Ring_AllReduce"), 2, "scenario", "lower-case"},
		{"unknown engine", replaceLine(5, "engine: warp"), 5, "engine", `unknown kind "warp" (kinds: cpugpu, launch`},
		{"unknown kind", replaceLine(5, "kind: warp"), 5, "kind", `unknown kind "warp" (kinds: cpugpu, launch`},
		{"kind and engine", replaceLine(5, "kind: collective\nengine: collective"), 6, "kind", "given twice (first on line 5)"},
		{"unknown title key", replaceLine(3, "title: lesson.nope.title"), 3, "title", "unknown i18n key lesson.nope.title"},
		{"knob without kind", replaceLine(6, "knob: gpus"), 6, "knob", "want: knob: NAME KIND"},
		{"knob bad kind", replaceLine(6, "knob: gpus complex min=2 max=64 default=8 label=knob.gpus"), 6, "knob", `unknown kind "complex"`},
		{"float knob bad bound", replaceLine(6, "knob: gpus float min=2 max=inf default=8 label=knob.gpus"), 6, "knob", "not a finite number"},
		{"knob reserved name", replaceLine(6, "knob: step int min=2 max=64 default=8 label=knob.gpus"), 6, "knob", "reserved"},
		{"knob twice", replaceLine(7, "knob: gpus int min=2 max=64 default=8 label=knob.gpus"), 7, "knob", "declared twice (first on line 6)"},
		{"knob missing max", replaceLine(6, "knob: gpus int min=2 default=8 label=knob.gpus"), 6, "knob", "missing option max="},
		{"knob missing label", replaceLine(6, "knob: gpus int min=2 max=64 default=8"), 6, "knob", "missing option label="},
		{"knob unknown option", replaceLine(6, "knob: gpus int min=2 max=64 step=2 default=8 label=knob.gpus"), 6, "knob", `unknown option "step"`},
		{"knob values on int", replaceLine(6, "knob: gpus int min=2 max=64 values=a,b default=8 label=knob.gpus"), 6, "knob", `unknown option "values"`},
		{"knob option twice", replaceLine(6, "knob: gpus int min=2 min=3 max=64 default=8 label=knob.gpus"), 6, "knob", "min given twice"},
		{"knob option no value", replaceLine(6, "knob: gpus int min= max=64 default=8 label=knob.gpus"), 6, "knob", `"min=": want option=value`},
		{"knob bad min", replaceLine(6, "knob: gpus int min=two max=64 default=8 label=knob.gpus"), 6, "knob", "min=two is not a whole number"},
		{"knob bad bytes max", replaceLine(7, "knob: bytes bytes min=1KiB max=4GiBs default=256MiB label=knob.bytes"), 7, "knob", "max=4GiBs is not a byte size"},
		{"knob min above max", replaceLine(6, "knob: gpus int min=64 max=2 default=8 label=knob.gpus"), 6, "knob", "min=64 is above max=2"},
		{"default above max", replaceLine(6, "knob: gpus int min=2 max=64 default=100 label=knob.gpus"), 6, "knob", "default: gpus: 100 is out of range; allowed 2–64"},
		{"default not in enum", replaceLine(8, "knob: link enum values=nvlink4,ib-ndr default=pcie label=knob.link"), 8, "knob", "default: link: “pcie” is not one of nvlink4, ib-ndr"},
		{"enum value without label", replaceLine(8, "knob: link enum values=nvlink4,pcie default=nvlink4 label=knob.link"), 8, "knob", "add the i18n key link.pcie"},
		{"enum value twice", replaceLine(8, "knob: link enum values=nvlink4,nvlink4 default=nvlink4 label=knob.link"), 8, "knob", "listed twice"},
		{"knob label unknown", replaceLine(6, "knob: gpus int min=2 max=64 default=8 label=knob.nope"), 6, "knob", "unknown i18n key knob.nope"},
		{"knob after step", replaceLine(14, "  to: end\nknob: algo enum values=ring,star default=ring label=knob.algo"), 15, "knob", "before the first step"},
		{"text outside step", replaceLine(5, "engine: collective\ntext: step.ring-allreduce.star.text"), 6, "text", "outside a step"},
		{"step missing text", replaceLine(11, ""), 9, "text", "step one has no text:"},
		{"step missing to", replaceLine(21, ""), 17, "to", "step two has no to:"},
		{"step text twice", replaceLine(11, "text: step.ring-allreduce.star.text\ntext: step.ring-allreduce.star.text"), 12, "text", "given twice"},
		{"step text two words", replaceLine(11, "text: step.ring-allreduce.star.text extra"), 11, "text", "single word"},
		{"step unknown text key", replaceLine(11, "text: step.ring-allreduce.nope.text"), 11, "text", "unknown i18n key"},
		{"duplicate step id", replaceLine(17, "step: one"), 17, "step", "a step with this id is on line 9"},
		{"bad step id", replaceLine(17, "step: Two"), 17, "step", "step id"},
		{"no steps", strings.Join(strings.Split(good, "\n")[:8], "\n"), 1, "step", "no steps"},
		{"set unknown knob", replaceLine(12, "set: colour=red"), 12, "set", `unknown knob "colour" (knobs: gpus, bytes, link)`},
		{"set bad value", replaceLine(12, "set: gpus=abc"), 12, "set", "gpus: “abc” is not a whole number; allowed 2–64"},
		{"set bad bytes", replaceLine(12, "set: bytes=8GiB"), 12, "set", "bytes: 8GiB is out of range; allowed 1KiB–4GiB"},
		{"set no equals", replaceLine(12, "set: gpus"), 12, "set", "want knob=value"},
		{"set twice", replaceLine(12, "set: gpus=4 gpus=8"), 12, "set", "gpus set twice"},
		{"set empty", replaceLine(12, "set:"), 12, "set", "missing knob=value"},
		{"bad mark", replaceLine(13, "from: middle"), 13, "from", `bad mark "middle"`},
		{"bad phase", replaceLine(14, "to: phase:scatter"), 14, "to", `bad mark "phase:scatter"`},
		{"round zero", replaceLine(20, "from: round:0"), 20, "from", `bad mark "round:0"`},
		{"round not a number", replaceLine(20, "from: round:x"), 20, "from", "bad mark"},
		{"hide unknown knob", replaceLine(15, "hide: colour"), 15, "hide", `unknown knob "colour"`},
		{"show unknown view", replaceLine(15, "show: pie-chart"), 15, "show", `view "pie-chart" is not one a collective lesson shows (allowed: time-vs-n)`},
		{"show another kind's view", replaceLine(15, "show: planner"), 15, "show", `view "planner" is not one a collective lesson shows (allowed: time-vs-n)`},
		{"show in a roofline lesson", replaceLine(5, "kind: roofline") + "\nstep: three\ntitle: step.ring-allreduce.star.title\ntext: step.ring-allreduce.star.text\nfrom: start\nto: end\nshow: planner", 28, "show", `not one a roofline lesson shows (allowed: sweep)`},
		{"predict without questions", replaceLine(15, "predict: bubble-m4"), 15, "predict", `question "bubble-m4" is not one a collective lesson asks (allowed: none)`},
		{"show nothing", replaceLine(15, "show:"), 15, "show", "missing view name"},
		{"checkpoint unknown metric", replaceLine(16, "checkpoint: time_s speed"), 16, "checkpoint", `unknown metric "speed"`},
		{"picture not same", replaceLine(16, "picture: other"), 16, "picture", `"other": want same`},
		{"picture on the first step", replaceLine(15, "picture: same"), 15, "picture", "the first step has no previous picture"},
		{"checkpoint twice", replaceLine(16, "checkpoint: time_s time_s"), 16, "checkpoint", "listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load("bad.scn", []byte(tt.src))
			if err == nil {
				t.Fatalf("Load() = %v, nil; want an error at line %d field %s", s, tt.line, tt.field)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load() error %v (%T) is not a *FileError", err, err)
			}
			if fe.File != "bad.scn" || fe.Line != tt.line || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msgSubstr) {
				t.Errorf("Load() first error = %q (line %d, field %q), want bad.scn:%d: %s: ...%s...",
					fe.Error(), fe.Line, fe.Field, tt.line, tt.field, tt.msgSubstr)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	src := replaceLine(12, "set: gpus=abc\nhide: colour")
	_, err := Load("bad.scn", []byte(src))
	got := strings.Split(err.Error(), "\n")
	want := []string{
		"bad.scn:12: set: gpus: “abc” is not a whole number; allowed 2–64",
		`bad.scn:13: hide: unknown knob "colour" (knobs: gpus, bytes, link)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Load() error lines =\n%q\nwant\n%q", got, want)
	}
}

func TestFileErrorFormat(t *testing.T) {
	e := &FileError{File: "data/x.scn", Line: 7, Field: "knob", Msg: "gpus: min=64 is above max=2"}
	if got, want := e.Error(), "data/x.scn:7: knob: gpus: min=64 is above max=2"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestParseMark(t *testing.T) {
	tests := []struct {
		in   string
		want Mark
		ok   bool
	}{
		{"start", Mark{Kind: MarkStart}, true},
		{"end", Mark{Kind: MarkEnd}, true},
		{"phase:reduce-scatter", Mark{Kind: MarkPhase, Phase: "reduce-scatter"}, true},
		{"phase:all-gather", Mark{Kind: MarkPhase, Phase: "all-gather"}, true},
		{"phase:gather", Mark{Kind: MarkPhase, Phase: "gather"}, true},
		{"phase:broadcast", Mark{Kind: MarkPhase, Phase: "broadcast"}, true},
		{"round:1", Mark{Kind: MarkRound, Round: 1}, true},
		{"round:126", Mark{Kind: MarkRound, Round: 126}, true},
		{"round:last-rs", Mark{Kind: MarkLastRS}, true},
		{"round:0", Mark{}, false},
		{"round:01", Mark{}, false},
		{"round:-1", Mark{}, false},
		{"round:", Mark{}, false},
		{"round:99999999999999999999", Mark{}, false},
		{"phase:", Mark{}, false},
		{"Start", Mark{}, false},
		{"", Mark{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseMark(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseMark(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("ParseMark(%q).String() = %q, want the input", tt.in, got.String())
		}
	}
}

// A step may share the previous step's picture on purpose.
func TestLoadSamePicture(t *testing.T) {
	s, err := Load("good.scn", []byte(good+"\npicture: same\n"))
	if err != nil {
		t.Fatal(err)
	}
	if last := s.Steps[len(s.Steps)-1]; !last.SamePicture || s.Steps[0].SamePicture {
		t.Errorf("SamePicture = %v, %v; want the last step only", s.Steps[0].SamePicture, last.SamePicture)
	}
}

// A model of one's own's sizes have controls only while the model is
// one's own: with a preset they would move nothing. The step's hide: line
// still applies.
func TestHiddenKnobsFollowTheModel(t *testing.T) {
	for _, id := range []string{"sandbox", "strategy-planner"} {
		s, ok := Get(id)
		if !ok {
			t.Fatalf("no %s", id)
		}
		cfg := s.Defaults()
		cfg["model"] = "gpt3-175b"
		preset := s.HiddenKnobs(1, cfg)
		cfg["model"] = "custom"
		own := s.HiddenKnobs(1, cfg)
		for _, k := range customSizes {
			if !slices.Contains(preset, k) {
				t.Errorf("%s with a preset: %s has a control (hidden %v)", id, k, preset)
			}
			if slices.Contains(own, k) {
				t.Errorf("%s with a model of one's own: %s hidden", id, k)
			}
		}
		for _, k := range s.Steps[0].Hide {
			if !slices.Contains(own, k) || !slices.Contains(preset, k) {
				t.Errorf("%s: the step hides %s, HiddenKnobs %v / %v", id, k, preset, own)
			}
		}
		if slices.Contains(preset, "seq") || slices.Contains(preset, "model") {
			t.Errorf("%s: seq and model are every model's: hidden %v", id, preset)
		}
	}
	// A lesson without a model of one's own hides only what its steps say.
	s, _ := Get("3d-parallel")
	if got := s.HiddenKnobs(1, s.Defaults()); len(got) != 0 {
		t.Errorf("3d-parallel hides %v", got)
	}
}
