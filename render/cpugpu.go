package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// CPUGPUPhase is what the cpu-vs-gpu picture shows.
type CPUGPUPhase uint8

// The cpu-vs-gpu pictures, one a step.
const (
	// CPUGPUIndependent: C = A × B, two of its elements computed from
	// one row and two columns, neither needing the other.
	CPUGPUIndependent CPUGPUPhase = iota
	// CPUGPUElement: one element raced by one CPU core and one CUDA core
	// on one time axis.
	CPUGPUElement
	// CPUGPURace: the whole product, both copies of C filling at their
	// workers' pace, a clock on each side and the finishes on one axis.
	CPUGPURace
	// CPUGPUTensor: the finishes of the CPU, the CUDA cores and the
	// tensor cores on one axis, with the GPU's part zoomed.
	CPUGPUTensor
)

// CPUGPUSide is one machine computing C = A × B.
type CPUGPUSide struct {
	Name string
	// Units of LanesPerUnit lanes: 64 cores × 16 FP32 SIMD lanes, 132 SMs
	// × 128 CUDA cores. Units × LanesPerUnit elements are computed at a
	// time.
	Units, LanesPerUnit int
	ClockHz             float64 // a lane's clock: one multiply-add a clock
	ElementS            float64 // one element: N multiply-adds on one lane
	TotalS              float64 // the whole product at the peak
}

// CPUGPUView is what the cpu-vs-gpu picture needs.
type CPUGPUView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Phase         CPUGPUPhase
	N             int // C is N × N
	CPU, GPU      CPUGPUSide
	TensorS       float64 // the whole product on the tensor cores (0: not drawn)
	Time          float64 // the playhead, seconds; negative: the end
}

// Colours of the machines: the CPU (the fast cars), the GPU's CUDA cores
// (the bus fleet), its tensor cores.
func cpugpuColours(th draw.Theme) (cpu, gpu, tensor draw.Color) { return th.Hot, th.Rim, th.LinkActive }

// AppendCPUGPU draws the step's picture (see CPUGPUPhase).
func AppendCPUGPU(dst draw.List, v CPUGPUView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || v.N < 1 || v.CPU.TotalS <= 0 || v.GPU.TotalS <= 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	switch v.Phase {
	case CPUGPUIndependent:
		cpugpuIndependent(&p, v, sc)
	case CPUGPUElement:
		cpugpuElement(&p, v, sc)
	case CPUGPUTensor:
		cpugpuTensor(&p, v, sc)
	default:
		cpugpuRace(&p, v, sc)
	}
	return l
}

