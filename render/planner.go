package render

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/engine/units"
)

// planParts are the slices of a step in the order they stack, with their
// fixed colours (the same on both themes).
var planParts = [...]struct {
	Key string
	C   Color
}{
	{"compute", Color{0x4c, 0xaf, 0x50, 255}},
	{"tp", Color{0x42, 0x8b, 0xe0, 255}},
	{"pp", Color{0x9b, 0x6b, 0xdf, 255}},
	{"dp", Color{0xe0, 0xa0, 0x30, 255}},
	{"bubble", Color{0x78, 0x80, 0x90, 255}},
	{"optimizer", Color{0xe0, 0x60, 0x90, 255}},
}

// PlanPartColour is the colour of a step's part in the planner's bars
// (the theme's dim colour for an unknown key).
func PlanPartColour(key string, th Theme) Color {
	for _, p := range planParts {
		if p.Key == key {
			return p.C
		}
	}
	return th.Dim
}

// The leaves of the decision tree, by branch.
var planLeaves = [...]struct{ Branch, Label string }{
	{"dp", "DP"},
	{"tp-dp", "TP in node + DP"},
	{"tp-pp-dp", "TP + PP + DP"},
}

// AppendPlanner draws the decision tree on the left — its questions as a
// chain of boxes, each "yes" leading right to a leaf and each "no" down to
// the next question, the path the model takes and its leaf lit — and the
// ranked plans on the right: a row each with its rank, label, step time
// as a bar stacked by part on one seconds scale (the slowest listed
// plan's step), the time, and the memory of its fullest GPU against what
// a job can use; the selected plan highlighted. On a narrow stage the
// tree sits above the plans.
func AppendPlanner(dst List, v PlannerView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/42, 10*sc, 16*sc)
	pad := fs
	inner := Rect{st.X + pad, st.Y + pad, st.W - 2*pad, st.H - 2*pad}
	if inner.W <= 0 || inner.H <= 0 {
		return l
	}
	var tree, plans Rect
	switch {
	case len(v.Tree) == 0:
		plans = inner
	case len(v.Plans) == 0:
		tree = inner
	case inner.W >= 50*fs:
		tw := clamp(inner.W*0.34, 20*fs, 30*fs)
		tree = Rect{inner.X, inner.Y, tw, inner.H}
		plans = Rect{inner.X + tw + 2*fs, inner.Y, inner.W - tw - 2*fs, inner.H}
	default:
		tree = Rect{inner.X, inner.Y, inner.W, inner.H}
		h := planTree(nil, th, sc, fs, tree, v)
		tree.H = h
		plans = Rect{inner.X, inner.Y + h + 1.5*fs, inner.W, inner.H - h - 1.5*fs}
	}
	if tree.W > 0 {
		planTree(&l, th, sc, fs, tree, v)
	}
	if plans.W > 0 && plans.H > 0 {
		planRows(&l, th, sc, fs, plans, v)
	}
	return l
}

