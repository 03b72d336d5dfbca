package faults

import (
	"math"
	"slices"
	"testing"
)

// Llama 3's 54 days on 16,384 H100s: 419 unexpected interruptions, one
// every ≈ 3.1 h. The per-GPU MTBF that gives that rate is 54·24/419 ×
// 16,384 ≈ 50,680 h; simulated over many seeds the failures average 419.
func TestLlama3RecordInDistribution(t *testing.T) {
	perGPU := 54 * 24.0 / 419 * 16384
	var total float64
	const seeds = 40
	for s := uint64(1); s <= seeds; s++ {
		r, err := Run(Config{GPUs: 16384, MTBFGPUHours: perGPU, CheckpointEvery: 1800, CheckpointCost: 60, RestartCost: 600, Days: 54, Seed: s})
		if err != nil {
			t.Fatal(err)
		}
		total += float64(r.Failures)
	}
	// The mean of 40 Poisson(419) draws has a standard deviation of 3.2.
	if mean := total / seeds; math.Abs(mean-419) > 13 {
		t.Errorf("mean failures over %d seeds: %.1f, want 419 ± 13", seeds, mean)
	}
	c := Config{GPUs: 16384, MTBFGPUHours: perGPU}
	if h := c.ClusterMTBF() / 3600; math.Abs(h-3.093) > 0.01 {
		t.Errorf("cluster MTBF %.3f h, want 3.093", h)
	}
}

// Without failures the job only pays for its checkpoints: goodput is
// C/(C+W).
func TestNoFailures(t *testing.T) {
	r, _ := Run(Config{GPUs: 1, MTBFGPUHours: 1e12, CheckpointEvery: 300, CheckpointCost: 30, RestartCost: 600, Days: 1, Seed: 1})
	if r.Failures != 0 || math.Abs(r.Goodput()-300.0/330) > 1e-3 {
		t.Errorf("failures %d, goodput %.5f; want 0 and %.5f", r.Failures, r.Goodput(), 300.0/330)
	}
}

// The books balance: kept progress, lost progress, checkpoints and
// restarts add up to the wall time.
func TestTimeAccounting(t *testing.T) {
	for s := uint64(1); s <= 20; s++ {
		c := Config{GPUs: 10000, MTBFGPUHours: 90000, CheckpointEvery: 300, CheckpointCost: 20, RestartCost: 900, Days: 7, Seed: s}
		r, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		sum := r.Useful + r.LostWork + r.CheckpointTime + r.RestartTime
		if math.Abs(sum-c.Days*86400) > 1e-6 {
			t.Fatalf("seed %d: %g s accounted, want %g", s, sum, c.Days*86400)
		}
		if r.Goodput() <= 0 || r.Goodput() >= 1 {
			t.Errorf("seed %d: goodput %g", s, r.Goodput())
		}
	}
}

// The seed's 10,000 GPUs failing every ~9 h: Young's interval √(2CM) for a
// 30 s checkpoint is √(2·30·32,400) ≈ 1,394 s; a sweep of intervals peaks
// near it.
func TestOptimalInterval(t *testing.T) {
	c := Config{GPUs: 10000, MTBFGPUHours: 90000, CheckpointCost: 30, RestartCost: 600, Days: 60}
	m := c.ClusterMTBF()
	if math.Abs(m-32400) > 1e-9 || math.Abs(YoungInterval(30, m)-math.Sqrt(2*30*32400)) > 1e-9 {
		t.Fatalf("MTBF %g, Young %g", m, YoungInterval(30, m))
	}
	best, bestGoodput := 0.0, 0.0
	for _, every := range []float64{60, 200, 500, 1000, 1400, 2000, 4000, 10000, 30000} {
		var g float64
		for s := uint64(1); s <= 10; s++ {
			c.CheckpointEvery, c.Seed = every, s
			r, _ := Run(c)
			g += r.Goodput() / 10
		}
		if g > bestGoodput {
			best, bestGoodput = every, g
		}
	}
	if best < 500 || best > 4000 {
		t.Errorf("best interval of the sweep %g s, want near Young's 1394", best)
	}
	if d := DalyInterval(30, m); d < 1300 || d > 1450 {
		t.Errorf("Daly %g, want ≈ Young's 1394 for C ≪ M", d)
	}
}

