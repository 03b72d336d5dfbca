package scenarios

import (
	"github.com/gpuscope/gpuscope/engine/collective"
	"maps"
	"math"
	"strings"
	"testing"
)

func newPlayer(t *testing.T, frag string) *Player {
	t.Helper()
	p, err := NewPlayer()
	if err != nil {
		t.Fatal(err)
	}
	if errs := p.ApplyFragment(frag); len(errs) > 0 {
		t.Fatalf("ApplyFragment(%q): %v", frag, errs)
	}
	return p
}

func TestPlayerStartsAtTheFirstStep(t *testing.T) {
	p := newPlayer(t, "")
	r := p.Report()
	if r.Scenario != "ring-allreduce" || r.Step != 1 || r.Steps != 6 || r.StepID != "star" || r.Playing || r.Error != nil {
		t.Errorf("Report() = %+v", r)
	}
	m := r.Metrics.(CollectiveMetrics)
	if r.Config["gpus"] != int64(8) || m.Algo != "star" || m.Ring.Algo != "ring" {
		t.Errorf("config %v, metrics algo %q ring %q", r.Config, m.Algo, m.Ring.Algo)
	}
}

// Play runs a step's window in StepSeconds of ticks at speed 1, then pauses
// at its end with a "step" event; the last step ends with "finished".
func TestPlayerPlaysAStepWindow(t *testing.T) {
	p := newPlayer(t, "scenario=ring-allreduce&step=3")
	from, to := p.step().From, p.step().To
	if p.Time() != from {
		t.Fatalf("Goto put the playhead at %v, want the window start %v", p.Time(), from)
	}
	p.Play()
	const tick = 1.0 / 60
	var events []string
	ticks := 0
	for p.Playing() && ticks < 10000 {
		events = append(events, p.Advance(tick)...)
		ticks++
	}
	if want := int(StepSeconds * 60); ticks < want-1 || ticks > want+1 {
		t.Errorf("the window took %d ticks, want ≈ %d (StepSeconds at 60 TPS)", ticks, want)
	}
	if p.Time() != to || len(events) != 1 || events[0] != EventStep {
		t.Errorf("after playing: time %v (window end %v), events %v; want the end and one step event", p.Time(), to, events)
	}
	// Play again at a window's end moves to the next step.
	p.Play()
	if p.State().Step != 4 || p.Time() != p.step().From {
		t.Errorf("Play at the end of step 3: step %d time %v", p.State().Step, p.Time())
	}
	// Speed 4 plays four times as fast.
	p.Set("speed", "4")
	ticks = 0
	for p.Playing() && ticks < 10000 {
		p.Advance(tick)
		ticks++
	}
	if want := int(StepSeconds * 60 / 4); ticks < want-1 || ticks > want+1 {
		t.Errorf("at 4× the window took %d ticks, want ≈ %d", ticks, want)
	}
	p.Goto(6)
	p.Play()
	var last []string
	for p.Playing() {
		last = p.Advance(tick)
	}
	if len(last) != 1 || last[0] != EventFinished {
		t.Errorf("end of the last step: events %v, want finished", last)
	}
}

func TestPlayerKeepsPositionAcrossReruns(t *testing.T) {
	p := newPlayer(t, "scenario=ring-allreduce&step=6")
	p.Seek(0.5)
	if err := p.Set("gpus", "16"); err != nil {
		t.Fatal(err)
	}
	if r := p.Run().(*collective.Result); r.Config.Ranks != 16 {
		t.Fatalf("after set gpus 16 the run has %d ranks", r.Config.Ranks)
	}
	if f := float64(p.Time()) / float64(p.Run().End()); math.Abs(f-0.5) > 1e-9 {
		t.Errorf("playhead at %.4f of the new run, want 0.5", f)
	}
	if !strings.Contains(p.Fragment(), "gpus=16") || !strings.Contains(p.Fragment(), "step=6") {
		t.Errorf("Fragment() = %q", p.Fragment())
	}
}