// cpugpuIndependent draws A × B = C as the textbook lays it out — B
// above C, A to its left — so that row 0 of A and columns 0 and 1 of B
// meet at C[0][0] and C[0][1]; what each element needs is written in the
// free corner.
func cpugpuIndependent(p *draw.Placer, v CPUGPUView, sc float32) {
	th, st, w := v.Theme, v.Stage, v.Words
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	c0, c1 := th.LinkActive, draw.Palette[3]
	n2 := float64(v.N) * float64(v.N)
	y := draw.PlacerHeadline(p, th, st, big, th.Text, w.Say("canvas.cpugpu.independent", "elements", units.Count(int64(n2))))
	legend := []draw.LegendEntry{{Color: c0, Hatch: false, Label: w.Say("canvas.cpugpu.c00")}, {Color: c1, Hatch: false, Label: w.Say("canvas.cpugpu.c01")}}
	lh := draw.PlacerLegend(p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend...)
	gap := fs * 1.4
	avail := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.5 - y}
	side := draw.Minf((avail.W-gap)/2, (avail.H-gap-2*fs*draw.LineHeight)/2)
	if side < 24*sc {
		return
	}
	k := 8
	cell := side / float32(k)
	x0 := avail.X + (avail.W-2*side-gap)/2
	ax, bx := x0, x0+side+gap
	by := avail.Y + fs*draw.LineHeight
	ay := by + side + gap
	grid := func(x, y float32) {
		p.L.Rect(x, y, side, side, th.Panel)
		for j := 1; j < k; j++ {
			p.L.Segment(x+float32(j)*cell, y, x+float32(j)*cell, y+side, 1*sc, th.Link)
			p.L.Segment(x, y+float32(j)*cell, x+side, y+float32(j)*cell, 1*sc, th.Link)
		}
	}
	grid(ax, ay) // A
	grid(bx, by) // B
	grid(bx, ay) // C
	// Row 0 of A serves both elements; columns 0 and 1 of B one each.
	p.L.Rect(ax, ay, side, cell/2, c0)
	p.L.Rect(ax, ay+cell/2, side, cell/2, c1)
	p.L.Rect(bx, by, cell, side, c0)
	p.L.Rect(bx+cell, by, cell, side, c1)
	p.L.Rect(bx, ay, cell, cell, c0)
	p.L.Rect(bx+cell, ay, cell, cell, c1)
	// Guides: the row runs on into C, the columns down into it.
	p.L.Segment(ax+side, ay+cell/2, bx, ay+cell/2, 1.5*sc, th.Dim)
	p.L.Segment(bx+cell, by+side, bx+cell, ay, 1.5*sc, th.Dim)
	p.L.Frame(ax, ay, side, side, 1.5*sc, th.Dim)
	p.L.Frame(bx, by, side, side, 1.5*sc, th.Dim)
	p.L.Frame(bx, ay, side, side, 2*sc, th.Text)
	n := units.Count(int64(v.N))
	p.Fit(ax+side/2, ay+side+fs*0.2, fs, draw.AlignCenter, th.Text, w.Say("canvas.cpugpu.matrix", "name", "A", "n", n), side+gap)
	p.Fit(bx+side/2, by-fs*draw.LineHeight, fs, draw.AlignCenter, th.Text, w.Say("canvas.cpugpu.matrix", "name", "B", "n", n), side+gap)
	p.Fit(bx+side/2, ay+side+fs*0.2, fs, draw.AlignCenter, th.Text, w.Say("canvas.cpugpu.matrix", "name", "C = A × B", "n", n), side+gap)
	// The free corner, above A: what each element needs.
	tx, ty := ax, by+side*0.15
	ty += p.Wrap(tx, ty, fs, draw.AlignLeft, c0, w.Say("canvas.cpugpu.sum00"), side, 2) + fs*0.4
	ty += p.Wrap(tx, ty, fs, draw.AlignLeft, c1, w.Say("canvas.cpugpu.sum01"), side, 2) + fs*0.4
	p.Wrap(tx, ty, fs, draw.AlignLeft, th.Dim, w.Say("canvas.cpugpu.each", "n", n), side, 3)
}

// cpugpuElement races one element — N multiply-adds — on one CPU core and
// one CUDA core, on one time axis.
func cpugpuElement(p *draw.Placer, v CPUGPUView, sc float32) {
	th, st, w := v.Theme, v.Stage, v.Words
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	cpuC, gpuC, _ := cpugpuColours(th)
	tmax := math.Max(v.CPU.ElementS, v.GPU.ElementS)
	t := v.Time
	if t < 0 || t > tmax {
		t = tmax
	}
	head := w.Say("canvas.cpugpu.element", "n", units.Count(int64(v.N)))
	fast, slow := v.CPU, v.GPU
	if fast.ElementS > slow.ElementS {
		fast, slow = slow, fast
	}
	if t >= fast.ElementS {
		head = w.Say("canvas.cpugpu.element_done", "cpu", units.Duration(v.CPU.ElementS), "gpu", units.Duration(v.GPU.ElementS),
			"ratio", units.Ratio(w.Lang, v.GPU.ElementS/v.CPU.ElementS))
	}
	y := draw.PlacerHeadline(p, th, st, big, th.Text, head)
	p.Fit(st.X+st.W-pad, y, fs, draw.AlignRight, th.Text, w.Say("canvas.clock", "t", units.Duration(t)), st.W-2*pad)
	y += fs * draw.LineHeight * 1.3
	lanes := []cpugpuLane{
		{w.Say("canvas.cpugpu.core", "clock", siGHz(v.CPU.ClockHz)), v.CPU.ElementS, cpuC},
		{w.Say("canvas.cpugpu.cuda_core", "clock", siGHz(v.GPU.ClockHz)), v.GPU.ElementS, gpuC},
	}
	legend := []draw.LegendEntry{{Color: cpuC, Hatch: false, Label: v.CPU.Name}, {Color: gpuC, Hatch: false, Label: v.GPU.Name}}
	lh := draw.PlacerLegend(p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend...)
	r := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - y}
	_, _ = cpugpuLanesBar(p, th, sc, fs, r, lanes, tmax, t, func(ln cpugpuLane, f float64) string {
		done := units.Count(int64(math.Floor(f * float64(v.N))))
		s := w.Say("canvas.cpugpu.madds", "done", done, "n", units.Count(int64(v.N)))
		if draw.TextWidth(s, fs) > r.W*0.36 {
			s = done // a narrow stage: the count alone
		}
		return s
	}, 5)
}

