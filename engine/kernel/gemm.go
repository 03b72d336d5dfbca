package kernel

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// GEMMKernel is how C = A×B is computed.
type GEMMKernel string

// The three kernels of the memory-wall lesson.
const (
	// Naive: one thread per output element, every operand fetched from
	// HBM (no reuse through shared memory or caches), on CUDA cores.
	Naive GEMMKernel = "naive"
	// SmemTiled: a block computes a T×T tile of C, staging T×T tiles of A
	// and B through shared memory, on CUDA cores.
	SmemTiled GEMMKernel = "smem-tiled"
	// TensorTiled: a block computes a BM×BN tile of C with tensor cores,
	// streaming BM×BK and BK×BN tiles of A and B through shared memory;
	// the blocks resident at once share their tiles of A and B in L2.
	TensorTiled GEMMKernel = "tensor-tiled"
)

// Efficiency assumptions, stated once (issue 3: "state the efficiency
// assumptions in code and UI").
const (
	// TensorEfficiency is the share of the dense tensor-core peak a
	// well-tuned mainloop sustains on a large GEMM: clocks fall below the
	// boost clock under a full tensor load (power limit) and the mainloop
	// spends some issue slots on loads and synchronisation. cuBLAS-class
	// BF16 GEMMs reach about 80% of peak on Hopper (a measured 788 TFLOP/s
	// on an H200 for 8192³, published-figures.md).
	TensorEfficiency = 0.82
	// FP8TensorEfficiency is TensorEfficiency for a per-tensor-scaled
	// FP8 product (cuBLASLt, as Transformer Engine runs them): FP8
	// GEMMs reach a smaller share of their doubled peak than BF16 ones of
	// theirs — the best shapes of a brute-force search on an H100 SXM
	// reach 1,402.6 of 1,978.9 TFLOP/s in FP8 (70.9%) against 794.5 of
	// 989.4 in BF16 (80.3%; stas00/ml-engineering, "Maximum Achievable
	// Matmul FLOPS" table; Azure's cuBLASLt FP8 8192³ with random data:
	// 1,290): FP8 at 70.9/80.3 of BF16's share, 0.82 × 0.883 = 0.72. A
	// block-scaled product (BlockScaled, DeepGEMM's) keeps its own
	// accounting, held to DeepGEMM's measured shapes.
	FP8TensorEfficiency = 0.72
	// SmemBytesPerClock is what one SM's shared memory serves per clock:
	// 32 banks × 4 bytes.
	SmemBytesPerClock = 128
	// ThreadsPerBlock for the tensor-tiled kernel (8 warps).
	ThreadsPerBlock = 256
)

// GEMMConfig is one matrix product C[M×N] = A[M×K] × B[K×N].
type GEMMConfig struct {
	M, N, K int
	Dtype   hw.Dtype
	GPU     hw.GPU
	Kernel  GEMMKernel
	// Tile: T×T for smem-tiled (TileK ignored), BM×BN×BK for
	// tensor-tiled. Zero means the default: 16 and 128×128×64 (256×256×64
	// on a PairMMA GPU, a tile to a pair of SMs).
	TileM, TileN, TileK int
	// BlockScaled is an FP8 product with fine-grained scaling, as
	// DeepSeek-V3 trained (arXiv 2412.19437 §3.3.2) and DeepGEMM runs
	// it: A scaled per 1×128 tile, B per 128×128 block, so the tensor
	// cores' partial sums over each 128 of K are multiplied by their
	// scales and added into FP32 accumulators on the CUDA cores (one FMA
	// an output element every 128, issued by the warps that issue the
	// MMAs: not overlapped with them); and each tile's BF16 output is
	// written out by those warps before their next tile (the tensor cores
	// idle meanwhile, at the SM's share of HBM bandwidth). Tensor-tiled
	// only.
	BlockScaled bool
}

// ScaleBlock is the K elements a block-scaled FP8 product accumulates on
// the tensor cores before promoting to FP32 (DeepSeek-V3's N_C = 128).
const ScaleBlock = 128

