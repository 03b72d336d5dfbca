package numfmt

import (
	"math"
	"slices"
	"testing"
)

// zeros is n zeros with the given values at the start.
func zeros(n int, head ...float64) []float64 {
	x := make([]float64, n)
	copy(x, head)
	return x
}

// Tiny vectors through each recipe, dequantized values worked by hand.
func TestRecipesByHand(t *testing.T) {
	tests := []struct {
		name     string
		recipe   Recipe
		x        []float64
		want     []float64 // the leading values of q; the rest are 0
		overflow int
	}{
		// Scale 448/448 = 1: 0.3 = 1.2·2^−2 on a grid of 2^−5: 9.6 → 10,
		// 0.3125; −17 on a grid of 2: 8.5 ties to 8, −16.
		{"tensor, scale 1", Tensor, []float64{448, 1, 0.3, -17}, []float64{448, 1, 0.3125, -16}, 0},
		// Scale 4480/448 = 10: 0.001/10 is below half E4M3's smallest
		// subnormal 2^−9: zero.
		{"tensor, underflow", Tensor, []float64{4480, 0.001}, []float64{4480, 0}, 0},
		// One scale, 896/448 = 2, for both tiles' 0.01: 0.005 on the
		// subnormal grid 2^−9 is 2.56 → 3, ×2 = 0.01171875; 7/2 = 3.5
		// exactly.
		{"tensor over two tiles", Tensor, append(zeros(128, 896, 0.01), zeros(128, 7, 0.01)...),
			append(zeros(128, 896, 0.01171875), zeros(128, 7, 0.01171875)...), 0},
		// Tile 1's own scale 7/448 = 1/64: 0.64 on a grid of 2^−4 is 10.24
		// → 10, 0.625/64 = 0.009765625.
		{"block128", Block128, append(zeros(128, 896, 0.01), zeros(128, 7, 0.01)...),
			append(zeros(128, 896, 0.01171875), zeros(128, 7, 0.009765625)...), 0},
		// Block 0: scale 2^(6−8) = 1/4; 400 on a grid of 32 is 12.5, ties
		// to 12: 384/4 = 96; 1.2 → 1.25, 0.3125. Block 1: 127·4 = 508
		// saturates to 448: 112.
		{"mxfp8", MXFP8, append(zeros(32, 100, 0.3), zeros(32, 127)...),
			append(zeros(32, 96, 0.3125), zeros(32, 112)...), 1},
		// Tensor scale 2688/(448·6) = 1. Block 0: scale 2688/6 = 448;
		// 1000/448 = 2.23 → 2: 896. Block 1: scale 1: 2.6 → 3, 5.2 → 6,
		// 0.2 → 0. Block 2: 0.7/6 = 0.1167 on E4M3's grid 2^−7 is 14.93 →
		// 15: 0.1171875; 0.7 → 5.97 → 6: 0.703125; 0.3 → 2.56 → 3:
		// 0.3515625.
		{"nvfp4", NVFP4, slices.Concat(zeros(16, 2688, 1000), zeros(16, 6, 2.6, 5.2, 0.2), zeros(16, 0.7, 0.3)),
			slices.Concat(zeros(16, 2688, 896), zeros(16, 6, 3, 6, 0), zeros(16, 0.703125, 0.3515625)), 0},
	}
	for _, tt := range tests {
		q, overflow := tt.recipe.RoundTrip(tt.x)
		if !slices.Equal(q, tt.want) || overflow != tt.overflow {
			t.Errorf("%s: RoundTrip = %v, overflow %d;\nwant %v, overflow %d", tt.name, q, overflow, tt.want, tt.overflow)
		}
	}
	// Measure on the first: errors 0.0125 and 1 on values 0.3 and 17.
	x := []float64{448, 1, 0.3, -17, 0}
	q, _ := Tensor.RoundTrip(x)
	m := Measure(x, q, []int{0})
	wantRMSE := math.Sqrt((0.0125*0.0125 + 1) / (448*448 + 1 + 0.09 + 289))
	wantTyp := math.Sqrt((0.0125*0.0125 + 1) / (1 + 0.09 + 289))
	if math.Abs(m.RelRMSE-wantRMSE) > 1e-15 || math.Abs(m.TypicalRelRMSE-wantTyp) > 1e-15 ||
		math.Abs(m.MaxRelError-1.0/17) > 1e-15 || m.Underflow != 0 || m.Amax != 448 {
		t.Errorf("Measure = %+v; want rel_rmse %g, typical %g, max_rel_error %g, no underflow, amax 448", m, wantRMSE, wantTyp, 1.0/17)
	}
}

