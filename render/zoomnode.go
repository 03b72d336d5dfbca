package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
)

// The node of the zoom (issue 21): one node at a moment of the step. Its
// GPUs are large boxes in two halves round the NVSwitch bar (an HGX
// board's two rows of four for 8; more rows a half, up to 72), each
// filled by what it runs in the time line's colours (forward, backward,
// communication, the optimizer, idle), labelled with its name, its role
// and what it does, a progress bar through its kernel at the bottom. Each
// GPU's NVLink runs to the bar (a GPU of an inner row by the gutter to
// its right); a NIC leaves the GPU's far edge for the InfiniBand strip at
// the node's right. Traffic lights its route (GPU → switch → GPU, or GPU →
// NIC → InfiniBand) and carries a packet at its progress.

// Proportions of the node picture, in text sizes (fs).
const (
	znGapX    = 0.8 // between GPU columns: the gutter an inner row's NVLink runs down
	znGapY    = 0.9 // between GPU rows of a half
	znBarGap  = 1.0 // a half's row next to the switch, to the bar
	znBarH    = 1.6 // the NVSwitch bar
	znPanel   = 0.5 // the node panel's edge to its GPUs
	znWantW   = 7.0 // a GPU box wide enough for its words
	znWantH   = 4.6 // … tall enough for three lines and the progress bar
	znMaxW    = 14.0
	znMaxH    = 6.0
	znLaneGap = 0.35 // a route's run in a row gap, from its box's edge (in gaps)
)

// zoomStepActs is how many of zoomActOrder a training step's picture
// keys whole.
const zoomStepActs = 5

// znGeom places the node's GPUs: c columns, nt GPUs in the top half (rt
// rows) and the rest in the bottom one (rb rows), boxes bw × bh from
// (x0, y0), the bar from barTop.
type znGeom struct {
	n, c, nt, rt, rb int
	bw, bh, gx, gy   float32
	gb, sh           float32
	x0, y0, gw, gh   float32
	barTop           float32
	panel            draw.Rect
	ibX, ibW         float32
}

// znRows is the rows of a half of h GPUs in c columns.
func znRows(h, c int) int { return (h + c - 1) / c }

// box is GPU i's box, and how many rows lie between it and the bar (d)
// and whether it is in the top half.
func (g *znGeom) box(i int) (x, y float32, d int, top bool) {
	if i < g.nt {
		r := i / g.c
		return g.x0 + float32(i%g.c)*(g.bw+g.gx), g.y0 + float32(r)*(g.bh+g.gy), g.rt - 1 - r, true
	}
	j := i - g.nt
	r := j / g.c
	return g.x0 + float32(j%g.c)*(g.bw+g.gx), g.barTop + g.sh + g.gb + float32(r)*(g.bh+g.gy), r, false
}

// znPath is an axis-aligned route of up to 10 points.
type znPath struct {
	p [10][2]float32
	n int
}

func (p *znPath) add(x, y float32) {
	if p.n < len(p.p) {
		p.p[p.n] = [2]float32{x, y}
		p.n++
	}
}

// at is the point a fraction t along the route.
func (p *znPath) at(t float32) (float32, float32) {
	var total float32
	for i := 1; i < p.n; i++ {
		total += draw.Abs(p.p[i][0]-p.p[i-1][0]) + draw.Abs(p.p[i][1]-p.p[i-1][1])
	}
	d := draw.Clamp(t, 0, 1) * total
	for i := 1; i < p.n; i++ {
		s := draw.Abs(p.p[i][0]-p.p[i-1][0]) + draw.Abs(p.p[i][1]-p.p[i-1][1])
		if d <= s || i == p.n-1 {
			f := float32(0)
			if s > 0 {
				f = draw.Minf(d/s, 1)
			}
			return p.p[i-1][0] + (p.p[i][0]-p.p[i-1][0])*f, p.p[i-1][1] + (p.p[i][1]-p.p[i-1][1])*f
		}
		d -= s
	}
	if p.n == 0 {
		return 0, 0
	}
	return p.p[0][0], p.p[0][1]
}

