package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// planParts are the slices of a step in the order they stack, with their
// fixed colours (the same on both themes).
var planParts = [...]struct {
	Key string
	C   draw.Color
}{
	{"compute", draw.Color{R: 0x4c, G: 0xaf, B: 0x50, A: 255}},
	{"tp", draw.Color{R: 0x42, G: 0x8b, B: 0xe0, A: 255}},
	{"ep", draw.Color{R: 0xf0, G: 0xe4, B: 0x42, A: 255}}, // a mixture of experts' all-to-alls (Okabe–Ito yellow)
	{"cp", draw.Color{R: 0x26, G: 0xc6, B: 0xda, A: 255}}, // context parallelism's K/V exchange (cyan)
	{"pp", draw.Color{R: 0x9b, G: 0x6b, B: 0xdf, A: 255}},
	{"dp", draw.Color{R: 0xe0, G: 0xa0, B: 0x30, A: 255}},
	{"bubble", draw.Color{R: 0x78, G: 0x80, B: 0x90, A: 255}},
	{"optimizer", draw.Color{R: 0xe0, G: 0x60, B: 0x90, A: 255}},
}

// PlanPartColour is the colour of a step's part in the planner's bars
// (the theme's dim colour for an unknown key).
func PlanPartColour(key string, th draw.Theme) draw.Color {
	for _, p := range planParts {
		if p.Key == key {
			return p.C
		}
	}
	return th.Dim
}

// The leaves of the decision tree, by branch (their labels are
// canvas.plan.leaf_BRANCH).
var planLeaves = [...]string{"dp", "tp-dp", "tp-pp-dp"}

// planChosen rings the leaf of the search's chosen plan (Okabe–Ito
// orange: apart from the lit path's colour on every theme).
var planChosen = draw.Palette[1]

// AppendPlanner draws the decision tree on the left — its questions as a
// chain of boxes, each "yes" leading right to a leaf and each "no" down to
// the next question, the path the model takes and its leaf lit, the leaf
// of the search's chosen plan ringed (Chosen) — and the
// ranked plans on the right: a row each with its rank, label, step time
// as a bar stacked by part on one seconds scale (the slowest listed
// plan's step), the time, and the memory of its fullest GPU against what
// a job can use; the selected plan highlighted. On a narrow stage the
// tree sits above the plans; alone, it is scaled to the stage and
// centred.
func AppendPlanner(dst draw.List, v PlannerView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := draw.Clamp(draw.Minf(st.W, st.H)/42, 14*sc, 18*sc)
	if len(v.Plans) == 0 {
		fs = draw.Clamp(draw.Minf(st.W, st.H)/30, 14*sc, 26*sc) // the tree alone, larger
	}
	pad := fs
	inner := draw.Rect{X: st.X + pad, Y: st.Y + pad, W: st.W - 2*pad, H: st.H - 2*pad}
	if inner.W <= 0 || inner.H <= 0 {
		return l
	}
	var tree, plans draw.Rect
	treeFS := fs
	switch {
	case len(v.Tree) == 0:
		plans = inner
	case len(v.Plans) == 0:
		// The tree alone: as large as the stage lets it be (its words up
		// to 30 px, the tree at most 85% of the height and 44 ems wide),
		// centred on the stage.
		for f := 30 * sc; f > fs; f -= sc {
			if tw := draw.Minf(inner.W, 44*f); planTree(nil, th, sc, f, draw.Rect{X: inner.X, Y: inner.Y, W: tw, H: inner.H}, v) <= inner.H*0.85 {
				fs = f
				break
			}
		}
		tw := draw.Minf(inner.W, 44*fs)
		h := planTree(nil, th, sc, fs, draw.Rect{X: inner.X, Y: inner.Y, W: tw, H: inner.H}, v)
		tree = draw.Rect{X: inner.X + (inner.W-tw)/2, Y: inner.Y + draw.Maxf(0, (inner.H-h)/2), W: tw, H: h}
		treeFS = fs
	case inner.W >= 50*fs:
		tw := draw.Clamp(inner.W*0.34, 20*fs, 30*fs)
		tree = draw.Rect{X: inner.X, Y: inner.Y, W: tw, H: inner.H}
		plans = draw.Rect{X: inner.X + tw + 2*fs, Y: inner.Y, W: inner.W - tw - 2*fs, H: inner.H}
		// Beside the plans, in smaller words if its height needs them.
		for treeFS > 14*sc && planTree(nil, th, sc, treeFS, tree, v) > inner.H {
			treeFS -= sc
		}
	default:
		// Above the plans, the tree in at most 40% of the height, in
		// smaller words if need be; a stage too short even for that (a
		// phone's) gives it all to the plans: the step before drew the
		// tree alone.
		tree = draw.Rect{X: inner.X, Y: inner.Y, W: inner.W, H: inner.H}
		h := planTree(nil, th, sc, treeFS, tree, v)
		for treeFS > 14*sc && h > inner.H*0.4 {
			treeFS -= sc
			h = planTree(nil, th, sc, treeFS, tree, v)
		}
		if h > inner.H*0.4 {
			tree, plans = draw.Rect{}, inner
			break
		}
		tree.H = h
		plans = draw.Rect{X: inner.X, Y: inner.Y + h + 1.5*fs, W: inner.W, H: inner.H - h - 1.5*fs}
	}
	if tree.W > 0 {
		if v.Chosen != "" && planTree(nil, th, sc, treeFS, tree, v) > st.Y+st.H-tree.Y {
			v.Chosen = "" // no room for the chosen plan's ring and key: the tree alone
		}
		planTree(&l, th, sc, treeFS, tree, v)
	}
	if plans.W > 0 && plans.H > 0 {
		planRows(&l, th, sc, fs, plans, v)
	}
	return l
}