// planTree draws the decision tree in r (measuring only, when l is nil)
// and returns its height.
func planTree(l *List, th Theme, sc, fs float32, r Rect, v PlannerView) float32 {
	qf := fs * 0.95
	lw := minf(9.5*fs, r.W*0.4)
	edge := minf(3*fs, r.W*0.12)
	qw := r.W - lw - edge
	maxChars := max(6, int((qw-fs)/(qf*0.56)))
	leafH := 2 * fs
	noH := 2.2 * fs
	leaf := func(k int, x, y float32) {
		if l == nil || k >= len(planLeaves) {
			return
		}
		on := planLeaves[k].Branch == v.Branch
		if on {
			l.Rect(x, y, lw, leafH, withAlpha(th.LinkActive, 70))
			l.Frame(x, y, lw, leafH, 2.5*sc, th.LinkActive)
		} else {
			l.Frame(x, y, lw, leafH, 1*sc, th.Link)
		}
		l.Label(x+lw/2, y+leafH/2-fs*0.6, fs, AlignCenter, planPick(on, th.Text, th.Dim), planLeaves[k].Label)
	}
	y := r.Y
	n := len(v.Tree)
	for i, q := range v.Tree {
		lines := wrapCount(q.Question, maxChars)
		qh := float32(lines)*qf*1.3 + 0.8*fs
		if l != nil {
			if q.Taken {
				l.Rect(r.X, y, qw, qh, withAlpha(th.LinkActive, 40))
				l.Frame(r.X, y, qw, qh, 2*sc, th.LinkActive)
			} else {
				l.Rect(r.X, y, qw, qh, th.Panel)
				l.Frame(r.X, y, qw, qh, 1*sc, th.Link)
			}
			ty := y + 0.4*fs
			wrapLines(q.Question, maxChars, func(s string) {
				l.Label(r.X+0.5*fs, ty, qf, AlignLeft, planPick(q.Taken, th.Text, th.Dim), s)
				ty += qf * 1.3
			})
		}
		mid := y + qh/2
		// yes: right to this question's leaf.
		if i < len(planLeaves) && l != nil {
			on := q.Taken && q.Answer
			l.Segment(r.X+qw, mid, r.X+qw+edge, mid, planPick(on, 2.5*sc, 1.5*sc), planPick(on, th.LinkActive, th.Link))
			l.Label(r.X+qw+edge/2, mid-fs*1.25, fs*0.85, AlignCenter, planPick(on, th.LinkActive, th.Dim), "yes")
			leaf(i, r.X+qw+edge, mid-leafH/2)
		}
		y += qh
		// no: down to the next question, or to the last leaf.
		last := i == n-1
		if last && i >= len(planLeaves)-1 {
			break
		}
		if l != nil {
			on := q.Taken && !q.Answer
			cx := r.X + qw/2
			l.Segment(cx, y, cx, y+noH, planPick(on, 2.5*sc, 1.5*sc), planPick(on, th.LinkActive, th.Link))
			l.Label(cx+0.4*fs, y+noH/2-fs*0.55, fs*0.85, AlignLeft, planPick(on, th.LinkActive, th.Dim), "no")
		}
		y += noH
		if last {
			leaf(len(planLeaves)-1, r.X+(qw-lw)/2, y)
			y += leafH
		}
	}
	return y - r.Y
}

// wrapLines calls line with s broken at spaces into lines of at most
// width characters (a longer word stays whole).
func wrapLines(s string, width int, line func(string)) {
	s = strings.TrimSpace(s)
	for len(s) > 0 {
		if utf8.RuneCountInString(s) <= width {
			line(s)
			return
		}
		cut, n := -1, 0
		for i, r := range s {
			if n > width {
				break
			}
			if r == ' ' {
				cut = i
			}
			n++
		}
		if cut <= 0 {
			cut = strings.IndexByte(s, ' ')
			if cut < 0 {
				line(s)
				return
			}
		}
		line(s[:cut])
		s = strings.TrimSpace(s[cut:])
	}
}

func wrapCount(s string, width int) int {
	n := 0
	wrapLines(s, width, func(string) { n++ })
	return max(n, 1)
}

