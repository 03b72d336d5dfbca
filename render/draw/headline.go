package draw

import (
	"strings"
	"unicode"
)

// The strategy pictures' headline: the step's point over the picture, at
// the size of the picture's own words, on a second line where one is too
// short (a phone), so that its numbers stay on the canvas.

// HeadFont is the headline's size and the margin around it on a stage.
func HeadFont(st Rect, sc float32) (fs, pad float32) {
	fs = Clamp(Minf(st.W, st.H)/34, TextSize(sc), 19*sc)
	return fs, fs * 0.6
}

// HeadlineHeight is the height headline s takes at the top of a stage.
func HeadlineHeight(st Rect, sc float32, s string) float32 {
	if sc <= 0 {
		sc = 1
	}
	fs, pad := HeadFont(st, sc)
	n := float32(1)
	if _, b := headLines(s, fs, st.W-2*pad); b != "" {
		n = 2
	}
	return pad*0.5 + fs*LineHeight*(n+0.15)
}

// Headline draws s at the top of a stage, on two lines where it does not
// fit one (the second cut to the width).
func Headline(l *List, th Theme, st Rect, sc float32, s string) {
	if s == "" || st.W <= 0 {
		return
	}
	if sc <= 0 {
		sc = 1
	}
	fs, pad := HeadFont(st, sc)
	a, b := headLines(s, fs, st.W-2*pad)
	l.Label(st.X+pad, st.Y+pad*0.5, fs, AlignLeft, th.Text, a)
	if b != "" {
		l.Label(st.X+pad, st.Y+pad*0.5+fs*LineHeight, fs, AlignLeft, th.Text, b)
	}
}

// headBreaksAfter are CJK punctuation marks a line may end with and not
// begin with.
const headBreaksAfter = "，、：；。）"

// headLines is s as a headline's lines at size fs in w pixels: s and ""
// where it fits one, else two, broken at the last place that leaves the
// first within w — a space (not between a number and its unit or name),
// after CJK punctuation or between two CJK characters — the second cut
// to w. It allocates only when it cuts.
func headLines(s string, fs, w float32) (string, string) {
	if s == "" || TextWidth(s, fs) <= w {
		return s, ""
	}
	cut := 0
	var p2, p1 rune // the two runes before i
	for i, b := range s {
		if i > 0 {
			if TextWidth(strings.TrimRight(s[:i], " "), fs) > w {
				break
			}
			switch a := p1; {
			case a == ' ' && b != ' ':
				if p2 < 0x2e80 && b < 0x2e80 && (unicode.IsDigit(p2) && unicode.IsLetter(b) || unicode.IsLetter(p2) && unicode.IsDigit(b)) {
					break // "1.2 ms" and "TP 8" stay whole
				}
				cut = i
			case strings.ContainsRune(headBreaksAfter, a):
				cut = i
			case a >= 0x2e80 && b >= 0x2e80 && !strings.ContainsRune(headBreaksAfter, b):
				cut = i
			}
		}
		p2, p1 = p1, b
	}
	if cut == 0 {
		return FitText(s, fs, w), ""
	}
	return strings.TrimRight(s[:cut], " "), FitText(strings.TrimLeft(s[cut:], " "), fs, w)
}
