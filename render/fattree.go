package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// FatTreeView is one or more fat trees side by side with the same traffic
// on them: spine switches on top, leaf switches under them, the nodes at
// the bottom; every network link coloured by how busy the run kept it and
// as thick as its bandwidth (one scale for all the trees, so a 2:1
// tree's uplinks are half as thick), packets moving on them until the
// tree's run is done, and each tree's bottleneck said in words.
type FatTreeView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Title         string     // what runs, over all the trees
	Trees         []FatTree
	Time          float64 // the playhead, seconds; negative: all done
}

// FatTree is one tree's shape, links and run.
type FatTree struct {
	Name                         string // "1:1, non-blocking"
	Short                        string // "1:1", in the headline (Name when empty)
	Leaves, Spines, NodesPerLeaf int
	Links                        []FatTreeLink
	Seconds                      float64 // when its run finished
}

// FatTreeLink is a directed network link: node Node's NIC to or from its
// leaf (Spine −1), or a leaf to or from a spine (Node −1); Busy is the
// share of the run it carried traffic at its Bandwidth (bytes/s).
type FatTreeLink struct {
	Up                bool
	Node, Leaf, Spine int
	Bandwidth, Busy   float64
}

// Link loads are drawn in three colours: saturated (the bottleneck),
// busy, and less busy (the theme's link colour).
const (
	ftSaturated = 0.95
	ftBusy      = 0.70
)

// AppendFatTree draws v.
func AppendFatTree(dst draw.List, v FatTreeView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.Trees)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	fs := draw.Clamp(draw.Minf(st.W, st.H)/30, 14*sc, 20*sc)
	pad := fs * 0.8
	w := v.Words
	y := st.Y + pad
	// The clock, and once the first tree is done how many times as long
	// the last takes.
	tmax, fast, slow := 0.0, 0, 0
	for i, t := range v.Trees {
		tmax = math.Max(tmax, t.Seconds)
		if t.Seconds < v.Trees[fast].Seconds {
			fast = i
		}
		if t.Seconds > v.Trees[slow].Seconds {
			slow = i
		}
	}
	now := v.Time
	if now < 0 || now > tmax {
		now = tmax
	}
	clock := ftLabels.Get(ftKey{w.Lang, 't', int(math.Round(now * 1e9))}, func() string { return w.Say("canvas.clock", "t", units.Duration(now)) })
	cw := draw.TextWidth(clock, fs)
	l.Label(st.X+st.W-pad, y, fs, draw.AlignRight, th.Text, clock)
	if v.Title != "" {
		l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, draw.Fit(v.Title, fs, st.W-3*pad-cw))
	}
	y += fs * 1.45
	if f := v.Trees[fast]; slow != fast && f.Seconds > 0 && now >= f.Seconds {
		s := v.Trees[slow]
		msg := ftLabels.Get(ftKey{w.Lang, 'r', int(math.Round(s.Seconds / f.Seconds * 1000))}, func() string {
			return w.Say("canvas.fattree.ratio", "slow", draw.Pick(s.Short != "", s.Short, s.Name), "ratio", units.Ratio(w.Lang, s.Seconds/f.Seconds),
				"fast", draw.Pick(f.Short != "", f.Short, f.Name))
		})
		l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Hot, draw.Fit(msg, fs, st.W-2*pad))
	}
	y += fs * 1.45
	entries := [...]draw.LegendEntry{
		{Color: th.Hot, Label: w.Say("canvas.fattree.key_saturated")},
		{Color: th.LinkActive, Label: w.Say("canvas.fattree.key_busy")},
		{Color: th.Link, Label: w.Say("canvas.fattree.key_idle")},
	}
	y += draw.Legend(&l, th, st.X+pad, y, st.W-2*pad, fs, sc, entries[:]...)
	// The caption under the trees: what the rows are.
	t0 := v.Trees[0]
	caption := ftLabels.Get(ftKey{w.Lang, 'c', t0.Spines*1e6 + t0.Leaves*1e3 + t0.NodesPerLeaf}, func() string {
		return w.Say("canvas.fattree.rows", "spines", strconv.Itoa(t0.Spines), "leaves", strconv.Itoa(t0.Leaves),
			"nodes", units.Count(int64(t0.Leaves*t0.NodesPerLeaf)))
	})
	c1, c2 := draw.Wrap2(caption, fs, st.W-2*pad)
	capH := fs * 1.4
	if c2 != "" {
		capH += fs * 1.3
	}
	bottom := st.Y + st.H - pad - capH
	l.Label(st.X+pad, bottom+fs*0.3, fs, draw.AlignLeft, th.Dim, c1)
	if c2 != "" {
		l.Label(st.X+pad, bottom+fs*1.6, fs, draw.AlignLeft, th.Dim, c2)
	}
	if bottom-y < fs*6 {
		return l
	}
	// One bandwidth scale for every tree's links.
	maxBW := 0.0
	for _, t := range v.Trees {
		for _, k := range t.Links {
			maxBW = math.Max(maxBW, k.Bandwidth)
		}
	}
	gap := fs
	tw := (st.W - 2*pad - float32(n-1)*gap) / float32(n)
	for i, t := range v.Trees {
		r := draw.Rect{X: st.X + pad + float32(i)*(tw+gap), Y: y + fs*0.3, W: tw, H: bottom - y - fs*0.3}
		ftTree(&l, th, sc, fs, w, r, t, maxBW, tmax, v.Time)
	}
	return l
}

