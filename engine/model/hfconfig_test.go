package model

import (
	"math"
	"strings"
	"testing"
)

// Llama 3 405B's released config.json (the shape fields).
const llama3405B = `{
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "hidden_size": 16384, "intermediate_size": 53248, "max_position_embeddings": 131072,
  "num_attention_heads": 128, "num_hidden_layers": 126, "num_key_value_heads": 8,
  "tie_word_embeddings": false, "vocab_size": 128256, "rms_norm_eps": 1e-05
}`

func TestFromHFConfig(t *testing.T) {
	m, err := FromHFConfig([]byte(llama3405B), 8192)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Preset("llama3-405b")
	if m.Params() != p.Params() || m.Seq != 8192 || m.Name != "LlamaForCausalLM" {
		t.Errorf("from config.json: %.6g params, seq %d, name %q; the preset has %.6g", m.Params(), m.Seq, m.Name, p.Params())
	}
	gpt2 := `{"model_type":"gpt2","n_layer":12,"n_embd":768,"n_head":12,"n_positions":1024,"vocab_size":50257}`
	g, err := FromHFConfig([]byte(gpt2), 0)
	if err != nil {
		t.Fatal(err)
	}
	// GPT-2 small: 124.4M parameters.
	if got := g.Params(); math.Abs(got-124.44e6)/124.44e6 > 0.002 {
		t.Errorf("GPT-2 small: %.5g parameters, want 124.44M", got)
	}
}

func TestFromHFConfigErrors(t *testing.T) {
	tests := []struct{ json, field string }{
		{`{`, "config.json"},
		{`{"hidden_size":4096,"num_attention_heads":32,"vocab_size":32000,"intermediate_size":11008,"hidden_act":"silu","max_position_embeddings":4096}`, "num_hidden_layers"},
		{`{"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"vocab_size":32000,"hidden_act":"silu","max_position_embeddings":4096}`, "intermediate_size"},
		{`{"num_hidden_layers":-1,"hidden_size":4096,"num_attention_heads":32,"vocab_size":32000}`, "num_hidden_layers"},
		{`{"num_hidden_layers":2,"hidden_size":4096,"num_attention_heads":32,"vocab_size":32000,"intermediate_size":1,"hidden_act":"relu2"}`, "hidden_act"},
		{`{"num_hidden_layers":2,"hidden_size":4096,"num_attention_heads":30,"vocab_size":32000,"intermediate_size":8,"hidden_act":"silu","max_position_embeddings":8}`, "heads"},
	}
	for _, tt := range tests {
		if _, err := FromHFConfig([]byte(tt.json), 0); err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("FromHFConfig(%.40s…) error %v, want it to name %s", tt.json, err, tt.field)
		}
	}
}

// Any bytes: an error or a valid model, never a panic.
func FuzzFromHFConfig(f *testing.F) {
	f.Add([]byte(llama3405B), 0)
	f.Add([]byte(`{"model_type":"gpt2","n_layer":1,"n_embd":8,"n_head":2,"n_positions":8,"vocab_size":10}`), 16)
	f.Fuzz(func(t *testing.T, data []byte, seq int) {
		m, err := FromHFConfig(data, seq)
		if err == nil {
			if verr := m.Validate(); verr != nil {
				t.Errorf("accepted an invalid model: %v", verr)
			}
			_ = m.Params()
		}
	})
}
