package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// AttentionPoint is one sequence length: both implementations' HBM bytes,
// and how many times FlashAttention reads K and V from HBM.
type AttentionPoint struct {
	Seq             int
	Standard, Flash float64
	KVReads         int
}

// AttentionPhase is what a flash-attention step shows.
type AttentionPhase uint8

// The flash-attention pictures.
const (
	AttScores  AttentionPhase = iota // the N×N score matrix beside Q and K, and its trips through HBM
	AttTraffic                       // HBM bytes against N, the L2 step marked
	AttSpeed                         // both dataflows, their traffic and times on one axis
	AttSame                          // the online softmax: one row tile by tile, the same answer
	AttAll                           // free play: the dataflows and the chart
)

// AttentionView is what the flash-attention picture needs.
type AttentionView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Phase         AttentionPhase
	Points        []AttentionPoint
	// The reader's shape: sequence N (marked on the chart), head size d.
	Seq, HeadDim, Heads, Batch int
	// At the reader's shape: the score matrices' bytes, each
	// implementation's HBM traffic and time.
	ScoreBytes, StdBytes, FlashBytes float64
	StdTimeS, FlashTimeS             float64
	L2Bytes                          float64
	MaxDiff                          float64 // the engine's check, tiled against direct
}

// attentionColours: standard attention, FlashAttention, Q, K and V.
func attentionColours(th draw.Theme) (std, flash, q, k, v draw.Color) {
	return th.Hot, th.Rim, draw.Palette[0], draw.Palette[3], draw.Palette[1]
}

// AppendAttention draws the step's picture (see AttentionPhase).
func AppendAttention(dst draw.List, v AttentionView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Points) < 2 || v.Seq < 1 || v.HeadDim < 1 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	stdC, flC, qC, kC, vC := attentionColours(th)
	var head string
	switch v.Phase {
	case AttScores:
		head = w.Say("canvas.att.head_scores", "n", units.Count(int64(v.Seq)), "bytes", units.Bytes(v.ScoreBytes))
	case AttTraffic:
		s, f, _ := attAt(v.Points, v.Seq)
		head = w.Say("canvas.att.head_traffic", "n", units.Count(int64(v.Seq)), "std", units.Bytes(s), "flash", units.Bytes(f))
	case AttSpeed:
		head = w.Say("canvas.att.head_speed", "ratio", units.Ratio(w.Lang, v.StdTimeS/v.FlashTimeS), "bytes", units.Ratio(w.Lang, v.StdBytes/v.FlashBytes))
	case AttSame:
		head = w.Say("canvas.att.head_same", "diff", attSci(v.MaxDiff))
	default:
		head = w.Say("canvas.att.head_try", "n", units.Count(int64(v.Seq)), "std", units.Bytes(v.StdBytes), "flash", units.Bytes(v.FlashBytes))
	}
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)
	var legend [6]draw.LegendEntry
	ne := 0
	switch v.Phase {
	case AttTraffic:
		legend[0], legend[1] = draw.LegendEntry{Color: stdC, Hatch: false, Label: w.Say("canvas.att.standard")}, draw.LegendEntry{Color: flC, Hatch: false, Label: w.Say("canvas.att.flash")}
		ne = 2
	case AttSame:
		legend[0], legend[1] = draw.LegendEntry{Color: kC, Hatch: false, Label: w.Say("canvas.att.scores_row")}, draw.LegendEntry{Color: flC, Hatch: false, Label: w.Say("canvas.att.running_max")}
		legend[2], legend[3] = draw.LegendEntry{Color: stdC, Hatch: false, Label: w.Say("canvas.att.direct")}, draw.LegendEntry{Color: qC, Hatch: false, Label: w.Say("canvas.att.tiled")}
		ne = 4
	default:
		legend[0], legend[1], legend[2] = draw.LegendEntry{Color: qC, Hatch: false, Label: "Q"}, draw.LegendEntry{Color: kC, Hatch: false, Label: "K"}, draw.LegendEntry{Color: vC, Hatch: false, Label: "V"}
		legend[3], legend[4] = draw.LegendEntry{Color: stdC, Hatch: false, Label: w.Say("canvas.att.scores")}, draw.LegendEntry{Color: flC, Hatch: false, Label: w.Say("canvas.att.flash_block")}
		ne = 5
	}
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend[:ne]...)
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}
	switch v.Phase {
	case AttTraffic:
		attChart(&p, v, sc, fs, area)
	case AttSame:
		attSoftmax(&p, v, sc, fs, area)
	case AttAll:
		if area.W > area.H*1.4 {
			attFlows(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: area.W * 0.55, H: area.H}, true)
			attChart(&p, v, sc, fs, draw.Rect{X: area.X + area.W*0.55 + pad, Y: area.Y, W: area.W*0.45 - pad, H: area.H})
		} else {
			h := area.H * 0.55
			attFlows(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: area.W, H: h}, true)
			attChart(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y + h + fs*0.5, W: area.W, H: area.H - h - fs*0.5})
		}
	default:
		attFlows(&p, v, sc, fs, area, v.Phase == AttSpeed)
	}
	return l
}

