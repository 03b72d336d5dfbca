package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/render/font"
)

// Segment colours of the memory bars: the Okabe–Ito palette (told apart
// with the common colour-vision deficiencies), its vermilion left out as
// it is too close to the themes' Hot, which marks bytes over the line.
var memoryKeys = [...]struct {
	key string
	col Color
}{
	{"weights", Color{0x56, 0xb4, 0xe9, 255}},     // sky blue
	{"gradients", Color{0x00, 0x9e, 0x73, 255}},   // bluish green
	{"optimizer", Color{0xe6, 0x9f, 0x00, 255}},   // orange
	{"activations", Color{0xcc, 0x79, 0xa7, 255}}, // reddish purple
	{"buffers", Color{0x00, 0x72, 0xb2, 255}},     // blue
}

// memoryColour is the fill of a memory segment by its Key; an unknown key
// is the theme's Dim.
func memoryColour(key string, th Theme) Color {
	for _, k := range memoryKeys {
		if k.key == key {
			return k.col
		}
	}
	return th.Dim
}

// overVeil is the alpha of the Hot veil over bytes above the line.
const overVeil = 110

// AppendMemoryBars draws one stacked bar per GPU (or stage, or
// configuration), its segments bottom-up in the order given, against a
// solid line at the GPU's capacity and a dashed one at what a job can
// use. The part of a bar over the line it must fit under (Usable, or
// Capacity without one) keeps its segments' colours under a Hot veil
// (alpha overVeil) with a Hot outline, and is labelled "+… GB over"; the
// current bar is outlined. Bars taller than the axis are cut at the top of
// the plot.
func AppendMemoryBars(dst List, v MemoryBarsView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.Bars)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	total := func(b MemoryBar) float64 {
		t := 0.0
		for _, s := range b.Segments {
			t += math.Max(0, s.Bytes)
		}
		return t
	}
	tallest := 0.0
	cur := -1
	for i, b := range v.Bars {
		tallest = math.Max(tallest, total(b))
		if b.Current && cur < 0 {
			cur = i
		}
	}
	top := v.Max
	if top <= 0 {
		top = math.Max(tallest, v.Capacity) * 1.12
	}
	if top <= 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	pad := fs
	px := st.X + pad + fs*3
	py := st.Y + pad*0.5 + fs*4
	pw := st.W - (px - st.X) - pad - fs*7
	ph := st.Y + st.H - pad - fs*1.6 - py
	if pw <= 0 || ph <= 0 {
		return l
	}
	y := func(b float64) float32 { return py + ph*(1-float32(math.Min(b, top)/top)) }

	// Legend: the keys the bars use, in the canonical order.
	lfs := minf(fs*0.85, (st.W-2*pad)/36)
	lx := px
	for _, k := range memoryKeys {
		used := false
		for _, b := range v.Bars {
			for _, s := range b.Segments {
				used = used || (s.Key == k.key && s.Bytes > 0)
			}
		}
		if !used {
			continue
		}
		l.Rect(lx, st.Y+pad*0.5+lfs*0.1, lfs*0.8, lfs*0.8, k.col)
		l.Label(lx+lfs*1.1, st.Y+pad*0.5, lfs, AlignLeft, th.Text, k.key)
		lx += lfs*2.2 + textWidth(k.key, lfs)
	}

	// The axis in GB: gridlines at a round step.
	l.Label(px-fs*0.4, py-fs*1.5, fs*0.85, AlignRight, th.Dim, "GB")
	step := niceStep(top / 1e9 / 4)
	for g := 0.0; g*1e9 <= top*1.0001; g += step {
		gy := y(g * 1e9)
		l.Segment(px, gy, px+pw, gy, 1*sc, th.Panel)
		l.Label(px-fs*0.4, gy-fs*0.5, fs*0.85, AlignRight, th.Dim, strconv.FormatFloat(g, 'f', decimals(step), 64))
	}
	l.Segment(px, py+ph, px+pw, py+ph, 1*sc, th.Dim)

	// The bars: evenly spaced, narrower as there are more of them, with
	// every k-th label where they would overlap.
	slot := pw / float32(n)
	bw := minf(slot*0.62, fs*5)
	limit := v.Usable
	if limit <= 0 {
		limit = v.Capacity
	}
	bfs := fs * 0.85
	if slot < fs*2 {
		bfs = maxf(fs*0.7, 8*sc)
	}
	widest := float32(0)
	for _, b := range v.Bars {
		widest = maxf(widest, textWidth(b.Label, bfs))
	}
	for i, b := range v.Bars {
		x := px + slot*(float32(i)+0.5) - bw/2
		t := total(b)
		// Segments bottom-up; the part above the limit keeps its colours
		// under a Hot veil and a Hot outline, so the reader still sees
		// what overflows.
		capAt := top
		over := limit > 0 && t > limit
		sum := 0.0
		for _, s := range b.Segments {
			if s.Bytes <= 0 {
				continue
			}
			lo, hi := sum, math.Min(sum+s.Bytes, capAt)
			sum += s.Bytes
			if hi <= lo {
				continue
			}
			l.Rect(x, y(hi), bw, y(lo)-y(hi), memoryColour(s.Key, th))
		}
		if over && limit < top {
			veil := th.Hot
			veil.A = overVeil
			yt := y(math.Min(t, top))
			l.Rect(x, yt, bw, y(limit)-yt, veil)
			l.Frame(x, yt, bw, y(limit)-yt, 2*sc, th.Hot)
		}
		if t > top {
			// Cut at the top of the plot: a break mark across the bar.
			for k := float32(0); k < 2; k++ {
				by := py + fs*(0.5+0.5*k)
				l.Segment(x-2*sc, by+fs*0.3, x+bw+2*sc, by-fs*0.3, 2*sc, th.Background)
			}
		}
		if i == cur {
			barTop := y(t)
			l.Frame(x-2*sc, barTop-2*sc, bw+4*sc, maxf(py+ph-barTop, 0)+2*sc, 2*sc, th.Text)
		}
	}

	// Capacity (solid) and what a job can use (dashed), labelled at the
	// right.
	capY := float32(-1)
	if v.Capacity > 0 && v.Capacity <= top {
		capY = y(v.Capacity)
		l.Segment(px, capY, px+pw, capY, 2*sc, th.Text)
		l.Label(px+pw+fs*0.4, capY-fs*0.5, fs*0.85, AlignLeft, th.Text, gbLabel(v.Capacity)+" GB")
	}
	if v.Usable > 0 && v.Usable <= top {
		uy := y(v.Usable)
		dash, gap := fs*0.6, fs*0.4
		for x := px; x < px+pw; x += dash + gap {
			l.Segment(x, uy, minf(x+dash, px+pw), uy, 1.5*sc, th.Text)
		}
		ly := uy - fs*0.5
		if capY >= 0 && absf(ly-(capY-fs*0.5)) < fs*1.1 {
			ly = capY - fs*0.5 + fs*1.1
		}
		l.Label(px+pw+fs*0.4, ly, fs*0.85, AlignLeft, th.Dim, "usable "+gbLabel(v.Usable)+" GB")
	}

	// Labels under the bars: every k-th where they would overlap, and the
	// current bar's (its neighbours' giving way).
	every := labelEvery(widest, slot)
	for i, b := range v.Bars {
		shown := i%every == 0 && (cur < 0 || abs(i-cur) >= every)
		if !shown && i != cur {
			continue
		}
		col := th.Dim
		if i == cur {
			col = th.Text
		}
		l.Label(px+slot*(float32(i)+0.5), py+ph+fs*0.4, bfs, AlignCenter, col, b.Label)
	}
	// Above each bar its total and, over the line, by how much; where they
	// would crowd, one label a bar (the excess, when there is one) where
	// it clears the one before and the current bar's.
	crowded := textWidth("+88.8 GB over", bfs)+bfs*0.5 > slot
	topText := func(i int) (string, Color) {
		t := total(v.Bars[i])
		col := th.Dim
		if i == cur {
			col = th.Text
		}
		if crowded && limit > 0 && t > limit {
			return "+" + gbLabel(t-limit) + " GB over", th.Hot
		}
		return gbLabel(t) + " GB", col
	}
	curL, curR := float32(math.Inf(1)), float32(math.Inf(-1))
	if crowded && cur >= 0 {
		s, _ := topText(cur)
		w := textWidth(s, bfs)
		cx := clamp(px+slot*(float32(cur)+0.5), px+w/2, px+pw-w/2)
		curL, curR = cx-w/2-bfs*0.5, cx+w/2+bfs*0.5
	}
	right := float32(math.Inf(-1))
	for i, b := range v.Bars {
		t := total(b)
		cx, barTop := px+slot*(float32(i)+0.5), y(t)
		s, col := topText(i)
		if crowded {
			w := textWidth(s, bfs)
			cx = clamp(cx, px+w/2, px+pw-w/2) // clear of the lines' labels
			if i != cur && (cx-w/2 < right+bfs*0.5 || (cx+w/2 > curL && cx-w/2 < curR)) {
				continue
			}
			right = cx + w/2
		}
		l.Label(cx, barTop-bfs*1.35, bfs, AlignCenter, col, s)
		if !crowded && limit > 0 && t > limit {
			l.Label(cx, barTop-bfs*2.6, bfs, AlignCenter, th.Hot, "+"+gbLabel(t-limit)+" GB over")
		}
	}
	return l
}

