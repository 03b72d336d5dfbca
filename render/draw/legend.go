package draw

// Legend entries and the legend row every picture can share: a swatch (a
// filled square, or a hatched one) and its label, laid out left to right
// and wrapped to the width given, each entry also recorded as the List's
// Key for its colour.

// LegendEntry is one swatch of a legend.
type LegendEntry struct {
	Color Color
	Hatch bool // hatching in Color over the panel (recomputation, say)
	Label string
}

// Legend draws entries from (x, y) — the top of the first line — wrapping
// within w, at text size fs, and records each as a key. It returns the
// height it took.
func Legend(l *List, th Theme, x, y, w, fs, sc float32, entries ...LegendEntry) float32 {
	sw := fs * 0.9
	lineH := fs * LineHeight * 1.15
	cx, cy := x, y
	for _, e := range entries {
		ew := sw + fs*0.4 + TextWidth(e.Label, fs) + fs
		if cx > x && cx+ew-fs > x+w {
			cx, cy = x, cy+lineH
		}
		sy := cy + (fs*LineHeight-sw)/2
		if e.Hatch {
			l.Rect(cx, sy, sw, sw, th.Panel)
			Hatch(l, cx, sy, sw, sw, sw/3, 1*sc, e.Color)
			l.Frame(cx, sy, sw, sw, 1*sc, e.Color)
			l.HatchKey(e.Color, e.Label)
		} else {
			l.Rect(cx, sy, sw, sw, e.Color)
			l.Key(e.Color, e.Label)
		}
		l.Label(cx+sw+fs*0.4, cy, fs, AlignLeft, th.Text, e.Label)
		cx += ew
	}
	return cy + lineH - y
}

// LegendHeight is the height Legend would take, without drawing.
func LegendHeight(w, fs float32, entries ...LegendEntry) float32 {
	sw := fs * 0.9
	lineH := fs * LineHeight * 1.15
	cx, lines := float32(0), float32(1)
	for _, e := range entries {
		ew := sw + fs*0.4 + TextWidth(e.Label, fs) + fs
		if cx > 0 && cx+ew-fs > w {
			cx, lines = 0, lines+1
		}
		cx += ew
	}
	return lines * lineH
}