// cpugpuLane is one bar of a race on one time axis.
type cpugpuLane struct {
	name    string
	seconds float64
	col     draw.Color
}

// cpugpuLanesH is the height lanes take at size fs with room for their
// axis: the most a lane needs, and the least.
func cpugpuLanesH(n int, fs float32) (most, least float32) {
	per := fs * draw.LineHeight * 2.3
	return float32(n)*(per+fs*2.2) + fs*draw.LineHeight*2, float32(n)*(per+fs*0.8) + fs*draw.LineHeight*2
}

// cpugpuLanes draws lanes racing on one axis 0 … tmax in r: a name over
// each track, the bar growing with t until the lane's time, where the
// time is written; progress(lane, share) is an optional text at the
// track's right; the axis under them, the playhead across. The lanes
// keep to the middle of r. It returns the x of a time and the axis's y.
func cpugpuLanes(p *draw.Placer, th draw.Theme, sc, fs float32, r draw.Rect, lanes []cpugpuLane, tmax, t float64, progress func(cpugpuLane, float64) string) (func(float64) float32, float32) {
	return cpugpuLanesBar(p, th, sc, fs, r, lanes, tmax, t, progress, 2.2)
}

// cpugpuLanesBar is cpugpuLanes with bars up to barMax ems thick.
func cpugpuLanesBar(p *draw.Placer, th draw.Theme, sc, fs float32, r draw.Rect, lanes []cpugpuLane, tmax, t float64, progress func(cpugpuLane, float64) string, barMax float32) (func(float64) float32, float32) {
	at := func(s float64) float32 { return r.X + r.W*float32(draw.Frac(s/tmax)) }
	if t < 0 || t > tmax {
		t = tmax
	}
	n := float32(max(len(lanes), 1))
	axisH := fs * draw.LineHeight * 2
	most, least := cpugpuLanesH(len(lanes), fs)
	if r.H < least || r.W < 8*fs {
		return at, r.Y + r.H
	}
	most += n * fs * (barMax - 2.2)
	h := draw.Minf(r.H, most)
	barH := draw.Clamp((h-axisH)/n-fs*draw.LineHeight*2.3, fs*0.8, fs*barMax)
	pitch := barH + fs*draw.LineHeight*2.3
	top := r.Y + (r.H-h)/2
	for i, ln := range lanes {
		ly := top + float32(i)*pitch
		by := ly + fs*draw.LineHeight*1.05
		f := draw.Frac(t / ln.seconds)
		nameW := r.W
		if progress != nil {
			pr := progress(ln, f)
			p.Fit(r.X+r.W, ly, fs, draw.AlignRight, ln.col, pr, r.W*0.36)
			nameW -= draw.TextWidth(pr, fs) + fs
		}
		p.Fit(r.X, ly, fs, draw.AlignLeft, th.Text, ln.name, nameW)
		p.L.Rect(r.X, by, r.W, barH, th.Panel)
		x1 := at(math.Min(t, ln.seconds))
		if x1 > r.X {
			c := ln.col
			if t < ln.seconds {
				c = draw.WithAlpha(c, 200)
			}
			p.L.Rect(r.X, by, draw.Maxf(x1-r.X, 1*sc), barH, c)
		}
		p.L.Frame(r.X, by, r.W, barH, 1*sc, th.Link)
		if t >= ln.seconds {
			p.L.Segment(x1, by-fs*0.25, x1, by+barH+fs*0.25, 2*sc, ln.col)
			lab := units.Duration(ln.seconds)
			if x1+fs*0.3+draw.TextWidth(lab, fs) > r.X+r.W || !p.Text(x1+fs*0.3, by+barH+fs*0.1, fs, draw.AlignLeft, ln.col, lab) {
				p.Text(x1-fs*0.3, by+barH+fs*0.1, fs, draw.AlignRight, ln.col, lab)
			}
		}
	}
	ay := top + n*pitch + fs*0.2
	draw.TimeAxis(p, th, sc, fs, r.X, r.X+r.W, ay, top+fs*draw.LineHeight, tmax, t, at)
	return at, ay
}