func (p *znPath) draw(l *draw.List, w float32, c draw.Color) {
	for i := 1; i < p.n; i++ {
		l.Segment(p.p[i-1][0], p.p[i-1][1], p.p[i][0], p.p[i][1], w, c)
	}
}

// port adds GPU i's NVLink from its box to the bar's edge (forward) or
// from the bar's edge to its box (back).
func (g *znGeom) port(p *znPath, i int, back bool) {
	x, y, d, top := g.box(i)
	cx := x + g.bw/2
	var pts [4][2]float32
	k := 0
	edge, bar, run := y+g.bh, g.barTop, y+g.bh+g.gy*znLaneGap
	if !top {
		edge, bar, run = y, g.barTop+g.sh, y-g.gy*znLaneGap
	}
	pts[k] = [2]float32{cx, edge}
	k++
	if d > 0 {
		gut := x + g.bw + g.gx/2
		pts[k] = [2]float32{cx, run}
		pts[k+1] = [2]float32{gut, run}
		pts[k+2] = [2]float32{gut, bar}
		k += 3
	} else {
		pts[k] = [2]float32{cx, bar}
		k++
	}
	if back {
		for j := k - 1; j >= 0; j-- {
			p.add(pts[j][0], pts[j][1])
		}
		return
	}
	for j := 0; j < k; j++ {
		p.add(pts[j][0], pts[j][1])
	}
}

// hop is the route of an NVLink transfer from GPU a to b: down a's link,
// along the switch, up b's.
func (g *znGeom) hop(p *znPath, a, b int) {
	p.n = 0
	g.port(p, a, false)
	ax := p.p[p.n-1][0]
	by := g.barTop + g.sh/2
	p.add(ax, by)
	var q znPath
	g.port(&q, b, true)
	p.add(q.p[0][0], by)
	for j := 0; j < q.n; j++ {
		p.add(q.p[j][0], q.p[j][1])
	}
}

// nic is the route of a transfer leaving GPU a through its NIC: from its
// far edge into the gap beyond it, and along it to the InfiniBand strip.
func (g *znGeom) nic(p *znPath, a int) {
	p.n = 0
	x, y, _, top := g.box(a)
	cx := x + g.bw*0.5
	if top {
		r := a / g.c
		run := y - g.gy*znLaneGap
		if r == 0 {
			run = y - (y-g.panel.Y)*0.5
		}
		p.add(cx, y)
		p.add(cx, run)
		p.add(g.ibX+g.ibW/2, run)
		return
	}
	r := (a - g.nt) / g.c
	run := y + g.bh + g.gy*znLaneGap
	if r == g.rb-1 {
		run = y + g.bh + (g.panel.Y+g.panel.H-y-g.bh)*0.5
	}
	p.add(cx, y+g.bh)
	p.add(cx, run)
	p.add(g.ibX+g.ibW/2, run)
}

// znLayout picks the columns that give the GPUs the boxes that show the
// most of their words — name, what it does and role; name and what it
// does (a tall narrow stage: more rows of fewer boxes); the name — with
// the fewest rows, else the largest boxes; where none show what they do
// (72 GPUs on a phone), with narrower gaps. doW is the widest name or
// doing, roleW the widest role.
func znLayout(n int, W, H, fs, doW, roleW float32) (znGeom, bool) {
	g, score, lvl := znTry(n, W, H, fs, 1, doW, roleW)
	if lvl < 2 || score < 0.6 {
		if c, s, k := znTry(n, W, H, fs, 0.3, doW, roleW); k > lvl || k == lvl && s > score {
			g, score = c, s
		}
	}
	return g, score > 0
}

// znLines is how many lines of words a box bh tall holds over its
// progress bar.
func znLines(bh, fs float32) int { return int((bh - fs*1.05) / (fs * draw.LineHeight)) }

