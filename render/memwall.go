package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// MemwallKernel is one kernel of the memory-wall lesson.
type MemwallKernel struct {
	Name        string // in the reader's language: "naive", "16×16 tiles" …
	Tile        int    // the tile edge staged on the desk (0: none, naive)
	Bytes       float64
	FLOPs       float64
	TFLOPS      float64
	Utilization float64 // of the peak
	Bound       string  // "memory" (HBM), "shared-memory", "compute"
	Seconds     float64 // the whole product's time
	Current     bool
	Shown       bool // in the summary: the steps add the kernels one by one
}

// MemwallView is what the memory-wall picture needs.
type MemwallView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Kernels       []MemwallKernel
	PeakTFLOPS    float64
	HBMName       string // "80 GB · 3.35 TB/s"
	// Progress is how far the step's kernel has got, 0 … 1, in its own
	// time (the clock under the picture: Progress × its Seconds); Steps
	// the k-steps it animates (a tile's trip, then its reuse, each).
	Progress float64
	Steps    int
}

// Memory-wall colours: A's and B's operands (and tiles), and the SM
// at work.
func memwallColours(th draw.Theme) (a, b, busy draw.Color) {
	return draw.Palette[3], draw.Palette[1], th.Rim
}

// AppendMemwall draws the warehouse and the desk: HBM far to the left,
// shared memory beside the SM on the right, the road between them. A
// naive kernel sends a cart down the road for every multiply-add while
// the SM waits; a tiled one carries a tile to the desk once and works it
// Tile times. Under them, the kernel's clock with the bytes moved so far,
// and the SM's busy meter; then every kernel shown so far on two scales:
// TFLOP/s linear, 0 to the peak, with its time, and HBM bytes on a log
// scale, said so.
func AppendMemwall(dst draw.List, v MemwallView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Kernels) == 0 {
		return l
	}
	var cur MemwallKernel
	for _, k := range v.Kernels {
		if k.Current {
			cur = k
		}
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	cA, cB, busyC := memwallColours(th)
	var head string
	switch {
	case cur.Tile == 0:
		head = w.Say("canvas.memwall.head_naive", "util", units.Percent(cur.Utilization))
	case cur.Bound == "compute":
		head = w.Say("canvas.memwall.head_compute", "tile", memwallTile(cur.Tile), "util", units.Percent(cur.Utilization))
	default:
		head = w.Say("canvas.memwall.head_tiled", "tile", memwallTile(cur.Tile), "n", units.Count(int64(cur.Tile)))
	}
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc,
		draw.LegendEntry{Color: cA, Hatch: false, Label: w.Say("canvas.memwall.a")}, draw.LegendEntry{Color: cB, Hatch: false, Label: w.Say("canvas.memwall.b")},
		draw.LegendEntry{Color: busyC, Hatch: false, Label: w.Say("canvas.memwall.busy_key")}, draw.LegendEntry{Color: th.LinkActive, Hatch: false, Label: w.Say("canvas.memwall.current")})
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}
	wide := area.W > area.H*1.7
	var scene, sum draw.Rect
	if wide {
		scene = draw.Rect{X: area.X, Y: area.Y, W: area.W * 0.5, H: area.H}
		sum = draw.Rect{X: area.X + area.W*0.5 + 2*pad, Y: area.Y, W: area.W*0.5 - 2*pad, H: area.H}
	} else {
		// The summary as tall as all four rows need (the same every step),
		// the warehouse and the desk the rest.
		sh := draw.Clamp(memwallSummaryH(len(v.Kernels), fs), area.H*0.3, area.H*0.5)
		scene = draw.Rect{X: area.X, Y: area.Y, W: area.W, H: area.H - sh - fs*0.6}
		sum = draw.Rect{X: area.X, Y: area.Y + area.H - sh, W: area.W, H: sh}
	}
	memwallScene(&p, v, cur, sc, fs, scene)
	memwallSummary(&p, v, sc, fs, sum)
	return l
}

func memwallTile(t int) string { return units.Count(int64(t)) + "×" + units.Count(int64(t)) }

