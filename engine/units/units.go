package units

import (
	"math"
	"strconv"
	"strings"
)

// Digits is the number of significant digits every formatter keeps.
const Digits = 3

// unit is a symbol and how many base units it holds.
type unit struct {
	factor float64
	symbol string
}

var (
	decimalBytes = []unit{{1, "B"}, {1e3, "kB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}, {1e15, "PB"}}
	binaryBytes  = []unit{{1, "B"}, {1 << 10, "KiB"}, {1 << 20, "MiB"}, {1 << 30, "GiB"}, {1 << 40, "TiB"}, {1 << 50, "PiB"}}
	rates        = []unit{{1, "B/s"}, {1e3, "kB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}, {1e15, "PB/s"}}
	flops        = []unit{{1, "FLOP"}, {1e3, "kFLOP"}, {1e6, "MFLOP"}, {1e9, "GFLOP"}, {1e12, "TFLOP"}, {1e15, "PFLOP"},
		{1e18, "EFLOP"}, {1e21, "ZFLOP"}, {1e24, "YFLOP"}}
	flopRates = []unit{{1, "FLOP/s"}, {1e3, "kFLOP/s"}, {1e6, "MFLOP/s"}, {1e9, "GFLOP/s"}, {1e12, "TFLOP/s"},
		{1e15, "PFLOP/s"}, {1e18, "EFLOP/s"}}
	paramUnits = []unit{{1, ""}, {1e3, "K"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}}
	shortTimes = []unit{{1e-12, "ps"}, {1e-9, "ns"}, {1e-6, "µs"}, {1e-3, "ms"}, {1, "s"}}
	// Long durations: a unit is used from its threshold up (days from
	// 48 hours: "36 h" reads better than "1.5 d").
	longTimes = []struct {
		unit
		from float64
	}{{unit{60, "min"}, 60}, {unit{3600, "h"}, 3600}, {unit{86400, "d"}, 2 * 86400}}
)

// Bytes is b bytes in decimal units: "900 B", "64 kB", "34.8 GB", "1.62 TB".
func Bytes(b float64) string { return scaled(b, decimalBytes) }

// BytesDigits is Bytes with n significant digits instead of three, for a
// figure compared against a budget to the kilobyte: BytesDigits(3496012, 4)
// = "3.496 MB".
func BytesDigits(b float64, n int) string { return scaledDigits(b, decimalBytes, n) }

// BytesIEC is b bytes in binary units: "256 MiB", "1.75 GiB", "12 KiB".
func BytesIEC(b float64) string { return scaled(b, binaryBytes) }

// Rate is a bandwidth in bytes per second: "900 GB/s", "12.5 GB/s".
func Rate(bps float64) string { return scaled(bps, rates) }

// FLOP is a count of floating-point operations: "3.15 ZFLOP", "1.1 TFLOP".
func FLOP(f float64) string { return scaled(f, flops) }

// FLOPS is a rate of floating-point operations: "989 TFLOP/s".
func FLOPS(f float64) string { return scaled(f, flopRates) }

// Params is a count of model parameters as the field writes it: "175B",
// "7.24B", "124M", "40K" (three significant digits; B = 10^9).
func Params(n float64) string {
	return strings.ReplaceAll(scaled(n, paramUnits), " ", "")
}

// Duration is s seconds in English: "45 µs", "2.7 ms", "1.42 s", "10 min",
// "3.1 h", "54 d".
func Duration(s float64) string { return LocalDuration("en", s) }

// LocalDuration is s seconds in a language: as Duration, with minutes,
// hours and days as words in Chinese ("10 分钟", "3.1 小时", "54 天").
func LocalDuration(lang string, s float64) string {
	if bad, ok := special(s); ok {
		return bad
	}
	a := math.Abs(s)
	for i := len(longTimes) - 1; i >= 0; i-- {
		u := longTimes[i]
		if r := round(a / u.factor); r*u.factor >= u.from {
			return sign(s) + format(r) + " " + longWord(lang, u.symbol)
		}
	}
	// Below a minute; a value that rounds up to 60 s is a minute.
	if r := round(a); r >= 60 {
		return sign(s) + "1 " + longWord(lang, "min")
	}
	return scaled(s, shortTimes)
}

// longWord is a long-duration unit in a language.
func longWord(lang, symbol string) string {
	if lang != "zh" {
		return symbol
	}
	switch symbol {
	case "min":
		return "分钟"
	case "h":
		return "小时"
	}
	return "天"
}

// Ratio is how many times one quantity is another: "8.13×" in English,
// "8.13 倍" in Chinese.
func Ratio(lang string, x float64) string {
	if bad, ok := special(x); ok {
		return bad
	}
	s := Number(x)
	if lang == "zh" {
		return s + " 倍"
	}
	return s + "×"
}

// Percent is a fraction as a percentage: 0.899 → "89.9%", 0.0017 → "0.17%".
func Percent(f float64) string {
	if bad, ok := special(f); ok {
		return bad
	}
	return Number(100*f) + "%"
}

// Number is x to three significant digits, with no unit: "1.98", "470",
// "0.0017". Values of 1,000 and more are whole numbers grouped by
// thousands ("16,384").
func Number(x float64) string {
	if bad, ok := special(x); ok {
		return bad
	}
	r := round(math.Abs(x))
	if r >= 1000 {
		return sign(x) + whole(math.Round(math.Abs(x)))
	}
	return sign(x) + format(r)
}

// Count is an integer grouped by thousands: "16,384", "-1,000", "42".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// whole is a non-negative whole number grouped by thousands, like Count,
// for values beyond int64 too (a float64 converted to int64 out of range
// gives a different number on amd64 and in WebAssembly).
func whole(r float64) string {
	s := strconv.FormatFloat(r, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// scaled formats v in the largest unit of us (ascending) that it reaches
// once rounded to three significant digits.
func scaled(v float64, us []unit) string { return scaledDigits(v, us, Digits) }

// scaledDigits is scaled to n significant digits.
func scaledDigits(v float64, us []unit, n int) string {
	if bad, ok := special(v); ok {
		return bad
	}
	a := math.Abs(v)
	if a == 0 {
		// The base unit: the first one of factor 1, else the first.
		for _, u := range us {
			if u.factor == 1 {
				return "0 " + u.symbol
			}
		}
		return "0 " + us[0].symbol
	}
	i := 0
	for j := len(us) - 1; j >= 0; j-- {
		if roundN(a/us[j].factor, n) >= 1 {
			i = j
			break
		}
	}
	r := roundN(a/us[i].factor, n)
	// 999.7 MB rounds to 1000 MB: that is 1 GB.
	if r >= 1000 && i+1 < len(us) && us[i+1].factor/us[i].factor == 1000 {
		i++
		r = roundN(a/us[i].factor, n)
	}
	return sign(v) + formatN(r, n) + " " + us[i].symbol
}

// round rounds a ≥ 0 to Digits significant digits.
func round(a float64) float64 { return roundN(a, Digits) }

// roundN rounds a ≥ 0 to n significant digits.
func roundN(a float64, n int) float64 {
	if a == 0 {
		return 0
	}
	e := math.Floor(math.Log10(a))
	p := math.Pow(10, float64(n-1)-e)
	r := math.Round(a*p) / p
	// Guard against the representation of the rounded value (1.005e2 …).
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', n, 64), 64)
	return v
}

// format writes a value rounded to Digits without an exponent and without
// trailing zeros.
func format(r float64) string { return formatN(r, Digits) }

// formatN writes a value rounded to n digits: whole numbers of 1,000 and
// more grouped by thousands (when n ≤ 4 they have no fraction left).
func formatN(r float64, n int) string {
	if r >= 1000 && r == math.Trunc(r) {
		return whole(r)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func sign(v float64) string {
	if v < 0 {
		return "-"
	}
	return ""
}

// special is the text of a value that is not a finite number.
func special(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "n/a", true
	case math.IsInf(v, 1):
		return "∞", true
	case math.IsInf(v, -1):
		return "-∞", true
	}
	return "", false
}
