package draw

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/render/font"
)

// Lines breaks s into lines of at most w pixels at size fs, at most n of
// them (n ≤ 0: as many as it takes); the last line n allows keeps the
// rest, cut to w (Fit). It is render's one wrapper: each line ends at the
// best break lineEnd finds, and where none leaves a line within w the
// rest is cut to one. The lines are kept for the next frame's same
// question (the measuring is quadratic in s and allocates): callers must
// not change them.
func Lines(s string, fs, w float32, n int) []string {
	k := wrapKey{s, fs, w, n}
	wraps.mu.Lock()
	defer wraps.mu.Unlock()
	if out, ok := wraps.m[k]; ok {
		return out
	}
	if wraps.m == nil || len(wraps.m) >= memoSize {
		wraps.m = make(map[wrapKey][]string)
	}
	out := wrapLines(s, fs, w, n)
	wraps.m[k] = out
	return out
}

// wraps are Lines' answers.
var wraps struct {
	mu sync.Mutex
	m  map[wrapKey][]string
}

type wrapKey struct {
	s     string
	fs, w float32
	n     int
}

// Wrap2 is s on at most two lines (Lines): s and "" when it fits on one.
func Wrap2(s string, fs, w float32) (string, string) {
	switch ls := Lines(s, fs, w, 2); len(ls) {
	case 0:
		return "", ""
	case 1:
		return ls[0], ""
	default:
		return ls[0], ls[1]
	}
}

// wrapLines is Lines worked out.
func wrapLines(s string, fs, w float32, n int) []string {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		if TextWidth(s, fs) <= w {
			return append(out, s)
		}
		if len(out) == n-1 {
			return append(out, Fit(s, fs, w))
		}
		a, b := wrapCut(s, lineEnd(s, fs, w))
		if a == "" {
			return append(out, Fit(s, fs, w))
		}
		out = append(out, a)
		s = b
	}
	return out
}

// noLineStart are CJK marks a line may not begin with, noLineEnd those it
// may not end with.
const (
	noLineStart = "，、：；。）！？》」"
	noLineEnd   = "（《「"
)

// lineEnd is where the first line of s ends, within w at fs (0: nowhere).
// It breaks after a title's pieces (a " · ", "，", "：", "；" or "。"),
// else at a space between words, after "、" or "）" or between two CJK
// characters, else at any space — one inside brackets, after a number,
// beside a "×" or between a word and its number ("(450 GB/s one way)",
// "1 GB", "72 × GB200", "GPU 0") only when nothing else does: the last
// break of the best kind that leaves the rest within w too; where none
// does, the last of the best kind that leaves the line at least half of
// w; else the last that leaves it within w.
func lineEnd(s string, fs, w float32) int {
	var both [3]int // the last break of each kind (any space, between words, a piece's end) leaving both lines within w
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
		end, kind := 0, 0
		switch {
		case r == ' ':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			end = i
			if depth == 0 && !isDigit(prev) && prev != '×' && next != '×' && !(isDigit(next) && unicode.IsLetter(prev)) {
				kind = 1
			}
		case strings.ContainsRune("，：；。·", r):
			end, kind = i+utf8.RuneLen(r), 2
		case r == '、' || r == '）':
			end, kind = i+utf8.RuneLen(r), 1
		case font.IsCJK(prev) && font.IsCJK(r) && !strings.ContainsRune(noLineStart, r) && !strings.ContainsRune(noLineEnd, prev):
			end, kind = i, 1
		}
		prev = r
		if end == 0 {
			continue
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
	for _, c := range [...]*[3]int{&both, &full, &last} {
		for k := 2; k >= 0; k-- {
			if c[k] > 0 {
				return c[k]
			}
		}
	}
	return 0
}

// wrapCut is s broken at end, the spaces and a " · " at the break
// dropped.
func wrapCut(s string, end int) (a, b string) {
	a = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(s[:end], " "), "·"), " ")
	b = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(s[end:], " "), "·"), " ")
	return a, b
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }
