package budget

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
)

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// A run worked by hand: 10^10 tokens at 10^6 a step are 10,000 steps;
// at 3 s a step, 30,000 s ideal (0.3472 days). 8 GPUs failing each
// every 80 h fail as a cluster every 80 × 3,600 ÷ 8 = 36,000 s; with
// free checkpoints only the 600 s restarts cost: goodput e^(−600/36,000)
// = 0.983471, so the wall clock is 30,000 ÷ 0.983471 = 30,504.19 s
// (0.353058 days, 0.8473 failures expected), 8 × 30,504.19 ÷ 3,600 =
// 67.787 GPU-hours against the ideal run's 66.667. Busy 75% of a step,
// an H100 draws 700 × (0.2 + 0.8 × 0.75) = 560 W, its DGX node's share
// 575 W beside it, × PUE 1.1 × 8 GPUs = 9,988 W for the facility:
// 9,988 × 30,504.19 s = 0.084632 MWh, the GPUs alone 8 × 560 W ×
// 30,504.19 s = 0.037961 MWh. At $2.50 a GPU-hour: $169.47 ($166.67
// ideal).
func TestEstimateByHand(t *testing.T) {
	c := Default(1e10)
	c.TokensPerStep, c.StepS, c.GPUs, c.Busy = 1e6, 3, 8, 0.75
	c.Power = hw.MustGPU("h100").Power()
	c.MTBFGPUHours, c.CheckpointCostS, c.RestartCostS = 80, 0, 600
	c.PriceUSDPerGPUHour = 2.5
	r, err := Estimate(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"steps", r.Steps, 10000},
		{"ideal_s", r.IdealS, 30000},
		{"ideal_days", r.IdealDays, 0.347222},
		{"cluster_mtbf_s", r.ClusterMTBFS, 36000},
		{"checkpoint_every_s", r.CheckpointEveryS, 0},
		{"goodput", r.Goodput, 0.983471},
		{"wall_s", r.WallS, 30504.19},
		{"days", r.Days, 0.353058},
		{"failures", r.Failures, 0.847339},
		{"gpu_hours", r.GPUHours, 67.7871},
		{"ideal_gpu_hours", r.IdealGPUHours, 66.6667},
		{"gpu_power_w", r.GPUPowerW, 560},
		{"node_power_w", r.NodePowerW, 575},
		{"facility_power_w", r.FacilityPowerW, 9988},
		{"energy_mwh", r.EnergyMWh, 0.0846322},
		{"gpu_energy_mwh", r.GPUEnergyMWh, 0.0379608},
		{"cost_usd", r.CostUSD, 169.468},
		{"ideal_cost_usd", r.IdealCostUSD, 166.667},
	} {
		if !near(tt.got, tt.want, 1e-5) {
			t.Errorf("%s = %.7g, want %.7g", tt.name, tt.got, tt.want)
		}
	}
	// One token more takes a whole step more.
	c.Tokens++
	if r, _ := Estimate(c); r.Steps != 10001 {
		t.Errorf("10^10 + 1 tokens: %g steps, want 10,001", r.Steps)
	}
}

// With a checkpoint that costs, the run checkpoints at Daly's interval
// for the cluster's MTBF and keeps faults.ExpectedGoodput of its wall
// clock: Llama 3's 16,384 GPUs fail every 11,134 s; a minute's
// checkpoint every 1,116 s and a ten-minute restart keep 85.3%.
func TestEstimateFaults(t *testing.T) {
	c := Default(15.6e12)
	c.TokensPerStep, c.StepS, c.GPUs, c.Busy, c.Power = 2048*8192, 40, 16384, 0.8, hw.MustGPU("h100").Power()
	r, err := Estimate(c)
	if err != nil {
		t.Fatal(err)
	}
	m := 54 * 24.0 / 419 * 16384 * 3600 / 16384
	if !near(r.ClusterMTBFS, m, 1e-12) || !near(r.CheckpointEveryS, faults.DalyInterval(60, m), 1e-12) {
		t.Errorf("cluster MTBF %g s, interval %g s; want %g and Daly's %g", r.ClusterMTBFS, r.CheckpointEveryS, m, faults.DalyInterval(60, m))
	}
	if want := faults.ExpectedGoodput(r.CheckpointEveryS, 60, 600, m); !near(r.Goodput, want, 1e-12) || math.Abs(r.Goodput-0.8526) > 1e-4 {
		t.Errorf("goodput %.5f, want ExpectedGoodput's %.5f (0.8526)", r.Goodput, want)
	}
	if !near(r.WallS, r.IdealS/r.Goodput, 1e-12) || !near(r.GPUHours, r.IdealGPUHours/r.Goodput, 1e-12) {
		t.Errorf("wall %g s, ideal %g s, goodput %g", r.WallS, r.IdealS, r.Goodput)
	}
	if r.CostUSD != 0 || r.PriceUSDPerGPUHour != 0 {
		t.Errorf("a cost without a price: %+v", r)
	}
}

