package render

import "github.com/gpuscope/gpuscope/render/draw"
import "math"

// The long-context lesson's pictures: a sequence dealt to the GPUs of a
// context-parallel group, and how each GPU gets the others' keys and
// values (all-gather or ring) on one time axis.

// CPSplitView is one sequence cut into 2·CP chunks and dealt to CP GPUs:
// GPU i gets chunks i and 2·CP−1−i, so that under a causal mask (a token
// attends to the tokens before it) every GPU does the same attention
// work. Its words come made (they hold the numbers).
type CPSplitView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Headline      string
	CP            int
	Sequence      string   // over the sequence: what it is ("one sequence: 131,072 tokens, 32 chunks")
	First, Last   string   // the sequence's ends ("token 0", "131,072")
	GPUs          []string // a label a GPU ("GPU 0" …), CP of them
	Short         []string // the same, short ("0" …), for boxes too narrow for GPUs
	Each          string   // under the GPUs: what each holds ("8,192 tokens a GPU")
	Work          string   // the key of the work bars ("bar: attention work, causal")
	// Progress: 0 the chunks in the sequence, 1 all dealt to their GPUs.
	Progress float64
}

// chunkWork is chunk j of n's height in the picture: a floor, and the
// rest in proportion to its causal attention work (j + 1 chunks of keys).
func chunkWork(j, n int) float32 { return 0.25 + 0.75*float32(j+1)/float32(n) }

// cpOwner is the GPU that chunk j of 2·cp belongs to.
func cpOwner(j, cp int) int {
	if j < cp {
		return j
	}
	return 2*cp - 1 - j
}

// AppendCPSplit draws the sequence as a row of 2·CP chunks coloured by
// the GPU they go to, the GPUs under it (two rows of them where one row
// would crowd), each chunk flying from its place in the sequence into
// its GPU as Progress goes from 0 to 1, and in each GPU a bar of the
// attention work of its two chunks — chunk j's queries see j + 1 chunks
// of keys, so the pair's work (j + 1) + (2·CP − j) is the same on every
// GPU.
func AppendCPSplit(dst draw.List, v CPSplitView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	cp := v.CP
	if st.W <= 0 || st.H <= 0 || cp < 1 || len(v.GPUs) != cp {
		return l
	}
	ts := draw.TextSize(sc)
	_, pad := draw.HeadFont(st, sc)
	y := st.Y + pad*0.5
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		y = st.Y + draw.HeadlineHeight(st, sc, v.Headline)
	}
	x, w := st.X+pad, st.W-2*pad
	lh := ts * draw.LineHeight
	// The sequence.
	l.Label(x, y, ts, draw.AlignLeft, th.Text, draw.Fit(v.Sequence, ts, w))
	y += lh * 1.1
	seqH := draw.Clamp(st.H*0.06, ts*1.2, ts*2.4)
	n := 2 * cp
	cw := w / float32(n)
	gap := draw.Minf(cw*0.12, 2*sc)
	for g := range cp {
		l.Key(draw.Chunk(g, cp), v.GPUs[g])
	}
	for j := range n {
		// Each chunk as tall as its causal attention work: its queries
		// see the j + 1 chunks up to it.
		hj := seqH * chunkWork(j, n)
		l.Rect(x+cw*float32(j)+gap/2, y+seqH-hj, cw-gap, hj, draw.WithAlpha(draw.Chunk(cpOwner(j, cp), cp), 110))
	}
	l.Frame(x, y, w, seqH, 1*sc, th.Dim)
	seqY := y
	y += seqH + ts*0.2
	l.Label(x, y, ts, draw.AlignLeft, th.Dim, v.First)
	l.Label(x+w, y, ts, draw.AlignRight, th.Dim, v.Last)
	y += lh * 1.4

	// The GPUs: one row, or two where a box would be narrower than a
	// label.
	bottom := st.Y + st.H - pad*0.5 - lh*2.4
	rows := 1
	if w/float32(cp) < draw.TextWidth(v.GPUs[cp-1], ts)+ts*1.2 {
		rows = 2
	}
	perRow := (cp + rows - 1) / rows
	slot := w / float32(perRow)
	bw := slot * 0.86
	rowGap := ts * 0.6
	bh := draw.Minf((bottom-y-rowGap*float32(rows-1))/float32(rows), ts*7)
	if bh < lh*1.8 || bw <= 0 {
		return l
	}
	short := len(v.Short) == cp && draw.TextWidth(v.GPUs[cp-1], ts) > bw-ts*0.3
	p := math.Min(math.Max(v.Progress, 0), 1)
	for g := range cp {
		r, c := g/perRow, g%perRow
		bx := x + slot*float32(c) + (slot-bw)/2
		by := y + (bh+rowGap)*float32(r)
		col := draw.Chunk(g, cp)
		l.Rect(bx, by, bw, bh, th.GPU)
		l.Frame(bx, by, bw, bh, 1.5*sc, col)
		name := v.GPUs[g]
		if short {
			name = v.Short[g]
		}
		l.Label(bx+bw/2, by+ts*0.1, ts, draw.AlignCenter, th.Text, draw.Fit(name, ts, bw))
		// Its two chunks' places in the box, over its work bar.
		inner := bw - ts*0.6
		cwb := inner / 2
		cy := by + lh + ts*0.15
		ch := draw.Minf(seqH, (by+bh-cy-ts*0.5)*0.6)
		if ch < ts*0.3 {
			continue
		}
		for k, j := range [2]int{g, n - 1 - g} {
			// From its place in the sequence to its place in the box,
			// the later chunk a little after the first.
			q := math.Min(math.Max(p*1.25-0.25*float64(k), 0), 1)
			q = q * q * (3 - 2*q) // ease in and out
			hs, ht := seqH*chunkWork(j, n), ch*chunkWork(j, n)
			sx, sy := x+cw*float32(j)+gap/2, seqY+seqH-hs
			tx, ty := bx+ts*0.3+cwb*float32(k), cy+ch-ht
			fx, fy := sx+(tx-sx)*float32(q), sy+(ty-sy)*float32(q)
			fw := (cw - gap) + (cwb-gap-(cw-gap))*float32(q)
			l.Rect(fx, fy, fw, hs+(ht-hs)*float32(q), col)
		}
		// The work bar: the two chunks' shares of a constant total.
		wy := cy + ch + ts*0.2
		wh := draw.Minf(ts*0.7, by+bh-wy-ts*0.2)
		if wh <= 1 {
			continue
		}
		a := float32(g+1) / float32(2*cp+1)
		l.Rect(bx+ts*0.3, wy, inner*a, wh, draw.WithAlpha(col, 200))
		l.Rect(bx+ts*0.3+inner*a, wy, inner*(1-a), wh, draw.WithAlpha(col, 120))
		l.Frame(bx+ts*0.3, wy, inner, wh, 1*sc, th.Dim)
	}
	y += (bh+rowGap)*float32(rows) - rowGap + ts*0.3
	l.Label(x, y, ts, draw.AlignLeft, th.Text, draw.Fit(v.Each, ts, w))
	l.Label(x, y+lh, ts, draw.AlignLeft, th.Dim, draw.Fit(v.Work, ts, w))
	return l
}

