package numfmt

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Dist is a distribution of generated values.
type Dist string

// The distributions.
const (
	// Normal: mean 0, standard deviation 1 (Marsaglia's polar method).
	Normal Dist = "normal"
	// LogNormal: a random sign and the magnitude exp(z), z normal: the
	// heavy right tail of activations, median magnitude 1.
	LogNormal Dist = "lognormal"
)

// Dists lists the distributions.
var Dists = []Dist{Normal, LogNormal}

// DistIDs lists the distributions' names.
func DistIDs() []string {
	ids := make([]string, len(Dists))
	for i, d := range Dists {
		ids[i] = string(d)
	}
	return ids
}

// OutlierEvery is how many values share one outlier: a tensor of n values
// has max(1, n ÷ 1000) of them (n ÷ 1000 rounded down).
const OutlierEvery = 1000

// Outliers is how many outliers GenerateValues places among n values at
// the multiple k of the typical magnitude: none when k ≤ 1.
func Outliers(n int, k float64) int {
	if !(k > 1) || n < 1 {
		return 0
	}
	return max(1, n/OutlierEvery)
}

// GenerateValues draws n values of dist from a SplitMix64 stream seeded
// with seed, then replaces Outliers(n, k) of them by ±k (k times the
// typical magnitude, 1 for both distributions): the n values are cut into
// that many equal strides of ⌊n ÷ count⌋ (the remainder joins none), and
// outlier j sits at j·stride plus a seeded offset inside its stride, with a
// seeded sign. The draws are the normal values in order (for LogNormal,
// then each value's sign), then for each outlier its offset and its sign.
// outliers are the outliers' positions, ascending.
//
// The arithmetic is IEEE operations only: its logarithm and exponential
// are series written here, not math.Log and math.Exp, which are assembly
// on amd64 and gave lognormal values a last bit different in WebAssembly.
// So the same seed gives the same bits natively and in WebAssembly.
func GenerateValues(n int, k float64, seed int64, dist Dist) (x []float64, outliers []int) {
	rng := sim.NewRNG(uint64(seed))
	x = make([]float64, n)
	for i := 0; i < n; i += 2 {
		z0, z1 := polarNormal(rng)
		x[i] = z0
		if i+1 < n {
			x[i+1] = z1
		}
	}
	if dist == LogNormal {
		for i, z := range x {
			m := detExp(z)
			if rng.Uint64()&1 == 1 {
				m = -m
			}
			x[i] = m
		}
	}
	count := Outliers(n, k)
	if count == 0 {
		return x, nil
	}
	outliers = make([]int, count)
	stride := n / count
	for j := 0; j < count; j++ {
		pos := j*stride + rng.Intn(stride)
		v := k
		if rng.Uint64()&1 == 1 {
			v = -k
		}
		x[pos] = v
		outliers[j] = pos
	}
	return x, outliers
}

// polarNormal is two independent standard normal values by Marsaglia's
// polar method: (u, v) uniform in the unit disc, each times
// √(−2 ln s ÷ s), s = u² + v².
func polarNormal(rng *sim.RNG) (float64, float64) {
	for {
		u := 2*rng.Float64() - 1
		v := 2*rng.Float64() - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			f := math.Sqrt(-2 * detLog(s) / s)
			return float64(u * f), float64(v * f)
		}
	}
}

// detLog is ln x for finite x > 0 from IEEE operations alone:
// x = m·2^e with m in [√½, √2), ln m = 2·atanh(t), t = (m−1)/(m+1),
// |t| ≤ 0.172, summed to t^23 (the next term is below 2^−56 of the sum).
// Products are forced with float64(…) so that no platform fuses them.
func detLog(x float64) float64 {
	m, e := math.Frexp(x) // m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	t := (m - 1) / (m + 1)
	t2 := float64(t * t)
	p := 1.0 / 23
	for k := 21; k >= 1; k -= 2 {
		p = float64(p*t2) + 1/float64(k)
	}
	return float64(float64(e)*math.Ln2) + float64(2*float64(t*p))
}

// detExp is e^x for |x| < 700 from IEEE operations alone: x = k·ln 2 + r
// with |r| ≤ ½ ln 2 (ln 2 in two parts, Cody and Waite's, so that k·ln2Hi
// is exact), e^r summed to r^17/17!, then scaled by 2^k (exact).
func detExp(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // ln 2's leading bits, trailing zeros
		ln2Lo = 1.90821492927058770002e-10 // the rest
	)
	k := math.RoundToEven(x / math.Ln2)
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	p := 1.0
	for i := 17; i >= 1; i-- {
		p = float64(float64(p*r)/float64(i)) + 1
	}
	return math.Ldexp(p, int(k))
}
