package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "gpus", Kind: scenarios.KnobInt, Min: 1, Max: 1 << 24, Default: "16384"},
		{Name: "seed", Kind: scenarios.KnobInt, Min: 0, Max: 1<<62 - 1, Default: "1"},
	}, "json")
	defaults := map[string]string{
		// Llama 3's record: 419 unexpected interruptions in 54 days on
		// 16,384 GPUs → 54·24/419 × 16,384 GPU-hours between failures.
		"mtbf-gpu-hours": "50680", "checkpoint-every-s": "1800", "checkpoint-cost-s": "60",
		"restart-cost-s": "600", "days": "30",
	}
	for name := range defaults {
		fs.floats[name] = true
	}
	if err := fs.parse(args); err != nil {
		fmt.Fprintf(stderr, "gpuscope faults: %v\n", err)
		return 2
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope faults: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	num := func(name string) float64 {
		v, ok := fs.vals[name]
		if !ok {
			v = defaults[name]
		}
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	atoi := func(name string) int { v, _ := strconv.Atoi(fs.value(name)); return v }
	seed, _ := strconv.ParseUint(fs.value("seed"), 10, 64)
	c := faults.Config{
		GPUs: atoi("gpus"), MTBFGPUHours: num("mtbf-gpu-hours"), CheckpointEvery: num("checkpoint-every-s"),
		CheckpointCost: num("checkpoint-cost-s"), RestartCost: num("restart-cost-s"), Days: num("days"), Seed: seed,
	}
	r, err := faults.Run(c)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope faults: --%v\n", err)
		return 2
	}
	m := r.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	secs := units.Duration
	fmt.Fprintf(stdout, "%d GPUs for %g days: a failure every %s (per GPU every %g h)\n", c.GPUs, c.Days, secs(m.ClusterMTBFS), c.MTBFGPUHours)
	fmt.Fprintf(stdout, "  failures            %d\n", m.Failures)
	fmt.Fprintf(stdout, "  lost_work_s         %.0f  (%s)\n", m.LostWorkS, secs(m.LostWorkS))
	fmt.Fprintf(stdout, "  goodput             %.4f\n", m.Goodput)
	fmt.Fprintf(stdout, "  optimal_interval_s  %.0f  (Daly; Young's √(2CM): %.0f; you chose %g)\n", m.OptimalIntervalS, m.YoungIntervalS, c.CheckpointEvery)
	return 0
}
