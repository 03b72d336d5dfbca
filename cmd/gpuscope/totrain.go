package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/budget"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

// runKnobs are gpuscope plan's flags for a training run (--tokens and
// what the run assumes around the plan's step).
func runKnobs() []scenarios.Knob {
	f := func(name string, lo, hi, def float64) scenarios.Knob {
		k := scenarios.Knob{Name: name, Kind: scenarios.KnobFloat, FMin: lo, FMax: hi}
		if def != 0 {
			k.Default = strconv.FormatFloat(def, 'g', -1, 64)
		}
		return k
	}
	return []scenarios.Knob{
		f("tokens", 1, budget.MaxTokens, 0),
		f("price", 1e-4, 1e6, 0),
		f("pue", 1, 3, budget.DefaultPUE),
		f("mtbf-gpu-hours", 1e-3, 1e12, budget.DefaultMTBFGPUHours),
		f("checkpoint-cost-s", 0, 1e7, budget.DefaultCheckpointCostS),
		f("restart-cost-s", 0, 1e7, budget.DefaultRestartCostS),
	}
}

// runAssumptionFlags are the flags that set what a run assumes: each
// needs --tokens.
var runAssumptionFlags = []string{"price", "pue", "mtbf-gpu-hours", "checkpoint-cost-s", "restart-cost-s"}

// runFlagsNeedTokens refuses a run's flags without --tokens, which they
// would silently do nothing without.
func runFlagsNeedTokens(given func(string) bool) error {
	if given("tokens") {
		return nil
	}
	for _, f := range runAssumptionFlags {
		if given(f) {
			return fmt.Errorf("--%s: sets what a training run assumes; give --tokens N too", f)
		}
	}
	return nil
}

// tokensHint adds to a --tokens value that is no number how to write one:
// the CLI reads plain numbers (15.6e12), no suffixes (15.6T).
func tokensHint(err error) error {
	if errors.Is(err, errHelp) || !strings.HasPrefix(err.Error(), "--tokens:") || !strings.Contains(err.Error(), "not a number") {
		return err
	}
	return fmt.Errorf("%v (a plain number or e notation: 15.6e12 for 15.6T, 366e9 for 366B)", err)
}

// trainingRun is the plan's step as a run of --tokens tokens, with the
// assumptions the flags set.
func trainingRun(r parallel.Result, given func(string) bool, value func(string) string) (budget.Run, error) {
	num := func(name string) float64 { v, _ := strconv.ParseFloat(value(name), 64); return v }
	c := budget.FromPlan(r, num("tokens"))
	c.MTBFGPUHours, c.CheckpointCostS, c.RestartCostS, c.PUE = num("mtbf-gpu-hours"), num("checkpoint-cost-s"), num("restart-cost-s"), num("pue")
	c.Given = budget.Given{MTBF: given("mtbf-gpu-hours"), CheckpointCost: given("checkpoint-cost-s"), RestartCost: given("restart-cost-s"), PUE: given("pue")}
	if given("price") {
		c.PriceUSDPerGPUHour = num("price")
	}
	return budget.Estimate(c)
}

// assumedFlag is the flag that sets an assumed field, where one does.
var assumedFlag = map[string]string{"mtbf_gpu_hours": "--mtbf-gpu-hours", "checkpoint_cost_s": "--checkpoint-cost-s", "restart_cost_s": "--restart-cost-s", "pue": "--pue"}

// writeTimeToTrain is --tokens' text: the run, line by line with how each
// figure is made, then what it assumes.
func writeTimeToTrain(w io.Writer, r *budget.Run, fits bool) {
	if r == nil {
		return
	}
	n := units.Number
	fmt.Fprintf(w, "time to train %s tokens (--tokens):\n", units.Params(r.Tokens))
	if !fits {
		fmt.Fprintf(w, "  (the plan does not fit: what the run would take if it did)\n")
	}
	row := func(name, value, how string) { fmt.Fprintf(w, "  %-17s %-12s %s\n", name, value, how) }
	row("steps", n(r.Steps), fmt.Sprintf("%s tokens ÷ %s a step, rounded up", units.Params(r.Tokens), n(r.TokensPerStep)))
	row("ideal_days", n(r.IdealDays), fmt.Sprintf("steps × step_s %.4g, without failures", r.StepS))
	cadence := "checkpointing continuously (free checkpoints)"
	if r.CheckpointEveryS > 0 {
		cadence = fmt.Sprintf("a checkpoint every %s (Daly's) costing %s", units.Duration(r.CheckpointEveryS), units.Duration(r.CheckpointCostS))
	}
	row("goodput", fmt.Sprintf("%.4f", r.Goodput), fmt.Sprintf("a failure every %s (%s GPU-hours ÷ %s GPUs), %s, a restart %s: %s failures expected",
		units.Duration(r.ClusterMTBFS), n(r.MTBFGPUHours), units.Count(int64(r.GPUs)), cadence, units.Duration(r.RestartCostS), n(r.Failures)))
	row("days", n(r.Days), "ideal_days ÷ goodput")
	row("gpu_hours", n(r.GPUHours), fmt.Sprintf("%s GPUs × the wall clock; ideal_gpu_hours %s", units.Count(int64(r.GPUs)), n(r.IdealGPUHours)))
	row("energy_mwh", n(r.EnergyMWh), fmt.Sprintf("%s GPUs × (%s W a GPU, busy %s of a step of its %s W TDP, + %s W its node's share) × PUE %g = %s MW",
		units.Count(int64(r.GPUs)), n(r.GPUPowerW), units.Percent(r.Busy), n(r.TDPW), n(r.NodePowerW), r.PUE, n(r.FacilityPowerW/1e6)))
	row("gpu_energy_mwh", n(r.GPUEnergyMWh), "the GPUs alone, no node and no PUE")
	if r.PriceUSDPerGPUHour > 0 {
		row("cost_usd", n(r.CostUSD), fmt.Sprintf("gpu_hours × $%g a GPU-hour; ideal_cost_usd %s", r.PriceUSDPerGPUHour, n(r.IdealCostUSD)))
	}
	fmt.Fprintf(w, "assumed (not from the plan):\n")
	for _, a := range r.Assumed {
		what := a.What
		if f, ok := assumedFlag[a.Field]; ok {
			what += "; " + f + " sets it"
		}
		fmt.Fprintf(w, "  %-17s %s\n", a.Field, what)
	}
}
