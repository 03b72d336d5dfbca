package numfmt

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
)

// Recipe is a way of storing a tensor in FP8 or FP4: an element format and
// how its values share scales. Each quantizes the values (divides by their
// scale and converts, saturating) and dequantizes them (multiplies back).
type Recipe string

// The recipes.
const (
	// Tensor scaling: one FP32 scale for the whole tensor, amax ÷ 448,
	// and every value in E4M3 (the FP8 recipe of Transformer Engine's
	// delayed and current scaling, here from the tensor's own amax).
	Tensor Recipe = "tensor"
	// Block128 is DeepSeek-V3's activation tiling (arXiv 2412.19437
	// §3.3): the values as rows of 1×128 tiles, one FP32 scale a tile
	// (tile amax ÷ 448), values in E4M3. Its weights use 128×128 blocks,
	// the same arithmetic on 16,384 values of a 2-D layout.
	Block128 Recipe = "block128"
	// MXFP8 is the OCP Microscaling format with E4M3 elements: blocks of
	// 32 sharing one E8M0 (power-of-two) scale, MXScale's
	// 2^(⌊log2 amax⌋ − 8).
	MXFP8 Recipe = "mxfp8"
	// NVFP4 is NVIDIA's 4-bit format: blocks of 16 E2M1 values, each
	// block an E4M3 scale (block amax ÷ 6, itself divided by a per-tensor
	// FP32 scale, tensor amax ÷ (448 × 6), before it is stored in E4M3).
	NVFP4 Recipe = "nvfp4"
)

// Recipes lists the recipes, widest first.
var Recipes = []Recipe{Tensor, Block128, MXFP8, NVFP4}

// RecipeIDs lists the recipes' names.
func RecipeIDs() []string {
	ids := make([]string, len(Recipes))
	for i, r := range Recipes {
		ids[i] = string(r)
	}
	return ids
}

// Block is how many values share one scale; 0 for Tensor (all of them).
func (r Recipe) Block() int {
	switch r {
	case Block128:
		return 128
	case MXFP8:
		return 32
	case NVFP4:
		return 16
	}
	return 0
}

// Element is the format the values are stored in.
func (r Recipe) Element() Format {
	if r == NVFP4 {
		return FP4E2M1
	}
	return FP8E4M3
}

// BytesPerValue is the storage of n values, scales included, ÷ n: the
// elements (a byte each, or half a byte for NVFP4, rounded up to whole
// bytes), one scale a block (FP32: 4 bytes; E8M0 and E4M3: 1; a last,
// partial block has one too) and the per-tensor FP32 scale of Tensor and
// NVFP4. For 2^20 values: tensor 1.0000038, block128 and mxfp8 1.03125
// (8.25 bits), nvfp4 0.5625038 (4.5 bits).
func (r Recipe) BytesPerValue(n int) float64 {
	if n < 1 {
		return 0
	}
	blocks := func(b int) int { return (n + b - 1) / b }
	var bytes int
	switch r {
	case Tensor:
		bytes = n + 4
	case Block128:
		bytes = n + 4*blocks(128)
	case MXFP8:
		bytes = n + blocks(32)
	case NVFP4:
		bytes = (n+1)/2 + blocks(16) + 4
	}
	return float64(bytes) / float64(n)
}

// RoundTrip quantizes x by the recipe and dequantizes it: q[i] is what a
// kernel reading the stored tensor sees in place of x[i]. overflow counts
// the values whose magnitude divided by their scale exceeded the element
// format's Max before the conversion saturated them.
func (r Recipe) RoundTrip(x []float64) (q []float64, overflow int) {
	q = make([]float64, len(x))
	block, scaleOf := r.scaler(x)
	overflow = scaleBlocks(x, q, block, r.Element().rounder(), scaleOf)
	return q, overflow
}

