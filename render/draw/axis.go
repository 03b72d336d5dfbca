package draw

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// NiceStep is 1, 2 or 5 times a power of ten, the nearest to x (by
// ratio).
func NiceStep(x float64) float64 {
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

// Decimals is the digits after the point that multiples of step need.
func Decimals(step float64) int {
	if step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}

// LabelEvery is k such that labels of width w, one a slot of width slot,
// do not overlap when every k-th is drawn.
func LabelEvery(w, slot float32) int {
	if slot <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64((w+slot*0.15)/slot))))
}

// TickLabel is an axis tick's number, formatted once.
func TickLabel(t float64, dec int) string {
	return tickLabels.Get(tickKey{t, dec}, func() string { return strconv.FormatFloat(t, 'f', dec, 64) })
}

type tickKey struct {
	t   float64
	dec int
}

var tickLabels Memo[tickKey]

// sizeDecades is the whole decades around lo…hi (values), at least one
// apart; without values, dlo…dhi.
func Decades(lo, hi float64, dlo, dhi int) (int, int) {
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return dlo, dhi
	}
	a := int(math.Floor(math.Log10(lo) + 1e-9))
	b := int(math.Ceil(math.Log10(hi) - 1e-9))
	if b <= a {
		b = a + 1
	}
	return a, b
}

// Decade labels, made once: bytes 1 B … 100 EB, times 1 ps … 1000 s.
var (
	sizeBytesDecades = func() (t [21]string) {
		for e := range t {
			t[e] = units.Bytes(math.Pow(10, float64(e)))
		}
		return t
	}()
	sizeTimeDecades = func() (t [16]string) {
		for i := range t {
			t[i] = units.Duration(math.Pow(10, float64(i-12)))
		}
		return t
	}()
)

// sizeDecadeBytes labels the decade 10^e bytes: "1 kB", "10 MB".
func DecadeBytes(e int) string {
	if e >= 0 && e < len(sizeBytesDecades) {
		return sizeBytesDecades[e]
	}
	return units.Bytes(math.Pow(10, float64(e)))
}

// sizeDecadeTime labels the decade 10^e seconds: "10 µs", "1 ms".
func DecadeTime(e int) string {
	if i := e + 12; i >= 0 && i < len(sizeTimeDecades) {
		return sizeTimeDecades[i]
	}
	return units.Duration(math.Pow(10, float64(e)))
}
