package scenarios

import (
	"errors"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// KnobKind is the type of value a knob takes.
type KnobKind int

const (
	KnobInt   KnobKind = iota // a whole number in [Min, Max]
	KnobBytes                 // a whole number of bytes in [Min, Max], suffixes accepted
	KnobEnum                  // one of Values
	KnobFloat                 // a finite real number in [FMin, FMax]
)

var knobKindNames = []string{"int", "bytes", "enum", "float"}

func (k KnobKind) String() string {
	if k >= 0 && int(k) < len(knobKindNames) {
		return knobKindNames[k]
	}
	return "KnobKind(" + strconv.Itoa(int(k)) + ")"
}

// Knob is a setting a reader can move. Default is in canonical form (for
// bytes, the plain integer). Label is an i18n key.
type Knob struct {
	Name       string
	Kind       KnobKind
	Min, Max   int64   // int and bytes knobs
	FMin, FMax float64 // float knobs
	Values     []string
	Default    string
	Label      string
	Line       int // where the knob is declared in its scenario file
}

// ValueLabel is the i18n key of an enum value's label: "link.nvlink4" for
// value nvlink4 of knob link.
func (k Knob) ValueLabel(value string) string { return k.Name + "." + value }

// NumericValue reports whether an enum value is a plain number ("8"),
// which is its own label in every language and needs no i18n key.
func NumericValue(value string) bool {
	if value == "" {
		return false
	}
	for _, r := range value {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ValueText is how a value of k reads in lang: a byte size in the units it
// was given in (BytesLabel), a number grouped by thousands as every count
// is ("16,384"), an enum value's label; any other value as it is.
func (k Knob) ValueText(lang, value string) string {
	switch {
	case k.Kind == KnobBytes:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return value
		}
		return BytesLabel(n)
	case NumericValue(value):
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			return units.Count(n)
		}
		return value
	case k.Kind != KnobEnum:
		return value
	}
	return i18n.T(lang, k.ValueLabel(value))
}

// Parse checks text as a value of k and returns its canonical form: the
// plain decimal integer for int and bytes knobs, the listed spelling for an
// enum (matched ignoring case). Surrounding spaces are ignored.
func (k Knob) Parse(text string) (canonical string, err *InputError) {
	t := strings.TrimSpace(text)
	switch k.Kind {
	case KnobInt:
		n, perr := strconv.ParseInt(t, 10, 64)
		if perr != nil && perr.(*strconv.NumError).Err != strconv.ErrRange {
			return "", k.rangeError("error.int", text)
		}
		if perr != nil || n < k.Min || n > k.Max {
			return "", k.rangeError("error.range", t)
		}
		return strconv.FormatInt(n, 10), nil
	case KnobBytes:
		n, ok, overflow := parseBytes(t)
		if !ok {
			return "", k.rangeError("error.bytes", text)
		}
		if overflow || n < k.Min || n > k.Max {
			return "", k.rangeError("error.range", t)
		}
		return strconv.FormatInt(n, 10), nil
	case KnobFloat:
		f, perr := strconv.ParseFloat(t, 64)
		if perr != nil && !errors.Is(perr, strconv.ErrRange) || math.IsNaN(f) {
			return "", inputError("error.float", k.Name, text, "min", fmtFloat(k.FMin), "max", fmtFloat(k.FMax))
		}
		if perr != nil || f < k.FMin || f > k.FMax {
			return "", inputError("error.range", k.Name, t, "min", fmtFloat(k.FMin), "max", fmtFloat(k.FMax))
		}
		return fmtFloat(f), nil
	case KnobEnum:
		for _, v := range k.Values {
			if strings.EqualFold(t, v) {
				return v, nil
			}
		}
		return "", inputError("error.enum", k.Name, text, "allowed", listArg(k.Values))
	}
	return "", inputError("error.enum", k.Name, text, "allowed", "")
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// IntOf is Int as an int.
func (c Config) IntOf(name string) int { return int(c.Int(name)) }

// Float returns a float knob's value (0 when absent or not a number).
func (c Config) Float(name string) float64 {
	f, _ := strconv.ParseFloat(c[name], 64)
	return f
}

// rangeError is the error for a bad int or bytes value, naming the allowed
// range in the form the reader may type.
func (k Knob) rangeError(key, value string) *InputError {
	format := func(n int64) string { return strconv.FormatInt(n, 10) }
	if k.Kind == KnobBytes {
		format = FormatBytes
	}
	return inputError(key, k.Name, value, "min", format(k.Min), "max", format(k.Max))
}

// byteUnits are the accepted suffixes (compared ignoring case).
var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

// parseBytes reads a byte size: digits, an optional decimal fraction, an
// optional space and an optional suffix. ok is false when text is not a
// size or is not a whole number of bytes; overflow is true when it is a
// size too large for an int64.
func parseBytes(text string) (n int64, ok, overflow bool) {
	lower := strings.ToLower(text)
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(lower, u.suffix) {
			lower = strings.TrimSpace(strings.TrimSuffix(lower, u.suffix))
			mult = u.mult
			break
		}
	}
	whole, frac, hasDot := strings.Cut(lower, ".")
	if whole == "" && frac == "" || !allDigits(whole) || !allDigits(frac) || hasDot && frac == "" {
		return 0, false, false
	}
	// value = digits × mult / 10^len(frac), exact or rejected.
	digits := strings.TrimLeft(whole+frac, "0")
	var m int64
	for _, c := range digits {
		if m > (1<<63-1-9)/10 {
			return 0, true, true
		}
		m = m*10 + int64(c-'0')
	}
	div := int64(1)
	for range frac {
		if div > (1<<63-1)/10 {
			return 0, false, false // a fraction this long cannot be exact
		}
		div *= 10
	}
	// m × mult / div: reduce first so exact values do not overflow.
	g := gcd(mult, div)
	mult, div = mult/g, div/g
	if m%div != 0 {
		return 0, false, false
	}
	m /= div
	if mult != 0 && m > (1<<63-1)/mult {
		return 0, true, true
	}
	return m * mult, true, false
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// FormatBytes writes n in the shortest exact form a bytes knob accepts,
// preferring a suffix to a plain number of the same length and a binary
// suffix to a decimal one: 268435456 → "256MiB", 1024 → "1KiB",
// 1000000000 → "1GB", 1500 → "1500".
func FormatBytes(n int64) string {
	plain := strconv.FormatInt(n, 10)
	if n <= 0 {
		return plain
	}
	best := ""
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n%u.mult == 0 {
			if s := strconv.FormatInt(n/u.mult, 10) + u.suffix; best == "" || len(s) < len(best) {
				best = s
			}
		}
	}
	if best != "" && len(best) <= len(plain) {
		return best
	}
	return plain
}

// BytesLabel is a byte knob's value for reading, in the units it was most
// likely given in: binary (256 MiB) for a multiple of 1024 that is not a
// multiple of 1000, decimal (64 kB, 1 GB) otherwise.
func BytesLabel(n int64) string {
	if n > 0 && n%1024 == 0 && n%1000 != 0 {
		return units.BytesIEC(float64(n))
	}
	return units.Bytes(float64(n))
}

// Config maps knob names to canonical value text. The zero value is an
// empty configuration; methods that change one return a copy.
type Config map[string]string

// Int is the value of an int or bytes knob; 0 if name is missing or not an
// integer.
func (c Config) Int(name string) int64 {
	n, err := strconv.ParseInt(c[name], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Clone returns a copy of c.
func (c Config) Clone() Config {
	if c == nil {
		return Config{}
	}
	return maps.Clone(c)
}
