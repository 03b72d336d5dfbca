package parallel

import (
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// RoutedLayer is one GPU's compute in an MoE layer's forward for a batch
// already routed (engine/moe counts each expert's copies): the kernels
// moeLayerOf costs, at the sustained clock, in BF16 without tensor
// parallelism, each routed expert's products sized by the copies it got
// rather than by the mean.
type RoutedLayer struct {
	Router Counts // the router's scores: the GPU's tokens × E × h
	// Up and Down are each of the GPU's experts' gate-and-up (rows × 2·F
	// × h) and down (rows × h × F) products, its rows the copies it
	// computes; the zero Counts for an expert that got none.
	Up, Down []Counts
	Permute  Counts // the copies permuted to their experts and back, and the experts' SwiGLU (HBM passes)
}

// RoutedMoELayer is the compute of an MoE layer of m on a GPU g holding
// len(rows) experts, rows[i] the copies its i-th expert computes, for
// tokens tokens of its own: moeLayerOf's router, routed experts' products
// and permutation (the same GEMM model and HBM passes; its mean copies an
// expert replaced by each expert's own).
func RoutedMoELayer(m model.Transformer, g hw.GPU, tokens int, rows []int) RoutedLayer {
	g = sustained(g)
	h, fe := m.Hidden, m.ExpertFFN
	l := RoutedLayer{Router: routedGEMM(g, tokens, m.Experts, h), Up: make([]Counts, len(rows)), Down: make([]Counts, len(rows))}
	pairs := 0.0
	for i, n := range rows {
		if n <= 0 {
			continue
		}
		l.Up[i], l.Down[i] = routedGEMM(g, n, 2*fe, h), routedGEMM(g, n, h, fe)
		pairs += float64(n)
	}
	elem := moePasses(pairs, float64(fe), float64(h), 1) // moeLayerOf's, tensor parallelism 1
	l.Permute = Counts{HBMBytes: elem, TimeS: elem / (g.HBMBandwidth * MemoryEfficiency), Bound: "memory", Dtype: hw.BF16, BW: g.HBMBandwidth}
	l.Permute.Peak, _ = g.PeakFLOPS(hw.BF16)
	return l
}

// routedGEMM is an M×N×K BF16 product's counts on g, timed as gemm
// times it (beyond the GEMM model's range, at the peak's
// TensorEfficiency, without a tiling).
func routedGEMM(g hw.GPU, M, N, K int) Counts {
	c := Counts{Dtype: hw.BF16, BW: g.HBMBandwidth, Products: 1}
	c.Peak, _ = g.PeakFLOPS(hw.BF16)
	r, err := kernel.GEMM(kernel.GEMMConfig{M: max(M, 1), N: max(N, 1), K: max(K, 1), Dtype: hw.BF16, GPU: g, Kernel: kernel.TensorTiled})
	if err != nil { // gemm's fallback
		c.FLOPs = 2 * float64(M) * float64(N) * float64(K)
		c.TimeS, c.Bound = c.FLOPs/(c.Peak*kernel.TensorEfficiency), "compute"
		return c
	}
	c.FLOPs, c.HBMBytes, c.SmemBytes, c.TimeS, c.Bound, c.GEMM = r.FLOPs, r.HBMBytes, r.SmemBytes, r.TimeS, r.Bound, &r
	return c
}

// Sum is the counts of cs run one after another as one kernel (a grouped
// GEMM's experts): their FLOPs, bytes and times added, the bound the
// longest one's, the first product's tiling.
func Sum(cs []Counts) Counts {
	var out Counts
	longest := -1.0
	for _, c := range cs {
		if c.TimeS <= 0 {
			continue
		}
		if out.Products == 0 {
			out.Dtype, out.Peak, out.BW, out.GEMM = c.Dtype, c.Peak, c.BW, c.GEMM
		}
		out.FLOPs += c.FLOPs
		out.HBMBytes += c.HBMBytes
		out.SmemBytes += c.SmemBytes
		out.TimeS += c.TimeS
		out.Products += max(c.Products, 1)
		if c.TimeS > longest {
			longest, out.Bound = c.TimeS, c.Bound
		}
	}
	return out
}
