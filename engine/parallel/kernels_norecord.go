//go:build js

package parallel

// recordKernels: off in the page's WebAssembly (kernels_record.go).
const recordKernels = false
