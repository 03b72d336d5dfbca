package collective

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// The star's schedule is the event queue's, transfer for transfer: the
// same times, bytes, rounds, hash and (recorded) trace, on one link and
// over nodes whose latencies let one link's transfers overtake the
// other's, with chunks of 0 bytes (fewer bytes than ranks) among them.
func TestStarMatchesEventQueue(t *testing.T) {
	nv, ib := link(t, "nvlink4"), link(t, "ib-ndr")
	slow := nv
	slow.Latency, slow.Bandwidth = 40*sim.Microsecond, nv.Bandwidth/3
	type tc struct {
		n, nodes int
		bytes    int64
		link     string
	}
	var cases []tc
	for _, n := range []int{2, 3, 4, 8, 12, 24} {
		for _, bytes := range []int64{1, 5, 1000, 1_000_003, 256 << 20} {
			for _, nodes := range []int{0, 2, n / 2, n} {
				if nodes > 1 && n%nodes != 0 {
					continue
				}
				cases = append(cases, tc{n, nodes, bytes, "nvlink4"}, tc{n, nodes, bytes, "slow"})
			}
		}
	}
	for _, c := range cases {
		for _, record := range []bool{false, true} {
			cfg := Config{Op: AllReduce, Algo: Star, Ranks: c.n, Bytes: c.bytes, Link: nv, Nodes: c.nodes, Inter: ib, Record: record}
			if c.link == "slow" {
				cfg.Link = slow // slower and later than the network: the nodes' transfers overtake
			}
			got, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := runByEvents(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Time != want.Time || got.Hash != want.Hash || got.Rounds != want.Rounds ||
				!reflect.DeepEqual(got.SentPerRank, want.SentPerRank) || !reflect.DeepEqual(got.RoundStart, want.RoundStart) {
				t.Errorf("%+v record=%v: time %v hash %x rounds %v sent %v starts %v; the event queue's %v %x %v %v %v", c, record,
					got.Time, uint64(got.Hash), got.Rounds, got.SentPerRank, got.RoundStart,
					want.Time, uint64(want.Hash), want.Rounds, want.SentPerRank, want.RoundStart)
				continue
			}
			if record && !reflect.DeepEqual(got.Trace.Events(), want.Trace.Events()) {
				t.Errorf("%+v: the recorded transfers differ from the event queue's", c)
			}
			if record && !reflect.DeepEqual(got.Snapshot(got.Time/3), want.Snapshot(want.Time/3)) {
				t.Errorf("%+v: the snapshot a third of the way differs from the event queue's", c)
			}
		}
	}
}

// The star without a trace keeps O(n) memory however many chunks it
// moves (issue 36: 4,096 ranks took 4.6 GB and 29 s through the event
// queue, 2,048 ranks 5.5 s — n(n−1) transfers a phase held at once). Its
// time is n² simple steps, timed here by what it allocates instead of
// the clock.
func TestStarMemoryLinear(t *testing.T) {
	for _, c := range []struct{ n, nodes int }{{512, 0}, {512, 64}, {MaxRanks, 0}} {
		cfg := Config{Op: AllReduce, Algo: Star, Ranks: c.n, Bytes: 1 << 30, Link: link(t, "nvlink4"), Nodes: c.nodes, Inter: link(t, "ib-ndr")}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(cfg)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		// The result's per-rank slices and the root's chunk counts: a few
		// dozen bytes a rank.
		budget := uint64(64*c.n + 64<<10)
		if got := after.TotalAlloc - before.TotalAlloc; got > budget {
			t.Fatalf("star on %d ranks (%d nodes): %d bytes allocated, budget %d (O(n))", c.n, c.nodes, got, budget)
		}
		if want := int64(c.n-1) << 30; res.SentPerRank[0] != want {
			t.Errorf("star on %d ranks: the root sent %d, want %d", c.n, res.SentPerRank[0], want)
		}
	}
}