// Bytes a value, scales included (published-figures.md: MXFP8 8.25 bits,
// NVFP4 4.5 bits, plus the per-tensor scale).
func TestBytesPerValue(t *testing.T) {
	n := 1 << 20
	for _, tt := range []struct {
		r    Recipe
		n    int
		want float64
	}{
		{Tensor, n, 1 + 4.0/float64(n)},
		{Block128, n, 1.03125},
		{MXFP8, n, 8.25 / 8},
		{NVFP4, n, 4.5/8 + 4.0/float64(n)},
		{NVFP4, 17, (9.0 + 2 + 4) / 17}, // 17 values: 9 bytes, two block scales, the tensor's
		{Block128, 1, 5},
	} {
		if got := tt.r.BytesPerValue(tt.n); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("%s.BytesPerValue(%d) = %g, want %g", tt.r, tt.n, got, tt.want)
		}
	}
}

// The lesson's story. An outlier in a normal tensor: per-tensor scaling
// pushes the small values into E4M3's subnormals and below (underflow),
// finer scales keep them; NVFP4's error is several times MXFP8's in about
// half the bytes. E4M3's subnormals span 2^17.8, so a 1000× outlier only
// costs underflow; the typical values' error becomes far worse at 10^5×.
// RelRMSE over all values is the outliers' own error (their energy
// dominates), so the story is told with TypicalRelRMSE.
func TestOutlierStory(t *testing.T) {
	run := func(r Recipe, k float64) QuantizeResult {
		res, err := Quantize(QuantizeConfig{Recipe: r, Values: 1 << 16, Outlier: k, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s ×%-6g rel_rmse %.4g typical_rel_rmse %.4g max_rel_error %.3g bytes %.6g overflow %d underflow %d",
			r, k, res.RelRMSE, res.TypicalRelRMSE, res.MaxRelError, res.BytesPerValue, res.Overflow, res.Underflow)
		return res
	}
	at := map[float64]map[Recipe]QuantizeResult{}
	for _, k := range []float64{0, 1000, 1e5} {
		at[k] = map[Recipe]QuantizeResult{}
		for _, r := range Recipes {
			at[k][r] = run(r, k)
		}
	}
	ten, blk, mx := at[1000][Tensor], at[1000][Block128], at[1000][MXFP8]
	if ten.Underflow < 5*blk.Underflow || ten.Underflow < 5*mx.Underflow || ten.Underflow < 50 {
		t.Errorf("×1000: tensor underflows %d, block128 %d, mxfp8 %d; want tensor ≥ 5× both", ten.Underflow, blk.Underflow, mx.Underflow)
	}
	if at[0][Tensor].Underflow != 0 || at[0][Block128].Underflow != 0 {
		t.Errorf("no outlier: tensor underflows %d, block128 %d; want 0", at[0][Tensor].Underflow, at[0][Block128].Underflow)
	}
	ten, blk, mx = at[1e5][Tensor], at[1e5][Block128], at[1e5][MXFP8]
	if ten.TypicalRelRMSE < 2*blk.TypicalRelRMSE || ten.TypicalRelRMSE < 2*mx.TypicalRelRMSE {
		t.Errorf("×1e5: typical_rel_rmse tensor %.4g, block128 %.4g, mxfp8 %.4g; want tensor ≥ 2× both",
			ten.TypicalRelRMSE, blk.TypicalRelRMSE, mx.TypicalRelRMSE)
	}
	if ten.Underflow < 10*at[1000][Tensor].Underflow {
		t.Errorf("×1e5: tensor underflows %d; want far more than at ×1000 (%d)", ten.Underflow, at[1000][Tensor].Underflow)
	}
	for _, k := range []float64{0, 1000} {
		mx, nv := at[k][MXFP8], at[k][NVFP4]
		if nv.TypicalRelRMSE < 2*mx.TypicalRelRMSE || math.Abs(nv.BytesPerValue/mx.BytesPerValue-0.5454) > 0.001 {
			t.Errorf("×%g: nvfp4 typical_rel_rmse %.4g in %.4g bytes, mxfp8 %.4g in %.4g; want nvfp4 ≥ 2× the error in 0.545× the bytes",
				k, nv.TypicalRelRMSE, nv.BytesPerValue, mx.TypicalRelRMSE, mx.BytesPerValue)
		}
	}
	// The amax-scaled FP32 recipes never overflow; the power-of-two MX
	// scale and NVFP4's E4M3 block scale round, and do.
	for _, k := range []float64{0, 1000, 1e5} {
		if at[k][Tensor].Overflow != 0 || at[k][Block128].Overflow != 0 {
			t.Errorf("×%g: tensor overflows %d, block128 %d; want 0", k, at[k][Tensor].Overflow, at[k][Block128].Overflow)
		}
	}
}

// Same configuration, same bits.
func TestQuantizeDeterministic(t *testing.T) {
	for _, r := range Recipes {
		for _, d := range Dists {
			c := QuantizeConfig{Recipe: r, Values: 10_000, Outlier: 300, Seed: -42, Dist: d}
			a, err := Quantize(c)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Quantize(c)
			if a != b {
				t.Errorf("%+v: %+v then %+v", c, a, b)
			}
		}
	}
}

// The generator: outliers where the rule puts them, the moments of the
// distributions, and a logarithm and exponential close to math's.
func TestGenerateValues(t *testing.T) {
	n := 200_000
	x, out := GenerateValues(n, 50, 7, Normal)
	if len(out) != 200 {
		t.Fatalf("%d outliers, want 200", len(out))
	}
	for j, p := range out {
		if p < j*1000 || p >= (j+1)*1000 || math.Abs(x[p]) != 50 {
			t.Errorf("outlier %d at %d = %g; want ±50 in [%d, %d)", j, p, x[p], j*1000, (j+1)*1000)
		}
	}
	var sum, sq float64
	for _, v := range x {
		if math.Abs(v) != 50 {
			sum += v
			sq += v * v
		}
	}
	mean, sd := sum/float64(n-200), math.Sqrt(sq/float64(n-200))
	if math.Abs(mean) > 0.01 || math.Abs(sd-1) > 0.01 {
		t.Errorf("normal: mean %g, sd %g; want 0 and 1", mean, sd)
	}
	y, _ := GenerateValues(n, 0, 7, LogNormal)
	var logs, neg float64
	for _, v := range y {
		logs += math.Log(math.Abs(v))
		if v < 0 {
			neg++
		}
	}
	if m := logs / float64(n); math.Abs(m) > 0.01 || math.Abs(neg/float64(n)-0.5) > 0.01 {
		t.Errorf("lognormal: mean log %g, negative share %g; want 0 and 0.5", m, neg/float64(n))
	}
	if _, o := GenerateValues(10, 1, 7, Normal); o != nil {
		t.Errorf("outlier 1 placed %v; want none", o)
	}
	if _, o := GenerateValues(10, 2, 7, Normal); len(o) != 1 {
		t.Errorf("10 values, outlier 2: %v; want one", o)
	}
	for _, v := range []float64{1e-300, 0.1, 0.5, 0.7071, 1, 1.5, 2, 10, 1e300} {
		if got, want := detLog(v), math.Log(v); math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) {
			t.Errorf("detLog(%g) = %.17g, math.Log %.17g", v, got, want)
		}
	}
	for _, v := range []float64{-30, -5, -0.3, 0, 0.3466, 1, 5, 30} {
		if got, want := detExp(v), math.Exp(v); math.Abs(got-want) > 4e-16*want {
			t.Errorf("detExp(%g) = %.17g, math.Exp %.17g", v, got, want)
		}
	}
}

