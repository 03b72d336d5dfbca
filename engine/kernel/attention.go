package kernel

import (
	"cmp"
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// AttentionImpl is how attention is computed.
type AttentionImpl string

// Implementations.
const (
	// StandardAttention materialises S = QKᵀ and P = softmax(S) in HBM:
	// one kernel writes S, softmax reads S and writes P, the next matmul
	// reads P.
	StandardAttention AttentionImpl = "standard"
	// FlashAttention streams blocks of K and V past blocks of Q held in
	// shared memory with an online softmax; S and P never reach HBM
	// (Dao et al., arXiv 2205.14135; the FlashAttention-2 loop order).
	FlashAttention AttentionImpl = "flash"
)

// AttentionConfig is one attention layer's forward pass.
type AttentionConfig struct {
	Batch, Heads, Seq, HeadDim int
	Dtype                      hw.Dtype
	GPU                        hw.GPU
	Impl                       AttentionImpl
	// BlockQ is FlashAttention's block of query rows (0: 128).
	BlockQ int
	// FlashVersion is FlashAttention's generation: 3 (0 means it) is
	// FlashAttention-3's measured rates — on Hopper, and the newest
	// kernel's share of the peak elsewhere; 2 is FlashAttention-2's
	// rates on Hopper (it does not use Hopper's asynchronous tensor
	// cores: about 60% of FlashAttention-3's).
	FlashVersion int
	// Causal: each query sees only the keys before it, as in a decoder.
	// FlashAttention then skips the blocks above the diagonal — half the
	// work — at its measured causal rates (lower at short lengths: the
	// diagonal blocks are partly masked); standard attention computes
	// every score and masks them, in the same time. FLOPs stays the full
	// count (the convention MFU uses).
	Causal bool
	// CallKeys and CallQueries, when positive, are the keys and the
	// queries of each FlashAttention call when a sequence's attention
	// runs as several (context parallelism: a ring's steps, an
	// all-gather's chunks): a forward block of queries loops over the
	// call's keys, a backward block of keys over its queries
	// (FlashAttention-2, Dao, arXiv 2307.08691, §3.2 and Algorithms 1
	// and 2; FlashAttention-3 the same, Dao-AILab/flash-attention
	// hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp, n_block up to
	// ceil(seqlen_k / kBlockN), and mainloop_bwd_sm90_tma_gmma_ws.hpp,
	// m_block up to ceil(seqlen_q / kBlockM), commit 1feb711f of
	// 2024-12-03). The measured rates over sequence length (flashRates:
	// the benchmarks hold batch × length at 16K tokens, so the grid is
	// as large at every length and only the loops shorten) are a
	// loop's: the forward runs at its rate at CallKeys, the backward at
	// CallQueries — unmasked, as a ring's blocks are (0: Seq's).
	CallKeys, CallQueries int
}

// AttentionResult are the counts and time of one attention forward pass.
type AttentionResult struct {
	Config AttentionConfig
	FLOPs  float64 // the two matrix products, 4·B·H·N²·d
	// WorkFLOPs is what the kernel computes: FLOPs, half of them under a
	// causal mask with FlashAttention (the blocks above the diagonal are
	// skipped).
	WorkFLOPs  float64
	HBMBytes   float64
	ScoreBytes float64 // one N×N score matrix per batch element and head: B·H·N²·bytes
	// KVInL2 reports whether FlashAttention's re-reads of K and V are
	// served by L2 (the heads in flight fit in half of it); KVReads is
	// how many times K and V come from HBM: once while they fit, else
	// once per wave of a head's blocks.
	KVInL2   bool
	KVReads  int
	ComputeS float64
	MemoryS  float64
	TimeS    float64
	// BackwardS is the backward pass's time: StandardBackwardFLOPs or
	// FlashBackwardFLOPs times the forward's FLOPs at the backward's rate
	// (a GEMM's; FlashAttention's measured one), or its HBM traffic as
	// many times the forward's, whichever is longer.
	BackwardS float64
}

// The backward pass of attention in FLOPs of its forward: standard
// attention's four products of gradients (dV, dP, dQ, dK) against the
// forward's two; FlashAttention's also recompute the scores (QKᵀ), 2.5×
// (Dao et al.).
const (
	StandardBackwardFLOPs = 2.0
	FlashBackwardFLOPs    = 2.5
)

// BackwardFLOPs is impl's backward pass in FLOPs of its forward.
func (impl AttentionImpl) BackwardFLOPs() float64 {
	if impl == FlashAttention {
		return FlashBackwardFLOPs
	}
	return StandardBackwardFLOPs
}

// flashRates are FlashAttention's measured rates over sequence length:
// FlashAttention-3 on an H100 SXM5 in BF16, head dimension 128, without a
// causal mask, TFLOP/s of the full (unmasked) count, forward and backward
// (Shah et al., FlashAttention-3, arXiv 2407.08608, §4.1, the BF16
// forward and backward benchmarks) — below a large GEMM's 82% of peak
// (TensorEfficiency): the softmax between the two products takes the
// exponential unit (16 a clock an SM, 512 FLOPs of products to one
// exponential at d = 128) and the backward runs five products with
// atomics between the blocks.
var flashRates = [...]flashRate{
	{512, 467, 316}, {1024, 565, 424}, {2048, 625, 501}, {4096, 638, 542}, {8192, 646, 559}, {16384, 648, 561},
}

// flash2Rates are FlashAttention-2's on the same H100 SXM5, BF16, head
// dimension 128, no causal mask, from the same benchmarks (the
// FlashAttention-3 paper's baselines, §4.1): FlashAttention-2 was written
// for Ampere and runs Hopper's tensor cores without their asynchronous
// warpgroup instructions (wgmma) or the TMA.
var flash2Rates = [...]flashRate{
	{512, 309, 214}, {1024, 350, 260}, {2048, 362, 291}, {4096, 368, 310}, {8192, 370, 318}, {16384, 370, 322},
}

type flashRate struct{ seq, fwd, bwd float64 }

// flashCausalFwd are the forward rates with a causal mask on the same
// H100 (the FlashAttention-3 paper's causal benchmark, head dimension
// 128), TFLOP/s of the masked (half) count: FlashAttention-3 and
// FlashAttention-2. No causal backward is published: a backward is
// taken at its unmasked rate × the forward's causal-to-unmasked ratio at
// that length (an assumption).
var flashCausalFwd = map[int][6]float64{
	3: {292, 423, 521, 579, 602, 616},
	2: {191, 260, 298, 319, 333, 335},
}

// flashPeak is the peak the measured rates are shares of: the H100 SXM's
// dense BF16 989 TFLOP/s.
const flashPeak = 989

// FlashEfficiency is the share of the tensor cores' peak FlashAttention
// sustains forward and backward over n keys: the measured rates of
// flashRates ÷ the H100's peak, linear in log₂ n between the measured
// lengths and held beyond them. Other GPUs and formats are assumed to
// reach the same shares of their own peaks.
func FlashEfficiency(n int) (fwd, bwd float64) { return flashEfficiency(flashRates[:], n) }

// FlashEfficiencyOf is FlashEfficiency for a FlashAttention generation on
// g: FlashAttention-2 on a Hopper part (it has FP8 tensor cores and no
// two-SM products: Blackwell's) at FlashAttention-2's own rates there;
// any other pair at FlashAttention-3's shares (on Ampere,
// FlashAttention-2 reaches about those: 50–73% of the A100's peak, Dao,
// arXiv 2307.08691).
func FlashEfficiencyOf(version int, g hw.GPU, n int) (fwd, bwd float64) {
	if version == 2 && Hopper(g) {
		return flashEfficiency(flash2Rates[:], n)
	}
	return flashEfficiency(flashRates[:], n)
}

// FlashCausalEfficiency is FlashEfficiencyOf with a causal mask: the
// measured causal forward rate's share of the peak (of the masked work),
// and the backward's unmasked share scaled by the forward's causal to
// unmasked ratio at that length.
func FlashCausalEfficiency(version int, g hw.GPU, n int) (fwd, bwd float64) {
	v := 3
	if version == 2 && Hopper(g) {
		v = 2
	}
	table := flashRates[:]
	if v == 2 {
		table = flash2Rates[:]
	}
	causal := make([]flashRate, len(table))
	for i, r := range table {
		c := flashCausalFwd[v][i]
		causal[i] = flashRate{r.seq, c, r.bwd * c / r.fwd}
	}
	return flashEfficiency(causal, n)
}

// Hopper reports whether g is a Hopper part: FP8 tensor cores, and not
// Blackwell's two-SM products.
func Hopper(g hw.GPU) bool {
	_, fp8 := g.PeakFLOPS(hw.FP8)
	return fp8 && !g.PairMMA
}

func flashEfficiency(flashRates []flashRate, n int) (fwd, bwd float64) {
	first, last := flashRates[0], flashRates[len(flashRates)-1]
	x := float64(n)
	switch {
	case x <= first.seq:
		return first.fwd / flashPeak, first.bwd / flashPeak
	case x >= last.seq:
		return last.fwd / flashPeak, last.bwd / flashPeak
	}
	for i := 1; i < len(flashRates); i++ {
		a, b := flashRates[i-1], flashRates[i]
		if x <= b.seq {
			u := math.Log2(x/a.seq) / math.Log2(b.seq/a.seq)
			return (a.fwd + u*(b.fwd-a.fwd)) / flashPeak, (a.bwd + u*(b.bwd-a.bwd)) / flashPeak
		}
	}
	return last.fwd / flashPeak, last.bwd / flashPeak
}

// Attention counts HBM traffic and times one attention forward pass.
//
// Standard: read Q, K (2·N·d), write S (N²), read S and write P for the
// softmax (2·N²), read P and V (N² + N·d), write O (N·d): 4·N² + 4·N·d
// elements per head — Θ(N·d + N²).
//
// FlashAttention: each block of Br query rows reads all of K and V. With
// no cache that is 2·N·d (Q in, O out) + 2·N²·d/Br elements per head, the
// paper's Θ(N²·d²/M) for an SRAM of M elements; on a GPU the blocks
// running at once share K and V through L2, so HBM sees 2·N·d + w·2·N·d,
// w = 1 while K and V of the heads in flight fit in L2, else the waves
// of a head's blocks (⌈N/Br ÷ SMs⌉): linear in N, then a step up.
//
// Compute: standard attention's products are GEMMs, at TensorEfficiency;
// FlashAttention's fused kernel at its measured rates (FlashEfficiency),
// forward and backward.
func Attention(c AttentionConfig) (AttentionResult, error) {
	r := AttentionResult{Config: c}
	if c.Batch < 1 || c.Heads < 1 || c.Seq < 1 || c.HeadDim < 1 || c.Seq > 1<<22 || c.HeadDim > 1024 {
		return r, fmt.Errorf("batch, heads, seq, head-dim: %d, %d, %d, %d; each ≥ 1, seq ≤ 4194304, head-dim ≤ 1024", c.Batch, c.Heads, c.Seq, c.HeadDim)
	}
	b, ok := bytesOf(c.Dtype)
	if !ok {
		return r, fmt.Errorf("dtype: %q; allowed fp32, tf32, fp16, bf16, fp8", c.Dtype)
	}
	peak, ok := c.GPU.PeakFLOPS(c.Dtype)
	if !ok {
		return r, errs.F("dtype", "dtype: %s has no %s unit", "gpu dtype_up", c.GPU.Name, c.Dtype)
	}
	heads := float64(c.Batch) * float64(c.Heads)
	N, d, B := float64(c.Seq), float64(c.HeadDim), float64(b)
	r.FLOPs = heads * 4 * N * N * d
	r.ScoreBytes = heads * N * N * B
	g := c.GPU
	switch c.Impl {
	case StandardAttention:
		r.HBMBytes = heads * (4*N*N + 4*N*d) * B
	case FlashAttention:
		br := c.BlockQ
		if br == 0 {
			br = 128
		}
		if br < 16 || br > 1024 {
			return r, errs.Range("block-q", br, 16, 1024, "")
		}
		// One block a SM; blocks are scheduled head by head, so the heads
		// in flight are the SMs' blocks divided by a head's blocks.
		blocksPerHead := math.Ceil(N / float64(br))
		sms := float64(g.SMs)
		inFlight := math.Max(1, math.Min(heads, math.Ceil(sms/blocksPerHead)))
		r.KVInL2 = inFlight*2*N*d*B <= float64(g.L2Bytes)/2
		// Every block streams all of its head's K and V. The blocks of a
		// wave start together and walk the same tiles at the same pace,
		// so one read from HBM serves the whole wave through L2 (as the
		// tensor-core GEMM's blocks share their tiles). While K and V of
		// the heads in flight fit in L2 they stay there for the next
		// waves too: one read in all. Once they do not, each wave of a
		// head's blocks reads them again.
		r.KVReads = 1
		if !r.KVInL2 {
			r.KVReads = int(math.Ceil(blocksPerHead / sms))
		}
		r.HBMBytes = heads * (2*N*d + float64(r.KVReads)*2*N*d) * B
	default:
		return r, fmt.Errorf("impl: %q; allowed standard, flash", c.Impl)
	}
	fwd, bwd := TensorEfficiency, TensorEfficiency
	back := c.Impl.BackwardFLOPs()
	work := r.FLOPs
	if c.Impl == FlashAttention {
		if v := c.FlashVersion; v != 0 && v != 2 && v != 3 {
			return r, fmt.Errorf("flash-version: %d; allowed 2, 3", v)
		}
		if c.FlashVersion == 3 && !Hopper(g) && !g.PairMMA {
			return r, fmt.Errorf("flash-version: 3 needs Hopper's tensor cores; %s runs FlashAttention-2 (allowed 2)", g.Name)
		}
		if c.CallKeys < 0 || c.CallKeys > c.Seq || c.CallQueries < 0 || c.CallQueries > c.Seq {
			return r, fmt.Errorf("call-keys, call-queries: %d, %d; allowed 0–%d", c.CallKeys, c.CallQueries, c.Seq)
		}
		switch {
		case c.CallKeys > 0 || c.CallQueries > 0:
			fwd, _ = FlashEfficiencyOf(c.FlashVersion, g, cmp.Or(c.CallKeys, c.Seq))
			_, bwd = FlashEfficiencyOf(c.FlashVersion, g, cmp.Or(c.CallQueries, c.Seq))
		case c.Causal:
			fwd, bwd = FlashCausalEfficiency(c.FlashVersion, g, c.Seq)
		default:
			fwd, bwd = FlashEfficiencyOf(c.FlashVersion, g, c.Seq)
		}
		if c.Causal {
			work /= 2
		}
	}
	r.WorkFLOPs = work
	r.ComputeS = work / (peak * fwd)
	r.MemoryS = r.HBMBytes / g.HBMBandwidth
	r.TimeS = math.Max(r.ComputeS, r.MemoryS)
	r.BackwardS = back * math.Max(work/(peak*bwd), r.MemoryS)
	return r, nil
}

// AttentionMetrics are the numbers of gpuscope attention.
type AttentionMetrics struct {
	HBMBytes   float64 `json:"hbm_bytes"`
	TimeS      float64 `json:"time_s"`
	ScoreBytes float64 `json:"score_bytes"`
	FLOPs      float64 `json:"flops"`
	Bound      string  `json:"bound"`
	KVInL2     bool    `json:"kv_in_l2"`
	KVReads    int     `json:"kv_hbm_reads,omitempty"`
}

// Metrics reports the result under the CLI's names.
func (r AttentionResult) Metrics() AttentionMetrics {
	m := AttentionMetrics{HBMBytes: r.HBMBytes, TimeS: r.TimeS, ScoreBytes: r.ScoreBytes, FLOPs: r.FLOPs, Bound: "compute", KVInL2: r.KVInL2, KVReads: r.KVReads}
	if r.MemoryS > r.ComputeS {
		m.Bound = "memory"
	}
	return m
}

// AttentionReference computes softmax(Q·Kᵀ/√d)·V directly, materialising
// the N×N scores: rows of Q, K, V and the result are d long.
func AttentionReference(q, k, v [][]float64) [][]float64 {
	n, d := len(q), len(q[0])
	scale := 1 / math.Sqrt(float64(d))
	out := make([][]float64, n)
	s := make([]float64, len(k))
	for i := 0; i < n; i++ {
		m := math.Inf(-1)
		for j := range k {
			s[j] = dot(q[i], k[j]) * scale
			m = math.Max(m, s[j])
		}
		var sum float64
		for j := range s {
			s[j] = math.Exp(s[j] - m)
			sum += s[j]
		}
		out[i] = make([]float64, d)
		for j := range v {
			for c := 0; c < d; c++ {
				out[i][c] += float64(s[j] / sum * v[j][c])
			}
		}
	}
	return out
}

// AttentionTiled computes the same result as FlashAttention does: blocks
// of br query rows against blocks of bc keys, keeping only a running
// maximum, a running sum and an output accumulator per row — no N×N
// matrix exists at any time.
func AttentionTiled(q, k, v [][]float64, br, bc int) [][]float64 {
	n, d := len(q), len(q[0])
	scale := 1 / math.Sqrt(float64(d))
	out := make([][]float64, n)
	for i0 := 0; i0 < n; i0 += br {
		for i := i0; i < min(i0+br, n); i++ {
			m, l := math.Inf(-1), 0.0
			acc := make([]float64, d)
			for j0 := 0; j0 < len(k); j0 += bc {
				// This block's scores for row i, and its maximum.
				blockMax := math.Inf(-1)
				sc := make([]float64, 0, bc)
				for j := j0; j < min(j0+bc, len(k)); j++ {
					x := dot(q[i], k[j]) * scale
					sc = append(sc, x)
					blockMax = math.Max(blockMax, x)
				}
				// Rescale what was accumulated under the old maximum.
				mNew := math.Max(m, blockMax)
				corr := math.Exp(m - mNew)
				l *= corr
				for c := range acc {
					acc[c] *= corr
				}
				for jj, x := range sc {
					p := math.Exp(x - mNew)
					l += p
					for c := range acc {
						acc[c] += float64(p * v[j0+jj][c])
					}
				}
				m = mNew
			}
			for c := range acc {
				acc[c] /= l
			}
			out[i] = acc
		}
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

// AttentionTilingError runs AttentionTiled (blocks of br queries by bc
// keys) and AttentionReference on random q (nq×d), k and v (nk×d) with
// entries in [−2, 2) from seed, and returns the largest difference: how
// far FlashAttention's online softmax is from the direct formula.
func AttentionTilingError(seed uint64, nq, nk, d, br, bc int) float64 {
	rng := sim.NewRNG(seed)
	mk := func(n int) [][]float64 {
		m := make([][]float64, n)
		for i := range m {
			m[i] = make([]float64, d)
			for j := range m[i] {
				m[i][j] = float64(4*rng.Float64()) - 2
			}
		}
		return m
	}
	q, k, v := mk(nq), mk(nk), mk(nk)
	ref, tiled := AttentionReference(q, k, v), AttentionTiled(q, k, v, br, bc)
	var worst float64
	for i := range ref {
		for j := range ref[i] {
			worst = math.Max(worst, math.Abs(ref[i][j]-tiled[i][j]))
		}
	}
	return worst
}
