package font

import (
	_ "embed"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

//go:generate go run ./internal/gen

// TTF is the canvas font: Go Regular cut down to the runes the canvas
// draws (see the package comment).
//
//go:embed goregular-subset.ttf
var TTF []byte

// The painter's text sizes, in whole pixels: smaller and larger sizes are
// drawn at these.
const (
	MinSize = 8
	MaxSize = 96
)

// Size is the whole pixel size a label of size px is drawn at: px rounded
// to the nearest pixel and clamped to MinSize..MaxSize.
func Size(px float32) int {
	s := int(math.Round(float64(px)))
	return max(MinSize, min(MaxSize, s))
}

// Parse returns TTF parsed, once.
var Parse = sync.OnceValues(func() (*sfnt.Font, error) { return sfnt.Parse(TTF) })

// metrics are the advances of the kept runes in font units.
type metrics struct {
	upem   int32
	ascii  [128]int32 // -1: not in the font
	other  map[rune]int32
	notdef int32
}

var table = sync.OnceValue(func() *metrics {
	m := &metrics{other: make(map[rune]int32, len(keptRunes))}
	for i := range m.ascii {
		m.ascii[i] = -1
	}
	f, err := Parse()
	if err != nil {
		return m // cannot happen: TTF is fixed, and a test parses it
	}
	m.upem = int32(f.UnitsPerEm())
	var b sfnt.Buffer
	units := func(x sfnt.GlyphIndex) int32 {
		// At a ppem of one unit per em, sfnt's scaling is the identity.
		a, _ := f.GlyphAdvance(&b, x, fixed.Int26_6(m.upem), font.HintingNone)
		return int32(a)
	}
	m.notdef = units(0)
	for _, r := range keptRunes {
		x, err := f.GlyphIndex(&b, r)
		if err != nil || x == 0 {
			continue
		}
		if r < 128 {
			m.ascii[r] = units(x)
		} else {
			m.other[r] = units(x)
		}
	}
	return m
})

// units is r's advance in font units and whether the font has r.
func (m *metrics) units(r rune) (int32, bool) {
	if r >= 0 && r < 128 {
		u := m.ascii[r]
		return u, u >= 0
	}
	u, ok := m.other[r]
	return u, ok
}

// Has reports whether the subset has a glyph for r.
func Has(r rune) bool {
	_, ok := table().units(r)
	return ok
}

// IsCJK reports whether r is in a block of Chinese characters or
// punctuation: CJK Radicals and Kangxi Radicals (U+2E80–2FDF), CJK Symbols
// and Punctuation (U+3000–303F), CJK Unified Ideographs and Extension A
// (U+3400–9FFF) and Halfwidth and Fullwidth Forms (U+FF00–FFEF).
func IsCJK(r rune) bool {
	return (r >= 0x2e80 && r <= 0x2fdf) || (r >= 0x3000 && r <= 0x303f) ||
		(r >= 0x3400 && r <= 0x9fff) || (r >= 0xff00 && r <= 0xffef)
}

// Fallback reports whether the browser draws r: a CJK rune the subset
// lacks, one em wide.
func Fallback(r rune) bool { return IsCJK(r) && !Has(r) }

// AdvanceFixed is how far the painter's pen moves after r at a whole
// pixel size (as Size returns), in 26.6 fixed point: Go Regular's
// advance, one em for a Fallback rune, the .notdef box's for any other
// rune the subset lacks.
func AdvanceFixed(r rune, size int) fixed.Int26_6 {
	m := table()
	u, ok := m.units(r)
	if !ok {
		if IsCJK(r) {
			return fixed.I(size)
		}
		u = m.notdef
	}
	// As sfnt scales an advance: units × ppem ÷ units per em, rounded
	// half away from zero.
	x := fixed.Int26_6(u) * fixed.I(size)
	return (x + fixed.Int26_6(m.upem)/2) / fixed.Int26_6(m.upem)
}

// Advance is r's advance in pixels at size px (rounded and clamped as
// Size does).
func Advance(r rune, px float32) float32 {
	return float32(AdvanceFixed(r, Size(px))) / 64
}

// Width is the width of s in pixels at size px (rounded and clamped as
// Size does): the sum of its advances, as the painter lays it out.
func Width(s string, px float32) float32 {
	size := Size(px)
	var w fixed.Int26_6
	for _, r := range s {
		w += AdvanceFixed(r, size)
	}
	return float32(w) / 64
}
