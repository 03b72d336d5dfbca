package numfmt

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// TrainConfig is a toy mixed-precision training run: one weight w learns
// y = 3·x by gradient descent, with the forward and backward passes
// computed in Format (every product rounded to it), the weight and the
// update kept in FP32 (master weights), and the gradient clipped to norm 1
// as large-model training does. At SpikeStep an outlier sample arrives
// whose gradient is far beyond FP16's 65,504 — the kind of spike the seed
// describes.
type TrainConfig struct {
	Format      Format
	LossScaling bool // dynamic loss scaling: start at 2^16, halve on overflow, double after 20 good steps
	Steps       int
	SpikeStep   int
	Seed        uint64
}

// TrainStep is one step of the run.
type TrainStep struct {
	Step int     `json:"step"`
	Loss float64 `json:"loss"` // in FP32, as autocast keeps it
	Grad float64 `json:"grad"` // the gradient as the format stored it (unscaled)
	// Exact is the gradient before the format stores it (unscaled,
	// float64): at the spike about −300,000, which FP16 cannot hold.
	Exact   float64 `json:"exact_grad"`
	W       float64 `json:"w"`
	Scale   float64 `json:"scale"` // the loss scale used (1 without scaling)
	Skipped bool    `json:"skipped"`
}

const (
	trainLR       = 0.05
	scaleWindow   = 20
	initialScale  = 65536
	trainTarget   = 3.0
	spikeInput    = 1000.0
	spikeResidual = 300.0
)

// Train runs the toy and returns every step. Non-finite values are kept as
// they are: an FP16 run without loss scaling ends in NaN.
func Train(c TrainConfig) []TrainStep {
	rng := sim.NewRNG(c.Seed)
	f := c.Format
	w := FP32.Round(0.5)
	scale, good := 1.0, 0
	if c.LossScaling {
		scale = initialScale
	}
	steps := make([]TrainStep, 0, c.Steps)
	for t := 0; t < c.Steps; t++ {
		x := 1 + float64(rng.Intn(8))
		// float64(…) around each product keeps the compiler from fusing it
		// into an FMA, so the run is the same on every platform.
		y := float64(trainTarget*x) + float64((rng.Float64()-0.5)*0.1)
		if t == c.SpikeStep {
			x = spikeInput
			y = float64(trainTarget*spikeInput) + spikeResidual
		}
		// Forward and backward in the format.
		wx := f.Round(f.Round(w) * f.Round(x))
		e := f.Round(wx - f.Round(y))
		loss := FP32.Round(float64(0.5 * e * e))
		g := f.Round(f.Round(e*scale) * f.Round(x)) // d loss/d w, scaled
		st := TrainStep{Step: t, Loss: loss, Scale: scale, Exact: float64(e * x)}
		if c.LossScaling && (math.IsInf(g, 0) || math.IsNaN(g)) {
			// Overflow: skip the update, halve the scale.
			st.Skipped = true
			st.Grad = g
			scale /= 2
			good = 0
		} else {
			g = FP32.Round(g / scale) // unscale into FP32
			st.Grad = g
			// Clip to norm 1 (Inf/Inf is NaN: an overflowed gradient
			// poisons the weight).
			if n := math.Abs(g); n > 1 || math.IsNaN(n) {
				g = g / n
			}
			w = FP32.Round(w - float64(trainLR*g))
			if c.LossScaling {
				if good++; good >= scaleWindow {
					scale *= 2
					good = 0
				}
			}
		}
		st.W = w
		steps = append(steps, st)
	}
	return steps
}
