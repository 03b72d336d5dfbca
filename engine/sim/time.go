package sim

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// Time is simulated time in integer picoseconds.
type Time int64

// Units of simulated time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000 * Picosecond
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// FromSeconds converts seconds to Time, rounding to the nearest picosecond.
// Values beyond the range of Time saturate.
func FromSeconds(s float64) Time {
	ps := s * float64(Second)
	switch {
	case math.IsNaN(ps):
		return 0
	case ps >= math.MaxInt64:
		return Time(math.MaxInt64)
	case ps <= math.MinInt64:
		return Time(math.MinInt64)
	}
	return Time(math.Round(ps))
}

// TransferTime is the time to push n bytes through a link of bw bytes per
// second, rounded up to a whole picosecond: a transfer never finishes early.
func TransferTime(n int64, bw float64) Time {
	if n <= 0 || bw <= 0 {
		return 0
	}
	return Time(math.Ceil(float64(n) * float64(Second) / bw))
}

// String formats t for reading, as package units does every duration:
// three significant digits and an SI unit suited to its size, e.g.
// "12.5 µs".
func (t Time) String() string { return units.Duration(t.Seconds()) }