// cpugpuRace draws both copies of C filling, a clock on each, and their
// finishes on one axis: under the copies, or beside them on a wide stage.
func cpugpuRace(p *draw.Placer, v CPUGPUView, sc float32) {
	th, st, w := v.Theme, v.Stage, v.Words
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	cpuC, gpuC, tenC := cpugpuColours(th)
	tmax := math.Max(v.CPU.TotalS, v.GPU.TotalS)
	t := v.Time
	if t < 0 || t > tmax {
		t = tmax
	}
	fast, slow := v.CPU, v.GPU
	if fast.TotalS > slow.TotalS {
		fast, slow = slow, fast
	}
	head := w.Say("canvas.cpugpu.race", "elements", units.Count(int64(float64(v.N)*float64(v.N))))
	if t >= fast.TotalS {
		head = w.Say("canvas.cpugpu.race_done", "fast", fast.Name, "slow", slow.Name, "ratio", units.Ratio(w.Lang, slow.TotalS/fast.TotalS))
	}
	y := draw.PlacerHeadline(p, th, st, big, th.Text, head)

	k := cpugpuCells(v.N)
	per := v.N / k
	cuda := v.GPU.Name + " · " + w.Say("canvas.cpugpu.cuda")
	legend := []draw.LegendEntry{{Color: cpuC, Hatch: false, Label: v.CPU.Name}, {Color: gpuC, Hatch: false, Label: cuda}}
	lanes := []cpugpuLane{{v.CPU.Name, v.CPU.TotalS, cpuC}, {cuda, v.GPU.TotalS, gpuC}}
	if v.TensorS > 0 {
		tensor := v.GPU.Name + " · " + w.Say("canvas.cpugpu.tensor")
		legend = append(legend, draw.LegendEntry{Color: tenC, Hatch: false, Label: tensor})
		lanes = append(lanes, cpugpuLane{tensor, v.TensorS, tenC})
	}
	lh := draw.PlacerLegend(p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend...)
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}
	panels := area
	most, least := cpugpuLanesH(len(lanes), fs)
	switch {
	case area.W > area.H*1.6: // wide: the finishes beside the copies
		panels.W = draw.Minf(area.W*0.58, area.H*1.25)
		cpugpuLanes(p, th, sc, fs, draw.Rect{X: area.X + panels.W + 2*pad, Y: area.Y, W: area.W - panels.W - 2*pad, H: area.H}, lanes, tmax, t, nil)
	case area.H-least > area.H*0.55: // the finishes under the copies
		h := draw.Minf(most, area.H*0.4)
		h = draw.Maxf(h, least)
		cpugpuLanes(p, th, sc, fs, draw.Rect{X: area.X, Y: area.Y + area.H - h, W: area.W, H: h}, lanes, tmax, t, nil)
		panels.H -= h + fs*0.5
	}
	cpugpuPanels(p, v, sc, panels, t, k, per)
}

