package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/tinyjson"
)

func TestEmbedFragment(t *testing.T) {
	tests := []struct {
		frag string
		want Embed
		errs []string // English messages
	}{
		{"", Embed{}, nil},
		{"hide=knobs,Title,knobs,%20share", Embed{Hide: []string{"title", "knobs", "share"}}, nil},
		{"theme=dark&motion=REDUCED&autoplay=1&load=visible", Embed{Theme: "dark", Motion: "reduced", Autoplay: true, Load: "visible"}, nil},
		{"theme=auto&motion=auto&autoplay=0&load=auto", Embed{Load: "auto"}, nil},
		{"present=1", Embed{Present: true}, nil},
		{"present=yes-please", Embed{}, []string{"present: “yes-please” is not one of 1, 0"}},
		{"origins=https://Blog.Example:443,http://localhost:8080/,https://blog.example", Embed{Origins: []string{"https://blog.example", "http://localhost:8080"}}, nil},
		{"origins=http://[::1]:9000", Embed{Origins: []string{"http://[::1]:9000"}}, nil},
		{"theme=blue", Embed{}, []string{"theme: “blue” is not one of auto, light, dark"}},
		{"load=lazy", Embed{}, []string{"load: “lazy” is not one of click, visible, auto"}},
		{"autoplay=maybe", Embed{}, []string{"autoplay: “maybe” is not one of 1, 0"}},
		{"hide=knobs,everything", Embed{}, []string{"hide: “everything” is not one of " + strings.Join(HideParts, ", ")}},
		{"origins=https://ok.example,https://x.example/path", Embed{}, []string{"origins: “https://x.example/path” is not an origin such as https://example.com (http or https, a host and an optional port, no path); at most 8 of them, separated by commas"}},
	}
	for _, tt := range tests {
		got, errs := ApplyFragment(DefaultState(), tt.frag)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		if !got.Embed.Equal(tt.want) || strings.Join(msgs, "|") != strings.Join(tt.errs, "|") {
			t.Errorf("ApplyFragment(%q): embed %+v, errors %q; want %+v, %q", tt.frag, got.Embed, msgs, tt.want, tt.errs)
		}
	}
}

// A bad value keeps the last good one, and the options outlive a change of
// lesson (they belong to the embedding page, not to the lesson).
func TestEmbedKeptAcrossLessonsAndErrors(t *testing.T) {
	st, _ := ApplyFragment(DefaultState(), "theme=light&hide=knobs&origins=https://a.example")
	st, errs := ApplyFragment(st, "scenario=roofline&theme=purple")
	if len(errs) != 1 || errs[0].Field != "theme" {
		t.Fatalf("errors %v, want one naming theme", errs)
	}
	if st.Scenario != "roofline" || st.Embed.Theme != "light" || !st.Embed.Hidden("knobs") || !st.Embed.Allowed("https://a.example") {
		t.Errorf("state %+v: want roofline with the embed options kept", st)
	}
	if st.Embed.Allowed("https://evil.example") || st.Embed.Allowed("") || st.Embed.Allowed("https://a.example/") {
		t.Errorf("Allowed accepts an origin not on the list")
	}
}

