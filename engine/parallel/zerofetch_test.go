package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// GPT-3 175B's layer under DeepSpeed's ZeRO-3 of 2021, by hand (h 12,288,
// TP 1): the four matrices QKV 12,288 · 36,864 = 452,984,832, the
// projection 150,994,944, the two feed-forward matrices 603,979,776 each;
// the biases (36,864, 12,288, 49,152, 12,288) and the norms are under
// stage3_param_persistence_threshold's 10⁵ and stay gathered. With full
// recomputation a matrix is gathered a third time unless the parameters
// run between its recomputed forward and its backward — the later
// matrices, twice — number under stage3_max_reuse_distance's 10⁹: QKV
// 2 · 1,358,954,496, the projection 2 · 1,207,959,552, the first
// feed-forward matrix 2 · 603,979,776 = 1,207,959,552, all over; the last
// matrix has nothing between, and is kept: 3, 3, 3, 2 gathers. Without
// recomputation (or with selective, which runs no matrix again), 2 each.
// A 1.3B layer (h 2,048): its later matrices, twice, are at most
// 2 · 33,554,432 · 2.25 ≈ 1.5·10⁸, under 10⁹: 2 each, recomputed or not.
func TestBlockingTensorsByHand(t *testing.T) {
	g := gpt(96, 12288, 96)
	full := Plan{TP: 1, ZeRO: 3, Recompute: RecomputeFull, ZeROFetch: FetchBlocking}
	want := []ZeROTensor{{452984832, 3}, {150994944, 3}, {603979776, 3}, {603979776, 2}}
	got := blockingTensors(g, full)
	if len(got) != len(want) {
		t.Fatalf("175B: %d tensors gathered, want 4 (%v)", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("175B tensor %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, rc := range []Recompute{RecomputeNone, RecomputeSelective} {
		p := full
		p.Recompute = rc
		for i, x := range blockingTensors(g, p) {
			if x.Gathers != 2 {
				t.Errorf("175B, recompute %s, tensor %d: %d gathers, want 2", rc, i, x.Gathers)
			}
		}
	}
	// TP 8: each GPU's share of the matrices, the same rule.
	tp := full
	tp.TP = 8
	if got := blockingTensors(g, tp); got[0].Elements != 452984832/8 || got[3].Elements != 603979776/8 {
		t.Errorf("175B at TP 8: %+v, want an eighth of each matrix", got)
	}
	for i, x := range blockingTensors(gpt(24, 2048, 16), full) {
		if x.Gathers != 2 {
			t.Errorf("1.3B tensor %d: %d gathers, want 2 (kept for the backward)", i, x.Gathers)
		}
	}
}

// One call by hand beyond NCCL's own time (collective's tests hold that):
// 16 ranks, the projection of h 4,096 (16,777,216 elements, 33,554,432
// bytes in FP16) gathered on A100 80GBs (2.039 TB/s at 90%): 16 copies at
// 4 µs = 64 µs, and the zeroed flat tensor and the copies' reads and
// writes, 3 · 33,554,432 B ÷ 1.8351 TB/s = 54.854 µs; its gradient
// reduce-scattered: the same 64 µs, and the division and the copies, 4 ·
// 33,554,432 B ÷ 1.8351 TB/s = 73.139 µs.
func TestBlockingCallByHand(t *testing.T) {
	cl := DefaultCluster(gpu(t, "a100-80gb"), 16)
	const bytes = 33554432.0
	for _, c := range []struct {
		op    collective.Op
		extra float64
	}{{collective.AllGather, 64e-6 + 54.854e-6}, {collective.ReduceScatter, 64e-6 + 73.139e-6}} {
		nccl := ncclTime(c.op, bytes, 16, 8, cl)
		if nccl <= 0 {
			t.Fatalf("%s: NCCL time %g", c.op, nccl)
		}
		if got := blockingCall(c.op, bytes, 16, 8, cl) - nccl; math.Abs(got-c.extra) > 1e-9 {
			t.Errorf("%s: %.6g s beyond NCCL's, want %.6g", c.op, got, c.extra)
		}
	}
}

// In a plan: blocking ZeRO-3 charges every layer's calls each micro-batch
// and hides none of them; the prefetching default is what it was; the
// setting is refused without ZeRO-3.
func TestBlockingZeRO3InAPlan(t *testing.T) {
	m := gpt(8, 4096, 32)
	cl := DefaultCluster(gpu(t, "a100-80gb"), 64)
	p := Plan{TP: 1, PP: 1, DP: 64, Interleave: 1, ZeRO: 3, Recompute: RecomputeFull, MicroBatch: 1, GlobalBatch: 128,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.FP16, Overlap: true}
	pre, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	p.ZeROFetch = FetchBlocking
	blk, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	// By the tensors: 8 layers of four matrices, each gathered twice (the
	// model is small enough for the recomputed forward's gathers to be
	// kept) and reduce-scattered once, and the embeddings twice and once.
	k := cl.GPUsPerNode
	var perLayer, els float64
	for _, x := range blockingTensors(m, p) {
		if x.Gathers != 2 {
			t.Fatalf("tensor %+v: want 2 gathers", x)
		}
		perLayer += 2*blockingCall(collective.AllGather, 2*x.Elements, 64, k, cl) + blockingCall(collective.ReduceScatter, 2*x.Elements, 64, k, cl)
		els += x.Elements
	}
	rest := blk.StageParams[0] - 8*els
	want := 8*perLayer + 2*blockingCall(collective.AllGather, 2*rest, 64, k, cl) + blockingCall(collective.ReduceScatter, 2*rest, 64, k, cl)
	M := float64(blk.MicroBatches)
	if got := blk.Time.DPComm; math.Abs(got-M*want) > 1e-12*want {
		t.Errorf("blocking DP time %g s, want %g (%g micro-batches)", got, M*want, M)
	}
	if blk.Time.DPHidden != 0 {
		t.Errorf("blocking hides %g s of DP time, want none", blk.Time.DPHidden)
	}
	if blk.Time.Compute != pre.Time.Compute || blk.Memory != pre.Memory {
		t.Errorf("blocking changed compute or memory: %g/%g s, %+v/%+v", blk.Time.Compute, pre.Time.Compute, blk.Memory, pre.Memory)
	}
	if !(blk.Time.Step > pre.Time.Step) || !(blk.Time.Exposed > pre.Time.Exposed) {
		t.Errorf("blocking step %g s (exposed %g), prefetch %g s (%g): want it slower", blk.Time.Step, blk.Time.Exposed, pre.Time.Step, pre.Time.Exposed)
	}
	if blk.Metrics().ZeROFetch != "blocking" || pre.Metrics().ZeROFetch != "" {
		t.Errorf("metrics zero_fetch %q and %q, want blocking and empty", blk.Metrics().ZeROFetch, pre.Metrics().ZeROFetch)
	}
	p.ZeRO = 1
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl}); err == nil || !strings.HasPrefix(err.Error(), "zero-fetch:") {
		t.Errorf("blocking at ZeRO 1: %v, want an error naming zero-fetch", err)
	}
	p.ZeRO, p.ZeROFetch = 3, "lazy"
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl}); err == nil || !strings.HasPrefix(err.Error(), "zero-fetch:") {
		t.Errorf("zero-fetch lazy: %v, want an error naming zero-fetch", err)
	}
}