// Scales are the scales RoundTrip divides x's blocks by, one a block in
// order (the last block may be short): value i's is Scales(x)[i ÷ Block],
// all of them for Tensor. A block of zeros has scale 0.
func (r Recipe) Scales(x []float64) []float64 {
	block, scaleOf := r.scaler(x)
	out := make([]float64, 0, (len(x)+block-1)/max(block, 1))
	for lo := 0; lo < len(x); lo += block {
		out = append(out, scaleOf(amax(x[lo:min(lo+block, len(x))])))
	}
	return out
}

// scaler is the recipe's block size over x (len(x) for Tensor) and its
// scale from a block's amax.
func (r Recipe) scaler(x []float64) (block int, scaleOf func(amax float64) float64) {
	switch r {
	case Tensor:
		return max(len(x), 1), fp32Scale
	case Block128:
		return 128, fp32Scale
	case MXFP8:
		return 32, func(amax float64) float64 { return MXScale(amax, FP8E4M3).Value() }
	case NVFP4:
		tensor := roundUpFP32(amax(x) / (448 * 6))
		e4m3 := FP8E4M3.rounder()
		return 16, func(amax float64) float64 {
			if tensor == 0 {
				return 0
			}
			// The block's scale as stored: E4M3, relative to the tensor's.
			return float64(e4m3.round(amax/6/tensor) * tensor)
		}
	}
	panic("numfmt: unknown recipe " + string(r))
}

// fp32Scale is the FP32 scale amax ÷ 448 for E4M3, rounded up to an FP32
// value so that the amax itself lands on 448 or just below, never beyond.
func fp32Scale(amax float64) float64 { return roundUpFP32(amax / 448) }

// roundUpFP32 is the smallest FP32 value ≥ s (s ≥ 0, below FP32's max).
func roundUpFP32(s float64) float64 {
	f := float32(s)
	if float64(f) < s {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return float64(f)
}

func amax(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > m { // not max(), whose NaN handling is slower
			m = a
		}
	}
	return m
}

// scaleBlocks quantizes x into q block by block (the last block may be
// short): each block's scale from its amax, each value divided by it,
// converted by elem (saturating) and multiplied back. A scale of 0 (a block
// of zeros, or an NVFP4 block scale that underflowed E4M3) stores zeros.
func scaleBlocks(x, q []float64, block int, elem rounder, scaleOf func(amax float64) float64) (overflow int) {
	for lo := 0; lo < len(x); lo += block {
		hi := min(lo+block, len(x))
		s := scaleOf(amax(x[lo:hi]))
		if s == 0 {
			continue // q is already zero
		}
		for i := lo; i < hi; i++ {
			v := x[i] / s
			if math.Abs(v) > elem.max {
				overflow++
			}
			q[i] = float64(elem.round(v) * s)
		}
	}
	return overflow
}

// QuantizeConfig is one run of gpuscope quantize: Values values of Dist
// from Seed, with outliers of Outlier times the typical magnitude
// (GenerateValues), stored by Recipe.
type QuantizeConfig struct {
	Recipe  Recipe
	Values  int     // 1 … MaxQuantizeValues
	Outlier float64 // 0 … MaxOutlier; ≤ 1: no outliers
	Seed    int64
	Dist    Dist // Normal when empty
}

// The limits of a QuantizeConfig.
const (
	MaxQuantizeValues = 1 << 24
	MaxOutlier        = 1e6
)

// QuantizeResult is what a recipe did to the values; its JSON names are
// those of gpuscope quantize and of the lesson.
type QuantizeResult struct {
	Recipe   Recipe  `json:"recipe"`
	Values   int     `json:"values"`
	Outlier  float64 `json:"outlier"`
	Seed     int64   `json:"seed"`
	Dist     Dist    `json:"dist"`
	Outliers int     `json:"outliers"` // how many values were made outliers
	Block    int     `json:"block"`    // values a scale (Values for tensor)
	Element  string  `json:"element"`  // the values' format: "FP8 E4M3"
	Amax     float64 `json:"amax"`     // the largest magnitude
	// RelRMSE is √(Σ(q−x)² ÷ Σx²): the error's energy against the
	// signal's.
	RelRMSE float64 `json:"rel_rmse"`
	// TypicalRelRMSE is RelRMSE over the values that are not outliers:
	// what the outliers' scales did to everything else. (RelRMSE itself
	// is dominated by the outliers' energy.)
	TypicalRelRMSE float64 `json:"typical_rel_rmse"`
	// MaxRelError is the largest |q−x| ÷ |x| over nonzero x: 1 when any
	// value underflowed.
	MaxRelError   float64 `json:"max_rel_error"`
	BytesPerValue float64 `json:"bytes_per_value"` // scales included
	Overflow      int     `json:"overflow"`        // values beyond the element's Max after scaling, saturated
	Underflow     int     `json:"underflow"`       // nonzero values stored as zero
}

