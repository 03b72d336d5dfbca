package collective

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

func hwLink(t *testing.T, id string) hw.Link {
	t.Helper()
	l, ok := hw.LinkByID(id)
	if !ok {
		t.Fatalf("no link %s", id)
	}
	return l
}

func busbw(t *testing.T, op Op, algo Algo, n, perNode int, bytes float64, intra, inter hw.Link) float64 {
	t.Helper()
	f, err := ClosedForm(op, algo, n, perNode, bytes, intra, inter)
	if err != nil {
		t.Fatal(err)
	}
	return bytes / f.Seconds * BusFactor(op, n) / 1e9
}

// nccl-tests on 8 H100s over NVLink 4: ring all-reduce ≈ 370 GB/s bus
// bandwidth for large messages (protocol efficiency 0.82 of 450), NVLS
// ≈ 480 GB/s; reduce-scatter and all-gather the same busbw as the ring.
func TestPublishedNVLinkBusBandwidth(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	ring := busbw(t, AllReduce, Ring, 8, 8, 1e9, nv, ib)
	nvls := busbw(t, AllReduce, NVLS, 8, 8, 1e9, nv, ib)
	t.Logf("8× H100, 1 GB: ring %.0f GB/s busbw, NVLS %.0f GB/s", ring, nvls)
	if math.Abs(ring-370)/370 > 0.03 {
		t.Errorf("ring busbw %.1f GB/s, want ≈ 370 ± 3%%", ring)
	}
	if math.Abs(nvls-480)/480 > 0.03 {
		t.Errorf("NVLS busbw %.1f GB/s, want ≈ 480 ± 3%%", nvls)
	}
	for _, op := range []Op{ReduceScatter, AllGather} {
		if b := busbw(t, op, Ring, 8, 8, 1e9, nv, ib); math.Abs(b-ring)/ring > 0.01 {
			t.Errorf("%s busbw %.1f, all-reduce %.1f: nccl-tests' definitions make them equal", op, b, ring)
		}
	}
	// Without protocol overhead the form is the first lesson's closed form.
	ideal := nv
	ideal.Efficiency = 1
	f, _ := ClosedForm(AllReduce, Ring, 8, 8, 256<<20, ideal, ib)
	if want := RingAllReduceSeconds(8, 256<<20, nv.Latency.Seconds(), nv.Bandwidth); math.Abs(f.Seconds-want) > 1e-15 {
		t.Errorf("ideal ring %g s, RingAllReduceSeconds %g", f.Seconds, want)
	}
}

// The seed's NVLink against InfiniBand: 900 GB/s against 50 GB/s per GPU
// (18×, counting NVLink both ways), 1 µs against 5 µs; the same 1 GB
// all-reduce over 8 GPUs on one node or over 8 nodes.
func TestNVLinkAgainstInfiniBand(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	if r := 2 * nv.Bandwidth / ib.Bandwidth; r != 18 {
		t.Errorf("900/50 = %g, want 18", r)
	}
	in, _ := ClosedForm(AllReduce, Ring, 8, 8, 1e9, nv, ib)
	across, _ := ClosedForm(AllReduce, Ring, 8, 1, 1e9, nv, ib)
	ratio := across.Seconds / in.Seconds
	// 9× the bandwidth each way, at efficiencies 0.82 and 0.9.
	if want := 9 * 0.82 / 0.9; math.Abs(ratio-want)/want > 0.01 {
		t.Errorf("across nodes ×%.2f slower, want ≈ %.2f", ratio, want)
	}
}

// Tree beats ring for small messages at many ranks (log n latency terms
// against n); ring wins for large ones. The crossover lies between.
func TestTreeRingCrossover(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	n := 1024
	small, large := 64e3, 4e9
	ts, _ := ClosedForm(AllReduce, Tree, n, 1, small, nv, ib)
	rs, _ := ClosedForm(AllReduce, Ring, n, 1, small, nv, ib)
	tl, _ := ClosedForm(AllReduce, Tree, n, 1, large, nv, ib)
	rl, _ := ClosedForm(AllReduce, Ring, n, 1, large, nv, ib)
	if ts.Seconds >= rs.Seconds || tl.Seconds < rl.Seconds {
		t.Errorf("64 KB: tree %g ring %g; 4 GB: tree %g ring %g", ts.Seconds, rs.Seconds, tl.Seconds, rl.Seconds)
	}
	cross := Crossover(n, 1, nv, ib)
	if cross <= small || cross >= large {
		t.Errorf("crossover %g bytes, want between %g and %g", cross, small, large)
	}
	a, _ := ClosedForm(AllReduce, Tree, n, 1, cross, nv, ib)
	b, _ := ClosedForm(AllReduce, Ring, n, 1, cross, nv, ib)
	if math.Abs(a.Seconds-b.Seconds)/a.Seconds > 1e-6 {
		t.Errorf("at the crossover tree %g, ring %g", a.Seconds, b.Seconds)
	}
}