func TestCanonicalOrigin(t *testing.T) {
	good := map[string]string{
		"https://example.com":       "https://example.com",
		"HTTPS://Example.COM/":      "https://example.com",
		"http://example.com:80":     "http://example.com",
		"http://localhost:8080":     "http://localhost:8080",
		"https://example.com:8443/": "https://example.com:8443",
		" http://127.0.0.1:3000 ":   "http://127.0.0.1:3000",
		"http://[::1]:9000/":        "http://[::1]:9000",
	}
	for in, want := range good {
		if got, ok := CanonicalOrigin(in); !ok || got != want {
			t.Errorf("CanonicalOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "*", "null", "example.com", "ftp://example.com", "https://", "https://a.example/x",
		"https://a.example?q", "https://a.example#f", "https://u:p@a.example", "https://a.example:0", "https://a.example:99999",
		"javascript:alert(1)", "https://*.example.com", "data:text/html,hi", "https://a]b", "https://a.example:", "https://a.example:+80",
		"https://[zz]", "https://[]", "https://[::1]x", "https://a.example:8080:9"} {
		if got, ok := CanonicalOrigin(in); ok {
			t.Errorf("CanonicalOrigin(%q) = %q, accepted; want refused", in, got)
		}
	}
}

func TestEmbedOriginsLimit(t *testing.T) {
	var list []string
	for i := range MaxOrigins + 1 {
		list = append(list, "https://a"+string(rune('a'+i))+".example")
	}
	_, errs := ApplyFragment(DefaultState(), "origins="+strings.Join(list, ","))
	if len(errs) != 1 || errs[0].Field != "origins" {
		t.Errorf("%d origins: errors %v, want one naming origins", len(list), errs)
	}
}

// Every lesson with random embed options survives the fragment round trip.
func TestEmbedRoundTrip(t *testing.T) {
	rng := sim.NewRNG(11)
	pick := func(vals []string) string {
		i := int(rng.Uint64() % uint64(len(vals)+1))
		if i == len(vals) {
			return ""
		}
		return vals[i]
	}
	for _, s := range All() {
		for range 4 {
			var e Embed
			for _, p := range HideParts {
				if rng.Uint64()%3 == 0 {
					e.Hide = append(e.Hide, p)
				}
			}
			e.Theme, e.Motion, e.Load = pick(Themes), pick(Motions), pick(Loads)
			e.Autoplay = rng.Uint64()%2 == 0
			e.Present = rng.Uint64()%3 == 0
			if rng.Uint64()%2 == 0 {
				e.Origins = []string{"https://blog.example", "http://localhost:9000"}
			}
			step := 1
			if n := uint64(len(s.Steps)); rng.Uint64()%2 == 0 {
				first := 1 + int(rng.Uint64()%n)
				e.Steps = StepRange{first, first + int(rng.Uint64()%(n-uint64(first)+1))}
				step = e.Steps.Last
			}
			st := State{Scenario: s.ID, Step: step, Lang: "zh", Config: s.Defaults(), Embed: e}
			frag := EncodeFragment(st)
			back, errs := ApplyFragment(DefaultState(), frag)
			if len(errs) > 0 || !stateEqual(back, st) || EncodeFragment(back) != frag {
				t.Fatalf("%s: %q came back as %+v (errors %v), want %+v", s.ID, frag, back, errs, st)
			}
		}
	}
}

func TestParseMessage(t *testing.T) {
	good := []struct{ in, typ, cmd string }{
		{`{"version":1,"type":"play"}`, "play", `{"type":"play"}`},
		{`{"version":1,"type":"goto","step":3,"source":"blog","id":7}`, "goto", `{"step":3,"type":"goto"}`},
		{`{"version":1,"type":"set","gpus":16}`, "set", `{"gpus":16,"type":"set"}`},
		{`{"version":1,"type":"state"}`, "state", `{"type":"state"}`},
	}
	for _, tt := range good {
		typ, cmd, err := ParseMessage([]byte(tt.in))
		if err != nil || typ != tt.typ || string(cmd) != tt.cmd {
			t.Errorf("ParseMessage(%s) = %q, %s, %v; want %q, %s", tt.in, typ, cmd, err, tt.typ, tt.cmd)
		}
	}
	bad := map[string]string{
		`"play"`:                          "message",
		`null`:                            "message",
		`[1]`:                             "message",
		`{"type":"play"}`:                 "version",
		`{"version":2,"type":"play"}`:     "version",
		`{"version":"1","type":"play"}`:   "version",
		`{"version":1,"type":"reload"}`:   "type",
		`{"version":1,"type":"answer"}`:   "type",
		`{"version":1}`:                   "type",
		`{"version":1,"type":["play"]}`:   "type",
		strings.Repeat(" ", 70000) + `{}`: "message",
	}
	for in, field := range bad {
		if _, _, err := ParseMessage([]byte(in)); err == nil || !strings.HasPrefix(err.Error(), field+":") {
			t.Errorf("ParseMessage(%.40q) error %v; want one naming %s", in, err, field)
		}
	}
}

// A parsed message drives the player exactly as the same command would.
func TestMessageDrivesPlayer(t *testing.T) {
	p, err := NewPlayer()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`{"version":1,"type":"goto","step":3}`, `{"version":1,"type":"set","gpus":16,"source":"x"}`} {
		_, cmd, err := ParseMessage([]byte(m))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Command(cmd); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if st := p.State(); st.Step != 3 || st.Config["gpus"] != "16" {
		t.Errorf("after goto 3 and set gpus 16: step %d, gpus %s", st.Step, st.Config["gpus"])
	}
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{`{"version":1,"type":"play"}`, `{"version":1,"type":"set","gpus":"x"}`, `{}`, `[]`, `{"version":1e400}`, `{"version":1,"type":"goto","step":-1e308}`} {
		f.Add(s)
	}
	p, err := NewPlayer()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		typ, cmd, err := ParseMessage([]byte(raw))
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(cmd, &m) != nil || m["type"] != typ {
			t.Fatalf("ParseMessage(%q) = %q, %s: not a command of that type", raw, typ, cmd)
		}
		if _, has := m["version"]; has {
			t.Fatalf("ParseMessage(%q) kept the version in %s", raw, cmd)
		}
		if typ != "state" && typ != "load" {
			p.Command(cmd) // must not panic; errors are reported, not thrown
		}
		if !p.State().Valid() {
			t.Fatalf("after %q the player's state is not valid: %+v", raw, p.State())
		}
	})
}