// planRows draws the ranked plans in r.
func planRows(l *List, th Theme, sc, fs float32, r Rect, v PlannerView) {
	// Legend of the parts, wrapping.
	x, y := r.X, r.Y
	lf := fs * 0.9
	for _, p := range planParts {
		w := lf*1.4 + clTextW(p.Key, lf) + lf*1.2
		if x > r.X && x+w > r.X+r.W {
			x, y = r.X, y+lf*1.5
		}
		l.Rect(x, y+lf*0.15, lf*0.9, lf*0.9, p.C)
		l.Label(x+lf*1.3, y, lf, AlignLeft, th.Dim, p.Key)
		x += w
	}
	y += lf * 2.2

	// Columns: rank, label, bar, step, memory.
	rankW := 2.2 * fs
	memW := clamp(r.W*0.12, 3*fs, 7*fs)
	stepW := 4.8 * fs
	var labW float32
	for _, p := range v.Plans {
		labW = maxf(labW, clTextW(p.Label, fs))
	}
	labW = minf(labW+fs, r.W*0.45)
	barX := r.X + rankW + labW
	barW := r.X + r.W - memW - fs - stepW - barX
	twoLine := barW < 8*fs
	if twoLine {
		barX = r.X + rankW
		barW = r.X + r.W - memW - fs - stepW - barX
	}
	if barW <= 0 {
		return
	}
	memX := r.X + r.W - memW

	// Header: the seconds scale and the memory column.
	minRow := 1.6 * fs
	if twoLine {
		minRow = 2.8 * fs
	}
	avail := r.Y + r.H - (y + 1.4*fs)
	fit := int(avail / minRow)
	if fit < 1 {
		return
	}
	count := len(v.Plans)
	more := 0
	if count > fit {
		count = max(1, fit-1)
		more = len(v.Plans) - count
	}
	// The rows shown: the first count, the selected one in the last
	// place when it would fall below.
	sel := -1
	for i, p := range v.Plans {
		if p.Selected {
			sel = i
			break
		}
	}
	row := func(k int) int {
		if k == count-1 && sel >= count {
			return sel
		}
		return k
	}
	var span float64
	for k := 0; k < count; k++ {
		span = max(span, v.Plans[row(k)].Step)
	}
	l.Label(barX, y, lf, AlignLeft, th.Dim, "0")
	if span > 0 {
		l.Label(barX+barW, y, lf, AlignRight, th.Dim, units.Duration(span))
	}
	if v.Usable > 0 {
		l.Label(memX+memW, y, lf, AlignRight, th.Dim, "memory / "+units.Bytes(v.Usable))
	}
	y += 1.4 * fs
	rh := clamp(avail/float32(count+min(more, 1)), minRow, minRow*1.4)

	for k := 0; k < count; k++ {
		i := row(k)
		p := v.Plans[i]
		ry := y + float32(k)*rh
		if p.Selected {
			l.Rect(r.X, ry, r.W, rh-2*sc, withAlpha(th.LinkActive, 45))
			l.Frame(r.X, ry, r.W, rh-2*sc, 1.5*sc, th.LinkActive)
		}
		text := th.Dim
		if p.Selected {
			text = th.Text
		}
		by, bh := ry+rh*0.2, rh*0.5
		ty := ry + rh/2 - fs*0.6
		if twoLine {
			l.Label(barX, ry+0.2*fs, fs, AlignLeft, text, p.Label)
			by, bh = ry+1.5*fs, rh-1.9*fs
			ty = by + bh/2 - fs*0.6
		} else {
			l.Label(r.X+rankW, ty, fs, AlignLeft, text, p.Label)
		}
		l.Label(r.X+rankW-0.6*fs, ty, fs, AlignRight, text, strconv.Itoa(i+1))
		// The step, stacked by part on the common scale.
		bx := barX
		if span > 0 {
			for _, part := range p.Parts {
				if part.Seconds <= 0 {
					continue
				}
				w := barW * float32(part.Seconds/span)
				l.Rect(bx, by, w, bh, PlanPartColour(part.Key, th))
				bx += w
			}
			if end := barX + barW*float32(p.Step/span); end > bx {
				bx = end
			}
		}
		l.Label(bx+0.4*fs, ty, fs*0.9, AlignLeft, text, units.Duration(p.Step))
		// Memory against what a job can use.
		if v.Usable > 0 {
			mh := minf(bh, 0.8*fs)
			my := by + (bh-mh)/2
			f := float32(p.Memory / v.Usable)
			c := th.Rim
			if f > 1 {
				c = th.Hot
			}
			l.Rect(memX, my, memW, mh, th.Empty)
			l.Rect(memX, my, memW*clamp(f, 0, 1), mh, c)
			l.Frame(memX, my, memW, mh, 1*sc, th.Dim)
		}
	}
	if more > 0 {
		l.Label(r.X+rankW, y+float32(count)*rh+0.2*fs, fs*0.9, AlignLeft, th.Dim, "+"+strconv.Itoa(more)+" more")
	}
}

// planPick is on when b, else off.
func planPick[T any](b bool, on, off T) T {
	if b {
		return on
	}
	return off
}