// memwallScene draws the warehouse, the road, the desk and the SM in r,
// and under them the counters.
func memwallScene(p *draw.Placer, v MemwallView, cur MemwallKernel, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	cA, cB, busyC := memwallColours(th)
	narrow := r.W < fs*30
	counters := fs * draw.LineHeight * 3.4 // the clock, the bytes, a multiply-add's
	if narrow {
		counters = fs * draw.LineHeight * 4.4
	}
	lab := fs * draw.LineHeight * 1.1
	top := r.Y + lab
	h := r.H - counters - lab
	if h < fs*3 {
		return
	}
	// The warehouse, far left: a building of shelves.
	ww := draw.Clamp(r.W*0.2, fs*4, fs*10)
	wx := r.X
	roof := draw.Minf(h*0.18, ww*0.3)
	by := top + roof
	bh := h - roof - fs*draw.LineHeight*1.15 // and a line for its size under it
	p.L.Rect(wx, by, ww, bh, th.Panel)
	p.L.Segment(wx-2*sc, by, wx+ww/2, top, 2*sc, th.Dim)
	p.L.Segment(wx+ww/2, top, wx+ww+2*sc, by, 2*sc, th.Dim)
	p.L.Frame(wx, by, ww, bh, 1.5*sc, th.Dim)
	shelves := 5
	sh := bh / float32(shelves)
	for i := 0; i < shelves; i++ {
		sy := by + float32(i)*sh
		p.L.Segment(wx, sy+sh, wx+ww, sy+sh, 1*sc, th.Link)
		bw := (ww - fs) / 2
		p.L.Rect(wx+fs*0.3, sy+sh*0.25, bw, sh*0.6, draw.WithAlpha(cA, 170))
		p.L.Rect(wx+fs*0.7+bw, sy+sh*0.25, bw, sh*0.6, draw.WithAlpha(cB, 170))
	}
	p.Fit(wx, r.Y, fs, draw.AlignLeft, th.Text, w.Say("canvas.memwall.hbm"), r.W*0.45)
	if v.HBMName != "" {
		p.Fit(wx, by+bh+fs*0.15, fs, draw.AlignLeft, th.Dim, v.HBMName, r.W*0.45)
	}

	// The SM on the far right, its desk beside it.
	smW := draw.Clamp(r.W*0.2, fs*4, fs*9)
	smX := r.X + r.W - smW
	smY := top + h*0.06
	smH := h*0.94 - fs*draw.LineHeight*2.2 // room under it for the desk's name
	deskW := draw.Clamp(r.W*0.14, fs*3, fs*7)
	deskX := smX - deskW - fs*0.6
	deskY := smY + smH*0.3
	deskH := smH * 0.4
	// The SM: its cores, lit in the share of the peak it reaches.
	p.L.Rect(smX, smY, smW, smH, th.GPU)
	cols, rows := 4, 6
	cw, ch := (smW-fs*0.8)/float32(cols), (smH-fs*0.8)/float32(rows)
	lit := int(math.Round(cur.Utilization * float64(cols*rows)))
	k := draw.Frac(v.Progress) * float64(max(v.Steps, 1))
	// Through the current k-step; offset so that a step's first frame
	// already shows a tile on the desk at work.
	phase := math.Mod(k+0.75, 1)
	for i := 0; i < cols*rows; i++ {
		c := th.Empty
		if i < lit {
			c = busyC
		}
		p.L.Rect(smX+fs*0.4+float32(i%cols)*cw+1*sc, smY+fs*0.4+float32(i/cols)*ch+1*sc, cw-2*sc, ch-2*sc, c)
	}
	p.L.Frame(smX, smY, smW, smH, 1.5*sc, th.Rim)
	p.L.Key(th.Rim, w.Say("canvas.memwall.sm"))
	p.Fit(smX+smW, r.Y, fs, draw.AlignRight, th.Text, w.Say("canvas.memwall.sm"), smW+deskW)
	// The desk: shared memory.
	p.L.Rect(deskX, deskY, deskW, deskH, th.Panel)
	p.L.Frame(deskX, deskY, deskW, deskH, 1.5*sc, th.Dim)
	p.Wrap(deskX, smY+smH+fs*0.2, fs, draw.AlignLeft, th.Dim, w.Say("canvas.memwall.desk"), deskW+smW+fs*0.6, 2)

	// The road from the warehouse to the desk.
	roadY := deskY + deskH/2
	rx0, rx1 := wx+ww, deskX
	p.L.Segment(rx0, roadY, rx1, roadY, 3*sc, th.Link)
	if rx1-rx0 > fs*4 {
		p.Fit((rx0+rx1)/2, roadY-fs*draw.LineHeight*1.6, fs, draw.AlignCenter, th.Dim, w.Say("canvas.memwall.road"), rx1-rx0)
	}
	cart := draw.Clamp(fs*0.7, 4*sc, fs)
	if cur.Tile == 0 {
		// Naive: a stream of carts, two operands each, straight past the
		// empty desk into the SM.
		n := 9
		for i := 0; i < n; i++ {
			f := float32(math.Mod(phase+float64(i)/float64(n), 1))
			x := rx0 + (smX-rx0)*f
			p.L.Rect(x, roadY-cart, cart*0.9, cart*0.9, cA)
			p.L.Rect(x, roadY+cart*0.1, cart*0.9, cart*0.9, cB)
		}
		p.L.Segment(rx1, roadY, smX, roadY, 3*sc, th.Link)
		p.Wrap(rx0+fs*0.4, roadY+cart*1.5, fs, draw.AlignLeft, th.Hot, w.Say("canvas.memwall.every"), rx1-rx0-fs*0.8, 2)
	} else {
		// Tiled: a tile rides to the desk in the first 40% of a k-step,
		// then the SM uses it Tile times from the desk.
		ts := draw.Clamp(deskH*0.36*float32(math.Log2(float64(cur.Tile)))/7, cart, deskH*0.45)
		memTile := func(x, y float32, c draw.Color) {
			p.L.Rect(x, y, ts, ts, c)
			if ts >= 10*sc {
				for j := 1; j < 4; j++ {
					p.L.Segment(x+ts*float32(j)/4, y, x+ts*float32(j)/4, y+ts, 1*sc, th.Background)
					p.L.Segment(x, y+ts*float32(j)/4, x+ts, y+ts*float32(j)/4, 1*sc, th.Background)
				}
			}
		}
		tx := deskX + deskW/2 - ts - 1*sc
		if phase < 0.4 {
			f := float32(phase / 0.4)
			x := rx0 + (tx-rx0)*f
			memTile(x, roadY-ts-1*sc, cA)
			memTile(x, roadY+1*sc, cB)
		} else {
			memTile(tx, deskY+deskH/2-ts-1*sc, cA)
			memTile(tx, deskY+deskH/2+1*sc, cB)
			// The reuses: one pulse per use, desk to SM.
			uses := int(math.Floor((phase - 0.4) / 0.6 * float64(cur.Tile)))
			uses = min(uses+1, cur.Tile)
			f := float32(math.Mod((phase-0.4)/0.6*float64(cur.Tile), 1))
			x := deskX + deskW + (smX-deskX-deskW)*f
			p.L.Circle(x, deskY+deskH/2, cart*0.4, busyC)
			p.Fit(deskX+deskW/2, deskY-fs*draw.LineHeight*1.1, fs, draw.AlignCenter, busyC,
				w.Say("canvas.memwall.uses", "i", units.Count(int64(uses)), "n", units.Count(int64(cur.Tile))), deskW+smW)
		}
	}
	// The counters: the kernel's clock; bytes from HBM so far, and the
	// SM's busy meter.
	cy := r.Y + r.H - counters + fs*0.3
	moved := cur.Bytes * draw.Frac(v.Progress)
	per := 0.0
	if cur.FLOPs > 0 {
		per = cur.Bytes / (cur.FLOPs / 2)
	}
	// One clock a kernel: its own time, not one shared by all four (82.1
	// ms naive, 175 µs on tensor cores).
	p.Fit(r.X, cy, fs, draw.AlignLeft, th.Text, w.Say("canvas.memwall.clock", "t", units.LocalDuration(w.Lang, cur.Seconds*draw.Frac(v.Progress)),
		"time", units.LocalDuration(w.Lang, cur.Seconds)), r.W) // a line of its own
	cy += fs * draw.LineHeight
	bytesText := w.Say("canvas.memwall.moved", "bytes", units.Bytes(moved), "total", units.Bytes(cur.Bytes))
	if narrow {
		p.Wrap(r.X, cy, fs, draw.AlignLeft, th.Text, bytesText, r.W*0.55, 2)
	} else {
		p.Fit(r.X, cy, fs, draw.AlignLeft, th.Text, bytesText, r.W*0.55)
	}
	if narrow {
		p.Fit(r.X, cy+2*fs*draw.LineHeight+fs*0.2, fs, draw.AlignLeft, th.Dim, w.Say("canvas.memwall.per", "bytes", units.Bytes(per)), r.W)
	} else {
		p.Fit(r.X, cy+fs*draw.LineHeight, fs, draw.AlignLeft, th.Dim, w.Say("canvas.memwall.per", "bytes", units.Bytes(per)), r.W*0.55)
	}
	mx := r.X + r.W*0.58
	mw := r.W - (mx - r.X)
	p.Fit(mx, cy, fs, draw.AlignLeft, th.Text, w.Say("canvas.memwall.busy", "util", units.Percent(cur.Utilization)), mw)
	my := cy + fs*draw.LineHeight + fs*0.1
	p.L.Rect(mx, my, mw, fs*0.8, th.Empty)
	p.L.Rect(mx, my, draw.Maxf(mw*float32(draw.Frac(cur.Utilization)), 1*sc), fs*0.8, busyC)
	p.L.Frame(mx, my, mw, fs*0.8, 1*sc, th.Link)
}

