package kernel

import (
	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// CPUvsGPU compares one CPU and one GPU computing the same C = A×B of
// n×n×n in FP32 (BF16 on the tensor cores): latency — how long one worker
// takes for one element of C, a dot product of n multiply-adds, one per
// clock — against throughput — how long the whole product takes with
// every worker busy at its peak (an upper bound: memory ignored, as the
// memory-wall lesson shows it should not be). The two agree: the whole
// product is n² elements dealt to the workers, ⌈n² ÷ workers⌉ rounds of
// one element each (the CPU's workers are its 1,024 FP32 SIMD lanes) —
// 2n³ at the FP32 peak when the workers divide n², because a GPU lane's
// element time and the FP32 peak use the same clock
// (hw.GPU.VectorClockHz) — and never less than one element: 64² = 4,096
// elements on 16,896 CUDA cores take one round, not a quarter of one.
type CPUvsGPU struct {
	N                 int
	CPU               hw.CPU
	GPU               hw.GPU
	CPUElementS       float64 // one core, one element: n FMAs at the CPU clock
	GPUElementS       float64 // one CUDA core, one element: n FMAs at the CUDA cores' clock
	CPUTotalS         float64 // ⌈n² ÷ SIMD lanes⌉ rounds × CPUElementS (2n³ ÷ the CPU's FP32 peak)
	GPUTotalS         float64 // ⌈n² ÷ CUDA cores⌉ rounds × GPUElementS (≈ 2n³ ÷ the GPU's FP32 peak)
	TensorTotalS      float64 // 2n³ ÷ the GPU's BF16 tensor peak
	CPUWorkers        int     // cores
	GPUWorkers        int     // CUDA cores
	ElementsAtOnceCPU int     // cores × FP32 SIMD lanes per core
}

// CompareCPUGPU works the comparison out.
func CompareCPUGPU(n int, c hw.CPU, g hw.GPU) (CPUvsGPU, error) {
	if n < 1 || n > 1<<16 {
		return CPUvsGPU{}, errs.Range("size", n, 1, 1<<16, "")
	}
	flops := 2 * float64(n) * float64(n) * float64(n)
	bf16, _ := g.PeakFLOPS(hw.BF16)
	lanes := c.Cores * int(c.FLOPPerCycle/2)
	// Whole rounds of one element a worker.
	rounds := func(workers int) float64 {
		return float64((n*n + max(workers, 1) - 1) / max(workers, 1))
	}
	cpuElement, gpuElement := float64(n)/c.ClockHz, float64(n)/g.VectorClockHz
	return CPUvsGPU{
		N: n, CPU: c, GPU: g,
		CPUElementS:       cpuElement,
		GPUElementS:       gpuElement,
		CPUTotalS:         rounds(lanes) * cpuElement,
		GPUTotalS:         rounds(g.CUDACores) * gpuElement,
		TensorTotalS:      flops / bf16,
		CPUWorkers:        c.Cores,
		GPUWorkers:        g.CUDACores,
		ElementsAtOnceCPU: lanes,
	}, nil
}
