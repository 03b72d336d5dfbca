package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// One element is faster on a CPU core (3.5 GHz against 1.98), the whole
// product far faster on the GPU: 2n³ over 7.17 TFLOP/s against 66.9 (CUDA
// cores) and 989.4 (tensor cores).
func TestCPUvsGPU(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	r, err := CompareCPUGPU(4096, hw.ServerCPU, g)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.CPUElementS-4096/3.5e9) > 1e-15 || math.Abs(r.GPUElementS-4096/1.98e9) > 1e-15 || r.CPUElementS >= r.GPUElementS {
		t.Errorf("per element: CPU %g s, GPU %g s; want the CPU faster", r.CPUElementS, r.GPUElementS)
	}
	flops := 2 * math.Pow(4096, 3)
	if math.Abs(r.CPUTotalS-flops/(64*3.5e9*32)) > 1e-12 || math.Abs(r.GPUTotalS/(flops/66.9e12)-1) > 1e-3 {
		t.Errorf("totals: CPU %g, GPU %g", r.CPUTotalS, r.GPUTotalS)
	}
	if ratio := r.CPUTotalS / r.GPUTotalS; ratio < 9 || ratio > 10 {
		t.Errorf("the GPU's CUDA cores beat the CPU ×%.1f, want ≈ 9.3", ratio)
	}
	// One number, one clock: the whole product is ⌈n² ÷ workers⌉ rounds
	// of one element each. CPU: 4096² ÷ 1,024 lanes × 1.17 µs = 19.2 ms;
	// GPU: ⌈4096² ÷ 16,896⌉ = 993 × 2.069 µs = 2.054 ms (the 66.9 TFLOP/s
	// peak).
	if got := 4096.0 * 4096 / float64(r.ElementsAtOnceCPU) * r.CPUElementS; math.Abs(got/r.CPUTotalS-1) > 1e-9 {
		t.Errorf("CPU rounds × element time = %g s, total %g s", got, r.CPUTotalS)
	}
	if got := 993 * r.GPUElementS; math.Abs(got/r.GPUTotalS-1) > 1e-9 {
		t.Errorf("GPU rounds × element time = %g s, total %g s", got, r.GPUTotalS)
	}
	// A product smaller than the workers still takes one element's time:
	// 64² = 4,096 elements on 16,896 CUDA cores, one round of 32.3 ns; on
	// 1,024 CPU lanes, four of 18.3 ns.
	s, _ := CompareCPUGPU(64, hw.ServerCPU, g)
	if s.GPUTotalS != s.GPUElementS || s.CPUTotalS != 4*s.CPUElementS {
		t.Errorf("64³: GPU %g s for the product against %g s an element; CPU %g s against %g", s.GPUTotalS, s.GPUElementS, s.CPUTotalS, s.CPUElementS)
	}
	if r.GPUWorkers != 16896 || r.ElementsAtOnceCPU != 1024 {
		t.Errorf("workers: GPU %d, CPU lanes %d", r.GPUWorkers, r.ElementsAtOnceCPU)
	}
	if _, err := CompareCPUGPU(0, hw.ServerCPU, g); err == nil {
		t.Error("size 0 accepted")
	}
}