// planTree draws the decision tree in r (measuring only, when l is nil)
// and returns its height.
func planTree(l *draw.List, th draw.Theme, sc, fs float32, r draw.Rect, v PlannerView) float32 {
	w := v.Words
	qf := fs
	lw := draw.Minf(9.5*fs, r.W*0.4)
	edge := draw.Minf(3*fs, r.W*0.12)
	qw := r.W - lw - edge
	leafH := 2 * fs
	noH := 2.2 * fs
	leaf := func(k int, x, y float32) {
		if l == nil || k >= len(planLeaves) {
			return
		}
		on := planLeaves[k] == v.Branch
		if on {
			l.Rect(x, y, lw, leafH, draw.WithAlpha(th.LinkActive, 70))
			l.Frame(x, y, lw, leafH, 2.5*sc, th.LinkActive)
		} else {
			l.Frame(x, y, lw, leafH, 1*sc, th.Link)
		}
		if planLeaves[k] == v.Chosen && v.ChosenKey != "" {
			// The search's plan: a ring around its leaf.
			o := 4 * sc
			l.Frame(x-o, y-o, lw+2*o, leafH+2*o, 2*sc, planChosen)
		}
		l.Label(x+lw/2, y+leafH/2-fs*0.6, fs, draw.AlignCenter, draw.Pick(on, th.Text, th.Dim), draw.Fit(w.Say("canvas.plan.leaf_"+planLeaves[k]), fs, lw-fs*0.4))
	}
	y := r.Y
	n := len(v.Tree)
	for i, q := range v.Tree {
		lines := max(1, len(draw.Lines(q.Question, qf, qw-fs, 0)))
		qh := float32(lines)*qf*1.3 + 0.8*fs
		if l != nil {
			if q.Taken {
				l.Rect(r.X, y, qw, qh, draw.WithAlpha(th.LinkActive, 40))
				l.Frame(r.X, y, qw, qh, 2*sc, th.LinkActive)
			} else {
				l.Rect(r.X, y, qw, qh, th.Panel)
				l.Frame(r.X, y, qw, qh, 1*sc, th.Link)
			}
			ty := y + 0.4*fs
			for _, s := range draw.Lines(q.Question, qf, qw-fs, 0) {
				l.Label(r.X+0.5*fs, ty, qf, draw.AlignLeft, draw.Pick(q.Taken, th.Text, th.Dim), s)
				ty += qf * 1.3
			}
		}
		mid := y + qh/2
		// yes: right to this question's leaf.
		if i < len(planLeaves) && l != nil {
			on := q.Taken && q.Answer
			l.Segment(r.X+qw, mid, r.X+qw+edge, mid, draw.Pick(on, 2.5*sc, 1.5*sc), draw.Pick(on, th.LinkActive, th.Link))
			l.Label(r.X+qw+edge/2, mid-fs*1.35, fs, draw.AlignCenter, draw.Pick(on, th.LinkActive, th.Dim), w.Say("canvas.plan.yes"))
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
			l.Segment(cx, y, cx, y+noH, draw.Pick(on, 2.5*sc, 1.5*sc), draw.Pick(on, th.LinkActive, th.Link))
			l.Label(cx+0.4*fs, y+noH/2-fs*0.6, fs, draw.AlignLeft, draw.Pick(on, th.LinkActive, th.Dim), w.Say("canvas.plan.no"))
		}
		y += noH
		if last {
			leaf(len(planLeaves)-1, r.X+(qw-lw)/2, y)
			y += leafH
		}
	}
	// The key: the lit path is the reader's model and cluster; the ring,
	// where the search's plan lands (its plan named in full, wrapped).
	key := draw.LegendEntry{Color: th.LinkActive, Label: w.Say("canvas.plan.key_path")}
	y += fs
	if l != nil {
		draw.Legend(l, th, r.X, y, r.W, fs, sc, key)
	}
	y += draw.LegendHeight(r.W, fs, key)
	if v.Chosen != "" && v.ChosenKey != "" {
		sw := fs * 0.9
		tx, tw := r.X+sw+fs*0.4, r.W-sw-fs*0.4
		if l != nil {
			l.Frame(r.X, y+(fs*draw.LineHeight-sw)/2, sw, sw, 2*sc, planChosen)
			l.Key(planChosen, v.ChosenKey)
			ty := y
			for _, s := range draw.Lines(v.ChosenKey, fs, tw, 0) {
				l.Label(tx, ty, fs, draw.AlignLeft, th.Text, s)
				ty += fs * 1.3
			}
		}
		y += float32(max(1, len(draw.Lines(v.ChosenKey, fs, tw, 0))))*fs*1.3 + fs*0.2
	}
	return y - r.Y
}

