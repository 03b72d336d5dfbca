package parallel

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

func llama405(tb testing.TB) Config {
	m, _ := model.Preset("llama3-405b")
	h100, _ := hw.GPUByID("h100")
	return Config{Model: m, Cluster: DefaultCluster(h100, 16384), Plan: Plan{TP: 8, PP: 16, DP: 128, Interleave: 4, SP: true,
		ZeRO: 1, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 2048, Schedule: Interleaved, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}}
}

// One plan: the budget is 50 µs (issue 4).
func BenchmarkEvaluate(b *testing.B) {
	c := llama405(b)
	for b.Loop() {
		if _, err := Evaluate(c); err != nil {
			b.Fatal(err)
		}
	}
}

// One ZeRO-3 plan with DeepSpeed's blocking gathers of 2021 (its calls
// a tensor at a time): Narayanan et al.'s 530B on 2,240 A100s.
func BenchmarkEvaluateZeRO3Blocking(b *testing.B) {
	c := zero3Narayanan530(b)
	c.Plan.ZeROFetch = FetchBlocking
	for b.Loop() {
		if _, err := Evaluate(c); err != nil {
			b.Fatal(err)
		}
	}
}

func zero3Narayanan530(tb testing.TB) Config {
	a100, _ := hw.GPUByID("a100-80gb")
	m := model.Transformer{ID: "gpt-530b", Layers: 105, Hidden: 20480, Heads: 128, KVHeads: 128, FFNSize: 81920, Seq: 2048, Vocab: 51200,
		FFN: model.GeLU, Biases: true, LearnedPositions: true, Tied: true}
	return Config{Model: m, Cluster: DefaultCluster(a100, 2240), Plan: Plan{TP: 1, PP: 1, DP: 2240, Interleave: 1,
		ZeRO: 3, Recompute: RecomputeFull, MicroBatch: 1, GlobalBatch: 2240, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.FP16, Overlap: true}}
}

// The search for Llama 3 405B on 16,384 H100s, context parallelism
// included, ranking the 20 plans the planner lesson shows (every valid
// plan evaluated; the schedules of those that can rank run): the browser
// budget is 1 s.
func BenchmarkSearch405B(b *testing.B) {
	c := llama405(b)
	for b.Loop() {
		if _, err := Search(SearchOptions{Model: c.Model, Cluster: c.Cluster, GlobalBatch: 2048, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, CP: true, Top: 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// The planner's search of a pasted DeepSeek-V3 on 2,048 H800s, its
// batch of 15,360, context parallelism included, ranking 20: 62,155
// plans evaluated (17 s natively when every fitting plan's schedule ran).
func BenchmarkSearchDeepSeekV3(b *testing.B) {
	m, _ := model.Preset("deepseek-v3")
	h800, _ := hw.GPUByID("h800")
	o := SearchOptions{Model: m, Cluster: DefaultCluster(h800, 2048), GlobalBatch: 15360, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, CP: true, Top: 20}
	for b.Loop() {
		if _, err := Search(o); err != nil {
			b.Fatal(err)
		}
	}
}

// A long interleaved schedule, run for its lengths as Evaluate runs it:
// 16 stages, 128 micro-batches, 4 chunks a stage (16,384 blocks; after
// the first run, replayed in the order kept).
func BenchmarkScheduleLengths(b *testing.B) {
	fwd, bwd := make([]float64, 16), make([]float64, 16)
	for i := range fwd {
		fwd[i], bwd[i] = 1, 2
	}
	fwd[0], bwd[15] = 1.25, 2.5
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := scheduleLengths(Interleaved, 16, 128, 4, fwd, bwd, 0.01, &keptOrders); err != nil {
			b.Fatal(err)
		}
	}
}

// llama405AsRun is Llama 3 405B's 8,192-token plan on 16,384 H100s as
// Meta ran it (arXiv 2407.21783 §3.3.2): no recomputation, no dropout;
// FSDP's sharded gradients and optimizer state (ZeRO-2, the weights
// kept), gradients accumulated and reduce-scattered in FP32 (18 bytes a
// parameter); interleaved with v = 8, the engine's fastest v that fits;
// SwiGLU fused (validate.Llama3 says why).
func llama405AsRun(tb testing.TB) Config {
	c := llama405(tb)
	c.Plan.Interleave, c.Plan.ZeRO, c.Plan.Recompute, c.Plan.BytesPerParam, c.Plan.FusedSwiGLU = 8, 2, RecomputeNone, 18, true
	return c
}
