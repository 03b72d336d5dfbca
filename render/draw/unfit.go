package draw

// UnfitVeil draws, over r, a plan that does not fit its GPUs' memory as
// not running: r veiled in the background and hatched in the hot colour
// (keyed with label), and label — what the plan needs a GPU against what
// a GPU can use — in a framed box centred on mid (a part of r: the rows,
// say), kept inside r where r is tall enough, on two lines where one is
// too wide and r is tall enough for two, else on one cut to fit. It
// returns the box (which may stand out of a short r).
func UnfitVeil(l *List, th Theme, r, mid Rect, sc, fs float32, label string) Rect {
	if r.W <= 0 || r.H <= 0 || label == "" {
		return Rect{}
	}
	l.Rect(r.X, r.Y, r.W, r.H, WithAlpha(th.Background, 200))
	hot := WithAlpha(th.Hot, 110)
	gap := Maxf(10*sc, fs*0.8)
	for d := -r.H; d < r.W; d += gap {
		x1, y1 := r.X+d, r.Y+r.H
		x2, y2 := x1+r.H, r.Y
		if x1 < r.X {
			y1 -= r.X - x1
			x1 = r.X
		}
		if x2 > r.X+r.W {
			y2 += x2 - (r.X + r.W)
			x2 = r.X + r.W
		}
		if x2 > x1 {
			l.Segment(x1, y1, x2, y2, 1*sc, hot)
		}
	}
	l.Key(th.Hot, label)
	pad := fs * 0.5
	l1, l2 := Wrap2(label, fs, r.W-4*pad)
	w := TextWidth(l1, fs)
	lines := float32(1)
	if l2 != "" {
		w, lines = Maxf(w, TextWidth(l2, fs)), 2
	}
	w = Minf(w, r.W-2*pad)
	if l2 != "" && lines*fs*LineHeight+pad > r.H {
		// No room for two lines: one, cut (the key keeps it whole).
		l1, l2, lines = Fit(label, fs, r.W-4*pad), "", 1
		w = Minf(TextWidth(l1, fs), r.W-2*pad)
	}
	bw, bh := w+2*pad, lines*fs*LineHeight+pad
	bx := r.X + (r.W-bw)/2
	by := mid.Y + (mid.H-bh)/2
	if bh <= r.H {
		by = Clamp(by, r.Y, r.Y+r.H-bh)
	}
	l.Rect(bx, by, bw, bh, th.Background)
	l.Frame(bx, by, bw, bh, 1.5*sc, th.Hot)
	l.Label(r.X+r.W/2, by+pad/2, fs, AlignCenter, th.Text, l1)
	if l2 != "" {
		l.Label(r.X+r.W/2, by+pad/2+fs*LineHeight, fs, AlignCenter, th.Text, l2)
	}
	return Rect{bx, by, bw, bh}
}
