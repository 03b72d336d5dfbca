package budget

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
)

// The defaults of what a run assumes around its step.
const (
	// DefaultMTBFGPUHours is Llama 3's failure rate, taken for every
	// cluster: 419 unexpected interruptions in 54 days on 16,384 H100s
	// (arXiv 2407.21783, Table 5; faults.Llama3MTBFGPUHours).
	DefaultMTBFGPUHours = faults.Llama3MTBFGPUHours
	// DefaultCheckpointCostS and DefaultRestartCostS are the
	// fault-tolerance lesson's (and gpuscope faults'): a checkpoint stalls
	// training a minute, a failure costs ten minutes before training
	// again. Assumptions: no published run gives both.
	DefaultCheckpointCostS = 60
	DefaultRestartCostS    = 600
	// DefaultPUE is Meta's: Touvron et al. 2023 (LLaMA, arXiv 2302.13971,
	// §6) count a power usage effectiveness of 1.1 for their data
	// centres, about what Meta's sustainability reports give its fleet
	// (≈ 1.08–1.10).
	DefaultPUE = 1.1
	// WaitPowerShare is the share of its TDP a GPU draws while it waits —
	// in the pipeline's bubble, on a collective it cannot hide, for the
	// slowest GPU — rather than computing. An assumption: NVIDIA
	// publishes no figure; an idle A100 SXM4 reads about 53 W on
	// nvidia-smi (13% of its 400 W), and a GPU waiting on a collective
	// still runs NCCL's kernels and its links, so more.
	WaitPowerShare = 0.2
	// MaxTokens bounds a run's tokens: 10^18, 64,000 times Llama 3's.
	MaxTokens = 1e18
)

// Config is a training run: a plan's step and what the run around it
// assumes.
type Config struct {
	Tokens        float64 // to train on
	TokensPerStep float64 // global batch × sequence length
	StepS         float64 // one step's wall time, seconds
	GPUs          int
	Power         hw.Power // the GPU's TDP and its node's share
	// Busy is the share of a step the GPUs compute (the plan's compute
	// and optimizer time over its step), 0–1.
	Busy float64
	// The failures, as engine/faults models them: a per-GPU mean time
	// between failures, hours; a checkpoint's and a restart's cost,
	// seconds.
	MTBFGPUHours, CheckpointCostS, RestartCostS float64
	PUE                                         float64
	// PriceUSDPerGPUHour is what a GPU-hour costs; 0: no cost given.
	PriceUSDPerGPUHour float64
	// Given says which of the assumptions the reader set (the rest are
	// the defaults, and Run.Assumed lists them).
	Given Given
}

// Given marks the assumptions a reader set.
type Given struct {
	MTBF, CheckpointCost, RestartCost, PUE bool
}

// Default is a run of tokens with the defaults' assumptions, the rest
// to fill.
func Default(tokens float64) Config {
	return Config{Tokens: tokens, MTBFGPUHours: DefaultMTBFGPUHours, CheckpointCostS: DefaultCheckpointCostS,
		RestartCostS: DefaultRestartCostS, PUE: DefaultPUE}
}

// FromPlan is Default(tokens) around r's step: its tokens a step, its
// step time, its GPUs and their power, and the share of the step they
// compute ((compute + optimizer) ÷ step; the rest is the bubble, the
// communication not hidden and the wait for the slowest GPU).
func FromPlan(r parallel.Result, tokens float64) Config {
	c := Default(tokens)
	pc := r.Config
	c.TokensPerStep = float64(pc.Plan.GlobalBatch) * float64(pc.Model.Seq)
	c.StepS = r.Time.Step
	c.GPUs = pc.Cluster.GPUs
	c.Power = pc.Cluster.GPU.Power()
	if r.Time.Step > 0 {
		c.Busy = min(1, (r.Time.Compute+r.Time.Optimizer)/r.Time.Step)
	}
	return c
}

// Validate names the first field out of range, as gpuscope plan's flag.
func (c Config) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !(c.Tokens >= 1) || c.Tokens > MaxTokens:
		return errs.RangeG("tokens", c.Tokens, 1, MaxTokens, "")
	case !(c.TokensPerStep > 0) || !finite(c.TokensPerStep):
		return fmt.Errorf("tokens a step: %g; must be a positive number", c.TokensPerStep)
	case !(c.StepS > 0) || !finite(c.StepS):
		return fmt.Errorf("step: %g s; must be a positive number", c.StepS)
	case c.GPUs < 1:
		return fmt.Errorf("gpus: %d; must be 1 or more", c.GPUs)
	case !(c.Busy >= 0 && c.Busy <= 1):
		return errs.RangeG("busy", c.Busy, 0, 1, "")
	case !(c.Power.TDPWatts > 0) || !finite(c.Power.TDPWatts) || !(c.Power.NodeWattsPerGPU >= 0) || !finite(c.Power.NodeWattsPerGPU):
		return fmt.Errorf("power: %+v; the GPU needs a TDP", c.Power)
	case !(c.MTBFGPUHours > 0) || !finite(c.MTBFGPUHours):
		return fmt.Errorf("mtbf-gpu-hours: %g; must be a positive number", c.MTBFGPUHours)
	case !(c.CheckpointCostS >= 0) || !finite(c.CheckpointCostS):
		return fmt.Errorf("checkpoint-cost-s: %g; must be 0 or more", c.CheckpointCostS)
	case !(c.RestartCostS >= 0) || !finite(c.RestartCostS):
		return fmt.Errorf("restart-cost-s: %g; must be 0 or more", c.RestartCostS)
	case !(c.PUE >= 1) || c.PUE > 3:
		return errs.RangeG("pue", c.PUE, 1, 3, " (a data centre's total power over its IT equipment's)")
	case !(c.PriceUSDPerGPUHour >= 0) || !finite(c.PriceUSDPerGPUHour):
		return fmt.Errorf("price: %g; must be a positive number, US dollars a GPU-hour", c.PriceUSDPerGPUHour)
	}
	return nil
}