func TestDeterministicAndValidated(t *testing.T) {
	c := Config{GPUs: 2048, MTBFGPUHours: 50000, CheckpointEvery: 600, CheckpointCost: 40, RestartCost: 300, Days: 10, Seed: 7}
	a, _ := Run(c)
	b, _ := Run(c)
	if a.Failures != b.Failures || a.LostWork != b.LostWork || a.Useful != b.Useful {
		t.Errorf("two runs of one seed differ: %+v vs %+v", a.Metrics(), b.Metrics())
	}
	for _, bad := range []Config{{GPUs: 0, MTBFGPUHours: 1, CheckpointEvery: 1, Days: 1}, {GPUs: 1, MTBFGPUHours: 0, CheckpointEvery: 1, Days: 1},
		{GPUs: 1, MTBFGPUHours: 1, CheckpointEvery: 0, Days: 1}, {GPUs: 1, MTBFGPUHours: 1, CheckpointEvery: 1, Days: 0}} {
		if _, err := Run(bad); err == nil {
			t.Errorf("Run(%+v) accepted", bad)
		}
	}
}

// Budget (issue 6): 30 simulated days of a 16,384-GPU job in ≤ 100 ms.
func BenchmarkRun30Days16k(b *testing.B) {
	c := Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 300, CheckpointCost: 30, RestartCost: 600, Days: 30, Seed: 1}
	for i := 0; i < b.N; i++ {
		Run(c)
	}
}

// Any valid configuration finishes with its wall time accounted for.
func FuzzRun(f *testing.F) {
	f.Add(uint16(100), 1000.0, 60.0, 5.0, 30.0, 1.0, uint64(1))
	f.Add(uint16(1), 0.001, 1.0, 0.0, 0.0, 0.5, uint64(2))
	f.Fuzz(func(t *testing.T, gpus uint16, mtbf, every, cost, restart, days float64, seed uint64) {
		c := Config{GPUs: int(gpus), MTBFGPUHours: mtbf, CheckpointEvery: every, CheckpointCost: cost, RestartCost: restart, Days: days, Seed: seed}
		if c.Validate() != nil || days > 2 || every < 1 || c.ClusterMTBF() < 1 {
			return // keep each run short
		}
		r, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if sum := r.Useful + r.LostWork + r.CheckpointTime + r.RestartTime; math.Abs(sum-days*86400) > 1e-6*days*86400+1e-6 {
			t.Errorf("%+v: %g s accounted of %g", c, sum, days*86400)
		}
	})
}

// The recorded trace is the sawtooth the picture draws: progress never
// runs ahead of wall time, drops only at failures (back to the last
// checkpoint), ends at the useful work; recording changes no number.
func TestTraceSawtooth(t *testing.T) {
	c := Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 1800, CheckpointCost: 60, RestartCost: 600, Days: 10, Seed: 3}
	plain, _ := Run(c)
	c.Record = true
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Failures != plain.Failures || r.Useful != plain.Useful || r.LostWork != plain.LostWork {
		t.Fatalf("recording changed the run: %+v vs %+v", r.Metrics(), plain.Metrics())
	}
	drops := 0
	for i, p := range r.Trace {
		if p.Progress > p.Wall+1e-6 {
			t.Fatalf("point %d: progress %g ahead of wall %g", i, p.Progress, p.Wall)
		}
		if i > 0 {
			prev := r.Trace[i-1]
			if p.Wall < prev.Wall {
				t.Fatalf("point %d: time runs backwards", i)
			}
			if p.Progress < prev.Progress-1e-9 {
				drops++
				if !slices.Contains(r.FailureTimes, p.Wall) {
					t.Errorf("point %d: a drop at %g that is no failure", i, p.Wall)
				}
			}
		}
	}
	// A failure during a restart (or right after a checkpoint) has
	// nothing left to lose.
	if drops == 0 || drops > len(r.FailureTimes) {
		t.Errorf("%d drops, %d failures", drops, len(r.FailureTimes))
	}
	if last := r.Trace[len(r.Trace)-1]; math.Abs(last.Progress-r.Useful) > 1e-6 {
		t.Errorf("trace ends at %g, useful work %g", last.Progress, r.Useful)
	}
	if len(r.CheckpointTimes) < 100 {
		t.Errorf("%d checkpoints in 10 days every 30 min", len(r.CheckpointTimes))
	}
}

