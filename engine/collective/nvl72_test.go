package collective

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
)

// An all-reduce of 1 GiB over 72 GPUs: one GB200 NVL72 rack against nine
// 8-GPU H100 nodes on InfiniBand NDR. Worked by hand (α-β, links at their
// protocol efficiency: NVLink 5 900 GB/s × 0.82 = 738 GB/s, NVLink 4 450 ×
// 0.82 = 369, NDR 50 × 0.9 = 45, each way):
//
//	NVL72 ring:        2·71·(1 µs + S/(72·738 GB/s))          = 3.011 ms
//	H100 hierarchical: 2·7·(1 µs + S/(8·369 GB/s))            = 5.106 ms
//	                 + 2·8·(5 µs + (S/8)/(9·45 GB/s))          = 5.382 ms
//	H100 ring:         2·71·(5 µs + S/(72·45 GB/s))           = 47.77 ms
//
// so the rack is 3.48× faster than NCCL's best on the H100 nodes, 15.9×
// faster than a flat ring there.
func TestNVL72AllReduce(t *testing.T) {
	S := float64(1 << 30)
	nv5, _ := hw.LinkByID("nvlink5")
	nv4, _ := hw.LinkByID("nvlink4")
	ndr, _ := hw.LinkByID("ib-ndr")
	rack := 2 * 71 * (1e-6 + S/(72*738e9))
	hier := 2*7*(1e-6+S/(8*369e9)) + 2*8*(5e-6+S/8/(9*45e9))
	flat := 2 * 71 * (5e-6 + S/(72*45e9))

	f, err := ClosedForm(AllReduce, Ring, 72, topo.NVL72GPUs, S, nv5, ndr)
	if err != nil || math.Abs(f.Seconds-rack) > 1e-9*rack {
		t.Errorf("NVL72 ring = %g s (%v), want %g", f.Seconds, err, rack)
	}
	h, _ := ClosedForm(AllReduce, Hierarchical, 72, 8, S, nv4, ndr)
	if math.Abs(h.Seconds-hier) > 1e-9*hier {
		t.Errorf("H100 hierarchical = %g s, want %g", h.Seconds, hier)
	}
	r, _ := ClosedForm(AllReduce, Ring, 72, 8, S, nv4, ndr)
	if math.Abs(r.Seconds-flat) > 1e-9*flat {
		t.Errorf("H100 ring = %g s, want %g", r.Seconds, flat)
	}
	if got := h.Seconds / f.Seconds; math.Abs(got-3.48) > 0.01 {
		t.Errorf("H100 hierarchical / NVL72 = %.3f×, want 3.48×", got)
	}
	if got := r.Seconds / f.Seconds; math.Abs(got-15.9) > 0.05 {
		t.Errorf("H100 ring / NVL72 = %.2f×, want 15.9×", got)
	}

	// On the topology the rack's ring meets no contention (each port
	// carries one flow a direction), so the flows agree with the form.
	tp, err := FabricTopology("nvl72", 72, 0, nv5, ndr, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Nodes() != 1 || tp.GPUsPerNode() != 72 {
		t.Fatalf("nvl72 of 72 ranks: %d nodes of %d, want 1 of 72", tp.Nodes(), tp.GPUsPerNode())
	}
	run, err := RunOnFabric(tp, AllReduce, Ring, 72, S)
	if err != nil || math.Abs(run.Seconds-rack) > 1e-6*rack {
		t.Errorf("NVL72 ring on the fabric = %g s (%v), want %g", run.Seconds, err, rack)
	}
	// Two racks: NVLink inside, one NIC a GPU between.
	tp2, err := FabricTopology("nvl72", 144, 0, nv5, ndr, 1)
	if err != nil || tp2.Nodes() != 2 || tp2.Node(71) != 0 || tp2.Node(72) != 1 {
		t.Fatalf("nvl72 of 144 ranks: %v, %v", tp2, err)
	}
	if got := tp2.PathLatency(0, 71, 0); got != nv5.Latency {
		t.Errorf("rack-local latency %v, want NVLink's %v", got, nv5.Latency)
	}
	if got := tp2.PathLatency(0, 72, 0); got != ndr.Latency {
		t.Errorf("rack-to-rack latency (same rail) %v, want the NIC's %v", got, ndr.Latency)
	}
}
