package render

import (
	"math"
	"strconv"
	"strings"
)

// FormatRow is one format's encoding of the lesson's value.
type FormatRow struct {
	Name    string // "FP16"
	ExpBits int
	Bits    string // "0 11111 0000000000": sign, exponent and mantissa digits
	Stored  string // "70144", "+Inf"
	Current bool   // the format the reader picked
}

// LossCurve is one variant of the toy training run, up to the playhead.
type LossCurve struct {
	Name   string
	Loss   []float64 // per training step, NaN once the run has died
	Colour int       // 0 hot, 1 active, 2 rim
}

// NumfmtView is what the number-formats picture needs.
type NumfmtView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Rows          []FormatRow
	// Curves, when set, adds the loss chart of the toy run under the bits,
	// drawn up to step Upto of Steps, with the spike at Spike.
	Curves             []LossCurve
	Upto, Steps, Spike int
}

// Field colours: sign, exponent, mantissa (bit set / bit clear).
var (
	signOn  = Color{0xe0, 0x4f, 0x5f, 255}
	expOn   = Color{0x3b, 0x82, 0xd6, 255}
	mantOn  = Color{0x3f, 0xa8, 0x5a, 255}
	fieldBg = Color{0x88, 0x90, 0xa0, 70}
)

// AppendNumfmt draws each format's bits as a row of boxes coloured by
// field — sign, exponent, mantissa; filled where the bit is 1 — with the
// stored value at the row's end, and, when asked, the loss of the toy
// training run in each variant, step by step.
func AppendNumfmt(dst List, v NumfmtView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Rows) == 0 {
		return l
	}
	pad := clamp(st.W/60, 8*sc, 20*sc)
	bitsH := st.H - 2*pad
	if len(v.Curves) > 0 {
		bitsH = (st.H - 3*pad) * 0.45
	}
	// Bits: the widest format (32 bits) sets the box size.
	label := clamp(st.W*0.11, 48*sc, 120*sc)
	value := clamp(st.W*0.16, 60*sc, 170*sc)
	maxBits := 0
	for _, r := range v.Rows {
		maxBits = max(maxBits, len(strings.ReplaceAll(r.Bits, " ", "")))
	}
	rowH := bitsH / float32(len(v.Rows))
	box := minf((st.W-2*pad-label-value)/float32(maxBits), rowH*0.7)
	box = clamp(box, 4*sc, 40*sc)
	fs := clamp(box*0.8, 9*sc, 20*sc)
	for i, r := range v.Rows {
		y := st.Y + pad + float32(i)*rowH + (rowH-box)/2
		x0 := st.X + pad
		if r.Current {
			l.Rect(x0-pad/2, y-box*0.2, st.W-pad, box*1.4, th.Panel)
			l.Frame(x0-pad/2, y-box*0.2, st.W-pad, box*1.4, 1.5*sc, th.LinkActive)
		}
		l.Label(x0, y+(box-fs)/2, fs, AlignLeft, th.Text, r.Name)
		x := x0 + label
		fields := strings.Fields(r.Bits)
		for fi, f := range fields {
			on := []Color{signOn, expOn, mantOn}[min(fi, 2)]
			for _, b := range f {
				c := fieldBg
				if b == '1' {
					c = on
				}
				l.Rect(x, y, box-1*sc, box, c)
				if box >= 12*sc {
					tc := th.Dim
					if b == '1' {
						tc = Color{255, 255, 255, 255}
					}
					l.Label(x+(box-1*sc)/2, y+(box-box*0.7)/2, box*0.7, AlignCenter, tc, string(b))
				}
				x += box
			}
			x += box * 0.4 // a gap between fields
		}
		l.Label(st.X+st.W-pad, y+(box-fs)/2, fs, AlignRight, th.Text, "= "+r.Stored)
	}
	if len(v.Curves) > 0 && v.Steps > 1 {
		drawLoss(&l, th, sc, Rect{st.X + pad, st.Y + 2*pad + bitsH, st.W - 2*pad, st.H - 3*pad - bitsH}, v)
	}
	return l
}

// drawLoss plots log10(loss) against the training step for each variant,
// up to the playhead, the spike marked; a run that died ends in "NaN".
func drawLoss(l *List, th Theme, sc float32, r Rect, v NumfmtView) {
	fs := clamp(r.H/14, 10*sc, 15*sc)
	l.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	l.Frame(r.X, r.Y, r.W, r.H, 1*sc, th.Link)
	px, py := r.X+fs*3.5, r.Y+fs*1.2
	pw, ph := r.W-fs*4.5, r.H-fs*3.2
	// The y axis: log10 of the loss over the range the curves span.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range v.Curves {
		for _, x := range c.Loss {
			if x > 0 && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, math.Log10(x)), math.Max(hi, math.Log10(x))
			}
		}
	}
	if lo > hi {
		return
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi == lo {
		hi++
	}
	at := func(step int, loss float64) (float32, float32) {
		fx := float32(step) / float32(v.Steps-1)
		fy := float32((math.Log10(loss) - lo) / (hi - lo))
		return px + pw*fx, py + ph*(1-fy)
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)
	l.Segment(px, py, px, py+ph, 1*sc, th.Dim)
	l.Label(px-fs*0.3, py-fs*0.5, fs, AlignRight, th.Dim, "1e"+strconv.Itoa(int(hi)))
	l.Label(px-fs*0.3, py+ph-fs*0.5, fs, AlignRight, th.Dim, "1e"+strconv.Itoa(int(lo)))
	l.Label(px+pw, py+ph+fs*0.3, fs, AlignRight, th.Dim, "k = "+strconv.Itoa(v.Upto))
	l.Label(px, py+ph+fs*0.3, fs, AlignLeft, th.Dim, "L (log)")
	if sx, _ := at(v.Spike, math.Pow(10, lo)); v.Spike > 0 {
		l.Segment(sx, py, sx, py+ph, 1*sc, th.Hot)
	}
	colours := []Color{th.Hot, th.LinkActive, th.Rim}
	// The first curve (the one the step is about) is drawn last, on top.
	for ci := len(v.Curves) - 1; ci >= 0; ci-- {
		c := v.Curves[ci]
		col := colours[c.Colour%3]
		var lx, ly float32
		drawn := false
		for s := 0; s <= v.Upto && s < len(c.Loss); s++ {
			x := c.Loss[s]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				if drawn {
					l.Label(lx+fs*0.3, ly-fs*0.5, fs, AlignLeft, col, "NaN")
				}
				break
			}
			if x <= 0 {
				continue
			}
			cx, cy := at(s, x)
			if drawn {
				l.Segment(lx, ly, cx, cy, 2*sc, col)
			}
			lx, ly, drawn = cx, cy, true
		}
		// A legend in the top-right corner.
		l.Label(r.X+r.W-fs*0.5, r.Y+fs*0.3+float32(ci)*fs*1.2, fs, AlignRight, col, c.Name)
	}
}
