package font

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/gpuscope/gpuscope/render/font/internal/subset"
)

// The committed subset is what go generate makes from today's sources.
func TestSubsetUpToDate(t *testing.T) {
	ttf, runesGo, err := subset.Generate("../..", subset.IsCJK)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{subset.FontFile: ttf, subset.RunesFile: runesGo} {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("render/font/%s is stale: run go generate ./render/font (or make font) and commit it", name)
		}
	}
}

// Every rune outside ASCII that a builder's literal or a catalogue holds
// can be drawn: it is in the subset, or it is CJK and the browser draws
// it, or it is one of the few Go Regular lacks, listed as never drawn.
// (The list of places is meant to grow to every display list of every
// lesson.)
func TestCanvasRunesDrawable(t *testing.T) {
	uses, err := subset.Scan("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(uses) == 0 {
		t.Fatal("Scan found no runes outside ASCII in the sources")
	}
	for _, u := range uses {
		switch {
		case Has(u.Rune), Fallback(u.Rune):
		case strings.ContainsRune(subset.Absent, u.Rune):
		default:
			t.Errorf("%s: %q (%U) is not in the canvas font: run go generate ./render/font", u.At, u.Rune, u.Rune)
		}
	}
	for r := range 0x80 {
		if r >= 0x20 && r < 0x7f && !Has(rune(r)) {
			t.Errorf("printable ASCII %q missing from the subset", rune(r))
		}
	}
	for _, r := range subset.Extra {
		if !Has(r) {
			t.Errorf("subset.Extra's %q missing from the subset", r)
		}
	}
	// Absent lists only runes Go Regular cannot supply.
	orig, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	var b sfnt.Buffer
	for _, r := range subset.Absent {
		if x, _ := orig.GlyphIndex(&b, r); x != 0 {
			t.Errorf("subset.Absent lists %q, which Go Regular has: keep it instead", r)
		}
	}
}

