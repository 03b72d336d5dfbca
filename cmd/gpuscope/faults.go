package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

// faultsDefaults are gpuscope faults' defaults: Llama 3's cluster
// failing at its rate (scenarios.Llama3MTBFGPUHours: 419 unexpected
// interruptions in 54 days on 16,384 GPUs, 54·24/419 × 16,384 = 50,677 h,
// rounded to 50,680), over a 30-day job, checkpointing every half hour.
var faultsDefaults = struct {
	gpus                                  int
	mtbfHours, every, cost, restart, days float64
}{16384, 50680, 1800, 60, 600, 30}

var faultsHelp = cmdHelp{
	name:  "gpuscope faults",
	usage: "[--gpus N --mtbf-gpu-hours H --checkpoint-every-s C --checkpoint-cost-s W --restart-cost-s R --days D --seed S] [--json]",
	about: faultsAbout(),
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

// faultsAbout is faults' help paragraph, its defaults written from
// faultsDefaults.
func faultsAbout() string {
	d := faultsDefaults
	return fmt.Sprintf(`A training job on a failing cluster, simulated: failures arrive at random
(exponentially, the cluster's MTBF being the per-GPU MTBF ÷ its GPUs), each
losing the work since the last checkpoint and a restart. Prints failures,
lost_work_s, goodput and optimal_interval_s (Daly; Young's √(2CM) beside
it). The defaults: a %g-day job on %s GPUs failing at Llama 3's rate (419
failures in its 54 days on 16,384 GPUs: a per-GPU MTBF of %s h), a
checkpoint every %s costing %s, a restart %s.`, d.days, units.Count(int64(d.gpus)), units.Count(int64(d.mtbfHours)),
		units.Duration(d.every), units.Duration(d.cost), units.Duration(d.restart))
}

func runFaults(args []string, stdout, stderr io.Writer) int {
	d := faultsDefaults
	fs := newFlagSet([]scenarios.Knob{
		{Name: "gpus", Kind: scenarios.KnobInt, Min: 1, Max: 1 << 24, Default: strconv.Itoa(d.gpus)},
		{Name: "seed", Kind: scenarios.KnobInt, Min: 0, Max: 1<<62 - 1, Default: "1"},
	}, "json")
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	fs.float("mtbf-gpu-hours", num(d.mtbfHours))
	fs.float("checkpoint-every-s", num(d.every))
	fs.float("checkpoint-cost-s", num(d.cost))
	fs.float("restart-cost-s", num(d.restart))
	fs.float("days", num(d.days))
	fs.help = faultsHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope faults: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	number := fs.number
	atoi := func(name string) int { v, _ := strconv.Atoi(fs.value(name)); return v }
	seed, _ := strconv.ParseUint(fs.value("seed"), 10, 64)
	c := faults.Config{
		GPUs: atoi("gpus"), MTBFGPUHours: number("mtbf-gpu-hours"), CheckpointEvery: number("checkpoint-every-s"),
		CheckpointCost: number("checkpoint-cost-s"), RestartCost: number("restart-cost-s"), Days: number("days"), Seed: seed,
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
