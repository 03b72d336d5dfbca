package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The mixture-of-experts pictures: the router's fan of tokens into
// experts, with each expert's load against its capacity; and the experts
// placed on the GPUs of nodes, one GPU's dispatch in flight to them over
// NVLink and InfiniBand.

// RouterSource is one thing the router's copies leave from: a token (a
// chip), or a GPU's whole micro-batch.
type RouterSource struct {
	Label string // a GPU's: "GPU 3"; a token's: its GPU's, said once beside the group
	Group int    // a token's GPU: tokens of a group are drawn together
}

// RouterCopy is one line of the fan: copies from a source to an expert.
type RouterCopy struct {
	Source, Expert int
	Count          int     // copies the line stands for (1: a token's)
	Dropped        bool    // over the expert's capacity
	At             float64 // when it arrives, as a share of the step's window
}

// RouterView is a mixture of experts' router at work on one batch.
type RouterView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Title, Clock  string
	// The model's parameters on one scale: all of them, and the share a
	// token goes through (hidden while Pending).
	ParamsLabel, ActiveLabel string
	ActiveShare              float64
	Pending                  bool
	Sources                  []RouterSource
	Tokens                   bool // the sources are tokens, drawn as chips
	SourceNote               string
	Copies                   []RouterCopy
	// Per expert: copies routed to it and copies it keeps (Kept ≤ Load;
	// the rest are dropped), and the GPU it lives on (nil: not shown).
	Load, Kept []int
	ExpertGPU  []int
	// ExpertCapacity is an expert's slots over all GPUs' buffers (0: no
	// capacity); Mean the copies an expert gets on average.
	ExpertCapacity int
	Mean           float64
	// Frac is how much of the dispatch has happened: copies arrive in
	// order, a bar filling as they do.
	Frac float64
	// KeptBy and DroppedBy, for sources drawn by GPU, are each expert's
	// copies kept and dropped once a share b ÷ (len − 1) of the dispatch
	// has happened (b = 0 … len − 1), as the engine fills the buffers:
	// each GPU's tokens in order, the GPUs at once, a copy dropped only
	// when its GPU's buffer for the expert is full. Nil: both in
	// proportion to Frac.
	KeptBy, DroppedBy [][]float64
	// Buffers is how many GPUs' buffers make an expert's capacity (each
	// ExpertCapacity ÷ Buffers slots); 0 or 1: one.
	Buffers int
	// Said are the picture's words, made once a run and language
	// (MakeRouterWords).
	Said RouterWords
}

// RouterWords are a router picture's fixed words.
type RouterWords struct {
	KeyActive, KeyKept, KeyDropped, KeyPadding string
	Experts, Router, Mean, Capacity            string
	ExpertNames, OnGPU                         []string // per expert
}

// MakeRouterWords words v's picture in w: its keys, headers and each
// expert's name and GPU.
func MakeRouterWords(v RouterView, w draw.Words) RouterWords {
	E := len(v.Load)
	r := RouterWords{KeyActive: w.Say("canvas.router.key_active"), KeyKept: w.Say("canvas.router.key_kept"),
		KeyDropped: w.Say("canvas.router.key_dropped"), KeyPadding: w.Say("canvas.router.key_padding"),
		Experts: w.Say("canvas.router.experts", "n", strconv.Itoa(E)), Router: w.Say("canvas.router.router"),
		Mean: w.Say("canvas.router.mean", "n", units.Count(int64(math.Round(v.Mean))))}
	if v.ExpertCapacity > 0 {
		r.Capacity = w.Say("canvas.router.capacity", "slots", units.Count(int64(v.ExpertCapacity)))
		if v.Buffers > 1 {
			// Per GPU: a GPU's copies drop when its own buffer is full.
			r.Capacity = w.Say("canvas.router.capacity_gpus", "slots", units.Count(int64(v.ExpertCapacity)),
				"gpus", strconv.Itoa(v.Buffers), "per", units.Count(int64(v.ExpertCapacity/v.Buffers)))
		}
	}
	r.ExpertNames = make([]string, E)
	for e := range E {
		r.ExpertNames[e] = strconv.Itoa(e)
	}
	if v.ExpertGPU != nil {
		r.OnGPU = make([]string, E)
		for e, g := range v.ExpertGPU {
			r.OnGPU[e] = w.Say("canvas.router.on_gpu", "gpu", strconv.Itoa(g))
		}
	}
	return r
}

