//go:build !i18nfetch

package i18n

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCataloguesParse(t *testing.T) {
	for _, err := range loadErrs {
		t.Error(err)
	}
}

// TestSameKeys reports, as file:line, every key one language has and
// another lacks.
func TestSameKeys(t *testing.T) {
	en := catalogues["en"]
	for _, lang := range langs[1:] {
		other := catalogues[lang]
		for _, k := range Keys("en") {
			if _, ok := other.entries[k]; !ok {
				t.Errorf("%s:%d: %s: missing from %s", en.file, en.entries[k].line, k, other.file)
			}
		}
		for _, k := range Keys(lang) {
			if _, ok := en.entries[k]; !ok {
				t.Errorf("%s:%d: %s: missing from %s", other.file, other.entries[k].line, k, en.file)
			}
		}
	}
}

// TestSamePlaceholders checks that every placeholder of an English value is
// in the other languages' value and vice versa.
func TestSamePlaceholders(t *testing.T) {
	en := catalogues["en"]
	for _, lang := range langs[1:] {
		other := catalogues[lang]
		for k, e := range en.entries {
			o, ok := other.entries[k]
			if !ok {
				continue // TestSameKeys reports it
			}
			got, want := placeholders(o.value), placeholders(e.value)
			if !slices.Equal(got, want) {
				t.Errorf("%s:%d: %s: placeholders %v, want %v as in %s:%d", other.file, o.line, k, got, want, en.file, e.line)
			}
		}
	}
}

// TestRequiredKeys lists the keys other packages rely on by name.
func TestRequiredKeys(t *testing.T) {
	required := []string{
		"ui.title", "ui.prev", "ui.next", "ui.play", "ui.pause", "ui.speed", "ui.timeline",
		"ui.lang", "ui.step", "ui.time", "ui.loading", "ui.loading_failed", "ui.knobs",
		"ui.numbers", "ui.source", "ui.restart", "ui.webgl_missing",
		"knob.gpus", "knob.bytes", "knob.link", "knob.algo",
		"link.nvlink4", "link.ib-ndr", "algo.ring", "algo.star",
		"metric.time_s", "metric.bytes_sent_per_rank", "metric.algbw_GBps", "metric.busbw_GBps",
		"metric.closed_form_time_s", "metric.rounds", "metric.ring", "metric.star",
		"source.ring.time_s", "source.ring.bytes_sent_per_rank", "source.star.time_s",
		"source.star.bytes_sent_per_rank", "source.algbw", "source.busbw",
		"lesson.ring-allreduce.title", "lesson.ring-allreduce.summary",
		"error.int", "error.range", "error.bytes", "error.enum", "error.scenario", "error.step",
		"error.lang", "error.unknown_key", "error.fragment_too_long", "error.command", "error.kept",
	}
	for _, id := range []string{"star", "ring", "rs-first", "reduce-scatter", "all-gather", "compare"} {
		required = append(required, "step.ring-allreduce."+id+".title", "step.ring-allreduce."+id+".text")
	}
	for _, lang := range langs {
		for _, k := range required {
			if !Has(lang, k) {
				t.Errorf("%s.txt: missing required key %s", lang, k)
			}
		}
	}
}

