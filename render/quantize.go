package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
)

// QuantWindow is what one scale lets a block of values hold: magnitudes up
// to Top (the element format's largest × the scale), full precision down
// to MinNormal, fewer and fewer bits (subnormals) down to Flush, below
// which a value is stored as zero.
type QuantWindow struct {
	Top, MinNormal, Flush float64
}

// QuantRow is one format in the bytes-and-error table.
type QuantRow struct {
	Name    string
	Bytes   float64 // per value, scales included
	Error   float64 // relative RMSE on the ordinary values
	Bits    string  // "8.25 bits"
	ErrText string  // "2.6%"
	Current bool
}

// QuantizeView is the fp8-training picture: a strip of a tensor's values
// on a log scale, each block's FP8 (or FP4) window over them, and beside
// it every format's bytes a value and error on one scale each.
type QuantizeView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Title         string
	X, Q          []float64 // the strip's values and what the recipe stores
	Outlier       []bool
	Block         int // values a window; len(X) for one scale
	Windows       []QuantWindow
	Rows          []QuantRow
	// Pending: the question is open: the windows, the values' fates and
	// the current row's error stay hidden.
	Pending bool
	Said    QuantizeWords
}

// QuantizeWords are the picture's words in the reader's language.
type QuantizeWords struct {
	YAxis, XAxis, Flushed, OutlierLabel string
	// Tiles, when set, draws DeepSeek-V3's two tilings in a corner free of
	// values: a weight matrix's 128×128 blocks and an activation's 1×128
	// tiles, each labelled.
	TilesWeights, TilesActivations                                          string
	KeyWindow, KeySub, KeyKept, KeyCoarse, KeyFlushed, KeyOutlier, KeyValue string
	TableTitle, BytesHead, ErrorHead, Hidden                                string
}

// Log axis of magnitudes, log10: 10^-3 … 10^6 in every step.
const (
	qzLo, qzHi = -3.0, 6.0
)

// quantColours: the window, kept values, coarse (subnormal) values.
func quantColours(th draw.Theme) (window, kept, coarse draw.Color) {
	return th.Rim, th.LinkActive, draw.Palette[1]
}

// AppendQuantize draws the strip and the table.
func AppendQuantize(dst draw.List, v QuantizeView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.X) == 0 || len(v.Q) != len(v.X) {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	s := v.Said
	winC, keptC, coarseC := quantColours(th)
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, v.Title)

	entries := []draw.LegendEntry{{Color: keptC, Hatch: false, Label: s.KeyKept}, {Color: coarseC, Hatch: false, Label: s.KeyCoarse}, {Color: th.Dim, Hatch: false, Label: s.KeyFlushed},
		{Color: th.Hot, Hatch: false, Label: s.KeyOutlier}, {Color: draw.WithAlpha(winC, 90), Hatch: false, Label: s.KeyWindow}, {Color: draw.WithAlpha(winC, 50), Hatch: false, Label: s.KeySub}}
	if v.Pending {
		entries = []draw.LegendEntry{{Color: th.Dim, Hatch: false, Label: s.KeyValue}, {Color: th.Hot, Hatch: false, Label: s.KeyOutlier}}
	}
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, entries...)
	body := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.5 - y}

	// The table beside the strip on a wide stage, under it on a tall one,
	// where it gives up rows (FP32 and BF16 first, the step's own last)
	// before the strip drops below half the body.
	rowH := fs * draw.LineHeight * 1.6
	rows := v.Rows
	head := 2 // the table's title and its header row
	chart, table := body, draw.Rect{}
	if tw := draw.Clamp(body.W*0.36, fs*17, fs*24); body.W > body.H*1.25 && body.W-tw-fs >= fs*24 {
		chart.W = body.W - tw - fs
		table = draw.Rect{X: body.X + body.W - tw, Y: body.Y + fs*draw.LineHeight, W: tw, H: rowH * float32(len(rows)+2)}
	} else {
		rowH = fs * draw.LineHeight * 1.5
		head = 1 // no title: the header row only
		fit := int((body.H-draw.Maxf(body.H*0.62, fs*10))/rowH) - head
		if fit < len(rows) && len(rows) > 4 {
			rows = rows[len(rows)-4:]
		}
		if fit < len(rows) {
			rows = nil
			for _, r := range v.Rows {
				if r.Current && fit >= 1 {
					rows = append(rows, r)
				}
			}
		}
		tableH := rowH * float32(len(rows)+head)
		if len(rows) == 0 {
			tableH = 0
		}
		chart.H = body.H - tableH - fs*0.5
		table = draw.Rect{X: body.X, Y: body.Y + chart.H + fs*0.5, W: body.W, H: tableH}
	}
	// The captions under the plot may run under the table when it ends
	// above them.
	right := body.X + body.W
	if table.Y < chart.Y+chart.H && table.Y+table.H > chart.Y+chart.H-fs*draw.LineHeight*4.6 {
		right = chart.X + chart.W
	}
	quantStrip(&p, th, v, chart, right, fs, sc)
	if len(rows) > 0 {
		quantTable(&p, th, v, rows, head, table, fs, sc, rowH)
	}
	return l
}