// attSci writes a small number as "7.77e-16".
func attSci(x float64) string {
	if x == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(x))))
	return units.Number(x/math.Pow(10, float64(e))) + "e" + strconv.Itoa(e)
}

// attAt is both curves at sequence n, interpolated on the log-log line
// between the sweep's points; the FlashAttention K/V reads of the point
// at or below.
func attAt(pts []AttentionPoint, n int) (std, fl float64, reads int) {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if n >= a.Seq && n <= b.Seq {
			f := (math.Log2(float64(n)) - math.Log2(float64(a.Seq))) / (math.Log2(float64(b.Seq)) - math.Log2(float64(a.Seq)))
			std = math.Pow(10, math.Log10(a.Standard)+f*(math.Log10(b.Standard)-math.Log10(a.Standard)))
			fl = math.Pow(10, math.Log10(a.Flash)+f*(math.Log10(b.Flash)-math.Log10(a.Flash)))
			reads = a.KVReads
			if n == b.Seq {
				reads = b.KVReads
			}
			return
		}
	}
	return
}

// attFlows draws both dataflows side by side in r. Standard: Q, K, V in
// HBM with the N×N scores S and probabilities P beside them, at one
// scale, and the four trips S and P make; FlashAttention: only Q, K, V
// and O in HBM, a block of Q on the chip with K and V streaming past it
// and the block of scores that never leaves. Under each, its HBM
// traffic on one scale; with times, both runs on one time axis.
func attFlows(p *draw.Placer, v AttentionView, sc, fs float32, r draw.Rect, times bool) {
	th, w := v.Theme, v.Words
	stdC, flC, qC, kC, vC := attentionColours(th)
	gap := fs * 1.5
	cw := (r.W - gap) / 2
	meterH := fs * draw.LineHeight * 2.4
	if times {
		meterH += fs * draw.LineHeight * 2.4
	}
	h := r.H - meterH
	if h < fs*8 || cw < fs*8 {
		return
	}
	n, d := float64(v.Seq), float64(v.HeadDim)
	for side := 0; side < 2; side++ {
		x := r.X + float32(side)*(cw+gap)
		name := w.Say("canvas.att.standard")
		col := stdC
		if side == 1 {
			name, col = w.Say("canvas.att.flash"), flC
		}
		p.Fit(x, r.Y, fs, draw.AlignLeft, col, name, cw)
		top := r.Y + fs*draw.LineHeight*1.2
		hbmH := (h - fs*draw.LineHeight*1.2) * 0.55
		chipY := top + hbmH + fs*draw.LineHeight*2.2
		chipH := r.Y + h - chipY
		p.L.Rect(x, top, cw, hbmH, th.Panel)
		p.L.Frame(x, top, cw, hbmH, 1*sc, th.Dim)
		p.Fit(x+fs*0.3, top+fs*0.2, fs, draw.AlignLeft, th.Dim, w.Say("canvas.att.hbm"), cw-fs*0.6)
		p.L.Rect(x, chipY, cw, chipH, th.GPU)
		p.L.Frame(x, chipY, cw, chipH, 1*sc, th.Rim)
		p.Fit(x+fs*0.3, chipY+chipH-fs*draw.LineHeight*1.1, fs, draw.AlignLeft, th.Dim, w.Say("canvas.att.sram"), cw-fs*0.6)
		p.L.Key(th.Rim, w.Say("canvas.att.sram"))
		// The matrices in HBM, at one scale: N rows tall; Q, K, V d wide.
		// S is N × N and Q, K, V, O are N × d, at one scale: the column
		// must hold S, P and four strips side by side.
		mh := draw.Minf(hbmH-fs*draw.LineHeight*2.2, (cw-fs*4.4)/(2+4*float32(d/n)))
		my := top + fs*draw.LineHeight*1.2
		unit := mh / float32(n) // px a row
		strip := draw.Maxf(float32(d)*unit, 2*sc)
		mx := x + fs*0.4
		mats := []struct {
			name string
			w    float32
			c    draw.Color
		}{{"Q", strip, qC}, {"K", strip, kC}, {"V", strip, vC}, {"O", strip, th.Dim}}
		if side == 0 {
			sq := mh
			mats = append(mats[:3], struct {
				name string
				w    float32
				c    draw.Color
			}{"S", sq, stdC}, struct {
				name string
				w    float32
				c    draw.Color
			}{"P", sq, draw.WithAlpha(stdC, 170)}, mats[3])
		}
		for _, m := range mats {
			hh := mh
			if m.w > strip {
				hh = m.w
			}
			p.L.Rect(mx, my, m.w, hh, m.c)
			p.Text(mx+m.w/2, my+hh+fs*0.1, fs, draw.AlignCenter, th.Text, m.name)
			mx += m.w + fs*0.6
		}
		// The chip: what is computed there.
		cx := x + fs*0.6
		cy := chipY + fs*0.4
		ch := chipH - fs*draw.LineHeight*1.4
		if side == 0 {
			// A kernel at a time: S computed, sent to HBM, read back for
			// the softmax, P sent, read back for P·V.
			trips := []string{w.Say("canvas.att.write_s"), w.Say("canvas.att.read_s"), w.Say("canvas.att.write_p"), w.Say("canvas.att.read_p")}
			ax := x + cw*0.55
			for i, t := range trips {
				tx := ax + float32(i)*cw*0.1
				up := i%2 == 0
				if up {
					draw.Arrow(p.L, tx, chipY, tx, top+hbmH, 3*sc, fs*0.5, stdC)
				} else {
					draw.Arrow(p.L, tx, top+hbmH, tx, chipY, 3*sc, fs*0.5, stdC)
				}
				_ = t
			}
			p.Wrap(ax-fs*0.3, top+hbmH+fs*0.2, fs, draw.AlignRight, stdC, w.Say("canvas.att.four_trips", "bytes", units.Bytes(v.ScoreBytes)), cw*0.55-fs, 2)
			// S computed on the chip in one piece, as large as it is.
			bs := draw.Minf(ch, cw*0.3)
			if bs > 4*sc {
				p.L.Rect(cx, cy, bs, bs, draw.WithAlpha(stdC, 120))
				p.Wrap(cx+bs+fs*0.4, cy, fs, draw.AlignLeft, th.Text, w.Say("canvas.att.one_kernel_each"), x+cw-cx-bs-fs, 3)
			}
		} else {
			// A block of Q rows on the chip; K and V tiles streaming past.
			br := float32(128) * unit
			bq := draw.Clamp(br, 3*sc, ch)
			p.L.Rect(cx, cy, strip, bq, qC)
			p.L.Rect(cx+strip+fs*0.4, cy, bq, bq, flC) // Br × Bc scores, never written
			kx := cx + strip + bq + fs
			for j := 0; j < 4; j++ {
				tx := kx + float32(j)*(strip*2+fs*0.5)
				if tx+strip*2 > x+cw-fs*0.3 {
					break
				}
				p.L.Rect(tx, cy, strip, bq, draw.WithAlpha(kC, uint8(255-50*j)))
				p.L.Rect(tx+strip, cy, strip, bq, draw.WithAlpha(vC, uint8(255-50*j)))
			}
			p.Wrap(cx, cy+bq+fs*0.2, fs, draw.AlignLeft, th.Text, w.Say("canvas.att.stream", "br", "128"), cw-fs, 2)
			// Its trips: Q in, K and V streamed in, O out — no S, no P.
			ax := x + cw*0.55
			draw.Arrow(p.L, ax, top+hbmH, ax, chipY, 2*sc, fs*0.5, qC)
			draw.Arrow(p.L, ax+cw*0.1, top+hbmH, ax+cw*0.1, chipY, 2*sc, fs*0.5, kC)
			draw.Arrow(p.L, ax+cw*0.2, chipY, ax+cw*0.2, top+hbmH, 2*sc, fs*0.5, th.Dim)
			p.Wrap(ax-fs*0.3, top+hbmH+fs*0.2, fs, draw.AlignRight, flC, w.Say("canvas.att.never"), cw*0.55-fs, 2)
		}
	}
	// The traffic of each on one scale, and the times on one axis.
	my := r.Y + h + fs*0.4
	maxB := math.Max(v.StdBytes, v.FlashBytes)
	if maxB <= 0 {
		return
	}
	labW := float32(0)
	narrow := r.W < fs*30
	if !narrow {
		labW = draw.Clamp(r.W*0.28, fs*6, fs*14)
	}
	bw := r.W - labW - fs*6
	rows := []struct {
		label string
		val   float64
		text  string
		c     draw.Color
	}{
		{w.Say("canvas.att.traffic_std"), v.StdBytes / maxB, units.Bytes(v.StdBytes), stdC},
		{w.Say("canvas.att.traffic_flash"), v.FlashBytes / maxB, units.Bytes(v.FlashBytes), flC},
	}
	if times {
		maxT := math.Max(v.StdTimeS, v.FlashTimeS)
		if maxT > 0 {
			rows = append(rows, struct {
				label string
				val   float64
				text  string
				c     draw.Color
			}{w.Say("canvas.att.time_std"), v.StdTimeS / maxT, units.Duration(v.StdTimeS), stdC}, struct {
				label string
				val   float64
				text  string
				c     draw.Color
			}{w.Say("canvas.att.time_flash"), v.FlashTimeS / maxT, units.Duration(v.FlashTimeS), flC})
		}
	}
	for i, row := range rows {
		ry := my + float32(i)*fs*draw.LineHeight*1.2
		bl := draw.Maxf(bw*float32(draw.Frac(row.val)), 1.5*sc)
		if narrow {
			// The label on the bar's line, after the value: the colour
			// says which.
			p.L.Rect(r.X, ry+fs*0.25, bw, fs*0.7, th.Panel)
			p.L.Rect(r.X, ry+fs*0.25, bl, fs*0.7, row.c)
			p.Text(r.X+bl+fs*0.3, ry, fs, draw.AlignLeft, row.c, row.text)
			continue
		}
		p.Fit(r.X, ry, fs, draw.AlignLeft, th.Text, row.label, labW-fs*0.4)
		p.L.Rect(r.X+labW, ry+fs*0.25, bw, fs*0.7, th.Panel)
		p.L.Rect(r.X+labW, ry+fs*0.25, bl, fs*0.7, row.c)
		p.Text(r.X+labW+bl+fs*0.3, ry, fs, draw.AlignLeft, row.c, row.text)
	}
}

