package parallel

import "math"

// The seeds' worked numbers, as functions so the lessons and the tests
// show the same arithmetic.

// SeedStateBytes is seed 001's count of a model's trainable state: 16-bit
// weights plus Adam's two moments kept in 16 bits as well (2 + 2·2 = 6
// bytes a parameter: 100B → 200 GB + 400 GB = 600 GB). The ZeRO paper's
// mixed-precision count (ZeROStates) is 16 bytes a parameter, because it
// also keeps FP32 master weights and FP32 moments.
func SeedStateBytes(params float64) (weights, optimizer float64) {
	return 2 * params, 4 * params
}

// CardsNeeded is how many GPUs of capacity bytes hold total bytes if
// nothing is replicated: ⌈total ÷ capacity⌉ (seed 001: 800 GB–1.2 TB on
// 80 GB H100s → 10–15 cards).
func CardsNeeded(total, capacity float64) int {
	if capacity <= 0 {
		return 0
	}
	return int(math.Ceil(total/capacity - 1e-9))
}

// Budget is seed 001's step of a 100B model on a cluster: compute, the
// data-parallel gradient sync, the TP all-gathers (overlapped with
// compute on NVLink, so not on the critical path) and the pipeline
// bubble, in seconds.
type Budget struct {
	Compute, DPSync, TPComm, Bubble float64
	TPOverlapped                    bool
}

// SeedBudget is the seed's figures: 300 ms compute, 200 ms gradient
// all-reduce, 50 ms TP all-gather overlapped, a 0–100 ms bubble (bubble
// is the caller's pick in that range).
func SeedBudget(bubble float64) Budget {
	return Budget{Compute: 0.300, DPSync: 0.200, TPComm: 0.050, Bubble: bubble, TPOverlapped: true}
}

// Step is the step time: the parts on the critical path added up.
func (b Budget) Step() float64 {
	s := b.Compute + b.DPSync + b.Bubble
	if !b.TPOverlapped {
		s += b.TPComm
	}
	return s
}

// Faster is Amdahl's law on the budget: the step when compute alone runs
// speedup× faster (1.2 for "20% faster"); the rest does not move.
func (b Budget) Faster(speedup float64) Budget {
	b.Compute /= speedup
	return b
}

// NaiveSyncSeconds is the seed's estimate of a gradient sync: the
// gradient bytes divided by the link's bandwidth (100B in bf16 = 200 GB
// over NVLink's 900 GB/s ≈ 0.22 s). A ring all-reduce sends 2(n−1)/n of
// the bytes each way per GPU at one direction's bandwidth: a plan's
// dp_comm_s counts that.
func NaiveSyncSeconds(bytes, bandwidth float64) float64 { return bytes / bandwidth }
