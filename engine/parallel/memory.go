package parallel

import (
	"fmt"
	"strconv"
)

// ModelStates are the bytes a GPU holds for parameters, gradients and
// optimizer states under mixed-precision Adam.
type ModelStates struct {
	Weights, Gradients, Optimizer float64
}

// Total is their sum.
func (m ModelStates) Total() float64 { return m.Weights + m.Gradients + m.Optimizer }

// OptimizerStates is how Adam's two moments are stored (Plan's).
type OptimizerStates string

// Adam's moments.
const (
	// StatesFP32: 4 bytes each, mixed-precision training as the ZeRO
	// paper counts it (§3.1: K = 12 with the FP32 master weights). ""
	// is this.
	StatesFP32 OptimizerStates = "fp32"
	// StatesBF16: 2 bytes each, as Megatron-Core's precision-aware
	// optimizer stores them with --exp-avg-dtype bf16 --exp-avg-sq-dtype
	// bf16 (megatron/core/optimizer/optimizer_config.py: exp_avg_dtype,
	// exp_avg_sq_dtype, "used for storing the optimizer state in memory
	// … does not affect the precision in the kernel computation";
	// Transformer Engine's FusedAdam keeps them), and NeMo's distributed
	// Adam with optim.dtype bf16 (nemo/collections/nlp/models/
	// language_modeling/megatron_base_model.py, setup_optimization: the
	// optimizer's state dtype; the NeMo Framework Launcher's
	// conf/training/nemotron/nemotron_340b.yaml writes optim.dtype bf16).
	StatesBF16 OptimizerStates = "bf16"
	// States8Bit: a byte each and, for every block of EightBitBlock
	// values, its absolute maximum in FP32 — bitsandbytes' block-wise
	// 8-bit Adam (Dettmers et al. 2022, arXiv 2110.02861 §2;
	// bitsandbytes/optim/optimizer.py, Optimizer2State.init_state: state1
	// and state2 uint8, absmax1 and absmax2 float32, blocks of 256).
	States8Bit OptimizerStates = "8bit"
)

// EightBitBlock is the values sharing one FP32 absolute maximum in
// 8-bit Adam's block-wise quantization (bitsandbytes' blocksize 256;
// the paper's 2048): 1 + 4/256 bytes a moment a parameter.
const EightBitBlock = 256

// MasterWeights is how the optimizer keeps the weights it updates
// (Plan's).
type MasterWeights string

// The optimizer's weights.
const (
	// MasterFP32: an FP32 copy beside the 16-bit weights (4 bytes). ""
	// is this.
	MasterFP32 MasterWeights = "fp32"
	// MasterRemainder: only the 16 low bits of the FP32 value, its high
	// 16 bits being the BF16 weight itself (2 bytes): Megatron-Core's
	// store_param_remainders, on by default with the precision-aware
	// optimizer and BF16 (distrib_optimizer.py: the master parameter an
	// int16 shard), as apex's DistributedFusedAdam's
	// store_param_remainders before it.
	MasterRemainder MasterWeights = "remainder"
	// MasterNone: the 16-bit weights are updated in place, no copy
	// (0 bytes): NeMo's distributed Adam when its state dtype is the
	// model's (megatron_base_model.py, setup_optimization: store_params
	// False when optim.dtype is the model's dtype, BF16 and BF16).
	MasterNone MasterWeights = "none"
)

// StateBytes are a parameter's model-state bytes under mixed-precision
// Adam, by what holds them: the 16-bit weights, the gradients (2 bytes,
// or 4 in Megatron-LM's FP32 gradient buffers), the master weights and
// Adam's two moments.
type StateBytes struct {
	Weights   float64 `json:"weights"`
	Gradients float64 `json:"gradients"`
	Master    float64 `json:"master_weights"`
	Moment1   float64 `json:"moment1"`
	Moment2   float64 `json:"moment2"`
}

// Optimizer is the optimizer's bytes: master weights and moments (12
// in the ZeRO paper's count).
func (s StateBytes) Optimizer() float64 { return s.Master + s.Moment1 + s.Moment2 }

// Total is every model-state byte a parameter (16 in the ZeRO paper's
// count).
func (s StateBytes) Total() float64 { return s.Weights + s.Gradients + s.Optimizer() }

// AdamTraffic is the HBM bytes a parameter's Adam update moves: it
// reads the master weights, both moments and the gradient and writes
// the first three and the 16-bit weights; without a full FP32 master
// (remainders or none) it reads the 16-bit weights too, the value it
// updates. 12 + 2 + 12 + 2 = 28 in the ZeRO paper's count.
func (s StateBytes) AdamTraffic() float64 {
	read := s.Optimizer() + s.Gradients
	if s.Master < 4 {
		read += s.Weights
	}
	return read + s.Optimizer() + s.Weights
}

// String is the breakdown as gpuscope plan says it: "16 a parameter"
// for the ZeRO paper's count and Megatron-LM's 18, else each part
// ("12 a parameter: weights 2, gradients 2, master 4, moments 2 + 2").
func (s StateBytes) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	t := strconv.FormatFloat(s.Total(), 'g', 4, 64) + " a parameter"
	if s.Master == 4 && s.Moment1 == 4 && s.Moment2 == 4 {
		return t
	}
	return t + ": weights " + f(s.Weights) + ", gradients " + f(s.Gradients) + ", master " + f(s.Master) +
		", moments " + f(s.Moment1) + " + " + f(s.Moment2)
}