// cpugpuPanels draws the two machines side by side in r: name, workers,
// clock, the lanes at work, C filling.
func cpugpuPanels(p *draw.Placer, v CPUGPUView, sc float32, r draw.Rect, t float64, k, per int) {
	th, w := v.Theme, v.Words
	fs, big := draw.TextSizes(v.Stage, sc)
	pad := fs
	cpuC, gpuC, _ := cpugpuColours(th)
	pw := (r.W - pad) / 2
	// The lanes are drawn at one scale on both sides, a square a core or
	// an SM, its area in proportion to its lanes: a few fast cars, a
	// fleet of buses. laneArea is px² a lane: the larger side's block
	// fits pw × blockH.
	blockH := r.H * 0.16
	laneArea := float32(math.Inf(1))
	for _, s := range [2]CPUGPUSide{v.CPU, v.GPU} {
		cols := int(math.Ceil(math.Sqrt(float64(s.Units) * 1.1)))
		rows := (s.Units + cols - 1) / cols
		lanes := float32(max(s.LanesPerUnit, 1))
		laneArea = draw.Minf(laneArea, pw*pw/(float32(cols*cols)*lanes))
		laneArea = draw.Minf(laneArea, blockH*blockH/(float32(rows*rows)*lanes))
	}
	for i, s := range [2]CPUGPUSide{v.CPU, v.GPU} {
		col := cpuC
		key := "canvas.cpugpu.cpu_workers"
		if i == 1 {
			col, key = gpuC, "canvas.cpugpu.gpu_workers"
		}
		x := r.X + float32(i)*(pw+pad)
		py := r.Y
		p.Fit(x, py, fs, draw.AlignLeft, th.Text, s.Name, pw)
		py += fs * draw.LineHeight
		py += p.Wrap(x, py, fs, draw.AlignLeft, th.Dim, w.Say(key, "units", units.Count(int64(s.Units)), "lanes", units.Count(int64(s.LanesPerUnit)),
			"at_once", units.Count(int64(s.Units*s.LanesPerUnit))), pw, 2)
		done := t >= s.TotalS
		clock := w.Say("canvas.clock", "t", units.Duration(math.Min(t, s.TotalS)))
		if done {
			clock = w.Say("canvas.cpugpu.done", "t", units.Duration(s.TotalS))
		}
		p.Fit(x, py, big, draw.AlignLeft, col, clock, pw)
		py += big*draw.LineHeight + fs*0.3
		// The workers: lit while they compute, grey before and after.
		if laneArea > 0 && s.Units > 0 && blockH >= 8*sc {
			u := float32(math.Sqrt(float64(float32(s.LanesPerUnit) * laneArea)))
			cols := int(math.Ceil(math.Sqrt(float64(s.Units) * 1.1)))
			wc := col
			if done || t <= 0 {
				wc = th.Link
			}
			for j := 0; j < s.Units; j++ {
				p.L.Rect(x+float32(j%cols)*u, py+float32(j/cols)*u, draw.Maxf(u-1*sc, 0.5*sc), draw.Maxf(u-1*sc, 0.5*sc), wc)
			}
			py += blockH + fs*0.4
		}
		side := draw.Minf(pw, r.Y+r.H-py-fs*draw.LineHeight*1.1)
		if side < 16*sc {
			continue
		}
		gx := x + (pw-side)/2
		f := draw.Frac(t / s.TotalS)
		cpugpuGrid(p.L, th, sc, gx, py, side, k, f, col)
		pct := w.Say("canvas.cpugpu.filled", "pct", units.Percent(math.Floor(f*1000)/1000))
		p.Fit(gx+side, py+side+fs*0.1, fs, draw.AlignRight, th.Dim, pct, side)
		if i == 0 {
			if cell := w.Say("canvas.cpugpu.cell", "k", units.Count(int64(per))); draw.TextWidth(cell, fs) <= side-draw.TextWidth(pct, fs)-fs {
				p.Text(gx, py+side+fs*0.1, fs, draw.AlignLeft, th.Dim, cell)
			}
		}
	}
}

// cpugpuCells is how many cells a side the grid of C has: 32, never more
// than N.
func cpugpuCells(n int) int { return max(1, min(32, n)) }

// cpugpuGrid draws C as k × k cells filled in reading order up to share
// f.
func cpugpuGrid(l *draw.List, th draw.Theme, sc, x, y, side float32, k int, f float64, col draw.Color) {
	cell := side / float32(k)
	l.Rect(x, y, side, side, th.Empty)
	fillRows(l, x, y, cell, k, 0, f*float64(k*k), col)
	if cell >= 6*sc {
		lc := draw.WithAlpha(th.Background, 110)
		for j := 1; j < k; j++ {
			l.Segment(x+float32(j)*cell, y, x+float32(j)*cell, y+side, 1*sc, lc)
			l.Segment(x, y+float32(j)*cell, x+side, y+float32(j)*cell, 1*sc, lc)
		}
	}
	l.Frame(x, y, side, side, 1*sc, th.Dim)
}

// fillRows fills cells a … b (in cells, reading order) of a k-wide grid.
func fillRows(l *draw.List, x, y, cell float32, k int, a, b float64, c draw.Color) {
	if b <= a {
		return
	}
	kf := float64(k)
	r0, r1 := math.Floor(a/kf), math.Floor(b/kf)
	if r0 == r1 {
		l.Rect(x+cell*float32(a-r0*kf), y+cell*float32(r0), cell*float32(b-a), cell, c)
		return
	}
	if s := a - r0*kf; s > 0 {
		l.Rect(x+cell*float32(s), y+cell*float32(r0), cell*float32(kf-s), cell, c)
		r0++
	}
	if r1 > r0 {
		l.Rect(x, y+cell*float32(r0), cell*float32(kf), cell*float32(r1-r0), c)
	}
	if e := b - r1*kf; e > 0 && r1 < kf {
		l.Rect(x, y+cell*float32(r1), cell*float32(e), cell, c)
	}
}

