package numfmt

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// bitsHash is FNV-1a over the float64 bits of x.
func bitsHash(x []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range x {
		u := math.Float64bits(v)
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// The same seed gives the same values and the same results, bit for bit,
// natively and in WebAssembly: testdata/quantize.golden is written
// natively (go test -update) and this test also runs under
// GOOS=js GOARCH=wasm with Node (make test runs the engine tests so), which
// must reproduce it. Each line: a hash of the generated values and of the
// dequantized ones, and every result field with all its digits.
func TestQuantizeGolden(t *testing.T) {
	var b strings.Builder
	for _, d := range Dists {
		for _, c := range []struct {
			n    int
			k    float64
			seed int64
		}{{100_003, 1000, 1}, {4096, 0, -9_000_000_000}, {777, 1e6, 12345}} {
			x, outliers := GenerateValues(c.n, c.k, c.seed, d)
			fmt.Fprintf(&b, "%s n=%d outlier=%g seed=%d values=%016x outliers=%d\n", d, c.n, c.k, c.seed, bitsHash(x), len(outliers))
			for _, r := range Recipes {
				q, _ := r.RoundTrip(x)
				res, err := Quantize(QuantizeConfig{Recipe: r, Values: c.n, Outlier: c.k, Seed: c.seed, Dist: d})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "  %-8s q=%016x rel_rmse=%v typical_rel_rmse=%v max_rel_error=%v bytes_per_value=%v overflow=%d underflow=%d amax=%v\n",
					r, bitsHash(q), res.RelRMSE, res.TypicalRelRMSE, res.MaxRelError, res.BytesPerValue, res.Overflow, res.Underflow, res.Amax)
			}
		}
	}
	golden.Check(t, "quantize.golden", b.String())
}
