package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
)

// FormatRow is one format's encoding of a value.
type FormatRow struct {
	Name              string // "FP16"
	ExpBits, MantBits int
	Bits              string  // "0 11111 0000000000": sign, exponent and mantissa digits
	Stored            string  // "70144", "+Inf"
	Special           bool    // stored as Inf or NaN
	RelErr            float64 // |stored − value| ÷ |value| (NaN where special)
	Max               float64 // the largest finite value
	Current           bool    // the format the reader picked
}

// NumfmtPhase is what a number-formats step shows.
type NumfmtPhase uint8

// The number-formats pictures.
const (
	NumLayouts   NumfmtPhase = iota // the fields of every format, with headers
	NumOverflow                     // the value against every format's largest number
	NumPrecision                    // the value's rounding error in every format
	NumTraining                     // the toy run: the gradient's bits, its size, the loss
	NumMemory                       // 175B parameters' bytes in every format
)

// LossCurve is one variant of the toy training run.
type LossCurve struct {
	Name    string
	Loss    []float64 // per training step, NaN once the run has died
	Grad    []float64 // the gradient before it is stored, per step
	Stored  []float64 // the gradient as the run's format stored it (Inf where it overflowed)
	Skipped []bool    // a step loss scaling skipped
	Colour  int       // 0 FP16, 1 BF16, 2 loss scaling
	Current bool      // the run the step is about
}

// WeightBar is a model's weights in one format.
type WeightBar struct {
	Name  string
	Bytes float64
}

// NumfmtView is what the number-formats picture needs.
type NumfmtView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Phase         NumfmtPhase
	Value         string  // the value the rows store, as the reader wrote it
	X             float64 // and as a number
	Rows          []FormatRow
	// Training: the variants, drawn up to step Upto of Steps, the spike
	// at Spike; GradRows the current run's gradient at GradStep in FP16
	// and BF16 (Upto, or before it the last step of a run that died);
	// FP16Max the line it must stay under.
	Curves             []LossCurve
	Upto, Steps, Spike int
	GradRows           []FormatRow
	Grad               string
	GradStep           int
	FP16Max            float64
	// Memory: the weights in each format, against one GPU's HBM.
	Weights  []WeightBar
	Params   string // "175B"
	HBMBytes float64
}

// Field colours: sign, exponent, mantissa (bit set / bit clear).
var (
	signOn  = draw.Color{R: 0xe0, G: 0x4f, B: 0x5f, A: 255}
	expOn   = draw.Color{R: 0x3b, G: 0x82, B: 0xd6, A: 255}
	mantOn  = draw.Color{R: 0x3f, G: 0xa8, B: 0x5a, A: 255}
	fieldBg = draw.Color{R: 0x88, G: 0x90, B: 0xa0, A: 70}
)

// numfmtRunColours are the toy run's variants: FP16, BF16, loss scaling.
func numfmtRunColours(th draw.Theme) [3]draw.Color {
	return [3]draw.Color{th.Hot, th.LinkActive, draw.Palette[3]}
}

