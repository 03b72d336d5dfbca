package draw

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
)

// BytesLabel is units.Bytes(b), formatted once per value.
func BytesLabel(b float64) string {
	return bytesLabels.Format(b, units.Bytes)
}

var bytesLabels Memo[float64]

// smallInts are small numbers as digits (micro-batches, a node's GPUs),
// each made the first time it is drawn, not every frame.
var smallInts [1024]string

func SmallInt(i int) string {
	if i < 0 || i >= len(smallInts) {
		return strconv.Itoa(i)
	}
	if smallInts[i] == "" {
		smallInts[i] = strconv.Itoa(i)
	}
	return smallInts[i]
}

// DurationLabel is units.Duration(s), formatted once per value: an axis's
// ticks are the same every frame.
func DurationLabel(s float64) string {
	return durationLabels.Format(s, units.Duration)
}

var durationLabels Memo[float64]

// Num writes an intensity: three digits, no exponent.
func Num(x float64) string {
	if x >= 1000 {
		return units.Count(int64(math.Round(x)))
	}
	return units.Number(x)
}

// Pow10 labels a decade: "0.01", "0.1", "1", "10", … "10k".
func Pow10(e int) string {
	switch {
	case e < 0:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', -e, 64)
	case e < 3:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', 0, 64)
	}
	return strconv.FormatFloat(math.Pow(10, float64(e-3)), 'f', 0, 64) + "k"
}

// linkLabel is a link's legend entry: its name (or def) and its speed,
// formatted once per link rather than every frame.
func LinkLabel(name, def string, bw float64) string {
	if name == "" {
		name = def
	}
	if bw <= 0 {
		return name
	}
	return LinkLabels.Get(LinkKey{name, bw}, func() string { return name + " " + units.Rate(bw) })
}

type LinkKey struct {
	Name string
	BW   float64
}

var LinkLabels Memo[LinkKey]
