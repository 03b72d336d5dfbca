package draw

// The strategy pictures' headline: the step's point over the picture, at
// the size of the picture's own words, on a second line where one is too
// short (a phone), so that its numbers stay on the canvas.

// HeadFont is the headline's size and the margin around it on a stage.
func HeadFont(st Rect, sc float32) (fs, pad float32) {
	fs = Clamp(Minf(st.W, st.H)/34, TextSize(sc), 19*sc)
	return fs, fs * 0.6
}

// HeadlineHeight is the height headline s takes at the top of a stage.
func HeadlineHeight(st Rect, sc float32, s string) float32 {
	if sc <= 0 {
		sc = 1
	}
	fs, pad := HeadFont(st, sc)
	n := float32(1)
	if _, b := Wrap2(s, fs, st.W-2*pad); b != "" {
		n = 2
	}
	return pad*0.5 + fs*LineHeight*(n+0.15)
}

// Headline draws s at the top of a stage, on two lines where it does not
// fit one (the second cut to the width).
func Headline(l *List, th Theme, st Rect, sc float32, s string) {
	if s == "" || st.W <= 0 {
		return
	}
	if sc <= 0 {
		sc = 1
	}
	fs, pad := HeadFont(st, sc)
	a, b := Wrap2(s, fs, st.W-2*pad)
	l.Label(st.X+pad, st.Y+pad*0.5, fs, AlignLeft, th.Text, a)
	if b != "" {
		l.Label(st.X+pad, st.Y+pad*0.5+fs*LineHeight, fs, AlignLeft, th.Text, b)
	}
}
