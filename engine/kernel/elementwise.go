package kernel

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// ElementwiseOp is one step of a chain of elementwise operations over a
// tensor: the FLOPs it does per element and the bytes per element it must
// read and write besides its input and output (its own side tensors, such
// as dropout's mask).
type ElementwiseOp struct {
	Name        string
	FLOPs       float64 // per element
	ExtraWrites float64 // bytes per element written besides the output
}

// The chain of the fused-kernels lesson: the seed's LayerNorm → GeLU →
// Dropout. FLOPs per element: LayerNorm's mean, variance, normalise, scale
// and shift (~8); GeLU's tanh approximation (~14); dropout's compare and
// scale (~2). Dropout also writes its 1-byte keep mask for the backward
// pass.
var (
	LayerNorm = ElementwiseOp{Name: "LayerNorm", FLOPs: 8}
	GeLU      = ElementwiseOp{Name: "GELU", FLOPs: 14}
	Dropout   = ElementwiseOp{Name: "Dropout", FLOPs: 2, ExtraWrites: 1}
	// LaunchOverhead is a kernel launch's fixed cost on the GPU side
	// (a few microseconds between dependent kernels in a stream).
	LaunchOverhead = 4e-6
)

// ElementwiseKernel is one launched kernel of a chain.
type ElementwiseKernel struct {
	Ops      []string // the operations it runs
	HBMBytes float64
	// ReadBytes and WriteBytes split HBMBytes: its input in; its output
	// and side tensors (dropout's mask) out.
	ReadBytes, WriteBytes float64
	FLOPs                 float64
	TimeS                 float64 // max(FLOPs ÷ CUDA peak, bytes ÷ bandwidth) + launch overhead
}

// ElementwiseResult is a chain run unfused (a kernel per operation, each
// reading its input from HBM and writing its output back) or fused (one
// kernel that keeps the intermediate values in registers).
type ElementwiseResult struct {
	Elements float64
	Fused    bool
	Kernels  []ElementwiseKernel
	HBMBytes float64
	FLOPs    float64
	TimeS    float64
}

// Elementwise counts and times a chain over n elements of a dtype.
func Elementwise(ops []ElementwiseOp, n int64, d hw.Dtype, g hw.GPU, fused bool) (ElementwiseResult, error) {
	b, ok := bytesOf(d)
	if !ok || d == hw.TF32 {
		return ElementwiseResult{}, fmt.Errorf("dtype: %q; allowed fp32, fp16, bf16, fp8", d)
	}
	if n < 1 || n > 1<<40 {
		return ElementwiseResult{}, errs.F("hf_range", "%s: %d; allowed %d–%d", "name n lo hi", "elements", n, 1, int64(1)<<40)
	}
	if len(ops) == 0 {
		return ElementwiseResult{}, fmt.Errorf("ops: none")
	}
	cuda, _ := g.PeakFLOPS(hw.FP32)
	N, B := float64(n), float64(b)
	r := ElementwiseResult{Elements: N, Fused: fused}
	kernel := func(ops []ElementwiseOp) ElementwiseKernel {
		k := ElementwiseKernel{ReadBytes: N * B, WriteBytes: N * B} // its input in, its output out
		for _, op := range ops {
			k.Ops = append(k.Ops, op.Name)
			k.FLOPs += op.FLOPs * N
			k.WriteBytes += op.ExtraWrites * N
		}
		k.HBMBytes = k.ReadBytes + k.WriteBytes
		k.TimeS = max(k.FLOPs/cuda, k.HBMBytes/g.HBMBandwidth) + LaunchOverhead
		return k
	}
	if fused {
		r.Kernels = []ElementwiseKernel{kernel(ops)}
	} else {
		for _, op := range ops {
			r.Kernels = append(r.Kernels, kernel([]ElementwiseOp{op}))
		}
	}
	for _, k := range r.Kernels {
		r.HBMBytes += k.HBMBytes
		r.FLOPs += k.FLOPs
		r.TimeS += k.TimeS
	}
	return r, nil
}