// AppendNumfmt draws the step's picture (see NumfmtPhase).
func AppendNumfmt(dst draw.List, v NumfmtView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Rows) == 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	var head string
	var cur FormatRow
	for _, r := range v.Rows {
		if r.Current {
			cur = r
		}
	}
	switch v.Phase {
	case NumLayouts:
		head = w.Say("canvas.num.head_layouts")
	case NumOverflow:
		head = w.Say("canvas.num.head_overflow", "v", v.Value)
		for _, r := range v.Rows {
			if r.Name == "FP16" && r.Special {
				head = w.Say("canvas.num.head_overflow_inf", "v", v.Value, "max", units.Count(int64(r.Max)))
			}
		}
	case NumPrecision:
		head = w.Say("canvas.num.head_precision", "v", v.Value)
	case NumTraining:
		head = numfmtTrainHead(v)
	default:
		head = w.Say("canvas.num.head_memory", "params", v.Params)
		if len(v.Weights) >= 2 {
			head = w.Say("canvas.num.head_memory_n", "params", v.Params, "a", units.Bytes(v.Weights[0].Bytes), "b", units.Bytes(v.Weights[len(v.Weights)/2].Bytes))
		}
	}
	_ = cur
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)
	var legend [7]draw.LegendEntry
	legend[0] = draw.LegendEntry{Color: signOn, Hatch: false, Label: w.Say("canvas.num.sign")}
	legend[1] = draw.LegendEntry{Color: expOn, Hatch: false, Label: w.Say("canvas.num.exponent")}
	legend[2] = draw.LegendEntry{Color: mantOn, Hatch: false, Label: w.Say("canvas.num.mantissa")}
	legend[3] = draw.LegendEntry{Color: fieldBg, Hatch: false, Label: w.Say("canvas.num.zero_bit")}
	ne := 4
	if v.Phase == NumTraining {
		rc := numfmtRunColours(th)
		for _, c := range v.Curves {
			if ne < len(legend) {
				legend[ne] = draw.LegendEntry{Color: rc[c.Colour%3], Hatch: false, Label: c.Name}
				ne++
			}
		}
	}
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend[:ne]...)
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}
	switch v.Phase {
	case NumTraining:
		numfmtTraining(&p, v, sc, fs, area)
	case NumOverflow, NumPrecision, NumMemory:
		rh := area.H * 0.5
		if v.Phase == NumMemory {
			rh = area.H * 0.45
		}
		numfmtRows(&p, v, v.Rows, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: area.W, H: rh}, true)
		rest := draw.Rect{X: area.X, Y: area.Y + rh + fs*0.6, W: area.W, H: area.H - rh - fs*0.6}
		switch v.Phase {
		case NumOverflow:
			numfmtRange(&p, v, sc, fs, rest)
		case NumPrecision:
			numfmtErrors(&p, v, sc, fs, rest)
		default:
			numfmtWeights(&p, v, sc, fs, rest)
		}
	default:
		numfmtRows(&p, v, v.Rows, sc, fs, area, true)
	}
	return l
}

// numfmtTrainHead is the training step's headline at its playhead.
func numfmtTrainHead(v NumfmtView) string {
	w := v.Words
	var c LossCurve
	for _, cv := range v.Curves {
		if cv.Current {
			c = cv
		}
	}
	k := min(v.Upto, len(c.Loss)-1)
	if k < 0 {
		return ""
	}
	if v.Upto < v.Spike {
		return w.Say("canvas.num.head_before", "name", c.Name, "k", units.Count(int64(v.Upto)), "spike", units.Count(int64(v.Spike)))
	}
	switch {
	case math.IsNaN(c.Loss[k]):
		return w.Say("canvas.num.head_dead", "name", c.Name, "max", units.Count(int64(v.FP16Max)))
	case v.Spike < len(c.Skipped) && c.Skipped[v.Spike]:
		n := 0
		for _, s := range c.Skipped[:k+1] {
			if s {
				n++
			}
		}
		return w.Say("canvas.num.head_skipped", "name", c.Name, "n", units.Count(int64(n)))
	}
	return w.Say("canvas.num.head_lives", "name", c.Name)
}