func quantStrip(p *draw.Placer, th draw.Theme, v QuantizeView, r draw.Rect, right, fs, sc float32) {
	s := v.Said
	winC, keptC, coarseC := quantColours(th)
	yLab := draw.TextWidth("0.001", fs) + fs*0.6
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, s.YAxis, r.W)
	px, py := r.X+yLab, r.Y+fs*draw.LineHeight*1.4
	pw, ph := r.W-yLab, r.H-fs*draw.LineHeight*4.6-(py-r.Y)
	if pw < fs*6 || ph < fs*5 {
		return
	}
	yOf := func(m float64) float32 {
		f := (math.Log10(m) - qzLo) / (qzHi - qzLo)
		return py + ph*(1-float32(draw.ClampF(f, 0, 1)))
	}
	n := len(v.X)
	dx := pw / float32(n)
	// Decades.
	for e := int(qzLo); e <= int(qzHi); e++ {
		yy := yOf(math.Pow(10, float64(e)))
		p.L.Segment(px, yy, px+pw, yy, 1*sc, draw.WithAlpha(th.Dim, 50))
		p.Text(px-fs*0.3, yy-fs*0.55, fs, draw.AlignRight, th.Dim, quantDecades[e-int(qzLo)])
	}
	// The windows, a block each, and the blocks' edges.
	block := max(v.Block, 1)
	if !v.Pending {
		for b, w := range v.Windows {
			x0 := px + float32(b*block)*dx
			bw := float32(min(block, n-b*block)) * dx
			top, mid, bot := yOf(w.Top), yOf(w.MinNormal), yOf(w.Flush)
			p.L.Rect(x0, top, bw, mid-top, draw.WithAlpha(winC, 90))
			p.L.Rect(x0, mid, bw, bot-mid, draw.WithAlpha(winC, 50))
			p.L.Segment(x0, top, x0+bw, top, 1.5*sc, winC)
		}
	}
	for b := block; b < n; b += block {
		x := px + float32(b)*dx
		p.L.Segment(x, py, x, py+ph, 1*sc, draw.WithAlpha(th.Text, 110))
	}
	p.L.Frame(px, py, pw, ph, 1*sc, th.Dim)
	if s.TilesWeights != "" && !v.Pending {
		quantTiles(p, th, v, draw.Rect{X: px, Y: py, W: pw, H: ph}, yOf, fs, sc)
	}
	// The values: stored, coarse (a subnormal), flushed to zero (hollow),
	// the outlier large.
	rad := draw.Clamp(dx*0.45, 1.2*sc, 3*sc)
	flushed := 0
	for i, x := range v.X {
		m := math.Abs(x)
		if m == 0 {
			continue
		}
		cx, cy := px+(float32(i)+0.5)*dx, yOf(m)
		w := v.Windows[min(i/block, len(v.Windows)-1)]
		switch {
		case v.Outlier[i]:
			p.L.Circle(cx, cy, rad*2.2, th.Hot)
			p.Reserve(draw.Rect{X: cx - rad*2.2, Y: cy - rad*2.2, W: rad * 4.4, H: rad * 4.4})
			_ = p.Text(cx+rad*3, cy+fs*0.2, fs, draw.AlignLeft, th.Hot, s.OutlierLabel) || p.Text(cx-rad*3, cy+fs*0.2, fs, draw.AlignRight, th.Hot, s.OutlierLabel)
		case v.Pending:
			p.L.Circle(cx, cy, rad, th.Dim)
		case v.Q[i] == 0:
			flushed++
			p.L.Frame(cx-rad, cy-rad, 2*rad, 2*rad, 1*sc, th.Dim)
		case m < w.MinNormal:
			p.L.Circle(cx, cy, rad, coarseC)
		default:
			p.L.Circle(cx, cy, rad, keptC)
		}
	}
	h := p.Wrap(px, py+ph+fs*0.3, fs, draw.AlignLeft, th.Dim, s.XAxis, right-px, 2)
	if !v.Pending {
		p.Wrap(px, py+ph+fs*0.3+h, fs, draw.AlignLeft, th.Text, s.Flushed, right-px, 2)
	}
}

