package draw

import (
	"math"
)

// Rect is an axis-aligned rectangle in device pixels.
type Rect struct{ X, Y, W, H float32 }

func Clamp(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func Maxf(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func Minf(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

// Hatch draws 45° lines every step pixels across a rectangle,
// clipped to it.
func Hatch(l *List, x, y, w, h, step, width float32, c Color) {
	if w <= 0 || h <= 0 || step <= 0 {
		return
	}
	// A line from (c, y+h) to (c+h, y), for c from x−h to x+w.
	for c0 := x - h + step/2; c0 < x+w; c0 += step {
		ulo := Maxf(0, (x-c0)/h)
		uhi := Minf(1, (x+w-c0)/h)
		if uhi <= ulo {
			continue
		}
		l.Segment(c0+ulo*h, y+h-ulo*h, c0+uhi*h, y+h-uhi*h, width, c)
	}
}

func ClampF(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func Abs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// clDashed draws an axis-aligned line as dashes.
func Dashed(l *List, x1, y1, x2, y2, dash, gap, width float32, c Color) {
	length := Abs(x2-x1) + Abs(y2-y1)
	if length <= 0 || dash <= 0 {
		return
	}
	ux, uy := (x2-x1)/length, (y2-y1)/length
	for t := float32(0); t < length; t += dash + gap {
		e := Minf(t+dash, length)
		l.Segment(x1+ux*t, y1+uy*t, x1+ux*e, y1+uy*e, width, c)
	}
}