// numfmtRows draws each format's bits in r, a row each: its name, its
// cells coloured by field (filled where the bit is 1), the fields named
// over the first row's, and the stored value at the row's end — lit
// where it is Inf or NaN.
func numfmtRows(p *draw.Placer, v NumfmtView, rows []FormatRow, sc, fs float32, r draw.Rect, headers bool) {
	th, w := v.Theme, v.Words
	if len(rows) == 0 {
		return
	}
	maxBits := 0
	nameW, valW := float32(0), float32(0)
	for _, row := range rows {
		maxBits = max(maxBits, len(strings.ReplaceAll(row.Bits, " ", "")))
		nameW = draw.Maxf(nameW, draw.TextWidth(row.Name, fs))
		valW = draw.Maxf(valW, draw.TextWidth("= "+row.Stored, fs))
	}
	nameW += fs * 0.6
	valW = draw.Maxf(valW, fs*5) + fs*0.4
	head := float32(0)
	if headers {
		head = fs * draw.LineHeight * 1.2
	}
	rowH := (r.H - head) / float32(len(rows))
	box := draw.Minf((r.W-nameW-valW-fs*0.8)/(float32(maxBits)+0.8), rowH*0.72)
	box = draw.Minf(box, fs*2)
	if box < 2*sc {
		return
	}
	bfs := draw.Clamp(box*0.62, draw.MinText*sc, fs)
	for i, row := range rows {
		y := r.Y + head + float32(i)*rowH + (rowH-box)/2
		if row.Current {
			p.L.Rect(r.X-fs*0.3, y-box*0.2, r.W+fs*0.6, box*1.4, th.Panel)
			p.L.Frame(r.X-fs*0.3, y-box*0.2, r.W+fs*0.6, box*1.4, 1.5*sc, th.LinkActive)
			p.L.Key(th.LinkActive, w.Say("canvas.num.picked"))
		}
		p.Text(r.X, y+(box-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, row.Name)
		x := r.X + nameW
		fields := strings.Fields(row.Bits)
		for fi, f := range fields {
			on := [3]draw.Color{signOn, expOn, mantOn}[min(fi, 2)]
			fx := x
			for _, b := range f {
				c := fieldBg
				if b == '1' {
					c = on
				}
				p.L.Rect(x, y, box-1*sc, box, c)
				if box*0.62 >= draw.MinText*sc {
					tc := th.Dim
					if b == '1' {
						tc = draw.Color{R: 255, G: 255, B: 255, A: 255}
					}
					p.L.Label(x+(box-1*sc)/2, y+(box-bfs*draw.LineHeight)/2, bfs, draw.AlignCenter, tc, string(b))
				}
				x += box
			}
			fw := x - fx
			// The field's name over the first row (the widest fields).
			if headers && i == 0 {
				key := [3]string{"canvas.num.sign", "canvas.num.exponent", "canvas.num.mantissa"}[min(fi, 2)]
				if fi == 0 { // the one-bit sign: its name ends over it
					p.First(fx+fw, r.Y, fs, draw.AlignRight, on, w.Say(key), w.Say(key+"_short"))
				} else {
					p.First(fx+fw/2, r.Y, fs, draw.AlignCenter, on, w.Say(key), w.Say(key+"_short"))
				}
			}
			// An exponent of all ones: Inf or NaN. Frame it.
			if fi == 1 && row.Special {
				p.L.Frame(fx-1*sc, y-1*sc, fw+1*sc, box+2*sc, 2*sc, th.Hot)
				p.L.Key(th.Hot, w.Say("canvas.num.all_ones"))
			}
			x += box * 0.4
		}
		vc := th.Text
		if row.Special {
			vc = th.Hot
		}
		p.Fit(r.X+r.W, y+(box-fs*draw.LineHeight)/2, fs, draw.AlignRight, vc, "= "+row.Stored, valW)
	}
}

// numfmtRange draws every format's largest number on a log axis of
// magnitude, with the value: where the value passes a format's largest,
// that format holds Inf.
func numfmtRange(p *draw.Placer, v NumfmtView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	val := math.Abs(v.X)
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.num.range_axis"), r.W)
	lo, hi := 0.0, 40.0
	at := func(x float64) float32 { return r.X + r.W*float32(draw.Frac((math.Log10(x)-lo)/(hi-lo))) }
	n := float32(len(v.Rows))
	rowH := draw.Minf((r.H-fs*draw.LineHeight*3)/n, fs*draw.LineHeight*1.5)
	top := r.Y + fs*draw.LineHeight*1.3
	for i, row := range v.Rows {
		y := top + float32(i)*rowH
		x := at(row.Max)
		c := th.Link
		if val > row.Max {
			c = th.Hot
		}
		p.L.Rect(r.X, y+rowH*0.2, x-r.X, rowH*0.6, c)
		lab := w.Say("canvas.num.max", "name", row.Name, "max", numfmtShort(row.Max))
		if !p.Text(x+fs*0.3, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, lab) {
			p.Text(x-fs*0.3, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignRight, th.Background, lab)
		}
	}
	p.L.Key(th.Hot, w.Say("canvas.num.too_small"))
	ay := top + n*rowH + fs*0.2
	p.L.Segment(r.X, ay, r.X+r.W, ay, 1*sc, th.Dim)
	for e := 0; e <= 40; e += 10 {
		x := at(math.Pow(10, float64(e)))
		p.L.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		p.Text(x, ay+fs*0.4, fs, draw.AlignCenter, th.Dim, "1e"+units.Count(int64(e)))
	}
	if val > 0 {
		x := at(val)
		p.L.Segment(x, top-fs*0.3, x, ay, 2*sc, th.Text)
		p.Text(x+fs*0.3, top-fs*draw.LineHeight-fs*0.1, fs, draw.AlignLeft, th.Text, v.Value)
		p.Reserve(draw.Rect{X: x - 2*sc, Y: top, W: 4 * sc, H: ay - top})
	}
}

// numfmtShort writes a format's largest number: 65,504 or 3.4e38.
func numfmtShort(x float64) string {
	if x < 1e6 {
		return units.Count(int64(x))
	}
	e := math.Floor(math.Log10(x))
	return units.Number(x/math.Pow(10, e)) + "e" + units.Count(int64(e))
}

// numfmtErrors draws each format's rounding error of the value on a log
// axis: FP32's millionths against FP8's tenths.
func numfmtErrors(p *draw.Placer, v NumfmtView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.num.error_axis"), r.W)
	lo, hi := -10.0, 0.0
	at := func(x float64) float32 { return r.X + r.W*float32(draw.Frac((math.Log10(x)-lo)/(hi-lo))) }
	n := float32(len(v.Rows))
	rowH := draw.Minf((r.H-fs*draw.LineHeight*3)/n, fs*draw.LineHeight*1.5)
	top := r.Y + fs*draw.LineHeight*1.3
	for i, row := range v.Rows {
		y := top + float32(i)*rowH
		if !(row.RelErr > 0) || math.IsInf(row.RelErr, 0) {
			lab := row.Name + " " + w.Say("canvas.num.exact")
			if row.Special {
				lab = row.Name + " = " + row.Stored
			}
			p.Text(r.X, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, lab)
			continue
		}
		x := at(row.RelErr)
		c := expOn
		if row.Current {
			c = th.LinkActive
		}
		p.L.Rect(r.X, y+rowH*0.2, x-r.X, rowH*0.6, c)
		lab := w.Say("canvas.num.error", "name", row.Name, "err", units.Percent(row.RelErr))
		if !p.Text(x+fs*0.3, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, lab) {
			p.Text(x-fs*0.3, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignRight, th.Background, lab)
		}
	}
	ay := top + n*rowH + fs*0.2
	p.L.Segment(r.X, ay, r.X+r.W, ay, 1*sc, th.Dim)
	for e := -10; e <= 0; e += 2 {
		x := at(math.Pow(10, float64(e)))
		p.L.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		p.Text(x, ay+fs*0.4, fs, draw.AlignCenter, th.Dim, units.Percent(math.Pow(10, float64(e))))
	}
}

// numfmtWeights draws a model's weights in each format on one linear
// axis, with one GPU's memory marked.
func numfmtWeights(p *draw.Placer, v NumfmtView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	if len(v.Weights) == 0 {
		return
	}
	maxB := 0.0
	for _, b := range v.Weights {
		maxB = math.Max(maxB, b.Bytes)
	}
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.num.weights_axis", "params", v.Params), r.W)
	labW := fs * 6
	bw := r.W - labW - fs*5
	n := float32(len(v.Weights))
	rowH := draw.Minf((r.H-fs*draw.LineHeight*2.6)/n, fs*draw.LineHeight*1.5)
	top := r.Y + fs*draw.LineHeight*1.3
	for i, b := range v.Weights {
		y := top + float32(i)*rowH
		p.Fit(r.X, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, b.Name, labW)
		x := bw * float32(b.Bytes/maxB)
		p.L.Rect(r.X+labW, y+rowH*0.2, x, rowH*0.6, expOn)
		p.Text(r.X+labW+x+fs*0.3, y+(rowH-fs*draw.LineHeight)/2, fs, draw.AlignLeft, th.Text, units.Bytes(b.Bytes))
	}
	if v.HBMBytes > 0 && v.HBMBytes < maxB {
		x := r.X + labW + bw*float32(v.HBMBytes/maxB)
		yb := top + n*rowH
		p.L.Segment(x, top, x, yb, 2*sc, th.Hot)
		p.L.Key(th.Hot, w.Say("canvas.num.one_gpu", "bytes", units.Bytes(v.HBMBytes)))
		p.Fit(x, yb+fs*0.2, fs, draw.AlignCenter, th.Hot, w.Say("canvas.num.one_gpu", "bytes", units.Bytes(v.HBMBytes)), r.W)
	}
}

// numfmtTraining draws the toy run in r: the current run's gradient at
// the playhead in FP16's and BF16's bits; every run's gradient size per
// step on a log axis under FP16's largest number; and the loss per step.
func numfmtTraining(p *draw.Placer, v NumfmtView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	rowsH := draw.Minf(r.H*0.26, fs*draw.LineHeight*5)
	if len(v.GradRows) > 0 && r.H > fs*14 {
		head := w.Say("canvas.num.grad_now", "k", units.Count(int64(v.GradStep)), "g", v.Grad)
		if v.GradStep < v.Upto {
			head = w.Say("canvas.num.grad_last", "k", units.Count(int64(v.GradStep)), "g", v.Grad)
		}
		p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Text, head, r.W)
		numfmtRows(p, v, v.GradRows, sc, fs, draw.Rect{X: r.X, Y: r.Y + fs*draw.LineHeight*1.1, W: r.W, H: rowsH - fs*draw.LineHeight*1.1}, false)
	} else {
		rowsH = 0
	}
	rest := draw.Rect{X: r.X, Y: r.Y + rowsH + fs*0.4, W: r.W, H: r.H - rowsH - fs*0.4}
	gh := rest.H * 0.52
	numfmtChart(p, v, sc, fs, draw.Rect{X: rest.X, Y: rest.Y, W: rest.W, H: gh}, true)
	numfmtChart(p, v, sc, fs, draw.Rect{X: rest.X, Y: rest.Y + gh + fs*0.4, W: rest.W, H: rest.H - gh - fs*0.4}, false)
}

