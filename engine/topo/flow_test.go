package topo

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/internal/golden"
)

const gb = 1e9

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

func simulate(t testing.TB, top *Topology, flows []Flow) Result {
	t.Helper()
	r, err := Simulate(top, flows)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func singleNode(t testing.TB, gpus int) *Topology {
	t.Helper()
	top, err := SingleNode(gpus, catalog(t, "nvlink4"))
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// Contention on one NVSwitch, worked by hand with B = 450 GB/s and 1 µs of
// latency.
func TestSimulateByHand(t *testing.T) {
	const B, lat = 450e9, 1e-6
	top := singleNode(t, 8)
	tests := []struct {
		name  string
		flows []Flow
		want  []float64 // completion times, seconds
	}{
		{"one flow", []Flow{{0, 1, 9 * gb, 0}}, []float64{lat + 9*gb/B}},
		// Two flows into GPU 2 share its down port: each at B/2.
		{"two into one port", []Flow{{0, 2, 9 * gb, 0}, {1, 2, 9 * gb, 1}},
			[]float64{lat + 18*gb/B, lat + 18*gb/B}},
		// Out of one port, the same.
		{"two out of one port", []Flow{{0, 1, 9 * gb, 0}, {0, 2, 9 * gb, 1}},
			[]float64{lat + 18*gb/B, lat + 18*gb/B}},
		// Disjoint ports: no slowdown.
		{"disjoint", []Flow{{0, 1, 9 * gb, 0}, {2, 3, 9 * gb, 1}, {4, 5, 9 * gb, 2}},
			[]float64{lat + 9*gb/B, lat + 9*gb/B, lat + 9*gb/B}},
		// Event-driven: both at B/2 until the small one finishes at
		// 2·4.5 GB/B, then the big one alone at B for its last 9 GB.
		{"small one finishes first", []Flow{{0, 2, 4.5 * gb, 0}, {1, 2, 13.5 * gb, 1}},
			[]float64{lat + 9*gb/B, lat + 18*gb/B}},
		// Max-min, not equal split: three flows into GPU 3 get B/3 each;
		// 2→1 shares GPU 2's up port with 2→3 and gets the 2B/3 left.
		{"water-filling", []Flow{{0, 3, 9 * gb, 0}, {1, 3, 9 * gb, 1}, {2, 3, 9 * gb, 2}, {2, 1, 9 * gb, 3}},
			[]float64{lat + 27*gb/B, lat + 27*gb/B, lat + 27*gb/B, lat + 9*gb/B/(2.0/3)}},
		// Same path, different sizes: one group, finishing in turn.
		{"same path", []Flow{{0, 1, 3 * gb, 0}, {0, 1, 1 * gb, 1}, {0, 1, 2 * gb, 2}},
			[]float64{lat + 6*gb/B, lat + 3*gb/B, lat + 5*gb/B}},
		{"empty flow pays latency", []Flow{{0, 1, 0, 0}, {1, 0, 0, 1}}, []float64{lat, lat}},
	}
	for _, tc := range tests {
		r := simulate(t, top, tc.flows)
		last := 0.0
		for i, want := range tc.want {
			if !near(r.FlowTimes[i], want, 1e-12) {
				t.Errorf("%s: flow %d completes at %.12g s, want %.12g", tc.name, i, r.FlowTimes[i], want)
			}
			last = max(last, want)
		}
		if !near(r.Time, last, 1e-12) {
			t.Errorf("%s: Time = %.12g, want %.12g", tc.name, r.Time, last)
		}
		if r.MaxUtilization > 1 {
			t.Errorf("%s: MaxUtilization = %v > 1", tc.name, r.MaxUtilization)
		}
	}
}

func TestTwoFlowsTakeTwiceAsLong(t *testing.T) {
	top := fatTree(t, 4, 8, 1)
	lat := top.PathLatency(0, 8, 0).Seconds()
	one := simulate(t, top, []Flow{{0, 8, 1 * gb, 0}})
	// To GPU 0 of two other nodes: both out of GPU 0's NIC.
	two := simulate(t, top, []Flow{{0, 8, 1 * gb, 0}, {0, 16, 1 * gb, 1}})
	if got := (two.Time - lat) / (one.Time - lat); !near(got, 2, 1e-9) {
		t.Errorf("two flows through one NIC: %.6g × the time of one, want 2", got)
	}
	if !near(one.Time-lat, 1*gb/50e9, 1e-12) {
		t.Errorf("one flow over NDR: %v s of transfer, want %v", one.Time-lat, 1*gb/50e9)
	}
	// Different rails, different NICs: no slowdown.
	apart := simulate(t, top, []Flow{{0, 8, 1 * gb, 0}, {1, 9, 1 * gb, 1}})
	if !near(apart.Time, one.Time, 1e-12) {
		t.Errorf("flows on disjoint rails: %v s, want %v", apart.Time, one.Time)
	}
}

// A flow inside a node puts no byte on a NIC or a spine.
func TestIntraNodeNeverTouchesNIC(t *testing.T) {
	top := fatTree(t, 64, 8, 2)
	var flows []Flow
	for n := 0; n < 64; n++ {
		for k := 0; k < 8; k++ {
			flows = append(flows, Flow{n*8 + k, n*8 + (k+3)%8, 1 * gb, uint64(len(flows))})
		}
	}
	r := simulate(t, top, flows)
	for _, l := range top.Links() {
		if l.Kind != KindNVLink && r.LinkBytes[l.ID] != 0 {
			t.Errorf("%s carries %g bytes", l.Name, r.LinkBytes[l.ID])
		}
	}
	if want := 1e-6 + 1*gb/450e9; !near(r.Time, want, 1e-12) {
		t.Errorf("Time = %v, want %v (NVLink speed)", r.Time, want)
	}
}

// ringAcrossNodes is one step of a ring per rail: GPU k of node n sends to
// GPU k of node n+1.
func ringAcrossNodes(top *Topology, bytes float64) []Flow {
	gpn := top.GPUsPerNode()
	flows := make([]Flow, 0, top.GPUs())
	for g := 0; g < top.GPUs(); g++ {
		flows = append(flows, Flow{g, (g + gpn) % top.GPUs(), bytes, uint64(g)})
	}
	return flows
}

// flatRing is one step of the ring 0 → 1 → … → n-1 → 0: NVLink inside
// nodes, PXN from the last GPU of a node to the first of the next.
func flatRing(top *Topology, bytes float64) []Flow {
	n := top.GPUs()
	flows := make([]Flow, n)
	for g := range flows {
		flows[g] = Flow{g, (g + 1) % n, bytes, uint64(g)}
	}
	return flows
}

func TestRingStepRunsAtNICSpeed(t *testing.T) {
	for _, oversub := range []float64{1, 2} {
		top := fatTree(t, 128, 8, oversub) // 4 leaves per rail
		r := simulate(t, top, ringAcrossNodes(top, 1*gb))
		want := 5e-6 + 1*gb/50e9
		if !near(r.Time, want, 1e-12) {
			t.Errorf("%s: ring step %v s, want %v (NIC speed)", top, r.Time, want)
		}
		if r.MaxUtilization > 1 || r.MaxUtilization < 0.999 {
			t.Errorf("%s: MaxUtilization = %v, want ≈ 1", top, r.MaxUtilization)
		}
		for _, l := range top.Links() {
			u := r.LinkBytes[l.ID] / (l.Bandwidth * r.Time)
			switch {
			case l.Kind == KindNIC && !(u > 0.999 && u <= 1):
				t.Errorf("%s: %s utilisation %v, want ≈ 1", top, l.Name, u)
			case l.Kind == KindNVLink && u != 0:
				t.Errorf("%s: %s carries bytes", top, l.Name)
			}
		}
	}
}

// Every GPU of the first leaf of each rail sends to its peer on the second
// leaf and back, in 8 flows (channels) each: all of it crosses the spines.
func crossLeaf(top *Topology, bytes float64) []Flow {
	var flows []Flow
	gpn, half := top.GPUsPerNode(), top.Nodes()/2
	for n := 0; n < top.Nodes(); n++ {
		peer := (n + half) % top.Nodes()
		for k := 0; k < gpn; k++ {
			for ch := 0; ch < 8; ch++ {
				flows = append(flows, Flow{n*gpn + k, peer*gpn + k, bytes / 8, uint64(len(flows))})
			}
		}
	}
	return flows
}

func TestOversubscriptionHalvesCrossLeafBandwidth(t *testing.T) {
	full := fatTree(t, 64, 8, 1)
	half := fatTree(t, 64, 8, 2)
	a := simulate(t, full, crossLeaf(full, 1*gb))
	b := simulate(t, half, crossLeaf(half, 1*gb))
	ratio := (b.Time - 5e-6) / (a.Time - 5e-6)
	if ratio < 1.8 || ratio > 2.2 {
		t.Errorf("cross-leaf traffic: 2:1 takes %.3g × as long as non-blocking (%v s vs %v s), want ≈ 2", ratio, b.Time, a.Time)
	}
	// The non-blocking tree runs near NIC speed, less ECMP collisions: 256
	// flows hashed onto each leaf's 8 uplinks, the busiest spine link
	// carries 50 where 32 would be an even share. The 2:1 tree runs at
	// half that, its spines the busiest links.
	if nic := 1 * gb / 50e9; a.Time > 1.7*nic+5e-6 {
		t.Errorf("non-blocking: %v s, want near %v", a.Time, nic)
	}
	if info, _ := half.Link(b.Busiest); info.Kind != KindLeafSpine || b.MaxUtilization > 1 {
		t.Errorf("2:1: busiest link %s at %v, want a leaf-spine link ≤ 1", info.Name, b.MaxUtilization)
	}
	// Same-leaf traffic does not notice the oversubscription.
	x := simulate(t, full, ringAcrossNodes(full, 1*gb))
	y := simulate(t, half, ringAcrossNodes(half, 1*gb))
	if x.Time != y.Time {
		t.Errorf("ring step: %v s non-blocking, %v s at 2:1", x.Time, y.Time)
	}
}

// LinkBytes holds each flow's bytes once per hop of its path.
func TestBytesAreConserved(t *testing.T) {
	top := fatTree(t, 70, 4, 2)
	flows := randomFlows(sim.NewRNG(7), top, 500)
	r := simulate(t, top, flows)
	var sum, want float64
	for _, b := range r.LinkBytes {
		sum += b
	}
	for _, f := range flows {
		want += f.Bytes * float64(len(top.Path(f.Src, f.Dst, f.ID)))
	}
	if !near(sum, want, 1e-12) {
		t.Errorf("sum of LinkBytes = %g, want Σ bytes × hops = %g", sum, want)
	}
	for i, f := range flows[:40] {
		one := simulate(t, top, []Flow{f})
		path := top.Path(f.Src, f.Dst, f.ID)
		on := map[LinkID]bool{}
		for _, l := range path {
			on[l] = true
		}
		for l, b := range one.LinkBytes {
			if want := map[bool]float64{true: f.Bytes, false: 0}[on[LinkID(l)]]; b != want {
				t.Errorf("flow %d alone: link %d carries %g bytes, want %g", i, l, b, want)
			}
		}
	}
}

func randomFlows(rng *sim.RNG, top *Topology, n int) []Flow {
	flows := make([]Flow, 0, n)
	for len(flows) < n {
		src, dst := rng.Intn(top.GPUs()), rng.Intn(top.GPUs())
		if src == dst {
			continue
		}
		bytes := float64(rng.Intn(1<<30)) + 1
		if rng.Intn(10) == 0 {
			bytes = 0
		}
		flows = append(flows, Flow{src, dst, bytes, rng.Uint64()})
	}
	return flows
}

// Properties of any run: no link carries more than its bandwidth allows in
// the time taken; no flow beats its slowest link; flows that wait on no one
// do not wait at all.
func TestUtilizationNeverExceedsOne(t *testing.T) {
	rng := sim.NewRNG(2024)
	pcie := hw.Link{ID: "pcie5", Bandwidth: 64e9, Latency: 2 * sim.Microsecond}
	var tops []*Topology
	for _, c := range []FatTreeConfig{
		{Nodes: 9, GPUsPerNode: 4, Oversubscription: 3, NodesPerLeaf: 2, Uplinks: 3},
		{Nodes: 40, GPUsPerNode: 2, Oversubscription: 1, NodesPerLeaf: 32, Uplinks: 8},
		{Nodes: 6, GPUsPerNode: 8, Oversubscription: 1.5, NodesPerLeaf: 4, Uplinks: 1},
	} {
		c.Intra, c.Inter = catalog(t, "nvlink3"), catalog(t, "ib-hdr")
		top, err := NewFatTree(c)
		if err != nil {
			t.Fatal(err)
		}
		tops = append(tops, top)
	}
	pc, _ := PCIeNode(6, pcie)
	tops = append(tops, singleNode(t, 5), pc)
	for _, top := range tops {
		for trial := 0; trial < 30; trial++ {
			flows := randomFlows(rng, top, 1+rng.Intn(200))
			r := simulate(t, top, flows)
			if r.MaxUtilization > 1 || r.MaxUtilization <= 0 {
				t.Fatalf("%s trial %d: MaxUtilization = %v", top, trial, r.MaxUtilization)
			}
			for _, l := range top.Links() {
				if r.LinkBytes[l.ID] > l.Bandwidth*r.Time*(1+1e-9) {
					t.Fatalf("%s trial %d: %s carried %g bytes in %v s at %g B/s", top, trial, l.Name, r.LinkBytes[l.ID], r.Time, l.Bandwidth)
				}
			}
			for i, f := range flows {
				lat := top.PathLatency(f.Src, f.Dst, f.ID).Seconds()
				slowest := math.Inf(1)
				for _, id := range top.Path(f.Src, f.Dst, f.ID) {
					info, _ := top.Link(id)
					slowest = min(slowest, info.Bandwidth)
				}
				if fastest := lat + f.Bytes/slowest; r.FlowTimes[i] < fastest*(1-1e-9) {
					t.Fatalf("%s trial %d: flow %d done at %v s, faster than its slowest link allows (%v s)", top, trial, i, r.FlowTimes[i], fastest)
				}
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	top := fatTree(t, 96, 8, 2)
	flows := append(crossLeaf(top, 3*gb), randomFlows(sim.NewRNG(1), top, 600)...)
	a := simulate(t, top, flows)
	b := simulate(t, top, flows)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of the same flows differ")
	}
	for i := range flows {
		if p, q := top.Path(flows[i].Src, flows[i].Dst, flows[i].ID), top.Path(flows[i].Src, flows[i].Dst, flows[i].ID); !reflect.DeepEqual(p, q) {
			t.Fatalf("flow %d: path %v then %v", i, p, q)
		}
	}
}

// The same runs give the same bits natively and in WebAssembly: their
// fingerprints are in testdata/hashes.golden (go test -update rewrites it).
func TestResultHashesAreStable(t *testing.T) {
	var b strings.Builder
	add := func(name string, r Result) {
		h := sim.NewHash()
		for _, v := range [][]float64{{r.Time, r.MaxUtilization}, r.FlowTimes, r.LinkBytes} {
			for _, x := range v {
				h = h.Int64(int64(math.Float64bits(x)))
			}
		}
		fmt.Fprintf(&b, "%s time=%.9g util=%.9g busiest=%d events=%d hash=%016x\n", name, r.Time, r.MaxUtilization, r.Busiest, r.Events, uint64(h))
	}
	top := fatTree(t, 96, 8, 2)
	add("cross-leaf 96x8 2:1", simulate(t, top, crossLeaf(top, 3*gb)))
	add("random 96x8 2:1", simulate(t, top, randomFlows(sim.NewRNG(1), top, 800)))
	add("flat ring 96x8 2:1", simulate(t, top, flatRing(top, 1e8)))
	small, _ := NewFatTree(FatTreeConfig{Nodes: 9, GPUsPerNode: 4, Intra: catalog(t, "nvlink3"), Inter: catalog(t, "ib-hdr"),
		Oversubscription: 3, NodesPerLeaf: 2, Uplinks: 3})
	add("random 9x4 3:1", simulate(t, small, randomFlows(sim.NewRNG(5), small, 400)))
	r, err := SimulateWith(top, randomFlows(sim.NewRNG(1), top, 800), Options{Resolution: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	add("random 96x8 2:1 res 1%", r)
	golden.Check(t, "hashes.golden", b.String())
}

func TestSteps(t *testing.T) {
	top := singleNode(t, 8)
	ring := flatRing(top, 1*gb)
	one := simulate(t, top, ring)
	// The same step rotated (other chunk, other flow ids): a cache hit.
	rotated := make([]Flow, len(ring))
	for i := range ring {
		f := ring[(i+3)%len(ring)]
		f.ID += 100
		rotated[i] = f
	}
	bigger := flatRing(top, 2*gb)
	r, err := Steps(top, []RepeatedStep{{ring, 7}, {rotated, 7}, {bigger, 1}, {nil, 3}, {ring, 0}})
	if err != nil {
		t.Fatal(err)
	}
	two := simulate(t, top, bigger)
	if want := 14*one.Time + two.Time; !near(r.Time, want, 1e-12) {
		t.Errorf("Steps Time = %v, want %v", r.Time, want)
	}
	if r.Simulated != 3 { // ring, bigger, the empty step
		t.Errorf("Simulated = %d, want 3", r.Simulated)
	}
	if want := []float64{one.Time, one.Time, two.Time, 0, one.Time}; !reflect.DeepEqual(r.StepTimes, want) {
		t.Errorf("StepTimes = %v, want %v", r.StepTimes, want)
	}
	for l, b := range r.LinkBytes {
		if want := 14*one.LinkBytes[l] + two.LinkBytes[l]; !near(b, want, 1e-12) {
			t.Errorf("link %d: %g bytes, want %g", l, b, want)
		}
	}
	if r.MaxUtilization > 1 || r.MaxUtilization < 0.99 {
		t.Errorf("MaxUtilization = %v, want ≈ 1 (every port busy in every step)", r.MaxUtilization)
	}

	// On a fat tree, flow ids that pick other spines make another step.
	ft := fatTree(t, 64, 1, 1)
	cross := crossLeaf(ft, 1*gb)
	moved := make([]Flow, len(cross))
	for i, f := range cross {
		f.ID += 1 << 40
		moved[i] = f
	}
	r, err = Steps(ft, []RepeatedStep{{cross, 1}, {cross, 1}, {moved, 1}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := simulate(t, ft, cross), simulate(t, ft, moved)
	if r.Simulated != 2 || !near(r.Time, 2*a.Time+b.Time, 1e-12) {
		t.Errorf("Steps: Simulated %d, Time %v; want 2, %v", r.Simulated, r.Time, 2*a.Time+b.Time)
	}
}

func TestBadFlows(t *testing.T) {
	top := fatTree(t, 2, 4, 1)
	tests := []struct {
		name  string
		flows []Flow
		field string
	}{
		{"negative bytes", []Flow{{0, 1, 1, 0}, {0, 1, -1, 1}}, "flows[1].bytes"},
		{"NaN bytes", []Flow{{0, 1, math.NaN(), 0}}, "flows[0].bytes"},
		{"infinite bytes", []Flow{{0, 1, math.Inf(1), 0}}, "flows[0].bytes"},
		{"src == dst", []Flow{{3, 3, 1, 0}}, "flows[0].dst"},
		{"unknown src", []Flow{{8, 3, 1, 0}}, "flows[0].src"},
		{"negative src", []Flow{{-1, 3, 1, 0}}, "flows[0].src"},
		{"unknown dst", []Flow{{0, 1, 1, 0}, {0, 1, 1, 1}, {1, 99, 1, 2}}, "flows[2].dst"},
	}
	for _, tc := range tests {
		_, err := Simulate(top, tc.flows)
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("%s: Simulate error %v, want one for field %q", tc.name, err, tc.field)
		} else if !strings.HasPrefix(err.Error(), tc.field+": ") {
			t.Errorf("%s: message %q should start with the field", tc.name, err)
		}
		_, err = Steps(top, []RepeatedStep{{[]Flow{{0, 1, 1, 0}}, 2}, {tc.flows, 1}})
		if !errors.As(err, &e) || e.Field != "steps[1]."+tc.field {
			t.Errorf("%s: Steps error %v, want one for field %q", tc.name, err, "steps[1]."+tc.field)
		}
	}
	_, err := Steps(top, []RepeatedStep{{nil, -1}})
	var e *Error
	if !errors.As(err, &e) || e.Field != "steps[0].times" {
		t.Errorf("Steps with times -1: %v, want an error for steps[0].times", err)
	}
	if _, err := Simulate(nil, nil); !errors.As(err, &e) || e.Field != "topology" {
		t.Errorf("Simulate(nil): %v", err)
	}
	if _, err := Steps(nil, nil); !errors.As(err, &e) || e.Field != "topology" {
		t.Errorf("Steps(nil): %v", err)
	}
	r, err := Simulate(top, nil)
	if err != nil || r.Time != 0 || r.MaxUtilization != 0 || r.Busiest != -1 || len(r.LinkBytes) != top.NumLinks() {
		t.Errorf("Simulate with no flows = %+v, %v", r, err)
	}
}

// Resolution re-shares less often at a small cost in accuracy: uneven
// all-to-all among 64 GPUs.
func TestResolution(t *testing.T) {
	top := fatTree(t, 8, 8, 2)
	rng := sim.NewRNG(9)
	var flows []Flow
	for s := 0; s < top.GPUs(); s++ {
		for d := 0; d < top.GPUs(); d++ {
			if s != d {
				flows = append(flows, Flow{s, d, float64(1 + rng.Intn(1<<24)), uint64(len(flows))})
			}
		}
	}
	exact := simulate(t, top, flows)
	for _, res := range []float64{0.001, 0.01, 0.05} {
		r, err := SimulateWith(top, flows, Options{Resolution: res})
		if err != nil {
			t.Fatal(err)
		}
		if r.Events*2 > exact.Events || res >= 0.01 && r.Events*8 > exact.Events {
			t.Errorf("resolution %v: %d re-shares, exact %d; want far fewer", res, r.Events, exact.Events)
		}
		if r.MaxUtilization > 1 {
			t.Errorf("resolution %v: MaxUtilization %v", res, r.MaxUtilization)
		}
		if r.Time < exact.Time*(1-1e-9) || r.Time > exact.Time*(1+2*res) {
			t.Errorf("resolution %v: Time %v, exact %v; want within %v late", res, r.Time, exact.Time, 2*res)
		}
		if !reflect.DeepEqual(r.LinkBytes, exact.LinkBytes) {
			t.Errorf("resolution %v: LinkBytes differ", res)
		}
		worst := 0.0
		for i := range flows {
			worst = max(worst, math.Abs(r.FlowTimes[i]/exact.FlowTimes[i]-1))
		}
		if worst > 4*res {
			t.Errorf("resolution %v: a flow's time is off by %.3g%%, want within %v%%", res, 100*worst, 400*res)
		}
		t.Logf("resolution %v: %d re-shares (exact %d), Time %+.3g%%, worst flow %.3g%%", res, r.Events, exact.Events, 100*(r.Time/exact.Time-1), 100*worst)
	}
	for _, bad := range []float64{-0.1, 2, math.NaN()} {
		var e *Error
		if _, err := SimulateWith(top, flows[:1], Options{Resolution: bad}); !errors.As(err, &e) || e.Field != "resolution" {
			t.Errorf("Resolution %v: %v, want an error for resolution", bad, err)
		}
		if _, err := StepsWith(top, nil, Options{Resolution: bad}); !errors.As(err, &e) || e.Field != "resolution" {
			t.Errorf("StepsWith Resolution %v: %v, want an error for resolution", bad, err)
		}
	}
}
