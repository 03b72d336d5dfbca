package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The cluster picture's geometry, in units of a GPU square's side s.
const (
	clPitch    = 1.3  // GPU squares' pitch inside a node
	clNodePad  = 0.35 // node edge to its GPUs
	clBarGap   = 0.3  // last GPU row to the NVLink bar
	clBarH     = 0.35 // the NVLink bar's thickness
	clColGap   = 0.6  // between node columns
	clRowGap   = 1.1  // between node rows: the row's IB bus runs in it
	clSpineGap = 0.8  // last node column to the spine
	clSpineW   = 0.5  // the spine strip
	clMargin   = 0.3  // round the grid, for the outlines of groups spanning nodes
)

// clNodeW and clNodeH are a node box's size in s for gc × gr GPUs.
func clNodeW(gc int) float32 { return float32(gc)*clPitch - (clPitch - 1) + 2*clNodePad }
func clNodeH(gr int) float32 {
	return float32(gr)*clPitch - (clPitch - 1) + 2*clNodePad + clBarGap + clBarH
}

// clusterGeom places nodes and GPUs: nc node columns of gc × gr GPUs,
// GPU side s, origin (x0, y0).
type clusterGeom struct {
	g, nc, gc, gr  int
	s, x0, y0      float32
	nodeW, nodeH   float32 // pixels
	spineX, spineW float32
}

func (c *clusterGeom) node(n int) (x, y float32) {
	return c.x0 + float32(n%c.nc)*(c.nodeW+clColGap*c.s), c.y0 + float32(n/c.nc)*(c.nodeH+clRowGap*c.s)
}

// gpu is the top-left corner of GPU r's square.
func (c *clusterGeom) gpu(r int) (x, y float32) {
	nx, ny := c.node(r / c.g)
	k := r % c.g
	return nx + (clNodePad+float32(k%c.gc)*clPitch)*c.s, ny + (clNodePad+float32(k/c.gc)*clPitch)*c.s
}

// barY is the centre line of node n's NVLink bar.
func (c *clusterGeom) barY(n int) float32 {
	_, ny := c.node(n)
	return ny + c.nodeH - (clNodePad+clBarH/2)*c.s
}

// busY is the IB bus under node n's row.
func (c *clusterGeom) busY(n int) float32 {
	_, ny := c.node(n)
	return ny + c.nodeH + clRowGap*c.s/2
}

// ibPath is the route of an InfiniBand transfer from node a to node b:
// down to a's row bus, clAlong it (through the spine when b is in another
// row), and up into b.
func (c *clusterGeom) ibPath(a, b int, p *[6][2]float32) int {
	ax, ay := c.node(a)
	bx, by := c.node(b)
	ax += c.nodeW / 2
	bx += c.nodeW / 2
	p[0] = [2]float32{ax, ay + c.nodeH}
	p[1] = [2]float32{ax, c.busY(a)}
	if a/c.nc == b/c.nc {
		p[2] = [2]float32{bx, c.busY(b)}
		p[3] = [2]float32{bx, by + c.nodeH}
		return 4
	}
	sx := c.spineX + c.spineW/2
	p[2] = [2]float32{sx, c.busY(a)}
	p[3] = [2]float32{sx, c.busY(b)}
	p[4] = [2]float32{bx, c.busY(b)}
	p[5] = [2]float32{bx, by + c.nodeH}
	return 6
}

// clAlong is the point a fraction t of the way clAlong the polyline p[:k].
func clAlong(p *[6][2]float32, k int, t float32) (float32, float32) {
	var total float32
	var seg [5]float32
	for i := 1; i < k; i++ {
		seg[i-1] = draw.Abs(p[i][0]-p[i-1][0]) + draw.Abs(p[i][1]-p[i-1][1]) // axis-aligned
		total += seg[i-1]
	}
	d := draw.Clamp(t, 0, 1) * total
	for i := 1; i < k; i++ {
		if d <= seg[i-1] || i == k-1 {
			f := float32(0)
			if seg[i-1] > 0 {
				f = draw.Minf(d/seg[i-1], 1)
			}
			return p[i-1][0] + (p[i][0]-p[i-1][0])*f, p[i-1][1] + (p[i][1]-p[i-1][1])*f
		}
		d -= seg[i-1]
	}
	return p[0][0], p[0][1]
}

