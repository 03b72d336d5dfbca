package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/scenarios"
)

var numfmtHelp = cmdHelp{
	name:  "gpuscope numfmt",
	usage: "--value X [--format F] [--json]",
	about: `A number as a floating-point format stores it: stored, bits (sign, exponent,
mantissa), relative_error, and the format's max, min_normal, min_subnormal
and epsilon. Overflow gives Inf (or NaN in FP8 E4M3, which has no Inf).`,
	flags: map[string]flagDoc{
		"format": {what: "the number format"},
		"value":  {what: "the number to store", def: "none: required"},
		"json":   jsonDoc,
	},
}

func runNumfmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "format", Kind: scenarios.KnobEnum, Values: numfmt.IDs(), Default: "fp16"},
	}, "json")
	fs.float("value", "")
	fs.help = numfmtHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
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
