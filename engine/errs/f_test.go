package errs

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type kind string

// F's message is fmt.Sprintf's, and each named argument is spelt as the
// message spells it: %d and %g as strconv writes them, %s as it is, %q
// without its quotes.
func TestF(t *testing.T) {
	for _, c := range []struct {
		format, names string
		args          []any
		want          []string
	}{
		{"ep: %d does not divide the %d experts", "ep experts", []any{3, 64}, []string{"ep", "3", "experts", "64"}},
		{"zero: %d with pp %d", "zero pp", []any{3, -2}, []string{"zero", "3", "pp", "-2"}},
		{"%s: %g; allowed %g–%g%s", "name n lo hi", []any{"skew", math.NaN(), 0.0, 2e18, " (x)"}, []string{"name", "skew", "n", "NaN", "lo", "0", "hi", "2e+18"}},
		{"ffn-kind: %q; a mixture", "kind", []any{kind("a\"b\n")}, []string{"kind", Quoted("a\"b\n")}},
		{"%s: not read by %s (%s); use %s", "name type - allowed", []any{"k", "llama", "LlamaModel", "a, b"}, []string{"name", "k", "type", "llama", "allowed", "a, b"}},
		{"100%% of %d: %d", "n", []any{int64(1) << 40, 5}, []string{"n", strconv.FormatInt(1<<40, 10)}},
		{"dtype: %s has no %s unit", "", []any{"H100", "fp4"}, nil},
	} {
		e := F("code", c.format, c.names, c.args...)
		if want := fmt.Sprintf(c.format, c.args...); e.Error() != want || e.Code != "code" {
			t.Errorf("F(%q) = %q, %q; want %q", c.format, e.Code, e.Error(), want)
		}
		if !slices.Equal(e.Args, c.want) {
			t.Errorf("F(%q).Args = %q, want %q", c.format, e.Args, c.want)
		}
	}
}

// The helpers' arguments are their values as the message spells them.
func TestHelpersArgs(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want []string
	}{
		{Range("top-k", -3, 1, 8, " (the experts)"), []string{"name", "top-k", "n", "-3", "lo", "1", "hi", "8"}},
		{RangeG("bytes", 2e18, 0, 1e18, ""), []string{"name", "bytes", "n", "2e+18", "lo", "0", "hi", "1e+18"}},
		{RangeG("busy", 0.25, 0, 1, ""), []string{"name", "busy", "n", "0.25", "lo", "0", "hi", "1"}},
		{Positive("ffn", 0), []string{"name", "ffn", "n", "0"}},
	} {
		if c.e.Code != "hf_range" && c.e.Code != "positive" || !slices.Equal(c.e.Args, c.want) {
			t.Errorf("%s: Args = %q, want %q", c.e.Code, c.e.Args, c.want)
		}
	}
}

// F spells a value by fmt.Sprint, which writes it as a plain %d, %g, %s
// or %v does: every format given F in the engine's sources has plain
// verbs only (no flags, width or precision).
func TestFormatsPlain(t *testing.T) {
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../scenarios/*.go")
	call := regexp.MustCompile(`\bF\("[^"]*",\s*"((?:[^"\\]|\\.)*)"`)
	verb := regexp.MustCompile(`%[^%dgqsv]`)
	n := 0
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			n++
			if v := verb.FindString(strings.ReplaceAll(m[1], "%%", "")); v != "" {
				t.Errorf("%s: F's format %q has %s…, not a plain verb", f, m[1], v)
			}
		}
	}
	if n < 40 {
		t.Errorf("found %d formats given F; is the scan broken?", n)
	}
}
