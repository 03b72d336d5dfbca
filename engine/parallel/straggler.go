package parallel

import "math"

// FieldGPUVariation is the spread of sustained speed between GPUs of one
// model in one cluster, as a standard deviation relative to the median:
// the same SKU runs at different clocks under the same power limit
// (manufacturing variation meeting the chip's power management). Sinha et
// al. (SC'22, "Not All GPUs Are Created Equal", arXiv 2208.11035)
// measured over 90% of the GPUs of five large clusters (Summit, Vortex,
// Frontera, Longhorn, Corona) and found "8% (max 22%) average performance
// variation", whatever the application or the cooling, with outliers up
// to 1.5× slower than the median GPU. Read as the span of the GPUs that
// are not outliers — a box plot's whiskers, ±2.7σ of a normal
// distribution — 8% is σ = 8% ÷ 5.4 = 1.5%. The outliers (operators
// drain them: MegaScale §5.1 found 0.5% of its hosts markedly slow) are
// left out.
const FieldGPUVariation = 0.015

// slowestZ is the expected largest of n draws of a standard normal
// variable: Blom's approximation Φ⁻¹((n − 0.375)/(n + 0.25)), within 0.03
// of the exact value for every n (0 for one draw; 1.43 for 8 against the
// exact 1.42, 3.23 for 1,024 against 3.25, 3.96 for 16,384 against 3.97):
// at σ 1.5% a twentieth of a percent of the step at most.
func slowestZ(n int) float64 {
	if n <= 1 {
		return 0
	}
	p := (float64(n) - 0.375) / (float64(n) + 0.25)
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// StragglerFactor is how much longer a synchronous step's compute takes
// on n GPUs whose speeds spread by sigma (FieldGPUVariation) than on n
// median GPUs: every tensor-parallel all-reduce, pipeline send and the
// data-parallel reduction waits for the slowest rank, so the step runs at
// the pace of the slowest of n, 1 − σ·z(n) of the median's speed. It
// returns the extra time as a fraction: σz ÷ (1 − σz); 0 for one GPU or
// sigma 0.
func StragglerFactor(n int, sigma float64) float64 {
	s := sigma * slowestZ(n)
	if s <= 0 {
		return 0
	}
	return s / (1 - s)
}
