package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
)

// FFN is the feed-forward block's kind.
type FFN string

// Feed-forward kinds. An ungated block is two matrices, up h→f and down
// f→h, with its activation between (GeLU, ReLU, squared ReLU); a gated
// one three (SwiGLU).
const (
	GeLU   FFN = "gelu"   // two matrices, GeLU between, with biases (GPT)
	SwiGLU FFN = "swiglu" // three matrices, gate and up h→f, down f→h, no biases (Llama)
	// ReLU: two matrices, ReLU between (OPT: Zhang et al. 2022, arXiv
	// 2205.01068, §2.1, with GPT-3's biases, learned positions and tied
	// embeddings).
	ReLU FFN = "relu"
	// SquaredReLU: two matrices, relu(x)² between (So et al. 2021,
	// "Primer", arXiv 2109.08668; Megatron-LM's --squared-relu,
	// megatron/core/activations.py: torch.pow(F.relu(x), 2)), as
	// Nemotron-4 has it (15B: arXiv 2402.16819 §2; 340B: arXiv 2406.11704
	// §2.1: squared ReLU in the MLP, no bias terms, dropout zero, rotary
	// positions, untied input and output embeddings).
	SquaredReLU FFN = "relu2"
)

// FFNKinds are the feed-forward kinds, in the order they are listed.
func FFNKinds() []FFN { return []FFN{GeLU, SwiGLU, ReLU, SquaredReLU} }

