package render

// Label widths for layout. textWidth is the painter's measure; until the
// canvas font's exact metrics land (render/font), it counts every rune as
// 0.56 em, while a CJK character is a whole em and a capital up to 0.83.
// Pictures that lay out words of both languages measure with labelW,
// which is never narrower than the font's advance: what fits by labelW
// fits on the canvas.

// labelW is an upper bound of s's width at size fs.
func labelW(s string, fs float32) float32 {
	var em float32
	for _, r := range s {
		em += runeEm(r)
	}
	return maxf(em*fs, textWidth(s, fs))
}

// runeEm is a rune's advance in ems, rounded up (Go Regular's metrics;
// full-width and CJK runes one em).
func runeEm(r rune) float32 {
	switch {
	case r >= 0x2e80 || r == '—' || r == '…' || r == '→' || r == '←':
		return 1
	case r == 'M' || r == 'W' || r == 'm' || r == 'w' || r == '%' || r == '@':
		return 0.95
	case r >= 'A' && r <= 'Z':
		return 0.78
	case r == ' ' || r == 'i' || r == 'j' || r == 'l' || r == '.' || r == ',' || r == ':' || r == '·' || r == '|' || r == '\'':
		return 0.32
	}
	return 0.58
}

// fitLabel is s cut, with an ellipsis, to w pixels at size fs by labelW.
func fitLabel(s string, fs, w float32) string {
	if labelW(s, fs) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && labelW(string(r)+"…", fs) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// wrap2 breaks s into two lines that fit w at fs: after the last " · ",
// "，", "：" or space that leaves the first line within w (the second cut
// to fit); s and "" when it fits on one.
func wrap2(s string, fs, w float32) (string, string) {
	if labelW(s, fs) <= w {
		return s, ""
	}
	best := -1
	for i, r := range s {
		if r != ' ' && r != '，' && r != '：' && r != '·' {
			continue
		}
		end := i
		if r != ' ' {
			end += len(string(r))
		}
		if labelW(s[:end], fs) > w {
			break
		}
		best = end
	}
	if best <= 0 {
		return fitLabel(s, fs, w), ""
	}
	a, b := s[:best], s[best:]
	for len(b) > 0 && (b[0] == ' ') {
		b = b[1:]
	}
	if len(b) >= 2 && b[:2] == "· " {
		b = b[2:]
	}
	for len(a) > 0 && a[len(a)-1] == ' ' {
		a = a[:len(a)-1]
	}
	if len(a) >= 2 && a[len(a)-2:] == "·" {
		a = a[:len(a)-2]
	}
	return a, fitLabel(b, fs, w)
}
