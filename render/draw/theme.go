package draw

import "math"

// Theme holds the colours of a picture. Chunk colours come from Chunk.
type Theme struct {
	Background, Panel, Text, Dim    Color
	Link, LinkActive, Hot, GPU, Rim Color
	Empty                           Color
}

// Dark is the default theme; its background matches the page's CSS
// (--bg in site/style.css). The accents come from the Okabe–Ito palette
// (Okabe & Ito, "Color Universal Design", 2008), whose blue, vermillion
// and bluish green stay apart for readers with red–green colour blindness:
// a hot spot (vermillion) never relies on red against green.
var Dark = Theme{
	Background: Color{0x10, 0x14, 0x1c, 255},
	Panel:      Color{0x1b, 0x22, 0x2e, 255},
	Text:       Color{0xe8, 0xec, 0xf2, 255},
	Dim:        Color{0x8a, 0x94, 0xa6, 255},
	Link:       Color{0x3a, 0x46, 0x5a, 255},
	LinkActive: Color{0x56, 0xb4, 0xe9, 255}, // Okabe–Ito sky blue
	Hot:        Color{0xf0, 0x72, 0x1e, 255}, // Okabe–Ito vermillion, lifted for a dark page
	GPU:        Color{0x26, 0x30, 0x40, 255},
	Rim:        Color{0x00, 0xb3, 0x82, 255}, // Okabe–Ito bluish green
	Empty:      Color{0x33, 0x3d, 0x4d, 255},
}

// Light is the theme for light pages and print.
var Light = Theme{
	Background: Color{0xf7, 0xf8, 0xfa, 255},
	Panel:      Color{0xff, 0xff, 0xff, 255},
	Text:       Color{0x14, 0x1a, 0x24, 255},
	Dim:        Color{0x5a, 0x64, 0x74, 255},
	Link:       Color{0xb8, 0xc2, 0xd0, 255},
	LinkActive: Color{0x00, 0x72, 0xb2, 255}, // Okabe–Ito blue
	Hot:        Color{0xd5, 0x5e, 0x00, 255}, // Okabe–Ito vermillion
	GPU:        Color{0xe6, 0xea, 0xf0, 255},
	Rim:        Color{0x00, 0x86, 0x62, 255}, // Okabe–Ito bluish green, darkened for a light page
	Empty:      Color{0xd4, 0xda, 0xe2, 255},
}

// Projector is presentation mode's theme: a white page (a projector washes
// out dark ones) with black text and saturated, darker accents, so that the
// picture reads from the back of a room. Its accents keep the Okabe–Ito
// palette's colour-blind-safe pairs: blue for active links, vermillion for
// hot spots, bluish green for rims.
var Projector = Theme{
	Background: Color{0xff, 0xff, 0xff, 255},
	Panel:      Color{0xff, 0xff, 0xff, 255},
	Text:       Color{0x00, 0x00, 0x00, 255},
	Dim:        Color{0x2e, 0x33, 0x3b, 255},
	Link:       Color{0x7a, 0x84, 0x92, 255},
	LinkActive: Color{0x00, 0x5a, 0xb5, 255},
	Hot:        Color{0xc8, 0x3c, 0x00, 255},
	GPU:        Color{0xe4, 0xe8, 0xee, 255},
	Rim:        Color{0x00, 0x7a, 0x55, 255},
	Empty:      Color{0xc4, 0xcb, 0xd5, 255},
}

// Chunk is the colour of slice i of n of a vector: hues spread evenly
// around the wheel, starting from blue, at a lightness that stands out on
// both themes.
func Chunk(i, n int) Color {
	if n <= 0 {
		n = 1
	}
	h := math.Mod(210+360*float64(i)/float64(n), 360)
	return hsl(h, 0.70, 0.58)
}

// hsl converts hue (degrees), saturation and lightness (0..1) to a Color.
func hsl(h, s, l float64) Color {
	c := (1 - math.Abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch {
	case hp < 1:
		r, g, b = c, x, 0
	case hp < 2:
		r, g, b = x, c, 0
	case hp < 3:
		r, g, b = 0, c, x
	case hp < 4:
		r, g, b = 0, x, c
	case hp < 5:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	m := l - c/2
	to := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return Color{to(r), to(g), to(b), 255}
}