// Interval is a span of time, seconds.
type Interval struct{ Start, End float64 }

// CPExchangeLane is one way of getting a GPU the other GPUs' keys and
// values, for one layer's attention: the transfers on its link and the
// attention blocks on the GPU, each of a GPU's K/V (Sources, the index
// of the GPU whose keys and values it carries or computes on; one a
// block); the time it ends, and its words.
type CPExchangeLane struct {
	Name             string
	Sends, Computes  []Interval
	SendSrc, CompSrc []int
	End              float64
	Note             string // at its end: its time, what is exposed
}

// CPExchangeView races the lanes on one time axis, 0 to Span: each lane
// a row of its link's transfers (blocks coloured by the GPU whose K/V
// they carry) over a row of the GPU's attention (coloured by whose K/V
// it works on), the GPU's waiting marked Hot; both grow with the clock
// (Time; negative: the end).
type CPExchangeView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Headline      string
	CP            int
	Lanes         []CPExchangeLane
	Span, Time    float64
	// The rows' names and the legend's words.
	LinkRow, GPURow            string
	Transfer, Compute, Waiting string
	Note                       string // under the lanes (why all-gather is cheap enough: GQA's small K and V)
	Axis                       string // the time axis's title
	SpanLabel                  string // the axis's end: Span in words
}