// cpugpuTensor draws the three finishes on one axis, and the GPU's part
// zoomed under it.
func cpugpuTensor(p *draw.Placer, v CPUGPUView, sc float32) {
	th, st, w := v.Theme, v.Stage, v.Words
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	cpuC, gpuC, tenC := cpugpuColours(th)
	ten := v.TensorS
	if ten <= 0 {
		ten = v.GPU.TotalS
	}
	y := draw.PlacerHeadline(p, th, st, big, th.Text, w.Say("canvas.cpugpu.tensor_done", "ratio", units.Ratio(w.Lang, v.CPU.TotalS/ten)))
	cuda := v.GPU.Name + " · " + w.Say("canvas.cpugpu.cuda")
	tensor := v.GPU.Name + " · " + w.Say("canvas.cpugpu.tensor")
	legend := []draw.LegendEntry{{Color: cpuC, Hatch: false, Label: v.CPU.Name}, {Color: gpuC, Hatch: false, Label: cuda}, {Color: tenC, Hatch: false, Label: tensor}}
	lh := draw.PlacerLegend(p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend...)
	h := st.Y + st.H - pad - lh - y
	tmax := math.Max(v.CPU.TotalS, v.GPU.TotalS)
	zoom := math.Min(v.GPU.TotalS, tmax)
	most3, least3 := cpugpuLanesH(3, fs)
	_, least2 := cpugpuLanesH(2, fs)
	three := []cpugpuLane{{v.CPU.Name, v.CPU.TotalS, cpuC}, {cuda, v.GPU.TotalS, gpuC}, {tensor, ten, tenC}}
	two := []cpugpuLane{{cuda, v.GPU.TotalS, gpuC}, {tensor, ten, tenC}}
	zoomTitle := w.Say("canvas.cpugpu.zoom", "ratio", units.Ratio(w.Lang, tmax/zoom), "t", units.Duration(zoom))
	W := st.W - 2*pad
	if W > h*1.6 && h >= least3 {
		// Wide: the whole race on the left, the zoom on the right.
		half := (W - 2*pad) / 2
		at, ax := cpugpuLanes(p, th, sc, fs, draw.Rect{X: st.X + pad, Y: y, W: half, H: h}, three, tmax, -1, nil)
		zr := draw.Rect{X: st.X + pad + half + 2*pad, Y: y + fs*draw.LineHeight*1.3, W: half, H: h - fs*draw.LineHeight*1.3}
		p.Fit(zr.X, y, fs, draw.AlignLeft, th.Dim, zoomTitle, zr.W)
		p.L.Frame(zr.X-fs*0.5, zr.Y-fs*0.2, zr.W+fs*0.8, zr.H+fs*0.2, 1*sc, th.Link)
		p.L.Segment(at(zoom), ax, zr.X-fs*0.5, zr.Y-fs*0.2, 1*sc, th.Dim)
		p.L.Segment(at(zoom), ax, zr.X-fs*0.5, zr.Y+zr.H, 1*sc, th.Dim)
		cpugpuLanes(p, th, sc, fs, zr, two, zoom, -1, nil)
		return
	}
	zoomed := h >= least3+least2+fs*draw.LineHeight*2
	mainH := draw.Minf(most3, h)
	if zoomed {
		mainH = draw.Clamp(h*0.55, least3, draw.Minf(most3, h-least2-fs*draw.LineHeight*2))
	}
	at, ax := cpugpuLanes(p, th, sc, fs, draw.Rect{X: st.X + pad, Y: y, W: W, H: mainH}, three, tmax, -1, nil)
	if !zoomed {
		return
	}
	// The zoom: 0 … the CUDA cores' time, from the main axis to a panel.
	ty := ax + fs*0.4 + fs*draw.LineHeight + fs*0.3 // under the tick labels
	zr := draw.Rect{X: st.X + pad, Y: ty + fs*draw.LineHeight*1.3, W: W, H: 0}
	zr.H = st.Y + st.H - pad - lh - zr.Y
	if zr.H < least2 {
		return
	}
	p.L.Segment(at(0), ty, zr.X-fs*0.3, zr.Y-fs*0.2, 1*sc, th.Dim)
	p.L.Segment(at(zoom), ty, zr.X+zr.W+fs*0.3, zr.Y-fs*0.2, 1*sc, th.Dim)
	p.Fit(zr.X+zr.W, zr.Y, fs, draw.AlignRight, th.Dim, zoomTitle, zr.W*0.45)
	p.L.Frame(zr.X-fs*0.3, zr.Y-fs*0.2, zr.W+fs*0.6, zr.H+fs*0.2, 1*sc, th.Link)
	cpugpuLanes(p, th, sc, fs, zr, two, zoom, -1, nil)
}

// siGHz writes a clock: "3.5 GHz".
func siGHz(hz float64) string { return units.Number(hz/1e9) + " GHz" }