// znTry is the best layout with the gaps scaled by gap, its score (the
// boxes' size against what their words want; 1: they fit) and its level
// (3: every GPU's three lines show whole, 2: its name and what it does,
// 1: a line).
func znTry(n int, W, H, fs, gap, doW, roleW float32) (g znGeom, best float32, level int) {
	g.n = n
	g.gx, g.gy, g.gb, g.sh = znGapX*fs*gap, znGapY*fs*gap, znBarGap*fs*draw.Maxf(gap, 0.5), znBarH*fs
	nt := (n + 1) / 2
	best, bestRows := float32(-1), 0
	for c := 1; c <= nt; c++ {
		rt, rb := znRows(nt, c), znRows(n-nt, c)
		bw := (W - float32(c-1)*g.gx) / float32(c)
		fixed := g.sh + g.gb + float32(max(rt-1, 0)+max(rb-1, 0))*g.gy
		if rb > 0 {
			fixed += g.gb
		}
		bh := (H - fixed) / float32(rt+rb)
		if bw < 2 || bh < 2 {
			continue
		}
		bw, bh = draw.Minf(bw, znMaxW*fs), draw.Minf(bh, znMaxH*fs)
		score := draw.Minf(bw/(znWantW*fs), bh/(znWantH*fs))
		rows, lines, iw := rt+rb, znLines(bh, fs), bw-fs*0.6
		lvl := min(lines, 1)
		if lines >= 2 && iw >= doW {
			lvl = 2
			if lines >= 3 && iw >= roleW {
				lvl = 3
			}
		}
		// The most words; then the fewest rows where they show; else
		// the largest boxes.
		better := lvl > level || lvl == level && score > best
		if lvl == level && lvl >= 2 {
			better = rows < bestRows || rows == bestRows && score > best
		}
		if better {
			best, bestRows, level = score, rows, lvl
			g.c, g.nt, g.rt, g.rb, g.bw, g.bh = c, nt, rt, rb, bw, bh
		}
	}
	if g.c == 0 {
		return g, 0, 0
	}
	g.gw = float32(g.c)*g.bw + float32(g.c-1)*g.gx
	g.gh = float32(g.rt+g.rb)*g.bh + float32(max(g.rt-1, 0)+max(g.rb-1, 0))*g.gy + g.gb + g.sh
	if g.rb > 0 {
		g.gh += g.gb
	}
	return g, best, level
}

