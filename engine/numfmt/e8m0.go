package numfmt

import "math"

// E8M0 is the shared scale of the OCP Microscaling (MX) formats: 8 bits
// holding only an exponent, no sign and no mantissa, the value 2^(bits−127)
// (2^−127 … 2^127); the pattern 0xFF is NaN (OCP MX 1.0, §5.4.1).
type E8M0 uint8

// E8M0NaN is the one NaN pattern of E8M0.
const E8M0NaN E8M0 = 0xFF

// E8M0Bias is E8M0's exponent bias.
const E8M0Bias = 127

// E8M0FromExp is the scale 2^e, e clamped to E8M0's −127 … 127.
func E8M0FromExp(e int) E8M0 {
	e = min(max(e, -E8M0Bias), E8M0Bias)
	return E8M0(e + E8M0Bias)
}

// Exp is the scale's exponent, bits − 127.
func (s E8M0) Exp() int { return int(s) - E8M0Bias }

// Value is the scale as a number, 2^(bits−127), or NaN for 0xFF.
func (s E8M0) Value() float64 {
	if s == E8M0NaN {
		return math.NaN()
	}
	return math.Ldexp(1, s.Exp())
}

// MXScale is the shared scale OCP MX 1.0 (§6.3) gives a block whose
// largest magnitude is amax, for elements of format elem:
// 2^(⌊log2 amax⌋ − emax), emax being the exponent of elem's largest
// normal (8 for E4M3, 2 for E2M1). The block's largest value then lands in
// elem's top binade, and may exceed elem's Max (E4M3: an amax of 1.75·2^k
// to 2^(k+1) scales to 448 … 512), where the conversion saturates. A block
// of zeros gets the smallest scale, 2^−127.
func MXScale(amax float64, elem Format) E8M0 {
	if !(amax > 0) || math.IsInf(amax, 0) {
		return E8M0FromExp(-E8M0Bias)
	}
	_, e := math.Frexp(amax) // amax = frac·2^e, frac in [0.5, 1): ⌊log2 amax⌋ = e − 1
	return E8M0FromExp(e - 1 - elem.maxExp())
}