// The assumptions a run rests on are named, and those the reader set are
// not.
func TestAssumed(t *testing.T) {
	c := Default(1e9)
	c.TokensPerStep, c.StepS, c.GPUs, c.Busy, c.Power = 1e6, 1, 8, 0.9, hw.MustGPU("h800").Power()
	fields := func(c Config) []string {
		r, err := Estimate(c)
		if err != nil {
			t.Fatal(err)
		}
		var f []string
		for _, a := range r.Assumed {
			if a.What == "" {
				t.Errorf("%s: assumed without saying what", a.Field)
			}
			f = append(f, a.Field)
		}
		return f
	}
	all := fields(c)
	for _, f := range []string{"mtbf_gpu_hours", "checkpoint_cost_s", "restart_cost_s", "gpu_power_w", "node_power_w", "pue", "energy_mwh"} {
		if !slices.Contains(all, f) {
			t.Errorf("defaults: %s not among the assumed %v", f, all)
		}
	}
	c.Given = Given{MTBF: true, CheckpointCost: true, RestartCost: true, PUE: true}
	given := fields(c)
	for _, f := range []string{"mtbf_gpu_hours", "checkpoint_cost_s", "restart_cost_s", "pue"} {
		if slices.Contains(given, f) {
			t.Errorf("given: %s still assumed (%v)", f, given)
		}
	}
	r, _ := Estimate(c)
	if i := slices.IndexFunc(r.Assumed, func(a Assumption) bool { return a.Field == "node_power_w" }); i < 0 || !strings.Contains(r.Assumed[i].What, "DGX H100") {
		t.Errorf("an H800's node is the DGX H100's, assumed: %+v", r.Assumed)
	}
}

// Bad input is refused naming the field and what is allowed; nothing
// overflows into a run.
func TestValidate(t *testing.T) {
	base := Default(1e9)
	base.TokensPerStep, base.StepS, base.GPUs, base.Busy, base.Power = 1e6, 1, 8, 0.9, hw.MustGPU("h100").Power()
	if _, err := Estimate(base); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		field string
		set   func(*Config)
	}{
		{"tokens", func(c *Config) { c.Tokens = 0 }},
		{"tokens", func(c *Config) { c.Tokens = -5 }},
		{"tokens", func(c *Config) { c.Tokens = math.NaN() }},
		{"tokens", func(c *Config) { c.Tokens = math.Inf(1) }},
		{"tokens", func(c *Config) { c.Tokens = 2e18 }},
		{"price", func(c *Config) { c.PriceUSDPerGPUHour = -1 }},
		{"price", func(c *Config) { c.PriceUSDPerGPUHour = math.NaN() }},
		{"pue", func(c *Config) { c.PUE = 0.9 }},
		{"mtbf-gpu-hours", func(c *Config) { c.MTBFGPUHours = 0 }},
		{"checkpoint-cost-s", func(c *Config) { c.CheckpointCostS = -1 }},
		{"restart-cost-s", func(c *Config) { c.RestartCostS = math.Inf(1) }},
		{"step", func(c *Config) { c.StepS = 0 }},
		{"gpus", func(c *Config) { c.GPUs = 0 }},
		{"power", func(c *Config) { c.Power = hw.Power{} }},
		// A cluster failing every 0.045 s against ten-minute restarts
		// keeps nothing: e^(600/0.045) overflows.
		{"mtbf-gpu-hours", func(c *Config) { c.MTBFGPUHours = 1e-4 }},
		// Every 0.95 s: goodput ≈ 10^−304, and 10^18 tokens would take
		// longer than a float64 holds.
		{"mtbf-gpu-hours", func(c *Config) { c.MTBFGPUHours, c.Tokens = 0.0021, 1e18 }},
	} {
		c := base
		tt.set(&c)
		_, err := Estimate(c)
		if err == nil || !strings.HasPrefix(err.Error(), tt.field+":") {
			t.Errorf("%+v: %v; want an error naming %s", c, err, tt.field)
		}
	}
}