// planRows draws the ranked plans in r.
func planRows(l *draw.List, th draw.Theme, sc, fs float32, r draw.Rect, v PlannerView) {
	// The key: the parts the plans' bars have, the memory bar, the
	// selected plan.
	wd := v.Words
	y := r.Y
	lf := fs
	var ex [len(planParts) + 3]draw.LegendEntry
	k := 0
	for _, p := range planParts {
		for _, row := range v.Plans {
			if slices.ContainsFunc(row.Parts, func(t TimePart) bool { return t.Key == p.Key && t.Seconds > 0 }) {
				ex[k] = draw.LegendEntry{Color: p.C, Label: wd.Say("canvas.cluster.part_" + p.Key)}
				k++
				break
			}
		}
	}
	over := false
	for _, row := range v.Plans {
		over = over || (v.Usable > 0 && row.Memory > v.Usable)
	}
	if v.Usable > 0 {
		ex[k] = draw.LegendEntry{Color: th.Rim, Label: wd.Say("canvas.plan.key_memory")}
		k++
		if over {
			ex[k] = draw.LegendEntry{Color: th.Hot, Label: wd.Say("canvas.plan.key_over")}
			k++
		}
	}
	ex[k] = draw.LegendEntry{Color: th.LinkActive, Label: wd.Say("canvas.plan.key_selected")}
	k++
	y += draw.Legend(l, th, r.X, y, r.W, fs, sc, ex[:k]...) + fs*0.4
	// The codes' note at the bottom.
	if v.Note != "" {
		n1, n2 := draw.Wrap2(v.Note, fs, r.W)
		nh := fs * 1.35
		if n2 != "" {
			nh *= 2
		}
		if r.Y+r.H-nh-fs*0.3-y < 4*fs {
			n1, n2, nh = "", "", 0 // no room: the rows first
		}
		r.H -= nh + fs*0.3
		if n1 != "" {
			l.Label(r.X, r.Y+r.H+fs*0.3, fs, draw.AlignLeft, th.Dim, n1)
		}
		if n2 != "" {
			l.Label(r.X, r.Y+r.H+fs*0.3+fs*1.35, fs, draw.AlignLeft, th.Dim, n2)
		}
	}

	// Columns: rank, label, bar, step, memory.
	rankW := 2.2 * fs
	memW := draw.Clamp(r.W*0.12, 3*fs, 7*fs)
	stepW := 4.8 * fs
	var labW float32
	for _, p := range v.Plans {
		labW = draw.Maxf(labW, draw.TextWidth(p.Label, fs))
	}
	need := labW + fs
	labW = draw.Minf(need, r.W*0.55)
	barX := r.X + rankW + labW
	barW := r.X + r.W - memW - fs - stepW - barX
	// A label wider than its column goes above its bar, whole.
	twoLine := barW < 8*fs || need > labW
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
	l.Label(barX, y, lf, draw.AlignLeft, th.Dim, "0")
	if span > 0 {
		l.Label(barX+barW, y, lf, draw.AlignRight, th.Dim, units.Duration(span))
	}
	if v.Usable > 0 {
		l.Label(memX+memW, y, lf, draw.AlignRight, th.Dim, draw.Fit(wd.Say("canvas.plan.memory", "usable", units.Bytes(v.Usable)), lf, memW+stepW))
	}
	y += 1.4 * fs
	rh := draw.Clamp(avail/float32(count+min(more, 1)), minRow, minRow*1.4)

	for k := 0; k < count; k++ {
		i := row(k)
		p := v.Plans[i]
		ry := y + float32(k)*rh
		if p.Selected {
			l.Rect(r.X, ry, r.W, rh-2*sc, draw.WithAlpha(th.LinkActive, 45))
			l.Frame(r.X, ry, r.W, rh-2*sc, 1.5*sc, th.LinkActive)
		}
		text := th.Dim
		if p.Selected {
			text = th.Text
		}
		by, bh := ry+rh*0.2, rh*0.5
		ty := ry + rh/2 - fs*0.6
		if twoLine {
			l.Label(barX, ry+0.2*fs, fs, draw.AlignLeft, text, p.Label)
			by, bh = ry+1.5*fs, rh-1.9*fs
			ty = by + bh/2 - fs*0.6
		} else {
			l.Label(r.X+rankW, ty, fs, draw.AlignLeft, text, p.Label)
		}
		l.Label(r.X+rankW-0.6*fs, ty, fs, draw.AlignRight, text, strconv.Itoa(i+1))
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
		l.Label(bx+0.4*fs, ty, fs, draw.AlignLeft, text, units.Duration(p.Step))
		// Memory against what a job can use.
		if v.Usable > 0 {
			mh := draw.Minf(bh, 0.8*fs)
			my := by + (bh-mh)/2
			f := float32(p.Memory / v.Usable)
			c := th.Rim
			if f > 1 {
				c = th.Hot
			}
			l.Rect(memX, my, memW, mh, th.Empty)
			l.Rect(memX, my, memW*draw.Clamp(f, 0, 1), mh, c)
			l.Frame(memX, my, memW, mh, 1*sc, th.Dim)
		}
	}
	if more > 0 {
		l.Label(r.X+rankW, y+float32(count)*rh+0.2*fs, fs, draw.AlignLeft, th.Dim, wd.Say("canvas.plan.more", "n", strconv.Itoa(more)))
	}
}
