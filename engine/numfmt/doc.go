// Package numfmt models the floating-point formats of deep-learning
// training: FP32, FP16, BF16 and the two FP8 formats, E4M3 and E5M2.
//
// Every format is a sign bit, an exponent field and a mantissa (significand)
// field. Encode rounds a float64 to the nearest representable value, ties to
// even, as IEEE 754 and the GPU conversion instructions do; values too small
// for a normal number become subnormals or zero (underflow), values too
// large become ±Inf (overflow) — except in E4M3, which has no infinity and
// gives NaN, as the OCP FP8 specification's non-saturating conversion does.
// NaN stays NaN.
//
// Bit patterns are uint32 values holding the format's width in the low
// bits. Figures (ranges, precision) are computed from the field widths, not
// tabulated; tests check them against published values (FP16 max 65,504,
// BF16 rounds 70,000 to 70,144, E4M3 max 448, E5M2 max 57,344) and every
// FP16 pattern against github.com/x448/float16.
package numfmt
