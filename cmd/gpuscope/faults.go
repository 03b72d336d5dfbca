package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

var faultsHelp = cmdHelp{
	name:  "gpuscope faults",
	usage: "[--gpus N --mtbf-gpu-hours H --checkpoint-every-s C --checkpoint-cost-s W --restart-cost-s R --days D --seed S] [--json]",
	about: `A training job on a failing cluster, simulated: failures arrive at random
(exponentially, the cluster's MTBF being the per-GPU MTBF ÷ its GPUs), each
losing the work since the last checkpoint and a restart. Prints failures,
lost_work_s, goodput and optimal_interval_s (Daly; Young's √(2CM) beside
it). The defaults are Llama 3's record: 419 failures in 54 days on 16,384
GPUs.`,
	flags: map[string]flagDoc{
		"gpus":               {what: "GPUs in the job"},
		"seed":               {what: "the random seed (same seed, same failures)"},
		"mtbf-gpu-hours":     {what: "mean time between failures of one GPU, hours", allowed: "a positive number"},
		"checkpoint-every-s": {what: "seconds of work between checkpoints", allowed: "a positive number"},
		"checkpoint-cost-s":  {what: "seconds a checkpoint stalls training", allowed: "0 or more"},
		"restart-cost-s":     {what: "seconds from a failure to training again", allowed: "0 or more"},
		"days":               {what: "the job's length, days", allowed: "above 0, up to 3650"},
		"json":               jsonDoc,
	},
}

func runFaults(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet([]scenarios.Knob{
		{Name: "gpus", Kind: scenarios.KnobInt, Min: 1, Max: 1 << 24, Default: "16384"},
		{Name: "seed", Kind: scenarios.KnobInt, Min: 0, Max: 1<<62 - 1, Default: "1"},
	}, "json")
	// Llama 3's record: 419 unexpected interruptions in 54 days on 16,384
	// GPUs → 54·24/419 × 16,384 GPU-hours between failures.
	fs.float("mtbf-gpu-hours", "50680")
	fs.float("checkpoint-every-s", "1800")
	fs.float("checkpoint-cost-s", "60")
	fs.float("restart-cost-s", "600")
	fs.float("days", "30")
	fs.help = faultsHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope faults: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	num := fs.number
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