func TestCJKRangesAgree(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if IsCJK(r) != subset.IsCJK(r) {
			t.Fatalf("IsCJK(%U) = %v, subset.IsCJK = %v", r, IsCJK(r), subset.IsCJK(r))
		}
	}
	for _, tt := range []struct {
		r    rune
		want bool
	}{{'中', true}, {'。', true}, {'，', true}, {'㐀', true}, {'⺀', true}, {'a', false}, {'×', false}, {'あ', false}, {'한', false}} {
		if got := Fallback(tt.r); got != tt.want {
			t.Errorf("Fallback(%q) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

// The cmap maps exactly the kept runes: a rune that was cut is absent,
// not mapped to an empty glyph.
func TestCmapExact(t *testing.T) {
	f, err := Parse()
	if err != nil {
		t.Fatal(err)
	}
	var b sfnt.Buffer
	n := 0
	for r := rune(0); r <= 0xffff; r++ {
		x, err := f.GlyphIndex(&b, r)
		if err != nil {
			t.Fatalf("GlyphIndex(%U): %v", r, err)
		}
		if kept := strings.ContainsRune(keptRunes, r); (x != 0) != kept {
			t.Errorf("rune %q: glyph %d, kept %v", r, x, kept)
		}
		if x != 0 {
			n++
		}
		if Has(r) != (x != 0) {
			t.Errorf("Has(%q) = %v, glyph %d", r, Has(r), x)
		}
	}
	if n != len([]rune(keptRunes)) {
		t.Errorf("cmap maps %d runes, keptRunes has %d", n, len([]rune(keptRunes)))
	}
	if len(TTF) > 40_000 {
		t.Errorf("the subset is %d bytes; Go Regular is %d: did it stop cutting?", len(TTF), len(goregular.TTF))
	}
}

func face(t *testing.T, ttf []byte, size int) font.Face {
	t.Helper()
	f, err := opentype.Parse(ttf)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

// Advances are Go Regular's, at every size the painter draws, through
// the same x/image code the painter uses; a cut rune advances by .notdef's
// width as the painter draws it, a CJK rune by one em.
func TestAdvancesMatchGoRegular(t *testing.T) {
	for size := MinSize; size <= MaxSize; size++ {
		orig, sub := face(t, goregular.TTF, size), face(t, TTF, size)
		for _, r := range keptRunes {
			want, ok := orig.GlyphAdvance(r)
			if !ok {
				t.Fatalf("Go Regular lacks kept rune %q", r)
			}
			if got := AdvanceFixed(r, size); got != want {
				t.Errorf("AdvanceFixed(%q, %d) = %v, Go Regular's %v", r, size, got, want)
			}
			if got, _ := sub.GlyphAdvance(r); got != want {
				t.Errorf("subset face advance(%q, %d) = %v, Go Regular's %v", r, size, got, want)
			}
		}
		notdef, _ := sub.GlyphAdvance('ᵀ') // cut: .notdef
		for _, r := range "ᵀЖ\u0300" {
			if got := AdvanceFixed(r, size); got != notdef {
				t.Errorf("AdvanceFixed(%q, %d) = %v, want .notdef's %v", r, size, got, notdef)
			}
		}
		for _, r := range "中文，。" {
			if got := AdvanceFixed(r, size); got != fixed.I(size) {
				t.Errorf("AdvanceFixed(%q, %d) = %v, want one em", r, size, got)
			}
		}
	}
}

// Outlines are Go Regular's: each kept rune rasterises to the same mask,
// at the painter's quarter-pixel offsets.
func TestOutlinesMatchGoRegular(t *testing.T) {
	for _, size := range []int{8, 13, 24, 61} {
		orig, sub := face(t, goregular.TTF, size), face(t, TTF, size)
		for _, r := range keptRunes {
			for q := range 4 {
				dot := fixed.Point26_6{X: fixed.Int26_6(q * 16)}
				dr0, m0, mp0, _, ok0 := orig.Glyph(dot, r)
				dr1, m1, mp1, _, ok1 := sub.Glyph(dot, r)
				if ok0 != ok1 || dr0 != dr1 {
					t.Fatalf("%q at %d px: glyph bounds %v (%v), Go Regular's %v (%v)", r, size, dr1, ok1, dr0, ok0)
				}
				if !sameMask(m0, mp0, m1, mp1, dr0.Dx(), dr0.Dy()) {
					t.Errorf("%q at %d px, offset %d/4: mask differs from Go Regular's", r, size, q)
				}
			}
		}
	}
}

func sameMask(a image.Image, ap image.Point, b image.Image, bp image.Point, w, h int) bool {
	for y := range h {
		for x := range w {
			_, _, _, aa := a.At(ap.X+x, ap.Y+y).RGBA()
			_, _, _, ba := b.At(bp.X+x, bp.Y+y).RGBA()
			if aa != ba {
				return false
			}
		}
	}
	return true
}

func TestSizeAndWidth(t *testing.T) {
	for _, tt := range []struct {
		px   float32
		want int
	}{{0, MinSize}, {7.4, MinSize}, {12.49, 12}, {12.5, 13}, {13.2, 13}, {200, MaxSize}, {-5, MinSize}} {
		if got := Size(tt.px); got != tt.want {
			t.Errorf("Size(%v) = %d, want %d", tt.px, got, tt.want)
		}
	}
	s := "GPU 3 · 43.75 GB 中文"
	var sum fixed.Int26_6
	for _, r := range s {
		sum += AdvanceFixed(r, 13)
	}
	if got, want := Width(s, 13.2), float32(sum)/64; got != want {
		t.Errorf("Width(%q, 13.2) = %v, want the sum of advances at 13 px, %v", s, got, want)
	}
	if got, want := Advance('中', 16), float32(16); got != want {
		t.Errorf("Advance('中', 16) = %v, want %v", got, want)
	}
	if Width("", 16) != 0 {
		t.Error("Width of the empty string is not 0")
	}
}

func ExampleWidth() {
	fmt.Println(Width("80 GB", 16), Width("显存", 16), Advance('W', 16))
	// Output: 45.390625 32 15.109375
}