// attChart plots HBM traffic against N on log-log axes, said so: standard
// attention's curve climbs as N², FlashAttention's as N; the reader's N
// marked with both values; the step where K and V leave L2 marked and
// explained.
func attChart(p *draw.Placer, v AttentionView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	stdC, flC, _, _, _ := attentionColours(th)
	yLab := draw.Clamp(draw.TextWidth("100 GB", fs)+fs*0.5, fs*4, fs*6)
	px, py := r.X+yLab, r.Y+fs*draw.LineHeight*1.3
	pw, ph := r.W-yLab-fs*0.5, r.H-fs*draw.LineHeight*3.8
	if pw <= fs*6 || ph <= fs*5 {
		return
	}
	pts := v.Points
	xlo, xhi := math.Log2(float64(pts[0].Seq)), math.Log2(float64(pts[len(pts)-1].Seq))
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		ylo = math.Min(ylo, math.Log10(math.Min(pt.Standard, pt.Flash)))
		yhi = math.Max(yhi, math.Log10(math.Max(pt.Standard, pt.Flash)))
	}
	ylo, yhi = math.Floor(ylo), math.Ceil(yhi)
	if yhi <= ylo || xhi <= xlo {
		return
	}
	at := func(seq float64, bytes float64) (float32, float32) {
		fx := (math.Log2(seq) - xlo) / (xhi - xlo)
		fy := (math.Log10(bytes) - ylo) / (yhi - ylo)
		return px + pw*float32(fx), py + ph*(1-float32(fy))
	}
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, w.Say("canvas.att.y"), r.W)
	// Decades: every other one when crowded.
	every := 1
	if ph/float32(yhi-ylo) < fs*draw.LineHeight*1.1 {
		every = 2
	}
	for e := int(ylo); e <= int(yhi); e++ {
		_, yy := at(float64(pts[0].Seq), math.Pow(10, float64(e)))
		p.L.Segment(px, yy, px+pw, yy, 1*sc, draw.WithAlpha(th.Dim, 60))
		if (e-int(ylo))%every == 0 {
			p.Text(px-fs*0.4, yy-fs*0.55, fs, draw.AlignRight, th.Dim, units.Bytes(math.Pow(10, float64(e))))
		}
	}
	// The L2 step: where FlashAttention's K and V reads first exceed one.
	for i := 1; i < len(pts); i++ {
		if pts[i].KVReads > 1 && pts[i-1].KVReads <= 1 {
			x0, y0 := at(float64(pts[i-1].Seq), pts[i-1].Flash)
			x1, y1 := at(float64(pts[i].Seq), pts[i].Flash)
			p.L.Frame(x0-fs*0.5, y1-fs*0.5, x1-x0+fs, y0-y1+fs, 1.5*sc, th.Text)
			lab := w.Say("canvas.att.l2", "ratio", units.Ratio(w.Lang, pts[i].Flash/pts[i-1].Flash), "reads", units.Count(int64(pts[i].KVReads)))
			// Under the box, left of it, or above it: the first place free.
			lines := draw.Lines(lab, fs, pw*0.45, 4)
			lh := float32(len(lines)) * fs * draw.LineHeight
			var lw float32
			for _, ln := range lines {
				lw = draw.Maxf(lw, draw.TextWidth(ln, fs))
			}
			for _, at := range [...][2]float32{{x1 + fs*0.5, y0 + fs*0.7}, {x0 - fs*0.8, y1}, {x0 - fs*0.8, y0 - lh}, {x1 + fs*0.5, y1 - lh - fs*0.7}} {
				b := draw.Rect{X: at[0] - lw, Y: at[1], W: lw, H: lh}
				if !p.Free(b) {
					continue
				}
				for k, ln := range lines {
					p.Text(at[0], at[1]+float32(k)*fs*draw.LineHeight, fs, draw.AlignRight, th.Text, ln)
				}
				break
			}
			break
		}
	}
	// The reader's N, and its values: placed first, they win.
	sv, fv, reads := attAt(pts, v.Seq)
	var nx float32
	if sv > 0 {
		x, ys := at(float64(v.Seq), sv)
		_, yf := at(float64(v.Seq), fv)
		nx = x
		p.Text(x, py+ph+fs*0.3, fs, draw.AlignCenter, th.Text, seqLabel(v.Seq))
		p.Reserve(draw.Rect{X: x - 2*sc, Y: py, W: 4 * sc, H: ph})
		for _, pt := range [2]struct {
			y   float32
			c   draw.Color
			val float64
		}{{ys, stdC, sv}, {yf, flC, fv}} {
			if !p.Text(x+fs*0.5, pt.y-fs*0.6, fs, draw.AlignLeft, pt.c, units.Bytes(pt.val)) {
				p.Text(x-fs*0.5, pt.y-fs*0.6, fs, draw.AlignRight, pt.c, units.Bytes(pt.val))
			}
		}
	}
	for i, pt := range pts {
		x, _ := at(float64(pt.Seq), math.Pow(10, ylo))
		p.L.Segment(x, py, x, py+ph, 1*sc, draw.WithAlpha(th.Dim, 60))
		if i%2 == 0 || pw/float32(len(pts)) > fs*2.6 {
			p.Text(x, py+ph+fs*0.3, fs, draw.AlignCenter, th.Dim, seqLabel(pt.Seq))
		}
	}
	p.L.Frame(px, py, pw, ph, 1*sc, th.Dim)
	p.First(px+pw, py+ph+fs*draw.LineHeight*1.4, fs, draw.AlignRight, th.Dim, w.Say("canvas.att.x"), w.Say("canvas.att.x_short"))
	for ci, c := range [2]draw.Color{stdC, flC} {
		var lx, ly float32
		for i, pt := range pts {
			b := pt.Standard
			if ci == 1 {
				b = pt.Flash
			}
			x, yy := at(float64(pt.Seq), b)
			if i > 0 {
				p.L.Segment(lx, ly, x, yy, 3*sc, c)
			}
			p.L.Circle(x, yy, 3.5*sc, c)
			lx, ly = x, yy
		}
	}
	_ = reads
	_ = nx
}

