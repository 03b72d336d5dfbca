package numfmt

import (
	"math"
	"testing"
)

// The toy run of the number-formats lesson: the spike's gradient (≈ 3·10^5)
// overflows FP16 and training dies in NaN; BF16 carries it; FP16 with
// dynamic loss scaling skips it and lives.
func TestTrainingSurvivesInBF16AndWithLossScaling(t *testing.T) {
	run := func(f Format, scaling bool) []TrainStep {
		return Train(TrainConfig{Format: f, LossScaling: scaling, Steps: 200, SpikeStep: 100, Seed: 1})
	}
	fp16 := run(FP16, false)
	if !math.IsInf(fp16[100].Grad, 0) {
		t.Errorf("FP16 spike gradient = %g, want ±Inf (over 65,504)", fp16[100].Grad)
	}
	for _, s := range fp16[101:] {
		if !math.IsNaN(s.Loss) {
			t.Fatalf("FP16 step %d: loss %g after the spike, want NaN (training died)", s.Step, s.Loss)
		}
	}
	if l := fp16[99].Loss; math.IsNaN(l) || l > 0.05 {
		t.Errorf("FP16 before the spike: loss %g, want it learning normally", l)
	}
	for name, steps := range map[string][]TrainStep{"BF16": run(BF16, false), "FP16+scaling": run(FP16, true), "FP32": run(FP32, false)} {
		for _, s := range steps {
			if math.IsNaN(s.Loss) || math.IsInf(s.W, 0) || math.IsNaN(s.W) {
				t.Fatalf("%s step %d: loss %g, w %g; want finite", name, s.Step, s.Loss, s.W)
			}
		}
		if w := steps[len(steps)-1].W; math.Abs(w-3) > 0.1 {
			t.Errorf("%s: final w %g, want ≈ 3", name, w)
		}
	}
	scaled := run(FP16, true)
	skipped := 0
	for _, s := range scaled {
		if s.Skipped {
			skipped++
		}
	}
	if skipped == 0 || !scaled[100].Skipped {
		t.Errorf("FP16 with loss scaling skipped %d steps (spike skipped: %v); want the spike skipped", skipped, scaled[100].Skipped)
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	a := Train(TrainConfig{Format: BF16, Steps: 50, SpikeStep: 20, Seed: 9})
	b := Train(TrainConfig{Format: BF16, Steps: 50, SpikeStep: 20, Seed: 9})
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}

// At the spike the gradient before storage is the residual × the outlier
// input, about −300 × 1000: beyond FP16's 65,504 (so FP16 holds −Inf),
// within BF16's range (−299,008 once rounded).
func TestTrainExactGradient(t *testing.T) {
	steps := Train(TrainConfig{Format: FP16, Steps: 101, SpikeStep: 100, Seed: 1})
	g := steps[100].Exact
	if g > -2.5e5 || g < -3.5e5 {
		t.Fatalf("exact gradient at the spike %g, want ≈ −300,000", g)
	}
	if !math.IsInf(FP16.Round(g), -1) || math.IsInf(BF16.Round(g), 0) || math.IsInf(steps[100].Grad, 0) == false {
		t.Errorf("FP16 %g, BF16 %g, stored %g; want −Inf, finite, −Inf", FP16.Round(g), BF16.Round(g), steps[100].Grad)
	}
	if e := steps[50].Exact; math.IsNaN(e) || math.Abs(e) > 100 {
		t.Errorf("an ordinary step's gradient %g", e)
	}
}
