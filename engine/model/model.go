package model

import (
	"fmt"
	"sort"
)

// FFN is the feed-forward block's kind.
type FFN string

// Feed-forward kinds.
const (
	GeLU   FFN = "gelu"   // two matrices, h→f→h, with biases (GPT)
	SwiGLU FFN = "swiglu" // three matrices, gate and up h→f, down f→h, no biases (Llama)
)

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
	// Batch is the published global batch in sequences (0: unknown), the
	// planner's default.
	Batch  int
	Source string
}

// HeadDim is h ÷ a.
func (m Transformer) HeadDim() int { return m.Hidden / m.Heads }

// Validate names the first field out of range.
func (m Transformer) Validate() error {
	switch {
	case m.Layers < 1 || m.Layers > 1000:
		return fmt.Errorf("layers: %d; allowed 1–1000", m.Layers)
	case m.Hidden < 1 || m.Hidden > 1<<20:
		return fmt.Errorf("hidden: %d; allowed 1–1048576", m.Hidden)
	case m.Heads < 1 || m.Hidden%m.Heads != 0:
		return fmt.Errorf("heads: %d must divide hidden %d", m.Heads, m.Hidden)
	case m.KVHeads < 1 || m.Heads%m.KVHeads != 0:
		return fmt.Errorf("kv-heads: %d must divide heads %d", m.KVHeads, m.Heads)
	case m.Seq < 1 || m.Seq > 1<<24:
		return fmt.Errorf("seq: %d; allowed 1–16777216", m.Seq)
	case m.Vocab < 1 || m.Vocab > 1<<24:
		return fmt.Errorf("vocab: %d; allowed 1–16777216", m.Vocab)
	case m.FFNSize < 1:
		return fmt.Errorf("ffn: %d; must be positive", m.FFNSize)
	case m.FFN != GeLU && m.FFN != SwiGLU:
		return fmt.Errorf("ffn-kind: %q; allowed gelu, swiglu", m.FFN)
	}
	return nil
}

// LayerParams counts one transformer layer's parameters: attention (Q and
// O are h×h, K and V h×(kv·d)), the feed-forward block, and the norms.
func (m Transformer) LayerParams() float64 {
	h, f := float64(m.Hidden), float64(m.FFNSize)
	kv := float64(m.KVHeads * m.HeadDim())
	attn := 2*h*h + 2*h*kv
	var ffn float64
	switch m.FFN {
	case SwiGLU:
		ffn = 3 * h * f
	default:
		ffn = 2 * h * f
	}
	norms := 2 * h // RMSNorm scales
	if m.Biases {
		attn += 2*h + 2*kv // Q, K, V and output biases
		ffn += f + h
		norms = 4 * h // LayerNorm scale and shift
	}
	return attn + ffn + norms
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

// Params is the model's parameter count.
func (m Transformer) Params() float64 {
	return float64(m.Layers)*m.LayerParams() + m.EmbeddingParams()
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
		FFNSize: 28672, FFN: SwiGLU, Batch: 1024,
		Source: "Touvron et al. 2023 (arXiv 2307.09288; 4M-token batches of 4,096) and its released config.json"},
	{ID: "llama3-405b", Name: "Llama 3 405B", Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, Seq: 8192, Vocab: 128256,
		FFNSize: 53248, FFN: SwiGLU, Batch: 2048,
		Source: "Llama 3 herd of models (arXiv 2407.21783), Table 3 (16M-token batches of 8,192), and its released config.json"},
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