// Every trace point says where the wall time went so far: Wall =
// Progress + Lost + Restart + Checkpoint, with Saved the part of the
// progress in a checkpoint, each running total never falling; the last
// point's totals are the run's.
func TestTraceAccountsForTheWallTime(t *testing.T) {
	// By hand, without failures (an MTBF of 10^9 GPU-hours): an hour of
	// work, a minute's write, an hour of work, …
	r, err := Run(Config{GPUs: 1, MTBFGPUHours: 1e9, CheckpointEvery: 3600, CheckpointCost: 60, RestartCost: 600, Days: 1, Seed: 1, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []TracePoint{
		{Wall: 0},
		{Wall: 3600, Progress: 3600},
		{Wall: 3660, Progress: 3600, Saved: 3600, Checkpoint: 60},
		{Wall: 7260, Progress: 7200, Saved: 3600, Checkpoint: 60},
		{Wall: 7320, Progress: 7200, Saved: 7200, Checkpoint: 120},
	}
	if len(r.Trace) < len(want) || !slices.Equal(r.Trace[:len(want)], want) {
		t.Errorf("trace starts %+v, want %+v", r.Trace[:min(len(want), len(r.Trace))], want)
	}
	c := Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 600, CheckpointCost: 30, RestartCost: 300, Days: 5, Seed: 7, Record: true}
	r, err = Run(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range r.Trace {
		if sum := p.Progress + p.Lost + p.Restart + p.Checkpoint; math.Abs(sum-p.Wall) > 1e-6 {
			t.Fatalf("point %d: progress %g + lost %g + restart %g + checkpoint %g = %g, wall %g", i, p.Progress, p.Lost, p.Restart, p.Checkpoint, sum, p.Wall)
		}
		if p.Saved > p.Progress+1e-9 {
			t.Fatalf("point %d: saved %g beyond the progress %g", i, p.Saved, p.Progress)
		}
		if i > 0 {
			q := r.Trace[i-1]
			if p.Saved < q.Saved || p.Lost < q.Lost || p.Restart < q.Restart || p.Checkpoint < q.Checkpoint {
				t.Fatalf("point %d: a running total fell: %+v after %+v", i, p, q)
			}
		}
	}
	last := r.Trace[len(r.Trace)-1]
	if last.Lost != r.LostWork || last.Restart != r.RestartTime || last.Checkpoint != r.CheckpointTime || last.Progress != r.Useful {
		t.Errorf("the trace ends at %+v; the run lost %g, restarted %g, wrote %g, kept %g", last, r.LostWork, r.RestartTime, r.CheckpointTime, r.Useful)
	}
}

// Which GPU fails: one a failure, within the job, the same for a seed
// and another for another seed; spread evenly over the GPUs (each of 8
// GPUs takes an eighth of 20,000 failures, within 5 standard deviations);
// drawn apart from the failures' times, so that recording them changes
// no time, no trace and no result.
func TestFailedGPUs(t *testing.T) {
	c := Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 600, CheckpointCost: 30, RestartCost: 300, Days: 54, Seed: 1}
	plain, _ := Run(c)
	c.Record = true
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if plain.FailedGPUs != nil {
		t.Errorf("without Record: %d failed GPUs kept", len(plain.FailedGPUs))
	}
	if !slices.Equal(r.FailureTimes, plain.FailureTimes) || r.Metrics() != plain.Metrics() {
		t.Fatalf("drawing the GPUs changed the run: %+v vs %+v", r.Metrics(), plain.Metrics())
	}
	if len(r.FailedGPUs) != r.Failures {
		t.Fatalf("%d failed GPUs for %d failures", len(r.FailedGPUs), r.Failures)
	}
	for i, g := range r.FailedGPUs {
		if g < 0 || g >= c.GPUs {
			t.Fatalf("failure %d: GPU %d of %d", i, g, c.GPUs)
		}
	}
	again, _ := Run(c)
	if !slices.Equal(again.FailedGPUs, r.FailedGPUs) {
		t.Error("two runs of one seed fail different GPUs")
	}
	c.Seed = 2
	other, _ := Run(c)
	if n := min(len(other.FailedGPUs), len(r.FailedGPUs)); slices.Equal(other.FailedGPUs[:n], r.FailedGPUs[:n]) {
		t.Error("seeds 1 and 2 fail the same GPUs")
	}
	// Uniform: 8 GPUs, a failure every 36 s for 10 days → ~24,000.
	u, err := Run(Config{GPUs: 8, MTBFGPUHours: 0.08, CheckpointEvery: 600, CheckpointCost: 0, RestartCost: 0, Days: 10, Seed: 5, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	var each [8]int
	for _, g := range u.FailedGPUs {
		each[g]++
	}
	n := float64(len(u.FailedGPUs))
	sd := math.Sqrt(n * (1.0 / 8) * (7.0 / 8))
	for g, k := range each {
		if math.Abs(float64(k)-n/8) > 5*sd {
			t.Errorf("GPU %d failed %d times of %g, want %g ± %.0f", g, k, n, n/8, 5*sd)
		}
	}
	if n < 20000 {
		t.Errorf("%g failures, want about 24,000", n)
	}
}

// Daly's complete model by hand: a checkpoint every 1,000 s costing
// 100 s, a restart of 500 s, a failure every 10,000 s: a segment of
// 1,100 s takes 10,000 · e^0.05 · (e^0.11 − 1) = 10,000 · 1.051271 ·
// 0.116278 = 1,222.40 s, so goodput is 1,000 ÷ 1,222.40 = 0.81806.
// Without failures only the checkpoints cost: 1,000 ÷ 1,100.
func TestExpectedGoodputByHand(t *testing.T) {
	if got := ExpectedGoodput(1000, 100, 500, 10000); math.Abs(got-0.81806) > 1e-5 {
		t.Errorf("ExpectedGoodput(1000, 100, 500, 10000) = %.6f, want 0.81806", got)
	}
	if got := ExpectedGoodput(1000, 100, 500, 1e15); math.Abs(got-1000.0/1100) > 1e-9 {
		t.Errorf("without failures: %.9f, want %.9f", got, 1000.0/1100)
	}
	if got := Llama3MTBFGPUHours; math.Abs(got-50677.0) > 0.1 {
		t.Errorf("Llama3MTBFGPUHours = %.1f, want 54·24/419 × 16,384 = 50,677.0", got)
	}
}

// The expectation is what Run does on average: jobs long beside their
// interval, from Llama 3's rate at the interval Daly picks to a cluster
// failing every few checkpoints with long restarts, simulated over a
// year or more and several seeds, keep the share ExpectedGoodput says.
func TestExpectedGoodputMatchesRun(t *testing.T) {
	for _, c := range []Config{
		{GPUs: 16384, MTBFGPUHours: Llama3MTBFGPUHours, CheckpointCost: 60, RestartCost: 600, Days: 365},
		{GPUs: 16384, MTBFGPUHours: Llama3MTBFGPUHours, CheckpointEvery: 1800, CheckpointCost: 60, RestartCost: 600, Days: 365},
		{GPUs: 2048, MTBFGPUHours: 20000, CheckpointEvery: 7200, CheckpointCost: 300, RestartCost: 1800, Days: 3650},
		{GPUs: 100, MTBFGPUHours: 100, CheckpointEvery: 1800, CheckpointCost: 120, RestartCost: 1200, Days: 365},
	} {
		if c.CheckpointEvery == 0 {
			c.CheckpointEvery = DalyInterval(c.CheckpointCost, c.ClusterMTBF())
		}
		want := ExpectedGoodput(c.CheckpointEvery, c.CheckpointCost, c.RestartCost, c.ClusterMTBF())
		var sum float64
		const seeds = 4
		for s := uint64(1); s <= seeds; s++ {
			c.Seed = s
			r, err := Run(c)
			if err != nil {
				t.Fatal(err)
			}
			sum += r.Goodput()
		}
		got := sum / seeds
		t.Logf("%+v: simulated %.4f, expected %.4f", c, got, want)
		if math.Abs(got-want) > 0.005 {
			t.Errorf("%+v: simulated goodput %.4f over %d seeds, ExpectedGoodput %.4f", c, got, seeds, want)
		}
	}
}