// GEMMResult are the counts and the time of one product.
type GEMMResult struct {
	Config      GEMMConfig
	FLOPs       float64 // 2·M·N·K
	HBMBytes    float64 // bytes read from and written to HBM
	SmemBytes   float64 // bytes written to and read from shared memory
	Blocks      int     // thread blocks in the grid
	BlocksPerSM int     // resident at once on one SM
	Waves       int     // ceil(blocks ÷ (SMs × BlocksPerSM))
	ComputeS    float64 // time if only the arithmetic counted
	MemoryS     float64 // time if only HBM traffic counted
	SmemS       float64 // time if only shared-memory traffic counted
	TimeS       float64 // the largest of the three
	Bound       string  // what sets TimeS: "memory" (HBM), "shared-memory" or "compute"
	Peak        float64 // the dtype's peak, FLOP/s, that utilisation is measured against
}

// TensorTile is the tensor-tiled kernel's default tile BM×BN×BK on g:
// 128×128×64, or 256×256×64 on a PairMMA GPU (one tile to a pair of SMs).
func TensorTile(g hw.GPU) (bm, bn, bk int) {
	if g.PairMMA {
		return 256, 256, 64
	}
	return 128, 128, 64
}

// TensorStageBytes is the shared memory one block of the default
// tensor-tiled kernel takes on an SM: its double-buffered BM×BK and BK×BN
// tiles of A and B (half of them an SM under PairMMA); 0 for a dtype
// without a size.
func TensorStageBytes(g hw.GPU, d hw.Dtype) int {
	b, ok := bytesOf(d)
	if !ok {
		return 0
	}
	bm, bn, bk := TensorTile(g)
	per := 1
	if g.PairMMA {
		per = 2
	}
	return (bm*bk + bk*bn) * b * 2 / per
}

