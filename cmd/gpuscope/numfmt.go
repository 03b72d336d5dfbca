package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/scenarios"
)

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
	r := f.Describe(x)
	stored, rel := float64(r.Stored), float64(r.RelativeError)
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
