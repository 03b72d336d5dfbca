package collective

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
)

// ncclBtreeChildren is ncclGetBtree's down0 and down1 (NCCL
// src/graph/trees.cc), transcribed, -1 for none: the reference
// btreeParent must agree with.
func ncclBtreeChildren(n, rank int) (d0, d1 int) {
	bit := 1
	for ; bit < n; bit <<= 1 {
		if bit&rank != 0 {
			break
		}
	}
	if rank == 0 {
		if n > 1 {
			return -1, bit >> 1
		}
		return -1, -1
	}
	lowbit := bit >> 1
	d0, d1 = -1, -1
	if lowbit != 0 {
		d0, d1 = rank-lowbit, rank+lowbit
	}
	for d1 >= n {
		if lowbit == 0 {
			d1 = -1
		} else {
			d1 = rank + lowbit
		}
		lowbit >>= 1
	}
	return d0, d1
}

// treeShape checks that parent is one tree over all ranks and returns its
// children counts and depth (hops from the deepest rank to the root).
func treeShape(t *testing.T, parent []int32) (kids []int, depth int) {
	t.Helper()
	n := len(parent)
	kids = make([]int, n)
	roots := 0
	for r, p := range parent {
		if p < 0 {
			roots++
			continue
		}
		if int(p) >= n || int(p) == r {
			t.Fatalf("n=%d: rank %d has parent %d", n, r, p)
		}
		kids[p]++
	}
	if roots != 1 {
		t.Fatalf("n=%d: %d roots", n, roots)
	}
	for r := range parent {
		d := 0
		for x := int32(r); parent[x] >= 0; x = parent[x] {
			if d++; d > n {
				t.Fatalf("n=%d: a cycle through rank %d", n, r)
			}
		}
		depth = max(depth, d)
	}
	return kids, depth
}

// The double binary tree is NCCL's: the first tree has NCCL's children,
// both trees span every rank with at most two children each, ⌈log2 n⌉
// hops deep (the closed form's latency), and no rank forwards to more than
// two children over both — so none sends more than 2S in an all-reduce.
// Rooted at rank 0 for a broadcast, the same holds.
func TestDoubleBinaryTree(t *testing.T) {
	ns := []int{}
	for n := 2; n <= 300; n++ {
		ns = append(ns, n)
	}
	ns = append(ns, 1000, 1023, 1024, 1025, 16384, 16383)
	for _, n := range ns {
		trees := doubleBinaryTree(n)
		for r := range n {
			d0, d1 := ncclBtreeChildren(n, r)
			for _, c := range []int{d0, d1} {
				if c >= 0 && int(trees[0][c]) != r {
					t.Fatalf("n=%d: NCCL makes %d a child of %d, btreeParent says %d", n, c, r, trees[0][c])
				}
			}
		}
		logN := int(math.Ceil(math.Log2(float64(n))))
		for _, bcast := range []bool{false, true} {
			if bcast {
				rootAtZero(trees[1])
				if trees[1][0] != -1 {
					t.Fatalf("n=%d: broadcast tree rooted at %d", n, trees[1][0])
				}
			}
			var both [2][]int
			for i, parent := range trees {
				kids, depth := treeShape(t, parent)
				if depth != logN {
					t.Errorf("n=%d tree %d (broadcast %v): %d hops deep, want ⌈log2 n⌉ = %d", n, i, bcast, depth, logN)
				}
				both[i] = kids
			}
			for r := range n {
				if k := both[0][r] + both[1][r]; k > 2 || both[0][r] > 2 || both[1][r] > 2 {
					t.Fatalf("n=%d (broadcast %v): rank %d has %d+%d children", n, bcast, r, both[0][r], both[1][r])
				}
			}
		}
	}
}

