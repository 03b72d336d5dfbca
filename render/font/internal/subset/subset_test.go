package subset

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

func TestSubsetRefusesMissingRunes(t *testing.T) {
	_, err := Subset(goregular.TTF, []rune("a✓b⌘"))
	if err == nil || !strings.Contains(err.Error(), `"✓⌘"`) {
		t.Errorf("Subset with runes Go Regular lacks: %v, want an error naming ✓ and ⌘", err)
	}
	if _, err := Subset(goregular.TTF, []rune{0x1f600}); err == nil {
		t.Error("Subset of a rune outside the BMP: no error")
	}
}

// A composite glyph keeps its components: 'é' (U+00E9) is built from 'e'
// and an accent in Go Regular.
func TestSubsetKeepsComponents(t *testing.T) {
	out, err := Subset(goregular.TTF, []rune("é"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sfnt.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var b sfnt.Buffer
	x, _ := f.GlyphIndex(&b, 'é')
	segs, err := f.LoadGlyph(&b, x, 1<<12, nil)
	if err != nil || len(segs) == 0 {
		t.Fatalf("é in the subset: %d segments, %v", len(segs), err)
	}
	if y, _ := f.GlyphIndex(&b, 'e'); y != 0 {
		t.Error("'e' is mapped, though only 'é' was asked for")
	}
}

// Malformed fonts give an error, never a panic.
func TestSubsetMalformed(t *testing.T) {
	runes := []rune("Ag×é")
	for _, n := range []int{0, 11, 12, 100, 300, 1000, len(goregular.TTF) / 2, len(goregular.TTF) - 1} {
		if _, err := Subset(goregular.TTF[:n], runes); err == nil && n < 300 {
			t.Errorf("Subset of the first %d bytes: no error", n)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := []byte(string(goregular.TTF))
		for range 1 + rng.IntN(20) {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		Subset(b, runes) // must not panic
	}
}

func TestScan(t *testing.T) {
	uses, err := Scan("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[rune]string{}
	for _, u := range uses {
		found[u.Rune] = u.At
	}
	// × is in a builder's literal, − only in the catalogues' prose.
	if at := found['×']; !strings.HasPrefix(at, "render/") {
		t.Errorf("× found at %q, want a render/*.go literal", at)
	}
	if at := found['中']; !strings.HasPrefix(at, "scenarios/i18n/zh.txt:") {
		t.Errorf("中 found at %q, want zh.txt", at)
	}
	if _, err := Scan(t.TempDir()); err == nil {
		t.Error("Scan of an empty tree: no error")
	}
	rs := Runes(uses, IsCJK)
	for _, r := range rs {
		if IsCJK(r) || strings.ContainsRune(Absent, r) {
			t.Errorf("Runes keeps %q", r)
		}
	}
}