// Run is a training run's budget (gpuscope plan --tokens' time_to_train).
type Run struct {
	Tokens        float64 `json:"tokens"`
	TokensPerStep float64 `json:"tokens_per_step"`
	Steps         float64 `json:"steps"` // whole steps: ⌈tokens ÷ tokens_per_step⌉
	StepS         float64 `json:"step_s"`
	// IdealS is the run without failures: steps × step_s.
	IdealS    float64 `json:"ideal_s"`
	IdealDays float64 `json:"ideal_days"`

	// The failures (engine/faults): the per-GPU MTBF, the cluster's
	// (÷ GPUs), Daly's checkpoint interval for it, the checkpoint's and
	// the restart's cost, the share of wall time that becomes kept
	// progress, and the failures expected over the run.
	MTBFGPUHours     float64 `json:"mtbf_gpu_hours"`
	ClusterMTBFS     float64 `json:"cluster_mtbf_s"`
	CheckpointEveryS float64 `json:"checkpoint_every_s"`
	CheckpointCostS  float64 `json:"checkpoint_cost_s"`
	RestartCostS     float64 `json:"restart_cost_s"`
	Goodput          float64 `json:"goodput"`
	Failures         float64 `json:"failures"`

	// WallS is the run with its failures: ideal_s ÷ goodput.
	WallS         float64 `json:"wall_s"`
	Days          float64 `json:"days"`
	GPUs          int     `json:"gpus"`
	GPUHours      float64 `json:"gpu_hours"`       // GPUs × wall_s ÷ 3,600
	IdealGPUHours float64 `json:"ideal_gpu_hours"` // GPUs × ideal_s ÷ 3,600

	// The energy: the share of a step the GPUs compute; a GPU's TDP and
	// its draw (TDP while computing, WaitPowerShare of it otherwise); its
	// node's share; the PUE; the whole facility's power; the energy over
	// the wall clock, of the GPUs alone and of the facility.
	Busy           float64 `json:"busy"`
	TDPW           float64 `json:"tdp_w"`
	GPUPowerW      float64 `json:"gpu_power_w"`
	NodePowerW     float64 `json:"node_power_w"`
	PUE            float64 `json:"pue"`
	FacilityPowerW float64 `json:"facility_power_w"`
	GPUEnergyMWh   float64 `json:"gpu_energy_mwh"`
	EnergyMWh      float64 `json:"energy_mwh"`

	// With a price: the cost of the GPU-hours, and of the ideal run's.
	PriceUSDPerGPUHour float64 `json:"price_usd_per_gpu_hour,omitempty"`
	CostUSD            float64 `json:"cost_usd,omitempty"`
	IdealCostUSD       float64 `json:"ideal_cost_usd,omitempty"`

	// Assumed are the figures above that rest on assumptions, with why.
	Assumed []Assumption `json:"assumed"`
}

// Assumption is a figure of a Run that rests on an assumption: the
// field and what is assumed.
type Assumption struct {
	Field string `json:"field"`
	What  string `json:"what"`
}