// AppendRouter draws the router's fan (PICTURES.md's rule 2: the tokens
// go somewhere): sources down the left, the router in the middle, the
// experts down the right with a bar each of the copies they received —
// computed, dropped over the capacity line, and the padding that fills
// the rest of their buffers. Above, the model's parameters on one bar,
// the part a token uses lit.
func AppendRouter(dst draw.List, v RouterView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	E := len(v.Load)
	if st.W <= 0 || st.H <= 0 || E == 0 || len(v.Kept) != E {
		return l
	}
	fs := draw.Clamp(draw.Minf(st.W, st.H)/32, 14*sc, 20*sc)
	pad := fs
	x0, x1 := st.X+pad, st.X+st.W-pad
	y := st.Y + pad*0.5

	// Header: the title (on two lines if it must), the clock.
	cw := float32(0)
	if v.Clock != "" {
		cw = draw.TextWidth(v.Clock, fs) + fs
		l.Label(x1, y, fs, draw.AlignRight, th.Text, v.Clock)
	}
	t1, t2 := draw.Wrap2(v.Title, fs, x1-x0-cw)
	l.Label(x0, y, fs, draw.AlignLeft, th.Text, t1)
	if t2 != "" {
		y += fs * draw.LineHeight
		l.Label(x0, y, fs, draw.AlignLeft, th.Text, draw.Fit(t2, fs, x1-x0))
	}
	y += fs * 1.7

	// The parameters: all, and a token's (on two lines if they must).
	active := th.Rim
	stacked := draw.TextWidth(v.ActiveLabel, fs)+draw.TextWidth(v.ParamsLabel, fs)+fs > x1-x0
	if v.ActiveLabel != "" && !v.Pending {
		l.Label(x0, y, fs, draw.AlignLeft, active, draw.Fit(v.ActiveLabel, fs, x1-x0))
	}
	if stacked {
		y += fs * draw.LineHeight
	}
	l.Label(x1, y, fs, draw.AlignRight, th.Dim, draw.Fit(v.ParamsLabel, fs, x1-x0))
	y += fs * 1.35
	barH := fs * 0.8
	l.Rect(x0, y, x1-x0, barH, th.Empty)
	if !v.Pending && v.ActiveShare > 0 {
		l.Rect(x0, y, (x1-x0)*float32(math.Min(v.ActiveShare, 1)), barH, active)
	}
	y += barH + fs*0.9

	// The legend, at the foot.
	said := &v.Said
	all := [4]draw.LegendEntry{{Color: active, Label: said.KeyActive}, {Color: th.LinkActive, Label: said.KeyKept},
		{Color: th.Hot, Label: said.KeyDropped}, {Color: th.Dim, Hatch: true, Label: said.KeyPadding}}
	entries := all[:2]
	if v.ExpertCapacity > 0 {
		entries = all[:]
	}
	lh := draw.LegendHeight(x1-x0, fs, entries...)
	bottom := st.Y + st.H - pad*0.5 - lh
	draw.Legend(&l, th, x0, bottom+pad*0.25, x1-x0, fs, sc, entries...)
	bottom -= fs * 1.6 // the mean's label under the rows
	if v.ExpertCapacity > 0 {
		bottom -= fs * draw.LineHeight // and perhaps the capacity's
	}

	// Columns: sources, the router, the experts and their bars.
	headY := y
	top := y + fs*1.5
	if bottom-top < fs*3 {
		return l
	}
	srcW := draw.Clamp((x1-x0)*0.2, fs*3, fs*9)
	if v.Tokens {
		srcW = draw.Clamp((x1-x0)*0.16, fs*2.5, fs*7)
	}
	expLabW := draw.TextWidth("000", fs) + fs*0.4
	onGPU := len(said.OnGPU) == E && x1-x0 > fs*36 // room to say where each expert lives
	if onGPU {
		expLabW += draw.TextWidth(said.OnGPU[E-1], fs) + fs*0.4
	}
	routerX := x0 + srcW + (x1-x0)*0.12
	expX := routerX + (x1-x0)*0.1
	barX := expX + expLabW
	barW := x1 - barX - draw.TextWidth("000,000", fs) - fs*0.5
	if barW < fs*3 {
		return l
	}
	l.Label(x0, headY, fs, draw.AlignLeft, th.Dim, draw.Fit(v.SourceNote, fs, routerX-x0))
	l.Label(expX, headY, fs, draw.AlignLeft, th.Dim, draw.Fit(said.Experts, fs, x1-expX))

	// The experts' rows (a thin band each when there are many).
	rowH := (bottom - top) / float32(E)
	rowY := func(e int) float32 { return top + rowH*float32(e) }
	labelled := rowH >= fs*1.05 && len(said.ExpertNames) == E
	scaleMax := float64(v.ExpertCapacity)
	for _, n := range v.Load {
		scaleMax = math.Max(scaleMax, float64(n))
	}
	scaleMax = math.Max(scaleMax*1.05, 1)
	at := func(n float64) float32 { return barX + barW*float32(n/scaleMax) }
	frac := math.Min(math.Max(v.Frac, 0), 1)
	// Copies arrived by now, per expert.
	arrivedKept := func(e int) (kept, dropped float64) {
		if v.Tokens {
			for _, c := range v.Copies {
				if c.Expert == e && c.At <= frac {
					if c.Dropped {
						dropped += float64(c.Count)
					} else {
						kept += float64(c.Count)
					}
				}
			}
			return kept, dropped
		}
		if e < len(v.KeptBy) && e < len(v.DroppedBy) && len(v.KeptBy[e]) > 1 && len(v.KeptBy[e]) == len(v.DroppedBy[e]) {
			// Between the engine's samples, linearly.
			x := frac * float64(len(v.KeptBy[e])-1)
			i := min(int(x), len(v.KeptBy[e])-2)
			f := x - float64(i)
			return v.KeptBy[e][i] + (v.KeptBy[e][i+1]-v.KeptBy[e][i])*f, v.DroppedBy[e][i] + (v.DroppedBy[e][i+1]-v.DroppedBy[e][i])*f
		}
		return float64(v.Kept[e]) * frac, float64(v.Load[e]-v.Kept[e]) * frac
	}
	bh := draw.Maxf(rowH*0.62, 1)
	for e := range E {
		ry := rowY(e)
		by := ry + (rowH-bh)/2
		if labelled {
			ly := ry + (rowH-fs*draw.LineHeight)/2
			l.Label(expX, ly, fs, draw.AlignLeft, th.Text, said.ExpertNames[e])
			if onGPU {
				l.Label(expX+draw.TextWidth("000", fs)+fs*0.4, ly, fs, draw.AlignLeft, th.Dim, said.OnGPU[e])
			}
		} else if every := int(math.Ceil(float64(fs * 1.3 / rowH))); e%every == 0 && e+every <= E && len(said.ExpertNames) == E {
			l.Label(expX, ry, fs, draw.AlignLeft, th.Text, said.ExpertNames[e])
		}
		kept, dropped := arrivedKept(e)
		if v.ExpertCapacity > 0 {
			// The buffer: padding under the line until copies fill it.
			cx := at(float64(v.ExpertCapacity))
			kx := at(kept)
			if cx > kx && frac >= 1 {
				draw.Hatch(&l, kx, by, cx-kx, bh, draw.Maxf(bh/2, 3*sc), 1*sc, th.Dim)
			}
		}
		if kept > 0 {
			l.Rect(barX, by, at(kept)-barX, bh, th.LinkActive)
		}
		if dropped > 0 {
			l.Rect(at(kept), by, at(kept+dropped)-at(kept), bh, th.Hot)
		}
		if labelled && kept+dropped > 0 {
			lx := at(kept + dropped)
			if v.ExpertCapacity > 0 {
				lx = draw.Maxf(lx, at(float64(v.ExpertCapacity)))
			}
			l.Label(lx+fs*0.3, ry+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Dim, countLabel(int(math.Round(kept+dropped))))
		}
	}
	// The mean and the capacity, across every row.
	if v.Mean > 0 {
		mx := at(v.Mean)
		draw.Dashed(&l, mx, top, mx, bottom+fs*0.2, fs*0.3, fs*0.3, 1*sc, th.Dim)
		lab := said.Mean
		l.Label(draw.Clamp(mx, barX+draw.TextWidth(lab, fs)/2, x1-draw.TextWidth(lab, fs)/2), bottom+fs*0.3, fs, draw.AlignCenter, th.Dim, lab)
	}
	if v.ExpertCapacity > 0 {
		cx := at(float64(v.ExpertCapacity))
		l.Segment(cx, top-fs*0.2, cx, bottom, 2*sc, th.Hot)
		lab := said.Capacity
		lw := draw.TextWidth(lab, fs)
		lx, al := cx, draw.AlignCenter
		if cx+lw/2 > x1 {
			lx, al = x1, draw.AlignRight
		}
		ly := headY
		left := lx - lw/2
		if al == draw.AlignRight {
			left = lx - lw
		}
		if left < expX+draw.TextWidth(said.Experts, fs)+fs*0.5 {
			ly = bottom + fs*0.3 + fs*draw.LineHeight // under the mean's label
		}
		l.Label(lx, ly, fs, al, th.Hot, lab)
	}

	// The sources: GPUs, or tokens in a group for each GPU they are on.
	n := len(v.Sources)
	if n == 0 {
		return l
	}
	groups, per := 1, n
	if v.Tokens {
		groups = v.Sources[n-1].Group + 1
		per = (n + groups - 1) / groups
	}
	labW := float32(0)
	if v.Tokens && groups > 1 {
		labW = draw.TextWidth(v.Sources[n-1].Label, fs) + fs*0.5
	}
	cols := 1
	const gap = 0.6 // rows between groups
	rowsPer := per
	pitch := (bottom - top) / float32(n)
	for v.Tokens && cols < 4 {
		rowsPer = (per + cols - 1) / cols
		pitch = (bottom - top) / (float32(rowsPer*groups) + gap*float32(groups-1))
		if pitch >= fs*0.7 {
			break
		}
		cols++
	}
	srcPos := func(i int) (x, y, w, h float32) {
		g, j := i/per, i%per
		if !v.Tokens {
			g, j = 0, i
		}
		c, r := j%cols, j/cols
		w = (srcW - labW) / float32(cols)
		h = draw.Minf(pitch*0.78, fs*2.2)
		row := float32(g*rowsPer+r) + gap*float32(g)
		return x0 + labW + w*float32(c), top + pitch*row + (pitch-h)/2, w * 0.86, h
	}
	for i, s := range v.Sources {
		x, y, w, h := srcPos(i)
		l.Rect(x, y, w, h, th.GPU)
		l.Frame(x, y, w, h, 1*sc, th.Link)
		switch {
		case v.Tokens && groups > 1 && i%per == per/2 && i >= per/2:
			// The group's GPU, beside its middle token.
			l.Label(x0, y+h/2-fs*draw.LineHeight/2, fs, draw.AlignLeft, th.Dim, s.Label)
		case !v.Tokens && s.Label != "" && h >= fs*draw.LineHeight:
			l.Label(x+w/2, y+(h-fs*draw.LineHeight)/2, fs, draw.AlignCenter, th.Text, draw.Fit(s.Label, fs, w-fs*0.3))
		}
	}
	routerY := (top + bottom) / 2
	rr := draw.Clamp(fs*1.1, fs, fs*2)
	// The fan: every line through the router; a packet on the way while
	// its copy travels.
	for _, c := range v.Copies {
		if c.Source < 0 || c.Source >= n || c.Expert < 0 || c.Expert >= E {
			continue
		}
		x, y, w, h := srcPos(c.Source)
		sx, sy := x+w, y+h/2
		ex, ey := expX-fs*0.3, rowY(c.Expert)+rowH/2
		col := th.LinkActive
		if c.Dropped {
			col = th.Hot
		}
		width := 1 * sc
		if !v.Tokens && c.Count > 0 {
			width = draw.Clamp(float32(c.Count)/float32(draw.Maxf(float32(v.Mean), 1))*1.5*sc, 0.6*sc, 4*sc)
		}
		if !v.Tokens {
			// A GPU's copies stream for the whole dispatch.
			l.Segment(sx, sy, routerX, routerY, width, draw.WithAlpha(col, 130))
			l.Segment(routerX, routerY, ex, ey, width, draw.WithAlpha(col, 130))
			if frac < 1 {
				f := float32(math.Mod(frac*4, 1))
				px, py := sx+(routerX-sx)*draw.Minf(f*2, 1), sy+(routerY-sy)*draw.Minf(f*2, 1)
				if f > 0.5 {
					px, py = routerX+(ex-routerX)*(f-0.5)*2, routerY+(ey-routerY)*(f-0.5)*2
				}
				l.Circle(px, py, draw.Clamp(fs*0.18, 2*sc, 4*sc), col)
			}
			continue
		}
		start := c.At - 4/math.Max(float64(len(v.Copies)), 1)
		switch {
		case frac >= c.At:
			l.Segment(sx, sy, routerX, routerY, width, draw.WithAlpha(col, 150))
			l.Segment(routerX, routerY, ex, ey, width, draw.WithAlpha(col, 150))
		case frac > start:
			// On its way: from the source to the router, then on.
			f := float32((frac - start) / (c.At - start))
			l.Segment(sx, sy, routerX, routerY, width, draw.WithAlpha(col, 90))
			px, py := sx+(routerX-sx)*draw.Minf(f*2, 1), sy+(routerY-sy)*draw.Minf(f*2, 1)
			if f > 0.5 {
				g := (f - 0.5) * 2
				l.Segment(routerX, routerY, routerX+(ex-routerX)*g, routerY+(ey-routerY)*g, width, draw.WithAlpha(col, 90))
				px, py = routerX+(ex-routerX)*g, routerY+(ey-routerY)*g
			}
			l.Circle(px, py, draw.Clamp(fs*0.22, 2*sc, 5*sc), col)
		}
	}
	// The router.
	l.Circle(routerX, routerY, rr, th.Text)
	l.Circle(routerX, routerY, rr-1.5*sc, th.Panel)
	rl := said.Router
	rw := draw.TextWidth(rl, fs)
	l.Rect(routerX-rw/2-fs*0.15, routerY+rr+fs*0.15, rw+fs*0.3, fs*draw.LineHeight, th.Background)
	l.Label(routerX, routerY+rr+fs*0.2, fs, draw.AlignCenter, th.Text, rl)
	return l
}

