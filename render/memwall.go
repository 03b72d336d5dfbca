package render

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// MemwallBar is one kernel of the memory-wall comparison.
type MemwallBar struct {
	Name    string // short label: "naive", "16×16", "32×32", "tensor"
	Bytes   float64
	TFLOPS  float64
	Current bool
	Tile    int // tile edge staged in shared memory (0: none, naive)
}

// MemwallView is what the memory-wall picture needs.
type MemwallView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Bars          []MemwallBar
	PeakTFLOPS    float64
	// Step is the k-step on screen (0…Steps) and Progress its fraction
	// done, for the animation of operands moving.
	Step, Steps int
	Progress    float64
}

// AppendMemwall draws, on top, where the current kernel's operands travel
// — HBM (the warehouse), shared memory (the desk), the SM's cores: a naive
// kernel sends every operand straight from HBM; a tiled one lifts a tile
// to the desk once and reuses it; and below, all four kernels' HBM bytes
// and TFLOP/s as bars on log scales against the peak.
func AppendMemwall(dst List, v MemwallView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Bars) == 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	pad := fs
	var cur MemwallBar
	for _, b := range v.Bars {
		if b.Current {
			cur = b
		}
	}
	// Top: the three levels.
	topH := (st.H - 3*pad) * 0.48
	bandH := topH / 5
	x0, w := st.X+pad+fs*4, st.W-2*pad-fs*4
	levels := []struct {
		name string
		y    float32
		col  Color
	}{
		{"HBM", st.Y + pad, th.Panel},
		{"SRAM", st.Y + pad + bandH*2, th.Panel},
		{"SM", st.Y + pad + bandH*4, th.GPU},
	}
	for _, lv := range levels {
		l.Rect(x0, lv.y, w, bandH, lv.col)
		l.Frame(x0, lv.y, w, bandH, 1*sc, th.Link)
		l.Label(st.X+pad, lv.y+bandH/2-fs/2, fs, AlignLeft, th.Dim, lv.name)
	}
	hbmY, sramY, smY := levels[0].y+bandH, levels[1].y, levels[2].y
	// The SMs busy for the share of the peak the kernel reaches, waiting
	// the rest of the time.
	if v.PeakTFLOPS > 0 {
		busy := float32(math.Min(1, cur.TFLOPS/v.PeakTFLOPS))
		l.Rect(x0, smY, maxf(w*busy, 1*sc), bandH, th.Rim)
		l.Label(x0+w-fs*0.3, smY+bandH/2-fs*0.45, fs*0.9, AlignRight, th.Text, "busy "+units.Percent(float64(busy)))
	}
	p := float32(math.Max(0, math.Min(1, v.Progress)))
	ps := clamp(bandH*0.35, 4*sc, 14*sc)
	if cur.Tile == 0 {
		// Naive: every operand straight from HBM to the cores.
		for i := 0; i < 12; i++ {
			x := x0 + w*(float32(i)+0.5)/12
			f := float32(math.Mod(float64(p)+float64(i)*0.37, 1))
			y := hbmY + (smY-hbmY)*f
			l.Segment(x, hbmY, x, smY, 1*sc, th.Hot)
			l.Rect(x-ps/2, y-ps/2, ps, ps, th.Hot)
		}
		l.Label(x0+w, smY+bandH+fs*0.2, fs*0.9, AlignRight, th.Hot, "HBM → SM: every multiply")
	} else {
		// Tiled: a tile rises to the desk in the first 40% of the step,
		// then the cores reuse it Tile times.
		tile := clamp(bandH*float32(math.Log2(float64(cur.Tile)))/7, ps, bandH*1.6)
		tx := x0 + w/2 - tile/2
		if p < 0.4 {
			f := p / 0.4
			l.Rect(tx, hbmY-tile/2+(sramY+bandH/2-hbmY)*f, tile, tile, th.LinkActive)
		} else {
			l.Rect(tx, sramY+bandH/2-tile/2, tile, tile, th.LinkActive)
			f := (p - 0.4) / 0.6
			for i := 0; i < 8; i++ {
				x := x0 + w*(float32(i)+0.5)/8
				y := sramY + bandH + (smY-sramY-bandH)*float32(math.Mod(float64(f)+float64(i)*0.13, 1))
				l.Segment(tx+tile/2, sramY+bandH, x, smY, 1*sc, th.Rim)
				l.Rect(x-ps/3, y-ps/3, ps*0.66, ps*0.66, th.Rim)
			}
		}
		l.Label(x0+w, smY+bandH+fs*0.2, fs*0.9, AlignRight, th.Rim, "tile "+strconv.Itoa(cur.Tile)+"×"+strconv.Itoa(cur.Tile)+": reused ×"+strconv.Itoa(cur.Tile))
	}
	l.Label(x0, smY+bandH+fs*0.2, fs*0.9, AlignLeft, th.Dim, "k "+strconv.Itoa(v.Step)+"/"+strconv.Itoa(v.Steps))

	// Bottom: bytes and TFLOP/s per kernel, log scales.
	by := st.Y + pad*2 + topH + fs*1.5
	bh := st.Y + st.H - pad - by
	half := (w - pad) / 2
	drawLogBars(&l, th, sc, fs, Rect{x0, by, half, bh}, v.Bars, "HBM bytes", func(b MemwallBar) float64 { return b.Bytes }, units.Bytes, 0)
	drawLogBars(&l, th, sc, fs, Rect{x0 + half + pad, by, half, bh}, v.Bars, "TFLOP/s", func(b MemwallBar) float64 { return b.TFLOPS },
		func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }, v.PeakTFLOPS)
	return l
}

// drawLogBars draws one bar a kernel, its length on a log10 scale, the
// current kernel in the active colour; peak > 0 adds a line there.
func drawLogBars(l *List, th Theme, sc, fs float32, r Rect, bars []MemwallBar, title string, val func(MemwallBar) float64, label func(float64) string, peak float64) {
	l.Label(r.X, r.Y-fs*1.4, fs, AlignLeft, th.Dim, title)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bars {
		if v := val(b); v > 0 {
			lo, hi = math.Min(lo, math.Log10(v)), math.Max(hi, math.Log10(v))
		}
	}
	if peak > 0 {
		hi = math.Max(hi, math.Log10(peak))
	}
	if lo > hi {
		return
	}
	lo, hi = math.Floor(lo)-0.5, math.Ceil(hi)
	rowH := r.H / float32(len(bars))
	nameW := fs * 4.5
	span := r.W - nameW - fs*4 // room for the value after the longest bar
	at := func(v float64) float32 { return span * float32((math.Log10(v)-lo)/(hi-lo)) }
	for i, b := range bars {
		y := r.Y + float32(i)*rowH
		col := th.Link
		if b.Current {
			col = th.LinkActive
		}
		l.Label(r.X, y+rowH*0.2, fs*0.85, AlignLeft, th.Text, b.Name)
		if v := val(b); v > 0 {
			bw := at(v)
			l.Rect(r.X+nameW, y+rowH*0.15, bw, rowH*0.6, col)
			l.Label(r.X+nameW+bw+fs*0.3, y+rowH*0.2, fs*0.8, AlignLeft, th.Dim, label(v))
		}
	}
	if peak > 0 {
		x := r.X + nameW + at(peak)
		l.Segment(x, r.Y, x, r.Y+r.H, 1.5*sc, th.Hot)
		l.Label(x, r.Y+r.H+fs*0.1, fs*0.8, AlignCenter, th.Hot, "peak")
	}
}
