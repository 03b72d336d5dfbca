package numfmt

import (
	"math"
	"strconv"
)

// Number is a float64 that writes Inf and NaN as the strings "Inf", "-Inf"
// and "NaN", which JSON cannot hold as numbers.
type Number float64

// MarshalJSON writes n as a JSON number, or as a string for Inf and NaN.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// Report is what storing one value in one format gives; its JSON names
// are those of gpuscope numfmt and of the number-formats lesson.
type Report struct {
	Format        string `json:"format"`
	Value         Number `json:"value"`
	Stored        Number `json:"stored"`
	Bits          string `json:"bits"`
	Sign          uint32 `json:"sign"`
	Exponent      uint32 `json:"exponent"`
	Mantissa      uint32 `json:"mantissa"`
	Max           Number `json:"max"`
	MinNormal     Number `json:"min_normal"`
	MinSubnormal  Number `json:"min_subnormal"`
	Epsilon       Number `json:"epsilon"`
	RelativeError Number `json:"relative_error"`
}

// Describe stores x in f and reports the result.
func (f Format) Describe(x float64) Report {
	b := f.Encode(x)
	stored := f.Decode(b)
	fields := f.Split(b)
	rel := math.NaN()
	switch {
	case x == stored:
		rel = 0
	case x != 0 && !math.IsInf(x, 0) && !math.IsNaN(x):
		rel = math.Abs(stored-x) / math.Abs(x)
	}
	return Report{
		Format: f.ID, Value: Number(x), Stored: Number(stored), Bits: f.BitString(b),
		Sign: fields.Sign, Exponent: fields.Exponent, Mantissa: fields.Mantissa,
		Max: Number(f.Max()), MinNormal: Number(f.MinNormal()), MinSubnormal: Number(f.MinSubnormal()),
		Epsilon: Number(f.Epsilon()), RelativeError: Number(rel),
	}
}