func TestSnippet(t *testing.T) {
	st, _ := ApplyFragment(DefaultState(), "scenario=roofline&step=2&hide=knobs&theme=dark")
	got := Snippet("https://sim.example/gpuscope", st)
	for _, want := range []string{
		`<iframe src="https://sim.example/gpuscope/embed.html#scenario=roofline&amp;step=2&amp;lang=en&amp;`,
		`hide=knobs&amp;theme=dark"`, `loading="lazy"`, `allow="fullscreen"`, `aspect-ratio:16/10`, `title="gpuscope: `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("snippet lacks %q:\n%s", want, got)
		}
	}
}

// A canonical origin is a fixed point, and never holds a character that
// could break out of the fragment or an attribute.
func FuzzCanonicalOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://[::1]:80", "HTTP://X:65535/", "https://a\"b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, o string) {
		c, ok := CanonicalOrigin(o)
		if !ok {
			return
		}
		if again, ok2 := CanonicalOrigin(c); !ok2 || again != c {
			t.Fatalf("CanonicalOrigin(%q) = %q, which canonicalises to %q, %v", o, c, again, ok2)
		}
		if strings.ContainsAny(c[strings.Index(c, "//")+2:], "\"'<>&#,% \t\n/\\@?") {
			t.Fatalf("CanonicalOrigin(%q) = %q holds a forbidden character", o, c)
		}
	})
}

