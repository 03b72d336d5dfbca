package numfmt

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

// Published figures (../shared/reference/published-figures.md, the seeds,
// IEEE 754, OCP OFP8 1.0).
func TestPublishedFigures(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"FP16 max", FP16.Max(), 65504},
		{"FP16 min normal", FP16.MinNormal(), 6.103515625e-05},
		{"FP16 min subnormal", FP16.MinSubnormal(), 5.960464477539063e-08},
		{"FP16 70,000", FP16.Round(70000), math.Inf(1)},
		{"FP16 65,519 rounds down", FP16.Round(65519), 65504},
		{"FP16 65,520 ties to Inf", FP16.Round(65520), math.Inf(1)},
		{"BF16 max", BF16.Max(), 3.3895313892515355e+38},
		{"BF16 70,000", BF16.Round(70000), 70144},
		{"FP32 max", FP32.Max(), math.MaxFloat32},
		{"E4M3 max", FP8E4M3.Max(), 448},
		{"E4M3 min subnormal", FP8E4M3.MinSubnormal(), 1.0 / 512},
		{"E5M2 max", FP8E5M2.Max(), 57344},
		{"E5M2 min normal", FP8E5M2.MinNormal(), 6.103515625e-05},
		{"FP16 epsilon", FP16.Epsilon(), 1.0 / 1024},
		{"BF16 epsilon", BF16.Epsilon(), 1.0 / 128},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %g, want %g", tt.name, tt.got, tt.want)
		}
	}
	// E4M3 has no infinity: overflow is NaN; E5M2 overflows to Inf.
	if v := FP8E4M3.Round(500); !math.IsNaN(v) {
		t.Errorf("E4M3 500 = %g, want NaN", v)
	}
	if v := FP8E4M3.Round(464); v != 448 { // below the midpoint 480: rounds to max
		t.Errorf("E4M3 464 = %g, want 448", v)
	}
	if v := FP8E5M2.Round(1e6); !math.IsInf(v, 1) {
		t.Errorf("E5M2 1e6 = %g, want +Inf", v)
	}
	// Underflow: below half the smallest subnormal is zero, with its sign.
	if v := FP16.Round(-1e-9); v != 0 || !math.Signbit(v) {
		t.Errorf("FP16 -1e-9 = %g, want -0", v)
	}
	if b := FP16.Encode(math.NaN()); !math.IsNaN(FP16.Decode(b)) {
		t.Errorf("NaN does not stay NaN: %#x", b)
	}
}

// Every FP16 pattern decodes as x448/float16 decodes it, and re-encodes to
// itself (NaNs to a NaN).
func TestFP16AllPatternsAgreeWithX448(t *testing.T) {
	for b := uint32(0); b < 1<<16; b++ {
		got := FP16.Decode(b)
		want := float64(float16.Frombits(uint16(b)).Float32())
		if math.IsNaN(want) {
			if !math.IsNaN(got) || !math.IsNaN(FP16.Decode(FP16.Encode(got))) {
				t.Fatalf("%#04x: got %g, want NaN", b, got)
			}
			continue
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("Decode(%#04x) = %g, x448 says %g", b, got, want)
		}
		if e := FP16.Encode(got); e != b {
			t.Fatalf("Encode(Decode(%#04x)) = %#04x", b, e)
		}
	}
}

// FP16 encoding of any float32 agrees with x448/float16's conversion
// (round to nearest even), and FP32 encoding with Go's own float32().
func FuzzEncode(f *testing.F) {
	for _, s := range []float32{0, 1, -1, 65504, 65519, 65520, 70000, 1e-8, 6.1e-5, 3e38, float32(math.Inf(1))} {
		f.Add(math.Float32bits(s))
	}
	f.Fuzz(func(t *testing.T, bits uint32) {
		x := math.Float32frombits(bits)
		got := FP16.Encode(float64(x))
		want := uint32(float16.Fromfloat32(x).Bits())
		if math.IsNaN(float64(x)) {
			if !math.IsNaN(FP16.Decode(got)) {
				t.Fatalf("FP16.Encode(NaN) = %#04x", got)
			}
			return
		}
		if got != want {
			t.Fatalf("FP16.Encode(%g) = %#04x, x448/float16 says %#04x", x, got, want)
		}
		if g := FP32.Encode(float64(x)); g != bits {
			t.Fatalf("FP32.Encode(%g) = %#08x, want %#08x", x, g, bits)
		}
		// BF16 is FP32 rounded to its top 16 bits, ties to even.
		if bf := BF16.Encode(float64(x)); bf != (bits+0x7fff+(bits>>16&1))>>16 {
			t.Fatalf("BF16.Encode(%g) = %#04x, want %#04x", x, bf, (bits+0x7fff+(bits>>16&1))>>16)
		}
	})
}

// FP32 from float64 rounds as Go's conversion does.
func TestFP32MatchesGoConversion(t *testing.T) {
	for _, x := range []float64{0.1, 1.0 / 3, 1e-40, 1e-46, 3.4028235677973366e38, 3.5e38, -2.5e-45, 16777217, 16777219} {
		want := float64(float32(x))
		if got := FP32.Round(x); got != want {
			t.Errorf("FP32.Round(%g) = %g, float32() gives %g", x, got, want)
		}
	}
}

func TestSplitAndBitString(t *testing.T) {
	b := FP16.Encode(-1.5)
	if got, want := FP16.BitString(b), "1 01111 1000000000"; got != want {
		t.Errorf("BitString(-1.5) = %q, want %q", got, want)
	}
	if f := FP16.Split(b); f != (Fields{1, 15, 512}) {
		t.Errorf("Split(-1.5) = %+v", f)
	}
	if got := FP8E4M3.BitString(FP8E4M3.Encode(448)); got != "0 1111 110" {
		t.Errorf("E4M3 448 = %q", got)
	}
}