// memwallRowH is a summary row at its tallest; memwallSummaryH the
// summary of n rows.
func memwallRowH(fs float32) float32 { return fs * draw.LineHeight * 2.3 }

func memwallSummaryH(n int, fs float32) float32 {
	return fs*draw.LineHeight*2.2 + float32(n)*memwallRowH(fs)
}

// memwallSummary draws the kernels shown so far, a row each: its name and
// time, TFLOP/s on a linear axis from 0 to the peak (the naive kernel's
// sliver is its true size) and HBM bytes on a log axis, labelled as
// such; what limits each.
func memwallSummary(p *draw.Placer, v MemwallView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	n := 0
	for _, k := range v.Kernels {
		if k.Shown {
			n++
		}
	}
	if n == 0 || r.H < fs*draw.LineHeight*3 || r.W < fs*10 {
		return
	}
	head := fs * draw.LineHeight * 2.2 // two lines: "log scale" must show
	nameW := float32(0)
	for _, k := range v.Kernels {
		nameW = draw.Maxf(nameW, draw.TextWidth(k.Name, fs)+fs*0.6)
		if k.Seconds > 0 { // the time under the name
			nameW = draw.Maxf(nameW, draw.TextWidth(units.LocalDuration(w.Lang, k.Seconds), fs)+fs*0.6)
		}
	}
	nameW = draw.Minf(nameW, r.W*0.36)
	colW := (r.W - nameW - fs) / 2
	tx, bx := r.X+nameW, r.X+nameW+colW+fs
	p.Wrap(tx, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.memwall.tflops_axis", "peak", units.Number(v.PeakTFLOPS)), colW, 2)
	p.Wrap(bx, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.memwall.bytes_axis"), colW, 2)
	rowH := draw.Minf((r.H-head)/float32(len(v.Kernels)), memwallRowH(fs))
	barH := draw.Clamp(rowH-fs*draw.LineHeight*1.15, 3*sc, fs*0.9)
	// The bytes' log axis: whole decades around the kernels' values.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range v.Kernels {
		if k.Bytes > 0 {
			lo, hi = math.Min(lo, math.Log10(k.Bytes)), math.Max(hi, math.Log10(k.Bytes))
		}
	}
	lo, hi = math.Floor(lo)-1, math.Ceil(hi)
	logAt := func(b float64) float32 {
		return colW * float32(draw.Frac((math.Log10(b)-lo)/(hi-lo)))
	}
	i := 0
	for _, k := range v.Kernels {
		if !k.Shown {
			continue
		}
		y := r.Y + head + float32(i)*rowH
		i++
		col, tc := th.Link, th.Dim
		if k.Current {
			col, tc = th.LinkActive, th.Text
		}
		p.Fit(r.X, y, fs, draw.AlignLeft, tc, k.Name, nameW-fs*0.3)
		by := y + fs*draw.LineHeight
		// Under its name, the kernel's time: each on its own clock.
		if k.Seconds > 0 {
			p.Fit(r.X, by, fs, draw.AlignLeft, th.Dim, units.LocalDuration(w.Lang, k.Seconds), nameW-fs*0.3)
		}
		// TFLOP/s, linear: the peak is the column's end.
		f := float32(0)
		if v.PeakTFLOPS > 0 {
			f = float32(draw.Frac(k.TFLOPS / v.PeakTFLOPS))
		}
		p.L.Rect(tx, by, colW, barH, th.Panel)
		p.L.Rect(tx, by, draw.Maxf(colW*f, 1.5*sc), barH, col)
		val := w.Say("canvas.memwall.tflops", "v", units.Number(k.TFLOPS), "bound", w.Say("canvas.memwall.bound."+k.Bound))
		if draw.TextWidth(val, fs) > colW {
			val = units.Number(k.TFLOPS) // a narrow column: the number alone
		}
		p.Fit(tx, y, fs, draw.AlignLeft, tc, val, colW)
		// HBM bytes, log.
		if k.Bytes > 0 {
			bw := logAt(k.Bytes)
			p.L.Rect(bx, by, colW, barH, th.Panel)
			p.L.Rect(bx, by, bw, barH, col)
			p.Fit(bx, y, fs, draw.AlignLeft, tc, units.Bytes(k.Bytes), colW)
		}
	}
	// The peak's line at the TFLOP/s column's end; the bytes' decades.
	yb := r.Y + head + float32(n)*rowH
	p.L.Segment(tx+colW, r.Y+head, tx+colW, yb, 1.5*sc, th.Hot)
	p.L.Key(th.Hot, w.Say("canvas.memwall.tflops_axis", "peak", units.Number(v.PeakTFLOPS)))
	for e := lo; e <= hi; e++ {
		x := bx + logAt(math.Pow(10, e))
		p.L.Segment(x, r.Y+head, x, yb, 1*sc, draw.WithAlpha(th.Dim, 90))
	}
}
