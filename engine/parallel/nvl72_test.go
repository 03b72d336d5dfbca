package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// On a GB200 NVL72 the NVLink domain is the rack's 72 GPUs, so a TP group
// of 16 stays on NVLink 5; on H100 nodes of 8 the same group spans two
// nodes and its all-reduce crosses InfiniBand. Worked by hand from the
// links: S = b·s·h·2 bytes, a layer's forward two all-reduces of S.
//
//	GB200: ring over 16 on NVLink 5 (900 GB/s each way × 0.82, α 1 µs):
//	       2·15·(α + S/(16·B))
//	H100:  reduce-scatter and all-gather in the node (NVLink 4, 450 GB/s
//	       × 0.82), 2·7·(α + S/(8·B)), then a ring of 2 nodes over S/8 on
//	       NDR (50 GB/s × 0.9, α 5 µs): 2·1·(α + S/8/(2·B))
func TestTPInsideNVL72(t *testing.T) {
	m, ok := model.Preset("llama3-405b")
	if !ok {
		t.Fatal("no llama3-405b")
	}
	p := Plan{TP: 16, PP: 9, DP: 4, MicroBatch: 1, Interleave: 1, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}
	S := 1.0 * 8192 * 16384 * 2 // b·s·h·2 bytes
	gb, _ := hw.GPUByID("gb200")
	cl := DefaultCluster(gb, 576)
	if cl.GPUsPerNode != 72 || cl.Intra.ID != "nvlink5" || cl.Inter.ID != "ib-ndr" {
		t.Fatalf("DefaultCluster(gb200) = %d a node, %s inside, %s between; want 72, nvlink5, ib-ndr", cl.GPUsPerNode, cl.Intra.ID, cl.Inter.ID)
	}
	nv5 := 900e9 * 0.82
	want := 2 * (2 * 15 * (1e-6 + S/(16*nv5)))
	if got := layerCost(m, p, cl).tpFwd; math.Abs(got-want) > 1e-9*want {
		t.Errorf("GB200 TP 16 forward all-reduces = %g s, want 2 × 2·15·(1 µs + S/(16 × 738 GB/s)) = %g s", got, want)
	}
	h, _ := hw.GPUByID("h100")
	hc := DefaultCluster(h, 576)
	nv4, ndr := 450e9*0.82, 50e9*0.9
	hwant := 2 * (2*7*(1e-6+S/(8*nv4)) + 2*1*(5e-6+S/8/(2*ndr)))
	hgot := layerCost(m, p, hc).tpFwd
	if math.Abs(hgot-hwant) > 1e-9*hwant {
		t.Errorf("H100 TP 16 forward all-reduces = %g s, want %g s (hierarchical over 2 nodes, NDR across)", hgot, hwant)
	}
	// S = 256 MiB: GB200 30 × (1 + 22.7) µs = 0.71 ms an all-reduce;
	// H100 14 × (1 + 90.9) + 2 × (5 + 372.8) µs = 2.04 ms: 2.87×.
	if r := hgot / want; math.Abs(r-2.87) > 0.01 {
		t.Errorf("H100 / GB200 TP 16 all-reduce = %.3f×, want 2.87×", r)
	}
	// B200 keeps HGX nodes of 8.
	b, _ := hw.GPUByID("b200")
	if bc := DefaultCluster(b, 64); bc.GPUsPerNode != 8 || bc.Intra.ID != "nvlink5" || bc.Inter.ID != "ib-ndr" {
		t.Errorf("DefaultCluster(b200) = %d a node, %s, %s; want 8, nvlink5, ib-ndr", bc.GPUsPerNode, bc.Intra.ID, bc.Inter.ID)
	}
}

// GB300 NVL72 is the GB200 NVL72's rack with Blackwell Ultra: 72 GPUs on
// one NVLink 5 domain, so the same TP 16 group's forward all-reduces are
// the GB200's to the nanosecond (the links, not the GPU, set them); the
// HGX B300 keeps nodes of 8.
func TestTPInsideGB300NVL72(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	p := Plan{TP: 16, PP: 9, DP: 4, MicroBatch: 1, Interleave: 1, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}
	cl := DefaultCluster(hw.MustGPU("gb300"), 576)
	if cl.GPUsPerNode != 72 || cl.Intra.ID != "nvlink5" || cl.Inter.ID != "ib-ndr" {
		t.Fatalf("DefaultCluster(gb300) = %d a node, %s inside, %s between; want 72, nvlink5, ib-ndr", cl.GPUsPerNode, cl.Intra.ID, cl.Inter.ID)
	}
	S := 1.0 * 8192 * 16384 * 2
	nv5 := 900e9 * 0.82
	want := 2 * (2 * 15 * (1e-6 + S/(16*nv5)))
	if got := layerCost(m, p, cl).tpFwd; math.Abs(got-want) > 1e-9*want {
		t.Errorf("GB300 TP 16 forward all-reduces = %g s, want %g s, as on GB200", got, want)
	}
	if bc := DefaultCluster(hw.MustGPU("b300"), 64); bc.GPUsPerNode != 8 || bc.Intra.ID != "nvlink5" {
		t.Errorf("DefaultCluster(b300) = %d a node on %s; want 8 on nvlink5", bc.GPUsPerNode, bc.Intra.ID)
	}
}
