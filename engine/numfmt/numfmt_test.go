package numfmt

import (
	"math"
	"slices"
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

// E2M1 per OCP MX 1.0 §5.3.3: the eight magnitudes, no Inf, no NaN, round
// to nearest even, saturating at 6.
func TestE2M1(t *testing.T) {
	var got []float64
	for b := uint32(0); b < 8; b++ {
		got = append(got, FP4E2M1.Decode(b))
		if n := FP4E2M1.Decode(b | 8); n != -got[b] && b != 0 {
			t.Errorf("E2M1 Decode(%#x) = %g, want %g", b|8, n, -got[b])
		}
	}
	if want := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}; !slices.Equal(got, want) {
		t.Errorf("E2M1 values = %v, want %v", got, want)
	}
	if FP4E2M1.Max() != 6 || FP4E2M1.MinSubnormal() != 0.5 || FP4E2M1.MinNormal() != 1 || FP4E2M1.Bits() != 4 {
		t.Errorf("E2M1 max %g, min subnormal %g, min normal %g, bits %d; want 6, 0.5, 1, 4",
			FP4E2M1.Max(), FP4E2M1.MinSubnormal(), FP4E2M1.MinNormal(), FP4E2M1.Bits())
	}
	for _, tt := range []struct{ x, want float64 }{
		{2.6, 3}, {5.2, 6}, {7, 6}, {-7, -6}, {1e9, 6}, {math.Inf(1), 6},
		{2.5, 2}, {3.5, 4}, {5, 4}, {0.25, 0}, {0.75, 1}, {1.25, 1}, {1.75, 2}, {0.3, 0.5},
	} {
		if got := FP4E2M1.Saturate(tt.x); got != tt.want {
			t.Errorf("E2M1 Saturate(%g) = %g, want %g", tt.x, got, tt.want)
		}
		if got := FP4E2M1.Round(tt.x); got != tt.want {
			t.Errorf("E2M1 Round(%g) = %g, want %g", tt.x, got, tt.want)
		}
	}
}

// E4M3 saturates at 448 where Round gives NaN (OCP OFP8 1.0's two modes).
func TestE4M3Saturate(t *testing.T) {
	for _, tt := range []struct{ x, want float64 }{
		{448, 448}, {464, 448}, {480, 448}, {500, 448}, {-1e9, -448}, {math.Inf(-1), -448},
		{0.3, 0.3125}, {-17, -16}, {1.0 / 1024, 0}, {3.0 / 2048, 1.0 / 512},
	} {
		if got := FP8E4M3.Saturate(tt.x); got != tt.want {
			t.Errorf("E4M3 Saturate(%g) = %g, want %g", tt.x, got, tt.want)
		}
	}
	if v := FP8E4M3.Saturate(math.NaN()); !math.IsNaN(v) {
		t.Errorf("E4M3 Saturate(NaN) = %g", v)
	}
}

// Saturate is Round wherever Round is finite: every pattern, every
// midpoint between neighbours and points just either side of it, for every
// format whose patterns can be listed; FP16 and BF16 on a sweep.
func TestSaturateAgreesWithRound(t *testing.T) {
	check := func(f Format, x float64) {
		t.Helper()
		want := f.Round(x)
		if math.IsNaN(want) || math.IsInf(want, 0) {
			return
		}
		if got := f.Saturate(x); got != want {
			t.Fatalf("%s Saturate(%g) = %g, Round gives %g", f.Name, x, got, want)
		}
	}
	for _, f := range []Format{FP8E4M3, FP8E5M2, FP4E2M1} {
		var vals []float64
		for b := uint32(0); b < 1<<f.Bits(); b++ {
			if v := f.Decode(b); !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		for i, v := range vals {
			check(f, v)
			check(f, -v)
			if i+1 < len(vals) {
				mid := (v + vals[i+1]) / 2
				for _, x := range []float64{mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1))} {
					check(f, x)
					check(f, -x)
				}
			}
		}
	}
	for _, f := range []Format{FP16, BF16, FP32} {
		for x := 1e-12; x < 1e30; x *= 1.0137 {
			check(f, x)
			check(f, -x)
		}
	}
}
