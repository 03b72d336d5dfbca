package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// KernelBlock is one launched kernel: what it runs, its HBM bytes and its
// time, and what it reads and writes per element.
type KernelBlock struct {
	Ops         []string
	Bytes       float64
	TimeS       float64
	Read, Write float64 // bytes per element: its input in, its output (and side tensors) out
}

// FusedFocus is what a fused-kernels step says.
type FusedFocus uint8

// The fused-kernels steps.
const (
	FusedThree FusedFocus = iota // three kernels, three round trips
	FusedOne                     // one fused kernel, one round trip
	FusedBound                   // both still far below the ridge
	FusedAll                     // free play: everything
)

// FusedView is what the fused-kernels picture needs: the chain unfused
// and fused.
type FusedView struct {
	Width, Height  float32
	Stage          draw.Rect
	Scale          float32
	Theme          draw.Theme
	Words          draw.Words // its words in the reader's language (canvas.* keys)
	Focus          FusedFocus
	Unfused, Fused []KernelBlock
	// Intensity of each way (FLOP per HBM byte) and the GPU's ridge, for
	// the step that compares them.
	UnfusedIntensity, FusedIntensity, Ridge float64
	// Time is the playhead, seconds: what lies after it is drawn faint.
	// A negative Time draws everything as done.
	Time float64
}

// fusedColours are the operations' colours and the fused kernel's.
func fusedColours(th draw.Theme) (ops [3]draw.Color, fused draw.Color) {
	return [3]draw.Color{draw.Palette[0], draw.Palette[3], draw.Palette[1]}, th.Rim
}

// AppendFused draws both ways of running the chain side by side: HBM (the
// warehouse) along the top, the SM's registers (the desk) along the
// bottom, and each kernel's round trip between them — its read coming
// down, its write going up, bytes per element on each, packets moving
// while it runs. Under them, both runs on one time axis, and in the step
// that says so, both intensities against the ridge on a log axis.
func AppendFused(dst draw.List, v FusedView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Unfused) == 0 || len(v.Fused) == 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	opC, fusedC := fusedColours(th)
	total := func(ks []KernelBlock) (t, b, per float64) {
		for _, k := range ks {
			t += k.TimeS
			b += k.Bytes
			per += k.Read + k.Write
		}
		return
	}
	tu, bu, pu := total(v.Unfused)
	tf, bf, pf := total(v.Fused)
	tmax := math.Max(tu, tf)
	if tmax <= 0 {
		return l
	}
	t := v.Time
	if t < 0 || t > tmax {
		t = tmax
	}
	var head string
	switch v.Focus {
	case FusedThree:
		head = w.Say("canvas.fused.head_three", "trips", units.Count(int64(2*len(v.Unfused))), "per", units.Number(pu))
	case FusedOne:
		head = w.Say("canvas.fused.head_one", "per", units.Number(pf), "ratio", units.Ratio(w.Lang, tu/tf))
	default:
		head = w.Say("canvas.fused.head_bound", "i", units.Number(v.FusedIntensity), "ridge", units.Number(v.Ridge),
			"ratio", units.Ratio(w.Lang, v.Ridge/v.FusedIntensity), "n", units.Number(v.Ridge/v.FusedIntensity))
	}
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)
	var legend [6]draw.LegendEntry
	ne := 0
	for i, k := range v.Unfused {
		if i < 3 && len(k.Ops) > 0 {
			legend[ne] = draw.LegendEntry{Color: opC[i], Hatch: false, Label: k.Ops[0]}
			ne++
		}
	}
	legend[ne] = draw.LegendEntry{Color: fusedC, Hatch: false, Label: w.Say("canvas.fused.one_kernel")}
	ne++
	if v.Focus == FusedBound || v.Focus == FusedAll {
		legend[ne] = draw.LegendEntry{Color: th.Hot, Hatch: false, Label: w.Say("canvas.fused.memory_bound")}
		ne++
	}
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend[:ne]...)
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}

	// Bottom up (or, on a wide stage, down the right half): the
	// intensity strip when asked, the time lanes; the trips take the rest.
	side := area
	trips := area
	if area.W > area.H*1.6 {
		trips.W = area.W * 0.55
		side = draw.Rect{X: area.X + trips.W + 2*pad, Y: area.Y, W: area.W - trips.W - 2*pad, H: area.H}
	}
	bottom := side.Y + side.H
	ih := fs * draw.LineHeight * 4.6
	lanesH := fs * draw.LineHeight * 6.2
	tripsMin := fs*draw.LineHeight*8.9 + fs*2
	if v.Focus == FusedBound || v.Focus == FusedAll && (side != area || side.H-ih-lanesH-fs > tripsMin) {
		if side.H-ih > fs*12 || side != area && side.H >= ih {
			fusedIntensity(&p, v, sc, fs, draw.Rect{X: side.X, Y: bottom - ih, W: side.W, H: ih})
			bottom -= ih + fs*0.5
		}
	}
	if bottom-side.Y-lanesH > fs*8 || side != area && bottom-side.Y >= lanesH {
		fusedLanes(&p, v, sc, fs, draw.Rect{X: side.X, Y: bottom - lanesH, W: side.W, H: lanesH}, tmax, t)
		bottom -= lanesH + fs*0.5
	}
	if side == area {
		trips.H = bottom - area.Y
	}
	cw := (trips.W - 2*pad) / 2
	unfusedW := cw * 1.1
	fusedW := trips.W - 2*pad - unfusedW
	fusedTrips(&p, v, sc, fs, draw.Rect{X: trips.X, Y: trips.Y, W: unfusedW, H: trips.H}, v.Unfused, w.Say("canvas.fused.three"), bu, t, false, v.Focus == FusedOne)
	fusedTrips(&p, v, sc, fs, draw.Rect{X: trips.X + unfusedW + 2*pad, Y: trips.Y, W: fusedW, H: trips.H}, v.Fused, w.Say("canvas.fused.one"), bf, t, true, v.Focus == FusedThree)
	return l
}