// AppendCluster draws the cluster's nodes as boxes of GPU squares, each
// GPU coloured by its TP group, pipeline stage or data-parallel replica
// (Megatron's rank order), the TP groups outlined (clDashed, in the hot
// colour, where a group spans nodes), the NVLink bar inside each node and
// the InfiniBand lines from every node to its row's bus and the spine; and
// the active collective's packets on the links it uses. A ring step moves
// the same bytes on every hop, so when a collective crosses nodes the
// NVLink hops arrive early (by the ratio of the two links' speeds) and the
// IB hops take the whole step; the legend races the two links.
func AppendCluster(dst draw.List, v ClusterView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	G := v.GPUsPerNode
	if st.W <= 0 || st.H <= 0 || v.Nodes < 1 || G < 1 {
		return l
	}
	n := v.Nodes * G
	tp, pp, dp := max(v.TP, 1), max(v.PP, 1), max(v.DP, 1)*max(v.CP, 1)
	prog := draw.Clamp(float32(v.Progress), 0, 1)

	fs := draw.Clamp(draw.Minf(st.W, st.H)/45, 14*sc, 18*sc)
	pad := fs * 0.8
	w := v.Words

	// Header: the configuration and the clock; the active collective,
	// its link and its times.
	spans := false
	if tp > 1 {
		for a := 0; a < n; a += tp {
			if a/G != (min(a+tp, n)-1)/G {
				spans = true
				break
			}
		}
	}
	y := st.Y + pad
	clock := ""
	if v.Headline != "" && v.Unfit == "" { // a plan that does not fit runs no clock
		t := v.Time
		clock = clusterLabels.Get(clKey{w.Lang, "", 'c', t}, func() string {
			if t < 0 {
				return ""
			}
			return w.Say("canvas.clock", "t", units.Duration(t))
		})
	}
	cw := draw.TextWidth(clock, fs)
	clockY := y // the clock goes last: it changes every frame
	l.Label(st.X+pad, y, fs, draw.AlignLeft, th.Text, draw.Fit(clusterTitle(w, v.Nodes, G, tp, max(v.CP, 1), pp, max(v.DP, 1)), fs, st.W-3*pad-cw))
	y += fs * 1.4
	if v.Headline != "" {
		// The collective's colour, its links'; a plan that does not fit
		// lights none: its headline in the hot colour of its veil.
		hc := th.LinkActive
		if v.Unfit != "" {
			hc = th.Hot
		}
		h1, h2 := draw.Wrap2(v.Headline, fs, st.W-2*pad)
		l.Label(st.X+pad, y, fs, draw.AlignLeft, hc, h1)
		l.Key(hc, h1)
		if h2 != "" {
			y += fs * 1.3
			l.Label(st.X+pad, y, fs, draw.AlignLeft, hc, h2)
		}
		y += fs * 1.4
	}
	top := y + fs*0.2

	// At the bottom: the legend (the colouring, the links), and over it
	// the step's time by part.
	intra, inter := draw.LinkLabel(v.IntraName, "NVLink", v.IntraBW), draw.LinkLabel(v.InterName, "InfiniBand", v.InterBW)
	lane := fs * 3
	entry := func(s string) float32 { return lane + fs*0.5 + draw.TextWidth(s, fs) + fs*1.5 }
	legendLines := 1
	if entry(intra)+entry(inter) > st.W-2*pad {
		legendLines = 2
	}
	groupsN, _ := clGroups(v.ColourBy, n, tp, pp, dp)
	colourKey := clColourKey(w, v.ColourBy, groupsN, tp)
	stripW := fs * 0.9 * float32(min(groupsN, 8))
	ckLines := float32(1)
	if stripW+fs*0.5+draw.TextWidth(colourKey, fs) > st.W-2*pad {
		ckLines = 2
	}
	// The key under the links: the step bar's parts (when it is drawn),
	// what lit and hot lines mean.
	barH := float32(0)
	var ex [10]draw.LegendEntry
	k := 0
	var bar1, bar2 string // the step bar's label, on two lines where one is short
	if v.Step > 0 && len(v.Parts) > 0 && !v.Pending && v.Unfit == "" {
		bar1, bar2 = draw.Wrap2(clStepLabel(w, v), fs, st.W-2*pad)
		barH = fs * 2.8
		if bar2 != "" {
			barH += fs * 1.3
		}
		for _, p := range v.Parts {
			if p.Seconds > 0 && k < len(ex)-2 {
				key := p.Key
				ex[k] = draw.LegendEntry{Color: PlanPartColour(key, th), Label: clusterLabels.Get(clKey{w.Lang, key, 'p', 0}, func() string { return w.Say("canvas.cluster.part_" + key) })}
				k++
			}
		}
	}
	if v.Unfit == "" { // a plan that does not fit lights no link
		ex[k] = draw.LegendEntry{Color: th.LinkActive, Label: w.Say("canvas.cluster.key_lit")}
		k++
	}
	if spans {
		ex[k] = draw.LegendEntry{Color: th.Hot, Label: w.Say("canvas.cluster.key_spans")}
		k++
	}
	extra := ex[:k]
	extraH := draw.LegendHeight(st.W-2*pad, fs, extra...)
	legendH := ckLines*fs*1.35 + float32(legendLines)*fs*1.4 + extraH
	legendY := st.Y + st.H - pad - legendH
	bottom := legendY - fs*0.6 - barH
	if barH > 0 {
		clStepBar(&l, th, sc, fs, bar1, bar2, draw.Rect{X: st.X + pad, Y: bottom + fs*0.3, W: st.W - 2*pad, H: barH - fs*0.3}, v)
	}

	// The grid: the node columns and GPU rows per node that give the
	// largest GPU squares.
	var c clusterGeom
	c.g = G
	availW, availH := st.W-2*pad, bottom-top
	if availW <= 0 || availH <= 0 {
		return l
	}
	// Fewer GPU rows a node (one, best) unless more rows give squares
	// clearly larger: packets on a node's bar between GPUs of one column
	// would overlap.
	for _, gc := range [...]int{G, G / 2, G / 4} {
		if gc < 1 || G%gc != 0 || (gc != G && G/gc > 4) {
			continue
		}
		gr := G / gc
		for nc := 1; nc <= v.Nodes; nc++ {
			nr := (v.Nodes + nc - 1) / nc
			wu := float32(nc)*clNodeW(gc) + float32(nc-1)*clColGap + clSpineGap + clSpineW + 2*clMargin
			hu := float32(nr)*(clNodeH(gr)+clRowGap) + 2*clMargin
			s := draw.Minf(draw.Minf(availW/wu, availH/hu), 80*sc)
			if (gc == c.gc && s > c.s) || (gc != c.gc && s > c.s*1.3) {
				c.s, c.nc, c.gc, c.gr = s, nc, gc, gr
			}
		}
	}
	s := c.s
	nr := (v.Nodes + c.nc - 1) / c.nc
	c.nodeW, c.nodeH = clNodeW(c.gc)*s, clNodeH(c.gr)*s
	gridW := (float32(c.nc)*clNodeW(c.gc) + float32(c.nc-1)*clColGap + clSpineGap + clSpineW) * s
	gridH := float32(nr) * (clNodeH(c.gr) + clRowGap) * s
	c.x0 = st.X + (st.W-gridW)/2
	c.y0 = top + (availH-gridH)/2
	c.spineX = c.x0 + gridW - clSpineW*s
	c.spineW = clSpineW * s

	// InfiniBand: the spine, a bus under each row, a line down from each
	// node.
	ibW := draw.Clamp(0.07*s, 1*sc, 2.5*sc)
	l.Rect(c.spineX, c.y0, c.spineW, gridH-clRowGap*s/2+ibW, th.Link)
	for r := 0; r < nr; r++ {
		first := r * c.nc
		x, _ := c.node(first)
		y := c.busY(first)
		l.Segment(x+c.nodeW/2, y, c.spineX, y, ibW, th.Link)
	}
	for k := 0; k < v.Nodes; k++ {
		x, y := c.node(k)
		l.Segment(x+c.nodeW/2, y+c.nodeH, x+c.nodeW/2, c.busY(k), ibW, th.Link)
	}

	// What moves is drawn last — the lit links, the packets, the clock —
	// after what stays, so that successive frames share the stayers as a
	// prefix (render/paint keeps them on a layer).
	var laneDots [2][2]float32 // the legend lanes' racing packets
	// Nodes: a panel, its GPUs coloured by group, its NVLink bar (lit
	// later, with what moves).
	groups, key := clGroups(v.ColourBy, n, tp, pp, dp)
	stride := clGoldenStride(groups)
	lastIdx, col := -1, draw.Color{}
	for k := 0; k < v.Nodes; k++ {
		x, y := c.node(k)
		l.Rect(x, y, c.nodeW, c.nodeH, th.Panel)
		l.Frame(x, y, c.nodeW, c.nodeH, 1*sc, th.Link)
		l.Hit(x, y, c.nodeW, c.nodeH, k*G) // a node picks its first GPU
		// GPUs a few pixels wide: a row's run of one colour as one
		// rectangle (a 1-pixel gap between squares is no picture; 8× fewer
		// marks at 16,384 GPUs).
		runs := s < 4*sc
		var rx, ry, rw float32
		var rcol draw.Color
		for i := 0; i < G; i++ {
			r := k*G + i
			idx := key(r)
			if idx != lastIdx {
				lastIdx, col = idx, draw.Chunk((idx*stride)%groups, groups)
			}
			gx, gy := c.gpu(r)
			if !runs {
				l.Rect(gx, gy, s, s, col)
				l.Hit(gx, gy, s, s, r)
				continue
			}
			if rw > 0 && (gy != ry || col != rcol) {
				l.Rect(rx, ry, rw, s, rcol)
				rw = 0
			}
			if rw == 0 {
				rx, ry, rcol = gx, gy, col
			}
			rw = gx + s - rx
		}
		if rw > 0 {
			l.Rect(rx, ry, rw, s, rcol)
		}
		l.Rect(x+clNodePad*s, c.barY(k)-clBarH*s/2, c.nodeW-2*clNodePad*s, clBarH*s, th.Rim)
	}

	// TP groups: an outline round the GPUs of a group inside one node
	// (per GPU row when it covers part of two rows); a clDashed outline in
	// the hot colour round the nodes of a group that spans nodes.
	if tp > 1 {
		// GPUs a few pixels wide: the colours say the groups inside a
		// node, and only groups across nodes are outlined.
		inNode := s >= 4*sc
		ow := draw.Clamp(0.08*s, 1*sc, 3*sc)
		o := 0.1 * s
		o2 := 0.22 * s
		dash := draw.Maxf(0.8*s, 4*sc)
		for a := 0; a < n; a += tp {
			b := min(a+tp, n) - 1
			na, nb := a/G, b/G
			if na == nb && !inNode {
				continue
			}
			if na == nb {
				la, lb := a%G, b%G
				ra, rb := la/c.gc, lb/c.gc
				if ra == rb || (la%c.gc == 0 && lb%c.gc == c.gc-1) {
					x, y := c.gpu(a)
					cols := lb - la + 1
					if ra != rb {
						cols = c.gc
					}
					w := (float32(cols)*clPitch - (clPitch - 1)) * s
					h := (float32(rb-ra+1)*clPitch - (clPitch - 1)) * s
					l.Frame(x-o, y-o, w+2*o, h+2*o, ow, th.Rim)
					continue
				}
				for row := ra; row <= rb; row++ {
					c0, c1 := 0, c.gc-1
					if row == ra {
						c0 = la % c.gc
					}
					if row == rb {
						c1 = lb % c.gc
					}
					x, y := c.gpu(na*G + row*c.gc + c0)
					w := (float32(c1-c0+1)*clPitch - (clPitch - 1)) * s
					l.Frame(x-o, y-o, w+2*o, s+2*o, ow, th.Rim)
				}
				continue
			}
			// Runs of the group's nodes clAlong each grid row.
			for k := na; k <= nb; {
				end := min(nb, (k/c.nc+1)*c.nc-1)
				x, y := c.node(k)
				x2, _ := c.node(end)
				clDashedFrame(&l, x-o2, y-o2, x2+c.nodeW-x+2*o2, c.nodeH+2*o2, dash, dash*0.6, ow, th.Hot)
				k = end + 1
			}
		}
	}

	// A plan that does not fit: its GPUs veiled and hatched, not running,
	// how far over in a box on them.
	if v.Unfit != "" {
		grid := draw.Rect{X: c.x0 - clMargin*s, Y: c.y0 - clMargin*s, W: gridW + 2*clMargin*s, H: gridH + clMargin*s}
		draw.UnfitVeil(&l, th, grid, grid, sc, fs, v.Unfit)
	}

	// Legend: the colouring (a strip of the groups' colours, each keyed);
	// a lane per link, where while a collective runs a packet races along
	// each (drawn with what moves), the NVLink one faster by the ratio of
	// the speeds; what lit and hot lines mean.
	ly := legendY
	{
		k := min(groupsN, 8)
		sw := fs * 0.9
		for i := 0; i < k; i++ {
			idx := i * max(1, groupsN/k)
			l.Rect(st.X+pad+float32(i)*sw, ly+fs*0.1, sw-sc, sw, draw.Chunk((idx*stride)%groups, groups))
		}
		for g := 0; g < groups; g++ {
			l.Key(draw.Chunk(g, groups), colourKey)
		}
		if ckLines == 1 {
			l.Label(st.X+pad+stripW+fs*0.5, ly, fs, draw.AlignLeft, th.Text, colourKey)
		} else {
			c1, c2 := draw.Wrap2(colourKey, fs, st.W-2*pad-stripW-fs*0.5)
			l.Label(st.X+pad+stripW+fs*0.5, ly, fs, draw.AlignLeft, th.Text, c1)
			l.Label(st.X+pad, ly+fs*1.35, fs, draw.AlignLeft, th.Text, c2)
		}
		ly += ckLines * fs * 1.35
	}
	lx := st.X + pad
	for i, e := range [2]string{intra, inter} {
		if i == 1 && legendLines == 2 {
			lx, ly = st.X+pad, ly+fs*1.4
		}
		cy := ly + fs*0.55
		if i == 0 {
			l.Rect(lx, cy-fs*0.2, lane, fs*0.4, th.Rim)
			l.Key(th.Rim, e)
		} else {
			l.Segment(lx, cy, lx+lane, cy, 1*sc, th.Dim)
		}
		laneDots[i] = [2]float32{lx, cy}
		l.Label(lx+lane+fs*0.5, ly, fs, draw.AlignLeft, th.Text, draw.Fit(e, fs, st.X+st.W-pad-(lx+lane+fs*0.5)))
		lx += entry(e)
	}
	ly += fs * 1.4
	draw.Legend(&l, th, st.X+pad, ly, st.W-2*pad, fs, sc, extra...)
	// The active collective's hops: a ring inside each TP group and each
	// DP replica set; PP sends from a stage to the next.
	next := func(r int) int {
		switch v.Active {
		case "tp":
			k := r % tp
			return r - k + (k+1)%tp
		case "dp":
			k := (r / tp) % dp
			return r + tp*((k+1)%dp-k)
		case "pp":
			if r/(tp*dp) < pp-1 {
				return r + tp*dp
			}
		}
		return -1
	}
	// A plan that does not fit runs no collective: nothing lit, nothing
	// moves.
	active := (v.Active == "tp" || v.Active == "dp" || v.Active == "pp") && v.Unfit == ""
	// Lit links: NVLink bars of nodes with a hop inside, IB routes of node
	// pairs with a hop between (each pair once).
	var litBar [16]uint64
	var seen [64]uint64
	var path [6][2]float32
	anyIB := false
	lastA, lastB := -1, -1
	newPair := func(a, b int) bool {
		if v.Nodes <= 64 {
			k := a*64 + b
			if seen[k/64]&(1<<(k%64)) != 0 {
				return false
			}
			seen[k/64] |= 1 << (k % 64)
			return true
		}
		if a == lastA && b == lastB {
			return false
		}
		lastA, lastB = a, b
		return true
	}
	litW := draw.Clamp(0.1*s, 1.5*sc, 3*sc)
	if active {
		for r := 0; r < n; r++ {
			b := next(r)
			if b < 0 || b >= n || b == r {
				continue
			}
			na, nb := r/G, b/G
			if na == nb {
				if na < 16*64 {
					litBar[na/64] |= 1 << (na % 64)
				}
				continue
			}
			anyIB = true
			if !newPair(na, nb) {
				continue
			}
			k := c.ibPath(na, nb, &path)
			for i := 1; i < k; i++ {
				l.Segment(path[i-1][0], path[i-1][1], path[i][0], path[i][1], litW, th.LinkActive)
			}
		}
	}
	for k := 0; k < v.Nodes && k < 16*64; k++ {
		if litBar[k/64]&(1<<(k%64)) != 0 {
			x, _ := c.node(k)
			l.Rect(x+clNodePad*s, c.barY(k)-clBarH*s/2, c.nodeW-2*clNodePad*s, clBarH*s, th.LinkActive)
		}
	}

	// Packets: NVLink hops move clAlong the node's bar, IB hops clAlong the
	// route between the nodes (one packet per node pair).
	if active {
		tIB := prog
		tNV := prog
		ratio := clLinkRatio(v.IntraBW, v.InterBW)
		if anyIB {
			tNV = draw.Minf(1, prog*ratio)
		}
		rp := draw.Clamp(0.2*s, 1.5*sc, 6*sc)
		seen = [64]uint64{}
		lastA, lastB = -1, -1
		for r := 0; r < n; r++ {
			b := next(r)
			if b < 0 || b >= n || b == r {
				continue
			}
			na, nb := r/G, b/G
			if na == nb {
				if s < 4*sc {
					// GPUs a few pixels wide: a dot a hop would cover
					// them; the lit bar says the NVLink traffic.
					continue
				}
				xa, _ := c.gpu(r)
				xb, _ := c.gpu(b)
				l.Circle(xa+s/2+(xb-xa)*tNV, c.barY(na), rp, th.Text)
				continue
			}
			if !newPair(na, nb) {
				continue
			}
			k := c.ibPath(na, nb, &path)
			x, y := clAlong(&path, k, tIB)
			l.Circle(x, y, rp*0.85, draw.WithAlpha(th.Text, 200))
		}
	}

	if active {
		for i, d := range laneDots {
			t, c := prog, draw.WithAlpha(th.Text, 200)
			if i == 0 {
				t, c = draw.Minf(1, prog*clLinkRatio(v.IntraBW, v.InterBW)), th.Text
			}
			l.Circle(d[0]+lane*t, d[1], fs*0.3, c)
		}
	}
	if clock != "" {
		l.Label(st.X+st.W-pad, clockY, fs, draw.AlignRight, th.Text, clock)
	}
	return l
}

