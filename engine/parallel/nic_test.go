package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// NIC sharing (issue 19): the DP collective behind the compute and the
// transfers that leave the node share each GPU's NIC. Meta's Llama 3
// plan: its pipeline sends cross nodes (TP 8 fills a node) while ZeRO-2's
// reduce-scatters run every micro-batch; the sends on the critical path
// (PPComm ÷ P2P of them) lose u times their bandwidth term.
func TestNICSharingPipelineSends(t *testing.T) {
	c := llama405AsRun(t)
	r, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	u, tm := r.NICSharing, r.Time
	if !(u > 0.5 && u <= 1) {
		t.Fatalf("NIC sharing %g: DP's reduce-scatters fill most of the compute window", u)
	}
	// One send: 1 × 8,192 tokens × 16,384 × 2 bytes ÷ TP 8 over NDR.
	ib := c.Cluster.Inter
	bw := 8192.0 * 16384 * 2 / 8 / (ib.Bandwidth * ib.Efficiency)
	if want := u * tm.PPComm / r.P2P * bw; !within(tm.NICShared, want, 1e-12) {
		t.Errorf("NIC shared %g s, want u × sends × bandwidth term = %g", tm.NICShared, want)
	}
	if s := tm.Compute + tm.Bubble + tm.Exposed + tm.Optimizer; !within(tm.Step, s, 1e-12) {
		t.Errorf("step %g, parts %g", tm.Step, s)
	}
	// With the 2021 software (no overlap) DP runs after the pipeline,
	// alone on the NIC: nothing shared.
	q := c
	q.Plan.Overlap = false
	r0, err := Evaluate(q)
	if err != nil {
		t.Fatal(err)
	}
	if r0.NICSharing != 0 || r0.Time.NICShared != 0 {
		t.Errorf("without overlap: sharing %g, %g s", r0.NICSharing, r0.Time.NICShared)
	}
}

// TP 16 on nodes of 8 H100s: each TP all-reduce crosses the NIC for its
// ring over the two nodes (each GPU carrying 1/8 of the bytes), and
// shares it with DP's collective; a TP group inside the node does not.
func TestNICSharingTPAcrossNodes(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	cl := DefaultCluster(hw.MustGPU("h100"), 256)
	p := Plan{TP: 16, PP: 1, DP: 16, Interleave: 1, SP: true, ZeRO: 2, Recompute: RecomputeSelective, Flash: true,
		MicroBatch: 1, GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	u := r.NICSharing
	if !(u > 0 && u <= 1) {
		t.Fatalf("NIC sharing %g", u)
	}
	// Per layer and micro-batch: 2 all-reduces forward, 2 backward of
	// b·s·h·2 bytes; across the nodes a ring of 2 carries 1/8 of them:
	// 2·(2−1)·(S/8)/(2·B) = S/(8·B).
	S := float64(m.Seq) * float64(m.Hidden) * 2
	ib := cl.Inter
	f, _ := collective.ClosedForm(collective.AllReduce, collective.Ring, 2, 1, S/8, cl.Intra, ib)
	if !within(f.Bandwidth, S/(8*ib.Bandwidth*ib.Efficiency), 1e-12) {
		t.Fatalf("ring over 2 nodes: %g, by hand %g", f.Bandwidth, S/(8*ib.Bandwidth*ib.Efficiency))
	}
	want := u * float64(r.MicroBatches) * float64(m.Layers) * 4 * f.Bandwidth
	if !within(r.Time.NICShared, want, 1e-12) {
		t.Errorf("NIC shared %g s, want u × micro-batches × layers × 4 all-reduces × %g s = %g", r.Time.NICShared, f.Bandwidth, want)
	}
	p.TP, p.DP = 8, 32
	r8, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	if r8.Time.NICShared != 0 {
		t.Errorf("TP 8 inside the node, PP 1: %g s shared", r8.Time.NICShared)
	}
	if math.IsNaN(r.Time.Step) {
		t.Error("NaN step")
	}
}
