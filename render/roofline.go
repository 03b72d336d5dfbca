package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
)

// Roof is one GPU's roofline for a dtype.
type Roof struct {
	Name     string
	Peak, BW float64 // FLOP/s, bytes/s
	Current  bool
	// Ghost: drawn faint for comparison (the same GPU's roof in the
	// previous step's dtype).
	Ghost  bool
	Colour int // the GPU's colour: an index into the GPU palette (3: a Blackwell picked)
}

// RooflineStory is what a roofline step says.
type RooflineStory uint8

// The roofline steps.
const (
	RoofTwo    RooflineStory = iota // the two ceilings, named on their lines
	RoofRidge                       // the kernel sweeps past the ridge
	RoofKernel                      // where one kernel lands, and what limits it
	RoofGPUs                        // every GPU's roof and ridge
	RoofRaised                      // a faster dtype raises the roof (the old one faint)
)

// RooflineView is what the roofline picture needs.
type RooflineView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Story         RooflineStory
	Dtype         string // "BF16"
	Roofs         []Roof
	Intensity     float64 // the kernel's FLOP per byte (0: no kernel)
}

// Axes of the chart, log10: intensity 10^-2…10^4 FLOP/byte, throughput
// 10^-1…10^4 TFLOP/s, the same in every step.
const (
	rfXLo, rfXHi = -2.0, 4.0
	rfYLo, rfYHi = -1.0, 4.0
)

// rooflineColours are the GPUs' colours (fixed a GPU, so a GPU keeps its
// colour from step to step; the fourth, the text's, for a GPU picked
// beyond the three) and the bounds'.
func rooflineColours(th draw.Theme) (gpus [4]draw.Color, memory, compute draw.Color) {
	return [4]draw.Color{draw.Palette[1], th.LinkActive, draw.Palette[3], th.Text}, th.Hot, th.Rim
}

