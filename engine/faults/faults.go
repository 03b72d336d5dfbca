package faults

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// Config is one job.
type Config struct {
	GPUs            int
	MTBFGPUHours    float64 // per GPU
	CheckpointEvery float64 // seconds of progress between checkpoints
	CheckpointCost  float64 // seconds to write one
	RestartCost     float64 // seconds to reload and re-warm after a failure
	Days            float64
	Seed            uint64
	// Record keeps the job's progress over time and its checkpoints'
	// times, for the picture.
	Record bool
}

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.GPUs < 1 || c.GPUs > 1<<24:
		return errs.Range("gpus", c.GPUs, 1, 1<<24, "")
	case !(c.MTBFGPUHours > 0) || math.IsInf(c.MTBFGPUHours, 0):
		return fmt.Errorf("mtbf-gpu-hours: %g; must be a positive number", c.MTBFGPUHours)
	case !(c.CheckpointEvery > 0) || math.IsInf(c.CheckpointEvery, 0):
		return fmt.Errorf("checkpoint-every-s: %g; must be a positive number", c.CheckpointEvery)
	case !(c.CheckpointCost >= 0) || math.IsInf(c.CheckpointCost, 0):
		return fmt.Errorf("checkpoint-cost-s: %g; must be 0 or more", c.CheckpointCost)
	case !(c.RestartCost >= 0) || math.IsInf(c.RestartCost, 0):
		return fmt.Errorf("restart-cost-s: %g; must be 0 or more", c.RestartCost)
	case !(c.Days > 0) || c.Days > 3650:
		return fmt.Errorf("days: %g; allowed above 0, up to 3650", c.Days)
	}
	// Run steps once per checkpoint and once per failure. Without a bound
	// a tiny interval with a free checkpoint, or a tiny MTBF with a free
	// restart, ran for hours — or forever, once a step fell below the
	// wall clock's float64 resolution and time stopped advancing (found
	// by cmd/gpuscope's FuzzCLI: --checkpoint-every-s 1e-300
	// --checkpoint-cost-s 0 never returned).
	wall := c.Days * 86400
	if n := wall / (c.CheckpointEvery + c.CheckpointCost); n > MaxEvents {
		return fmt.Errorf("checkpoint-every-s: %g; %.3g checkpoints in %g days, at most %g: allowed %.3g or more (with checkpoint-cost-s %g)",
			c.CheckpointEvery, n, c.Days, float64(MaxEvents), wall/MaxEvents-c.CheckpointCost, c.CheckpointCost)
	}
	if n := wall / c.ClusterMTBF(); !(n <= MaxEvents) {
		return fmt.Errorf("mtbf-gpu-hours: %g; %.3g expected failures of %d GPUs in %g days, at most %g: allowed %.3g or more",
			c.MTBFGPUHours, n, c.GPUs, c.Days, float64(MaxEvents), wall/MaxEvents*float64(c.GPUs)/3600)
	}
	return nil
}

// MaxEvents bounds the checkpoints and the expected failures of a run
// (each), so that every configuration Validate accepts finishes: 10^7 of
// each take about a second. The fault-tolerance lesson's extreme (32,768
// GPUs at a 100-hour MTBF for 54 days) expects 4.2·10^5 failures.
const MaxEvents = 1e7

// ClusterMTBF is the cluster's mean time between failures, seconds: the
// per-GPU MTBF divided by the number of GPUs.
func (c Config) ClusterMTBF() float64 { return c.MTBFGPUHours * 3600 / float64(c.GPUs) }

// Result is how the job went.
type Result struct {
	Config   Config
	Failures int
	// LostWork is the progress thrown away at failures (work since the
	// last checkpoint), seconds.
	LostWork float64
	// Useful is the progress kept at the end, seconds.
	Useful float64
	// CheckpointTime and RestartTime are the wall time spent writing
	// checkpoints and restarting.
	CheckpointTime, RestartTime float64
	// FailureTimes are the failures' wall times, for the picture.
	FailureTimes []float64
	// With Config.Record: FailedGPUs are the GPUs that failed, one a
	// failure in FailureTimes' order (0 to GPUs−1). Failures strike the
	// GPUs uniformly; which one is drawn from a stream of its own
	// (FailedGPUSeed), so that the failures' times — and every result —
	// are the same with or without it.
	FailedGPUs []int
	// With Config.Record: CheckpointTimes are when checkpoints finished,
	// and Trace the job's progress (kept plus not yet checkpointed) at
	// every change of slope — a sawtooth that falls back to the last
	// checkpoint at each failure — with where the wall time went so far.
	CheckpointTimes []float64
	Trace           []TracePoint
}

