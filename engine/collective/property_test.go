package collective

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Packet-level runs across random sizes, rank counts, node splits and
// algorithms deliver every byte exactly once: in each phase every rank
// receives each chunk it lacks once and no other (a ring's reduce-scatter
// all but its own first chunk, its all-gather all but the one it reduced;
// the star's root every rank's every chunk, then every rank the sum);
// bytes received equal bytes sent, 2(n−1)·S over all ranks; at the end
// every rank holds every chunk summed over all n ranks, counted once
// each. Time never runs backwards, and no port carries two transfers at
// once (no link above 100%).
func TestPacketRunsDeliverEveryByteOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2025))
	links := []string{"nvlink4", "ib-ndr", "pcie5", "roce-400"}
	runs := 60
	if runtime.GOARCH == "wasm" { // make test runs it under Node.js too, ~20× slower
		runs = 15
	}
	for i := range runs {
		n := 2 + rng.IntN(39)
		s := int64(1 + rng.IntN(3*n)) // chunks of 0 and 1 bytes
		if rng.IntN(3) > 0 {
			s = int64(math.Pow(10, 1+9*rng.Float64()))
		}
		algo := []Algo{Ring, Star}[rng.IntN(2)]
		var divs []int
		for d := 1; d <= n; d++ {
			if n%d == 0 {
				divs = append(divs, d)
			}
		}
		cfg := Config{Op: AllReduce, Algo: algo, Ranks: n, Bytes: s, Link: hwLink(t, links[rng.IntN(len(links))]),
			Nodes: divs[rng.IntN(len(divs))], Inter: hwLink(t, "ib-ndr"), Record: true}
		name := fmt.Sprintf("#%d %s n=%d S=%d nodes=%d %s", i, algo, n, s, cfg.Nodes, cfg.Link.ID)
		res, err := Run(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkPacketRun(t, name, res)
	}
}

func checkPacketRun(t *testing.T, name string, res *Result) {
	t.Helper()
	cfg := res.Config
	n, S := cfg.Ranks, cfg.Bytes
	type key struct {
		phase      Phase
		dst, chunk int32
		src        int32 // the star's gather tells senders apart
	}
	got := map[key]int{}
	received := make([]int64, n)
	var sent, recv int64
	ev := res.Trace.Events()
	for i, tr := range ev {
		if i > 0 && res.Trace.Time(i) < res.Trace.Time(i-1) {
			t.Fatalf("%s: transfer %d arrives at %v, before transfer %d at %v", name, i, res.Trace.Time(i), i-1, res.Trace.Time(i-1))
		}
		if tr.Start < tr.Request || tr.Arrive < tr.Start || res.Trace.Time(i) != tr.Arrive || tr.Arrive > res.Time {
			t.Fatalf("%s: transfer %d requested %v, started %v, arrived %v (recorded %v, run ends %v)", name, i, tr.Request, tr.Start, tr.Arrive, res.Trace.Time(i), res.Time)
		}
		if want := chunkBytes(S, n, int(tr.Chunk)); tr.Bytes != want {
			t.Fatalf("%s: chunk %d moved as %d bytes, want %d", name, tr.Chunk, tr.Bytes, want)
		}
		k := key{tr.Phase, tr.Dst, tr.Chunk, -1}
		if tr.Phase == PhaseGather {
			k.src = tr.Src
		}
		got[k]++
		received[tr.Dst] += tr.Bytes
		recv += tr.Bytes
	}
	for _, b := range res.SentPerRank {
		sent += b
	}
	if sent != recv || recv != 2*int64(n-1)*S {
		t.Errorf("%s: %d bytes sent, %d received; want 2(n−1)·S = %d", name, sent, recv, 2*int64(n-1)*S)
	}
	// Every (phase, receiver, chunk) the algorithm must deliver, once.
	want := map[key]int{}
	switch cfg.Algo {
	case Ring:
		for r := range int32(n) {
			for c := range int32(n) {
				if c != r {
					want[key{PhaseReduceScatter, r, c, -1}] = 1
				}
				if c != (r+1)%int32(n) {
					want[key{PhaseAllGather, r, c, -1}] = 1
				}
			}
		}
	case Star:
		for c := range int32(n) {
			for r := int32(1); r < int32(n); r++ {
				want[key{PhaseGather, 0, c, r}] = 1
				want[key{PhaseBroadcast, r, c, -1}] = 1
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d distinct deliveries, want %d", name, len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %v of chunk %d to rank %d (from %d) delivered %d times, want once", name, k.phase, k.chunk, k.dst, k.src, got[k])
		}
	}
	for r := range n {
		var w int64
		switch {
		case cfg.Algo == Ring:
			w = 2*S - chunkBytes(S, n, r) - chunkBytes(S, n, (r+1)%n)
		case r == 0:
			w = int64(n-1) * S
		default:
			w = S
		}
		if received[r] != w {
			t.Errorf("%s: rank %d received %d bytes, want %d", name, r, received[r], w)
		}
	}
	end := res.Trace.StateAt(res.Time)
	for i, c := range end {
		if c != int32(n) {
			t.Fatalf("%s: at the end rank %d chunk %d holds %d ranks' data, want all %d once", name, i/n, i%n, c, n)
		}
	}
	// One transfer at a time through each rank's send port and each
	// receive port, each for its bytes at its link's bandwidth.
	busy := func(of func(Transfer) int32) {
		per := make([][]Transfer, n)
		for _, tr := range ev {
			per[of(tr)] = append(per[of(tr)], tr)
		}
		for r, trs := range per {
			slices.SortFunc(trs, func(a, b Transfer) int { return int(a.Start - b.Start) })
			for i := 1; i < len(trs); i++ {
				a := trs[i-1]
				l := cfg.Link
				if cfg.Nodes > 1 && int(a.Src)/(n/cfg.Nodes) != int(a.Dst)/(n/cfg.Nodes) {
					l = cfg.Inter
				}
				if done := a.Start + sim.TransferTime(a.Bytes, l.Bandwidth); trs[i].Start < done {
					t.Fatalf("%s: a port of rank %d starts a transfer at %v while another sends until %v", name, r, trs[i].Start, done)
				}
			}
		}
	}
	busy(func(tr Transfer) int32 { return tr.Src })
	busy(func(tr Transfer) int32 { return tr.Dst })
}