// attSoftmax draws FlashAttention's online softmax on one row of scores:
// the row in tiles, the running maximum rising tile by tile, and the
// output of the tiled computation against the direct formula — the same.
// The row is an illustration (16 scores); the difference quoted is the
// engine's, on a random case.
func attSoftmax(p *draw.Placer, v AttentionView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	stdC, flC, qC, kC, _ := attentionColours(th)
	const n, tile = 16, 4
	var s [n]float64
	for j := range s {
		s[j] = 1.2*math.Sin(float64(j)*1.9+0.4) + 0.6*math.Cos(float64(j)*0.7) + float64(j)*0.05
	}
	// The direct softmax, and the online one, tile by tile.
	var direct [n]float64
	m := math.Inf(-1)
	for _, x := range s {
		m = math.Max(m, x)
	}
	sum := 0.0
	for j, x := range s {
		direct[j] = math.Exp(x - m)
		sum += direct[j]
	}
	for j := range direct {
		direct[j] /= sum
	}
	var running [n / tile]float64
	om, ol := math.Inf(-1), 0.0
	for t := 0; t < n/tile; t++ {
		bm := math.Inf(-1)
		for j := t * tile; j < (t+1)*tile; j++ {
			bm = math.Max(bm, s[j])
		}
		nm := math.Max(om, bm)
		ol *= math.Exp(om - nm)
		for j := t * tile; j < (t+1)*tile; j++ {
			ol += math.Exp(s[j] - nm)
		}
		om = nm
		running[t] = om
	}
	top := r.Y
	half := (r.H - fs*draw.LineHeight*2) / 2
	if half < fs*4 {
		return
	}
	p.Fit(r.X, top, fs, draw.AlignLeft, th.Dim, w.Say("canvas.att.row", "n", strconv.Itoa(n), "tiles", strconv.Itoa(n/tile)), r.W)
	// The row: a bar a score, tiles apart, the running max as a step.
	gy := top + fs*draw.LineHeight*1.2
	gh := half - fs*draw.LineHeight*1.6
	lo, hi := -2.5, 2.5
	cw := r.W / float32(n)
	zy := gy + gh*float32(hi/(hi-lo))
	yOf := func(x float64) float32 { return gy + gh*float32((hi-x)/(hi-lo)) }
	for j, x := range s {
		t := j / tile
		bx := r.X + float32(j)*cw + float32(t)*0 + cw*0.15
		y := yOf(x)
		if y < zy {
			p.L.Rect(bx, y, cw*0.7, zy-y, kC)
		} else {
			p.L.Rect(bx, zy, cw*0.7, y-zy, kC)
		}
		if j%tile == 0 && j > 0 {
			p.L.Segment(r.X+float32(j)*cw, gy, r.X+float32(j)*cw, gy+gh, 1*sc, th.Text)
		}
	}
	p.L.Segment(r.X, zy, r.X+r.W, zy, 1*sc, th.Dim)
	for t, mv := range running {
		x0, x1 := r.X+float32(t*tile)*cw, r.X+float32((t+1)*tile)*cw
		y := yOf(mv)
		p.L.Segment(x0, y, x1, y, 3*sc, flC)
		if t > 0 {
			p.L.Segment(x0, yOf(running[t-1]), x0, y, 3*sc, flC)
		}
		p.Text((x0+x1)/2, gy+gh+fs*0.2, fs, draw.AlignCenter, th.Dim, w.Say("canvas.att.tile", "k", strconv.Itoa(t+1)))
	}
	// The outputs: softmax weights, direct and tiled, side by side.
	oy := top + half + fs*draw.LineHeight*0.8
	p.Fit(r.X, oy, fs, draw.AlignLeft, th.Dim, w.Say("canvas.att.weights"), r.W)
	by := oy + fs*draw.LineHeight*1.2
	bh := half - fs*draw.LineHeight*2
	maxP := 0.0
	for _, x := range direct {
		maxP = math.Max(maxP, x)
	}
	for j := range s {
		tiled := math.Exp(s[j]-om) / ol
		for k, val := range [2]float64{direct[j], tiled} {
			c := stdC
			if k == 1 {
				c = qC
			}
			hh := bh * float32(val/maxP)
			bx := r.X + float32(j)*cw + cw*0.1 + float32(k)*cw*0.4
			p.L.Rect(bx, by+bh-hh, cw*0.38, hh, c)
		}
	}
	p.L.Segment(r.X, by+bh, r.X+r.W, by+bh, 1*sc, th.Dim)
	p.Fit(r.X+r.W, by+bh+fs*0.3, fs, draw.AlignRight, th.Text, w.Say("canvas.att.diff", "diff", attSci(v.MaxDiff)), r.W)
}

// seqLabel writes a sequence length: 256, 1k, 64k.
func seqLabel(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "k"
	}
	return strconv.Itoa(n)
}
