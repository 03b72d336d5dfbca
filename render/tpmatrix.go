package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strconv"
	"unicode/utf8"
)

// tpmBlock is one piece of the TP-matrix picture's row: a matrix (a pair
// of halves side by side or stacked, or one whole), or an operator.
type tpmBlock struct {
	op    string // operator text; "" for a matrix block
	phase int    // the phase from which it is drawn (filled, for a matrix)
	// Matrix halves: m[1] is nil for a whole matrix. stacked puts m[1]
	// under m[0] (row halves), else beside it (column halves).
	m       [2][][]float64
	stacked bool
	plus    bool      // a "+" between stacked halves (Z1 + Z2)
	cap     [2]string // captions of the halves (or of the whole)
	under   [2]string // captions under the halves (GPU names)
	tint    [2]int    // colour of each half: 0 or 1 (GPU 0, GPU 1), −1 plain
	// A pre-phase text: before phase it shows these numbers and captions
	// (the products X·Ai before GeLU), from prePhase on.
	pre      [2][][]float64
	preCap   [2]string
	prePhase int
}

// Width and height of a block in cells.
func (b *tpmBlock) size() (w, h float32) {
	if b.op != "" {
		return tpmOpW(b.op), 1
	}
	r0, c0 := tpmDims(b.m[0])
	if b.m[1] == nil {
		return float32(c0), float32(r0)
	}
	r1, c1 := tpmDims(b.m[1])
	if b.stacked {
		gap := float32(0.3)
		if b.plus {
			gap = 1
		}
		return float32(max(c0, c1)), float32(r0+r1) + gap
	}
	return float32(c0+c1) + 0.3, float32(max(r0, r1))
}

func tpmOpW(op string) float32 {
	return 0.6 + float32(utf8.RuneCountInString(op))*0.26
}

func tpmDims(m [][]float64) (rows, cols int) {
	for _, r := range m {
		cols = max(cols, len(r))
	}
	return len(m), cols
}

