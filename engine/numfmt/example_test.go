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