// clStepLabel is the step bar's label: the step's time and the active
// collective's share of it.
func clStepLabel(w draw.Words, v ClusterView) string {
	return clusterLabels.Get(clKey{w.Lang, v.Active, 's', v.Step}, func() string {
		var part float64
		for _, p := range v.Parts {
			if p.Key == v.Active {
				part += p.Seconds
			}
		}
		return w.Say("canvas.cluster.step", "step", units.Duration(v.Step), "part", w.Say("canvas.cluster.part_"+v.Active),
			"share", units.Percent(part/v.Step))
	})
}

// clStepBar draws the step's time by part in r: its label (one or two
// lines), then a bar on the step's own scale, the active collective's
// part outlined and its share said.
func clStepBar(l *draw.List, th draw.Theme, sc, fs float32, label1, label2 string, r draw.Rect, v ClusterView) {
	l.Label(r.X, r.Y, fs, draw.AlignLeft, th.Text, label1)
	by, bh := r.Y+fs*1.3, fs*0.9
	if label2 != "" {
		l.Label(r.X, by, fs, draw.AlignLeft, th.Text, label2)
		by += fs * 1.3
	}
	x := r.X
	var ax, aw float32
	for _, p := range v.Parts {
		if p.Seconds <= 0 {
			continue
		}
		pw := r.W * float32(p.Seconds/v.Step)
		l.Rect(x, by, pw, bh, PlanPartColour(p.Key, th))
		if p.Key == v.Active {
			ax, aw = x, pw
		}
		x += pw
	}
	l.Frame(r.X, by, r.W, bh, 1*sc, th.Link)
	if aw > 0 {
		l.Frame(ax, by-2*sc, draw.Maxf(aw, 2*sc), bh+4*sc, 2*sc, th.Text)
	}
}

