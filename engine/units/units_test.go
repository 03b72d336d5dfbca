package units

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func TestFormatters(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"bytes zero", Bytes(0), "0 B"},
		{"bytes small", Bytes(900), "900 B"},
		{"bytes kB", Bytes(64e3), "64 kB"},
		{"bytes round-up to next unit", Bytes(999.7e6), "1 GB"},
		{"bytes three digits", Bytes(34.81e9), "34.8 GB"},
		{"bytes trailing zeros dropped", Bytes(22.0e9), "22 GB"},
		{"bytes TB", Bytes(1.624e12), "1.62 TB"},
		{"bytes negative", Bytes(-5.7e9), "-5.7 GB"},
		{"bytes four digits", BytesDigits(3496012, 4), "3.496 MB"},
		{"bytes four digits, round-up", BytesDigits(999.96e3, 4), "1 MB"},
		{"iec MiB", BytesIEC(256 << 20), "256 MiB"},
		{"iec GiB", BytesIEC(1.75 * (1 << 30)), "1.75 GiB"},
		{"iec round-up is 1024-aware", BytesIEC(1023.9 * (1 << 20)), "1 GiB"},
		{"rate", Rate(900e9), "900 GB/s"},
		{"rate TB", Rate(1.8e12), "1.8 TB/s"},
		{"flops", FLOPS(989.4e12), "989 TFLOP/s"},
		{"flops P", FLOPS(1979e12), "1.98 PFLOP/s"},
		{"flop count", FLOP(3.14e23), "314 ZFLOP"},
		{"duration zero", Duration(0), "0 s"},
		{"duration µs", Duration(45e-6), "45 µs"},
		{"duration ms", Duration(2.7e-3), "2.7 ms"},
		{"duration ms two digits", Duration(22.04e-3), "22 ms"},
		{"duration ms rounding up", Duration(0.99981), "1 s"},
		{"duration s", Duration(1.4151), "1.42 s"},
		{"duration 59.99 s is a minute", Duration(59.99), "1 min"},
		{"duration min", Duration(600), "10 min"},
		{"duration h", Duration(3.1 * 3600), "3.1 h"},
		{"duration 47 h stays hours", Duration(47 * 3600), "47 h"},
		{"duration days", Duration(54 * 86400), "54 d"},
		{"duration ps", Duration(3e-12), "3 ps"},
		{"zh minutes", LocalDuration("zh", 600), "10 分钟"},
		{"zh hours", LocalDuration("zh", 3.1*3600), "3.1 小时"},
		{"zh days", LocalDuration("zh", 54*86400), "54 天"},
		{"zh short is a symbol", LocalDuration("zh", 2.7e-3), "2.7 ms"},
		{"ratio en", Ratio("en", 8.131), "8.13×"},
		{"ratio zh", Ratio("zh", 18), "18 倍"},
		{"percent", Percent(0.8991), "89.9%"},
		{"percent small", Percent(0.0017), "0.17%"},
		{"percent whole", Percent(1), "100%"},
		{"number", Number(1.979), "1.98"},
		{"number grouped", Number(16384), "16,384"},
		{"count", Count(16384), "16,384"},
		{"params B", Params(175e9), "175B"},
		{"params digits", Params(7.241e9), "7.24B"},
		{"params M", Params(124.4e6), "124M"},
		{"params small", Params(512), "512"},
		{"count negative", Count(-1000), "-1,000"},
		{"count small", Count(42), "42"},
		{"nan", Bytes(math.NaN()), "n/a"},
		{"inf", Duration(math.Inf(1)), "∞"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestGolden records every formatter over values from 10^-13 to 10^25 in
// both languages, so that a change of convention shows as a diff.
func TestGolden(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %-12s %-12s %-12s %-14s %-14s %-12s %-12s %-10s %-10s\n",
		"value", "Bytes", "BytesIEC", "Rate", "FLOP", "FLOPS", "Duration", "zh", "Ratio", "Percent")
	for e := -13; e <= 25; e++ {
		for _, m := range []float64{1, 2.5, 9.996} {
			v := m * math.Pow(10, float64(e))
			fmt.Fprintf(&b, "%-12.4g %-12s %-12s %-12s %-14s %-14s %-12s %-12s %-10s %-10s\n",
				v, Bytes(v), BytesIEC(v), Rate(v), FLOP(v), FLOPS(v), Duration(v), LocalDuration("zh", v), Ratio("en", v), Percent(v))
		}
	}
	golden.Check(t, "formats.golden", b.String())
}

// Every output is three significant digits at most: parse the number back
// and compare with the value in its unit.
func TestThreeDigits(t *testing.T) {
	for e := -11.0; e < 16; e += 0.37 {
		v := math.Pow(10, e)
		s := Bytes(v)
		num, sym, _ := strings.Cut(s, " ")
		digits := strings.TrimLeft(strings.ReplaceAll(num, ".", ""), "0")
		if len(digits) > Digits {
			t.Errorf("Bytes(%g) = %q: more than %d digits", v, s, Digits)
		}
		var f float64
		fmt.Sscan(num, &f)
		for _, u := range decimalBytes {
			if u.symbol == sym && math.Abs(f*u.factor-v)/v > 0.005 {
				t.Errorf("Bytes(%g) = %q: off by more than half a percent", v, s)
			}
		}
	}
}