// agreement is how far a flow run may be from ClosedForm without
// contention. Star, NVLS and tree broadcast: the same bytes on the same
// links, so only float rounding (0.1%). Tree all-reduce: the double binary
// tree's interior ranks send 2S where the closed form charges the average
// 2(n−1)/n·S, so the bandwidth term is n/(n−1) of the closed form's (n ≥ 4;
// 9/8 at n = 3, equal at n = 2): within 1/(n−1) + 0.1% — 14% at 8 ranks,
// 6.7% at 16, under 2% from 64.
func agreement(op Op, algo Algo, n int) float64 {
	if algo == Tree && op == AllReduce && n > 2 {
		return 1/float64(n-1) + 0.001
	}
	return 0.001
}

// Without contention (one NVSwitch, or one GPU per node on a non-blocking
// fat tree, the closed form's picture of every rank on its own port) the
// new flow schedules agree with ClosedForm: time within agreement, bytes
// sent equal (a tree all-reduce's busiest rank: n/(n−1) of the average),
// and no link above 100%.
func TestFabricTreeStarNVLSAgreeWithClosedForm(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	type algoOp struct {
		op   Op
		algo Algo
	}
	cases := []algoOp{{AllReduce, Tree}, {Broadcast, Tree}, {AllReduce, Star}, {AllReduce, NVLS}}
	for _, kind := range []string{"single-node", "fat-tree"} {
		for _, n := range []int{2, 8, 16, 64, 256} {
			k := n // one node
			if kind == "fat-tree" {
				k = 1 // one GPU per node: every hop crosses a NIC
			}
			tp, err := FabricTopology(kind, n, k, nv, ib, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if c.algo == NVLS && k < n {
					continue
				}
				for _, bytes := range []float64{64e3, 1e9} {
					name := fmt.Sprintf("%s/n=%d/%s-%s/S=%g", kind, n, c.algo, c.op, bytes)
					f, err := ClosedForm(c.op, c.algo, n, k, bytes, nv, ib)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					r, err := RunOnFabric(tp, c.op, c.algo, n, bytes)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if d := math.Abs(r.Seconds-f.Seconds) / f.Seconds; d > agreement(c.op, c.algo, n) {
						t.Errorf("%s: flows %.6g s, closed form %.6g s (%.2f%% apart, allowed %.2f%%)", name, r.Seconds, f.Seconds, 100*d, 100*agreement(c.op, c.algo, n))
					}
					if n >= 64 && math.Abs(r.Seconds-f.Seconds)/f.Seconds > 0.02 {
						t.Errorf("%s: more than 2%% from the closed form at %d ranks", name, n)
					}
					wantSent := f.SentPerRank
					if c.algo == Tree && c.op == AllReduce {
						// The busiest rank: S at 2 ranks (as the closed
						// form), 2S from 4.
						if n > 2 {
							wantSent = 2 * bytes
						}
						// and the time is the closed form's with those bytes.
						want := f.Latency + f.Bandwidth*wantSent/f.SentPerRank
						if math.Abs(r.Seconds-want) > 1e-9*want {
							t.Errorf("%s: %.9g s, want the closed form at the busiest rank's bytes, %.9g s", name, r.Seconds, want)
						}
					}
					if math.Abs(r.SentPerRank-wantSent) > 1e-9*wantSent {
						t.Errorf("%s: busiest rank sends %g, want %g (closed form %g)", name, r.SentPerRank, wantSent, f.SentPerRank)
					}
					if !(r.MaxUtilization >= 0 && r.MaxUtilization <= 1+1e-9) {
						t.Errorf("%s: a link at %g", name, r.MaxUtilization)
					}
				}
			}
		}
	}
}

// The latency terms alone: at one byte a tree pays 2·⌈log2 n⌉ hops (one
// way for a broadcast), a star and NVLS two, as the closed form says.
func TestFabricLatencyTerms(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	for _, n := range []int{2, 3, 5, 8, 100, 1024} {
		tp, err := FabricTopology("fat-tree", n, 1, nv, ib, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			op   Op
			algo Algo
		}{{AllReduce, Tree}, {Broadcast, Tree}, {AllReduce, Star}} {
			r, err := RunOnFabric(tp, c.op, c.algo, n, 0)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := ClosedForm(c.op, c.algo, n, 1, 0, nv, ib)
			if math.Abs(r.Seconds-f.Latency) > 1e-12 {
				t.Errorf("n=%d %s %s: %g s of latency, closed form %g s", n, c.algo, c.op, r.Seconds, f.Latency)
			}
		}
	}
	one, _ := FabricTopology("single-node", 8, 8, nv, ib, 1)
	r, _ := RunOnFabric(one, AllReduce, NVLS, 8, 0)
	if f, _ := ClosedForm(AllReduce, NVLS, 8, 8, 0, nv, ib); math.Abs(r.Seconds-f.Latency) > 1e-12 {
		t.Errorf("NVLS: %g s of latency, closed form %g s", r.Seconds, f.Latency)
	}
}

