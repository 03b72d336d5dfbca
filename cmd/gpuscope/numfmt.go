package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/scenarios"
)

// number is a float64 that writes Inf and NaN as the strings "Inf", "-Inf"
// and "NaN", which JSON cannot hold as numbers.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
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

// numfmtResult is the JSON of gpuscope numfmt; the page's number-format
// lesson reports the same names.
type numfmtResult struct {
	Format        string `json:"format"`
	Value         number `json:"value"`
	Stored        number `json:"stored"`
	Bits          string `json:"bits"`
	Sign          uint32 `json:"sign"`
	Exponent      uint32 `json:"exponent"`
	Mantissa      uint32 `json:"mantissa"`
	Max           number `json:"max"`
	MinNormal     number `json:"min_normal"`
	MinSubnormal  number `json:"min_subnormal"`
	Epsilon       number `json:"epsilon"`
	RelativeError number `json:"relative_error"`
}

func runNumfmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "format", Kind: scenarios.KnobEnum, Values: numfmt.IDs(), Default: "fp16"},
	}, "json")
	fs.floats["value"] = true
	if err := fs.parse(args); err != nil {
		fmt.Fprintf(stderr, "gpuscope numfmt: %v\n", err)
		return 2
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope numfmt: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	text, ok := fs.vals["value"]
	if !ok {
		fmt.Fprintln(stderr, "gpuscope numfmt: --value: missing; allowed: a number such as 70000, 1e-8, -0.5, inf or nan")
		return 2
	}
	x, _ := strconv.ParseFloat(text, 64) // checked by the flag parser; ±Inf on overflow
	f, _ := numfmt.ByID(fs.value("format"))
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
	r := numfmtResult{
		Format: f.ID, Value: number(x), Stored: number(stored), Bits: f.BitString(b),
		Sign: fields.Sign, Exponent: fields.Exponent, Mantissa: fields.Mantissa,
		Max: number(f.Max()), MinNormal: number(f.MinNormal()), MinSubnormal: number(f.MinSubnormal()),
		Epsilon: number(f.Epsilon()), RelativeError: number(rel),
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, r)
	}
	fmt.Fprintf(stdout, "%s (%d bits: 1 sign, %d exponent, %d mantissa; bias %d)\n", f.Name, f.Bits(), f.ExpBits, f.MantBits, f.Bias())
	fmt.Fprintf(stdout, "  value           %g\n", x)
	fmt.Fprintf(stdout, "  stored          %g\n", stored)
	fmt.Fprintf(stdout, "  bits            %s  (sign %d, exponent %d, mantissa %d)\n", r.Bits, r.Sign, r.Exponent, r.Mantissa)
	fmt.Fprintf(stdout, "  relative_error  %g\n", rel)
	fmt.Fprintf(stdout, "  max %g, min_normal %g, min_subnormal %g, epsilon %g\n", f.Max(), f.MinNormal(), f.MinSubnormal(), f.Epsilon())
	return 0
}