// fusedTrips draws one way of running the chain in r: its name, HBM on
// top, the SM's registers (the desk) at the bottom with the kernels at
// work on it, each kernel's read coming down from HBM and its write going
// back up, and its traffic so far under it. Fused, the three operations
// sit side by side on the desk and hand the values on there: one read,
// one write. Faint: the step is not about this side.
func fusedTrips(p *draw.Placer, v FusedView, sc, fs float32, r draw.Rect, ks []KernelBlock, name string, bytes, t float64, fused, faint bool) {
	th, w := v.Theme, v.Words
	opC, fusedC := fusedColours(th)
	band := fs * draw.LineHeight * 1.5
	desk := fs * draw.LineHeight * 4
	meter := fs * draw.LineHeight * 2.2
	top := r.Y + fs*draw.LineHeight*1.2
	gap := r.H - (top - r.Y) - band - desk - meter
	if gap < fs*2 || r.W < fs*6 {
		return
	}
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Text, name, r.W)
	hbmY := top
	deskY := top + band + gap
	alpha := uint8(255)
	if faint {
		alpha = 110
	}
	p.L.Rect(r.X, hbmY, r.W, band, th.Panel)
	p.L.Frame(r.X, hbmY, r.W, band, 1*sc, th.Dim)
	p.Fit(r.X+fs*0.4, hbmY+(band-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Dim, w.Say("canvas.fused.hbm"), r.W-fs*0.8)
	p.L.Rect(r.X, deskY, r.W, desk, th.GPU)
	p.L.Frame(r.X, deskY, r.W, desk, 1*sc, th.Rim)
	p.Fit(r.X+fs*0.4, deskY+desk-fs*draw.LineHeight*1.15, fs, draw.AlignLeft, th.Dim, w.Say("canvas.fused.regs"), r.W-fs*0.8)
	p.L.Key(th.Rim, w.Say("canvas.fused.regs"))
	// The operations' boxes on the desk, in order; a kernel spans its
	// operations' boxes.
	var ops []string
	for _, k := range ks {
		ops = append(ops, k.Ops...)
	}
	slot := r.W / float32(max(len(ops), 1))
	bh := fs * draw.LineHeight * 1.8
	by := deskY + fs*0.4
	moved, start := 0.0, 0.0
	op := 0
	for i, k := range ks {
		done := draw.Frac((t - start) / k.TimeS)
		moved += done * k.Bytes
		running := done > 0 && done < 1
		first, last := op, op+len(k.Ops)-1
		for j := first; j <= last; j++ {
			c := opC[j%3]
			if fused {
				c = fusedC
			}
			kc := draw.WithAlpha(c, min(alpha, 60))
			if done > 0 {
				kc = draw.WithAlpha(c, alpha)
			}
			bx := r.X + float32(j)*slot + slot*0.15
			bw := slot * 0.7
			p.L.Rect(bx, by, bw, bh, kc)
			tc := th.Background
			if done == 0 || faint {
				tc = th.Text
			}
			if draw.TextWidth(ops[j], fs) <= bw-fs*0.3 { // else its colour says it (the legend)
				p.Text(bx+bw/2, by+(bh-fs*draw.LineHeight)/2, fs, draw.AlignCenter, tc, ops[j])
			}
			if j < last { // handed on, on the desk
				draw.Arrow(p.L, bx+bw+1*sc, by+bh/2, bx+slot-1*sc, by+bh/2, 2*sc, fs*0.4, draw.WithAlpha(c, alpha))
			}
		}
		c := fusedC
		if !fused {
			c = opC[i%3]
		}
		ac := draw.WithAlpha(c, min(alpha, 70))
		if done > 0 {
			ac = draw.WithAlpha(c, alpha)
		}
		// The read into the first box, the write out of the last.
		rx := r.X + float32(first)*slot + slot*0.07
		wx := r.X + float32(last)*slot + slot*0.93
		wd := 2.5 * sc
		draw.Arrow(p.L, rx, hbmY+band, rx, by+bh/2, wd, fs*0.5, ac)
		p.L.Segment(rx, by+bh/2, rx+slot*0.08, by+bh/2, wd, ac)
		p.L.Segment(wx-slot*0.08, by+bh/2, wx, by+bh/2, wd, ac)
		draw.Arrow(p.L, wx, by+bh/2, wx, hbmY+band, wd, fs*0.5, ac)
		if running && !faint {
			for q := 0; q < 3; q++ {
				f := float32(math.Mod(done*6+float64(q)/3, 1))
				p.L.Circle(rx, hbmY+band+(by+bh/2-hbmY-band)*f, fs*0.22, th.Text)
				p.L.Circle(wx, by+bh/2-(by+bh/2-hbmY-band)*f, fs*0.22, th.Text)
			}
		}
		lc := draw.WithAlpha(th.Text, alpha)
		labW := float32(last-first+1) * slot * 0.8
		p.Fit(rx+fs*0.3, hbmY+band+gap*0.25, fs, draw.AlignLeft, lc, w.Say("canvas.fused.read", "b", units.Number(k.Read)), labW)
		p.Fit(wx-fs*0.3, hbmY+band+gap*0.6, fs, draw.AlignRight, lc, w.Say("canvas.fused.write", "b", units.Number(k.Write)), labW)
		op = last + 1
		start += k.TimeS
	}
	// The traffic so far.
	my := deskY + desk + fs*0.3
	p.Fit(r.X, my, fs, draw.AlignLeft, th.Text, w.Say("canvas.fused.moved", "bytes", units.Bytes(moved), "total", units.Bytes(bytes)), r.W)
	p.Fit(r.X, my+fs*draw.LineHeight, fs, draw.AlignLeft, th.Dim, w.Say("canvas.fused.trips", "n", units.Count(int64(2*len(ks)))), r.W)
}

