package parallel

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/model"
)

// Kernel kinds: what runs on a GPU during a layer.
const (
	KernelGEMM       = "gemm"       // a matrix product (M×N×K forward; backward dX and dW)
	KernelAttention  = "attention"  // the attention core (FlashAttention or standard)
	KernelMemory     = "memory"     // memory-bound elementwise passes (norms, residual adds, the activation; FP8 quantization)
	KernelRecompute  = "recompute"  // the forward work repeated in the backward
	KernelCollective = "collective" // TP's all-reduces, CP's K/V exchange (exposed), EP's all-to-alls
)

// The MoE layer's own kernels' names.
const (
	KernelRouter      = "router"       // the router's scores, h × E
	KernelExpertsUp   = "experts_up"   // the routed experts' gate and up products
	KernelExpertsDown = "experts_down" // … and their down products
	KernelPermute     = "permute"      // the tokens copied to their experts and back, the experts' SwiGLU, FP8 quantization
	KernelDispatch    = "ep_dispatch"  // the all-to-all to the experts
	KernelCombine     = "ep_combine"   // … and back
)

// Kernel is one part of a transformer layer's work on one GPU for one
// micro-batch: its time forward and backward, and a product's shape.
type Kernel struct {
	Name      string  `json:"name"` // qkv, out, up, down (q_down, q_up, kv_down, kv_up with latent attention), attention, elementwise, quantize, recompute, tp_allreduce, cp_kv
	Kind      string  `json:"kind"`
	M         float64 `json:"m,omitempty"` // a GEMM's rows (the micro-batch's tokens on this GPU), columns, inner size
	N         float64 `json:"n,omitempty"`
	K         float64 `json:"k,omitempty"`
	ForwardS  float64 `json:"forward_s"`
	BackwardS float64 `json:"backward_s"` // recomputation apart, as its own kernel
}

// LayerKernels are a layer's kernels on one GPU for one micro-batch, in
// the order they are computed: the parts the engine adds up to the
// layer's forward and backward times (the stages' blocks of the time
// line are these summed over a stage's layers, with its collectives), at
// the GPU's sustained clock as Evaluate times them. A mixture of
// experts' are its MoE layers' (MoELayerKernels); its dense layers'
// (model.MoELayer) are a dense layer's (denseKernels).
func LayerKernels(c Config) ([]Kernel, error) {
	if c.Model.MoE() {
		return MoELayerKernels(c)
	}
	return denseKernels(c)
}

// denseKernels are a dense layer's kernels of c's model (a mixture of
// experts' dense layers too).
func denseKernels(c Config) ([]Kernel, error) { return kernelsOf(c, false) }

// MoELayerKernels are a mixture of experts' MoE layer's kernels on one
// GPU for one micro-batch, as LayerKernels lists a dense layer's: the
// attention's, the shared experts' products (up, down), the router, the
// routed experts' gate-and-up and down products (one expert's shape, the
// time of the GPU's E ÷ EP experts), the tokens' permutation and the
// experts' SwiGLU, and the dispatch and combine all-to-alls. With
// DeepSeek's overlap (EPOverlap) the time line's blocks run these slower
// beside the hidden all-to-alls: StepActivity scales them to the block.
func MoELayerKernels(c Config) ([]Kernel, error) {
	if !c.Model.MoE() {
		return nil, fmt.Errorf("kernels: %s is not a mixture of experts", c.Model.Name)
	}
	return kernelsOf(c, true)
}

// kernelsOf records a dense (or an MoE) layer's costs as kernels, at the
// GPU's sustained clock as Evaluate times the step.
func kernelsOf(c Config, moe bool) ([]Kernel, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var ks kernelList
	cl := c.Cluster.perGPU()
	cl.GPU = sustained(cl.GPU)
	if moe {
		moeLayerOf(c.Model, c.Plan, cl, 0, 0, &ks)
	} else {
		layerCostOf(c.Model, c.Plan, cl, &ks)
	}
	return ks, nil
}

// recordKernels: layerCostOf names a layer's kernels for LayerKernels
// (gpuscope plan --kernels, the zoom's GPU). A constant, so that a build
// may leave the recording out (it costs the page's wasm ≈ 1–2 kB).
const recordKernels = true

// kernelList collects a layer's kernels; a nil list (Evaluate's, a
// search's) takes nothing.
type kernelList []Kernel

// add appends a kernel that takes time; on a nil list it does nothing.
// Not inlined: layerCostOf's calls stay small, as the page's wasm is.
//
//go:noinline
func (l *kernelList) add(name, kind string, m, n, k, fwd, bwd float64) {
	if l == nil || fwd+bwd <= 0 {
		return
	}
	*l = append(*l, Kernel{Name: name, Kind: kind, M: m, N: n, K: k, ForwardS: fwd, BackwardS: bwd})
}

// matName is the name of a layer's i-th product, in layerCostOf's order.
func matName(m model.Transformer, i int) string {
	names := []string{"qkv", "out", "up", "down"}
	if m.MLA() {
		names = []string{"q", "kv_down", "kv_up", "out", "up", "down"}
		if m.QLoRA > 0 {
			names = []string{"q_down", "q_up", "kv_down", "kv_up", "out", "up", "down"}
		}
	}
	return names[i]
}
