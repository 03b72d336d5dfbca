package collective

import (
	"math"
	"testing"
)

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Each algorithm and protocol's cost worked by hand from tuning.cc's
// constants, on DGX A100 links (NVLink 3 at 82% of 300 GB/s, HDR at 90%
// of 25 GB/s).
func TestNCCLByHand(t *testing.T) {
	nv, hdr := link(t, "nvlink3"), link(t, "ib-hdr")
	// 192 nodes, one rank each (a DP group beside TP 8): an 80 MB bucket.
	g := NCCLGroup{Ranks: 192, Nodes: 192, Intra: nv, Inter: hdr}
	bytes := 80e6
	// Ring, Simple: base 8.4 µs + 2·191 network steps of the tree's 14 µs
	// (one rank a node), ×1.4 (the ring's plateau across nodes); the bus
	// is one NIC, 22.5 GB/s, the algorithm bandwidth 192/382 of it.
	ringLat := (8.4 + 382*14) * 1.4 * 1e-6
	ringBW := 22.5e9 * 192 / 382
	if c := cost(t, g, AllReduce, Ring, ProtoSimple, bytes); !within(c, ringLat+bytes/ringBW, 1e-9) {
		t.Errorf("ring Simple: %.6g s, want %.6g", c, ringLat+bytes/ringBW)
	}
	// Tree, LL128: base 14 µs + 2·log2(192) = 2·7 network steps of 8.5
	// µs; 22.5 GB/s × 0.92 × 120/128 × 0.5, × 0.9 (the correction at
	// 64 B × 2^20).
	treeLat := (14 + 2*7*8.5) * 1e-6
	treeBW := 22.5e9 * 0.92 * 120 / 128 * 0.5 * 0.9
	if c := cost(t, g, AllReduce, Tree, ProtoLL128, bytes); !within(c, treeLat+bytes/treeBW, 1e-9) {
		t.Errorf("tree LL128: %.6g s, want %.6g", c, treeLat+bytes/treeBW)
	}
	got, err := NCCLTime(AllReduce, g, bytes)
	if err != nil {
		t.Fatal(err)
	}
	if got.Algo != Tree || got.Proto != ProtoLL128 || !within(got.Seconds, treeLat+bytes/treeBW, 1e-9) {
		t.Errorf("192 nodes, 80 MB: NCCL picks %s/%s at %.6g s; want tree/LL128 at %.6g", got.Algo, got.Proto, got.Seconds, treeLat+bytes/treeBW)
	}
	// Reduce-scatter has no tree: 1,536 ranks on 192 nodes, 8 a node,
	// ring Simple: 8.4 + (1535 − 191) NVLink steps at max(3.4, 3·1) µs +
	// 191 network steps at 14 µs; the bus min(NVLink, 8 NICs).
	g8 := NCCLGroup{Ranks: 1536, Nodes: 192, Intra: nv, Inter: hdr}
	lat := (8.4 + 1344*3.4 + 191*14) * 1e-6
	bw := math.Min(300e9*0.82, 8*22.5e9) * 1536 / 1535
	if c := cost(t, g8, ReduceScatter, Ring, ProtoSimple, 1e9); !within(c, lat+1e9/bw, 1e-9) {
		t.Errorf("RS ring Simple: %.6g s, want %.6g", c, lat+1e9/bw)
	}
	// PAT (NCCL 2.23 on), one rank a node: 8 + log2(192)·14/3.5 + 192·2.8
	// µs at 75% of the bus; it beats the ring's 191 steps of 14 µs on a
	// 1 MB all-gather.
	g.PAT = true
	patLat := (8 + 7*14/3.5 + 192*2.8) * 1e-6
	c, _ := NCCLTime(AllGather, g, 1e6)
	if c.Algo != PAT || !within(c.Seconds, patLat+1e6/(22.5e9*0.75), 1e-9) {
		t.Errorf("PAT all-gather: %s at %.6g s, want pat at %.6g", c.Algo, c.Seconds, patLat+1e6/(22.5e9*0.75))
	}
	g.PAT = false
	if c, _ := NCCLTime(AllGather, g, 1e6); c.Algo != Ring {
		t.Errorf("without PAT: %s", c.Algo)
	}
	// Inside one node a small message goes LL: 8 ranks, 4 KB, 6.6 + 14·0.6 µs.
	one := NCCLGroup{Ranks: 8, Nodes: 1, Intra: nv, Inter: hdr}
	c, _ = NCCLTime(AllReduce, one, 4096)
	llBW := math.Min(87.7e9, 300e9*0.82*0.5) * 8 / 14
	if c.Proto != ProtoLL || !within(c.Seconds, (6.6+14*0.6)*1e-6+4096/llBW, 1e-9) {
		t.Errorf("8 ranks, 4 KB: %s/%s %.6g s", c.Algo, c.Proto, c.Seconds)
	}
}

