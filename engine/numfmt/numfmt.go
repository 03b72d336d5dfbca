package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Format is a binary floating-point format.
type Format struct {
	ID       string // stable id used in URLs and CLI flags: "fp16"
	Name     string // "FP16"
	ExpBits  int
	MantBits int // stored fraction bits (the leading 1 is implicit)
	// IEEE formats reserve the all-ones exponent for Inf and NaN. E4M3
	// uses it for numbers too, keeping only all-ones mantissa for NaN.
	IEEE bool
	// Finite formats have no Inf and no NaN: every pattern is a number,
	// and conversion saturates (E2M1, the MX 4-bit element).
	Finite bool
	Source string
}

// The formats.
var (
	FP32 = Format{ID: "fp32", Name: "FP32", ExpBits: 8, MantBits: 23, IEEE: true,
		Source: "IEEE 754 binary32"}
	FP16 = Format{ID: "fp16", Name: "FP16", ExpBits: 5, MantBits: 10, IEEE: true,
		Source: "IEEE 754 binary16"}
	BF16 = Format{ID: "bf16", Name: "BF16", ExpBits: 8, MantBits: 7, IEEE: true,
		Source: "Google brain float: FP32's exponent with 7 fraction bits"}
	FP8E4M3 = Format{ID: "fp8-e4m3", Name: "FP8 E4M3", ExpBits: 4, MantBits: 3, IEEE: false,
		Source: "OCP 8-bit floating point specification (OFP8) 1.0, E4M3"}
	FP8E5M2 = Format{ID: "fp8-e5m2", Name: "FP8 E5M2", ExpBits: 5, MantBits: 2, IEEE: true,
		Source: "OCP 8-bit floating point specification (OFP8) 1.0, E5M2"}
	// FP4E2M1 is the 4-bit element of MXFP4 and NVFP4: the values 0, 0.5,
	// 1, 1.5, 2, 3, 4 and 6 with a sign. It is not in Formats (the numfmt
	// command's list); the scaling recipes use it.
	FP4E2M1 = Format{ID: "fp4-e2m1", Name: "FP4 E2M1", ExpBits: 2, MantBits: 1, Finite: true,
		Source: "OCP Microscaling Formats (MX) specification 1.0, §5.3.3 FP4 E2M1"}
)

// Formats lists the formats, widest first.
var Formats = []Format{FP32, FP16, BF16, FP8E4M3, FP8E5M2}

// ByID finds a format by its id.
func ByID(id string) (Format, bool) {
	for _, f := range Formats {
		if f.ID == id {
			return f, true
		}
	}
	return Format{}, false
}

// IDs lists the format ids.
func IDs() []string {
	ids := make([]string, len(Formats))
	for i, f := range Formats {
		ids[i] = f.ID
	}
	return ids
}

// Bits is the width of the format.
func (f Format) Bits() int { return 1 + f.ExpBits + f.MantBits }

// Bias is the exponent bias, 2^(e−1) − 1.
func (f Format) Bias() int { return 1<<(f.ExpBits-1) - 1 }

func (f Format) expMask() uint32  { return 1<<f.ExpBits - 1 }
func (f Format) mantMask() uint32 { return 1<<f.MantBits - 1 }

// minExp is the exponent of the smallest normal number, 1 − bias.
func (f Format) minExp() int { return 1 - f.Bias() }

// maxExp is the exponent of the largest finite number.
func (f Format) maxExp() int {
	if f.IEEE {
		return int(f.expMask()) - 1 - f.Bias()
	}
	return int(f.expMask()) - f.Bias()
}

// Max is the largest finite value.
func (f Format) Max() float64 {
	mant := float64(f.mantMask())
	if !f.IEEE && !f.Finite {
		mant-- // the all-ones mantissa with the all-ones exponent is NaN
	}
	return math.Ldexp(1+mant/float64(uint32(1)<<f.MantBits), f.maxExp())
}

// MinNormal is the smallest positive normal value, 2^(1−bias).
func (f Format) MinNormal() float64 { return math.Ldexp(1, f.minExp()) }

// MinSubnormal is the smallest positive value, 2^(1−bias−m).
func (f Format) MinSubnormal() float64 { return math.Ldexp(1, f.minExp()-f.MantBits) }

// Epsilon is the gap between 1 and the next value, 2^−m: the relative
// precision.
func (f Format) Epsilon() float64 { return math.Ldexp(1, -f.MantBits) }

// NaN is the format's canonical quiet NaN pattern; a Finite format has
// none and gives the pattern of +0.
func (f Format) NaN() uint32 {
	if f.Finite {
		return 0
	}
	if !f.IEEE {
		return f.expMask()<<f.MantBits | f.mantMask()
	}
	return f.expMask()<<f.MantBits | 1<<(f.MantBits-1)
}

// Inf is the pattern of +Inf (or of NaN, for a format without infinity;
// or of ±Max, for a Finite format, which saturates).
func (f Format) Inf(neg bool) uint32 {
	if f.Finite {
		b := f.expMask()<<f.MantBits | f.mantMask()
		if neg {
			b |= 1 << (f.ExpBits + f.MantBits)
		}
		return b
	}
	if !f.IEEE {
		return f.NaN()
	}
	b := f.expMask() << f.MantBits
	if neg {
		b |= 1 << (f.ExpBits + f.MantBits)
	}
	return b
}

