package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

// parseTile reads --tile: "T", "TxT" or "BMxBNxBK".
func parseTile(s string) (m, n, k int, err error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "x")
	var v []int
	for _, p := range parts {
		x, e := strconv.Atoi(p)
		if e != nil || x < 1 || x > 1024 {
			return 0, 0, 0, fmt.Errorf("--tile: %q is not a tile; allowed T, TxT or BMxBNxBK with sizes 1–1024, e.g. 16 or 128x128x64", s)
		}
		v = append(v, x)
	}
	switch len(v) {
	case 1:
		return v[0], v[0], 0, nil
	case 2:
		return v[0], v[1], 0, nil
	case 3:
		return v[0], v[1], v[2], nil
	}
	return 0, 0, 0, fmt.Errorf("--tile: %q is not a tile; allowed T, TxT or BMxBNxBK, e.g. 16 or 128x128x64", s)
}

var gemmHelp = cmdHelp{
	name:  "gpuscope gemm",
	usage: "[--m M --n N --k K --dtype D --gpu G --kernel naive|smem-tiled|tensor-tiled --tile T --block-scaled] [--json]",
	about: `One matrix product C[M×N] = A[M×K] × B[K×N] on a GPU: FLOPs, HBM and
shared-memory bytes, and the time as max(compute, memory) with wave
quantisation: time_s, tflops, hbm_bytes, smem_bytes, flops,
intensity_flop_per_byte, bound, utilization. Tensor cores are assumed to
sustain 82% of their dense peak.`,
	flags: map[string]flagDoc{
		"m":      {what: "rows of A and C"},
		"n":      {what: "columns of B and C"},
		"k":      {what: "columns of A, rows of B"},
		"dtype":  {what: "the number format of A and B"},
		"gpu":    {what: "the GPU"},
		"kernel": {what: "naive (every operand from HBM), tiled in shared memory on CUDA cores, or tiled on tensor cores"},
		"tile": {what: "the tile: T×T for smem-tiled, BM×BN×BK for tensor-tiled", arg: "T|TxT|BMxBNxBK",
			allowed: "T, TxT or BMxBNxBK with sizes 1–1024 (tensor-tiled: multiples of 16)", def: "16 for smem-tiled, 128x128x64 for tensor-tiled (256x256x64 on Blackwell, a tile to a pair of SMs)"},
		"block-scaled": {what: "FP8 with DeepSeek-V3's fine-grained scaling (DeepGEMM): the partial sums promoted to FP32 on the CUDA cores every 128 of K, each tile written out before the next (needs --dtype fp8 and the tensor-tiled kernel)", def: "off"},
		"json":         jsonDoc,
	},
}

func runGEMM(args []string, stdout, stderr io.Writer) int {
	dim := func(name string) scenarios.Knob {
		return scenarios.Knob{Name: name, Kind: scenarios.KnobInt, Min: 1, Max: 1 << 20, Default: "8192"}
	}
	fs := newFlagSet([]scenarios.Knob{
		dim("m"), dim("n"), dim("k"),
		{Name: "dtype", Kind: scenarios.KnobEnum, Values: dtypeIDs(), Default: "bf16"},
		{Name: "gpu", Kind: scenarios.KnobEnum, Values: hw.GPUIDs(), Default: "h100"},
		{Name: "kernel", Kind: scenarios.KnobEnum, Values: []string{string(kernel.Naive), string(kernel.SmemTiled), string(kernel.TensorTiled)}, Default: string(kernel.TensorTiled)},
		{Name: "tile", Kind: scenarios.KnobEnum, Default: ""}, // checked by parseTile
	}, "json", "block-scaled")
	fs.help = gemmHelp
	// --tile takes free text: parse it before the knob parser sees it.
	var tile string
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--tile" && i+1 < len(args):
			tile = args[i+1]
			i++
		case strings.HasPrefix(a, "--tile="):
			tile = strings.TrimPrefix(a, "--tile=")
		default:
			rest = append(rest, a)
		}
	}
	if err := fs.parse(rest); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope gemm: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	g, _ := hw.GPUByID(fs.value("gpu"))
	atoi := func(s string) int { v, _ := strconv.Atoi(s); return v }
	c := kernel.GEMMConfig{
		M: atoi(fs.value("m")), N: atoi(fs.value("n")), K: atoi(fs.value("k")),
		Dtype: hw.Dtype(fs.value("dtype")), GPU: g, Kernel: kernel.GEMMKernel(fs.value("kernel")),
		BlockScaled: fs.bools["block-scaled"],
	}
	if tile != "" {
		var err error
		if c.TileM, c.TileN, c.TileK, err = parseTile(tile); err != nil {
			fmt.Fprintf(stderr, "gpuscope gemm: %v\n", err)
			return 2
		}
	}
	r, err := kernel.GEMM(c)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope gemm: --%v\n", err)
		return 2
	}
	m := r.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	fmt.Fprintf(stdout, "%s GEMM %d×%d×%d %s on %s\n", c.Kernel, c.M, c.N, c.K, c.Dtype, g.Name)
	fmt.Fprintf(stdout, "  time_s                   %.4g  (compute %.3g s, HBM %.3g s)\n", m.TimeS, m.ComputeS, m.MemoryS)
	fmt.Fprintf(stdout, "  tflops                   %.1f  (utilization %.1f%% of %.1f TFLOP/s dense)\n", m.TFLOPS, 100*m.Utilization, r.Peak/1e12)
	fmt.Fprintf(stdout, "  hbm_bytes                %.0f  (%s)\n  smem_bytes               %.0f  (%s)\n  flops                    %.0f  (%s)\n",
		m.HBMBytes, units.Bytes(m.HBMBytes), m.SmemBytes, units.Bytes(m.SmemBytes), m.FLOPs, units.FLOP(m.FLOPs))
	fmt.Fprintf(stdout, "  intensity_flop_per_byte  %.3g  → %s-bound\n", m.Intensity, m.Bound)
	fmt.Fprintf(stdout, "  blocks %d in %d waves; tensor-core efficiency assumed %.0f%%\n", m.Blocks, m.Waves, 100*kernel.TensorEfficiency)
	return 0
}
