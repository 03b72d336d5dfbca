package numfmt_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/numfmt"
)

// A gradient of 70,000 overflows FP16 but not BF16, which rounds it.
func ExampleFormat_Round() {
	for _, f := range []numfmt.Format{numfmt.FP16, numfmt.BF16} {
		b := f.Encode(70000)
		fmt.Printf("%s: %g  %s\n", f.Name, f.Decode(b), f.BitString(b))
	}
	// Output:
	// FP16: +Inf  0 11111 0000000000
	// BF16: 70144  0 10001111 0001001
}

// One outlier a thousand values, 1000× the rest: a single FP32 scale for
// the tensor sends more of the small values to zero than a scale a 1×128
// tile; NVFP4 stores the same values in about half MXFP8's bytes, at
// several times the error.
func ExampleQuantize() {
	for _, r := range numfmt.Recipes {
		res, err := numfmt.Quantize(numfmt.QuantizeConfig{Recipe: r, Values: 1 << 16, Outlier: 1000, Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-8s typical_rel_rmse %.3f  bytes_per_value %.4f  underflow %d\n", r, res.TypicalRelRMSE, res.BytesPerValue, res.Underflow)
	}
	// Output:
	// tensor   typical_rel_rmse 0.026  bytes_per_value 1.0001  underflow 107
	// block128 typical_rel_rmse 0.026  bytes_per_value 1.0312  underflow 12
	// mxfp8    typical_rel_rmse 0.029  bytes_per_value 1.0312  underflow 2
	// nvfp4    typical_rel_rmse 0.155  bytes_per_value 0.5626  underflow 5448
}