// Encode rounds x to the format, to nearest with ties to even, and returns
// the bit pattern.
func (f Format) Encode(x float64) uint32 {
	sign := uint32(0)
	if math.Signbit(x) {
		sign = 1 << (f.ExpBits + f.MantBits)
	}
	switch {
	case math.IsNaN(x):
		return f.NaN()
	case math.IsInf(x, 0):
		return f.Inf(sign != 0)
	case x == 0:
		return sign
	}
	a := math.Abs(x)
	_, e2 := math.Frexp(a) // a = frac·2^e2, frac in [0.5, 1)
	e := e2 - 1            // a = 1.xxx·2^e
	if e < f.minExp() {
		e = f.minExp() // subnormal: the quantum stops shrinking
	}
	// a / quantum is exact (a power-of-two scaling), so the only rounding
	// is RoundToEven's, as the hardware does it.
	q := math.RoundToEven(math.Ldexp(a, f.MantBits-e))
	if q >= math.Ldexp(1, f.MantBits+1) { // rounded up to the next binade
		q /= 2
		e++
	}
	if e > f.maxExp() || math.Ldexp(q, e-f.MantBits) > f.Max() {
		return f.Inf(sign != 0) // overflow
	}
	qi := uint32(q)
	if qi < 1<<f.MantBits { // subnormal (or zero after underflow)
		return sign | qi
	}
	exp := uint32(e + f.Bias())
	return sign | exp<<f.MantBits | qi&f.mantMask()
}

// Decode returns the value of a bit pattern.
func (f Format) Decode(b uint32) float64 {
	neg := b>>(f.ExpBits+f.MantBits)&1 == 1
	exp := b >> f.MantBits & f.expMask()
	mant := b & f.mantMask()
	var v float64
	switch {
	case exp == f.expMask() && f.IEEE && mant != 0:
		return math.NaN()
	case exp == f.expMask() && f.IEEE:
		v = math.Inf(1)
	case exp == f.expMask() && mant == f.mantMask() && !f.Finite: // E4M3's only NaN
		return math.NaN()
	case exp == 0:
		v = math.Ldexp(float64(mant), f.minExp()-f.MantBits)
	default:
		v = math.Ldexp(float64(mant|1<<f.MantBits), int(exp)-f.Bias()-f.MantBits)
	}
	if neg {
		return -v
	}
	return v
}

// Round is x as the format stores it.
func (f Format) Round(x float64) float64 { return f.Decode(f.Encode(x)) }

// Saturate is x as a saturating conversion stores it (the OCP specs'
// saturating mode, CUDA's satfinite): rounded to nearest, ties to even, and
// beyond ±Max clamped to ±Max, where Round gives Inf or NaN. NaN stays NaN.
// It is Round's arithmetic without the bit pattern, fast enough for the
// scaling recipes' millions of values.
func (f Format) Saturate(x float64) float64 { return f.rounder().round(x) }

// rounder holds what Saturate needs, worked out once for a loop.
type rounder struct {
	max    float64
	minExp int // the exponent of the smallest normal
	mant   int // stored mantissa bits
}

func (f Format) rounder() rounder { return rounder{max: f.Max(), minExp: f.minExp(), mant: f.MantBits} }

func (r rounder) round(x float64) float64 {
	a := math.Abs(x)
	if !(a < r.max) {
		if a != a { // NaN
			return x
		}
		return math.Copysign(r.max, x)
	}
	e := int(math.Float64bits(a)>>52) - 1023 // a = 1.xxx·2^e (below 2^−1022: tiny, e < minExp)
	if e < r.minExp {
		e = r.minExp // subnormal: the quantum stops shrinking
	}
	// The quantum 2^(e−m) is a power of two, so a/quantum and the product
	// back are exact: RoundToEven is the only rounding. Below Max nothing
	// rounds past Max, which is on the grid.
	quantum := math.Float64frombits(uint64(e-r.mant+1023) << 52)
	return math.Copysign(math.RoundToEven(a/quantum)*quantum, x)
}

// Fields are a pattern's three parts, as stored.
type Fields struct {
	Sign, Exponent, Mantissa uint32
}

// Split cuts a pattern into its fields.
func (f Format) Split(b uint32) Fields {
	return Fields{
		Sign:     b >> (f.ExpBits + f.MantBits) & 1,
		Exponent: b >> f.MantBits & f.expMask(),
		Mantissa: b & f.mantMask(),
	}
}

// BitString writes a pattern as sign, exponent and mantissa digits,
// separated by spaces: FP16's 1.0 is "0 01111 0000000000".
func (f Format) BitString(b uint32) string {
	s := strconv.FormatUint(uint64(b), 2)
	s = strings.Repeat("0", f.Bits()-len(s)) + s
	return s[:1] + " " + s[1:1+f.ExpBits] + " " + s[1+f.ExpBits:]
}