// numfmtChart plots, against the training step, each run's gradient size
// (grad) or its loss on a log axis, up to the playhead; the spike and,
// for gradients, FP16's largest number marked.
func numfmtChart(p *draw.Placer, v NumfmtView, sc, fs float32, r draw.Rect, grad bool) {
	th, w := v.Theme, v.Words
	rc := numfmtRunColours(th)
	if r.H < fs*4 || v.Steps < 2 {
		return
	}
	title := w.Say("canvas.num.loss_axis")
	if grad {
		title = w.Say("canvas.num.grad_axis")
	}
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, title, r.W)
	yl := draw.TextWidth("1e-10", fs) + fs*0.5
	px, py := r.X+yl, r.Y+fs*draw.LineHeight*1.1
	pw, ph := r.W-yl, r.H-fs*draw.LineHeight*1.1-fs*draw.LineHeight*1.2
	if pw < fs*6 || ph < fs*2 {
		return
	}
	val := func(c LossCurve, s int) float64 {
		if grad {
			if s < len(c.Grad) {
				return math.Abs(c.Grad[s])
			}
			return math.NaN()
		}
		return c.Loss[s]
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range v.Curves {
		for s := 0; s < len(c.Loss); s++ {
			if x := val(c, s); x > 0 && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, math.Log10(x)), math.Max(hi, math.Log10(x))
			}
		}
	}
	if grad {
		hi = math.Max(hi, math.Log10(v.FP16Max)+0.5)
	}
	if lo > hi {
		return
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi == lo {
		hi++
	}
	at := func(step int, x float64) (float32, float32) {
		fx := float32(step) / float32(v.Steps-1)
		fy := float32((math.Log10(x) - lo) / (hi - lo))
		return px + pw*fx, py + ph*(1-fy)
	}
	p.L.Rect(px, py, pw, ph, th.Panel)
	p.L.Frame(px, py, pw, ph, 1*sc, th.Link)
	p.Text(px-fs*0.3, py-fs*0.5, fs, draw.AlignRight, th.Dim, "1e"+units.Count(int64(hi)))
	p.Text(px-fs*0.3, py+ph-fs*0.6, fs, draw.AlignRight, th.Dim, "1e"+units.Count(int64(lo)))
	// The spike, and FP16's ceiling.
	sx, _ := at(v.Spike, math.Pow(10, lo))
	p.L.Segment(sx, py, sx, py+ph, 1*sc, th.Dim)
	if grad && v.FP16Max > 0 {
		_, my := at(0, v.FP16Max)
		p.L.Segment(px, my, px+pw, my, 2*sc, th.Hot)
		p.L.Key(th.Hot, w.Say("canvas.num.fp16_max", "max", units.Count(int64(v.FP16Max))))
		p.Text(px+fs*0.3, my-fs*draw.LineHeight-fs*0.1, fs, draw.AlignLeft, th.Hot, w.Say("canvas.num.fp16_max", "max", units.Count(int64(v.FP16Max))))
	}
	p.Text(sx+fs*0.3, py+ph+fs*0.1, fs, draw.AlignLeft, th.Dim, w.Say("canvas.num.spike", "k", units.Count(int64(v.Spike))))
	p.Text(px+pw, py+ph+fs*0.1, fs, draw.AlignRight, th.Dim, w.Say("canvas.num.step", "k", units.Count(int64(v.Upto))))
	// The runs: the one the step is about on top and bold.
	for pass := 0; pass < 2; pass++ {
		for _, c := range v.Curves {
			if c.Current != (pass == 1) {
				continue
			}
			col := rc[c.Colour%3]
			wd := 1.5 * sc
			if c.Current {
				wd = 3 * sc
			} else {
				col = draw.WithAlpha(col, 150)
			}
			var lx, ly float32
			drawn := false
			for s := 0; s <= v.Upto && s < len(c.Loss); s++ {
				x := val(c, s)
				if math.IsNaN(x) || math.IsInf(x, 0) {
					if drawn && c.Current && !grad {
						p.Text(lx+fs*0.3, ly-fs*0.6, fs, draw.AlignLeft, rc[c.Colour%3], "NaN")
					}
					break
				}
				if x <= 0 {
					continue
				}
				cx, cy := at(s, x)
				if drawn {
					p.L.Segment(lx, ly, cx, cy, wd, col)
				}
				// Where the run's format could not hold the gradient.
				if grad && c.Current && s < len(c.Stored) && math.IsInf(c.Stored[s], 0) {
					dot := fs * 0.4
					if s != v.Spike {
						dot = fs * 0.2
					}
					p.L.Circle(cx, cy, dot, rc[c.Colour%3])
					lab := w.Say("canvas.num.inf")
					if s < len(c.Skipped) && c.Skipped[s] {
						lab = w.Say("canvas.num.skip")
					}
					// Named at the spike (loss scaling also skips its first
					// steps, while its scale settles: dots only).
					if s == v.Spike && !p.Text(cx+fs*0.5, cy-fs*0.6, fs, draw.AlignLeft, rc[c.Colour%3], lab) {
						p.Text(cx-fs*0.5, cy-fs*0.6, fs, draw.AlignRight, rc[c.Colour%3], lab)
					}
				}
				lx, ly, drawn = cx, cy, true
			}
		}
	}
	if v.Upto < v.Steps-1 {
		x, _ := at(v.Upto, math.Pow(10, lo))
		p.L.Segment(x, py, x, py+ph, 1.5*sc, th.Text)
	}
}