// ftTree draws one tree in r.
func ftTree(l *draw.List, th draw.Theme, sc, fs float32, w draw.Words, r draw.Rect, t FatTree, maxBW, tmax, now float64) {
	l.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	l.Frame(r.X, r.Y, r.W, r.H, 1*sc, th.Link)
	in := draw.Rect{X: r.X + fs*0.5, Y: r.Y + fs*0.3, W: r.W - fs, H: r.H - fs*0.6}
	// At the bottom, the run's time on the scale every tree shares (the
	// slowest's): the bar grows with the clock and stops at its finish.
	if tmax > 0 {
		bh := fs * 0.9
		by := in.Y + in.H - bh - fs*1.4
		end := t.Seconds
		if now >= 0 && now < end {
			end = now
		}
		l.Rect(in.X, by, in.W, bh, th.Background)
		l.Rect(in.X, by, in.W*float32(end/tmax), bh, th.Dim)
		l.Frame(in.X, by, in.W, bh, 1*sc, th.Link)
		if now >= 0 && now < t.Seconds && t.Seconds > 0 {
			// Still running: the share delivered (the flows share their
			// links steadily, so bytes arrive evenly over the run).
			f := math.Floor(now/t.Seconds*1000) / 1000
			s := ftLabels.Get(ftKey{w.Lang, 'p', int(f * 1000)}, func() string { return w.Say("canvas.fattree.delivered", "share", units.Percent(f)) })
			l.Label(in.X, by+bh+fs*0.25, fs, draw.AlignLeft, th.Text, draw.Fit(s, fs, in.W))
		}
		if now < 0 || now >= t.Seconds {
			s := ftLabels.Get(ftKey{w.Lang, 'd', int(math.Round(t.Seconds * 1e9))}, func() string {
				return w.Say("canvas.fattree.done", "t", units.Duration(t.Seconds))
			})
			x := in.X + in.W*float32(t.Seconds/tmax)
			l.Segment(x, by-fs*0.2, x, by+bh+fs*0.2, 2*sc, th.Text)
			sw := draw.TextWidth(s, fs)
			l.Label(draw.Clamp(x-sw/2, in.X, in.X+in.W-sw), by+bh+fs*0.25, fs, draw.AlignLeft, th.Text, s)
		}
		in.H = by - fs*0.5 - in.Y
	}
	l.Label(in.X, in.Y, fs, draw.AlignLeft, th.Text, draw.Fit(firstLine(t.Name, fs, in.W), fs, in.W))
	// The bottleneck: the busiest kind of link.
	var nic, up float64
	for _, k := range t.Links {
		if k.Spine < 0 {
			nic = math.Max(nic, k.Busy)
		} else {
			up = math.Max(up, k.Busy)
		}
	}
	key, busy := "canvas.fattree.nic", nic
	if up > nic {
		key, busy = "canvas.fattree.uplink", up
	}
	bn := ftLabels.Get(ftKey{w.Lang, key[len(key)-1], int(math.Round(busy * 1000))}, func() string {
		return w.Say(key, "busy", units.Percent(math.Floor(busy*1000)/1000))
	})
	n1, n2 := draw.Wrap2(t.Name, fs, in.W)
	if n2 != "" {
		l.Label(in.X, in.Y+fs*1.25, fs, draw.AlignLeft, th.Text, n2)
		in.Y += fs * 1.25
		in.H -= fs * 1.25
	}
	_ = n1
	b1, b2 := draw.Wrap2(bn, fs, in.W)
	col := draw.Pick(busy >= ftSaturated, th.Hot, th.Text)
	ty := in.Y + fs*1.35
	l.Label(in.X, ty, fs, draw.AlignLeft, col, b1)
	if b2 != "" {
		ty += fs * 1.25
		l.Label(in.X, ty, fs, draw.AlignLeft, col, b2)
	}
	top := ty + fs*1.6
	if t.Leaves < 1 || t.Spines < 0 || in.Y+in.H-top < fs*4 {
		return
	}
	// Rows: spines, leaves, nodes.
	h := in.Y + in.H - top
	sw := draw.Minf(in.W/float32(max(t.Spines, 1))*0.6, fs*2.2)
	sh := draw.Minf(sw*0.6, h*0.1)
	lw := draw.Minf(in.W/float32(t.Leaves)*0.7, fs*5)
	lh := sh
	ySpine := top
	yLeaf := top + h*0.42
	yNode := top + h*0.78
	spineX := func(s int) float32 { return in.X + in.W*(float32(s)+0.5)/float32(max(t.Spines, 1)) }
	leafX := func(f int) float32 { return in.X + in.W*(float32(f)+0.5)/float32(t.Leaves) }
	npl := max(t.NodesPerLeaf, 1)
	perRow := npl
	if npl > 16 {
		perRow = (npl + 1) / 2
	}
	rows := (npl + perRow - 1) / perRow
	slot := in.W / float32(t.Leaves) * 0.9
	q := draw.Minf(slot/float32(perRow), (in.Y+in.H-yNode)/float32(rows))
	nodeXY := func(node int) (float32, float32) {
		f, k := node/npl, node%npl
		x0 := leafX(f) - q*float32(perRow)/2
		return x0 + q*(float32(k%perRow)+0.5), yNode + q*float32(k/perRow)
	}
	width := func(bw float64) float32 {
		if maxBW <= 0 {
			return 1 * sc
		}
		return draw.Clamp(float32(bw/maxBW)*4*sc, 1*sc, 4*sc)
	}
	// The busier direction of each link sets its colour.
	busyOf := map[[3]int]float64{}
	for _, k := range t.Links {
		id := [3]int{k.Node, k.Leaf, k.Spine}
		busyOf[id] = math.Max(busyOf[id], k.Busy)
	}
	running := now >= 0 && now < t.Seconds
	phase := 0.0
	if running && t.Seconds > 0 {
		phase = now / t.Seconds * 3 // three laps over the run
	}
	pc := draw.WithAlpha(th.Text, 200)
	pr := draw.Clamp(q*0.25, 1.5*sc, 3*sc)
	for _, k := range t.Links {
		if !k.Up {
			continue // one line a link, its colour the busier direction's
		}
		b := busyOf[[3]int{k.Node, k.Leaf, k.Spine}]
		c := ftHeat(th, b)
		var x0, y0, x1, y1 float32
		if k.Spine >= 0 {
			x0 = leafX(k.Leaf) - lw/2 + lw*(float32(k.Spine)+0.5)/float32(t.Spines)
			y0, x1, y1 = yLeaf, spineX(k.Spine), ySpine+sh
		} else {
			x0, y0 = nodeXY(k.Node)
			x1 = leafX(k.Leaf) - lw/2 + lw*(float32(k.Node%npl)+0.5)/float32(npl)
			y1 = yLeaf + lh
		}
		l.Segment(x0, y0, x1, y1, draw.Pick(k.Spine >= 0, width(k.Bandwidth), 1*sc), c)
		if running && (k.Spine >= 0 || k.Node%4 == 0) {
			// A packet up, one down, on each link (every fourth NIC).
			f := float32(math.Mod(phase+float64(k.Spine+k.Node)*0.137, 1))
			l.Circle(x0+(x1-x0)*f, y0+(y1-y0)*f, pr, pc)
			g := 1 - float32(math.Mod(phase+0.5+float64(k.Spine+k.Node)*0.137, 1))
			l.Circle(x0+(x1-x0)*g, y0+(y1-y0)*g, pr, pc)
		}
	}
	for s := 0; s < t.Spines; s++ {
		x := spineX(s)
		l.Rect(x-sw/2, ySpine, sw, sh, th.GPU)
		l.Frame(x-sw/2, ySpine, sw, sh, 1*sc, th.Dim)
	}
	for f := 0; f < t.Leaves; f++ {
		x := leafX(f)
		l.Rect(x-lw/2, yLeaf, lw, lh, th.GPU)
		l.Frame(x-lw/2, yLeaf, lw, lh, 1*sc, th.Dim)
		for k := 0; k < npl; k++ {
			nx, ny := nodeXY(f*npl + k)
			l.Rect(nx-q*0.35, ny, q*0.7, q*0.7, th.GPU)
			l.Frame(nx-q*0.35, ny, q*0.7, q*0.7, 1*sc, th.Dim)
		}
	}
}

// ftHeat is the colour of a link busy for that share of the run.
func ftHeat(th draw.Theme, busy float64) draw.Color {
	switch {
	case busy >= ftSaturated:
		return th.Hot
	case busy >= ftBusy:
		return th.LinkActive
	}
	return th.Link
}

type ftKey struct {
	lang string
	kind byte
	n    int
}

var ftLabels draw.Memo[ftKey]

// firstLine is wrap2's first line.
func firstLine(s string, fs, w float32) string {
	a, _ := draw.Wrap2(s, fs, w)
	return a
}