// Issue 41: steps= limits an embed to a range of the lesson's steps; a bad
// range is named, with the lesson's steps, and the last good one kept.
func TestEmbedStepsFragment(t *testing.T) {
	const lesson = "scenario=ring-allreduce&" // six steps
	tests := []struct {
		frag      string
		wantRange StepRange
		wantStep  int
		errs      []string // English messages
	}{
		{"", StepRange{}, 1, nil},
		{"steps=2-4", StepRange{2, 4}, 2, nil}, // step 1 moves into the range
		{"steps=%202%20-%204", StepRange{2, 4}, 2, nil},
		{"steps=3", StepRange{3, 3}, 3, nil},
		{"steps=1-6&step=6", StepRange{1, 6}, 6, nil},
		{"step=5&steps=2-4", StepRange{2, 4}, 2, []string{"step: “5” is outside this embed’s steps; allowed 2–4"}}, // the range first, whatever the order
		{"steps=2-4&step=3", StepRange{2, 4}, 3, nil},
		{"steps=", StepRange{}, 1, nil},
		{"steps=2-4&step=5", StepRange{2, 4}, 2, []string{"step: “5” is outside this embed’s steps; allowed 2–4"}},
		{"steps=4-2", StepRange{}, 1, []string{"steps: “4-2” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=0-2", StepRange{}, 1, []string{"steps: “0-2” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=2-7", StepRange{}, 1, []string{"steps: “2-7” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=two", StepRange{}, 1, []string{"steps: “two” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=-3", StepRange{}, 1, []string{"steps: “-3” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=%2B2-3", StepRange{}, 1, []string{"steps: “+2-3” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=2-3-4", StepRange{}, 1, []string{"steps: “2-3-4” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
		{"steps=1.5", StepRange{}, 1, []string{"steps: “1.5” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"}},
	}
	for _, tt := range tests {
		got, errs := ApplyFragment(DefaultState(), lesson+tt.frag)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		if got.Embed.Steps != tt.wantRange || got.Step != tt.wantStep || strings.Join(msgs, "|") != strings.Join(tt.errs, "|") {
			t.Errorf("ApplyFragment(%q): steps %v, step %d, errors %q; want %v, %d, %q",
				tt.frag, got.Embed.Steps, got.Step, msgs, tt.wantRange, tt.wantStep, tt.errs)
		}
		if !got.Valid() {
			t.Errorf("ApplyFragment(%q) = %+v: not a valid state", tt.frag, got)
		}
	}

	// A bad range keeps the last good one; an empty one lifts it; another
	// lesson starts with all its steps; the fragment writes it back.
	st, _ := ApplyFragment(DefaultState(), lesson+"steps=2-4&step=3")
	if got := EncodeFragment(st); !strings.HasSuffix(got, "&steps=2-4") {
		t.Errorf("EncodeFragment = %q, want steps=2-4 at its end", got)
	}
	if kept, errs := ApplyFragment(st, "steps=5-9"); kept.Embed.Steps != (StepRange{2, 4}) || kept.Step != 3 || len(errs) != 1 || errs[0].Field != "steps" {
		t.Errorf("a bad range after steps=2-4: steps %v, step %d, errors %v; want 2-4 kept, step 3, one error naming steps", kept.Embed.Steps, kept.Step, errs)
	}
	if open, _ := ApplyFragment(st, "steps="); open.Embed.Steps != (StepRange{}) || open.Step != 3 {
		t.Errorf("steps= after steps=2-4: steps %v, step %d; want none, step 3", open.Embed.Steps, open.Step)
	}
	if other, _ := ApplyFragment(st, "scenario=roofline"); other.Embed.Steps != (StepRange{}) {
		t.Errorf("another lesson kept the range %v", other.Embed.Steps)
	}
	if other, errs := ApplyFragment(st, "scenario=roofline&steps=2"); other.Embed.Steps != (StepRange{2, 2}) || other.Step != 2 || len(errs) > 0 {
		t.Errorf("another lesson with steps=2: steps %v, step %d, errors %v", other.Embed.Steps, other.Step, errs)
	}
}

func TestStepRangeBounds(t *testing.T) {
	tests := []struct {
		r           StepRange
		n           int
		first, last int
		clamp1      int // Clamp(1, n)
		clamp9      int // Clamp(9, n)
	}{
		{StepRange{}, 6, 1, 6, 1, 6},
		{StepRange{2, 4}, 6, 2, 4, 2, 4},
		{StepRange{3, 3}, 6, 3, 3, 3, 3},
		{StepRange{2, 7}, 6, 1, 6, 1, 6}, // one the lesson cannot hold: the whole lesson
		{StepRange{4, 2}, 6, 1, 6, 1, 6},
	}
	for _, tt := range tests {
		first, last := tt.r.Bounds(tt.n)
		if first != tt.first || last != tt.last || tt.r.Clamp(1, tt.n) != tt.clamp1 || tt.r.Clamp(9, tt.n) != tt.clamp9 {
			t.Errorf("%v in %d steps: bounds %d–%d, clamps %d %d; want %d–%d, %d %d", tt.r, tt.n,
				first, last, tt.r.Clamp(1, tt.n), tt.r.Clamp(9, tt.n), tt.first, tt.last, tt.clamp1, tt.clamp9)
		}
	}
	for r, want := range map[StepRange]string{{}: "", {2, 4}: "2-4", {3, 3}: "3"} {
		if got := r.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", r, got, want)
		}
	}
}

// The player, its commands and its playing stay inside an embed's range.
func TestPlayerStaysInStepRange(t *testing.T) {
	p := newPlayer(t, "scenario=ring-allreduce&steps=2-4")
	if st := p.State(); st.Step != 2 || p.FirstStep() != 2 || p.LastStep() != 4 {
		t.Fatalf("step %d, range %d–%d; want step 2 of 2–4", st.Step, p.FirstStep(), p.LastStep())
	}
	p.Step(-1)
	if p.State().Step != 2 {
		t.Errorf("Step(-1) at the range's first step went to %d", p.State().Step)
	}
	p.Step(10)
	if p.State().Step != 4 {
		t.Errorf("Step(10) went to %d, want the range's last step 4", p.State().Step)
	}
	for _, tt := range []struct{ cmd, field, msg string }{
		{`{"type":"goto","step":5}`, "step", "step: “5” is outside this embed’s steps; allowed 2–4"},
		{`{"type":"goto","step":1}`, "step", "step: “1” is outside this embed’s steps; allowed 2–4"},
		{`{"type":"set","step":6}`, "step", "step: “6” is outside this embed’s steps; allowed 2–4"},
		{`{"type":"goto","step":1.5}`, "step", "step: “1.5” is not allowed; allowed 2–4"},
		{`{"type":"set","steps":"3-9"}`, "steps", "steps: “3-9” is not a range of this lesson’s steps such as 2-4 or 3; allowed within 1–6"},
	} {
		err := p.Command([]byte(tt.cmd))
		if err == nil || err.Field != tt.field || err.Error() != tt.msg {
			t.Errorf("Command(%s) = %v; want %q", tt.cmd, err, tt.msg)
		}
		if st := p.State(); st.Step != 4 || st.Embed.Steps != (StepRange{2, 4}) {
			t.Errorf("after %s: step %d, range %v; want 4 in 2-4 kept", tt.cmd, st.Step, st.Embed.Steps)
		}
	}
	if got := p.ErrorText("en"); !strings.HasSuffix(got, "— kept steps = 2-4") {
		t.Errorf("ErrorText = %q, want the kept range", got)
	}
	if err := p.Command([]byte(`{"type":"goto","step":3}`)); err != nil || p.State().Step != 3 {
		t.Errorf("goto 3 inside 2-4: %v, step %d", err, p.State().Step)
	}
	// Playing to the end of step 3 moves on to 4; the end of 4 is the end.
	var events []string
	p.Play()
	for range 100000 {
		events = append(events, p.Advance(0.1)...)
		if !p.Playing() {
			if p.State().Step == 4 {
				break
			}
			p.Play()
		}
	}
	if st := p.State(); st.Step != 4 || !slices.Contains(events, EventFinished) {
		t.Errorf("played from step 3: ended at step %d with events %v; want 4 and finished", st.Step, events)
	}
	p.Play() // at the range's end: replays step 4
	if st := p.State(); st.Step != 4 || p.Time() != p.StepRun().From {
		t.Errorf("Play at the range's end: step %d at %v; want step 4 from its start", st.Step, p.Time())
	}
}

// Issue 41: each answer is kept for the page to post once, as an answer
// event with the lesson, step, question and whether it was right.
func TestPlayerAnswerEvents(t *testing.T) {
	p := newPlayer(t, "scenario=nvlink-vs-ib&step=1")
	qs, ok := p.Question()
	if !ok {
		t.Fatal("nvlink-vs-ib step 1 asks no question")
	}
	q := qs.Question
	if got := p.TakeAnswers(); len(got) != 0 {
		t.Fatalf("answers before any: %+v", got)
	}
	wrong := (q.Answer + 1) % len(q.Choices)
	if err := p.Answer(wrong); err != nil {
		t.Fatal(err)
	}
	if err := p.Answer(q.Answer); err != nil {
		t.Fatal(err)
	}
	if err := p.Answer(99); err == nil {
		t.Fatal("Answer(99) accepted")
	}
	got := p.TakeAnswers()
	want := []AnswerEvent{
		{Source: "gpuscope", Version: 1, Type: "answer", Lesson: "nvlink-vs-ib", Step: 1, StepID: "race", Question: "ib-slowdown", Choice: wrong, Correct: false},
		{Source: "gpuscope", Version: 1, Type: "answer", Lesson: "nvlink-vs-ib", Step: 1, StepID: "race", Question: "ib-slowdown", Choice: q.Answer, Correct: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("TakeAnswers() = %+v\nwant %+v", got, want)
	}
	if again := p.TakeAnswers(); len(again) != 0 {
		t.Errorf("TakeAnswers() again = %+v, want none", again)
	}
	b, err := tinyjson.Marshal(want[0])
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"source":"gpuscope","version":1,"type":"answer","lesson":"nvlink-vs-ib","step":1,"step_id":"race","question":"ib-slowdown","choice":%d,"correct":false,"time":0}`
	if string(b) != fmt.Sprintf(wantJSON, wrong) {
		t.Errorf("JSON %s, want "+wantJSON, b, wrong)
	}
}