// AppendCPExchange draws the view.
func AppendCPExchange(dst draw.List, v CPExchangeView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Lanes) == 0 || !(v.Span > 0) || v.CP < 1 {
		return l
	}
	ts := draw.TextSize(sc)
	_, pad := draw.HeadFont(st, sc)
	y := st.Y + pad*0.5
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		y = st.Y + draw.HeadlineHeight(st, sc, v.Headline)
	}
	x, w := st.X+pad, st.W-2*pad
	lh := ts * draw.LineHeight
	wait := draw.WithAlpha(th.Hot, overVeil)
	send := th.LinkActive
	entries := [3]draw.LegendEntry{{Color: send, Label: v.Transfer}, {Color: th.Text, Hatch: false, Label: v.Compute}, {Color: wait, Label: v.Waiting}}
	// The compute swatch: the GPU's colours; the legend shows the first.
	entries[1].Color = draw.Chunk(0, v.CP)
	y += draw.Legend(&l, th, x, y, w, ts, sc, entries[:]...) + ts*0.3
	for g := range v.CP {
		l.Key(draw.Chunk(g, v.CP), v.Compute)
	}
	t := v.Time
	if t < 0 || t > v.Span || math.IsNaN(t) {
		t = v.Span
	}
	// Columns: the rows' names, the tracks.
	nameW := draw.Maxf(draw.TextWidth(v.LinkRow, ts), draw.TextWidth(v.GPURow, ts)) + ts*0.6
	tx := x + nameW
	tw := w - nameW
	// The lanes, as tall as the stage allows up to a size, the axis
	// right under them.
	room := st.Y + st.H - pad*0.5 - lh*2.6 - y
	n1, n2 := draw.Wrap2(v.Note, ts, w) // the note, on two lines where one is too short
	if n1 != "" {
		room -= lh
	}
	if n2 != "" {
		room -= lh
	}
	nl := len(v.Lanes)
	rowH := draw.Clamp((room/float32(nl)-lh*2.9)/2, ts*0.9, ts*8)
	pitch := lh*1.05 + 2*rowH + ts*0.25 + lh*1.85
	bottom := y + pitch*float32(nl) - lh*0.4
	if tw <= ts*4 || pitch*float32(nl) > room+lh {
		return l
	}
	at := func(s float64) float32 { return tx + tw*float32(math.Min(math.Max(s/v.Span, 0), 1)) }
	for i, ln := range v.Lanes {
		ly := y + pitch*float32(i)
		l.Label(x, ly, ts, draw.AlignLeft, th.Text, draw.Fit(ln.Name, ts, w))
		ry := ly + lh*1.05
		gy := ry + rowH + ts*0.25
		l.Label(x, ry+(rowH-lh)/2, ts, draw.AlignLeft, th.Dim, v.LinkRow)
		l.Label(x, gy+(rowH-lh)/2, ts, draw.AlignLeft, th.Dim, v.GPURow)
		l.Rect(tx, ry, tw, rowH, th.Panel)
		l.Rect(tx, gy, tw, rowH, th.Panel)
		// The GPU waits where it computes nothing, up to the lane's end
		// (or the clock).
		last := 0.0
		end := math.Min(ln.End, t)
		for _, c := range ln.Computes {
			if c.Start > last && last < end {
				l.Rect(at(last), gy, at(math.Min(c.Start, end))-at(last), rowH, wait)
			}
			last = math.Max(last, c.End)
		}
		for k, s := range ln.Sends {
			if s.Start >= t {
				continue
			}
			e := math.Min(s.End, t)
			src := 0
			if k < len(ln.SendSrc) {
				src = ln.SendSrc[k]
			}
			xa, xb := at(s.Start), at(e)
			l.Rect(xa, ry, draw.Maxf(xb-xa, 1*sc), rowH, send)
			// The K/V block it carries, in its GPU's colour, on the
			// transfer.
			l.Rect(xa, ry+rowH*0.3, draw.Maxf(xb-xa, 1*sc), rowH*0.4, draw.Chunk(src, v.CP))
			if xb-xa > 2*sc {
				l.Segment(xb, ry, xb, ry+rowH, 1*sc, th.Background)
			}
		}
		for k, c := range ln.Computes {
			if c.Start >= t {
				continue
			}
			e := math.Min(c.End, t)
			src := 0
			if k < len(ln.CompSrc) {
				src = ln.CompSrc[k]
			}
			xa, xb := at(c.Start), at(e)
			l.Rect(xa, gy, draw.Maxf(xb-xa, 1*sc), rowH, draw.Chunk(src, v.CP))
			if xb-xa > 2*sc {
				l.Segment(xb, gy, xb, gy+rowH, 1*sc, th.Background)
			}
		}
		if t >= ln.End {
			ex := at(ln.End)
			l.Segment(ex, ry-ts*0.2, ex, gy+rowH+ts*0.2, 2*sc, th.Text)
			nw := draw.TextWidth(ln.Note, ts)
			nx := draw.Clamp(ex, tx+nw/2, tx+tw-nw/2)
			l.Label(nx, gy+rowH+ts*0.3, ts, draw.AlignCenter, th.Text, draw.Fit(ln.Note, ts, tw))
		}
	}
	// The time axis: 0, the span, and the clock.
	ay := bottom + ts*0.4
	l.Segment(tx, ay, tx+tw, ay, 1*sc, th.Dim)
	l.Label(tx, ay+ts*0.2, ts, draw.AlignLeft, th.Dim, "0")
	span := v.SpanLabel
	l.Label(tx+tw, ay+ts*0.2, ts, draw.AlignRight, th.Dim, span)
	px := at(t)
	l.Segment(px, y, px, ay, 1.5*sc, th.Dim)
	if axis := draw.Fit(v.Axis, ts, tw-draw.TextWidth(span, ts)*2-ts*2); axis != "" {
		l.Label(tx+tw/2, ay+ts*0.2, ts, draw.AlignCenter, th.Dim, axis)
	}
	if n1 != "" {
		l.Label(x, ay+lh*1.3, ts, draw.AlignLeft, th.Text, n1)
	}
	if n2 != "" {
		l.Label(x, ay+lh*2.3, ts, draw.AlignLeft, th.Text, n2)
	}
	return l
}
