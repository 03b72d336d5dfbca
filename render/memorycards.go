package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"
)

// AppendCards draws a model's bytes poured into GPU cards (PICTURES.md:
// "the 100B model's bytes poured into 80 GB cards one kind at a time,
// the cards counted as they fill"). Every row is a strip of card
// outlines on one scale — a card's width is Card bytes — filled bottom
// up, card after card, with the row's segments in their memory colours;
// at the right of its label, how many cards the bytes take (a part-full
// card counts). The segments from Pour on arrive as Progress grows. An
// estimate row fills its solid range in the theme's Link and hatches on
// to its High end; a hidden row keeps its cards empty under a "?".
func AppendCards(dst draw.List, v CardsView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Rows) == 0 || !(v.Card > 0) {
		return l
	}
	ts := draw.TextSize(sc)
	fs, pad := draw.HeadFont(st, sc)
	x, y := st.X+pad, st.Y+pad*0.5
	w := st.W - 2*pad
	if v.Headline != "" {
		draw.Headline(&l, th, st, sc, v.Headline)
		y = st.Y + draw.HeadlineHeight(st, sc, v.Headline)
	}
	prog := v.Progress
	if !(prog >= 0) || prog > 1 {
		prog = 1
	}
	// The legend: the kinds the rows pour, and the estimate.
	var entries [len(memoryKeys) + 1]draw.LegendEntry
	ne := 0
	for _, k := range memoryKeys {
		for _, r := range v.Rows {
			if used(r, k.key) {
				entries[ne] = draw.LegendEntry{Color: k.col, Label: v.Words.Say("canvas.mem." + k.key)}
				ne++
				break
			}
		}
	}
	for _, r := range v.Rows {
		if r.High > 0 && !r.Hidden && r.Estimate != "" {
			entries[ne] = draw.LegendEntry{Color: th.Link, Label: r.Estimate}
			ne++
			break
		}
	}
	y += draw.Legend(&l, th, x, y, w, ts, sc, entries[:ne]...) + ts*0.3

	// One scale for every row: as many card slots as the fullest needs.
	slots := max(1, v.Slots)
	for _, r := range v.Rows {
		slots = max(slots, cardsFor(math.Max(rowBytes(r, 1), r.High), v.Card))
	}
	gap := draw.Clamp(w/float32(slots)*0.12, 1*sc, 6*sc)
	cw := (w - gap*float32(slots-1)) / float32(slots)
	labelH := draw.Maxf(fs, ts) * draw.LineHeight * 1.15
	pitch := (st.Y + st.H - pad*0.5 - y) / float32(len(v.Rows))
	ch := draw.Clamp(pitch-labelH-ts, ts, draw.Maxf(cw*2.2, ts*2))
	if cw < 2*sc || pitch < labelH+ts {
		return l
	}
	for ri, r := range v.Rows {
		ry := y + pitch*float32(ri)
		total := rowBytes(r, prog)
		n := cardsFor(total, v.Card)
		count := "?"
		if !r.Hidden {
			count = v.Words.Say("canvas.cards.count", "n", strconv.Itoa(n))
			if r.High > 0 {
				count = v.Words.Say("canvas.cards.range", "lo", strconv.Itoa(n), "hi", strconv.Itoa(cardsFor(r.High, v.Card)))
			}
		}
		cwid := draw.TextWidth(count, fs)
		l.Label(x+w, ry, fs, draw.AlignRight, th.Text, count)
		l.Label(x, ry+(fs-ts)*0.6, ts, draw.AlignLeft, th.Text, draw.Fit(r.Label, ts, w-cwid-ts))
		cy := ry + labelH
		// The cards the row needs are outlined; the rest of the scale is a
		// faint track.
		need := cardsFor(math.Max(rowBytes(r, 1), r.High), v.Card)
		for k := range slots {
			cx := x + float32(k)*(cw+gap)
			if k < need {
				l.Rect(cx, cy, cw, ch, th.Panel)
				l.Frame(cx, cy, cw, ch, 1*sc, th.Link)
			}
		}
		if r.Hidden {
			qs := draw.Clamp(ch*0.6, ts, fs*2.2)
			l.Label(x+w/2, cy+(ch-qs*draw.LineHeight)/2, qs, draw.AlignCenter, th.Dim, "?")
			continue
		}
		// Bytes bottom up, card after card.
		fill := func(from, to float64, c draw.Color, hatch bool) {
			for k := int(from / v.Card); k < slots && float64(k)*v.Card < to; k++ {
				a := math.Max(from, float64(k)*v.Card) - float64(k)*v.Card
				b := math.Min(to, float64(k+1)*v.Card) - float64(k)*v.Card
				if b <= a {
					continue
				}
				cx := x + float32(k)*(cw+gap)
				y0 := cy + ch*(1-float32(b/v.Card))
				hgt := ch * float32((b-a)/v.Card)
				if hatch {
					draw.Hatch(&l, cx, y0, cw, hgt, draw.Maxf(cw*0.35, 4*sc), 1.2*sc, c)
				} else {
					l.Rect(cx, y0, cw, hgt, c)
				}
			}
		}
		if r.High > 0 {
			fill(0, r.Bytes, th.Link, false)
			fill(r.Bytes, r.High, th.Link, true)
			continue
		}
		sum := 0.0
		for i, s := range r.Segments {
			b := math.Max(0, s.Bytes)
			if i >= r.Pour {
				b *= prog
			}
			if b > 0 {
				fill(sum, sum+b, memoryColour(s.Key, th), false)
			}
			sum += b
		}
	}
	return l
}

// used reports whether a row pours bytes of a key.
func used(r CardsRow, key string) bool {
	if r.Hidden || r.High > 0 {
		return false
	}
	for _, s := range r.Segments {
		if s.Key == key && s.Bytes > 0 {
			return true
		}
	}
	return false
}

// rowBytes is what a row holds with prog of its pouring segments in.
func rowBytes(r CardsRow, prog float64) float64 {
	if r.High > 0 {
		return r.Bytes
	}
	t := 0.0
	for i, s := range r.Segments {
		b := math.Max(0, s.Bytes)
		if i >= r.Pour {
			b *= prog
		}
		t += b
	}
	return t
}

// cardsFor is how many cards of card bytes hold b (a part-full one
// counts; none for nothing).
func cardsFor(b, card float64) int {
	if !(b > 0) {
		return 0
	}
	return int(math.Ceil(b/card - 1e-9))
}
