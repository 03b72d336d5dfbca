package render

// The strategy pictures' headline: the step's point in a line over the
// picture, at the size of the picture's own words.

// headFont is the headline's size and the margin around it on a stage.
func headFont(st Rect, sc float32) (fs, pad float32) {
	fs = clamp(minf(st.W, st.H)/34, textSize(sc), 19*sc)
	return fs, fs * 0.6
}

// HeadlineHeight is the height a headline takes at the top of a stage.
func HeadlineHeight(st Rect, sc float32) float32 {
	if sc <= 0 {
		sc = 1
	}
	fs, pad := headFont(st, sc)
	return pad*0.5 + fs*LineHeight*1.15
}

// Headline draws s at the top of a stage, cut to its width.
func Headline(l *List, th Theme, st Rect, sc float32, s string) {
	if s == "" || st.W <= 0 {
		return
	}
	if sc <= 0 {
		sc = 1
	}
	fs, pad := headFont(st, sc)
	l.Label(st.X+pad, st.Y+pad*0.5, fs, AlignLeft, th.Text, fitText(s, fs, st.W-2*pad))
}
