package render

import (
	"math"
	"strconv"
)

// Roof is one GPU's roofline for the lesson's dtype.
type Roof struct {
	Name     string
	Peak, BW float64 // FLOP/s, bytes/s
	Current  bool
}

// RooflineView is what the roofline picture needs.
type RooflineView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Roofs         []Roof
	Intensity     float64 // the kernel's FLOP per byte
}

// Axes of the chart, log10: intensity 10^-2…10^4 FLOP/byte, throughput
// 10^-1…10^4 TFLOP/s.
const (
	rfXLo, rfXHi = -2.0, 4.0
	rfYLo, rfYHi = -1.0, 4.0
)

// AppendRoofline draws the rooflines on log-log axes — attainable
// throughput against arithmetic intensity: a slope (bandwidth ×
// intensity) up to a flat roof (the peak), bending at the ridge point —
// each GPU's roof, the current one bold with its ridge marked, and the
// kernel's dot where the current roof puts it.
func AppendRoofline(dst List, v RooflineView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	px, py := st.X+fs*5, st.Y+fs*2
	pw, ph := st.W-fs*7, st.H-fs*5
	if pw <= 0 || ph <= 0 {
		return l
	}
	at := func(intensity, flops float64) (float32, float32) {
		fx := (math.Log10(intensity) - rfXLo) / (rfXHi - rfXLo)
		fy := (math.Log10(flops/1e12) - rfYLo) / (rfYHi - rfYLo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}
	// Grid and axes: a line per decade.
	for e := int(rfXLo); e <= int(rfXHi); e++ {
		x, _ := at(math.Pow(10, float64(e)), 1e12)
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		l.Label(x, py+ph+fs*0.3, fs, AlignCenter, th.Dim, pow10(e))
	}
	for e := int(rfYLo); e <= int(rfYHi); e++ {
		_, y := at(1, math.Pow(10, float64(e))*1e12)
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		l.Label(px-fs*0.4, y-fs*0.55, fs, AlignRight, th.Dim, pow10(e))
	}
	l.Frame(px, py, pw, ph, 1*sc, th.Dim)
	l.Label(px+pw, py+ph+fs*1.5, fs, AlignRight, th.Dim, "FLOP/byte")
	l.Label(px-fs*0.4, py-fs*1.7, fs, AlignLeft, th.Dim, "TFLOP/s")

	clip := func(x, y float32) (float32, float32) {
		return clamp(x, px, px+pw), clamp(y, py, py+ph)
	}
	var cur *Roof
	for i := range v.Roofs {
		r := &v.Roofs[i]
		if r.Current {
			cur = r
			continue
		}
		drawRoof(&l, r, at, clip, 1.5*sc, th.Link, th.Dim, fs)
	}
	if cur == nil {
		return l
	}
	drawRoof(&l, cur, at, clip, 3.5*sc, th.LinkActive, th.Text, fs)
	ridge := cur.Peak / cur.BW
	rx, ry := at(ridge, cur.Peak)
	l.Segment(rx, ry, rx, py+ph, 1*sc, th.LinkActive)
	l.Circle(rx, ry, 4*sc, th.LinkActive)
	l.Label(rx+fs*0.4, ry+fs*0.3, fs, AlignLeft, th.LinkActive, "ridge "+strconv.FormatFloat(ridge, 'f', 0, 64))
	// The kernel.
	if v.Intensity > 0 {
		att := math.Min(cur.Peak, v.Intensity*cur.BW)
		kx, ky := clip(at(v.Intensity, att))
		col := th.Hot
		if v.Intensity >= ridge {
			col = th.Rim
		}
		l.Segment(kx, ky, kx, py+ph, 1*sc, col)
		l.Circle(kx, ky, 7*sc, col)
		l.Label(kx, ky-fs*1.8, fs, AlignCenter, col, strconv.FormatFloat(v.Intensity, 'g', 4, 64)+" → "+strconv.FormatFloat(att/1e12, 'g', 4, 64))
	}
	return l
}

func drawRoof(l *List, r *Roof, at func(float64, float64) (float32, float32), clip func(float32, float32) (float32, float32), w float32, line, text Color, fs float32) {
	ridge := r.Peak / r.BW
	// The slope enters the chart where I·B reaches its lowest throughput.
	lo := math.Max(math.Pow(10, rfXLo), math.Pow(10, rfYLo)*1e12/r.BW)
	x0, y0 := clip(at(lo, lo*r.BW))
	x1, y1 := clip(at(ridge, r.Peak))
	x2, y2 := clip(at(math.Pow(10, rfXHi), r.Peak))
	l.Segment(x0, y0, x1, y1, w, line)
	l.Segment(x1, y1, x2, y2, w, line)
	// The current roof is named above its line, the others below theirs,
	// so that GPUs with the same peak (H100, H200) stay readable.
	if w > 2 {
		l.Label(x2, y2-fs*1.3, fs, AlignRight, text, r.Name)
	} else {
		l.Label(x2, y2+fs*0.3, fs, AlignRight, text, r.Name)
	}
}

// pow10 labels a decade: "0.01", "0.1", "1", "10", … "10k".
func pow10(e int) string {
	switch {
	case e < 0:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', -e, 64)
	case e < 3:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', 0, 64)
	}
	return strconv.FormatFloat(math.Pow(10, float64(e-3)), 'f', 0, 64) + "k"
}