// ffnKindNames lists the kinds for a message: "gelu, swiglu, relu, relu2".
func ffnKindNames() string {
	var s []string
	for _, k := range FFNKinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Gated says whether the block gates its activation with a second
// product of its input (SwiGLU: three matrices, gate and up in one
// product).
func (k FFN) Gated() bool { return k == SwiGLU }

// GPTStyle says how a model from sizes alone is built around the
// kind, as the family it comes from was: GeLU as GPT-2 and GPT-3 and
// ReLU as OPT (linear layers with biases, LayerNorm, learned positions,
// tied embeddings, dropout); SwiGLU as Llama and squared ReLU as
// Nemotron-4 (no biases, rotary positions, untied embeddings, no
// dropout).
func (k FFN) GPTStyle() bool { return k == GeLU || k == ReLU }

// Transformer is a decoder-only language model's shape.
type Transformer struct {
	ID      string
	Name    string
	Layers  int // L
	Hidden  int // h
	Heads   int // a
	KVHeads int // grouped-query attention: heads sharing K and V (= Heads for MHA)
	Seq     int // s, the training sequence length
	Vocab   int // V
	FFNSize int // f (4h for GPT)
	FFN     FFN
	// Biases: GPT-style linear layers with biases and LayerNorm (scale and
	// shift); without, RMSNorm (scale only), as Llama.
	Biases bool
	// LearnedPositions adds an s×h position embedding (GPT); rotary
	// embeddings have no parameters (Llama).
	LearnedPositions bool
	// Tied embeddings share the input embedding with the output layer.
	Tied bool
	// HeadSize is a head's width when it is not h ÷ a (Qwen3's head_dim);
	// 0: h ÷ a.
	HeadSize int
	// QKVBias: Q, K and V projections with biases, the others without
	// (Qwen2). QKNorm: an RMSNorm over each head's Q and K (Qwen3).
	QKVBias, QKNorm bool

	// A mixture of experts (Experts > 0): each MoE layer's feed-forward
	// block is Experts routed experts (SwiGLU, ExpertFFN wide), of which
	// the router (an h×Experts matrix) sends each token to TopK, and
	// shared experts every token goes through, SharedFFN wide in all
	// (DeepSeek: n_shared_experts × moe_intermediate_size; Qwen2-MoE: one
	// of shared_expert_intermediate_size, with a sigmoid gate of h
	// weights, SharedGate). The first DenseLayers layers are dense, FFNSize
	// wide (DeepSeek's first_k_dense_replace); past them, with MoEEvery
	// above 1, only every MoEEvery-th layer is an MoE layer — layer l
	// (from 0) when (l+1) mod MoEEvery = 0, as Llama 4's
	// interleave_moe_layer_step and Qwen's decoder_sparse_step place them
	// (Llama 4 Maverick: 2, its odd layers) — and the others are dense
	// (MoELayer). RouterBias: a bias per expert in the router
	// (DeepSeek-V3's e_score_correction_bias).
	Experts, TopK, ExpertFFN int
	SharedFFN                int
	SharedGate, RouterBias   bool
	DenseLayers              int
	MoEEvery                 int

	// Multi-head latent attention (KVLoRA > 0, DeepSeek-V2 and V3): K and
	// V come from a KVLoRA-wide latent (plus a shared QKRope-wide rotary
	// key), Q from a QLoRA-wide one (0: straight from h); each head's
	// query and key are QKNope + QKRope wide, its value VHead.
	QLoRA, KVLoRA, QKNope, QKRope, VHead int

	// NoDropout: trained without dropout (Llama, Mixtral, DeepSeek-V3):
	// no masks stored, no dropout in the elementwise passes. GPT-style
	// models (Megatron's GPT, GPT-3) train with it.
	NoDropout bool

	// MTPLayers are multi-token-prediction modules (DeepSeek-V3's one),
	// trained beside the model and counted apart (MTPParams), not in
	// Params: the 671B DeepSeek-V3 is without its 14B module.
	MTPLayers int

	// Batch is the published global batch in sequences (0: unknown), the
	// planner's default.
	Batch  int
	Source string
}

// HeadDim is a head's width: HeadSize, or h ÷ a.
func (m Transformer) HeadDim() int {
	if m.HeadSize > 0 {
		return m.HeadSize
	}
	return m.Hidden / m.Heads
}

// MoE says whether the model is a mixture of experts.
func (m Transformer) MoE() bool { return m.Experts > 0 }

// MLA says whether its attention is multi-head latent attention.
func (m Transformer) MLA() bool { return m.KVLoRA > 0 }

// Validate names the first field out of range.
func (m Transformer) Validate() error {
	switch {
	case m.Layers < 1 || m.Layers > 1000:
		return errs.Range("layers", m.Layers, 1, 1000, "")
	case m.Hidden < 1 || m.Hidden > 1<<20:
		return errs.Range("hidden", m.Hidden, 1, 1<<20, "")
	case m.Heads < 1 || m.Heads > 1<<14:
		return errs.Range("heads", m.Heads, 1, 1<<14, "")
	case m.HeadSize < 0 || m.HeadSize > 1<<14:
		return fmt.Errorf("head-dim: %d; allowed 0 (hidden ÷ heads) or 1–16384", m.HeadSize)
	case m.HeadSize == 0 && !m.MLA() && m.Hidden%m.Heads != 0:
		return errs.F("heads_hidden", "heads: %d must divide hidden %d", "heads hidden", m.Heads, m.Hidden)
	case m.KVHeads < 1 || m.Heads%m.KVHeads != 0:
		return errs.F("kv_heads", "kv-heads: %d must divide heads %d", "kv heads", m.KVHeads, m.Heads)
	case m.Seq < 1 || m.Seq > 1<<24:
		return errs.Range("seq", m.Seq, 1, 1<<24, "")
	case m.Vocab < 1 || m.Vocab > 1<<24:
		return errs.Range("vocab", m.Vocab, 1, 1<<24, "")
	case m.FFNSize < 1:
		return errs.Positive("ffn", m.FFNSize)
	case !slices.Contains(FFNKinds(), m.FFN):
		return fmt.Errorf("ffn-kind: %q; allowed %s", m.FFN, ffnKindNames())
	case m.Experts < 0 || m.Experts > 1<<16:
		return fmt.Errorf("experts: %d; allowed 0 (dense) or 1–65536", m.Experts)
	case m.MTPLayers < 0 || m.MTPLayers > m.Layers:
		return errs.F("mtp_layers", "mtp-layers: %d; allowed 0–%d", "n hi", m.MTPLayers, m.Layers)
	case m.MoEEvery < 0 || m.MoEEvery > m.Layers:
		return errs.Range("moe-every", m.MoEEvery, 0, m.Layers, " (0 or 1: every layer past the dense ones)")
	}
	if m.MoE() {
		switch {
		case m.TopK < 1 || m.TopK > m.Experts:
			return errs.Range("top-k", m.TopK, 1, m.Experts, " (the experts)")
		case m.ExpertFFN < 1:
			return errs.Positive("expert-ffn", m.ExpertFFN)
		case m.SharedFFN < 0:
			return fmt.Errorf("shared-ffn: %d; must be 0 or more", m.SharedFFN)
		case m.DenseLayers < 0 || m.DenseLayers >= m.Layers:
			return errs.Range("dense-layers", m.DenseLayers, 0, m.Layers-1, " (fewer than the layers)")
		case m.FFN != SwiGLU:
			return errs.F("moe_swiglu", "ffn-kind: %q; a mixture of experts' experts are swiglu", "kind", m.FFN)
		case m.MoELayers() == 0:
			return fmt.Errorf("moe-every: %d with dense-layers %d of %d layers: no MoE layer left", m.MoEEvery, m.DenseLayers, m.Layers)
		}
	} else if m.MoEEvery != 0 {
		return fmt.Errorf("moe-every: %d with experts 0; a dense model has no MoE layers", m.MoEEvery)
	} else if m.TopK != 0 || m.ExpertFFN != 0 || m.SharedFFN != 0 || m.DenseLayers != 0 {
		return fmt.Errorf("experts: 0 with top-k %d, expert-ffn %d, shared-ffn %d, dense-layers %d; a dense model has none of them", m.TopK, m.ExpertFFN, m.SharedFFN, m.DenseLayers)
	}
	if m.MLA() {
		switch {
		case m.QLoRA < 0:
			return fmt.Errorf("q-lora-rank: %d; allowed 0 (none) or more", m.QLoRA)
		case m.QKNope < 1 || m.QKRope < 1 || m.VHead < 1:
			return errs.F("mla_dims", "qk-nope-head-dim, qk-rope-head-dim, v-head-dim: %d, %d, %d; each must be positive with kv-lora-rank", "nope rope v", m.QKNope, m.QKRope, m.VHead)
		}
	} else if m.KVLoRA < 0 || m.QLoRA != 0 || m.QKNope != 0 || m.QKRope != 0 || m.VHead != 0 {
		return errs.F("mla_kv", "kv-lora-rank: %d with q-lora-rank %d and head dims %d, %d, %d; latent attention needs a positive kv-lora-rank", "kv q nope rope v", m.KVLoRA, m.QLoRA, m.QKNope, m.QKRope, m.VHead)
	}
	return nil
}

// LayerParams counts one dense transformer layer's parameters: attention
// (Q h×(a·d), O (a·d)×h, K and V h×(kv·d)), the feed-forward block
// FFNSize wide, and the norms. A mixture of experts' MoE layers differ
// (MoELayerParams).
func (m Transformer) LayerParams() float64 {
	return m.AttentionParams() + m.denseFFN() + m.norms()
}

// AttentionParams counts one layer's attention: its projections, their
// biases (GPT's four, Qwen2's three) and per-head norms; with latent
// attention, the down and up projections of the latents, their norms
// and the output projection.
func (m Transformer) AttentionParams() float64 {
	h, a := float64(m.Hidden), float64(m.Heads)
	if m.MLA() {
		return m.LatentAttentionParams(1)
	}
	d := float64(m.HeadDim())
	qw, kv := a*d, float64(m.KVHeads)*d
	attn := 2*h*qw + 2*h*kv
	switch {
	case m.Biases:
		attn += qw + 2*kv + h // Q, K, V and output biases
	case m.QKVBias:
		attn += qw + 2*kv
	}
	if m.QKNorm {
		attn += 2 * d
	}
	return attn
}

// LatentAttentionParams are a latent-attention layer's attention
// parameters on one of tp tensor-parallel GPUs: the down projections of Q
// (when it has a latent) and of K and V with the shared rotary key, and
// their norms, whole on each; the up projections and the output split
// over tp. With tp = 1, the layer's own.
func (m Transformer) LatentAttentionParams(tp float64) float64 {
	h, a := float64(m.Hidden), float64(m.Heads)
	qk := float64(m.QKNope + m.QKRope)
	q := h * a * qk / tp
	if m.QLoRA > 0 {
		r := float64(m.QLoRA)
		q = h*r + r + r*a*qk/tp // down, its norm, up
	}
	r := float64(m.KVLoRA)
	kv := h*(r+float64(m.QKRope)) + r + r*a*float64(m.QKNope+m.VHead)/tp // down (with the rotary key), norm, up
	return q + kv + a*float64(m.VHead)*h/tp
}

// denseFFN counts a dense feed-forward block, FFNSize wide: 2·h·f for
// an ungated block (GeLU, ReLU, squared ReLU), 3·h·f for a gated one,
// and with Biases the up projection's f and the down projection's h.
func (m Transformer) denseFFN() float64 {
	h, f := float64(m.Hidden), float64(m.FFNSize)
	ffn := 2 * h * f
	if m.FFN.Gated() {
		ffn = 3 * h * f
	}
	if m.Biases {
		ffn += f + h
	}
	return ffn
}

// norms counts a layer's two norms: RMSNorm scales, or LayerNorm scales
// and shifts.
func (m Transformer) norms() float64 {
	if m.Biases {
		return 4 * float64(m.Hidden)
	}
	return 2 * float64(m.Hidden)
}

// ExpertParams counts one routed expert (SwiGLU, ExpertFFN wide).
func (m Transformer) ExpertParams() float64 {
	return 3 * float64(m.Hidden) * float64(m.ExpertFFN)
}

// moeFFN counts an MoE layer's feed-forward block with k of its routed
// experts (all of them: k = Experts): the router, the shared experts and
// their gate.
func (m Transformer) moeFFN(k int) float64 {
	h, e := float64(m.Hidden), float64(m.Experts)
	p := float64(k)*m.ExpertParams() + 3*h*float64(m.SharedFFN) + h*e
	if m.RouterBias {
		p += e
	}
	if m.SharedGate {
		p += h
	}
	return p
}

// MoELayerParams counts one MoE layer with every expert; a dense model's
// layer for a dense model.
func (m Transformer) MoELayerParams() float64 {
	if !m.MoE() {
		return m.LayerParams()
	}
	return m.AttentionParams() + m.moeFFN(m.Experts) + m.norms()
}

// MoELayer says whether layer l (from 0) is an MoE layer: past the
// first DenseLayers, and with MoEEvery above 1 one whose l+1 it divides.
// A layer past the last (a multi-token-prediction module, trained after
// it) is of the last layer's kind.
func (m Transformer) MoELayer(l int) bool { return m.MoELayersIn(l, l+1) == 1 }

// MoELayers is how many of the model's layers are MoE layers.
func (m Transformer) MoELayers() int { return m.MoELayersIn(0, m.Layers) }

// MoELayersIn counts the MoE layers among layers a to b−1 (those past
// the last counted as the last): in closed form, for the pipeline's
// stages to count theirs without a walk over every layer.
func (m Transformer) MoELayersIn(a, b int) int {
	if !m.MoE() || m.Layers < 1 || b <= a {
		return 0
	}
	n := 0
	if b > m.Layers {
		// The layers past the last, each of its kind.
		if m.MoELayersIn(m.Layers-1, m.Layers) == 1 {
			n += b - max(a, m.Layers)
		}
		b = m.Layers
	}
	lo := max(a, m.DenseLayers)
	if b <= lo {
		return n
	}
	if m.MoEEvery <= 1 {
		return n + b - lo
	}
	// Layers l in [lo, b) with (l+1) mod k = 0: the multiples of k in
	// lo+1 … b.
	k := m.MoEEvery
	return n + b/k - lo/k
}

// EmbeddingParams counts the input embedding, the output layer unless
// tied, learned positions, and the final norm.
func (m Transformer) EmbeddingParams() float64 {
	h := float64(m.Hidden)
	p := float64(m.Vocab) * h
	if !m.Tied {
		p *= 2
	}
	if m.LearnedPositions {
		p += float64(m.Seq) * h
	}
	if m.Biases {
		p += 2 * h
	} else {
		p += h
	}
	return p
}

// Params is the model's parameter count: every expert of every layer
// and the embeddings, without multi-token-prediction modules.
func (m Transformer) Params() float64 {
	moe := m.MoELayers()
	return float64(m.Layers-moe)*m.LayerParams() + float64(moe)*m.MoELayerParams() + m.EmbeddingParams()
}

// ActiveParams are the parameters a token goes through: for a mixture
// of experts its TopK routed experts of each MoE layer (with the router
// and the shared experts), the rest of the model whole; Params for a
// dense model. The embeddings count, as the published "active" figures
// count them (Mixtral's 12.9B, DeepSeek-V3's 37B).
func (m Transformer) ActiveParams() float64 {
	if !m.MoE() {
		return m.Params()
	}
	moe := float64(m.MoELayers())
	return float64(m.Layers-m.MoELayers())*m.LayerParams() +
		moe*(m.AttentionParams()+m.moeFFN(m.TopK)+m.norms()) + m.EmbeddingParams()
}

// MTPParams counts the multi-token-prediction modules (MTPLayers), apart
// from Params: each a layer like the last (an MoE layer in a mixture of
// experts), the projection of the joined hidden state and embedding
// (2h×h) and its three norms; the embedding and output head are the
// model's own.
func (m Transformer) MTPParams() float64 {
	if m.MTPLayers == 0 {
		return 0
	}
	h := float64(m.Hidden)
	layer := m.LayerParams()
	if m.MoELayer(m.Layers) {
		layer = m.MoELayerParams()
	}
	return float64(m.MTPLayers) * (layer + 2*h*h + 3*h)
}

// MegatronParams is Narayanan et al.'s closed form for GPT models:
// P = 12·L·h²·(1 + 13/(12h) + (V + s)/(12·L·h)).
func MegatronParams(layers, hidden, vocab, seq int) float64 {
	L, h, V, s := float64(layers), float64(hidden), float64(vocab), float64(seq)
	return 12 * L * h * h * (1 + 13/(12*h) + (V+s)/(12*L*h))
}

// ModelFLOPs is the training FLOPs of one iteration over a global batch of
// B sequences without recomputation (Korthikanti et al.):
// 72·B·L·s·h²·(1 + s/(6h) + V/(12·h·L)). With full recomputation the
// hardware does a fourth pass: 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)).
func (m Transformer) ModelFLOPs(batch int, recompute bool) float64 {
	B, L, s, h, V := float64(batch), float64(m.Layers), float64(m.Seq), float64(m.Hidden), float64(m.Vocab)
	if recompute {
		return 96 * B * s * L * h * h * (1 + s/(6*h) + V/(16*L*h))
	}
	return 72 * B * L * s * h * h * (1 + s/(6*h) + V/(12*h*L))
}

var presets = []Transformer{
	{ID: "gpt3-175b", Name: "GPT-3 175B", Layers: 96, Hidden: 12288, Heads: 96, KVHeads: 96, Seq: 2048, Vocab: 51200,
		FFNSize: 4 * 12288, FFN: GeLU, Biases: true, LearnedPositions: true, Tied: true, Batch: 1536,
		Source: "Brown et al. 2020 (arXiv 2005.14165), Table 2.1 (3.2M-token batch; 1,536 sequences as Megatron-LM runs it); vocabulary padded to 51,200 as Megatron-LM does"},
	{ID: "gpt3-xl", Name: "GPT-3 XL 1.3B", Layers: 24, Hidden: 2048, Heads: 16, KVHeads: 16, Seq: 2048, Vocab: 51200,
		FFNSize: 4 * 2048, FFN: GeLU, Biases: true, LearnedPositions: true, Tied: true, Batch: 512,
		Source: "Brown et al. 2020 (arXiv 2005.14165), Table 2.1: GPT-3 XL, 1.3B, 24 layers, d 2048, 16 heads, 1M-token batch"},
	{ID: "seed-100b", Name: "100B (the seed's)", Layers: 80, Hidden: 10240, Heads: 80, KVHeads: 80, Seq: 2048, Vocab: 51200,
		FFNSize: 4 * 10240, FFN: GeLU, Biases: true, LearnedPositions: true, Tied: true, Batch: 1024,
		Source: "a GPT-style model of 100B parameters (12·L·h² with L = 80, h = 10240) for the seed's worked numbers"},
	{ID: "megatron-1t", Name: "Megatron 1T", Layers: 128, Hidden: 25600, Heads: 160, KVHeads: 160, Seq: 2048, Vocab: 51200,
		FFNSize: 4 * 25600, FFN: GeLU, Biases: true, LearnedPositions: true, Tied: true, Batch: 3072,
		Source: "Narayanan et al. 2021 (arXiv 2104.04473), Table 1: 1008B, 160 heads, h 25600, 128 layers, batch 3072"},
	{ID: "llama2-70b", Name: "Llama 2 70B", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, Seq: 4096, Vocab: 32000,
		FFNSize: 28672, FFN: SwiGLU, NoDropout: true, Batch: 1024,
		Source: "Touvron et al. 2023 (arXiv 2307.09288; 4M-token batches of 4,096) and its released config.json"},
	{ID: "llama3-405b", Name: "Llama 3 405B", Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, Seq: 8192, Vocab: 128256,
		FFNSize: 53248, FFN: SwiGLU, NoDropout: true, Batch: 2048,
		Source: "Llama 3 herd of models (arXiv 2407.21783), Table 3 (16M-token batches of 8,192), and its released config.json"},
	{ID: "mixtral-8x7b", Name: "Mixtral 8x7B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, Seq: 32768, Vocab: 32000,
		FFNSize: 14336, FFN: SwiGLU, NoDropout: true, Experts: 8, TopK: 2, ExpertFFN: 14336,
		Source: "Jiang et al. 2024 (arXiv 2401.04088), Table 1 (8 experts, top 2, 32k context) and its released config.json: 46.7B parameters, 12.9B active"},
	{ID: "deepseek-v3", Name: "DeepSeek-V3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, Seq: 4096, Vocab: 129280,
		FFNSize: 18432, FFN: SwiGLU, NoDropout: true, Experts: 256, TopK: 8, ExpertFFN: 2048, SharedFFN: 2048, DenseLayers: 3, RouterBias: true,
		QLoRA: 1536, KVLoRA: 512, QKNope: 128, QKRope: 64, VHead: 128, MTPLayers: 1, Batch: 15360,
		Source: "DeepSeek-V3 technical report (arXiv 2412.19437) §4.2 (4K sequences, the batch raised to 15,360) and its released config.json: 671B parameters, 37B active, the MTP module apart"},
	// The models planned most, each its released config.json (the file of
	// engine/model/testdata/hf, read by FromHFConfig into the same count:
	// TestPresetsAreTheirConfigs) and its published count
	// (TestPresetParams); no published global batch (Batch 0).
	{ID: "llama3-8b", Name: "Llama 3 8B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, Seq: 8192, Vocab: 128256,
		FFNSize: 14336, FFN: SwiGLU, NoDropout: true,
		Source: "meta-llama/Meta-Llama-3-8B config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, FFN 14336, vocab 128,256, 8K sequences as Meta pre-trained them): 8.03B parameters, 8,030,261,248 in the checkpoint"},
	{ID: "llama3-70b", Name: "Llama 3 70B", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, Seq: 8192, Vocab: 128256,
		FFNSize: 28672, FFN: SwiGLU, NoDropout: true,
		Source: "meta-llama/Meta-Llama-3-70B config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, FFN 28672, vocab 128,256, 8K sequences): 70.6B parameters, 70,553,706,496 in the checkpoint"},
	{ID: "qwen2.5-7b", Name: "Qwen2.5 7B", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, Seq: 4096, Vocab: 152064,
		FFNSize: 18944, FFN: SwiGLU, QKVBias: true, NoDropout: true,
		Source: "Qwen/Qwen2.5-7B config.json (28 layers, hidden 3584, 28 heads, 4 KV heads, Q, K and V biases, FFN 18944, vocab 152,064); 4K sequences, the first phase of Qwen2.5's pre-training (arXiv 2412.15115 §3.3): 7.61B parameters, 7,615,616,512 in the checkpoint"},
	{ID: "qwen2.5-72b", Name: "Qwen2.5 72B", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, Seq: 4096, Vocab: 152064,
		FFNSize: 29568, FFN: SwiGLU, QKVBias: true, NoDropout: true,
		Source: "Qwen/Qwen2.5-72B config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, Q, K and V biases, FFN 29568, vocab 152,064); 4K sequences, the first phase of Qwen2.5's pre-training (arXiv 2412.15115 §3.3): 72.7B parameters (Qwen's model card)"},
	{ID: "mixtral-8x22b", Name: "Mixtral 8x22B", Layers: 56, Hidden: 6144, Heads: 48, KVHeads: 8, Seq: 65536, Vocab: 32000,
		FFNSize: 16384, FFN: SwiGLU, NoDropout: true, Experts: 8, TopK: 2, ExpertFFN: 16384,
		Source: "mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, 48 heads, 8 KV heads, 8 experts of FFN 16384, top 2, vocab 32,000, 64K context); Mistral AI's release (mistral.ai/news/mixtral-8x22b): 141B parameters, 39B active"},
	// Llama 4: the released config.json's text_config (Llama4TextConfig),
	// the language model without the vision encoder Meta's totals
	// include (about 0.87B). Meta publishes no pre-training sequence
	// length but a 256K long-context stage; 8K is gpuscope's choice, as
	// its attention_chunk_size: give --seq for another.
	{ID: "llama4-scout", Name: "Llama 4 Scout", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, Seq: 8192, Vocab: 202048,
		FFNSize: 16384, FFN: SwiGLU, NoDropout: true, Experts: 16, TopK: 1, ExpertFFN: 8192, SharedFFN: 8192,
		Source: "meta-llama/Llama-4-Scout-17B-16E config.json, its text_config (48 layers, hidden 5120, 40 heads of 128, 8 KV heads, 16 routed experts and 1 shared of FFN 8192, top 1, vocab 202,048); Meta's model card: 109B parameters with the vision encoder, 17B active"},
	{ID: "llama4-maverick", Name: "Llama 4 Maverick", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, Seq: 8192, Vocab: 202048,
		FFNSize: 16384, FFN: SwiGLU, NoDropout: true, Experts: 128, TopK: 1, ExpertFFN: 8192, SharedFFN: 8192, MoEEvery: 2,
		Source: "meta-llama/Llama-4-Maverick-17B-128E config.json, its text_config (48 layers, hidden 5120, 40 heads of 128, 8 KV heads; on every other layer 128 routed experts and 1 shared of FFN 8192, top 1, the others dense of FFN 16384; vocab 202,048); Meta's model card: 400B parameters, 17B active"},
}

// Preset returns a published model by id.
func Preset(id string) (Transformer, bool) {
	for _, p := range presets {
		if p.ID == id {
			return p, true
		}
	}
	return Transformer{}, false
}

// PresetIDs lists the presets' ids, sorted.
func PresetIDs() []string {
	ids := make([]string, len(presets))
	for i, p := range presets {
		ids[i] = p.ID
	}
	sort.Strings(ids)
	return ids
}
