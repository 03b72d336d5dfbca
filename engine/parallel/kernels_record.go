//go:build !js

package parallel

// recordKernels: layerCostOf names a layer's kernels for LayerKernels
// (gpuscope plan --kernels). The page's WebAssembly (GOOS=js) leaves the
// recording out for its size, until a picture needs it.
const recordKernels = true