// fusedLanes draws both runs on one time axis 0 … tmax in r: a block per
// kernel, as long as its time, the part not yet run faint; the finish of
// each written; the playhead.
func fusedLanes(p *draw.Placer, v FusedView, sc, fs float32, r draw.Rect, tmax, t float64) {
	th, w := v.Theme, v.Words
	opC, fusedC := fusedColours(th)
	at := func(s float64) float32 { return r.X + r.W*float32(draw.Frac(s/tmax)) }
	laneH := fs * draw.LineHeight * 2.1
	for li, ks := range [2][]KernelBlock{v.Unfused, v.Fused} {
		ly := r.Y + float32(li)*laneH
		name := w.Say("canvas.fused.three")
		if li == 1 {
			name = w.Say("canvas.fused.one")
		}
		p.Fit(r.X, ly, fs, draw.AlignLeft, th.Text, name, r.W*0.5)
		by := ly + fs*draw.LineHeight
		bh := fs * 0.9
		p.L.Rect(r.X, by, r.W, bh, th.Panel)
		start := 0.0
		for i, k := range ks {
			c := fusedC
			if li == 0 {
				c = opC[i%3]
			}
			x0, x1 := at(start), at(start+k.TimeS)
			p.L.Rect(x0, by, draw.Maxf(x1-x0-1*sc, 1*sc), bh, draw.WithAlpha(c, 70))
			if xd := at(math.Min(t, start+k.TimeS)); t > start && xd > x0 {
				p.L.Rect(x0, by, draw.Maxf(xd-x0-1*sc, 1*sc), bh, c)
			}
			start += k.TimeS
		}
		if t >= start {
			lab := units.Duration(start)
			x := at(start)
			if !p.Text(x+fs*0.3, ly, fs, draw.AlignLeft, th.Text, lab) {
				p.Text(x-fs*0.3, ly, fs, draw.AlignRight, th.Text, lab)
			}
		}
	}
	ay := r.Y + 2*laneH + fs*0.2
	draw.TimeAxis(p, th, sc, fs, r.X, r.X+r.W, ay, r.Y+fs*draw.LineHeight, tmax, t, at)
}