// gbLabel writes bytes in GB (10⁹ bytes), to a tenth: "80", "61.3",
// "0.25" below a tenth.
func gbLabel(b float64) string {
	g := b / 1e9
	switch {
	case g >= 100:
		return strconv.FormatFloat(g, 'f', 0, 64)
	case g > 0 && g < 0.1:
		return strconv.FormatFloat(g, 'g', 2, 64)
	}
	return strings.TrimSuffix(strconv.FormatFloat(g, 'f', 1, 64), ".0")
}

// niceStep is 1, 2 or 5 times a power of ten, the nearest to x (by
// ratio).
func niceStep(x float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	switch f := x / p; {
	case f < math.Sqrt(2):
		return p
	case f < math.Sqrt(10):
		return 2 * p
	case f < math.Sqrt(50):
		return 5 * p
	}
	return 10 * p
}

// decimals is the digits after the point that multiples of step need.
func decimals(step float64) int {
	if step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}

// textWidth is a label's width as the painter draws it (render/font).
func textWidth(s string, size float32) float32 {
	return font.Width(s, size)
}

// labelEvery is k such that labels of width w, one a slot of width slot,
// do not overlap when every k-th is drawn.
func labelEvery(w, slot float32) int {
	if slot <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64((w+slot*0.15)/slot))))
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func absf(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
