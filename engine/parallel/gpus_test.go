package parallel

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Every GPU in the catalog has a default cluster: its own link inside
// nodes of its NVLinkGPUs, and a NIC a GPU between them — InfiniBand HDR
// for the Ampere parts (DGX A100's ConnectX-6), NDR for Hopper and
// Blackwell (ConnectX-7).
func TestDefaultClusterEveryGPU(t *testing.T) {
	ampere := map[string]bool{"a100-80gb": true, "a100-40gb": true, "a800": true}
	for _, id := range hw.GPUIDs() {
		g := gpu(t, id)
		cl := DefaultCluster(g, 64)
		inter := "ib-ndr"
		if ampere[g.ID] {
			inter = "ib-hdr"
		}
		if cl.Intra.ID != g.Link || cl.Inter.ID != inter || cl.GPUsPerNode != g.NVLinkGPUs || cl.Intra.Bandwidth <= 0 {
			t.Errorf("DefaultCluster(%s) = %d a node on %s, %s between; want %d on %s, %s", id, cl.GPUsPerNode, cl.Intra.ID, cl.Inter.ID, g.NVLinkGPUs, g.Link, inter)
		}
	}
	// The PCIe cards: 8 a server on PCIe 5 (their NVLink bridges join
	// pairs, which one node on one link cannot say).
	for _, id := range []string{"h100-pcie", "h100-nvl"} {
		if cl := DefaultCluster(gpu(t, id), 16); cl.Intra.ID != "pcie5" || cl.GPUsPerNode != 8 {
			t.Errorf("DefaultCluster(%s): %d a node on %s, want 8 on pcie5", id, cl.GPUsPerNode, cl.Intra.ID)
		}
	}
}

// The A800's NVLink, by hand in a TP all-reduce: GPT-3 175B's layer on
// TP 8 inside one node does two all-reduces of S = b·s·h·2 bytes in its
// forward, each a ring over 8 GPUs: 2·7·(α + S/(8·B)) with B the link's
// each-way bandwidth at its efficiency. On the A800 B is 200 GB/s × 0.82,
// α 1 µs; on the A100 80GB 300 GB/s × 0.82. With S = 2048 × 12288 × 2 =
// 50.3 MB, an all-reduce is 14 × (1 + 38.4) µs = 551 µs on the A800 and
// 14 × (1 + 25.6) µs = 372 µs on the A100: 1.48×, a little under the
// links' 1.5× because the latency is the same.
func TestA800TPAllReduce(t *testing.T) {
	m, ok := model.Preset("gpt3-175b")
	if !ok {
		t.Fatal("no gpt3-175b")
	}
	p := Plan{TP: 8, PP: 8, DP: 1, MicroBatch: 1, Interleave: 1, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}
	S := 1.0 * 2048 * 12288 * 2
	ar := func(each float64) float64 { return 2 * 7 * (1e-6 + S/(8*each*0.82)) }
	a8 := DefaultCluster(gpu(t, "a800"), 64)
	if a8.Intra.Bandwidth != 200e9 || a8.Intra.Efficiency != 0.82 || a8.Intra.Latency.Seconds() != 1e-6 {
		t.Fatalf("A800's NVLink %+v, want 200 GB/s each way at 0.82, 1 µs", a8.Intra)
	}
	got, want := layerCost(m, p, a8).tpFwd, 2*ar(200e9)
	if !within(got, want, 1e-9) {
		t.Errorf("A800 TP 8 forward all-reduces = %g s, want 2 × 2·7·(1 µs + S/(8 × 164 GB/s)) = %g s", got, want)
	}
	if !within(ar(200e9), 551e-6, 0.002) {
		t.Errorf("an A800 all-reduce %g s, want the comment's 551 µs", ar(200e9))
	}
	a1 := DefaultCluster(gpu(t, "a100-80gb"), 64)
	base := layerCost(m, p, a1).tpFwd
	if !within(base, 2*ar(300e9), 1e-9) {
		t.Errorf("A100 TP 8 forward all-reduces = %g s, want %g s", base, 2*ar(300e9))
	}
	if r := got / base; !within(r, 1.48, 0.005) {
		t.Errorf("A800 / A100 TP all-reduce = %.3f×, want 1.48×", r)
	}
}

// A 40 GB card holds what Usable gives of its 40,960 MiB: 42.95 GB ×
// 0.95 − 2 GB = 38.80 GB, against 79.6 GB of the A100 80GB's 81,920 MiB.
func TestA100x40Usable(t *testing.T) {
	g := gpu(t, "a100-40gb")
	if want := 40960.0*(1<<20)*(1-AllocatorSlack) - ContextBytes; Usable(float64(g.HBMBytes)) != want || !within(want, 38.802e9, 1e-4) {
		t.Errorf("a100-40gb usable %g bytes, want 40,960 MiB × 0.95 − 2 GB = %g (38.80 GB)", Usable(float64(g.HBMBytes)), want)
	}
	m, _ := model.Preset("gpt3-xl")
	p := Plan{TP: 1, PP: 1, DP: 8, MicroBatch: 1, GlobalBatch: 64, Interleave: 1, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, Recompute: RecomputeSelective}
	r, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(g, 8)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory.Capacity != float64(g.HBMBytes) || r.Memory.Usable != Usable(float64(g.HBMBytes)) || r.Memory.Fits != (r.Memory.Total <= r.Memory.Usable) {
		t.Errorf("memory %+v: want the 40 GB card's capacity and its usable bytes", r.Memory)
	}
}

// The planner's decision tree names the node's link: NVLink on an HGX
// board, PCIe 5 on the PCIe cards (H100 PCIe, H100 NVL).
func TestDecideNamesTheNodesLink(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	for id, link := range map[string]string{"h100": "NVLink", "a800": "NVLink", "h100-pcie": "PCIe 5.0 x16", "h100-nvl": "PCIe 5.0 x16"} {
		d := Decide(m, DefaultCluster(gpu(t, id), 256), 16)
		if len(d.Steps) < 2 || d.Steps[1].ID != "fits-one-node" || !strings.Contains(d.Steps[1].Detail, "tensor parallelism on "+link+":") {
			t.Errorf("%s: decision %+v; want its node step on %s", id, d.Steps, link)
		}
	}
}
