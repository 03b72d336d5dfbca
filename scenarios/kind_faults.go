package scenarios

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The fault-tolerance lesson (issue 6): a job on a failing cluster over
// days, its checkpoints and restarts, and goodput against the checkpoint
// interval.

// Llama3MTBFGPUHours is the per-GPU mean time between failures that Llama
// 3's record implies: 419 unexpected interruptions in 54 days on 16,384
// GPUs → a failure every 54·24/419 ≈ 3.09 h for the cluster, so
// 3.09 h × 16,384 ≈ 50,680 GPU-hours per GPU (arXiv 2407.21783, Table 5;
// faults.Llama3MTBFGPUHours, which gpuscope plan --tokens uses too).
const Llama3MTBFGPUHours = faults.Llama3MTBFGPUHours

// ViewGoodput makes the goodput curve the fault-tolerance picture's main
// act: how often to checkpoint.
const ViewGoodput = "goodput"

// FaultRun is a fault-tolerance step: the job, and the sweep of checkpoint
// intervals.
type FaultRun struct {
	Result faults.Result
	Sweep  []faults.Metrics // one job per interval, same seed
	end    sim.Time
	plan   *faultPlan // the zoom's training step (Plan)
}

// End is the job's days of wall time, played as a time line.
func (r *FaultRun) End() sim.Time { return r.end }

// Mark knows start and end.
func (r *FaultRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.end) }

// FaultConfig reads the lesson's knobs.
func FaultConfig(c Config) faults.Config {
	f := func(name string, def float64) float64 {
		if v, ok := c[name]; ok && v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return x
			}
		}
		return def
	}
	return faults.Config{
		GPUs: int(f("gpus", 16384)), MTBFGPUHours: f("mtbf_gpu_hours", Llama3MTBFGPUHours),
		CheckpointEvery: 60 * f("checkpoint_min", 30), CheckpointCost: f("checkpoint_cost_s", 60),
		RestartCost: 60 * f("restart_min", 10), Days: f("days", 54), Seed: uint64(f("seed", 1)), Record: true,
	}
}

// FaultSweepIntervals are the checkpoint intervals of the goodput curve,
// seconds: 1 minute to 1 day on a log scale.
func FaultSweepIntervals() []float64 {
	var out []float64
	for e := 0.0; e <= 1.0001; e += 1.0 / 24 {
		out = append(out, 60*math.Pow(1440, e))
	}
	return out
}

func faultRun(c Config, sweeps map[faults.Config][]faults.Metrics) (*FaultRun, error) {
	fc := FaultConfig(c)
	res, err := faults.Run(fc)
	if err != nil {
		return nil, err
	}
	r := &FaultRun{Result: res, end: sim.FromSeconds(fc.Days * 86400), plan: new(faultPlan)}
	key := fc
	key.CheckpointEvery, key.Record = 0, false
	if sw, ok := sweeps[key]; ok {
		r.Sweep = sw
		return r, nil
	}
	defer func() { sweeps[key] = r.Sweep }()
	for _, iv := range FaultSweepIntervals() {
		sc := fc
		sc.CheckpointEvery, sc.Record = iv, false
		sr, err := faults.Run(sc)
		if err != nil {
			return nil, err
		}
		r.Sweep = append(r.Sweep, sr.Metrics())
	}
	return r, nil
}

// FaultLesson is the fault-tolerance lesson's engine part.
type FaultLesson struct{}

// prepareFaults runs each step's job; steps that differ only in the
// checkpoint interval share one sweep.
func prepareFaults(s *Scenario, cfg Config) (*Lesson, error) {
	sweeps := map[faults.Config][]faults.Metrics{}
	return prepareWith(func() lessonEngine { return FaultLesson{} }, func(c Config) (Run, error) { return faultRun(c, sweeps) })(s, cfg)
}