func quantTable(p *draw.Placer, th draw.Theme, v QuantizeView, rows []QuantRow, head int, r draw.Rect, fs, sc, rowH float32) {
	s := v.Said
	_, keptC, _ := quantColours(th)
	if r.W < fs*12 {
		return
	}
	if head == 2 {
		p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Text, s.TableTitle, r.W)
	}
	nameW := fs * 4.2
	for _, row := range rows {
		nameW = max(nameW, draw.TextWidth(row.Name, fs)+fs*0.4)
	}
	colW := (r.W - nameW) / 2
	hy := r.Y + rowH*float32(head-1)
	p.Fit(r.X+nameW, hy, fs, draw.AlignLeft, th.Dim, s.BytesHead, colW-fs*0.3)
	p.Fit(r.X+nameW+colW, hy, fs, draw.AlignLeft, th.Dim, s.ErrorHead, colW)
	maxB, maxE := 0.0, 0.0
	for _, row := range v.Rows {
		maxB, maxE = math.Max(maxB, row.Bytes), math.Max(maxE, row.Error)
	}
	barW := colW - fs*0.5
	for i, row := range rows {
		y := r.Y + rowH*float32(i+head)
		c := th.Dim
		if row.Current {
			c = th.Text
			p.L.Rect(r.X-fs*0.2, y-fs*0.1, r.W+fs*0.2, rowH-fs*0.05, draw.WithAlpha(keptC, 40))
		}
		p.Fit(r.X, y, fs, draw.AlignLeft, c, row.Name, nameW-fs*0.3)
		bh := fs * 0.4
		by := y + fs*draw.LineHeight + fs*0.05
		if maxB > 0 {
			bw := barW * float32(row.Bytes/maxB)
			p.L.Rect(r.X+nameW, by, bw, bh, keptC)
		}
		p.Fit(r.X+nameW, y, fs, draw.AlignLeft, c, row.Bits, colW-fs*0.3)
		ex := r.X + nameW + colW
		if v.Pending && row.Current {
			p.Fit(ex, y, fs, draw.AlignLeft, th.Hot, s.Hidden, colW)
			continue
		}
		if maxE > 0 {
			p.L.Rect(ex, by, barW*float32(row.Error/maxE), bh, th.Hot)
		}
		p.Fit(ex, y, fs, draw.AlignLeft, c, row.ErrText, colW)
	}
	p.L.Key(keptC, s.BytesHead)
	p.L.Key(th.Hot, s.ErrorHead)
	p.L.Key(draw.WithAlpha(keptC, 40), s.TableTitle)
}

// quantDecades label 10^-3 … 10^6.
var quantDecades = [...]string{"0.001", "0.01", "0.1", "1", "10", "100", "1,000", "10k", "100k", "1M"}

// quantTiles draws, above the values of the block without the outlier,
// a weight matrix of 4×4 blocks of 128×128 (one shaded: one scale) and an
// activation row of 1×128 tiles, with their labels.
func quantTiles(p *draw.Placer, th draw.Theme, v QuantizeView, plot draw.Rect, yOf func(float64) float32, fs, sc float32) {
	winC, _, _ := quantColours(th)
	half := plot.W / 2
	x0, b := plot.X+half, len(v.Windows)-1 // the second block, unless the outlier is there
	for i, o := range v.Outlier {
		if o && i >= len(v.X)/2 {
			x0, b = plot.X, 0
		}
	}
	top := plot.Y + fs*0.6
	bottom := yOf(v.Windows[b].Top) // above its band
	for i, x := range v.X {
		if i/max(v.Block, 1) == b {
			bottom = draw.Minf(bottom, yOf(math.Abs(x))) // and its values
		}
	}
	g := draw.Minf(fs*1.1, (bottom-top-fs*draw.LineHeight*2.6)/4.5)
	g = draw.Maxf(g, fs*0.6)
	lw := half - 4*g - fs*1.5
	if g < fs*0.5 || lw < fs*7 || top+4*g+fs*(0.6+draw.LineHeight*2) > bottom {
		return // no room for the labels: the narration says it
	}
	x := x0 + fs*0.8
	for r := range 4 {
		for c := range 4 {
			col := draw.WithAlpha(th.Dim, 60)
			if r == 1 && c == 2 {
				col = draw.WithAlpha(winC, 200)
			}
			p.L.Rect(x+float32(c)*g+sc, top+float32(r)*g+sc, g-2*sc, g-2*sc, col)
		}
	}
	p.Reserve(draw.Rect{X: x, Y: top, W: 4 * g, H: 4 * g})
	p.Wrap(x+4*g+fs*0.5, top+g, fs, draw.AlignLeft, th.Text, v.Said.TilesWeights, lw, 2)
	ay := top + 4*g + fs*0.6
	for c := range 8 {
		col := draw.WithAlpha(th.Dim, 60)
		if c == 5 {
			col = draw.WithAlpha(winC, 200)
		}
		p.L.Rect(x+float32(c)*g/2+sc, ay, g/2-2*sc, g*0.45, col)
	}
	p.Reserve(draw.Rect{X: x, Y: ay, W: 4 * g, H: g * 0.45})
	p.Wrap(x+4*g+fs*0.5, ay+g*0.22-fs*0.6, fs, draw.AlignLeft, th.Text, v.Said.TilesActivations, lw, 2)
}