func TestQuantizeRefusals(t *testing.T) {
	for _, c := range []QuantizeConfig{
		{Recipe: "int8", Values: 10}, {Recipe: Tensor, Values: 0}, {Recipe: Tensor, Values: MaxQuantizeValues + 1},
		{Recipe: Tensor, Values: 10, Outlier: -1}, {Recipe: Tensor, Values: 10, Outlier: math.NaN()},
		{Recipe: Tensor, Values: 10, Outlier: 2e6}, {Recipe: Tensor, Values: 10, Dist: "uniform"},
	} {
		if _, err := Quantize(c); err == nil {
			t.Errorf("Quantize(%+v) accepted", c)
		}
	}
}

func BenchmarkQuantize1M(b *testing.B) {
	for _, r := range Recipes {
		b.Run(string(r), func(b *testing.B) {
			for b.Loop() {
				if _, err := Quantize(QuantizeConfig{Recipe: r, Values: 1 << 20, Outlier: 1000, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Scales are the scales RoundTrip used: each stored value is its element
// format's rounding of x ÷ scale, times the scale.
func TestScales(t *testing.T) {
	x, _ := GenerateValues(1000, 1e4, 3, LogNormal)
	for _, r := range Recipes {
		q, _ := r.RoundTrip(x)
		s := r.Scales(x)
		block := r.Block()
		if block == 0 {
			block = len(x)
		}
		if want := (len(x) + block - 1) / block; len(s) != want {
			t.Fatalf("%s: %d scales, want %d", r, len(s), want)
		}
		for i, v := range x {
			sc := s[i/block]
			if got := r.Element().Saturate(v/sc) * sc; got != q[i] {
				t.Fatalf("%s: value %d: %g ÷ %g rounded × scale = %g, RoundTrip %g", r, i, v, sc, got, q[i])
			}
		}
	}
}