// AppendTPMatrix draws tensor parallelism inside one MLP as small
// matrices with their numbers, left to right in the order of the
// computation: X × [A1 | A2] (A split by columns, one half a GPU), GeLU,
// [Y1 | Y2] × [B1 over B2] (B split by rows), the partial products Z1 and
// Z2 each GPU holds, and the all-reduce Z = Z1 + Z2. Phase 0…4 reveals
// the steps: matrices not yet computed are empty outlines. On a narrow
// stage the row wraps onto up to three lines.
func AppendTPMatrix(dst draw.List, v TPMatrixView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.X) == 0 || len(v.A1) == 0 {
		return l
	}
	z := v.Z
	if len(z) == 0 {
		z = tpmAdd(v.Z1, v.Z2)
	}
	w := v.Words
	xa1, xa2 := tpmMul(v.X, v.A1), tpmMul(v.X, v.A2)
	all := [...]tpmBlock{
		{m: [2][][]float64{v.X}, cap: [2]string{"X"}, tint: [2]int{-1, -1}},
		{op: "×", phase: 1},
		{m: [2][][]float64{v.A1, v.A2}, cap: [2]string{"A1", "A2"}, under: [2]string{"GPU 0", "GPU 1"}, tint: [2]int{0, 1}},
		{op: "GELU", phase: 2},
		{m: [2][][]float64{v.Y1, v.Y2}, cap: [2]string{"Y1", "Y2"}, tint: [2]int{0, 1}, phase: 2,
			pre: [2][][]float64{xa1, xa2}, preCap: [2]string{"XA1", "XA2"}, prePhase: 1},
		{op: "×", phase: 3},
		{m: [2][][]float64{v.B1, v.B2}, stacked: true, cap: [2]string{"B1", "B2"}, tint: [2]int{0, 1}},
		{op: "=", phase: 3},
		{m: [2][][]float64{v.Z1, v.Z2}, stacked: true, plus: true, cap: [2]string{"Z1", "Z2"}, tint: [2]int{0, 1}, phase: 3},
		{op: w.Say("canvas.tp.allreduce"), phase: 4},
		{m: [2][][]float64{z}, cap: [2]string{"Z = Z1 + Z2"}, tint: [2]int{-1, -1}, phase: 4},
	}
	blocks := all[:]
	switch v.Part {
	case 1:
		blocks = all[:5]
	case 2:
		blocks = all[4:]
	}
	gpu := [2]draw.Color{draw.Chunk(0, 2), draw.Chunk(1, 2)}

	// The headline over the matrices, the key under them.
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		hh := draw.HeadlineHeight(st, sc, v.Headline)
		st.Y, st.H = st.Y+hh, st.H-hh
	}
	kfs := draw.Clamp(draw.Minf(st.W, st.H)/40, 14*sc, 18*sc)
	kpad := draw.Clamp(draw.Minf(st.W, st.H)/40, 8*sc, 20*sc)
	keys := [2]draw.LegendEntry{{Color: gpu[0], Label: w.Say("canvas.tp.gpu0")}, {Color: gpu[1], Label: w.Say("canvas.tp.gpu1")}}
	kh := draw.LegendHeight(st.W-2*kpad, kfs, keys[:]...)
	draw.Legend(&l, th, st.X+kpad, st.Y+st.H-kpad-kh, st.W-2*kpad, kfs, sc, keys[:]...)
	st.H -= kh + kpad
	// The widest number sets the smallest cell.
	chars := 3
	for i := range blocks {
		for _, m := range [...][][]float64{blocks[i].m[0], blocks[i].m[1], blocks[i].pre[0], blocks[i].pre[1]} {
			for _, row := range m {
				for _, x := range row {
					chars = max(chars, len(tpmNum(x)))
				}
			}
		}
	}
	pad := draw.Clamp(draw.Minf(st.W, st.H)/40, 8*sc, 20*sc)
	// A margin at the sides of a wide stage too (presentation mode),
	// so the row never runs to the stage's edges.
	padX := draw.Maxf(pad, st.W*0.035)
	minCell := draw.Maxf(26*sc, float32(chars)*0.56*10*sc+4*sc)
	maxCell := 56 * sc
	gapW := float32(0.5)    // between blocks, in cells
	capH := float32(1.0)    // caption rows above and below a line, in cells
	lineGap := float32(0.2) // between lines, in cells

	// Lines: the break points (before an operator) that give the largest
	// cells, up to three lines.
	width := func(a, b int) float32 {
		var w float32
		for i := a; i < b; i++ {
			bw, _ := blocks[i].size()
			w += bw
		}
		return w + float32(b-a-1)*gapW
	}
	height := func(a, b int) float32 {
		var h float32
		for i := a; i < b; i++ {
			_, bh := blocks[i].size()
			h = draw.Maxf(h, bh)
		}
		return h + capH
	}
	n := len(blocks)
	best, cell := [4]int{n, n, n, n}, float32(0)
	// When no layout gives cells of the smallest size, the one that
	// overflows the stage least at that size.
	least, over := best, float32(-1)
	availW, availH := st.W-2*padX, st.H-2*pad
	try := func(br [4]int) {
		var w, h float32
		a := 0
		for _, b := range br {
			if b <= a {
				continue
			}
			w = draw.Maxf(w, width(a, b))
			h += height(a, b) + lineGap
			a = b
		}
		c := draw.Minf(availW/w, availH/h)
		// More lines only for clearly larger cells.
		if c >= minCell && c > cell*1.15 {
			best, cell = br, c
		}
		if o := draw.Maxf(0, w*minCell-availW) + draw.Maxf(0, h*minCell-availH); over < 0 || o < over {
			least, over = br, o
		}
	}
	// Breaks go before operators: one line, then two, three, four.
	try([4]int{n, n, n, n})
	for lines := 2; lines <= 4; lines++ {
		for i := 1; i < n; i++ {
			for j := i; j < n; j++ {
				for k := j; k < n; k++ {
					br := [4]int{i, j, k, n}
					ok, count := true, 1
					for q, b := range br[:3] {
						if q > 0 && b == br[q-1] {
							continue
						}
						if b == n || blocks[b].op == "" {
							ok = false
						}
						count++
					}
					if ok && count == lines {
						try(br)
					}
				}
			}
		}
	}
	floor := 10 * sc
	if cell == 0 {
		floor = 0
		// Nothing fits at the smallest cell: the least bad layout, shrunk
		// to the stage (a phone).
		best = least
		var w, h float32
		a := 0
		for _, b := range best {
			if b > a {
				w = draw.Maxf(w, width(a, b))
				h += height(a, b) + lineGap
				a = b
			}
		}
		cell = draw.Minf(availW/w, availH/h)
	} else {
		cell = draw.Clamp(cell, minCell, maxCell)
	}
	fs := draw.Clamp(draw.Minf(cell*0.36, (cell-4*sc)/(float32(chars)*0.56)), floor, 18*sc)

	// Lines, centred on the stage.
	var totalH float32
	a := 0
	for _, b := range best {
		if b > a {
			totalH += (height(a, b) + lineGap) * cell
			a = b
		}
	}
	y := st.Y + draw.Maxf(pad, (st.H-totalH)/2)
	a = 0
	for _, b := range best {
		if b <= a {
			continue
		}
		lw := width(a, b) * cell
		lh := (height(a, b) - capH) * cell
		x := st.X + draw.Maxf(padX, (st.W-lw)/2)
		mid := y + capH/2*cell + lh/2
		for i := a; i < b; i++ {
			bl := &blocks[i]
			bw, bh := bl.size()
			bx, by := x, mid-bh*cell/2
			x += (bw + gapW) * cell
			if bl.op != "" {
				if v.Phase >= bl.phase {
					c := th.Text
					if v.Phase == bl.phase {
						c = th.LinkActive
					}
					l.Label(bx+bw*cell/2, mid-fs*0.6, fs*1.1, draw.AlignCenter, c, bl.op)
				}
				continue
			}
			shown := v.Phase >= bl.phase
			m, caps := bl.m, bl.cap
			if !shown && bl.prePhase > 0 && v.Phase >= bl.prePhase {
				shown, m, caps = true, bl.pre, bl.preCap
			}
			for h := 0; h < 2; h++ {
				if h == 1 && m[1] == nil {
					break
				}
				hx, hy := bx, by
				if h == 1 {
					r0, c0 := tpmDims(m[0])
					if bl.stacked {
						gap := float32(0.3)
						if bl.plus {
							gap = 1
						}
						hy += (float32(r0) + gap) * cell
					} else {
						hx += (float32(c0) + 0.3) * cell
					}
				}
				rows, cols := tpmDims(m[h])
				col := th.Text
				fill := th.Panel
				if t := bl.tint[h]; t >= 0 {
					col = gpu[t]
					fill = draw.WithAlpha(gpu[t], 60)
				}
				mw, mh := float32(cols)*cell, float32(rows)*cell
				if !shown {
					l.Frame(hx, hy, mw, mh, 1*sc, th.Empty)
					continue
				}
				for r, row := range m[h] {
					for c, val := range row {
						cx, cy := hx+float32(c)*cell, hy+float32(r)*cell
						l.Rect(cx+sc, cy+sc, cell-2*sc, cell-2*sc, fill)
						l.Label(cx+cell/2, cy+cell/2-fs*0.6, fs, draw.AlignCenter, th.Text, tpmNum(val))
					}
				}
				fw := float32(1.5) * sc
				if v.Phase == bl.phase || (bl.prePhase > 0 && v.Phase == bl.prePhase) {
					fw = 2.5 * sc
				}
				l.Frame(hx, hy, mw, mh, fw, col)
				// Captions: above each half (under a lower stacked
				// half), and the GPU under a half.
				if bl.stacked && h == 1 {
					l.Label(hx+mw/2, hy+mh+fs*0.4, fs, draw.AlignCenter, col, caps[h])
				} else {
					l.Label(hx+mw/2, hy-fs*1.5, fs, draw.AlignCenter, col, caps[h])
				}
				if u := bl.under[h]; u != "" {
					l.Label(hx+mw/2, hy+mh+fs*0.4, fs, draw.AlignCenter, col, u)
				}
			}
			if shown && bl.plus {
				r0, _ := tpmDims(m[0])
				l.Label(bx+bw*cell/2, by+(float32(r0)+0.5)*cell-fs*0.6, fs*1.1, draw.AlignCenter, th.Text, "+")
			}
		}
		y += (height(a, b) + lineGap) * cell
		a = b
	}
	return l
}

// tpmNum formats a matrix entry with one decimal ("0.5", "-1.2"; never
// "-0.0").
func tpmNum(x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if s == "-0.0" {
		return "0.0"
	}
	return s
}

func tpmMul(a, b [][]float64) [][]float64 {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	_, cols := tpmDims(b)
	out := make([][]float64, len(a))
	for i, row := range a {
		out[i] = make([]float64, cols)
		for k, x := range row {
			if k >= len(b) {
				break
			}
			for j, y := range b[k] {
				out[i][j] += x * y
			}
		}
	}
	return out
}

func tpmAdd(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i, row := range a {
		out[i] = make([]float64, len(row))
		for j, x := range row {
			out[i][j] = x
			if i < len(b) && j < len(b[i]) {
				out[i][j] += b[i][j]
			}
		}
	}
	return out
}