// TracePoint is the job's state at a wall time, seconds: its progress
// (Saved, in the last checkpoint, plus the work since), and the wall time
// so far that became no progress — work lost at failures, restarts,
// checkpoint writes. At every point Wall = Progress + Lost + Restart +
// Checkpoint.
type TracePoint struct {
	Wall, Progress float64
	Saved          float64 // progress in the last checkpoint (Progress − Saved is at risk)
	Lost           float64 // progress thrown away at failures so far
	Restart        float64 // wall time spent restarting so far
	Checkpoint     float64 // wall time spent writing checkpoints so far
}

// Goodput is the share of wall time that became kept progress.
func (r Result) Goodput() float64 { return r.Useful / (r.Config.Days * 86400) }

// Run simulates the job over Days of wall time.
func Run(c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	rng := sim.NewRNG(c.Seed)
	which := sim.NewRNG(FailedGPUSeed(c.Seed))
	mtbf := c.ClusterMTBF()
	next := func(now float64) float64 { return now - mtbf*math.Log(1-rng.Float64()) }
	end := c.Days * 86400
	r := Result{Config: c}
	now, fail := 0.0, 0.0
	fail = next(0)
	var sinceCkpt float64 // progress since the last checkpoint
	rec := func(at float64) {
		if c.Record {
			r.Trace = append(r.Trace, TracePoint{Wall: at, Progress: r.Useful + sinceCkpt, Saved: r.Useful,
				Lost: r.LostWork, Restart: r.RestartTime, Checkpoint: r.CheckpointTime})
		}
	}
	rec(0)
	for now < end {
		// Compute until the next checkpoint is due, the end, or a failure.
		work := c.CheckpointEvery - sinceCkpt
		stop := math.Min(now+work, end)
		// <=: a failure that interrupted a checkpoint's write arrives here
		// with no work left to do before it.
		if fail <= stop {
			sinceCkpt += fail - now
			rec(fail)
			r.failed(fail, which)
			r.LostWork += sinceCkpt
			sinceCkpt = 0
			now = fail
			rec(now)
			// Restart; a failure during the restart restarts it again.
			for {
				fail = next(now)
				if fail >= now+c.RestartCost || now+c.RestartCost >= end {
					break
				}
				r.failed(fail, which)
				r.RestartTime += fail - now
				now = fail
			}
			d := math.Min(c.RestartCost, end-now)
			r.RestartTime += d
			now += d
			rec(now)
			continue
		}
		sinceCkpt += stop - now
		now = stop
		rec(now)
		if now >= end {
			break
		}
		// Write the checkpoint; a failure while writing loses it.
		wstop := math.Min(now+c.CheckpointCost, end)
		if fail < wstop {
			r.CheckpointTime += fail - now
			now = fail
			continue // the loop's failure branch handles it next
		}
		r.CheckpointTime += wstop - now
		now = wstop
		if now < end {
			r.Useful += sinceCkpt
			sinceCkpt = 0
			if c.Record {
				r.CheckpointTimes = append(r.CheckpointTimes, now)
			}
		}
		rec(now)
	}
	// Work since the last checkpoint at the end is kept: the job stops
	// cleanly (it would checkpoint before stopping).
	r.Useful += sinceCkpt
	return r, nil
}

// failed counts a failure at wall time at; with Config.Record it draws
// the GPU that failed from which.
func (r *Result) failed(at float64, which *sim.RNG) {
	r.Failures++
	r.FailureTimes = append(r.FailureTimes, at)
	if r.Config.Record {
		r.FailedGPUs = append(r.FailedGPUs, which.Intn(r.Config.GPUs))
	}
}