func TestPlayerBadInputKeepsLastGoodState(t *testing.T) {
	p := newPlayer(t, "scenario=ring-allreduce&gpus=12&step=2")
	tests := []struct {
		name  string
		apply func() *InputError
		field string
	}{
		{"set gpus abc", func() *InputError { return p.Set("gpus", "abc") }, "gpus"},
		{"set gpus 100000", func() *InputError { return p.Set("gpus", "100000") }, "gpus"},
		{"set link", func() *InputError { return p.Set("link", "pcie") }, "link"},
		{"set speed", func() *InputError { return p.Set("speed", "3") }, "speed"},
		{"goto 0", func() *InputError { return p.Goto(0) }, "step"},
		{"command not json", func() *InputError { return p.Command([]byte("{")) }, "command"},
		{"command type", func() *InputError { return p.Command([]byte(`{"type":"fly"}`)) }, "type"},
		{"command goto", func() *InputError { return p.Command([]byte(`{"type":"goto","step":99}`)) }, "step"},
		{"command goto text", func() *InputError { return p.Command([]byte(`{"type":"goto","step":"x"}`)) }, "step"},
		{"command delta", func() *InputError { return p.Command([]byte(`{"type":"step","delta":0.5}`)) }, "delta"},
		{"command set", func() *InputError { return p.Command([]byte(`{"type":"set","gpus":"x"}`)) }, "gpus"},
		{"command set empty", func() *InputError { return p.Command([]byte(`{"type":"set"}`)) }, "set"},
		{"command time", func() *InputError { return p.Command([]byte(`{"type":"goto","time_s":-1}`)) }, "time_s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := p.Report()
			err := tt.apply()
			if err == nil {
				t.Fatalf("no error")
			}
			if err.Field != tt.field {
				t.Errorf("error field %q, want %q (%v)", err.Field, tt.field, err)
			}
			after := p.Report()
			if after.Error == nil || !strings.Contains(*after.Error, err.Localize("en")) {
				t.Errorf("Report().Error = %v, want it to carry %q", after.Error, err.Localize("en"))
			}
			if !maps.Equal(after.Config, before.Config) || after.Step != before.Step || after.Speed != before.Speed {
				t.Errorf("state changed: %v step %d → %v step %d", before.Config, before.Step, after.Config, after.Step)
			}
		})
	}
	// The message says what was kept, in the reader's language.
	p.Set("gpus", "abc")
	if msg := p.ErrorText("en"); !strings.Contains(msg, "kept gpus = 12") {
		t.Errorf("ErrorText = %q, want it to name the kept value", msg)
	}
	if msg := p.ErrorText("zh"); !strings.Contains(msg, "保留 gpus = 12") {
		t.Errorf("ErrorText(zh) = %q", msg)
	}
	// A good input clears the error: a knob, a command, a fragment.
	if err := p.Set("gpus", "13"); err != nil || p.Report().Error != nil {
		t.Errorf("good set after a bad one: err %v, state error %v", err, p.Report().Error)
	}
	p.Command([]byte(`{"type":"fly"}`))
	if p.Command([]byte(`{"type":"play"}`)); p.Report().Error != nil {
		t.Errorf("play after a bad command left the error %q", *p.Report().Error)
	}
	p.ApplyFragment("gpus=x")
	if p.ApplyFragment("gpus=9"); p.Report().Error != nil {
		t.Errorf("a good fragment after a bad one left the error %q", *p.Report().Error)
	}
}

func TestPlayerCommands(t *testing.T) {
	p := newPlayer(t, "")
	cmds := []struct {
		json  string
		check func() bool
	}{
		{`{"type":"goto","step":4}`, func() bool { return p.State().Step == 4 }},
		{`{"type":"step"}`, func() bool { return p.State().Step == 5 }},
		{`{"type":"step","delta":-2}`, func() bool { return p.State().Step == 3 }},
		{`{"type":"play"}`, func() bool { return p.Playing() }},
		{`{"type":"pause"}`, func() bool { return !p.Playing() }},
		{`{"type":"set","gpus":16,"lang":"zh"}`, func() bool { return p.State().Config["gpus"] == "16" && p.State().Lang == "zh" }},
		{`{"type":"set","key":"bytes","value":"1GiB"}`, func() bool { return p.State().Config["bytes"] == "1073741824" }},
		{`{"type":"goto","time_s":0}`, func() bool { return p.Time() == 0 }},
		{`{"type":"goto","step":"2"}`, func() bool { return p.State().Step == 2 }},
	}
	for _, c := range cmds {
		if err := p.Command([]byte(c.json)); err != nil {
			t.Errorf("Command(%s): %v", c.json, err)
			continue
		}
		if !c.check() {
			t.Errorf("Command(%s) did not take effect: %+v", c.json, p.State())
		}
	}
}

