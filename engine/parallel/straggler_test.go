package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// The expected largest of n standard normal draws, against the exact
// values (Harter's tables: 0.5642 for 2, 1.4236 for 8, 2.5076 for 100,
// 3.2414 for 1,000); one draw has no slowest.
func TestSlowestZAgainstTheExactValues(t *testing.T) {
	for _, c := range []struct {
		n     int
		exact float64
	}{{1, 0}, {2, 0.5642}, {8, 1.4236}, {100, 2.5076}, {1000, 3.2414}} {
		if got := slowestZ(c.n); math.Abs(got-c.exact) > 0.03 {
			t.Errorf("slowestZ(%d) = %.4f, exact %.4f", c.n, got, c.exact)
		}
	}
	for n, last := 2, 0.0; n <= 1<<24; n *= 2 {
		z := slowestZ(n)
		if !(z > last) {
			t.Fatalf("slowestZ(%d) = %g, not above slowestZ(%d) = %g", n, z, n/2, last)
		}
		last = z
	}
}

// StragglerFactor by hand: 16,384 GPUs at σ 1.5%: Blom's
// Φ⁻¹((16384 − 0.375)/(16384.25)) = 3.956 (exact 3.971), the slowest at
// 1 − 0.0593 of the median's speed, 6.3% more time; one GPU or σ 0, none.
func TestStragglerFactorByHand(t *testing.T) {
	z := slowestZ(16384)
	if math.Abs(z-3.956) > 0.001 {
		t.Fatalf("z(16384) = %.4f, want 3.956", z)
	}
	if got, want := StragglerFactor(16384, 0.015), 0.015*z/(1-0.015*z); math.Abs(got-want) > 1e-15 || math.Abs(got-0.0631) > 0.0005 {
		t.Errorf("StragglerFactor(16384, 0.015) = %.5f, want %.5f ≈ 0.0631", got, want)
	}
	if StragglerFactor(1, 0.015) != 0 || StragglerFactor(16384, 0) != 0 {
		t.Errorf("one GPU or σ 0: %g, %g; want 0, 0", StragglerFactor(1, 0.015), StragglerFactor(16384, 0))
	}
}

// The step waits for the slowest GPU: with GPUVariation the step grows by
// exactly (compute + bubble) × StragglerFactor, everything else as it
// was; the wait grows with the GPUs at one plan a GPU.
func TestStepWaitsForTheSlowestGPU(t *testing.T) {
	m := gpt(96, 12288, 96)
	g := gpu(t, "a100-80gb")
	var last float64
	for _, dp := range []int{1, 4, 32, 256} {
		cl := DefaultCluster(g, 8*12*dp)
		p := Plan{TP: 8, PP: 12, DP: dp, Interleave: 1, SP: true, Recompute: RecomputeSelective, MicroBatch: 1, GlobalBatch: 64 * dp,
			BytesPerParam: 18, Dtype: hw.BF16, Overlap: true, Schedule: OneFOneB}
		alike, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		cl.GPUVariation = FieldGPUVariation
		spread, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		a, s := alike.Time, spread.Time
		if a.Straggler != 0 {
			t.Errorf("DP %d: GPUs alike, a wait of %g s", dp, a.Straggler)
		}
		want := (a.Compute + a.Bubble) * StragglerFactor(cl.GPUs, FieldGPUVariation)
		if !within(s.Straggler, want, 1e-12) || !within(s.Step, a.Step+want, 1e-12) {
			t.Errorf("DP %d: wait %g s, step %g s; want %g s and %g + %g", dp, s.Straggler, s.Step, want, a.Step, want)
		}
		s.Straggler, s.Step = 0, a.Step
		if s != a {
			t.Errorf("DP %d: more than the wait changed:\n%+v\n%+v", dp, s, a)
		}
		if s.Step+spread.Time.Straggler != spread.Time.Step || spread.Time.Step != spread.Time.Compute+spread.Time.Bubble+spread.Time.Exposed+spread.Time.Optimizer+spread.Time.Straggler {
			t.Errorf("DP %d: step %g is not the sum of its parts", dp, spread.Time.Step)
		}
		if frac := spread.Time.Straggler / spread.Time.Step; !(frac > last) {
			t.Errorf("DP %d (%d GPUs): the wait %.2f%% of the step, not above the smaller job's %.2f%%", dp, cl.GPUs, 100*frac, 100*last)
		} else {
			last = frac
		}
	}
}

func TestGPUVariationRefusedOutOfRange(t *testing.T) {
	m := gpt(24, 2048, 16)
	for _, v := range []float64{-0.01, 0.2, math.NaN(), math.Inf(1)} {
		cl := DefaultCluster(gpu(t, "h100"), 8)
		cl.GPUVariation = v
		_, err := Evaluate(Config{Model: m, Plan: Plan{TP: 1, PP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 8, BytesPerParam: 16, Dtype: hw.BF16}, Cluster: cl})
		if err == nil || !strings.Contains(err.Error(), "gpu-variation") || !strings.Contains(err.Error(), "0–0.1") {
			t.Errorf("gpu-variation %g: %v; want an error naming the field and 0–0.1", v, err)
		}
	}
}