// clDashedFrame draws a rectangle's outline as dashes.
func clDashedFrame(l *draw.List, x, y, w, h, dash, gap, width float32, c draw.Color) {
	draw.Dashed(l, x, y, x+w, y, dash, gap, width, c)
	draw.Dashed(l, x+w, y, x+w, y+h, dash, gap, width, c)
	draw.Dashed(l, x+w, y+h, x, y+h, dash, gap, width, c)
	draw.Dashed(l, x, y+h, x, y, dash, gap, width, c)
}

// clGroups is the number of colour groups and each rank's group.
func clGroups(by string, n, tp, pp, dp int) (int, func(int) int) {
	switch by {
	case "pp":
		return pp, func(r int) int { return (r / (tp * dp)) % pp }
	case "dp":
		return dp, func(r int) int { return (r / tp) % dp }
	}
	return max(1, (n+tp-1)/tp), func(r int) int { return r / tp }
}

// clGoldenStride is a step coprime with n near n/φ², so that neighbouring
// groups' hues (Chunk of the permuted index) lie far apart; 1 for up to 8
// groups, whose hues are far apart already.
func clGoldenStride(n int) int {
	if n <= 8 {
		return 1
	}
	k0 := int(float32(n)*0.382 + 0.5)
	for d := 0; d < n; d++ {
		for _, k := range [2]int{k0 + d, k0 - d} {
			if k > 1 && k < n && clGcd(k, n) == 1 {
				return k
			}
		}
	}
	return 1
}

func clGcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// clColourKey says what the GPUs' colours mean.
func clColourKey(w draw.Words, by string, groups, tp int) string {
	return clusterLabels.Get(clKey{w.Lang, by, 'k', float64(groups*1000 + tp)}, func() string {
		switch by {
		case "pp":
			return w.Say("canvas.cluster.colour_pp", "n", strconv.Itoa(groups))
		case "dp":
			return w.Say("canvas.cluster.colour_dp", "n", strconv.Itoa(groups))
		}
		return w.Say("canvas.cluster.colour_tp", "n", strconv.Itoa(groups), "tp", strconv.Itoa(tp))
	})
}

type clKey struct {
	lang, sub string
	kind      byte
	v         float64
}

var clusterLabels draw.Memo[clKey]

// clLinkRatio is how many times faster the intra-node link is than the
// inter-node one (9 when either is unknown: NVLink 4 at 450 GB/s a
// direction against a 400 Gb/s NIC's 50 GB/s).
func clLinkRatio(intra, inter float64) float32 {
	if intra <= 0 || inter <= 0 {
		return 9
	}
	return draw.Clamp(float32(intra/inter), 1, 50)
}

// clusterTitle is the configuration, built once per configuration and
// language, not every frame.
func clusterTitle(w draw.Words, nodes, g, tp, cp, pp, dp int) string {
	return clusterLabels.Get(clKey{w.Lang, strconv.Itoa(cp), 't', float64(nodes)*1e12 + float64(g)*1e9 + float64(tp)*1e6 + float64(pp)*1e3 + float64(dp)}, func() string {
		key := "canvas.cluster.title"
		if nodes == 1 {
			key = "canvas.cluster.title_one" // "1 node", not "1 nodes"
		}
		if cp > 1 {
			key += "_cp"
		}
		return w.Say(key, "nodes", strconv.Itoa(nodes), "g", strconv.Itoa(g), "tp", strconv.Itoa(tp), "cp", strconv.Itoa(cp), "pp", strconv.Itoa(pp), "dp", strconv.Itoa(dp))
	})
}
