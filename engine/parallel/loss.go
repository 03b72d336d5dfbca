package parallel

import "fmt"

// Loss is how a stack runs the cross-entropy over the logits of the last
// stage: passes through HBM over its b·s × V/t values, each way, counted
// from the stacks' code (a value read and written in FP32 is 8 bytes).
type Loss string

// The cross-entropy implementations of the stacks the engine reproduces.
const (
	// LossMegatron is Megatron's vocab-parallel cross-entropy as
	// Megatron-LM (2019–) and Megatron-Core run it by default
	// (megatron/core/tensor_parallel/cross_entropy.py): forward, the BF16
	// logits cast to FP32 (read 2, write 4), their maximum (read 4), the
	// maximum subtracted in place (8), exp in place (8), the sum (4) and
	// the division by it in place (8): 38 bytes a logit; backward, the
	// softmax scaled by the loss's gradient in place (8) and autograd's
	// cast back to BF16 (read 4, write 2): 14. "" is this.
	LossMegatron Loss = "megatron"
	// LossMegatronFused is Megatron-Core's --cross-entropy-loss-fusion
	// (megatron/core/fusions/fused_cross_entropy.py; NeMo 2.0's default):
	// the cast and maximum in one kernel (6), the subtraction inside exp
	// (8), the sum (4), the division (8): 26 forward; backward as the
	// unfused (14): 40 bytes a logit.
	LossMegatronFused Loss = "megatron-fused"
	// LossPyTorch is torch.nn.functional.cross_entropy over the logits
	// cast to FP32 in eager mode (torchtitan's loss, which torch.compile
	// of the layers leaves out; Hugging Face's): the cast (6),
	// log_softmax's three reads and one write (16); backward, nll_loss's
	// zero-filled gradient (4), log_softmax's backward reading the
	// gradient twice and the output once and writing (16), the cast back
	// (6): 48 bytes a logit.
	LossPyTorch Loss = "pytorch"
	// LossFused is one kernel each way over the BF16 logits (flash-attn's
	// cross_entropy, which llm-foundry's fused_crossentropy runs; Liger's):
	// forward reads the logits once (2: the maximum and the sum of exps
	// online), backward reads them again and writes their gradient (4).
	LossFused Loss = "fused"
)

// Losses are the implementations a plan can name, in the order help
// lists them.
var Losses = []Loss{LossMegatron, LossMegatronFused, LossPyTorch, LossFused}

// ParseLoss reads a --cross-entropy value ("" is Megatron's).
func ParseLoss(s string) (Loss, error) {
	if s == "" {
		return LossMegatron, nil
	}
	for _, l := range Losses {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("cross-entropy: %q; allowed megatron, megatron-fused, pytorch, fused", s)
}

// bytes is the loss's HBM traffic a logit, forward and backward.
func (l Loss) bytes() (fwd, bwd float64) {
	switch l {
	case LossMegatronFused:
		return 26, 14
	case LossPyTorch:
		return 22, 26
	case LossFused:
		return 2, 4
	}
	return 38, 14
}
