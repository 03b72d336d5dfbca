package draw

import (
	"math"
)

func WithAlpha(c Color, a uint8) Color { c.A = a; return c }

// CommColour is communication on the critical path: Hot, darkened.
func CommColour(th Theme) Color { return Mix(th.Hot, Color{0, 0, 0, 255}, 0.3) }

// Mix is a + (b − a)·f per channel, keeping a's alpha.
func Mix(a, b Color, f float64) Color {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*f)) }
	return Color{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), a.A}
}

// Palette colours series (and race lanes) in order: the Okabe–Ito
// colours that read on both themes, its vermilion and yellow left out
// (too close to Hot, too faint on Light).
var Palette = [...]Color{
	{0x56, 0xb4, 0xe9, 255}, // sky blue
	{0xe6, 0x9f, 0x00, 255}, // orange
	{0x00, 0x9e, 0x73, 255}, // bluish green
	{0xcc, 0x79, 0xa7, 255}, // reddish purple
	{0x00, 0x72, 0xb2, 255}, // blue
}