// Flow-level schedules on random topologies: each rank sends exactly what
// the operation must move through its port — (n−1)/n·S for reduce-scatter,
// all-gather and all-to-all, 2(n−1)/n·S for an all-reduce by ring or
// hierarchy (reduce-scatter, all-reduce across, all-gather), S down a
// broadcast chain, (n−1)·S from a star's root — no link runs above 100%,
// the time is finite and no shorter than those bytes through the rank's
// ports at full speed, and more bytes never take less time.
func TestFabricSchedulesMoveWhatTheOpNeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2025))
	intras := []string{"nvlink3", "nvlink4", "nvlink5", "pcie5"}
	inters := []string{"ib-hdr", "ib-ndr", "ib-xdr", "roce-400"}
	type algoOp struct {
		op   Op
		algo Algo
	}
	cases := []algoOp{
		{AllReduce, Ring}, {ReduceScatter, Ring}, {AllGather, Ring},
		{AllReduce, Hierarchical}, {ReduceScatter, Hierarchical}, {AllGather, Hierarchical},
		{AllToAll, Ring}, {AllToAll, Star}, {Broadcast, Ring}, {AllReduce, Star},
		{AllReduce, Tree}, {Broadcast, Tree}, {AllReduce, NVLS},
	}
	ran := 0
	for i := range 150 {
		c := cases[i%len(cases)]
		k := []int{1, 2, 4, 8}[rng.IntN(4)]
		n := 2 + rng.IntN(130)
		if c.op == AllToAll {
			n = 2 + rng.IntN(40) // n² flows
		}
		if c.algo == Hierarchical {
			n = k * (2 + rng.IntN(16)) // whole nodes, more than one
			if k == 1 {
				k, n = 2, 2*n
			}
		}
		over := []float64{1, 2, 4}[rng.IntN(3)]
		kind := "fat-tree"
		if c.algo == NVLS || c.algo != Hierarchical && rng.IntN(4) == 0 {
			kind, k, over = "single-node", n, 1
		}
		intra, inter := hwLink(t, intras[rng.IntN(len(intras))]), hwLink(t, inters[rng.IntN(len(inters))])
		S := math.Round(math.Pow(10, 3+7*rng.Float64()))
		name := fmt.Sprintf("#%d %s n=%d k=%d %g:1 %s %s %s S=%g", i, kind, n, k, over, intra.ID, c.algo, c.op, S)
		tp, err := FabricTopology(kind, n, k, intra, inter, over)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := RunOnFabric(tp, c.op, c.algo, n, S)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ran++
		N := float64(n)
		need := map[algoOp]float64{
			{AllReduce, Ring}: 2 * (N - 1) / N * S, {ReduceScatter, Ring}: (N - 1) / N * S, {AllGather, Ring}: (N - 1) / N * S,
			{AllReduce, Hierarchical}: 2 * (N - 1) / N * S, {ReduceScatter, Hierarchical}: (N - 1) / N * S, {AllGather, Hierarchical}: (N - 1) / N * S,
			{AllToAll, Ring}: (N - 1) / N * S, {AllToAll, Star}: (N - 1) / N * S, {Broadcast, Ring}: S, {AllReduce, Star}: (N - 1) * S,
		}
		if w, ok := need[c]; ok && math.Abs(r.SentPerRank-w) > 1e-9*w {
			t.Errorf("%s: the busiest rank sends %g bytes, the operation needs %g", name, r.SentPerRank, w)
		}
		if !(r.MaxUtilization >= 0 && r.MaxUtilization <= 1) {
			t.Errorf("%s: a link at %g of its bandwidth", name, r.MaxUtilization)
		}
		if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) {
			t.Fatalf("%s: %g s", name, r.Seconds)
		}
		// A rank's bytes leave through its NVLink and its NIC at most
		// (NVLS: the switch adds, each GPU still sends its S once).
		lower := r.SentPerRank / (eff(intra) + eff(inter))
		if c.algo == NVLS {
			lower = S / (eff(intra) + eff(inter))
		}
		if r.Seconds < lower*(1-1e-9) {
			t.Errorf("%s: %g s, faster than %g bytes through the ports (%g s)", name, r.Seconds, r.SentPerRank, lower)
		}
		more, err := RunOnFabric(tp, c.op, c.algo, n, 2*S)
		if err != nil || more.Seconds < r.Seconds {
			t.Errorf("%s: twice the bytes take %g s (%v), once %g s", name, more.Seconds, err, r.Seconds)
		}
	}
	if ran < 100 {
		t.Errorf("only %d schedules ran", ran)
	}
}