// TestErrorPlaceholders pins the placeholders of the error messages: the
// code that fills them passes exactly these names.
func TestErrorPlaceholders(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"error.int", []string{"field", "max", "min", "value"}},
		{"error.range", []string{"field", "max", "min", "value"}},
		{"error.bytes", []string{"field", "max", "min", "value"}},
		{"error.enum", []string{"allowed", "field", "value"}},
		{"error.scenario", []string{"allowed", "value"}},
		{"error.step", []string{"max", "value"}},
		{"error.lang", []string{"value"}},
		{"error.unknown_key", []string{"allowed", "field"}},
		{"error.fragment_too_long", []string{"length", "max"}},
		{"error.command", []string{"detail"}},
		{"error.kept", []string{"field", "value"}},
		{"ui.step", []string{"n", "total"}},
		{"ui.time", []string{"t"}},
	}
	for _, tt := range tests {
		if got := placeholders(T("en", tt.key)); !slices.Equal(got, tt.want) {
			t.Errorf("placeholders of %s = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// Lesson texts' placeholders are checked against what each lesson's engine
// fills in by scenarios' TestNarrationFillsEveryPlaceholder.

// TestChineseKeepsTerms checks that the Chinese text does not translate
// the terms practitioners write in English (GLOSSARY.md).
func TestChineseKeepsTerms(t *testing.T) {
	banned := []string{"全归约", "归约散射", "全收集", "英伟达链路", "无限带宽", "图形处理器"}
	c := catalogues["zh"]
	for k, e := range c.entries {
		for _, b := range banned {
			if strings.Contains(e.value, b) {
				t.Errorf("%s:%d: %s: uses %q; keep the English term (GLOSSARY.md)", c.file, e.line, k, b)
			}
		}
	}
}

func TestLangs(t *testing.T) {
	if got, want := Langs(), []string{"en", "zh"}; !slices.Equal(got, want) {
		t.Errorf("Langs() = %v, want %v", got, want)
	}
	l := Langs()
	l[0] = "xx"
	if got := Langs()[0]; got != "en" {
		t.Errorf("Langs()[0] = %q after the caller changed its copy, want en", got)
	}
}

func TestT(t *testing.T) {
	tests := []struct {
		lang, key string
		args      []string
		want      string
	}{
		{"en", "ui.step", []string{"n", "3", "total", "6"}, "Step 3 / 6"},
		{"zh", "ui.step", []string{"n", "3", "total", "6"}, "第 3 步，共 6 步"},
		{"fr", "ui.step", []string{"n", "3", "total", "6"}, "Step 3 / 6"},
		{"", "ui.play", nil, "Play"},
		{"en", "ui.step", []string{"n", "3"}, "Step 3 / {total}"},
		{"en", "ui.step", []string{"n", "3", "total"}, "Step 3 / {total}"},
		{"en", "ui.step", []string{"n", "{total}", "total", "6"}, "Step {total} / 6"},
		{"en", "ui.time", []string{"t", "1.06 ms", "unused", "x"}, "t = 1.06 ms"},
		{"en", "no.such.key", nil, "⟦no.such.key⟧"},
		{"zh", "no.such.key", []string{"a", "b"}, "⟦no.such.key⟧"},
		{"en", "error.kept", []string{"field", "gpus", "value", "8"}, " — kept gpus = 8"},
		{"en", "error.range", []string{"field", "gpus", "value", "100000", "min", "2", "max", "64"}, "gpus: 100000 is out of range; allowed 2–64"},
	}
	for _, tt := range tests {
		if got := T(tt.lang, tt.key, tt.args...); got != tt.want {
			t.Errorf("T(%q, %q, %q) = %q, want %q", tt.lang, tt.key, tt.args, got, tt.want)
		}
	}
}

func TestHasAndKeys(t *testing.T) {
	if !Has("en", "ui.play") || !Has("zh", "ui.play") || !Has("xx", "ui.play") {
		t.Errorf("Has(*, ui.play) = false, want true in en, zh and the fallback")
	}
	if Has("en", "ui.nope") {
		t.Errorf("Has(en, ui.nope) = true, want false")
	}
	keys := Keys("en")
	if !slices.IsSorted(keys) {
		t.Errorf("Keys(en) is not sorted")
	}
	if !slices.Contains(keys, "ui.play") {
		t.Errorf("Keys(en) lacks ui.play")
	}
	if got, want := len(Keys("zz")), len(keys); got != want {
		t.Errorf("len(Keys(zz)) = %d, want the English %d", got, want)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		key     string
		want    string
		wantErr string // substring of the first error, "" for none
	}{
		{"plain", "a.b = hello world  ", "a.b", "hello world", ""},
		{"comment and blank", "# c\n\n  # d\nk=v", "k", "v", ""},
		{"equals in value", "k = a = b", "k", "a = b", ""},
		{"newline escape", `k = one\ntwo`, "k", "one\ntwo", ""},
		{"space escape", `k = \s— x`, "k", " — x", ""},
		{"backslash escape", `k = a\\n`, "k", `a\n`, ""},
		{"crlf", "k = v\r\n", "k", "v", ""},
		{"bom", "\uFEFFk = v", "k", "v", ""},
		{"no equals", "ok = 1\njust text", "", "", "x.txt:2: missing '='"},
		{"empty key", " = v", "", "", "x.txt:1: bad key"},
		{"space in key", "a b = v", "", "", "x.txt:1: bad key"},
		{"empty value", "k =  ", "", "", "x.txt:1: k: empty value"},
		{"duplicate", "k = 1\n\nk = 2", "", "", "x.txt:3: duplicate key k (first on line 1)"},
		{"bad escape", `k = a\t`, "", "", `x.txt:1: k: unknown escape \t`},
		{"lone backslash", `k = a\`, "", "", `x.txt:1: k: lone '\'`},
		{"unclosed brace", "k = {name", "", "", "x.txt:1: k: bad placeholder"},
		{"bad placeholder", "k = {Na me}", "", "", "x.txt:1: k: bad placeholder"},
		{"stray close", "k = a}", "", "", "x.txt:1: k: '}' without '{'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, errs := parse("x.txt", tt.src)
			if tt.wantErr != "" {
				if len(errs) == 0 {
					t.Fatalf("parse(%q) gave no error, want %q", tt.src, tt.wantErr)
				}
				if got := errs[0].Error(); !strings.Contains(got, tt.wantErr) {
					t.Errorf("parse(%q) error = %q, want it to contain %q", tt.src, got, tt.wantErr)
				}
				return
			}
			for _, err := range errs {
				t.Errorf("parse(%q): unexpected error %v", tt.src, err)
			}
			if got := c.entries[tt.key].value; got != tt.want {
				t.Errorf("parse(%q)[%s] = %q, want %q", tt.src, tt.key, got, tt.want)
			}
		})
	}
}

func TestPlaceholders(t *testing.T) {
	got := placeholders("{b} and {a}, {b} again, {Not} {} {x_1}")
	want := []string{"a", "b", "x_1"}
	if !slices.Equal(got, want) {
		t.Errorf("placeholders = %v, want %v", got, want)
	}
}

func ExampleT() {
	fmt.Println(T("en", "ui.step", "n", "2", "total", "6"))
	fmt.Println(T("zh", "ui.step", "n", "2", "total", "6"))
	fmt.Println(T("en", "ui.missing"))
	// Output:
	// Step 2 / 6
	// 第 2 步，共 6 步
	// ⟦ui.missing⟧
}
