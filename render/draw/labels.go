package draw

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FitLabel is s cut, with an ellipsis, to w pixels at size fs (TextWidth).
func FitLabel(s string, fs, w float32) string {
	if TextWidth(s, fs) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && TextWidth(string(r)+"…", fs) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// Wrap2 breaks s into two lines that fit w at fs; s and "" when it fits
// on one. It breaks between a title's pieces (after a " · ", "，" or
// "："), else at a space between words, else at any space — one inside
// brackets, after a number, beside a "×" or between a word and its
// number ("(450 GB/s one way)", "1 GB", "72 × GB200", "GPU 0") only when
// nothing else does: the last break of the best kind that leaves both
// lines within w; where none does, the last of the best kind that leaves
// the first line at least half of w, the second cut to fit. A " · " at
// the break is dropped, not left to begin or end a line.
func Wrap2(s string, fs, w float32) (string, string) {
	if TextWidth(s, fs) <= w {
		return s, ""
	}
	var both [3]int // the last break of each kind (any space, a space between words, a piece's end) leaving both lines within w
	var full [3]int // … leaving the first line within w and at least w/2
	var last [3]int // … leaving the first line within w
	depth, prev := 0, rune(0)
	for i, r := range s {
		switch r {
		case '(', '（', '[':
			depth++
		case ')', '）', ']':
			depth = max(0, depth-1)
		}
		if r == ' ' || r == '，' || r == '：' || r == '·' {
			end, kind := i, 2
			if r == ' ' {
				next, _ := utf8.DecodeRuneInString(s[i+1:])
				kind = 0
				if depth == 0 && !isDigit(prev) && prev != '×' && next != '×' && !(isDigit(next) && unicode.IsLetter(prev)) {
					kind = 1
				}
			} else {
				end += len(string(r))
			}
			lw := TextWidth(s[:end], fs)
			if lw > w {
				break
			}
			last[kind] = end
			if lw >= w/2 {
				full[kind] = end
			}
			if _, b := wrapCut(s, end); TextWidth(b, fs) <= w {
				both[kind] = end
			}
		}
		prev = r
	}
	best := 0
	for _, c := range [...]*[3]int{&both, &full, &last} {
		for k := 2; k >= 0 && best == 0; k-- {
			best = c[k]
		}
	}
	if best <= 0 {
		return FitLabel(s, fs, w), ""
	}
	a, b := wrapCut(s, best)
	return a, FitLabel(b, fs, w)
}

// wrapCut is s broken at end, the spaces and a " · " at the break
// dropped.
func wrapCut(s string, end int) (a, b string) {
	a = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(s[:end], " "), "·"), " ")
	b = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(s[end:], " "), "·"), " ")
	return a, b
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// wrapLines calls line with s broken into lines that fit w at size fs
// (TextWidth): at spaces (not between a number and its unit), or after a
// CJK character or punctuation; a longer word stays whole.
func WrapLines(s string, fs, w float32, line func(string)) {
	s = strings.TrimSpace(s)
	for len(s) > 0 {
		if TextWidth(s, fs) <= w {
			line(s)
			return
		}
		cut := -1
		for i, r := range s {
			if i > 0 && TextWidth(s[:i], fs) > w {
				break
			}
			if r == ' ' {
				if !unitAfter(s, i) {
					cut = i
				}
			} else if r >= 0x2e80 {
				cut = i + utf8.RuneLen(r)
			}
		}
		if end := len(s); cut >= end {
			cut = -1
		}
		if cut <= 0 {
			cut = strings.IndexByte(s, ' ')
			if cut < 0 {
				line(s)
				return
			}
		}
		line(strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
}

// unitAfter says whether the space at s[i] parts a number from its
// unit ("74 GB", "426 μs").
func unitAfter(s string, i int) bool {
	if i == 0 || i+1 >= len(s) {
		return false
	}
	a, b := s[i-1], s[i+1]
	// b: an ASCII letter or the lead byte of a Latin or Greek one ("μs").
	return a >= '0' && a <= '9' && (b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= 0xc2 && b <= 0xdf)
}

func WrapCount(s string, fs, w float32) int {
	n := 0
	WrapLines(s, fs, w, func(string) { n++ })
	return max(n, 1)
}