// FailedGPUSeed is the seed of the stream that picks which GPU fails for
// a job of seed seed: a generator apart from the failures' times' (seeded
// with seed itself), its start scrambled so that the two streams share
// no stretch.
func FailedGPUSeed(seed uint64) uint64 { return sim.NewRNG(seed ^ 0x6661696c65642d67).Uint64() }

// YoungInterval is Young's optimal checkpoint interval √(2·C·M) for a
// checkpoint cost C and a mean time between failures M (seconds).
func YoungInterval(cost, mtbf float64) float64 { return math.Sqrt(2 * cost * mtbf) }

// DalyInterval is Daly's higher-order refinement, for C < 2M:
// √(2CM)·[1 + ⅓·√(C/(2M)) + C/(18M)] − C; M otherwise.
func DalyInterval(cost, mtbf float64) float64 {
	if cost >= 2*mtbf {
		return mtbf
	}
	return math.Sqrt(2*cost*mtbf)*(1+math.Sqrt(cost/(2*mtbf))/3+cost/(18*mtbf)) - cost
}

// Metrics are the numbers of gpuscope faults (the lesson uses the same).
type Metrics struct {
	GPUs             int     `json:"gpus"`
	ClusterMTBFS     float64 `json:"cluster_mtbf_s"`
	Failures         int     `json:"failures"`
	LostWorkS        float64 `json:"lost_work_s"`
	Goodput          float64 `json:"goodput"`
	OptimalIntervalS float64 `json:"optimal_interval_s"`
	YoungIntervalS   float64 `json:"young_interval_s"`
	CheckpointTimeS  float64 `json:"checkpoint_time_s"`
	RestartTimeS     float64 `json:"restart_time_s"`
	CheckpointEveryS float64 `json:"checkpoint_every_s"`
}

// Metrics reports the run; the optimal interval is Daly's.
func (r Result) Metrics() Metrics {
	c := r.Config
	return Metrics{
		GPUs: c.GPUs, ClusterMTBFS: c.ClusterMTBF(), Failures: r.Failures, LostWorkS: r.LostWork, Goodput: r.Goodput(),
		OptimalIntervalS: DalyInterval(c.CheckpointCost, c.ClusterMTBF()), YoungIntervalS: YoungInterval(c.CheckpointCost, c.ClusterMTBF()),
		CheckpointTimeS: r.CheckpointTime, RestartTimeS: r.RestartTime, CheckpointEveryS: c.CheckpointEvery,
	}
}

// Llama3MTBFGPUHours is the per-GPU mean time between failures that
// Llama 3's record implies: 419 unexpected interruptions in 54 days on
// 16,384 GPUs (Dubey et al. 2024, arXiv 2407.21783, Table 5) → a
// failure every 54·24/419 ≈ 3.09 h for the cluster, so 3.09 h × 16,384
// ≈ 50,680 hours for one GPU.
const Llama3MTBFGPUHours = 54 * 24.0 / 419 * 16384

// ExpectedGoodput is the share of wall time that becomes kept progress,
// in expectation, for the job Run simulates — failures at exponential
// times with mean mtbf, a checkpoint of cost after every interval of
// progress, a failure losing the progress since the last checkpoint
// finished (a checkpoint it interrupts included) and costing a restart,
// which a failure during it starts again — on a job long beside the
// interval (seconds throughout). It is Daly's complete model (Daly 2006,
// "A higher order estimate of the optimum checkpoint interval for
// restart dumps", Future Generation Computer Systems 22(3), eq. 11): a
// segment of τ + C completes, restarts included, in M·e^(R/M)·(e^((τ+C)/M)
// − 1) of wall time in expectation, so
//
//	goodput = τ / (M·e^(R/M)·(e^((τ+C)/M) − 1)),
//
// τ/(τ + C) without failures. TestExpectedGoodputMatchesRun holds it to
// Run's average.
func ExpectedGoodput(interval, cost, restart, mtbf float64) float64 {
	return interval / (mtbf * math.Exp(restart/mtbf) * math.Expm1((interval+cost)/mtbf))
}
