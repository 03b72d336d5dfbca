package render

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// AttentionPoint is one sequence length: both implementations' HBM bytes.
type AttentionPoint struct {
	Seq             int
	Standard, Flash float64
}

// AttentionView is what the flash-attention picture needs.
type AttentionView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Points        []AttentionPoint
	Seq           int // the reader's sequence length, marked
}

// AppendAttention plots HBM traffic against sequence length on log-log
// axes: standard attention's curve climbs twice as steeply as
// FlashAttention's (N² against N), the reader's N marked with both values.
func AppendAttention(dst List, v AttentionView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Points) < 2 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	px, py := st.X+fs*5, st.Y+fs*2
	pw, ph := st.W-fs*7, st.H-fs*5
	if pw <= 0 || ph <= 0 {
		return l
	}
	xlo, xhi := math.Log2(float64(v.Points[0].Seq)), math.Log2(float64(v.Points[len(v.Points)-1].Seq))
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, p := range v.Points {
		ylo = math.Min(ylo, math.Log10(math.Min(p.Standard, p.Flash)))
		yhi = math.Max(yhi, math.Log10(math.Max(p.Standard, p.Flash)))
	}
	ylo, yhi = math.Floor(ylo), math.Ceil(yhi)
	if yhi <= ylo || xhi <= xlo {
		return l
	}
	at := func(seq int, bytes float64) (float32, float32) {
		fx := (math.Log2(float64(seq)) - xlo) / (xhi - xlo)
		fy := (math.Log10(bytes) - ylo) / (yhi - ylo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}
	for e := int(ylo); e <= int(yhi); e++ {
		_, y := at(v.Points[0].Seq, math.Pow(10, float64(e)))
		l.Segment(px, y, px+pw, y, 1*sc, th.Panel)
		l.Label(px-fs*0.4, y-fs*0.55, fs, AlignRight, th.Dim, units.Bytes(math.Pow(10, float64(e))))
	}
	for _, p := range v.Points {
		x, _ := at(p.Seq, math.Pow(10, ylo))
		l.Segment(x, py, x, py+ph, 1*sc, th.Panel)
		l.Label(x, py+ph+fs*0.3, fs, AlignCenter, th.Dim, seqLabel(p.Seq))
	}
	l.Frame(px, py, pw, ph, 1*sc, th.Dim)
	l.Label(px+pw, py+ph+fs*1.5, fs, AlignRight, th.Dim, "N")
	l.Label(px-fs*0.4, py-fs*1.7, fs, AlignLeft, th.Dim, "HBM bytes")
	curves := []struct {
		name  string
		col   Color
		bytes func(AttentionPoint) float64
	}{
		{"standard", th.Hot, func(p AttentionPoint) float64 { return p.Standard }},
		{"FlashAttention", th.Rim, func(p AttentionPoint) float64 { return p.Flash }},
	}
	for _, c := range curves {
		var lx, ly float32
		for i, p := range v.Points {
			x, y := at(p.Seq, c.bytes(p))
			if i > 0 {
				l.Segment(lx, ly, x, y, 3*sc, c.col)
			}
			l.Circle(x, y, 3.5*sc, c.col)
			lx, ly = x, y
		}
		l.Label(lx-fs*0.5, ly-fs*1.4, fs, AlignRight, c.col, c.name)
	}
	// The reader's N, with both values.
	if v.Seq > 0 {
		var std, fl float64
		for i := 1; i < len(v.Points); i++ {
			a, b := v.Points[i-1], v.Points[i]
			if v.Seq >= a.Seq && v.Seq <= b.Seq {
				// Interpolate on the log-log line between the neighbours.
				f := (math.Log2(float64(v.Seq)) - math.Log2(float64(a.Seq))) / (math.Log2(float64(b.Seq)) - math.Log2(float64(a.Seq)))
				std = math.Pow(10, math.Log10(a.Standard)+f*(math.Log10(b.Standard)-math.Log10(a.Standard)))
				fl = math.Pow(10, math.Log10(a.Flash)+f*(math.Log10(b.Flash)-math.Log10(a.Flash)))
			}
		}
		if std > 0 {
			x, ys := at(v.Seq, std)
			_, yf := at(v.Seq, fl)
			l.Segment(x, py, x, py+ph, 1.5*sc, th.LinkActive)
			l.Circle(x, ys, 6*sc, th.Hot)
			l.Circle(x, yf, 6*sc, th.Rim)
			l.Label(x+fs*0.5, ys-fs*0.5, fs, AlignLeft, th.Hot, units.Bytes(std))
			l.Label(x+fs*0.5, yf-fs*0.5, fs, AlignLeft, th.Rim, units.Bytes(fl))
		}
	}
	return l
}

// seqLabel writes a sequence length: 256, 1k, 64k.
func seqLabel(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "k"
	}
	return strconv.Itoa(n)
}
