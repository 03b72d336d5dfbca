package topo

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Budget: one step of a ring all-reduce over 16,384 GPUs (2,048 nodes × 8
// H100, NDR, 2:1 fat tree) — 16,384 flows — well under 100 ms natively.
// "rail" sends GPU k of node n to GPU k of node n+1 (one NIC hop per
// flow); "flat" is the ring 0 → 1 → … (NVLink inside nodes, PXN between
// them).
func BenchmarkRingStep16384(b *testing.B) {
	top := fatTree(b, 2048, 8, 2)
	for _, tc := range []struct {
		name  string
		flows []Flow
	}{
		{"rail", ringAcrossNodes(top, 64<<20)},
		{"flat", flatRing(top, 64<<20)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Simulate(top, tc.flows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The same ring as 2(n−1) identical steps: one simulation, the rest cached.
func BenchmarkRingAllReduceSteps16384(b *testing.B) {
	top := fatTree(b, 2048, 8, 2)
	steps := []RepeatedStep{{ringAcrossNodes(top, 64<<20), 2 * (top.GPUs() - 1)}}
	for b.Loop() {
		if _, err := Steps(top, steps); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFatTree16384(b *testing.B) {
	nv, ib := catalog(b, "nvlink4"), catalog(b, "ib-ndr")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FatTree(2048, 8, nv, ib, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// All-to-all among 64 GPUs (4,032 flows): equal sizes finish together;
// uneven sizes (an MoE layer's token imbalance) finish one by one, so the
// exact run re-shares 4,032 times; Resolution 1% cuts that to a few
// hundred.
func BenchmarkAllToAll64(b *testing.B) {
	top := fatTree(b, 8, 8, 2)
	rng := sim.NewRNG(3)
	var even, uneven []Flow
	for s := 0; s < top.GPUs(); s++ {
		for d := 0; d < top.GPUs(); d++ {
			if s != d {
				id := uint64(len(even))
				even = append(even, Flow{s, d, 1 << 20, id})
				uneven = append(uneven, Flow{s, d, float64(1 + rng.Intn(2<<20)), id})
			}
		}
	}
	for _, tc := range []struct {
		name  string
		flows []Flow
		o     Options
	}{
		{"even", even, Options{}},
		{"uneven-res1%", uneven, Options{Resolution: 0.01}},
		{"uneven-exact", uneven, Options{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := SimulateWith(top, tc.flows, tc.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