// Quantize generates the configuration's values and stores them by its
// recipe; the error names the field out of range.
func Quantize(c QuantizeConfig) (QuantizeResult, error) {
	if c.Dist == "" {
		c.Dist = Normal
	}
	if c.Recipe.Block() == 0 && c.Recipe != Tensor {
		return QuantizeResult{}, fmt.Errorf("recipe: %q; allowed %s", c.Recipe, strings.Join(RecipeIDs(), ", "))
	}
	if c.Dist != Normal && c.Dist != LogNormal {
		return QuantizeResult{}, fmt.Errorf("dist: %q; allowed %s", c.Dist, strings.Join(DistIDs(), ", "))
	}
	if c.Values < 1 || c.Values > MaxQuantizeValues {
		return QuantizeResult{}, errs.Range("values", c.Values, 1, MaxQuantizeValues, "")
	}
	if !(c.Outlier >= 0 && c.Outlier <= MaxOutlier) {
		return QuantizeResult{}, errs.RangeG("outlier", c.Outlier, 0, MaxOutlier, "")
	}
	x, outliers := GenerateValues(c.Values, c.Outlier, c.Seed, c.Dist)
	res, _ := QuantizeValues(c, x, outliers)
	return res, nil
}

// QuantizeValues is Quantize of values already generated: x and outliers
// as GenerateValues makes them from c (unchecked; Dist not empty), and q,
// the values as c.Recipe stores them. Several recipes of one tensor share
// its generation this way.
func QuantizeValues(c QuantizeConfig, x []float64, outliers []int) (res QuantizeResult, q []float64) {
	q, overflow := c.Recipe.RoundTrip(x)
	res = Measure(x, q, outliers)
	res.Recipe, res.Values, res.Outlier, res.Seed, res.Dist = c.Recipe, c.Values, c.Outlier, c.Seed, c.Dist
	res.Outliers = len(outliers)
	res.Block = c.Recipe.Block()
	if res.Block == 0 {
		res.Block = c.Values
	}
	res.Element = c.Recipe.Element().Name
	res.BytesPerValue = c.Recipe.BytesPerValue(c.Values)
	res.Overflow = overflow
	return res, q
}

// Measure compares the stored values q with the originals x: RelRMSE,
// TypicalRelRMSE (leaving out the positions in outliers, ascending),
// MaxRelError, Underflow and Amax (the other fields are left zero).
func Measure(x, q []float64, outliers []int) QuantizeResult {
	var r QuantizeResult
	var errSq, sigSq, typErrSq, typSigSq float64
	for i, v := range x {
		d := q[i] - v
		dd, vv := float64(d*d), float64(v*v) // forced: no fused multiply-add on any platform
		errSq += dd
		sigSq += vv
		if len(outliers) > 0 && outliers[0] == i {
			outliers = outliers[1:]
		} else {
			typErrSq += dd
			typSigSq += vv
		}
		a := math.Abs(v)
		if a > r.Amax {
			r.Amax = a
		}
		if v == 0 {
			continue
		}
		if q[i] == 0 {
			r.Underflow++
		}
		if e := math.Abs(d) / a; e > r.MaxRelError {
			r.MaxRelError = e
		}
	}
	if sigSq > 0 {
		r.RelRMSE = math.Sqrt(errSq / sigSq)
	}
	if typSigSq > 0 {
		r.TypicalRelRMSE = math.Sqrt(typErrSq / typSigSq)
	}
	return r
}