func bytesOf(d hw.Dtype) (int, bool) {
	switch d {
	case hw.FP32, hw.TF32:
		return 4, true
	case hw.FP16, hw.BF16:
		return 2, true
	case hw.FP8:
		return 1, true
	}
	return 0, false
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// GEMM counts and times a matrix product. It returns an error naming the
// field for a shape, tile or dtype it cannot run.
func GEMM(c GEMMConfig) (GEMMResult, error) {
	r := GEMMResult{Config: c}
	if c.M < 1 || c.N < 1 || c.K < 1 || c.M > 1<<20 || c.N > 1<<20 || c.K > 1<<20 {
		return r, fmt.Errorf("m, n, k: %d×%d×%d; each must be 1–1048576", c.M, c.N, c.K)
	}
	b, ok := bytesOf(c.Dtype)
	if !ok {
		return r, fmt.Errorf("dtype: %q; allowed fp32, tf32, fp16, bf16, fp8", c.Dtype)
	}
	peak, ok := c.GPU.PeakFLOPS(c.Dtype)
	if !ok {
		return r, errs.F("dtype", "dtype: %s has no %s unit", "gpu dtype_up", c.GPU.Name, c.Dtype)
	}
	cuda, _ := c.GPU.PeakFLOPS(hw.FP32)
	if c.BlockScaled && (c.Dtype != hw.FP8 || c.Kernel != TensorTiled || cuda <= 0) {
		return r, fmt.Errorf("block-scaled: needs dtype fp8 on the tensor-tiled kernel (dtype %s, kernel %s)", c.Dtype, c.Kernel)
	}
	g := c.GPU
	M, N, K, B := float64(c.M), float64(c.N), float64(c.K), float64(b)
	r.FLOPs = float64(2 * M * N * K)
	r.Peak = peak
	smemBW := float64(g.SMs) * SmemBytesPerClock * g.BoostClockHz
	writeC := float64(M * N * B)

	switch c.Kernel {
	case Naive:
		// 16×16 threads a block; each thread reads a row of A and a column
		// of B from HBM and writes one element of C.
		r.Blocks = ceilDiv(c.M, 16) * ceilDiv(c.N, 16)
		r.BlocksPerSM = min(g.MaxWarpsPerSM/8, g.MaxBlocksPerSM)
		r.HBMBytes = float64(2*M*N*K*B) + writeC
		r.ComputeS = r.FLOPs / cuda
	case SmemTiled:
		t := c.TileM
		if t == 0 {
			t = 16
		}
		if t < 1 || t*t > 1024 || 2*t*t*b > g.SharedMemPerBlock {
			return r, fmt.Errorf("tile: %dx%d; a smem tile needs T×T ≤ 1024 threads and 2·T²·bytes of shared memory", t, t)
		}
		r.Blocks = ceilDiv(c.M, t) * ceilDiv(c.N, t)
		r.BlocksPerSM = min(g.MaxWarpsPerSM*32/(t*t), g.MaxBlocksPerSM, g.SharedMemPerSM/(2*t*t*b))
		// Every element of A is read N/T times, of B M/T times.
		loads := float64(M*K*float64(ceilDiv(c.N, t))) + float64(K*N*float64(ceilDiv(c.M, t)))
		r.HBMBytes = loads*B + writeC
		// Each loaded element is written to shared memory once; each
		// multiply-add reads two operands from it.
		r.SmemBytes = loads*B + float64(2*M*N*K*B)
		r.ComputeS = r.FLOPs / cuda
		r.SmemS = r.SmemBytes / smemBW
	case TensorTiled:
		bm, bn, bk := c.TileM, c.TileN, c.TileK
		if bm == 0 && bn == 0 && bk == 0 {
			bm, bn, bk = TensorTile(g)
		}
		// A pair of SMs computes one tile (PairMMA), each holding half of
		// A's and of B's strips: an SM's share is a (BM/2)×BN tile.
		sms, perTile := g.SMs, 1
		if g.PairMMA {
			sms, perTile = g.SMs/2, 2
		}
		stage := (bm*bk + bk*bn) * b * 2 / perTile // double-buffered A and B tiles
		if bm < 16 || bn < 16 || bk < 16 || bm%16 != 0 || bn%16 != 0 || bk%16 != 0 || stage > g.SharedMemPerBlock {
			return r, fmt.Errorf("tile: %dx%dx%d; BM, BN, BK must be multiples of 16 and two stages of tiles (%d bytes) must fit %d bytes of shared memory", bm, bn, bk, stage, g.SharedMemPerBlock)
		}
		r.Blocks = ceilDiv(c.M, bm) * ceilDiv(c.N, bn)
		// Registers: the fp32 accumulators (BM·BN spread over the block's
		// threads) plus ~40 a thread for addresses and fragments; under
		// PairMMA the accumulators are in tensor memory.
		regs := (bm*bn/ThreadsPerBlock + 40) * ThreadsPerBlock
		if g.PairMMA {
			regs = 40 * ThreadsPerBlock
		}
		r.BlocksPerSM = max(1, min(g.SharedMemPerSM/stage, g.RegistersPerSM/regs, g.MaxBlocksPerSM))
		resident := sms * r.BlocksPerSM
		r.Waves = ceilDiv(r.Blocks, resident)
		// The blocks of one wave cover a rows×cols patch of C's tiles and
		// share their tiles of A and B through L2: a wave reads its rows'
		// strips of A and its columns' strips of B from HBM once.
		tilesM, tilesN := ceilDiv(c.M, bm), ceilDiv(c.N, bn)
		rows := min(tilesM, int(math.Ceil(math.Sqrt(float64(min(resident, r.Blocks))))))
		cols := min(tilesN, ceilDiv(min(resident, r.Blocks), rows))
		perWave := float64(rows*bm+cols*bn) * K * B
		r.HBMBytes = float64(r.Waves)*perWave + writeC
		r.SmemBytes = 2 * float64(r.Blocks) * float64(bm+bn) * K * B
		// Compute: each wave runs BlocksPerSM tiles on every SM, sharing
		// its tensor cores, at TensorEfficiency of the peak.
		eff := TensorEfficiency
		if c.Dtype == hw.FP8 && !c.BlockScaled {
			eff = FP8TensorEfficiency
		}
		perSM := peak / float64(sms) * eff // an SM's (a pair's) share
		tileFLOPs := 2 * float64(bm) * float64(bn) * K
		// Full waves keep every SM at BlocksPerSM tiles; in the last,
		// partial wave the busiest SM has ceil(rest ÷ SMs) tiles (the
		// tail of the last wave).
		full, rest := r.Blocks/resident, r.Blocks%resident
		perSMTiles := full*r.BlocksPerSM + ceilDiv(rest, sms)
		r.ComputeS = float64(perSMTiles) * tileFLOPs / perSM
		if c.BlockScaled {
			// Per 128 of K an output element takes 2·128 tensor FLOPs
			// and one FP32 FMA (2 FLOPs) on the CUDA cores, a fifth of
			// the time again on Hopper (FP8 peak ÷ (128 × FP32 peak) =
			// 0.23, at the tensor cores' full rate).
			tile := float64(perSMTiles) * float64(bm*bn)
			promote := tile * float64(ceilDiv(c.K, ScaleBlock)) * 2 / (cuda / float64(sms))
			epilogue := tile * 2 / (g.HBMBandwidth / float64(sms))
			r.ComputeS += promote + epilogue
		}
		r.SmemS = r.SmemBytes / smemBW
	default:
		return r, fmt.Errorf("kernel: %q; allowed naive, smem-tiled, tensor-tiled", c.Kernel)
	}
	if r.Waves == 0 {
		r.Waves = ceilDiv(r.Blocks, g.SMs*max(1, r.BlocksPerSM))
	}
	r.MemoryS = r.HBMBytes / g.HBMBandwidth
	r.TimeS = max(r.ComputeS, r.MemoryS, r.SmemS)
	switch {
	case r.TimeS <= r.ComputeS:
		r.Bound = "compute"
	case r.SmemS > r.MemoryS:
		// A tiled kernel on CUDA cores reads both operands of every
		// multiply-add from shared memory: its banks, not HBM, set the
		// pace.
		r.Bound = "shared-memory"
	default:
		r.Bound = "memory"
	}
	return r, nil
}

// GEMMMetrics are the numbers of gpuscope gemm (the page uses the same
// names).
type GEMMMetrics struct {
	TimeS       float64 `json:"time_s"`
	TFLOPS      float64 `json:"tflops"`
	HBMBytes    float64 `json:"hbm_bytes"`
	SmemBytes   float64 `json:"smem_bytes"`
	FLOPs       float64 `json:"flops"`
	Intensity   float64 `json:"intensity_flop_per_byte"`
	Bound       string  `json:"bound"`
	Utilization float64 `json:"utilization"`
	Blocks      int     `json:"blocks"`
	Waves       int     `json:"waves"`
	ComputeS    float64 `json:"compute_s"`
	MemoryS     float64 `json:"memory_s"`
}

// Metrics reports achieved TFLOP/s, intensity (FLOP per HBM byte) and
// utilisation of the dtype's peak.
func (r GEMMResult) Metrics() GEMMMetrics {
	m := GEMMMetrics{
		TimeS: r.TimeS, HBMBytes: r.HBMBytes, SmemBytes: r.SmemBytes, FLOPs: r.FLOPs,
		Bound: r.Bound, Blocks: r.Blocks, Waves: r.Waves, ComputeS: r.ComputeS, MemoryS: r.MemoryS,
	}
	if r.TimeS > 0 {
		m.TFLOPS = r.FLOPs / r.TimeS / 1e12
		m.Utilization = r.FLOPs / r.TimeS / r.Peak
	}
	if r.HBMBytes > 0 {
		m.Intensity = r.FLOPs / r.HBMBytes
	}
	return m
}
