package collective

import (
	"testing"
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