// NVLS reduces inside one NVSwitch: across nodes RunOnFabric refuses as
// ClosedForm does, and so it does on PCIe; inside the first node of a fat
// tree it runs.
func TestFabricNVLSRefuses(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	tp, err := FabricTopology("fat-tree", 16, 8, nv, ib, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunOnFabric(tp, AllReduce, NVLS, 16, 1e9)
	_, cfErr := ClosedForm(AllReduce, NVLS, 16, 8, 1e9, nv, ib)
	if err == nil || cfErr == nil || err.Error() != cfErr.Error() {
		t.Errorf("nvls across nodes: flows %v, closed form %v", err, cfErr)
	}
	for _, want := range []string{"algo", "nvls", "hierarchical"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
	if _, err := RunOnFabric(tp, AllReduce, NVLS, 8, 1e9); err != nil {
		t.Errorf("nvls inside node 0 of a fat tree: %v", err)
	}
	pcie, err := topo.PCIeNode(8, hwLink(t, "pcie5"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RunOnFabric(pcie, AllReduce, NVLS, 8, 1e9); err == nil || !strings.Contains(err.Error(), "nvls") {
		t.Errorf("nvls on PCIe: %v", err)
	}
}

// What still has no flow schedule says so, naming the algorithm and the
// operation; hierarchical says why.
func TestFabricRefusals(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	tp, err := FabricTopology("fat-tree", 16, 8, nv, ib, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op       Op
		algo     Algo
		n        int
		mentions []string
	}{
		{AllToAll, Tree, 16, []string{"algo", "tree", "alltoall", "no flow schedule"}},
		{ReduceScatter, Star, 16, []string{"algo", "star", "reducescatter"}},
		{Broadcast, NVLS, 8, []string{"algo", "nvls", "broadcast"}},
		{AllReduce, Hierarchical, 12, []string{"hierarchical", "multiple of 8"}},
		{AllReduce, Tree, 17, []string{"ranks", "17"}},
	} {
		_, err := RunOnFabric(tp, c.op, c.algo, c.n, 1e9)
		for _, m := range c.mentions {
			if err == nil || !strings.Contains(err.Error(), m) {
				t.Errorf("%s %s on %d: error %v does not mention %q", c.algo, c.op, c.n, err, m)
			}
		}
	}
	if _, err := RunOnFabric(tp, AllReduce, Tree, 16, math.Inf(1)); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("infinite bytes: %v", err)
	}
}

// An oversubscribed spine never speeds a tree up: 2:1, 4:1 and 8:1
// against non-blocking, over leaves of one GPU per node and of eight. A
// tree crosses the spine on only a few edges (one per leaf and tree, about),
// so it shrugs off 2:1 and 4:1; at 8:1 an uplink has half a NIC's bandwidth
// and the crossing edges slow the whole pipeline.
func TestFabricTreeOversubscription(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	for _, c := range []struct{ n, k int }{{256, 1}, {1024, 1}, {1024, 8}, {4096, 8}} {
		var prev, first float64
		for _, over := range []float64{1, 2, 4, 8} {
			tp, err := FabricTopology("fat-tree", c.n, c.k, nv, ib, over)
			if err != nil {
				t.Fatal(err)
			}
			if tp.Spines() == 0 {
				t.Fatalf("%d×%d: no spine to oversubscribe", c.n/c.k, c.k)
			}
			for _, op := range []Op{AllReduce, Broadcast} {
				r, err := RunOnFabric(tp, op, Tree, c.n, 1e9)
				if err != nil {
					t.Fatal(err)
				}
				if r.MaxUtilization > 1+1e-9 {
					t.Errorf("%d ranks, %g:1, %s: a link at %g", c.n, over, op, r.MaxUtilization)
				}
				if op == AllReduce {
					if r.Seconds < prev*(1-1e-12) {
						t.Errorf("%d ranks of %d a node: %g:1 takes %g s, less oversubscribed %g s", c.n, c.k, over, r.Seconds, prev)
					}
					prev = r.Seconds
					if over == 1 {
						first = r.Seconds
					}
				}
			}
		}
		if c.k == 1 && !(prev > 1.2*first) {
			t.Errorf("%d ranks of one GPU a node: 8:1 takes %g s, non-blocking %g s; want the thin uplinks to show", c.n, prev, first)
		}
	}
}

// On the flow model too, a tree beats a ring for small messages over many
// ranks (2·⌈log2 n⌉ latencies against 2(n−1)) and the ring wins for large
// ones; the crossover lies near the closed form's.
func TestFabricTreeRingCrossover(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	n := 1024
	tp, err := FabricTopology("fat-tree", n, 1, nv, ib, 1)
	if err != nil {
		t.Fatal(err)
	}
	diff := func(s float64) float64 {
		tr, err1 := RunOnFabric(tp, AllReduce, Tree, n, s)
		rr, err2 := RunOnFabric(tp, AllReduce, Ring, n, s)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return tr.Seconds - rr.Seconds
	}
	small, large := 64e3, 4e9
	if diff(small) >= 0 || diff(large) <= 0 {
		t.Fatalf("64 KB: tree − ring %g s; 4 GB: %g s", diff(small), diff(large))
	}
	lo, hi := small, large
	for range 60 {
		mid := math.Sqrt(lo * hi)
		if diff(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	flow, closed := math.Sqrt(lo*hi), Crossover(n, 1, nv, ib)
	t.Logf("tree–ring crossover on 1,024 nodes of NDR: flows %.4g B, closed form %.4g B", flow, closed)
	if d := math.Abs(flow-closed) / closed; d > 0.02 {
		t.Errorf("crossover: flows %g B, closed form %g B (%.1f%% apart)", flow, closed, 100*d)
	}
}

// Random configurations, fixed seed: every run either succeeds with sane
// numbers or refuses NVLS across nodes; no link above 100%; time grows with
// the message; bytes sent match the closed form (a tree all-reduce's
// busiest rank: at most n/(n−1) of it); and without contention the time
// is the closed form's within agreement.
func TestFabricRandomized(t *testing.T) {
	nv, ib := hwLink(t, "nvlink4"), hwLink(t, "ib-ndr")
	rng := rand.New(rand.NewPCG(6, 2024))
	type algoOp struct {
		op   Op
		algo Algo
	}
	cases := []algoOp{{AllReduce, Tree}, {Broadcast, Tree}, {AllReduce, Star}, {AllReduce, NVLS}}
	for i := range 300 {
		n := 2 + rng.IntN(400)
		k := []int{1, 2, 4, 8}[rng.IntN(4)]
		over := []float64{1, 2, 4}[rng.IntN(3)]
		kind := "fat-tree"
		if rng.IntN(4) == 0 {
			kind, k, over = "single-node", n, 1
		}
		c := cases[rng.IntN(len(cases))]
		bytes := math.Round(math.Pow(10, 10*rng.Float64()))
		name := fmt.Sprintf("#%d %s n=%d k=%d %g:1 %s %s S=%g", i, kind, n, k, over, c.algo, c.op, bytes)
		tp, err := FabricTopology(kind, n, k, nv, ib, over)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := RunOnFabric(tp, c.op, c.algo, n, bytes)
		f, cfErr := ClosedForm(c.op, c.algo, n, k, bytes, nv, ib)
		if c.algo == NVLS && n > k {
			if err == nil || cfErr == nil {
				t.Errorf("%s: NVLS across nodes accepted (%v, %v)", name, err, cfErr)
			}
			continue
		}
		if err != nil || cfErr != nil {
			t.Fatalf("%s: %v, %v", name, err, cfErr)
		}
		if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) {
			t.Errorf("%s: %g s", name, r.Seconds)
		}
		if !(r.MaxUtilization >= 0 && r.MaxUtilization <= 1+1e-9) {
			t.Errorf("%s: a link at %g", name, r.MaxUtilization)
		}
		ratio := r.SentPerRank / f.SentPerRank
		if c.algo == Tree && c.op == AllReduce {
			if ratio < 1-1e-12 || ratio > float64(n)/float64(n-1)+1e-12 {
				t.Errorf("%s: busiest rank sends %g, closed form %g", name, r.SentPerRank, f.SentPerRank)
			}
		} else if math.Abs(ratio-1) > 1e-12 {
			t.Errorf("%s: busiest rank sends %g, closed form %g", name, r.SentPerRank, f.SentPerRank)
		}
		if tp.Spines() == 0 && (k == 1 || kind == "single-node") {
			// Contention-free: every rank on its own port, no spine (a
			// rail's last leaf of a few nodes has thin uplinks, and ECMP
			// can hash two flows onto one).
			if d := math.Abs(r.Seconds-f.Seconds) / f.Seconds; d > agreement(c.op, c.algo, n) {
				t.Errorf("%s: flows %g s, closed form %g s", name, r.Seconds, f.Seconds)
			}
		}
		more, err := RunOnFabric(tp, c.op, c.algo, n, 2*bytes+1)
		if err != nil || more.Seconds < r.Seconds {
			t.Errorf("%s: twice the bytes take %g s, %v; once %g s", name, more.Seconds, err, r.Seconds)
		}
	}
}

// The new schedules are deterministic: the same run twice gives the same
// bits.
func TestFabricTreeDeterministic(t *testing.T) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	tp, err := FabricTopology("fat-tree", 2048, 8, nv, ib, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []Algo{Tree, Star} {
		a, _ := RunOnFabric(tp, AllReduce, algo, 2048, 123456789)
		b, _ := RunOnFabric(tp, AllReduce, algo, 2048, 123456789)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %+v then %+v", algo, a, b)
		}
	}
}

// An all-to-all's bytes on the links, by hand: 128 nodes of one GPU under
// four leaves of 32, S bytes a rank, S/128 to every other rank. Every
// rank's NIC sends 127·S/128 up (127·S over all NICs); the flows to the
// 96 ranks under other leaves climb to the spine (96·S over all uplinks)
// and come down again; with 2:1 oversubscription the same bytes cross
// uplinks of half the bandwidth, and the busiest of them is saturated.
func TestFabricAllToAllLinkBytes(t *testing.T) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	const S = 128e6
	for _, over := range []float64{1, 2} {
		tp, err := FabricTopology("fat-tree", 128, 1, nv, ib, over)
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunOnFabric(tp, AllToAll, Ring, 128, S)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.LinkBytes) != tp.NumLinks() {
			t.Fatalf("%d link byte counts, %d links", len(res.LinkBytes), tp.NumLinks())
		}
		var nicUp, spineUp, spineDown float64
		for _, l := range tp.Links() {
			b := res.LinkBytes[l.ID]
			switch {
			case l.Kind == topo.KindNIC && l.Up:
				nicUp += b
			case l.Kind == topo.KindLeafSpine && l.Up:
				spineUp += b
			case l.Kind == topo.KindLeafSpine:
				spineDown += b
			}
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"NIC up", nicUp, 127 * S}, {"leaf to spine", spineUp, 96 * S}, {"spine to leaf", spineDown, 96 * S}} {
			if math.Abs(c.got-c.want) > 1e-6*c.want {
				t.Errorf("%g:1: %s carried %g bytes, want %g", over, c.name, c.got, c.want)
			}
		}
		if over == 2 && res.MaxUtilization < 0.99 {
			t.Errorf("2:1: the busiest link %.3f busy, want saturated", res.MaxUtilization)
		}
	}
}