// AppendZoomNode draws one node at a moment (ZoomNodeView): the way back
// and the title over it, the clock at the right; the node's GPUs round
// its NVSwitch, the Focus GPU outlined; the links' names and speeds and
// a legend of every colour under it. What stays comes first — the panel,
// the switch, the links, the boxes and their words, the legend — and what
// moves last: the progress bars, the lit routes and their packets, the
// clock, so that successive frames share a prefix.
func AppendZoomNode(dst draw.List, v ZoomNodeView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.GPUs)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	st = zoomCrumbs(&l, th, st, sc, v.Crumbs)
	w := v.Words
	fs := draw.Clamp(draw.Minf(st.W, st.H)/45, 14*sc, 18*sc)
	pad := fs * 0.8
	left, right := st.X+pad, st.X+st.W-pad
	if right-left < fs*8 {
		return l
	}

	// The title, on two lines where one is short, the clock at the right
	// of the first (its room rounded, so that the title keeps its lines
	// while the clock ticks).
	y := st.Y + pad*0.4
	clockY := y
	cw := float32(0)
	if v.Clock != "" {
		cw = float32(int(draw.TextWidth(v.Clock, fs)/(2*fs))+1) * 2 * fs
	}
	t1, t2 := draw.Wrap2(v.Title, fs, right-left-cw-pad)
	if t1 != "" {
		l.Label(left, y, fs, draw.AlignLeft, th.Text, t1)
		y += fs * 1.3
	}
	if t2 != "" {
		l.Label(left, y, fs, draw.AlignLeft, th.Text, t2)
		y += fs * 1.3
	}
	if t1 == "" && v.Clock != "" {
		y += fs * 1.3
	}
	if v.Alert != "" {
		a1, a2 := draw.Wrap2(v.Alert, fs, right-left)
		for _, a := range [2]string{a1, a2} {
			if a != "" {
				l.Label(left, y, fs, draw.AlignLeft, th.Hot, a)
				l.Hit(left, y, draw.TextWidth(a, fs), fs*draw.LineHeight, v.AlertGPU)
				y += fs * 1.3
			}
		}
	}
	top := y + fs*0.3

	// At the bottom: the legend, and over it the links. A training step's
	// node keys its five activities; a job's (ZoomTrain and on), or one
	// that asks (KeyShown: a collective's), only those its GPUs show.
	var ex [len(zoomActOrder) + 1]draw.LegendEntry
	k := zoomStepActs
	var have [len(zoomActKeys)]bool
	job := v.KeyShown || v.Unfit != "" // a plan that does not fit: only what its GPUs show (idle)
	for _, gpu := range v.GPUs {
		have[zoomAct(gpu.Activity)] = true
		job = job || zoomAct(gpu.Activity) >= ZoomTrain
	}
	if job {
		k = 0
	}
	for i, a := range zoomActOrder {
		if job && have[a] {
			ex[k] = draw.LegendEntry{Color: zoomActColour(a, th), Label: draw.Say(w, zoomActKeys[a])}
			k++
		} else if !job && i < zoomStepActs {
			ex[i] = draw.LegendEntry{Color: zoomActColour(a, th), Label: draw.Say(w, zoomActKeys[a])}
		}
	}
	if (!job || len(v.Flows) > 0) && v.Unfit == "" {
		ex[k] = draw.LegendEntry{Color: th.LinkActive, Label: draw.Say(w, "canvas.zoom.node.lit")}
		k++
	}
	legendH := draw.LegendHeight(right-left, fs, ex[:k]...)
	intra := zoomLink(w, "canvas.zoom.node.intra", draw.LinkLabel(v.IntraName, "NVLink", v.IntraBW))
	inter := zoomLink(w, "canvas.zoom.node.inter", draw.LinkLabel(v.InterName, "InfiniBand", v.InterBW))
	lane := fs * 2.2
	entry := func(s string) float32 { return lane + fs*0.5 + draw.TextWidth(s, fs) + fs*1.5 }
	laneLines := 1
	if entry(intra)+entry(inter)-fs*1.5 > right-left {
		laneLines = 2
	}
	lanesH := float32(laneLines) * fs * 1.4
	legendY := st.Y + st.H - pad*0.5 - legendH
	lanesY := legendY - lanesH
	bottom := lanesY - fs*0.4

	// The node: a panel of the GPUs round the switch, the InfiniBand
	// strip at its right.
	ibWord := draw.Say(w, "canvas.zoom.node.ib")
	ibW := draw.TextWidth(ibWord, fs) + fs*0.6
	ibGap := fs * 0.6
	pp := znPanel * fs
	var doW, roleW float32
	for _, gpu := range v.GPUs {
		doW, roleW = draw.Maxf(doW, draw.Maxf(draw.TextWidth(gpu.Label, fs), draw.TextWidth(gpu.Doing, fs))), draw.Maxf(roleW, draw.TextWidth(gpu.Role, fs))
	}
	g, ok := znLayout(n, right-left-2*pp-ibGap-ibW, bottom-top-2*pp, fs, doW, roleW)
	if !ok {
		return l
	}
	totalW := g.gw + 2*pp + ibGap + ibW
	px := left + (right-left-totalW)/2
	py := top + (bottom-top-g.gh-2*pp)/2
	g.panel = draw.Rect{X: px, Y: py, W: g.gw + 2*pp, H: g.gh + 2*pp}
	g.x0, g.y0 = px+pp, py+pp
	g.barTop = g.y0 + float32(g.rt)*g.bh + float32(g.rt-1)*g.gy + g.gb
	g.ibX, g.ibW = px+g.panel.W+ibGap, ibW
	linkW := draw.Clamp(fs*0.14, 1.5*sc, 3*sc)
	l.Rect(g.panel.X, g.panel.Y, g.panel.W, g.panel.H, th.Panel)
	l.Frame(g.panel.X, g.panel.Y, g.panel.W, g.panel.H, 1*sc, th.Link)
	l.Rect(g.ibX, g.panel.Y, g.ibW, g.panel.H, th.Link)
	l.Label(g.ibX+g.ibW/2, g.panel.Y+fs*0.3, fs, draw.AlignCenter, th.Text, ibWord)
	// The links to the switch, then the switch over their ends.
	var path znPath
	for i := 0; i < n; i++ {
		path.n = 0
		g.port(&path, i, false)
		path.draw(&l, linkW, th.Link)
	}
	l.Rect(g.x0, g.barTop, g.gw, g.sh, th.GPU)
	l.Frame(g.x0, g.barTop, g.gw, g.sh, 1*sc, th.Link)
	swWord := draw.Say(w, "canvas.zoom.node.switch")
	none := draw.Say(w, "canvas.zoom.node.none")
	nvFlows := false
	for _, f := range v.Flows {
		if f.To >= 0 && f.To < n && f.From >= 0 && f.From < n && f.To != f.From {
			nvFlows = true
		}
	}
	labY := g.barTop + (g.sh-fs*draw.LineHeight)/2
	// The switch's name, and beside it whether anything crosses it now.
	both := draw.TextWidth(swWord, fs) + fs*1.5 + draw.TextWidth(none, fs)
	swX := g.x0 + fs*0.5
	switch {
	case v.Unfit != "":
		// The switch carries nothing, and the box saying why goes over it.
	case !nvFlows && both <= g.gw-fs:
		l.Label(g.x0+(g.gw-both)/2, labY, fs, draw.AlignLeft, th.Dim, swWord)
		swX = g.x0 + (g.gw-both)/2 + draw.TextWidth(swWord, fs) + fs*1.5
	case !nvFlows:
		swX = -1 // the note alone
	default:
		l.Label(g.x0+g.gw/2, labY, fs, draw.AlignCenter, th.Dim, draw.Fit(swWord, fs, g.gw-fs))
	}

	// The GPUs: a box each in its activity's colour, its words in the ink
	// that reads on it, the progress bar's track at the bottom.
	ip := fs * 0.3
	progH := draw.Maxf(fs*0.3, 3*sc)
	lineH := fs * draw.LineHeight
	fit := znLines(g.bh, fs)
	iw := g.bw - 2*ip
	for i, gpu := range v.GPUs {
		x, y, _, _ := g.box(i)
		fill := zoomActColour(zoomAct(gpu.Activity), th)
		ink := zoomInk(fill, th)
		l.Rect(x, y, g.bw, g.bh, fill)
		l.Hit(x, y, g.bw, g.bh, gpu.GPU) // a click on it zooms in on it
		if iw >= fs*1.5 {
			var lines [3]string
			k := 0
			// The role goes before what the GPU does is cut.
			switch {
			case v.Unfit != "" && fit >= 1:
				// Not running: its name alone, clear of the box over
				// the node that says why.
				lines, k = [3]string{gpu.Label}, 1
			case fit >= 3 && draw.TextWidth(gpu.Role, fs) <= iw:
				lines, k = [3]string{gpu.Label, gpu.Role, gpu.Doing}, 3
			case fit >= 2:
				lines, k = [3]string{gpu.Label, gpu.Doing}, 2
			case fit == 1:
				lines, k = [3]string{gpu.Label}, 1
			}
			if draw.TextWidth(gpu.Label, fs) > iw {
				// "GPU 10" cut to "GPU …" says nothing: its number does.
				lines[0] = draw.SmallInt(gpu.GPU)
			}
			ly := y + ip
			for _, s := range lines[:k] {
				if s != "" {
					l.Label(x+ip, ly, fs, draw.AlignLeft, ink, draw.Fit(s, fs, iw))
				}
				ly += lineH
			}
		} else if gpu.Activity != ZoomIdle || i == v.Focus {
			// Too small for its words (the NVL72's 72 on a phone): the
			// GPUs at work and the one zoomed on still say which they
			// are, by number, where the number fits.
			if num := draw.SmallInt(gpu.GPU); draw.TextWidth(num, fs) <= g.bw-2*sc {
				l.Label(x+g.bw/2, y+ip*0.5, fs, draw.AlignCenter, ink, num)
			}
		}
		if gpu.Activity != ZoomIdle {
			l.Rect(x+ip, y+g.bh-ip-progH, iw, progH, draw.WithAlpha(ink, 70))
		}
	}
	if f := v.Focus; f >= 0 && f < n {
		x, y, _, _ := g.box(f)
		o := 3 * sc
		l.Frame(x-o, y-o, g.bw+2*o, g.bh+2*o, 3*sc, th.Text)
	}

	// The links' names and speeds, each beside its mark: a link line for
	// NVLink, the strip's colour for InfiniBand.
	lx, ly := left, lanesY
	for i, s := range [2]string{intra, inter} {
		if i == 1 && laneLines == 2 {
			lx, ly = left, ly+fs*1.4
		}
		cy := ly + fs*draw.LineHeight/2
		if i == 0 {
			l.Segment(lx, cy, lx+lane, cy, linkW, th.Link)
		} else {
			l.Rect(lx, cy-fs*0.3, lane, fs*0.6, th.Link)
		}
		l.Label(lx+lane+fs*0.5, ly, fs, draw.AlignLeft, th.Text, draw.Fit(s, fs, right-(lx+lane+fs*0.5)))
		lx += entry(s)
	}
	draw.Legend(&l, th, left, legendY, right-left, fs, sc, ex[:k]...)

	if v.Unfit != "" {
		// A plan that does not fit: the node veiled and hatched, how far
		// over in a box on it; nothing moves.
		// The band of the node across the stage: a box as wide as its
		// words, were the node narrow (one GPU).
		r := draw.Rect{X: left, Y: g.panel.Y, W: right - left, H: g.panel.H}
		draw.UnfitVeil(&l, th, r, r, sc, fs, v.Unfit)
		return l
	}

	// What moves: the progress bars, the lit routes and their packets,
	// the note, the clock.
	for i, gpu := range v.GPUs {
		if gpu.Activity == ZoomIdle {
			continue
		}
		x, y, _, _ := g.box(i)
		ink := zoomInk(zoomActColour(zoomAct(gpu.Activity), th), th)
		if pw := iw * draw.Clamp(float32(gpu.Progress), 0, 1); pw > 0 {
			l.Rect(x+ip, y+g.bh-ip-progH, pw, progH, ink)
		}
	}
	litW := draw.Clamp(fs*0.22, 2.5*sc, 5*sc)
	for _, f := range v.Flows {
		if znRoute(&g, &path, f, n) {
			path.draw(&l, litW, th.LinkActive)
		}
	}
	rp := draw.Clamp(fs*0.32, 3.5*sc, 7*sc)
	for _, f := range v.Flows {
		if znRoute(&g, &path, f, n) {
			x, y := path.at(float32(f.Progress))
			l.Circle(x, y, rp, th.Text)
		}
	}
	if !nvFlows {
		if swX < 0 {
			l.Label(g.x0+g.gw/2, labY, fs, draw.AlignCenter, th.Dim, draw.Fit(none, fs, g.gw-fs))
		} else {
			l.Label(swX, labY, fs, draw.AlignLeft, th.Dim, none)
		}
	}
	if v.Clock != "" {
		l.Label(right, clockY, fs, draw.AlignRight, th.Text, v.Clock)
	}
	return l
}

// zoomLink is the link line key with its {link}, formatted once.
func zoomLink(w draw.Words, key, link string) string {
	return zoomLabels.Get(zKey{w.Lang, key, link, 'l', 0, 0}, func() string { return w.Say(key, "link", link) })
}

// znRoute sets p to flow f's route, and reports whether it has one.
func znRoute(g *znGeom, p *znPath, f ZoomFlow, n int) bool {
	if f.From < 0 || f.From >= n {
		return false
	}
	if f.To < 0 {
		g.nic(p, f.From)
		return true
	}
	if f.To >= n || f.To == f.From {
		return false
	}
	g.hop(p, f.From, f.To)
	return true
}