// NewStateBytes is a parameter's model-state bytes for bytesPerParam 16
// or 18 (the gradients' 2 or 4 bytes: Megatron-LM's FP32 gradient
// buffers, Korthikanti et al. Figure 1), Adam's moments stored as
// states says and the master weights as master says ("" for either:
// FP32).
func NewStateBytes(bytesPerParam int, states OptimizerStates, master MasterWeights) (StateBytes, error) {
	s := StateBytes{Weights: 2, Gradients: 2, Master: 4, Moment1: 4, Moment2: 4}
	switch bytesPerParam {
	case 16:
	case 18:
		s.Gradients = 4
	default:
		return s, fmt.Errorf("bytes-per-param: %d; allowed 16, 18", bytesPerParam)
	}
	switch states {
	case "", StatesFP32:
	case StatesBF16:
		s.Moment1, s.Moment2 = 2, 2
	case States8Bit:
		s.Moment1 = 1 + 4.0/EightBitBlock
		s.Moment2 = s.Moment1
	default:
		return s, fmt.Errorf("optimizer-states: %q; allowed fp32, bf16, 8bit", states)
	}
	switch master {
	case "", MasterFP32:
	case MasterRemainder:
		s.Master = 2
	case MasterNone:
		s.Master = 0
	default:
		return s, fmt.Errorf("master-weights: %q; allowed fp32, remainder, none", master)
	}
	return s, nil
}

// ZeROStates are the model-state bytes per device for psi parameters,
// data-parallel degree n and ZeRO stage 0–3 (ZeRO paper, section 5):
// 2Ψ weights + 2Ψ gradients + KΨ optimizer states (K = 12: FP32 master
// weights, momentum and variance); stage 1 partitions the optimizer states,
// stage 2 the gradients too, stage 3 the weights too. bytesPerParam 18
// (Megatron-LM's FP32 gradient buffers, Korthikanti et al. Figure 1) adds
// 2Ψ of gradients (4 bytes instead of 2).
func ZeROStates(psi float64, n, stage, bytesPerParam int) (ModelStates, error) {
	s, err := NewStateBytes(bytesPerParam, "", "")
	if err != nil {
		return ModelStates{}, err
	}
	return s.ZeRO(psi, n, stage)
}

// ZeRO are the model-state bytes per device for psi parameters of s's
// bytes, data-parallel degree n and ZeRO stage 0–3, as ZeROStates
// partitions them: K = s.Optimizer() in place of 12.
func (s StateBytes) ZeRO(psi float64, n, stage int) (ModelStates, error) {
	if n < 1 {
		return ModelStates{}, fmt.Errorf("dp: %d; at least 1", n)
	}
	if stage < 0 || stage > 3 {
		return ModelStates{}, fmt.Errorf("zero: %d; allowed 0, 1, 2, 3", stage)
	}
	N := float64(n)
	m := ModelStates{Weights: s.Weights * psi, Gradients: s.Gradients * psi, Optimizer: s.Optimizer() * psi}
	if stage >= 1 {
		m.Optimizer /= N
	}
	if stage >= 2 {
		m.Gradients /= N
	}
	if stage >= 3 {
		m.Weights /= N
	}
	return m, nil
}

// Recompute is what is kept of a layer's activations for the backward
// pass.
type Recompute string

// Recomputation choices.
const (
	RecomputeNone      Recompute = "none"
	RecomputeSelective Recompute = "selective" // attention's softmax and dropout recomputed
	RecomputeFull      Recompute = "full"      // only each layer's input kept
	// RecomputeOp is torchtitan's op-level selective checkpointing: the
	// outputs of the matrix products kept, except every second one a
	// layer, and of the attention core; every elementwise operation and
	// the other products run again (recomputeOp).
	RecomputeOp Recompute = "op"
)

// ActivationBytesPerLayer is one transformer layer's activation memory for
// a micro-batch of b sequences of s tokens, hidden h, a heads, tensor-
// parallel size t, with or without sequence parallelism (Korthikanti et
// al., Table 2; 16-bit activations, 1-byte dropout masks).
func ActivationBytesPerLayer(s, b, h, a, t int, sp bool, rc Recompute) float64 {
	S, B, H, A, T := float64(s), float64(b), float64(h), float64(a), float64(t)
	sbh := S * B * H
	switch rc {
	case RecomputeFull:
		return 2 * sbh / map[bool]float64{true: T, false: 1}[sp]
	case RecomputeSelective:
		if sp {
			return 34 * sbh / T
		}
		return sbh * (10 + 24/T)
	}
	if sp {
		return sbh / T * (34 + 5*A*S/H)
	}
	if t == 1 {
		return sbh * (34 + 5*A*S/H)
	}
	return sbh * (10 + 24/T + 5*A*S/(H*T))
}

// BubbleFraction is the pipeline bubble's share of the ideal time for p
// stages, m micro-batches and v model chunks per stage: (p−1)/(v·m), the
// GPipe and 1F1B schedules being v = 1 (Narayanan et al.).
func BubbleFraction(p, m, v int) float64 {
	if p < 1 || m < 1 || v < 1 {
		return 0
	}
	return float64(p-1) / (float64(v) * float64(m))
}
