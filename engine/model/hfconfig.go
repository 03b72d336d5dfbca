package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// hfConfig is the part of a Hugging Face transformers config.json that
// fixes a decoder's shape.
type hfConfig struct {
	ModelType         string   `json:"model_type"`
	Architectures     []string `json:"architectures"`
	Layers            *int     `json:"num_hidden_layers"`
	Hidden            *int     `json:"hidden_size"`
	Heads             *int     `json:"num_attention_heads"`
	KVHeads           *int     `json:"num_key_value_heads"`
	Intermediate      *int     `json:"intermediate_size"`
	Vocab             *int     `json:"vocab_size"`
	MaxPositions      *int     `json:"max_position_embeddings"`
	TieWordEmbeddings *bool    `json:"tie_word_embeddings"`
	HiddenAct         string   `json:"hidden_act"`
	// GPT-2 style names.
	NLayer     *int `json:"n_layer"`
	NEmbd      *int `json:"n_embd"`
	NHead      *int `json:"n_head"`
	NPositions *int `json:"n_positions"`
	NInner     *int `json:"n_inner"`
}

// FromHFConfig reads a Hugging Face config.json (Llama, Mistral, Qwen and
// other gated-FFN decoders, or GPT-2 style) into a Transformer. A missing
// or out-of-range field is an error naming it; seq, when positive,
// overrides max_position_embeddings as the training sequence length.
func FromHFConfig(data []byte, seq int) (Transformer, error) {
	var c hfConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return Transformer{}, fmt.Errorf("config.json: %v", err)
	}
	pick := func(name string, ps ...*int) (int, error) {
		for _, p := range ps {
			if p != nil {
				if *p < 1 {
					return 0, fmt.Errorf("config.json: %s: %d; must be positive", name, *p)
				}
				return *p, nil
			}
		}
		return 0, fmt.Errorf("config.json: %s: missing", name)
	}
	var m Transformer
	var err error
	if m.Layers, err = pick("num_hidden_layers", c.Layers, c.NLayer); err != nil {
		return m, err
	}
	if m.Hidden, err = pick("hidden_size", c.Hidden, c.NEmbd); err != nil {
		return m, err
	}
	if m.Heads, err = pick("num_attention_heads", c.Heads, c.NHead); err != nil {
		return m, err
	}
	if m.Vocab, err = pick("vocab_size", c.Vocab); err != nil {
		return m, err
	}
	m.KVHeads = m.Heads
	if c.KVHeads != nil {
		if m.KVHeads, err = pick("num_key_value_heads", c.KVHeads); err != nil {
			return m, err
		}
	}
	gpt2 := c.NEmbd != nil || strings.EqualFold(c.ModelType, "gpt2")
	act := strings.ToLower(c.HiddenAct)
	switch {
	case gpt2:
		m.FFN, m.Biases, m.LearnedPositions, m.Tied = GeLU, true, true, true
		m.FFNSize = 4 * m.Hidden
		if c.NInner != nil && *c.NInner > 0 {
			m.FFNSize = *c.NInner
		}
	case act == "silu" || act == "swish" || act == "" && c.Intermediate != nil:
		m.FFN = SwiGLU
		if m.FFNSize, err = pick("intermediate_size", c.Intermediate); err != nil {
			return m, err
		}
	case strings.HasPrefix(act, "gelu"):
		m.FFN, m.Biases = GeLU, true
		if m.FFNSize, err = pick("intermediate_size", c.Intermediate); err != nil {
			return m, err
		}
	default:
		return m, fmt.Errorf("config.json: hidden_act: %q; allowed silu, swish, gelu…", c.HiddenAct)
	}
	if c.TieWordEmbeddings != nil {
		m.Tied = *c.TieWordEmbeddings
	}
	m.Seq = seq
	if m.Seq <= 0 {
		if m.Seq, err = pick("max_position_embeddings", c.MaxPositions, c.NPositions); err != nil {
			return m, err
		}
	}
	m.ID, m.Name = "hf-config", strings.TrimSpace(c.ModelType)
	if len(c.Architectures) > 0 {
		m.Name = c.Architectures[0]
	}
	m.Source = "a Hugging Face config.json"
	return m, m.Validate()
}
