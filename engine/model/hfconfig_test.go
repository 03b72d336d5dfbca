package model

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
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

// hfConfigJSON is hfConfig with the json tags FromHFConfig read it by
// when it used encoding/json: the reference parseHFConfig is held to.
type hfConfigJSON struct {
	ModelType          string   `json:"model_type"`
	Architectures      []string `json:"architectures"`
	Layers             *int     `json:"num_hidden_layers"`
	Hidden             *int     `json:"hidden_size"`
	Heads              *int     `json:"num_attention_heads"`
	KVHeads            *int     `json:"num_key_value_heads"`
	Intermediate       *int     `json:"intermediate_size"`
	Vocab              *int     `json:"vocab_size"`
	MaxPositions       *int     `json:"max_position_embeddings"`
	TieWordEmbeddings  *bool    `json:"tie_word_embeddings"`
	HiddenAct          string   `json:"hidden_act"`
	NLayer             *int     `json:"n_layer"`
	NEmbd              *int     `json:"n_embd"`
	NHead              *int     `json:"n_head"`
	NPositions         *int     `json:"n_positions"`
	NInner             *int     `json:"n_inner"`
	HeadDim            *int     `json:"head_dim"`
	AttentionBias      *bool    `json:"attention_bias"`
	MLPBias            *bool    `json:"mlp_bias"`
	NumLocalExperts    *int     `json:"num_local_experts"`
	NumExperts         *int     `json:"num_experts"`
	NRoutedExperts     *int     `json:"n_routed_experts"`
	ExpertsPerTok      *int     `json:"num_experts_per_tok"`
	MoEIntermediate    *int     `json:"moe_intermediate_size"`
	SharedIntermediate *int     `json:"shared_expert_intermediate_size"`
	NSharedExperts     *int     `json:"n_shared_experts"`
	FirstKDense        *int     `json:"first_k_dense_replace"`
	MoELayerFreq       *int     `json:"moe_layer_freq"`
	DecoderSparseStep  *int     `json:"decoder_sparse_step"`
	TopkMethod         string   `json:"topk_method"`
	ScoringFunc        string   `json:"scoring_func"`
	QLoRARank          *int     `json:"q_lora_rank"`
	KVLoRARank         *int     `json:"kv_lora_rank"`
	QKNopeDim          *int     `json:"qk_nope_head_dim"`
	QKRopeDim          *int     `json:"qk_rope_head_dim"`
	VHeadDim           *int     `json:"v_head_dim"`
	NextNPredict       *int     `json:"num_nextn_predict_layers"`
}

// checkLikeEncodingJSON fails unless parseHFConfig accepts data exactly
// when encoding/json.Unmarshal does, with the same fields.
func checkLikeEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	var want hfConfigJSON
	stdErr := json.Unmarshal(data, &want)
	var got hfConfig
	err := parseHFConfig(data, &got)
	if tinyjson.TooDeep(err) {
		return // encoding/json reads on to 10,000 levels
	}
	if (err == nil) != (stdErr == nil) {
		t.Fatalf("parseHFConfig(%q) error %v; encoding/json %v", data, err, stdErr)
	}
	if err == nil && !reflect.DeepEqual(got, hfConfig(want)) {
		t.Fatalf("parseHFConfig(%q) = %+v; encoding/json %+v", data, got, hfConfig(want))
	}
}

func TestParseHFConfigLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{
		llama3405B, `null`, `{}`, `[]`, `"x"`, `{"hidden_size":"8"}`, `{"hidden_size":8.0}`, `{"hidden_size":1e3}`,
		`{"hidden_size":9223372036854775808}`, `{"hidden_size":-0}`, `{"hidden_size":null}`, `{"hidden_size":1,"hidden_size":null}`,
		`{"HIDDEN_SIZE":4,"hidden_size":5}`, `{"hidden_size":5,"Hidden_Size":4}`, `{"rms_norm_eps":1e400}`,
		`{"architectures":["A",null]}`, `{"architectures":["a","b"],"architectures":[null]}`,
		`{"architectures":["a","b"],"architectures":["x"],"architectures":[null,null]}`, `{"architectures":[]}`,
		`{"architectures":[1]}`, `{"architectures":"A"}`, `{"tie_word_embeddings":1}`, `{"tie_word_embeddings":true}`,
		`{"model_type":5,"hidden_size":"x"}`, `{"model_type":null}`, `{"nested":{"hidden_size":1}}`,
		`{"hidden_ſize":3}`, // ſ folds to s, as in encoding/json
	} {
		checkLikeEncodingJSON(t, []byte(s))
	}
}

// FuzzParseHFConfig holds parseHFConfig to encoding/json on any input.
func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(llama3405B))
	f.Add([]byte(`{"architectures":["a","b"],"architectures":[null],"N_LAYER":2,"n_layer":null,"hidden_act":"gelu"}`))
	f.Fuzz(checkLikeEncodingJSON)
}