// Estimate is c's run.
func Estimate(c Config) (Run, error) {
	if err := c.Validate(); err != nil {
		return Run{}, err
	}
	r := Run{Tokens: c.Tokens, TokensPerStep: c.TokensPerStep, StepS: c.StepS, GPUs: c.GPUs,
		MTBFGPUHours: c.MTBFGPUHours, CheckpointCostS: c.CheckpointCostS, RestartCostS: c.RestartCostS,
		Busy: c.Busy, TDPW: c.Power.TDPWatts, NodePowerW: c.Power.NodeWattsPerGPU, PUE: c.PUE}
	// A run takes whole steps: the last one may pass the tokens asked.
	r.Steps = math.Ceil(c.Tokens / c.TokensPerStep)
	r.IdealS = r.Steps * c.StepS
	r.IdealDays = r.IdealS / 86400

	// The failures as engine/faults models them: the cluster fails every
	// per-GPU MTBF ÷ GPUs; the job checkpoints at Daly's interval for
	// that and its checkpoint cost (faults.DalyInterval, the interval
	// gpuscope faults calls optimal), and keeps, in expectation,
	// faults.ExpectedGoodput of its wall time (Daly's complete model of
	// the job faults.Run simulates). Free checkpoints (cost 0) are
	// taken continuously: nothing is lost but the restarts, e^(−R/M).
	fc := faults.Config{GPUs: c.GPUs, MTBFGPUHours: c.MTBFGPUHours}
	r.ClusterMTBFS = fc.ClusterMTBF()
	r.CheckpointEveryS = faults.DalyInterval(c.CheckpointCostS, r.ClusterMTBFS)
	if c.CheckpointCostS == 0 {
		r.CheckpointEveryS = 0
		r.Goodput = math.Exp(-c.RestartCostS / r.ClusterMTBFS)
	} else {
		r.Goodput = faults.ExpectedGoodput(r.CheckpointEveryS, c.CheckpointCostS, c.RestartCostS, r.ClusterMTBFS)
	}
	if !(r.Goodput > 0) || !(r.ClusterMTBFS > 0) {
		return Run{}, fmt.Errorf("mtbf-gpu-hours: %g; %d GPUs fail every %s, against a restart of %s and a checkpoint of %s: the run keeps no progress; allowed: a longer MTBF, or cheaper restarts and checkpoints",
			c.MTBFGPUHours, c.GPUs, units.Duration(r.ClusterMTBFS), units.Duration(c.RestartCostS), units.Duration(c.CheckpointCostS))
	}
	r.WallS = r.IdealS / r.Goodput
	r.Days = r.WallS / 86400
	r.Failures = r.WallS / r.ClusterMTBFS
	gpus := float64(c.GPUs)
	r.GPUHours = gpus * r.WallS / 3600
	r.IdealGPUHours = gpus * r.IdealS / 3600

	// The energy: each GPU draws its TDP while it computes and
	// WaitPowerShare of it while it waits, its node's share beside it
	// (hw.Power: the server's datasheet maximum less its GPUs), and the
	// data centre PUE times all of it; over the whole wall clock, its
	// checkpoints and restarts drawn as training draws.
	r.GPUPowerW = c.Power.TDPWatts * (WaitPowerShare + (1-WaitPowerShare)*c.Busy)
	r.FacilityPowerW = gpus * (r.GPUPowerW + r.NodePowerW) * c.PUE
	r.GPUEnergyMWh = gpus * r.GPUPowerW * r.WallS / 3.6e9
	r.EnergyMWh = r.FacilityPowerW * r.WallS / 3.6e9

	if c.PriceUSDPerGPUHour > 0 {
		r.PriceUSDPerGPUHour = c.PriceUSDPerGPUHour
		r.CostUSD = c.PriceUSDPerGPUHour * r.GPUHours
		r.IdealCostUSD = c.PriceUSDPerGPUHour * r.IdealGPUHours
	}
	// A goodput near 0 can take the run past what a float64 counts.
	for _, v := range []float64{r.WallS, r.GPUHours, r.EnergyMWh, r.CostUSD, r.Failures} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return Run{}, fmt.Errorf("mtbf-gpu-hours: %g; %d GPUs fail every %s, against a restart of %s: goodput %.3g, and %g tokens would take longer than can be counted; allowed: a longer MTBF, cheaper restarts and checkpoints, or fewer tokens",
				c.MTBFGPUHours, c.GPUs, units.Duration(r.ClusterMTBFS), units.Duration(c.RestartCostS), r.Goodput, c.Tokens)
		}
	}
	r.Assumed = c.assumed()
	return r, nil
}

// assumed are the figures c's run rests on that the reader did not set.
func (c Config) assumed() []Assumption {
	var a []Assumption
	if !c.Given.MTBF {
		a = append(a, Assumption{"mtbf_gpu_hours", "Llama 3's failure rate, taken for every cluster: 419 unexpected interruptions in 54 days on 16,384 H100s (arXiv 2407.21783, Table 5), a GPU failing every 50,677 hours"})
	}
	if !c.Given.CheckpointCost {
		a = append(a, Assumption{"checkpoint_cost_s", "a checkpoint stalls training a minute (the fault-tolerance lesson's; not from the model's size and the storage)"})
	}
	if !c.Given.RestartCost {
		a = append(a, Assumption{"restart_cost_s", "a failure costs ten minutes before training again (the fault-tolerance lesson's)"})
	}
	a = append(a, Assumption{"gpu_power_w", fmt.Sprintf("a GPU draws its TDP while it computes and %.0f%% of it while it waits (no published figure)", 100*WaitPowerShare)})
	node := "the server's datasheet maximum less its GPUs' TDPs, a GPU's share: an upper bound (an 8-H100 node training Llama 2 13B drew at most 8.4 kW of its 10.2, Latif et al. 2025)"
	if c.Power.NodeAssumed {
		node = c.Power.Source
	}
	a = append(a, Assumption{"node_power_w", node})
	if !c.Given.PUE {
		a = append(a, Assumption{"pue", "1.1, Meta's (LLaMA, arXiv 2302.13971 §6)"})
	}
	a = append(a, Assumption{"energy_mwh", "checkpoints and restarts drawn as training draws"})
	return a
}
