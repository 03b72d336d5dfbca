package scenarios

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/faults"
)

// NVLink against InfiniBand: the seed's 18× (both ways against one), a
// 1 GB transfer ≈ 8× longer across at the links' efficiencies, and a 1 KB
// message ≈ 5× (the latencies, 5 µs against 1 µs).
func TestNVLinkLessonNumbers(t *testing.T) {
	les := planOrFabric(t, "nvlink-vs-ib")
	big := les.Metrics(1).(FabricMetrics)
	if big.BandwidthRatio != 18 || math.Abs(big.Slowdown-9*0.82/0.9)/(9*0.82/0.9) > 0.01 {
		t.Errorf("1 GB: ratio %g, slowdown %g", big.BandwidthRatio, big.Slowdown)
	}
	small := les.Metrics(2).(FabricMetrics)
	if math.Abs(small.Slowdown-5) > 0.1 {
		t.Errorf("1 KB: slowdown %g, want ≈ 5 (latency-bound)", small.Slowdown)
	}
}

// Collectives at scale: tree at 64 KB on 1,024 GPUs, ring at 4 GB,
// hierarchical at 1 GB on 16,384 GPUs in nodes of 8; the crossover lies
// between 64 KB and 4 GB.
func TestCollectivesLessonNumbers(t *testing.T) {
	les := planOrFabric(t, "collectives-at-scale")
	want := []string{"tree", "ring", "hierarchical"}
	for i, w := range want {
		m := les.Metrics(i + 1).(FabricMetrics)
		if m.Fastest != w {
			t.Errorf("step %d: fastest %s, want %s (%+v)", i+1, m.Fastest, w, m.Algos)
		}
	}
	if c := les.Metrics(1).(FabricMetrics).CrossoverB; c <= 64e3 || c >= 4e9 {
		t.Errorf("crossover %g", c)
	}
}

// Fault tolerance: Llama 3's record in distribution — 54 days on 16,384
// GPUs with the derived per-GPU MTBF sees 419 ± 3√419 failures (the mean
// over seeds is 419); the seed's 10,000 GPUs fail every 9 h; the sweep's
// best interval sits near Daly's.
func TestFaultLessonNumbers(t *testing.T) {
	if got := 54 * 86400 / (Llama3MTBFGPUHours * 3600 / 16384); math.Abs(got-419) > 1e-9 {
		t.Errorf("expected failures %g, want 419", got)
	}
	les := planOrFabric(t, "fault-tolerance")
	m := les.Metrics(1).(FaultLessonMetrics)
	if math.Abs(float64(m.Failures)-419) > 3*math.Sqrt(419) {
		t.Errorf("%d failures in 54 days, want 419 ± 61", m.Failures)
	}
	var mean float64
	for seed := uint64(1); seed <= 20; seed++ {
		c := FaultConfig(les.Steps[0].Config)
		c.Seed, c.Record = seed, false
		r, _ := faults.Run(c)
		mean += float64(r.Failures) / 20
	}
	if math.Abs(mean-419) > 3*math.Sqrt(419/20.0) {
		t.Errorf("mean over 20 seeds %g, want 419", mean)
	}
	if m.Goodput < 0.85 || m.Goodput > 0.95 {
		t.Errorf("goodput %g, want near Meta's > 90%%", m.Goodput)
	}
	seed := les.Metrics(2).(FaultLessonMetrics)
	if math.Abs(seed.ClusterMTBFS-9*3600) > 1 {
		t.Errorf("10,000 GPUs: a failure every %g s, want 9 h", seed.ClusterMTBFS)
	}
	iv := les.Metrics(3).(FaultLessonMetrics)
	best := iv.Sweep[0]
	for _, s := range iv.Sweep {
		if s.Goodput > best.Goodput {
			best = s
		}
	}
	if r := best.CheckpointEveryS / iv.OptimalIntervalS; r < 0.5 || r > 2 {
		t.Errorf("the sweep's best interval %g s, Daly %g s", best.CheckpointEveryS, iv.OptimalIntervalS)
	}
}

func planOrFabric(t *testing.T, id string) *Lesson {
	t.Helper()
	s, ok := Get(id)
	if !ok {
		t.Fatalf("no lesson %s", id)
	}
	les, err := Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	return les
}

// Contention: the all-to-all over four leaves takes longer on a 2:1 fat
// tree than on a non-blocking one; no link above 100%.
func TestContentionLessonNumbers(t *testing.T) {
	les := planOrFabric(t, "collectives-at-scale")
	var m FabricMetrics
	for i := range les.Steps {
		if les.Steps[i].Step.ID == "contention" {
			m = les.Metrics(i + 1).(FabricMetrics)
		}
	}
	if m.AllToAllNonBlockingS <= 0 || m.AllToAllOversubS < 1.3*m.AllToAllNonBlockingS || m.MaxLinkUtilization > 1 {
		t.Errorf("all-to-all: 1:1 %g s, 2:1 %g s, busiest link %g", m.AllToAllNonBlockingS, m.AllToAllOversubS, m.MaxLinkUtilization)
	}
}

// A knob change prepares the whole lesson again: every strategy and
// infrastructure lesson at its defaults (the heaviest steps: the planner's
// search, collectives-at-scale's two all-to-all flow runs, fault-
// tolerance's 25-interval sweep).
func BenchmarkPrepareLesson(b *testing.B) {
	for _, id := range []string{"3d-parallel", "strategy-planner", "collectives-at-scale", "fault-tolerance"} {
		s, _ := Get(id)
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				if _, err := Prepare(s, s.Defaults()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
