package course

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// quantity matches a number with a unit as prose and the engine's words
// write one: "75.6 GB", "14.7 s", "3.6%", "394 TFLOP/s", "406B", "3.64M"; quantities
// checks what comes before and after it (RE2 has no lookaround).
var quantity = regexp.MustCompile(`([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:\.[0-9]+)?)( ?(?:TFLOP/s|PFLOP/s|GFLOP/s|GB/s|TB/s|MB/s|TB|GB|MB|kB|KB|ms|µs|ns|s|%)|[BMT])`)

// quantities are text's numbers with units, each as "75.6 GB": not part
// of a longer number before, nor of a word after ("5 steps", "2 sms").
func quantities(text string) []string {
	var out []string
	for _, m := range quantity.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && strings.ContainsAny(text[m[0]-1:m[0]], "0123456789.,") {
			continue
		}
		if m[1] < len(text) {
			if c := text[m[1]]; c == '/' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
				continue
			}
		}
		out = append(out, text[m[2]:m[3]]+" "+strings.TrimSpace(text[m[4]:m[5]]))
	}
	return out
}

var showSet = regexp.MustCompile(`set="([^"]*)"`)

// engineQuantities are the numbers with units the engine gives lesson s
// in lang: every step's narration, title and numbers table, at the
// lesson's defaults and at each "show me" block's settings in src.
func engineQuantities(t *testing.T, s *scenarios.Scenario, lang string, src []byte) map[string]bool {
	known := map[string]bool{}
	add := func(cfg scenarios.Config) {
		les, err := scenarios.Prepare(s, cfg)
		if err != nil {
			t.Errorf("%s: %v", s.ID, err)
			return
		}
		for n := 1; n <= len(s.Steps); n++ {
			args := les.StepNarrationArgs(n, lang)
			st := s.Steps[n-1]
			text := []string{i18n.T(lang, st.Text, args...), i18n.T(lang, st.Title, args...)}
			for _, r := range les.Table(n, lang).Rows {
				text = append(text, r.Cells...)
			}
			for _, q := range quantities(strings.Join(text, "\n")) {
				known[q] = true
			}
		}
	}
	add(s.Defaults())
	for _, m := range showSet.FindAllSubmatch(src, -1) {
		set, err := parseSet(s, string(m[1]))
		if err != nil {
			continue // the course build reports it
		}
		cfg := s.Defaults()
		for _, a := range set {
			cfg[a.knob] = a.value
		}
		add(cfg)
	}
	return known
}

// Every number with a unit in a lesson's course page (both languages) is
// one the engine gives that lesson — in a step's narration or numbers
// table, at the lesson's defaults or a "show me" block's settings — or
// is listed in testdata/prose_numbers.golden as not the engine's (a
// published figure, a spec, a hand-worked or other-settings number).
// So an engine change that moves a number the prose quotes fails here,
// naming the page and the number, instead of leaving the page silently
// wrong. go test ./internal/course -run TestProseNumbers -update
// rewrites the list once the prose is right.
func TestProseNumbers(t *testing.T) {
	var lines []string
	quoted, fromEngine := 0, 0
	for _, s := range scenarios.All() {
		for _, lang := range []string{"en", "zh"} {
			page := filepath.Join("site", "course", lang, s.ID+".md")
			src, err := os.ReadFile(filepath.Join("..", "..", page))
			if err != nil {
				t.Errorf("%s: %v", s.ID, err)
				continue
			}
			known := engineQuantities(t, s, lang, src)
			seen := map[string]bool{}
			for _, q := range quantities(string(src)) {
				quoted++
				if known[q] {
					fromEngine++
				} else if !seen[q] {
					seen[q] = true
					lines = append(lines, s.ID+" "+lang+" "+q)
				}
			}
		}
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"
	t.Logf("%d numbers with units on the lesson pages, %d of them the engine's; %d others listed", quoted, fromEngine, len(lines))
	if quoted == 0 || fromEngine*3 < quoted {
		t.Errorf("%d of %d quoted numbers found among the engine's: the check is not reading what it should", fromEngine, quoted)
	}
	const list = "prose_numbers.golden"
	if golden.Updating() {
		golden.Check(t, list, got)
		return
	}
	want, err := os.ReadFile(filepath.Join("testdata", list))
	if err != nil {
		t.Fatalf("%v (run go test ./internal/course -run TestProseNumbers -update to create it)", err)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		listed[l] = true
	}
	for _, l := range lines {
		if !listed[l] {
			id, rest, _ := strings.Cut(l, " ")
			lang, q, _ := strings.Cut(rest, " ")
			t.Errorf("site/course/%s/%s.md quotes %s, which is not among the numbers the engine gives that lesson (its steps' narration and tables, at its defaults and its show-me settings): stale after an engine change? Correct the page; if the number is not the engine's, run go test ./internal/course -run TestProseNumbers -update", lang, id, q)
		}
		delete(listed, l)
	}
	for l := range listed {
		t.Errorf("testdata/%s lists %q, which the page no longer quotes or the engine now gives: run go test ./internal/course -run TestProseNumbers -update", list, l)
	}
}
