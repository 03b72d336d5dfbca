package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/scenarios"
)

var quantizeHelp = cmdHelp{
	name:  "gpuscope quantize",
	usage: "[--recipe R --values N --outlier K --seed S --dist D] [--json]",
	about: `A tensor of seeded random values, with a few outliers K times the typical
magnitude (one a thousand values), stored in FP8 or FP4 by a scaling recipe
and read back. tensor: one FP32 scale, amax ÷ 448, values in E4M3. block128:
DeepSeek-V3's 1×128 activation tiles, an FP32 scale each (its 128×128 weight
blocks are the same arithmetic in 2-D). mxfp8: blocks of 32 E4M3 values
sharing an E8M0 power-of-two scale (OCP MX). nvfp4: blocks of 16 E2M1 values,
an E4M3 scale each, under an FP32 scale for the tensor. Prints rel_rmse,
typical_rel_rmse (without the outliers), max_rel_error, bytes_per_value
(scales included), overflow (values that saturated) and underflow (nonzero
values stored as 0).`,
	flags: map[string]flagDoc{
		"recipe":  {what: "the scaling recipe"},
		"values":  {what: "how many values"},
		"outlier": {what: "the outliers' magnitude, × the typical (0 or 1: no outliers)"},
		"seed":    {what: "the random seed (same seed, same values)", allowed: "any 64-bit integer"},
		"dist":    {what: "the values' distribution: normal (σ 1) or lognormal (random sign, magnitude e^N(0,1))"},
		"json":    jsonDoc,
	},
}

func runQuantize(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "recipe", Kind: scenarios.KnobEnum, Values: numfmt.RecipeIDs(), Default: string(numfmt.Tensor)},
		{Name: "values", Kind: scenarios.KnobInt, Min: 1, Max: numfmt.MaxQuantizeValues, Default: "1048576"},
		{Name: "outlier", Kind: scenarios.KnobFloat, FMin: 0, FMax: numfmt.MaxOutlier, Default: "1000"},
		{Name: "seed", Kind: scenarios.KnobInt, Min: math.MinInt64, Max: math.MaxInt64, Default: "1"},
		{Name: "dist", Kind: scenarios.KnobEnum, Values: numfmt.DistIDs(), Default: string(numfmt.Normal)},
	}, "json")
	fs.help = quantizeHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope quantize: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	// Each value was checked by its knob.
	n, _ := strconv.Atoi(fs.value("values"))
	k, _ := strconv.ParseFloat(fs.value("outlier"), 64)
	seed, _ := strconv.ParseInt(fs.value("seed"), 10, 64)
	c := numfmt.QuantizeConfig{Recipe: numfmt.Recipe(fs.value("recipe")), Values: n, Outlier: k, Seed: seed, Dist: numfmt.Dist(fs.value("dist"))}
	r, err := numfmt.Quantize(c)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope quantize: --%v\n", err)
		return 2
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, r)
	}
	fmt.Fprintf(stdout, "%s: %d %s values (seed %d), %s\n", r.Recipe, r.Values, r.Dist, r.Seed, outlierText(r))
	fmt.Fprintf(stdout, "  scales            %s\n", scaleText(r))
	fmt.Fprintf(stdout, "  rel_rmse          %.6g\n", r.RelRMSE)
	fmt.Fprintf(stdout, "  typical_rel_rmse  %.6g  (without the outliers)\n", r.TypicalRelRMSE)
	fmt.Fprintf(stdout, "  max_rel_error     %.6g\n", r.MaxRelError)
	fmt.Fprintf(stdout, "  bytes_per_value   %.7g  (%.4g bits, scales included)\n", r.BytesPerValue, 8*r.BytesPerValue)
	fmt.Fprintf(stdout, "  overflow          %d  (saturated at the element's max)\n", r.Overflow)
	fmt.Fprintf(stdout, "  underflow         %d  (%.4g%% of the values stored as 0)\n", r.Underflow, 100*float64(r.Underflow)/float64(r.Values))
	return 0
}

func outlierText(r numfmt.QuantizeResult) string {
	switch r.Outliers {
	case 0:
		return "no outliers"
	case 1:
		return fmt.Sprintf("1 outlier of ±%g", r.Outlier)
	}
	return fmt.Sprintf("%d outliers of ±%g", r.Outliers, r.Outlier)
}

func scaleText(r numfmt.QuantizeResult) string {
	switch r.Recipe {
	case numfmt.Tensor:
		return "one FP32 scale for the tensor (amax ÷ 448); values in " + r.Element
	case numfmt.Block128:
		return "an FP32 scale a 1×128 tile (tile amax ÷ 448); values in " + r.Element
	case numfmt.MXFP8:
		return "an E8M0 scale a block of 32 (2^(⌊log2 amax⌋ − 8)); values in " + r.Element
	}
	return "an E4M3 scale a block of 16 (block amax ÷ 6) and an FP32 scale for the tensor; values in " + r.Element
}
