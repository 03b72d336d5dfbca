package parallel

import "fmt"

// ModelStates are the bytes a GPU holds for parameters, gradients and
// optimizer states under mixed-precision Adam.
type ModelStates struct {
	Weights, Gradients, Optimizer float64
}

// Total is their sum.
func (m ModelStates) Total() float64 { return m.Weights + m.Gradients + m.Optimizer }

// ZeROStates are the model-state bytes per device for psi parameters,
// data-parallel degree n and ZeRO stage 0–3 (ZeRO paper, section 5):
// 2Ψ weights + 2Ψ gradients + KΨ optimizer states (K = 12: FP32 master
// weights, momentum and variance); stage 1 partitions the optimizer states,
// stage 2 the gradients too, stage 3 the weights too. bytesPerParam 18
// (Megatron-LM's FP32 gradient buffers, Korthikanti et al. Figure 1) adds
// 2Ψ of gradients (4 bytes instead of 2).
func ZeROStates(psi float64, n, stage, bytesPerParam int) (ModelStates, error) {
	if n < 1 {
		return ModelStates{}, fmt.Errorf("dp: %d; at least 1", n)
	}
	if stage < 0 || stage > 3 {
		return ModelStates{}, fmt.Errorf("zero: %d; allowed 0, 1, 2, 3", stage)
	}
	grad := 2.0
	switch bytesPerParam {
	case 16:
	case 18:
		grad = 4
	default:
		return ModelStates{}, fmt.Errorf("bytes-per-param: %d; allowed 16, 18", bytesPerParam)
	}
	N := float64(n)
	m := ModelStates{Weights: 2 * psi, Gradients: grad * psi, Optimizer: 12 * psi}
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