// The latency NCCL's model charges grows with the nodes a ring crosses:
// what makes a data-parallel group's many small collectives cost more on
// more nodes.
func TestNCCLLatencyGrowsWithNodes(t *testing.T) {
	nv, ndr := link(t, "nvlink4"), link(t, "ib-ndr")
	prev := 0.0
	for _, nodes := range []int{2, 8, 32, 128, 512} {
		c, err := NCCLTime(ReduceScatter, NCCLGroup{Ranks: nodes, Nodes: nodes, Intra: nv, Inter: ndr}, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		if c.Latency <= prev {
			t.Errorf("%d nodes: latency %.3g s, not above %.3g", nodes, c.Latency, prev)
		}
		prev = c.Latency
	}
}

func TestNCCLRefuses(t *testing.T) {
	nv, ndr := link(t, "nvlink4"), link(t, "ib-ndr")
	for _, c := range []struct {
		op    Op
		g     NCCLGroup
		bytes float64
	}{
		{AllToAll, NCCLGroup{Ranks: 8, Nodes: 1, Intra: nv, Inter: ndr}, 1},
		{AllReduce, NCCLGroup{Ranks: 0, Nodes: 1, Intra: nv, Inter: ndr}, 1},
		{AllReduce, NCCLGroup{Ranks: 4, Nodes: 5, Intra: nv, Inter: ndr}, 1},
		{AllReduce, NCCLGroup{Ranks: 8, Nodes: 1, Intra: nv, Inter: ndr}, math.NaN()},
	} {
		if _, err := NCCLTime(c.op, c.g, c.bytes); err == nil {
			t.Errorf("%s %+v %g: no error", c.op, c.g, c.bytes)
		}
	}
}

// cost is one algorithm and protocol's time.
func cost(t *testing.T, g NCCLGroup, op Op, a Algo, p NCCLProto, bytes float64) float64 {
	t.Helper()
	for i, q := range ncclProtos {
		if q != p {
			continue
		}
		lat, bw := g.latency(op, a, i), g.bandwidth(op, a, i)
		if a == Tree {
			bw *= treeCorrection(i, bytes)
		}
		if a == Ring && p == ProtoSimple && g.Nodes > 1 && op == AllReduce {
			lat *= 1.4
		}
		return lat + bytes/bw
	}
	t.Fatalf("no protocol %s", p)
	return 0
}

// The model's bus bandwidth for a large all-reduce against what NVIDIA
// measures with nccl-tests (GTC24 S62129, "Collective Communication
// Bandwidth"): inside a DGX A100 232 GB/s and a DGX H100 370; across DGX
// A100s (8 × 200 Gb RDMA a node) 192, across DGX H100s (8 × 400 Gb) 380 —
// within 10%.
func TestNCCLBusBandwidthAgainstNCCLTests(t *testing.T) {
	for _, c := range []struct {
		intra, inter string
		ranks, nodes int
		want         float64
	}{
		{"nvlink3", "ib-hdr", 8, 1, 232e9},
		{"nvlink4", "ib-ndr", 8, 1, 370e9},
		{"nvlink3", "ib-hdr", 64, 8, 192e9},
		{"nvlink4", "ib-ndr", 64, 8, 380e9},
	} {
		g := NCCLGroup{Ranks: c.ranks, Nodes: c.nodes, Intra: link(t, c.intra), Inter: link(t, c.inter)}
		bytes := 8e9
		r, err := NCCLTime(AllReduce, g, bytes)
		if err != nil {
			t.Fatal(err)
		}
		bus := bytes / r.Seconds * BusFactor(AllReduce, c.ranks)
		if !within(bus, c.want, 0.10) {
			t.Errorf("%s + %s, %d ranks on %d nodes: bus bandwidth %.0f GB/s (%s/%s), measured %.0f", c.intra, c.inter, c.ranks, c.nodes, bus/1e9, r.Algo, r.Proto, c.want/1e9)
		}
	}
}