// AppendRoofline draws the rooflines on log-log axes, each labelled "log
// scale" — attainable throughput against arithmetic intensity: a slope
// (bandwidth × intensity) up to a flat roof (the peak), bending at the
// ridge. Left of the current roof's ridge is tinted memory-bound, right
// of it compute-bound; the current roof's slope and roof are named on
// their lines, its ridge marked; the kernel's dot sits where the roof
// puts it, its intensity and throughput on the axes.
func AppendRoofline(dst draw.List, v RooflineView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	var cur *Roof
	for i := range v.Roofs {
		if v.Roofs[i].Current {
			cur = &v.Roofs[i]
		}
	}
	if st.W <= 0 || st.H <= 0 || cur == nil || cur.BW <= 0 || cur.Peak <= 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	gpuC, memC, compC := rooflineColours(th)
	ridge := cur.Peak / cur.BW
	att := math.Min(cur.Peak, v.Intensity*cur.BW)
	bound := "memory"
	if v.Intensity >= ridge {
		bound = "compute"
	}
	var head string
	switch v.Story {
	case RoofTwo:
		head = w.Say("canvas.roof.two", "gpu", cur.Name, "dtype", v.Dtype, "bw", units.Rate(cur.BW), "peak", units.FLOPS(cur.Peak))
	case RoofRidge:
		head = w.Say("canvas.roof.ridge", "ridge", draw.Num(ridge), "i", draw.Num(v.Intensity), "bound", w.Say("canvas.roof.bound."+bound))
	case RoofGPUs:
		var b strings.Builder
		for i, r := range v.Roofs {
			if r.Ghost {
				continue
			}
			if i > 0 {
				b.WriteString(" · ")
			}
			b.WriteString(r.Name + " " + draw.Num(r.Peak/r.BW))
		}
		head = w.Say("canvas.roof.gpus", "list", b.String())
	case RoofRaised:
		head = w.Say("canvas.roof.raised", "dtype", v.Dtype, "peak", units.FLOPS(cur.Peak), "ridge", draw.Num(ridge))
	default:
		head = w.Say("canvas.roof.kernel", "i", draw.Num(v.Intensity), "att", units.Number(att/1e12), "pct", units.Percent(att/cur.Peak),
			"bound", w.Say("canvas.roof.bound."+bound))
	}
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)

	// The legend: the GPUs drawn, the two bounds.
	var legend [6]draw.LegendEntry
	ne := 0
	for _, r := range v.Roofs {
		if !r.Ghost && ne < 4 {
			legend[ne] = draw.LegendEntry{Color: gpuC[r.Colour%4], Hatch: false, Label: r.Name}
			ne++
		}
	}
	legend[ne] = draw.LegendEntry{Color: memC, Hatch: false, Label: w.Say("canvas.roof.bound.memory")}
	legend[ne+1] = draw.LegendEntry{Color: compC, Hatch: false, Label: w.Say("canvas.roof.bound.compute")}
	ne += 2
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend[:ne]...)

	// The plot.
	yLab := draw.Clamp(draw.TextWidth("1,000", fs)+fs*0.6, fs*3, fs*5)
	px := st.X + pad + yLab
	p.Fit(st.X+pad, y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.roof.y"), st.W-2*pad)
	py := y + fs*draw.LineHeight*1.8 // the y axis's title above the plot
	pw := st.X + st.W - pad - px
	ph := st.Y + st.H - pad - lh - fs*draw.LineHeight*2.6 - py // two lines under: decades, the x title
	if pw < fs*8 || ph < fs*6 {
		return l
	}
	at := func(intensity, flops float64) (float32, float32) {
		fx := (math.Log10(intensity) - rfXLo) / (rfXHi - rfXLo)
		fy := (math.Log10(flops/1e12) - rfYLo) / (rfYHi - rfYLo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}
	clip := func(x, y float32) (float32, float32) { return draw.Clamp(x, px, px+pw), draw.Clamp(y, py, py+ph) }
	// The bounds' regions, either side of the current ridge.
	rx, _ := at(ridge, cur.Peak)
	rxc := draw.Clamp(rx, px, px+pw)
	p.L.Rect(px, py, rxc-px, ph, draw.WithAlpha(memC, 28))
	p.L.Rect(rxc, py, px+pw-rxc, ph, draw.WithAlpha(compC, 28))
	// Grid and decades.
	for e := int(rfXLo); e <= int(rfXHi); e++ {
		x, _ := at(math.Pow(10, float64(e)), 1e12)
		p.L.Segment(x, py, x, py+ph, 1*sc, draw.WithAlpha(th.Dim, 60))
	}
	for e := int(rfYLo); e <= int(rfYHi); e++ {
		_, yy := at(1, math.Pow(10, float64(e))*1e12)
		p.L.Segment(px, yy, px+pw, yy, 1*sc, draw.WithAlpha(th.Dim, 60))
	}
	p.L.Frame(px, py, pw, ph, 1*sc, th.Dim)
	// The kernel's values on the axes first: they win over the decades.
	var kx, ky float32
	kernel := v.Intensity > 0
	if kernel {
		kx, ky = clip(at(v.Intensity, att))
	}
	kc := memC
	if bound == "compute" {
		kc = compC
	}
	if kernel {
		p.Text(kx, py+ph+fs*0.3, fs, draw.AlignCenter, kc, draw.Num(v.Intensity))
		p.Text(px-fs*0.4, ky-fs*0.55, fs, draw.AlignRight, kc, units.Number(att/1e12))
		// Its lines to the axes and its dot: no label may cross them.
		p.Reserve(draw.Rect{X: kx - 2*sc, Y: ky, W: 4 * sc, H: py + ph - ky})
		p.Reserve(draw.Rect{X: px, Y: ky - 2*sc, W: kx - px, H: 4 * sc})
		p.Reserve(draw.Rect{X: kx - 8*sc, Y: ky - 8*sc, W: 16 * sc, H: 16 * sc})
		// Its label: right of the drop line and under the roof first.
		lab := w.Say("canvas.roof.dot", "bound", w.Say("canvas.roof.bound."+bound))
		placed := false
		for k := 0; k < 4 && !placed; k++ {
			dy := fs*0.6 + float32(k)*fs*draw.LineHeight
			placed = p.Text(kx+fs*0.8, ky+dy, fs, draw.AlignLeft, kc, lab) || p.Text(kx-fs*0.8, ky+dy, fs, draw.AlignRight, kc, lab)
		}
	}
	for e := int(rfXLo); e <= int(rfXHi); e++ {
		x, _ := at(math.Pow(10, float64(e)), 1e12)
		p.Text(x, py+ph+fs*0.3, fs, draw.AlignCenter, th.Dim, draw.Pow10(e))
	}
	for e := int(rfYLo); e <= int(rfYHi); e++ {
		_, yy := at(1, math.Pow(10, float64(e))*1e12)
		p.Text(px-fs*0.4, yy-fs*0.55, fs, draw.AlignRight, th.Dim, draw.Pow10(e))
	}
	p.First(px+pw, py+ph+fs*draw.LineHeight*1.3, fs, draw.AlignRight, th.Dim, w.Say("canvas.roof.x"), w.Say("canvas.roof.x_short"))

	// The roofs: ghosts and other GPUs thin, the current one bold.
	for i := range v.Roofs {
		r := &v.Roofs[i]
		if r.Current {
			continue
		}
		c, wd := gpuC[r.Colour%4], 2*sc
		if r.Ghost {
			c, wd = th.Dim, 3*sc
		}
		rfRoof(p.L, r, at, clip, wd, c)
	}
	rfRoof(p.L, cur, at, clip, 4*sc, gpuC[cur.Colour%4])
	// Ridges: the current one, or every GPU's in the GPUs story.
	for i := range v.Roofs {
		r := &v.Roofs[i]
		if r.Ghost || !(r.Current || v.Story == RoofGPUs) {
			continue
		}
		c := gpuC[r.Colour%4]
		rr := r.Peak / r.BW
		x, yy := clip(at(rr, r.Peak))
		p.L.Segment(x, yy, x, py+ph, 1*sc, draw.WithAlpha(c, 160))
		p.L.Circle(x, yy, 4.5*sc, c)
		p.Reserve(draw.Rect{X: x - 1*sc, Y: yy, W: 2 * sc, H: py + ph - yy})
		lab := w.Say("canvas.roof.ridge_at", "v", draw.Num(rr))
		for k := 0; k < 8; k++ {
			dy := fs*0.3 + float32(k/2)*fs*draw.LineHeight
			if k%2 == 0 && p.Text(x+fs*0.4, yy+dy, fs, draw.AlignLeft, c, lab) || k%2 == 1 && p.Text(x-fs*0.4, yy+dy, fs, draw.AlignRight, c, lab) {
				break
			}
		}
	}
	// The current roof's two ceilings, named on their lines.
	lo := math.Max(math.Pow(10, rfXLo), math.Pow(10, rfYLo)*1e12/cur.BW)
	for _, f := range [...]float64{0.5, 0.35, 0.65, 0.2} {
		in := math.Pow(10, math.Log10(lo)+f*(math.Log10(ridge)-math.Log10(lo)))
		slopeX, slopeY := clip(at(in, in*cur.BW))
		if p.First(slopeX+fs*0.6, slopeY+fs*0.2, fs, draw.AlignLeft, gpuC[cur.Colour%4],
			w.Say("canvas.roof.slope", "bw", units.Rate(cur.BW)), w.Say("canvas.roof.slope_short", "bw", units.Rate(cur.BW))) {
			break
		}
	}
	_, roofY := clip(at(ridge, cur.Peak))
	p.First(rxc-fs*0.6, roofY-fs*draw.LineHeight-fs*0.3, fs, draw.AlignRight, gpuC[cur.Colour%4],
		w.Say("canvas.roof.peak", "peak", units.FLOPS(cur.Peak)), units.FLOPS(cur.Peak))
	for _, r := range v.Roofs {
		if r.Ghost {
			x2, y2 := clip(at(math.Pow(10, rfXHi), r.Peak))
			p.Text(x2-fs*0.3, y2+fs*0.3, fs, draw.AlignRight, th.Dim, w.Say("canvas.roof.ghost", "dtype", r.Name))
		}
	}
	// The regions' names: memory-bound high on the left, above every slope
	// (a steep one, a Blackwell's, would cross it low), compute-bound low
	// on the right, under the roofs.
	if s := w.Say("canvas.roof.region.memory"); draw.TextWidth(s, fs) < rxc-px-fs*0.8 {
		p.Text(px+fs*0.4, py+fs*0.4, fs, draw.AlignLeft, memC, s)
	}
	if s := w.Say("canvas.roof.region.compute"); draw.TextWidth(s, fs) < px+pw-rxc-fs*0.8 {
		p.Text(px+pw-fs*0.4, py+ph-fs*draw.LineHeight*1.2, fs, draw.AlignRight, compC, s)
	}

	// The kernel: a dot, lines to its values on the axes, its label clear
	// of them (right of the drop line, under the roof).
	if kernel {
		p.L.Segment(kx, ky, kx, py+ph, 1.5*sc, draw.WithAlpha(kc, 200))
		p.L.Segment(px, ky, kx, ky, 1.5*sc, draw.WithAlpha(kc, 120))
		p.L.Circle(kx, ky, 7*sc, kc)
	}
	return l
}

// rfRoof draws one roofline: the slope from where it enters the chart to
// the ridge, then the roof to the right edge.
func rfRoof(l *draw.List, r *Roof, at func(float64, float64) (float32, float32), clip func(float32, float32) (float32, float32), w float32, c draw.Color) {
	ridge := r.Peak / r.BW
	lo := math.Max(math.Pow(10, rfXLo), math.Pow(10, rfYLo)*1e12/r.BW)
	x0, y0 := clip(at(lo, lo*r.BW))
	x1, y1 := clip(at(ridge, r.Peak))
	x2, y2 := clip(at(math.Pow(10, rfXHi), r.Peak))
	l.Segment(x0, y0, x1, y1, w, c)
	l.Segment(x1, y1, x2, y2, w, c)
}