// Every step of every lesson, in both languages, has its placeholders
// filled by its engine's numbers.
func TestNarrationFillsEveryPlaceholder(t *testing.T) {
	for _, s := range All() {
		p := newPlayer(t, "scenario="+s.ID)
		for _, lang := range []string{"en", "zh"} {
			p.Set("lang", lang)
			for n := 1; n <= len(s.Steps); n++ {
				p.Goto(n)
				title, text := p.Narration()
				if title == "" || text == "" || strings.ContainsAny(title+text, "{}⟦") {
					t.Errorf("%s %s step %d: narration %q / %q has a hole", s.ID, lang, n, title, text)
				}
			}
		}
	}
}

func FuzzPlayerCommand(f *testing.F) {
	for _, s := range []string{
		`{"type":"set","scenario":"number-formats","value":"1e308"}`,
		`{"type":"set","scenario":"simt-launch","smem":"227KiB","threads":"1024","registers":"255"}`,
		`{"type":"set","scenario":"roofline","gpu":"a100-80gb","dtype":"fp8"}`,
		`{"type":"set","scenario":"flash-attention","seq":"65536","heads":"128","batch":"1024"}`,
		`{"type":"set","scenario":"memory-wall","size":"16384","kernel":"naive"}`,
		`{"type":"play"}`, `{"type":"goto","step":3}`, `{"type":"set","gpus":16}`, `{"type":"step","delta":-1}`, `[]`, `null`, `{"type":"goto","time_s":1e308}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		p, err := NewPlayer()
		if err != nil {
			t.Fatal(err)
		}
		p.Command([]byte(cmd))
		p.Advance(1.0 / 60)
		r := p.Report()
		if r.Step < 1 || r.Step > r.Steps || r.TimeS < 0 || r.TimeS > r.EndS || math.IsNaN(r.TimeS) {
			t.Errorf("Command(%q) left %+v", cmd, r)
		}
		if !p.State().Valid() {
			t.Errorf("Command(%q) left an invalid state %+v", cmd, p.State())
		}
	})
}

func TestNewPlayerAt(t *testing.T) {
	p, errs, err := NewPlayerAt("#scenario=ring-allreduce&gpus=16&step=3&lang=zh")
	if err != nil || len(errs) != 0 {
		t.Fatal(err, errs)
	}
	if st := p.State(); st.Step != 3 || st.Lang != "zh" || st.Config["gpus"] != "16" || p.Run().(*collective.Result).Config.Ranks != 16 {
		t.Errorf("state %+v", st)
	}
	// Bad fields are reported and the rest applies.
	p, errs, _ = NewPlayerAt("scenario=ring-allreduce&gpus=abc&step=2")
	if len(errs) != 1 || p.State().Step != 2 || p.Report().Error == nil {
		t.Errorf("errors %v, step %d", errs, p.State().Step)
	}
	// An engine refusal (FP8 on an A100) falls back to the defaults, said.
	p, errs, err = NewPlayerAt("scenario=roofline&gpu=a100-80gb&dtype=fp8")
	if err != nil || len(errs) != 1 || p.State().Config["dtype"] != "bf16" {
		t.Errorf("A100 FP8 start: err %v, errors %v, config %v", err, errs, p.State().Config)
	}
}

// Step mode (reduced motion): a step opens on its final picture, and
// playing moves on a whole step per press with no frames in between.
func TestReducedMotionStepMode(t *testing.T) {
	p, err := NewPlayer()
	if err != nil {
		t.Fatal(err)
	}
	p.SetReducedMotion(true)
	if st := p.Report(); !st.ReducedMotion || st.TimeS != st.ToS || st.Playing {
		t.Fatalf("step mode on: time %g, window end %g, playing %v; want at the end, paused", st.TimeS, st.ToS, st.Playing)
	}
	p.Goto(2)
	if st := p.Report(); st.TimeS != st.ToS {
		t.Errorf("goto 2 in step mode: time %g, want the window's end %g", st.TimeS, st.ToS)
	}
	p.Play() // next step
	evs := p.Advance(1.0 / 60)
	if st := p.Report(); st.Step != 3 || st.TimeS != st.ToS || st.Playing || len(evs) != 1 || evs[0] != EventStep {
		t.Errorf("play in step mode: step %d time %g/%g playing %v events %v; want step 3 at its end, paused, one step event", st.Step, st.TimeS, st.ToS, st.Playing, evs)
	}
	p.SetReducedMotion(false)
	p.Goto(1)
	if st := p.Report(); st.TimeS != st.FromS {
		t.Errorf("full motion: goto 1 at %g, want the window's start %g", st.TimeS, st.FromS)
	}
}

// The screen reader's account of the picture names the step and carries
// the step's numbers, in the reader's language.
func TestDescription(t *testing.T) {
	p, _, err := NewPlayerAt("scenario=ring-allreduce&step=6&lang=en")
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := p.Question(); ok && !q.Answered {
		if d := p.Description(); !strings.Contains(d, "Answer the question") {
			t.Errorf("unanswered question: description %q, want the numbers withheld", d)
		}
		p.Answer(0)
	}
	d := p.Description()
	tb := p.Lesson().Table(6, "en")
	if !strings.HasPrefix(d, "Step 6 / 6: ") || len(tb.Rows) == 0 || !strings.Contains(d, tb.Rows[0].Label+": ") || !strings.Contains(d, tb.Rows[0].Cells[0]) {
		t.Errorf("description %q: want the step, its title and its first number %+v", d, tb.Rows)
	}
	p.Set("lang", "zh")
	if d := p.Description(); !strings.Contains(d, "步") {
		t.Errorf("zh description %q", d)
	}
}

// A step's narration quotes the step's own settings: number-formats' first
// step sets value=1.5 and says so.
func TestNumfmtNarrationQuotesTheStep(t *testing.T) {
	p, _, err := NewPlayerAt("scenario=number-formats&step=1&lang=en")
	if err != nil {
		t.Fatal(err)
	}
	if _, text := p.Narration(); !strings.Contains(text, "shows 1.5 in each format") {
		t.Errorf("step 1 narration %q: want the step's value 1.5", text)
	}
}

// Plays counts the times playing starts, not every play command: the
// page restarts its frame-time means on each.
func TestPlayerCountsPlays(t *testing.T) {
	p, err := NewPlayer()
	if err != nil {
		t.Fatal(err)
	}
	if p.Plays() != 0 {
		t.Fatalf("a new player has played %d times", p.Plays())
	}
	p.Play()
	p.Play() // already playing
	if p.Plays() != 1 {
		t.Errorf("play, play: %d plays, want 1", p.Plays())
	}
	p.Pause()
	p.Command([]byte(`{"type":"play"}`))
	if p.Plays() != 2 {
		t.Errorf("pause, play: %d plays, want 2", p.Plays())
	}
}

// A set command's knobs are applied together: values valid only in
// company (DeepSeek-V3's 256 experts on EP 64, where Mixtral's 8 refuse
// it) go in at once, whatever their keys' order; a combination the engine
// refuses is named and the lesson keeps its last good state.
func TestPlayerSetTogether(t *testing.T) {
	p := newPlayer(t, "scenario=mixture-of-experts&step=4")
	if err := p.Command([]byte(`{"type":"set","model":"deepseek-v3","ep":64}`)); err != nil {
		t.Fatalf("DeepSeek-V3 on EP 64 in one command: %v", err)
	}
	if c := p.State().Config; c["model"] != "deepseek-v3" || c["ep"] != "64" {
		t.Errorf("config %v", c)
	}
	err := p.Command([]byte(`{"type":"set","model":"mixtral-8x7b","skew":1}`))
	if err == nil || err.Field != "ep" {
		t.Errorf("Mixtral with EP 64: error %v, want ep named", err)
	}
	if c := p.State().Config; c["model"] != "deepseek-v3" || c["ep"] != "64" || c["skew"] != "0" {
		t.Errorf("config %v after a refused set: want the last good one", c)
	}
}