// tinyPlan is a small model on one node of 8 A100s: TP 2, PP 2, DP 2.
func tinyPlan(t testing.TB) parallel.Result {
	m := model.Transformer{ID: "tiny", Layers: 8, Hidden: 1024, Heads: 16, KVHeads: 16, Seq: 2048, Vocab: 32000,
		FFNSize: 4096, FFN: model.GeLU, Biases: true, LearnedPositions: true, Tied: true}
	r, err := parallel.Evaluate(parallel.Config{Model: m, Cluster: parallel.DefaultCluster(hw.MustGPU("a100-80gb"), 8),
		Plan: parallel.Plan{TP: 2, PP: 2, DP: 2, Interleave: 1, SP: true, MicroBatch: 1, GlobalBatch: 64, Schedule: parallel.OneFOneB,
			BytesPerParam: 16, Dtype: hw.BF16, Flash: true, Overlap: true, Recompute: parallel.RecomputeSelective}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FromPlan reads the plan: 64 sequences of 2,048 tokens a step, its step
// time, its 8 A100s at 400 W on DGX A100 nodes (412.5 W a GPU), and
// busy = (compute + optimizer) ÷ step, below 1 with a pipeline's
// bubble; 10^9 tokens are ⌈10^9 ÷ 131,072⌉ = 7,630 steps.
func TestFromPlan(t *testing.T) {
	r := tinyPlan(t)
	c := FromPlan(r, 1e9)
	tm := r.Time
	if c.TokensPerStep != 131072 || c.StepS != tm.Step || c.GPUs != 8 || c.Power.TDPWatts != 400 || c.Power.NodeWattsPerGPU != 412.5 {
		t.Errorf("FromPlan: %+v", c)
	}
	if want := (tm.Compute + tm.Optimizer) / tm.Step; c.Busy != want || !(c.Busy > 0.3 && c.Busy < 1) {
		t.Errorf("busy %g, want (%g + %g) ÷ %g = %g", c.Busy, tm.Compute, tm.Optimizer, tm.Step, want)
	}
	run, err := Estimate(c)
	if err != nil {
		t.Fatal(err)
	}
	if run.Steps != 7630 || !near(run.IdealS, 7630*tm.Step, 1e-12) || !near(run.GPUPowerW, 400*(0.2+0.8*c.Busy), 1e-12) {
		t.Errorf("%g steps, ideal %g s (step %g s), GPU power %g W", run.Steps, run.IdealS, tm.Step, run.GPUPowerW)
	}
}

// Llama 3 405B's plan on 16,384 H100s, evaluated and turned into a run
// of 15.6T tokens: gpuscope plan --tokens' engine work, budgeted at
// 1 ms natively (issue 42).
func BenchmarkPlanTokens(b *testing.B) {
	m, _ := model.Preset("llama3-405b")
	c := parallel.Config{Model: m, Cluster: parallel.DefaultCluster(hw.MustGPU("h100"), 16384), Plan: parallel.Plan{TP: 8, PP: 16, DP: 128, Interleave: 8, SP: true,
		ZeRO: 2, Recompute: parallel.RecomputeNone, Flash: true, MicroBatch: 1, GlobalBatch: 2048, Schedule: parallel.Interleaved, BytesPerParam: 18, Dtype: hw.BF16, Overlap: true, FusedSwiGLU: true}}
	for b.Loop() {
		r, err := parallel.Evaluate(c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Estimate(FromPlan(r, 15.6e12)); err != nil {
			b.Fatal(err)
		}
	}
}