// Hierarchical: across 2,048 nodes of 8, the intra-node phases are cheap
// and the inter-node ring moves an eighth of the vector per GPU, so it
// beats a flat ring over 16,384 ranks; inside one node it is the ring.
func TestHierarchical(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	h, _ := ClosedForm(AllReduce, Hierarchical, 16384, 8, 1e9, nv, ib)
	r, _ := ClosedForm(AllReduce, Ring, 16384, 8, 1e9, nv, ib)
	if h.Seconds >= r.Seconds {
		t.Errorf("hierarchical %g s, flat ring %g s", h.Seconds, r.Seconds)
	}
	one, _ := ClosedForm(AllReduce, Hierarchical, 8, 8, 1e9, nv, ib)
	ring, _ := ClosedForm(AllReduce, Ring, 8, 8, 1e9, nv, ib)
	if one != ring {
		t.Errorf("one node: hierarchical %+v, ring %+v", one, ring)
	}
}

func TestClosedFormRefuses(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	for _, c := range []struct {
		op   Op
		algo Algo
		n, k int
		b    float64
	}{
		{AllReduce, NVLS, 16, 8, 1e9}, {Broadcast, Hierarchical, 8, 8, 1}, {AllToAll, Tree, 8, 8, 1},
		{AllReduce, Ring, 0, 8, 1}, {AllReduce, Ring, 8, 0, 1}, {AllReduce, Ring, 8, 8, -1}, {AllReduce, Ring, 8, 8, math.NaN()},
	} {
		if _, err := ClosedForm(c.op, c.algo, c.n, c.k, c.b, nv, ib); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// Without contention the flow-level run agrees with the closed form: a
// ring all-reduce on one NVSwitch, and a ring over nodes one GPU each
// (every step crosses one NIC).
func TestFabricAgreesWithClosedForm(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	for _, c := range []struct {
		kind string
		n, k int
	}{{"single-node", 8, 8}, {"fat-tree", 16, 1}} {
		tp, err := FabricTopology(c.kind, c.n, c.k, nv, ib, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []Op{AllReduce, ReduceScatter, AllGather, Broadcast} {
			run, err := RunOnFabric(tp, op, Ring, c.n, 1e9)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := ClosedForm(op, Ring, c.n, c.k, 1e9, nv, ib)
			if d := math.Abs(run.Seconds-f.Seconds) / f.Seconds; d > 1e-6 {
				t.Errorf("%s %s: flows %g s, closed form %g s", c.kind, op, run.Seconds, f.Seconds)
			}
			if run.MaxUtilization > 1 || run.MaxUtilization < 0.9 {
				t.Errorf("%s %s: max utilisation %g", c.kind, op, run.MaxUtilization)
			}
		}
	}
}

// Contention: an all-to-all across leaves of a 2:1 fat tree takes longer
// than on a non-blocking one; no link ever carries more than its share.
func TestFabricContention(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	var times [2]float64
	for i, over := range []float64{1, 2} {
		// 128 nodes of one GPU: four leaves of 32, three quarters of the
		// traffic over the spine — more than a 2:1 uplink carries.
		tp, err := FabricTopology("fat-tree", 128, 1, nv, ib, over)
		if err != nil {
			t.Fatal(err)
		}
		r, err := RunOnFabric(tp, AllToAll, Ring, 128, 128e6)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxUtilization > 1 {
			t.Errorf("oversubscription %g: a link at %g", over, r.MaxUtilization)
		}
		times[i] = r.Seconds
	}
	if times[1] < 1.3*times[0] {
		t.Errorf("all-to-all on 128 GPUs: non-blocking %g s, 2:1 %g s; want the oversubscribed spine to slow it", times[0], times[1])
	}
}

// The benchmark: a ring all-reduce of 1 GB across 16,384 GPUs,
// aggregated per link, in ≤ 100 ms natively.
func BenchmarkRingAllReduce16384Fabric(b *testing.B) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	tp, err := FabricTopology("fat-tree", 16384, 8, nv, ib, 2)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := RunOnFabric(tp, AllReduce, Hierarchical, 16384, 1e9); err != nil {
			b.Fatal(err)
		}
		if _, err := RunOnFabric(tp, AllReduce, Ring, 16384, 1e9); err != nil {
			b.Fatal(err)
		}
	}
}
