package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
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
			st := State{Scenario: s.ID, Step: 1, Lang: "zh", Config: s.Defaults(), Embed: e}
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
