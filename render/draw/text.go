package draw

import (
	"strings"
	"unicode"

	"github.com/gpuscope/gpuscope/render/font"
)

// TextSize is the smallest text of the strategy pictures at scale sc:
// 13.5 px at 1280×800, 20 px in presentation mode (scale 1.5).
func TextSize(sc float32) float32 { return 13.5 * sc }

// TextWidth is a label's width as the painter draws it (render/font): Go
// Regular's advances, a CJK character one em. It is render's one text
// measure: every layout, fitter, wrapper and the label placer measure by
// it, as the picture-rule tests judge by it (issue 38).
func TextWidth(s string, size float32) float32 {
	return font.Width(s, size)
}

// Fit is s cut, with an ellipsis, to w pixels at size fs — never in the
// middle of a Latin word (a cut "ZeR…" reads as another word) unless it
// is the first. It is render's one fitter: labels, titles, the placer's
// and the zooms' all cut by it. A cut is kept for the next frame's same
// question (cutting measures the label again for each rune it drops).
func Fit(s string, fs, w float32) string {
	if TextWidth(s, fs) <= w {
		return s
	}
	return fits.Format(fitKey{s, fs, w}, fitCut)
}

type fitKey struct {
	s     string
	fs, w float32
}

var fits Memo[fitKey]

// fitCut is Fit worked out.
func fitCut(k fitKey) string {
	s, fs, w := k.s, k.fs, k.w
	r := []rune(s)
	for len(r) > 1 && TextWidth(string(r)+"…", fs) > w {
		r = r[:len(r)-1]
	}
	full := []rune(s)
	if n := len(r); n < len(full) && inWord(full[n]) && inWord(r[n-1]) {
		k := n
		for k > 0 && inWord(r[k-1]) {
			k--
		}
		if k > 0 {
			r = r[:k]
		}
	}
	return strings.TrimRight(string(r), " ") + "…"
}

func isLatin(c rune) bool { return c < 0x250 && unicode.IsLetter(c) }

// inWord reports whether c belongs to a Latin word for cutting: a letter
// or a hyphen ("All-to-All" is not cut to "All-to").
func inWord(c rune) bool { return isLatin(c) || c == '-' }