// PlacementView is a mixture of experts' experts on the GPUs of nodes and
// one GPU's dispatch to them.
type PlacementView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Title         string
	GPUs          int // the EP group
	GPUsPerNode   int
	// PerGPU is each GPU's experts' loads relative to the mean (1: the
	// mean), Experts ÷ GPUs of them a GPU, GPU after GPU.
	Load []float64
	// Bytes is what the source GPU 0 sends each GPU in one dispatch.
	Bytes []float64
	// Shared: the model has shared experts, which every GPU holds and
	// every token goes through where it is (nothing dispatched): one more
	// cell a GPU, in the colour of what every token uses; KeyShared says
	// so in the legend.
	Shared    bool
	KeyShared string
	// The two lanes of the race below: in the node, across nodes.
	Lanes [2]RaceLane
	// RaceTitle heads the race; NodeNames and KeyLoad are its other
	// words, made once.
	RaceTitle string
	NodeNames []string
	KeyLoad   string
	Time      float64 // the playhead, seconds; negative: the end
}

// AppendPlacement draws the nodes and their GPUs, each GPU's experts as
// cells shaded by their load; GPU 0's dispatch as lines to every other
// GPU — to its node's over NVLink, to the others over InfiniBand — with
// packets running while each part is under way; and below, the two parts
// raced on one time axis (AppendRace).
func AppendPlacement(dst draw.List, v PlacementView, scratch *draw.List) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n, k := v.GPUs, max(v.GPUsPerNode, 1)
	if st.W <= 0 || st.H <= 0 || n < 1 || len(v.Bytes) != n || len(v.Load)%n != 0 {
		return l
	}
	per := len(v.Load) / n
	fs := draw.Clamp(draw.Minf(st.W, st.H)/32, 14*sc, 20*sc)
	pad := fs
	x0, x1 := st.X+pad, st.X+st.W-pad
	y := st.Y + pad*0.5
	l.Label(x0, y, fs, draw.AlignLeft, th.Text, draw.Fit(v.Title, fs, x1-x0))
	y += fs * 1.7
	raceH := draw.Clamp(st.H*0.5, fs*15.5, fs*16) // two lanes, each with its finish labelled
	keys := [2]draw.LegendEntry{{Color: th.LinkActive, Label: v.KeyLoad}, {Color: th.Rim, Label: v.KeyShared}}
	nk := 1
	if v.Shared {
		nk = 2
	}
	legendY := st.Y + st.H - raceH - draw.LegendHeight(x1-x0, fs, keys[:nk]...) - fs*draw.LineHeight*0.15
	draw.Legend(&l, th, x0, legendY, x1-x0, fs, sc, keys[:nk]...)
	bottom := legendY - fs*0.5
	if bottom-y < fs*4 {
		return l
	}

	// Nodes in a grid as wide as it can be.
	nodes := (n + k - 1) / k
	inNode := min(n, k)
	ncols := nodes
	for ncols > 1 && (x1-x0)/float32(ncols) < fs*8 {
		ncols = (ncols + 1) / 2
	}
	nrows := (nodes + ncols - 1) / ncols
	nw := (x1 - x0) / float32(ncols)
	nh := (bottom - y) / float32(nrows)
	gcols := min(inNode, 4)
	if nw > nh*3 {
		gcols = inNode
	}
	grows := (inNode + gcols - 1) / gcols
	gpuBox := func(g int) (x, y0, w, h float32) {
		node, slot := g/k, g%k
		nx, ny := x0+nw*float32(node%ncols), y+nh*float32(node/ncols)
		ix, iy := nx+fs*0.4, ny+fs*1.5
		iw, ih := nw-fs*1.2, nh-fs*2
		w, h = iw/float32(gcols), ih/float32(grows)
		return ix + w*float32(slot%gcols), iy + h*float32(slot/gcols), w * 0.88, h * 0.84
	}
	for node := range nodes {
		nx, ny := x0+nw*float32(node%ncols), y+nh*float32(node/ncols)
		l.Frame(nx, ny, nw-fs*0.4, nh-fs*0.3, 1*sc, th.Link)
		if node < len(v.NodeNames) {
			l.Label(nx+fs*0.3, ny+fs*0.2, fs, draw.AlignLeft, th.Dim, draw.Fit(v.NodeNames[node], fs, nw-fs))
		}
	}
	cells := per
	if v.Shared {
		cells++ // the shared experts' cell, last
	}
	cellsFor := func(w, h float32) (cols, rows int) {
		cols = int(math.Ceil(math.Sqrt(float64(cells) * float64(w/draw.Maxf(h, 1)))))
		cols = max(1, min(cols, cells))
		return cols, (cells + cols - 1) / cols
	}
	for g := range n {
		x, gy, w, h := gpuBox(g)
		l.Rect(x, gy, w, h, th.GPU)
		c, r := cellsFor(w, h)
		cwid, chei := w/float32(c), h/float32(r)
		for i := range per {
			a := math.Min(v.Load[g*per+i]/2, 1) // the mean at half strength, twice it full
			cx, cy := x+cwid*float32(i%c), gy+chei*float32(i/c)
			l.Rect(cx+cwid*0.12, cy+chei*0.12, cwid*0.76, chei*0.76, draw.WithAlpha(th.LinkActive, uint8(40+215*a)))
		}
		if v.Shared {
			cx, cy := x+cwid*float32(per%c), gy+chei*float32(per/c)
			l.Rect(cx+cwid*0.12, cy+chei*0.12, cwid*0.76, chei*0.76, th.Rim)
		}
		frame := th.Link
		if g == 0 {
			frame = th.Text
		}
		l.Frame(x, gy, w, h, 1*sc, frame)
	}

	// GPU 0's dispatch: a line to every GPU it sends to, packets on it
	// while its part runs.
	t := v.Time
	sx, sy, sw, sh := gpuBox(0)
	cx, cy := sx+sw/2, sy+sh/2
	for g := 1; g < n; g++ {
		if v.Bytes[g] <= 0 {
			continue
		}
		lane := v.Lanes[1]
		col := draw.Palette[1]
		if g/k == 0 {
			lane, col = v.Lanes[0], draw.Palette[0]
		}
		x, gy, w, h := gpuBox(g)
		tx, ty := x+w/2, gy+h/2
		done := t < 0 || t >= lane.Seconds
		l.Segment(cx, cy, tx, ty, 1*sc, draw.WithAlpha(col, 110))
		if !done && t > lane.Latency && lane.Seconds > 0 {
			f := float32(math.Mod(t/lane.Seconds*6, 1))
			l.Circle(cx+(tx-cx)*f, cy+(ty-cy)*f, draw.Clamp(fs*0.2, 2*sc, 4*sc), col)
		}
	}

	// The race of the two parts, below.
	if scratch != nil && v.Lanes[0].Seconds+v.Lanes[1].Seconds > 0 {
		var lanes []RaceLane
		for _, ln := range v.Lanes {
			if ln.Seconds > 0 {
				lanes = append(lanes, ln)
			}
		}
		rs := draw.Rect{X: st.X, Y: st.Y + st.H - raceH, W: st.W, H: raceH}
		*scratch = AppendRace(*scratch, RaceView{Width: v.Width, Height: v.Height, Stage: rs, Scale: v.Scale, Theme: th, Words: v.Words, Title: v.RaceTitle, Lanes: lanes, Time: v.Time})
		l.Items = append(l.Items, scratch.Items...)
		l.Keys = append(l.Keys, scratch.Keys...)
	}
	return l
}

// countLabel is n grouped by thousands, formatted once a value.
func countLabel(n int) string {
	return countLabels.Get(n, func() string { return units.Count(int64(n)) })
}

var countLabels draw.Memo[int]
