package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A data-parallel step's collectives are NCCL's, one a bucket: GPT-3 175B
// at TP 8 on 1,024 A100s puts each GPU of a DP group of 128 on its own
// node (one rank a node; no pipeline, whose sends would share the NIC).
// With overlap the buckets are max(40M, 1M × 128) parameters
// (Megatron-Core's rule); without it one call carries every gradient. By hand from the collective package's
// model, which TestNCCLByHand checks against tuning.cc.
func TestDPCommIsNCCLsByBucket(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	cl := DefaultCluster(gpu(t, "a100-80gb"), 1024)
	for _, overlap := range []bool{true, false} {
		p := Plan{TP: 8, PP: 1, DP: 128, Interleave: 1, SP: true, Recompute: RecomputeSelective, MicroBatch: 1,
			GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: "bf16", Overlap: overlap}
		r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		params := 0.0
		for _, sp := range r.StageParams {
			params = math.Max(params, sp)
		}
		buckets := 1.0
		if overlap {
			buckets = math.Ceil(params / 128e6)
		}
		one, err := collective.NCCLTime(collective.AllReduce, collective.NCCLGroup{Ranks: 128, Nodes: 128, Intra: cl.Intra, Inter: cl.Inter}, params*2/buckets)
		if err != nil {
			t.Fatal(err)
		}
		if want := buckets * one.Seconds; math.Abs(r.Time.DPComm-want) > 1e-9*want {
			t.Errorf("overlap %v: DP comm %.6g s, want %g buckets × %.6g s (%s/%s) = %.6g", overlap, r.Time.DPComm, buckets, one.Seconds, one.Algo, one.Proto, want)
		}
	}
	// At DP 128 the bucket is 128M parameters: fewer, larger calls.
	if b := Buckets(1e9, 128, true); b != math.Ceil(1e9/128e6) {
		t.Errorf("Buckets(1e9, 128) = %g, want %g", b, math.Ceil(1e9/128e6))
	}
}

// A node with half as many NICs as GPUs gives each GPU half a NIC: the
// same data-parallel all-reduce across nodes takes about twice as long
// (its bandwidth term; the latency is NCCL's either way).
func TestNICsPerNode(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	p := Plan{TP: 8, PP: 8, DP: 8, Interleave: 1, SP: true, Recompute: RecomputeSelective, MicroBatch: 1,
		GlobalBatch: 64, Schedule: OneFOneB, BytesPerParam: 16, Dtype: "bf16", Overlap: false}
	cl := DefaultCluster(gpu(t, "a100-80gb"), 512)
	full, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	cl.NICsPerNode = 4
	half, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	if r := half.Time.DPComm / full.Time.DPComm; r < 1.9 || r > 2.0 {
		t.Errorf("DP comm with 4 NICs a node %.4g s, with 8 %.4g s: ratio %.3f, want just under 2", half.Time.DPComm, full.Time.DPComm, r)
	}
	cl.NICsPerNode = 9
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl}); err == nil {
		t.Error("9 NICs in a node of 8: no error")
	}
}
