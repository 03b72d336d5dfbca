package collective

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

func link(t testing.TB, id string) hw.Link {
	t.Helper()
	l, ok := hw.LinkByID(id)
	if !ok {
		t.Fatalf("no link %q", id)
	}
	return l
}

func run(t testing.TB, algo Algo, n int, s int64, linkID string, record bool) *Result {
	t.Helper()
	res, err := Run(Config{Op: AllReduce, Algo: algo, Ranks: n, Bytes: s, Link: link(t, linkID), Record: record})
	if err != nil {
		t.Fatalf("Run(%s, %d ranks, %d B, %s): %v", algo, n, s, linkID, err)
	}
	return res
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// The packet-level ring agrees with 2(N−1)·(α + S/(N·B)) within 1% when
// nothing contends.
func TestRingMatchesClosedForm(t *testing.T) {
	for _, linkID := range []string{"nvlink4", "ib-ndr"} {
		for _, n := range []int{2, 3, 8, 16, 64, 256} {
			for _, s := range []int64{1 << 10, 1 << 20, 256 << 20, 1 << 30, 1_000_003} {
				t.Run(fmt.Sprintf("%s/n=%d/S=%d", linkID, n, s), func(t *testing.T) {
					res := run(t, Ring, n, s, linkID, false)
					m := res.Metrics()
					l := link(t, linkID)
					// Hand-worked closed form, independent of the package's helper.
					want := float64(2*(n-1)) * (l.Latency.Seconds() + float64(s)/float64(n)/l.Bandwidth)
					if e := relErr(m.TimeS, want); e > 0.01 {
						t.Errorf("time = %g s, closed form %g s (error %.3f%%, tolerance 1%%)", m.TimeS, want, 100*e)
					}
					if e := relErr(m.ClosedFormTimeS, want); e > 1e-12 {
						t.Errorf("ClosedFormTimeS = %g, want %g", m.ClosedFormTimeS, want)
					}
					if m.Rounds != 2*(n-1) {
						t.Errorf("rounds = %d, want %d", m.Rounds, 2*(n-1))
					}
					// Every rank sends 2(N−1) chunks: 2(N−1)/N·S, exact up to
					// the bytes left over when S is not a multiple of N.
					wantSent := float64(2*(n-1)) / float64(n) * float64(s)
					for r, b := range res.SentPerRank {
						if math.Abs(float64(b)-wantSent) > float64(2*(n-1)) {
							t.Fatalf("rank %d sent %d B, want 2(N−1)/N·S = %.0f", r, b, wantSent)
						}
					}
					// busbw = algbw · 2(N−1)/N.
					if e := relErr(m.BusBWGBps, m.AlgBWGBps*float64(2*(n-1))/float64(n)); e > 1e-12 {
						t.Errorf("busbw %g != algbw %g · 2(N−1)/N", m.BusBWGBps, m.AlgBWGBps)
					}
				})
			}
		}
	}
}

// A hand-worked case: 8 H100s on NVLink 4, 256 MiB. S/N = 32 MiB =
// 33,554,432 B; at 450 GB/s that is 74.565 µs, plus α = 1 µs → 75.565 µs a
// round; 14 rounds → 1.0579 ms. algbw = 268,435,456 B / 1.0579 ms =
// 253.7 GB/s; busbw = algbw · 14/8 = 444.0 GB/s, just under the link's 450.
func TestRingHandWorked(t *testing.T) {
	m := run(t, Ring, 8, 256<<20, "nvlink4", false).Metrics()
	checks := []struct {
		name      string
		got, want float64
	}{
		{"time_s", m.TimeS, 1.05791e-3},
		{"algbw_GBps", m.AlgBWGBps, 253.74},
		{"busbw_GBps", m.BusBWGBps, 444.05},
		{"bytes_sent_per_rank", float64(m.BytesSentPerRank), 469762048}, // 14 × 32 MiB
	}
	for _, c := range checks {
		if e := relErr(c.got, c.want); e > 1e-4 {
			t.Errorf("%s = %g, want %g (tolerance 0.01%%)", c.name, c.got, c.want)
		}
	}
}

// The star's root link carries (N−1)·S each way, so its time grows linearly
// in N, and it matches 2α + 2(N−1)·S/B.
func TestStar(t *testing.T) {
	const s = 64 << 20
	l := link(t, "nvlink4")
	var prev float64
	for _, n := range []int{2, 4, 8, 16, 32, 64} {
		res := run(t, Star, n, s, "nvlink4", false)
		m := res.Metrics()
		if got, want := res.SentPerRank[0], int64(n-1)*s; got != want {
			t.Errorf("n=%d: root sent %d B, want (N−1)·S = %d", n, got, want)
		}
		for r := 1; r < n; r++ {
			if res.SentPerRank[r] != s {
				t.Fatalf("n=%d: rank %d sent %d B, want S = %d", n, r, res.SentPerRank[r], int64(s))
			}
		}
		if m.BytesSentPerRank != int64(n-1)*s {
			t.Errorf("n=%d: bytes_sent_per_rank = %d, want the root's %d", n, m.BytesSentPerRank, int64(n-1)*s)
		}
		want := 2*l.Latency.Seconds() + 2*float64(n-1)*s/l.Bandwidth
		if e := relErr(m.TimeS, want); e > 0.01 {
			t.Errorf("n=%d: time %g s, want 2α + 2(N−1)S/B = %g s", n, m.TimeS, want)
		}
		if prev > 0 {
			// Doubling N takes the time from ∝ (N/2−1) to ∝ (N−1).
			ratio := m.TimeS / prev
			wantRatio := float64(n-1) / float64(n/2-1)
			if e := relErr(ratio, wantRatio); e > 0.01 {
				t.Errorf("n=%d: time ratio to n/2 = %.3f, want ≈ %.3f (linear in N−1)", n, ratio, wantRatio)
			}
		}
		prev = m.TimeS
	}
	// At 64 GPUs the star is far slower than the ring on the same link.
	ring := run(t, Ring, 64, s, "nvlink4", false).Metrics()
	star := run(t, Star, 64, s, "nvlink4", false).Metrics()
	if star.TimeS < 20*ring.TimeS {
		t.Errorf("star %g s vs ring %g s at 64 GPUs: want the star ≥ 20× slower", star.TimeS, ring.TimeS)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	good := Config{Op: AllReduce, Algo: Ring, Ranks: 8, Bytes: 1 << 20, Link: link(t, "nvlink4")}
	tests := []struct {
		field string
		mod   func(*Config)
	}{
		{"op", func(c *Config) { c.Op = "gather" }},
		{"algo", func(c *Config) { c.Algo = "tree" }},
		{"ranks", func(c *Config) { c.Ranks = 1 }},
		{"ranks", func(c *Config) { c.Ranks = MaxRanks + 1 }},
		{"bytes", func(c *Config) { c.Bytes = 0 }},
		{"link", func(c *Config) { c.Link = hw.Link{} }},
	}
	for _, tt := range tests {
		c := good
		tt.mod(&c)
		_, err := Run(c)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tt.field {
			t.Errorf("Run with bad %s: err = %v, want a ConfigError on %q", tt.field, err, tt.field)
		}
	}
}

// Snapshots: at t=0 every GPU holds only its own data; after reduce-scatter
// each GPU holds exactly one chunk summed over all N; at the end all do.
func TestSnapshots(t *testing.T) {
	const n = 8
	res := run(t, Ring, n, 8<<20, "nvlink4", true)
	count := func(sn Snapshot, v int32) int {
		c := 0
		for _, x := range sn.Contrib {
			if x == v {
				c++
			}
		}
		return c
	}
	s0 := res.Snapshot(0)
	if got := count(s0, 1); got != n*n {
		t.Errorf("t=0: %d chunk copies hold one rank's data, want %d", got, n*n)
	}
	if len(s0.Packets) != n {
		t.Errorf("t=0: %d packets, want %d (one per GPU)", len(s0.Packets), n)
	}
	ag, ok := res.Mark("phase:all-gather")
	if !ok {
		t.Fatal("no phase:all-gather mark")
	}
	sAG := res.Snapshot(ag)
	if got := count(sAG, n); got != n {
		t.Errorf("at all-gather start: %d full chunks, want %d (one per GPU)", got, n)
	}
	for r := 0; r < n; r++ {
		if c := sAG.Contrib[r*n+(r+1)%n]; c != n {
			t.Errorf("rank %d chunk %d holds %d ranks' data, want %d", r, (r+1)%n, c, n)
		}
	}
	if sAG.Round != n || sAG.Phase != PhaseAllGather {
		t.Errorf("at all-gather start: round %d phase %v, want round %d all-gather", sAG.Round, sAG.Phase, n)
	}
	end := res.Snapshot(res.Time)
	if got := count(end, n); got != n*n || !end.Done || len(end.Packets) != 0 {
		t.Errorf("end: %d full chunks, done %v, %d packets; want %d, true, 0", got, end.Done, len(end.Packets), n*n)
	}
	// Bytes sent so far never decrease and end at the total.
	var prev int64
	for k := 0; k <= 20; k++ {
		sn := res.Snapshot(res.Time * sim.Time(k) / 20)
		if sn.Sent[3] < prev {
			t.Fatalf("bytes sent by rank 3 went from %d down to %d", prev, sn.Sent[3])
		}
		prev = sn.Sent[3]
	}
	if prev != res.SentPerRank[3] {
		t.Errorf("bytes sent by rank 3 at the end = %d, want %d", prev, res.SentPerRank[3])
	}
	// Seeking backwards gives the same state as seeking forwards.
	mid := res.Time / 3
	a := res.Snapshot(mid)
	res.Snapshot(res.Time)
	b := res.Snapshot(mid)
	for i := range a.Contrib {
		if a.Contrib[i] != b.Contrib[i] {
			t.Fatalf("Snapshot(%v) differs after seeking away and back", mid)
		}
	}
}

// SnapshotInto, over one Snapshot frame after frame (forwards, back, to
// the end and before the start), holds what Snapshot returns afresh, and
// once its slices are large enough allocates nothing.
func TestSnapshotInto(t *testing.T) {
	for _, algo := range []Algo{Ring, Star} {
		res := run(t, algo, 8, 8<<20, "nvlink4", true)
		var sn Snapshot
		for _, f := range []float64{0.5, 0.1, 0.9, 1, 1.5, 0.3, -0.2, 0.7} {
			at := sim.Time(float64(res.Time) * f)
			res.SnapshotInto(&sn, at)
			want := res.Snapshot(at)
			if !slices.Equal(sn.Contrib, want.Contrib) || !slices.Equal(sn.Packets, want.Packets) || !slices.Equal(sn.Sent, want.Sent) ||
				sn.Time != want.Time || sn.Round != want.Round || sn.Phase != want.Phase || sn.Done != want.Done || sn.Ranks != want.Ranks || sn.Chunks != want.Chunks {
				t.Errorf("%v at %v: SnapshotInto differs from Snapshot", algo, at)
			}
		}
		res.SnapshotInto(&sn, res.Time/2)
		allocs := testing.AllocsPerRun(20, func() { res.SnapshotInto(&sn, res.Time/3) })
		if allocs != 0 {
			t.Errorf("%v: SnapshotInto allocates %.0f times a call, want none", algo, allocs)
		}
	}
}

func TestStarSnapshotsShowTheHotSpot(t *testing.T) {
	const n = 8
	res := run(t, Star, n, 8<<20, "nvlink4", true)
	sn := res.Snapshot(res.Time / 4)
	waiting, toRoot := 0, 0
	for _, p := range sn.Packets {
		if p.Waiting {
			waiting++
		}
		if p.Dst == 0 {
			toRoot++
		}
	}
	if toRoot != len(sn.Packets) || waiting < n {
		t.Errorf("a quarter into the star: %d packets, %d to the root, %d waiting; want all to the root and ≥ %d queued", len(sn.Packets), toRoot, waiting, n)
	}
	if sn.Contrib[0] < 2 {
		t.Errorf("root chunk 0 holds %d ranks' data a quarter in, want ≥ 2", sn.Contrib[0])
	}
	bc, _ := res.Mark("phase:broadcast")
	if got := res.Snapshot(bc).Contrib; got[0] != n || got[n*n-n] != 1 {
		t.Errorf("at broadcast: root chunk 0 = %d (want %d), rank %d chunk 0 = %d (want 1)", got[0], n, n-1, got[n*n-n])
	}
}

func TestMarks(t *testing.T) {
	res := run(t, Ring, 4, 1<<20, "ib-ndr", true)
	prev := sim.Time(-1)
	for _, name := range []string{"start", "phase:reduce-scatter", "round:1", "round:2", "round:last-rs", "phase:all-gather", "round:6", "end"} {
		at, ok := res.Mark(name)
		if !ok {
			t.Fatalf("Mark(%q) not found", name)
		}
		if at < prev {
			t.Errorf("Mark(%q) = %v before the previous mark %v", name, at, prev)
		}
		prev = at
	}
	for _, bad := range []string{"round:0", "round:7", "round:x", "phase:gather", "nope"} {
		if _, ok := res.Mark(bad); ok {
			t.Errorf("Mark(%q) found, want not found", bad)
		}
	}
}

// The ring grown to several nodes: the hop between nodes sets the pace, so
// the time is close to every round waiting for it (the closed form, an
// upper bound: chunks that do not cross a node boundary in a round run
// ahead, so the engine is up to a few percent faster); ≈ 9× one node's.
func TestRingAcrossNodes(t *testing.T) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	for _, c := range []struct{ n, nodes int }{{16, 2}, {32, 4}, {64, 8}} {
		res, err := Run(Config{Op: AllReduce, Algo: Ring, Ranks: c.n, Bytes: 256 << 20, Link: nv, Nodes: c.nodes, Inter: ib})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics()
		if m.TimeS > m.ClosedFormTimeS*(1+1e-9) || m.TimeS < 0.9*m.ClosedFormTimeS {
			t.Errorf("%d GPUs in %d nodes: %g s, closed form (bound) %g s", c.n, c.nodes, m.TimeS, m.ClosedFormTimeS)
		}
		one, _ := Run(Config{Op: AllReduce, Algo: Ring, Ranks: c.n, Bytes: 256 << 20, Link: nv})
		if r := m.TimeS / one.Time.Seconds(); r < 8 || r > 10 {
			t.Errorf("%d nodes: ×%.1f the one-node time, want ≈ 9 (450 against 50 GB/s)", c.nodes, r)
		}
	}
	star, err := Run(Config{Op: AllReduce, Algo: Star, Ranks: 16, Bytes: 1 << 20, Link: nv, Nodes: 2, Inter: ib})
	if err != nil {
		t.Fatal(err)
	}
	if m := star.Metrics(); math.Abs(m.TimeS-m.ClosedFormTimeS)/m.ClosedFormTimeS > 0.01 {
		t.Errorf("star over 2 nodes: %g s, closed form %g s", m.TimeS, m.ClosedFormTimeS)
	}
	if _, err := Run(Config{Op: AllReduce, Algo: Ring, Ranks: 12, Bytes: 1, Link: nv, Nodes: 5, Inter: ib}); err == nil {
		t.Error("12 GPUs in 5 nodes accepted")
	}
}