// fusedIntensity draws both intensities and the ridge on a log axis of
// FLOP per byte, the memory-bound side tinted.
func fusedIntensity(p *draw.Placer, v FusedView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	_, fusedC := fusedColours(th)
	if v.Ridge <= 0 || v.FusedIntensity <= 0 {
		return
	}
	lo, hi := -1.0, math.Ceil(math.Log10(v.Ridge*3))
	at := func(x float64) float32 { return r.X + r.W*float32(draw.Frac((math.Log10(x)-lo)/(hi-lo))) }
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.fused.axis"), r.W)
	ay := r.Y + fs*draw.LineHeight*3
	rx := at(v.Ridge)
	p.L.Rect(r.X, ay-fs*0.9, rx-r.X, fs*1.8, draw.WithAlpha(th.Hot, 45))
	p.L.Segment(r.X, ay, r.X+r.W, ay, 1.5*sc, th.Dim)
	p.L.Segment(rx, ay-fs*1.1, rx, ay+fs*0.6, 2*sc, th.Text)
	if rl := w.Say("canvas.fused.ridge", "v", units.Number(v.Ridge)); !p.Text(rx+fs*0.3, ay-fs*1.9, fs, draw.AlignLeft, th.Text, rl) {
		p.Text(rx-fs*0.3, ay-fs*1.9, fs, draw.AlignRight, th.Text, rl)
	}
	for e := int(lo); e <= int(hi); e++ {
		x := at(math.Pow(10, float64(e)))
		p.L.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		p.Text(x, ay+fs*0.4, fs, draw.AlignCenter, th.Dim, draw.Pow10(e))
	}
	for i, d := range [2]struct {
		x float64
		c draw.Color
	}{{v.UnfusedIntensity, th.Text}, {v.FusedIntensity, fusedC}} {
		if d.x <= 0 {
			continue
		}
		x := at(d.x)
		p.L.Circle(x, ay, fs*0.45, d.c)
		lab := w.Say("canvas.fused.dot_three", "v", units.Number(d.x))
		if i == 1 {
			lab = w.Say("canvas.fused.dot_one", "v", units.Number(d.x))
		}
		if i == 0 {
			p.Text(x-fs*0.5, ay-fs*1.9, fs, draw.AlignRight, d.c, lab)
		} else {
			p.Text(x+fs*0.5, ay-fs*1.9, fs, draw.AlignLeft, d.c, lab)
		}
	}
}
