package topo_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
)

// A flow to another node on another rail goes over NVLink to the GPU on
// the destination's rail first (PXN), then through that GPU's NIC.
func ExampleTopology_Path() {
	nvlink, _ := hw.LinkByID("nvlink4")
	ndr, _ := hw.LinkByID("ib-ndr")
	t, _ := topo.FatTree(64, 8, nvlink, ndr, 2)
	fmt.Println(t)
	for _, id := range t.Path(3*8+1, 40*8+6, 7) {
		l, _ := t.Link(id)
		fmt.Printf("%-10s %-17s %3.0f GB/s\n", l.Kind, l.Name, l.Bandwidth/1e9)
	}
	fmt.Println("latency", t.PathLatency(3*8+1, 40*8+6, 7))
	// Output:
	// fat tree 64×8, 2 leaves/rail, 8 spines, 2:1
	// nvlink     n3.g1>nvs3        450 GB/s
	// nvlink     nvs3>n3.g6        450 GB/s
	// nic        n3.nic6>leaf6.0    50 GB/s
	// leaf-spine leaf6.0>spine7    100 GB/s
	// leaf-spine spine7>leaf6.1    100 GB/s
	// nic        leaf6.1>n40.nic6   50 GB/s
	// latency 6 µs
}

// Eight GPUs send 1 GB each to the same GPU: its NVLink port is the
// bottleneck, shared eight ways.
func ExampleSimulate() {
	nvlink, _ := hw.LinkByID("nvlink4")
	t, _ := topo.SingleNode(9, nvlink)
	var flows []topo.Flow
	for g := 1; g < 9; g++ {
		flows = append(flows, topo.Flow{Src: g, Dst: 0, Bytes: 1e9, ID: uint64(g)})
	}
	r, _ := topo.Simulate(t, flows)
	busiest, _ := t.Link(r.Busiest)
	fmt.Printf("%.2f ms, busiest %s at %.4f\n", r.Time*1e3, busiest.Name, r.MaxUtilization)
	// Output:
	// 17.78 ms, busiest nvs0>n0.g0 at 0.9999
}

// A ring all-reduce of 1 GB over the 8 GPUs of a node: 2(n−1) identical
// steps in which every GPU sends 1/n of the vector to the next.
func ExampleSteps() {
	nvlink, _ := hw.LinkByID("nvlink4")
	t, _ := topo.SingleNode(8, nvlink)
	const n, size = 8, 1e9
	var step []topo.Flow
	for g := 0; g < n; g++ {
		step = append(step, topo.Flow{Src: g, Dst: (g + 1) % n, Bytes: size / n, ID: uint64(g)})
	}
	r, _ := topo.Steps(t, []topo.RepeatedStep{{Flows: step, Times: 2 * (n - 1)}})
	fmt.Printf("%.3f ms in %d steps (%d simulated), bus bandwidth %.0f GB/s\n",
		r.Time*1e3, 2*(n-1), r.Simulated, 2*(n-1)/float64(n)*size/r.Time/1e9)
	// Output:
	// 3.903 ms in 14 steps (1 simulated), bus bandwidth 448 GB/s
}