// FaultLessonMetrics are gpuscope faults' numbers and the sweep.
type FaultLessonMetrics struct {
	faults.Metrics
	MTBFGPUHours float64          `json:"mtbf_gpu_hours"`
	Days         float64          `json:"days"`
	Sweep        []faults.Metrics `json:"sweep"`
	Command      string           `json:"command"`
}

func (FaultLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*FaultRun)
	c := r.Result.Config
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return FaultLessonMetrics{Metrics: r.Result.Metrics(), MTBFGPUHours: c.MTBFGPUHours, Days: c.Days, Sweep: r.Sweep,
		Command: "gpuscope faults --gpus " + strconv.Itoa(c.GPUs) + " --mtbf-gpu-hours " + g(c.MTBFGPUHours) +
			" --checkpoint-every-s " + g(c.CheckpointEvery) + " --checkpoint-cost-s " + g(c.CheckpointCost) +
			" --restart-cost-s " + g(c.RestartCost) + " --days " + g(c.Days) + " --seed " + strconv.FormatUint(c.Seed, 10) + " --json"}
}

func faultNarration(r *FaultRun, lang string) []string {
	m := r.Result.Metrics()
	c := r.Result.Config
	best := r.Sweep[0]
	for _, s := range r.Sweep {
		if s.Goodput > best.Goodput {
			best = s
		}
	}
	dur := func(s float64) string { return units.LocalDuration(lang, s) }
	return []string{
		"gpus", units.Count(int64(c.GPUs)), "days", strconv.FormatFloat(c.Days, 'f', 0, 64),
		"mtbf_gpu", units.Count(int64(math.Round(c.MTBFGPUHours))),
		"mtbf_cluster", dur(m.ClusterMTBFS),
		"failures", count(m.Failures),
		"expected", units.Count(int64(math.Round(c.Days * 86400 / m.ClusterMTBFS))),
		"lost", dur(m.LostWorkS),
		"goodput", units.Percent(m.Goodput),
		"every", dur(c.CheckpointEvery), "cost", dur(c.CheckpointCost), "restart", dur(c.RestartCost),
		"optimal", dur(m.OptimalIntervalS), "young", dur(m.YoungIntervalS),
		"best_goodput", units.Percent(best.Goodput), "best_every", dur(best.CheckpointEveryS),
	}
}

func (FaultLesson) narration(les *Lesson, step int, lang string) []string {
	return faultNarration(les.Steps[step-1].Run.(*FaultRun), lang)
}

func (FaultLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*FaultRun)
	m := r.Result.Metrics()
	dur := func(s float64) string { return units.LocalDuration(lang, s) }
	row := func(key, v string) TableRow {
		src := ""
		if i18n.Has(i18n.Fallback, "source.faults."+key) {
			src = t("source.faults." + key)
		}
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{v}, Source: src}
	}
	return Table{Columns: []string{t("ui.metric"), t("ui.value")}, ColumnKeys: []string{"job"}, Current: "job", Rows: []TableRow{
		row("cluster_mtbf_s", dur(m.ClusterMTBFS)),
		row("failures", count(m.Failures)),
		row("lost_work_s", dur(m.LostWorkS)),
		row("checkpoint_time_s", dur(m.CheckpointTimeS)),
		row("restart_time_s", dur(m.RestartTimeS)),
		row("goodput", units.Percent(m.Goodput)),
		row("optimal_interval_s", dur(m.OptimalIntervalS)),
		row("young_interval_s", dur(m.YoungIntervalS)),
	}}
}

// live is the day on the playhead and the failures so far.
func (FaultLesson) live(les *Lesson, step int, at sim.Time, lang string) string {
	r := les.Steps[step-1].Run.(*FaultRun)
	s := at.Seconds()
	n := 0
	for _, f := range r.Result.FailureTimes {
		if f <= s {
			n++
		}
	}
	return i18n.T(lang, "ui.live_faults", "day", strconv.FormatFloat(s/86400, 'f', 1, 64), "failures", strconv.Itoa(n))
}
