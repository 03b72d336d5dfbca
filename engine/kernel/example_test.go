package kernel_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/units"
)

// One 8192³ BF16 product on an H200, naive and through tensor-core tiles:
// the same FLOPs, a thousand times fewer bytes from HBM.
func ExampleGEMM() {
	g, _ := hw.GPUByID("h200")
	for _, k := range []kernel.GEMMKernel{kernel.Naive, kernel.TensorTiled} {
		r, err := kernel.GEMM(kernel.GEMMConfig{M: 8192, N: 8192, K: 8192, Dtype: hw.BF16, GPU: g, Kernel: k})
		if err != nil {
			panic(err)
		}
		m := r.Metrics()
		fmt.Println(k, units.FLOP(r.FLOPs), units.Bytes(r.HBMBytes), units.FLOPS(m.TFLOPS*1e12))
	}
	// Output:
	// naive 1.1 TFLOP 2.2 TB 2.4 TFLOP/s
	// tensor-tiled 1.1 TFLOP 1.24 GB 787 TFLOP/s
}
