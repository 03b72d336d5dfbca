package bench

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// rate reports n things done in the benchmark's elapsed time as unit
// (events/s, plans/s): the throughput figure make bench tracks.
func rate(b *testing.B, n float64, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(n/s, unit)
	}
}

// The discrete-event core alone: the classic hold model, a queue of 1,024
// pending events where each event popped schedules one more at a random
// later instant. One op is one event (a pop and a schedule).
func BenchmarkQueueHold1024(b *testing.B) {
	var q sim.Queue
	rng := sim.NewRNG(1)
	for i := 0; i < 1024; i++ {
		q.Schedule(sim.Time(rng.Intn(1_000_000)), 1, int32(i), 0)
	}
	n := 0
	for b.Loop() {
		ev, _ := q.Pop()
		q.Schedule(ev.At+sim.Time(1+rng.Intn(1_000_000)), ev.Kind, ev.A, ev.B)
		n++
	}
	rate(b, float64(n), "events/s")
}

// The packet engine: a ring all-reduce over 1,024 ranks moves 2n(n−1) =
// 2,095,104 chunks, each one event of the queue (its arrival).
func BenchmarkRingEvents1024(b *testing.B) {
	ringEvents(b, collective.Config{Ranks: 1024, Bytes: 1 << 30})
}

// The ring-allreduce lesson's largest picture, recorded for scrubbing as
// the page does on every knob change: 64 ranks, 8,064 events.
func BenchmarkRingEvents64Recorded(b *testing.B) {
	ringEvents(b, collective.Config{Ranks: 64, Bytes: 4 << 30, Record: true})
}

// ringEvents runs cfg as a ring all-reduce on NVLink 4 and reports the
// chunk arrivals (one event of the queue each) per second.
func ringEvents(b *testing.B, cfg collective.Config) {
	cfg.Op, cfg.Algo = collective.AllReduce, collective.Ring
	cfg.Link, _ = hw.LinkByID("nvlink4")
	events := 0
	for b.Loop() {
		res, err := collective.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += len(res.SentPerRank) * res.Rounds
	}
	rate(b, float64(events), "events/s")
}

// A ring all-reduce of 1 GB across 16,384 GPUs (2,048 nodes of 8, a 2:1
// fat tree) with flows aggregated per link: collectives per second.
func BenchmarkFabricRing16384(b *testing.B) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	tp, err := collective.FabricTopology("fat-tree", 16384, 8, nv, ib, 2)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		if _, err := collective.RunOnFabric(tp, collective.AllReduce, collective.Ring, 16384, 1e9); err != nil {
			b.Fatal(err)
		}
		n++
	}
	rate(b, float64(n), "collectives/s")
}

func llama405(tb testing.TB) parallel.Config {
	m, ok := model.Preset("llama3-405b")
	if !ok {
		tb.Fatal("no llama3-405b preset")
	}
	h100, _ := hw.GPUByID("h100")
	return parallel.Config{Model: m, Cluster: parallel.DefaultCluster(h100, 16384), Plan: parallel.Plan{TP: 8, PP: 16, DP: 128, Interleave: 4, SP: true,
		ZeRO: 1, Recompute: parallel.RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 2048, Schedule: parallel.Interleaved,
		BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}}
}

// Plans evaluated per second, one at a time (Llama 3 405B, TP 8 PP 16
// DP 128 interleaved on 16,384 H100s).
func BenchmarkPlanEvaluate(b *testing.B) {
	c := llama405(b)
	n := 0
	for b.Loop() {
		if _, err := parallel.Evaluate(c); err != nil {
			b.Fatal(err)
		}
		n++
	}
	rate(b, float64(n), "plans/s")
}

// Plans per second within the planner's whole search for Llama 3 405B on
// 16,384 H100s (every valid plan evaluated, the fitting ones ranked).
func BenchmarkPlanSearch405B(b *testing.B) {
	c := llama405(b)
	plans := 0
	var last parallel.SearchResult
	for b.Loop() {
		sr, err := parallel.Search(parallel.SearchOptions{Model: c.Model, Cluster: c.Cluster, GlobalBatch: 2048, BytesPerParam: 16, Dtype: hw.BF16, Flash: true})
		if err != nil {
			b.Fatal(err)
		}
		plans += sr.Evaluated
		last = sr
	}
	rate(b, float64(plans), "plans/s")
	b.ReportMetric(float64(last.Evaluated), "plans/op")
}
