package collective

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// Budget (issue 2): a ring all-reduce over 1,024 ranks — 1,024 chunks per
// vector, 2,095,104 chunk transfers — simulated natively in ≤ 1 s.
func BenchmarkRing1024(b *testing.B) {
	for _, record := range []bool{false, true} {
		name := "totals"
		if record {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			cfg := Config{Op: AllReduce, Algo: Ring, Ranks: 1024, Bytes: 1 << 30, Link: link(b, "nvlink4"), Record: record}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := Run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(res.SentPerRank)*res.Rounds), "transfers/op")
			}
		})
	}
}

// Issue 36: the packet engine's most ranks, 33,546,240 transfers, each
// hashed in order of arrival — on one switch, in closed form, and over 2
// nodes (and chunks of two sizes), event by event. The CLI's budget is
// 2 s of CPU a command.
func BenchmarkRing4096(b *testing.B) {
	for _, c := range []struct {
		name  string
		nodes int
		bytes int64
	}{{"one-switch", 0, 256 << 20}, {"2-nodes", 2, 1_000_003}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{Op: AllReduce, Algo: Ring, Ranks: MaxRanks, Bytes: c.bytes, Link: link(b, "nvlink4"), Nodes: c.nodes, Inter: link(b, "ib-ndr")}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*MaxRanks*(MaxRanks-1)), "transfers/op")
		})
	}
}

// The lesson's largest configuration, recorded, as the page re-runs it on
// every knob change.
func BenchmarkRing64Recorded(b *testing.B) {
	cfg := Config{Op: AllReduce, Algo: Ring, Ranks: 64, Bytes: 4 << 30, Link: link(b, "nvlink4"), Record: true}
	for i := 0; i < b.N; i++ {
		if _, err := Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot64(b *testing.B) {
	res, _ := Run(Config{Op: AllReduce, Algo: Ring, Ranks: 64, Bytes: 4 << 30, Link: link(b, "nvlink4"), Record: true})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res.Snapshot(res.Time * 7 / 13)
	}
}

// A double binary tree all-reduce of 1 GB across 16,384 GPUs (2,048 nodes
// of 8 on a 2:1 fat tree) as flows: 65,532 flows in one pipelined step.
func BenchmarkTreeAllReduce16384Fabric(b *testing.B) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	tp, err := FabricTopology("fat-tree", 16384, 8, nv, ib, 2)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunOnFabric(tp, AllReduce, Tree, 16384, 1e9); err != nil {
			b.Fatal(err)
		}
	}
}
