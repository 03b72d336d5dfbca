// Package numfmt models the floating-point formats of deep-learning
// training: FP32, FP16, BF16, the two FP8 formats, E4M3 and E5M2, and the
// 4-bit E2M1; the E8M0 power-of-two scale of the OCP Microscaling formats;
// and the recipes that store a tensor in FP8 or FP4 with shared scales.
//
// Every format is a sign bit, an exponent field and a mantissa (significand)
// field. Encode rounds a float64 to the nearest representable value, ties to
// even, as IEEE 754 and the GPU conversion instructions do; values too small
// for a normal number become subnormals or zero (underflow), values too
// large become ±Inf (overflow) — except in E4M3, which has no infinity and
// gives NaN, as the OCP FP8 specification's non-saturating conversion does,
// and in E2M1, which has neither and saturates at ±6. NaN stays NaN.
// Saturate is the saturating conversion: beyond ±Max, ±Max.
//
// Bit patterns are uint32 values holding the format's width in the low
// bits. Figures (ranges, precision) are computed from the field widths, not
// tabulated; tests check them against published values (FP16 max 65,504,
// BF16 rounds 70,000 to 70,144, E4M3 max 448, E5M2 max 57,344, E2M1's
// values 0, 0.5, 1, 1.5, 2, 3, 4, 6) and every FP16 pattern against
// github.com/x448/float16.
//
// The recipes (recipes.go) quantize and dequantize a vector: Tensor (one
// FP32 scale), Block128 (DeepSeek-V3's 1×128 tiles), MXFP8 (32 E4M3 values
// to an E8M0 scale) and NVFP4 (16 E2M1 values to an E4M3 scale, and an
// FP32 scale for the tensor). Quantize runs one on seeded values
// (GenerateValues) and reports relative errors (dimensionless), bytes a
// value (scales included) and the counts of values that overflowed or
// underflowed. The arithmetic is IEEE operations only, with products forced
// by float64(…), so that the same configuration gives the same bits natively
// and in WebAssembly (testdata/quantize.golden, checked under both).
package numfmt
