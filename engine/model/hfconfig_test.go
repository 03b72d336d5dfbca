package model

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
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
	// Every architecture's released file: the mutations start from each.
	files, _ := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, 4096)
		}
	}
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
	ModelType             string   `json:"model_type"`
	Architectures         []string `json:"architectures"`
	Layers                *int     `json:"num_hidden_layers"`
	Hidden                *int     `json:"hidden_size"`
	Heads                 *int     `json:"num_attention_heads"`
	KVHeads               *int     `json:"num_key_value_heads"`
	Intermediate          *int     `json:"intermediate_size"`
	Vocab                 *int     `json:"vocab_size"`
	MaxPositions          *int     `json:"max_position_embeddings"`
	TieWordEmbeddings     *bool    `json:"tie_word_embeddings"`
	HiddenAct             string   `json:"hidden_act"`
	NLayer                *int     `json:"n_layer"`
	NEmbd                 *int     `json:"n_embd"`
	NHead                 *int     `json:"n_head"`
	NPositions            *int     `json:"n_positions"`
	NInner                *int     `json:"n_inner"`
	HeadDim               *int     `json:"head_dim"`
	AttentionBias         *bool    `json:"attention_bias"`
	MLPBias               *bool    `json:"mlp_bias"`
	NumLocalExperts       *int     `json:"num_local_experts"`
	NumExperts            *int     `json:"num_experts"`
	NRoutedExperts        *int     `json:"n_routed_experts"`
	ExpertsPerTok         *int     `json:"num_experts_per_tok"`
	MoEIntermediate       *int     `json:"moe_intermediate_size"`
	SharedIntermediate    *int     `json:"shared_expert_intermediate_size"`
	NSharedExperts        *int     `json:"n_shared_experts"`
	FirstKDense           *int     `json:"first_k_dense_replace"`
	MoELayerFreq          *int     `json:"moe_layer_freq"`
	DecoderSparseStep     *int     `json:"decoder_sparse_step"`
	TopkMethod            string   `json:"topk_method"`
	ScoringFunc           string   `json:"scoring_func"`
	IntermediateMLP       *int     `json:"intermediate_size_mlp"`
	InterleaveMoE         *int     `json:"interleave_moe_layer_step"`
	QLoRARank             *int     `json:"q_lora_rank"`
	KVLoRARank            *int     `json:"kv_lora_rank"`
	QKNopeDim             *int     `json:"qk_nope_head_dim"`
	QKRopeDim             *int     `json:"qk_rope_head_dim"`
	VHeadDim              *int     `json:"v_head_dim"`
	NextNPredict          *int     `json:"num_nextn_predict_layers"`
	AttentionDropout      *float64 `json:"attention_dropout"`
	ResidPdrop            *float64 `json:"resid_pdrop"`
	AttnPdrop             *float64 `json:"attn_pdrop"`
	EmbdPdrop             *float64 `json:"embd_pdrop"`
	HiddenDropoutProb     *float64 `json:"hidden_dropout_prob"`
	AttentionProbsDropout *float64 `json:"attention_probs_dropout_prob"`
	HiddenDropout         *float64 `json:"hidden_dropout"`
	NameOrPath            string   `json:"_name_or_path"`
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

// Dropout is read from the config where it says, else from the family:
// GPT-2's resid_pdrop 0.1 trains with it; Llama's attention_dropout 0.0
// and a SwiGLU config without any dropout key without; one key above
// zero turns it on; a probability out of range is refused, named.
func TestFromHFConfigDropout(t *testing.T) {
	base := `"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100,"max_position_embeddings":128`
	for _, c := range []struct {
		json    string
		dropout bool
	}{
		{`{` + base + `,"intermediate_size":128,"hidden_act":"silu"}`, false},
		{`{` + base + `,"intermediate_size":128,"hidden_act":"silu","attention_dropout":0.0}`, false},
		{`{` + base + `,"intermediate_size":128,"hidden_act":"silu","attention_dropout":0.1}`, true},
		{`{` + base + `,"intermediate_size":256,"hidden_act":"gelu"}`, true},
		{`{` + base + `,"intermediate_size":256,"hidden_act":"gelu","hidden_dropout":0,"attention_dropout":0}`, false},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,"n_positions":128,"vocab_size":100,"resid_pdrop":0.1,"attn_pdrop":0.1,"embd_pdrop":0.1}`, true},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,"n_positions":128,"vocab_size":100,"resid_pdrop":0,"attn_pdrop":0,"embd_pdrop":0}`, false},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,"n_positions":128,"vocab_size":100}`, true},
	} {
		m, err := FromHFConfig([]byte(c.json), 0)
		if err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		if m.NoDropout == c.dropout {
			t.Errorf("%s: dropout %v, want %v", c.json, !m.NoDropout, c.dropout)
		}
	}
	for _, f := range []string{"0.0", "1.0", "-0.1"} {
		_, err := FromHFConfig([]byte(`{`+base+`,"intermediate_size":128,"hidden_act":"silu","attention_dropout":0,"resid_pdrop":`+f+`}`), 0)
		if f == "0.0" && err != nil || f != "0.0" && (err == nil || !strings.Contains(err.Error(), "resid_pdrop: ") || !strings.Contains(err.Error(), "0 ≤ p < 1")) {
			t.Errorf("resid_pdrop %s: %v", f, err)
		}
	}
	for _, id := range []string{"llama3-405b", "llama2-70b", "mixtral-8x7b", "deepseek-v3"} {
		if p, _ := Preset(id); !p.NoDropout {
			t.Errorf("%s trains with dropout; its paper's model does not", id)
		}
	}
	if p, _ := Preset("gpt3-175b"); p.NoDropout {
		t.Error("GPT-3 175B without dropout; Megatron's GPT trains with it")
	}
	for _, f := range []string{"llama-3.1-8b", "mixtral-8x7b", "deepseek-v3", "qwen2.5-7b"} {
		data, err := os.ReadFile("testdata/hf/" + f + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if m, err := FromHFConfig(data, 4096); err != nil || !m.NoDropout {
			t.Errorf("%s: dropout %v (%v); its config says attention_dropout 0.0", f, !m.NoDropout, err)
		}
	}
}
