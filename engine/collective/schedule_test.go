package collective

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// Every pairing ClosedForm costs, laid out as legs, adds up to the form:
// its rounds' latency, bandwidth and bytes, and the last leg ends at
// Form.Seconds; LegAt finds each leg's rounds at their middles.
func TestScheduleAddsUpToClosedForm(t *testing.T) {
	intra, _ := hw.LinkByID("nvlink4")
	inter, _ := hw.LinkByID("ib-ndr")
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-15 }
	cases := 0
	for _, op := range Ops {
		for _, algo := range Algos {
			for _, n := range []int{2, 5, 8, 64, 1024, 16384} {
				for _, k := range []int{1, 8, 72} {
					for _, bytes := range []float64{1e3, 65536, 4e9} {
						legs, f, err := Schedule(op, algo, n, k, bytes, intra, inter)
						if _, cerr := ClosedForm(op, algo, n, k, bytes, intra, inter); (err == nil) != (cerr == nil) {
							t.Fatalf("%s %s n=%d k=%d: schedule %v, closed form %v", op, algo, n, k, err, cerr)
						}
						if err != nil {
							continue
						}
						cases++
						var lat, bw, sent float64
						for i, l := range legs {
							R := float64(l.Rounds)
							lat, bw, sent = lat+R*l.Latency, bw+R*l.Bandwidth, sent+R*l.Bytes
							if i > 0 && l.Start != legs[i-1].End {
								t.Errorf("%s %s n=%d k=%d: leg %d starts at %g, the last ended at %g", op, algo, n, k, i, l.Start, legs[i-1].End)
							}
							for _, r := range []int{1, l.Rounds} {
								mid := l.Start + (float64(r)-0.5)*l.Round()
								if gl, gr := LegAt(legs, mid); l.Round() > 0 && (gl != i || gr != r) {
									t.Errorf("%s %s n=%d k=%d: LegAt(%g) = %d, %d; want %d, %d", op, algo, n, k, mid, gl, gr, i, r)
								}
							}
						}
						end := legs[len(legs)-1].End
						if !near(end, f.Seconds) || !near(lat, f.Latency) || !near(bw, f.Bandwidth) || !near(sent, f.SentPerRank) {
							t.Errorf("%s %s n=%d k=%d S=%g: legs end %g (α %g, β %g, sent %g); form %+v", op, algo, n, k, bytes, end, lat, bw, sent, f)
						}
						if gl, _ := LegAt(legs, end); gl != len(legs) {
							t.Errorf("%s %s n=%d k=%d: at the end, leg %d", op, algo, n, k, gl)
						}
					}
				}
			}
		}
	}
	if cases < 300 {
		t.Errorf("only %d pairings laid out", cases)
	}
	if l, _ := LegAt(nil, 0); l != -1 {
		t.Errorf("LegAt(nil) = %d", l)
	}
}

// The shapes the zoom draws: a ring all-reduce of 1024 ranks is 1023
// rounds of S/1024 reduce-scatter then all-gather, all on the NIC;
// hierarchical over nodes of 8 is a ring in each node, two legs across
// and a ring in each node again; a tree's pipelined steps are its
// 2·⌈log2 n⌉ latencies round one stream.
func TestScheduleShapes(t *testing.T) {
	intra, _ := hw.LinkByID("nvlink4")
	inter, _ := hw.LinkByID("ib-ndr")
	legs, _, _ := Schedule(AllReduce, Ring, 1024, 1, 4e9, intra, inter)
	if len(legs) != 2 || legs[0].Kind != LegReduceScatter || legs[0].Rounds != 1023 || legs[0].Bytes != 4e9/1024 || !legs[0].Across || legs[1].Kind != LegAllGather {
		t.Errorf("ring: %+v", legs)
	}
	legs, _, _ = Schedule(AllReduce, Hierarchical, 16384, 8, 1e9, intra, inter)
	if len(legs) != 4 || !legs[0].Node || legs[0].Across || legs[0].Rounds != 7 || !legs[1].Across || legs[1].Rounds != 2047 || legs[1].Bytes != 1e9/8/2048 || !legs[3].Node || legs[3].Kind != LegAllGather {
		t.Errorf("hierarchical: %+v", legs)
	}
	legs, _, _ = Schedule(AllReduce, Tree, 1024, 1, 65536, intra, inter)
	if len(legs) != 3 || legs[0].Rounds != 10 || legs[0].Latency != inter.Latency.Seconds() || legs[1].Kind != LegTreeStream || legs[2].Rounds != 10 {
		t.Errorf("tree: %+v", legs)
	}
	// At 64 KB the tree's latency dwarfs its stream: the lesson's point.
	if legs[1].Bandwidth > float64(legs[0].Rounds)*legs[0].Latency {
		t.Errorf("64 KB tree: stream %g s against %g s of latency", legs[1].Bandwidth, 10*legs[0].Latency)
	}
}

// TreeParent is the double binary tree the flow runs use.
func TestTreeParent(t *testing.T) {
	for _, n := range []int{2, 7, 8, 1024} {
		trees := doubleBinaryTree(n)
		for r := range n {
			if TreeParent(n, r, false) != int(trees[0][r]) || TreeParent(n, r, true) != int(trees[1][r]) {
				t.Fatalf("n=%d r=%d: %d %d, want %v %v", n, r, TreeParent(n, r, false), TreeParent(n, r, true), trees[0][r], trees[1][r])
			}
		}
	}
	if TreeParent(8, 8, false) != -1 {
		t.Errorf("a rank outside has a parent")
	}
}
