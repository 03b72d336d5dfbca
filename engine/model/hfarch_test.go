package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hfEdit is the released config.json file with its keys edited: set
// (a value of nil deletes the key).
func hfEdit(t *testing.T, file string, set map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hf", file))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Llama 3 70B (meta-llama/Meta-Llama-3-70B's config.json) by hand:
// attention 2·8192² + 2·8192·1024 = 150,994,944, the gated MLP
// 3·8192·28672 = 704,643,072, two norms 16,384: 855,654,400 a layer,
// × 80 = 68,452,352,000; embedding and output 2·128,256·8192 plus the
// final norm: 70,553,706,496, Meta's 70.6B.
const llama3_70BByHand = 70553706496

// The architecture decides what the fields mean (issue 36): a Llama with
// hidden_act gelu is still Llama's gated MLP (a GeGLU: SwiGLU's shape),
// not an ungated one (51.8B); GPT-2 stays ungated.
func TestHFGatedWhateverTheActivation(t *testing.T) {
	for _, act := range []string{"silu", "gelu", "gelu_pytorch_tanh", ""} {
		data := hfEdit(t, "llama3-70b.json", map[string]any{"hidden_act": act})
		m, err := FromHFConfig(data, 8192)
		if err != nil {
			t.Fatalf("hidden_act %q: %v", act, err)
		}
		if m.FFN != SwiGLU || m.Params() != llama3_70BByHand {
			t.Errorf("Llama 3 70B with hidden_act %q: %s, %.0f parameters; want swiglu, %d", act, m.FFN, m.Params(), llama3_70BByHand)
		}
		if strings.HasPrefix(act, "gelu") && !strings.Contains(m.Source, "GeGLU") {
			t.Errorf("hidden_act %q: Source %q does not say it is a gated GELU", act, m.Source)
		}
	}
	// The same for every gated architecture, a mixture of experts too.
	silu, err := FromHFConfig(hfEdit(t, "mixtral-8x7b.json", nil), 4096)
	if err != nil {
		t.Fatal(err)
	}
	gelu, err := FromHFConfig(hfEdit(t, "mixtral-8x7b.json", map[string]any{"hidden_act": "gelu"}), 4096)
	if err != nil || gelu.Params() != silu.Params() || gelu.ActiveParams() != silu.ActiveParams() {
		t.Errorf("Mixtral with gelu: %v, %.4g (%.4g active); with silu %.4g (%.4g)", err, gelu.Params(), gelu.ActiveParams(), silu.Params(), silu.ActiveParams())
	}
	// GPT-2 small: c_fc and c_proj, ungated, whatever hidden_act says.
	g, err := FromHFConfig([]byte(`{"model_type":"gpt2","n_layer":12,"n_embd":768,"n_head":12,"n_positions":1024,"vocab_size":50257,"hidden_act":"silu"}`), 0)
	if err != nil || g.FFN != GeLU || g.FFNSize != 4*768 {
		t.Errorf("GPT-2: %v, %s %d wide", err, g.FFN, g.FFNSize)
	}
}

// A mixture of experts' expert count as its class reads it (issue 36): 0
// is not a model Mixtral's, DeepSeek's or Llama 4's class builds, and is
// refused by name; Qwen's MoE classes build a dense model of it; a key
// the file leaves out takes its class's default (MixtralConfig: 8
// experts, top 2), so Mixtral without them is Mixtral, not a dense 7.24B.
func TestHFExpertCounts(t *testing.T) {
	mixtral, err := FromHFConfig(hfEdit(t, "mixtral-8x7b.json", nil), 4096)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file string
		set  map[string]any
		want string
	}{
		{"mixtral-8x7b.json", map[string]any{"num_local_experts": 0}, "num_local_experts: 0; allowed 1–65536 (model_type mixtral is a mixture of experts"},
		{"mixtral-8x7b.json", map[string]any{"num_local_experts": nil, "num_experts": 0}, "num_experts: 0; allowed 1–65536"},
		{"mixtral-8x7b.json", map[string]any{"num_local_experts": -8}, "num_local_experts: -8; allowed 1–65536"},
		{"mixtral-8x7b.json", map[string]any{"num_experts": 4}, "num_local_experts: 8 and num_experts: 4 are one setting in model_type mixtral"},
		{"deepseek-v3.json", map[string]any{"n_routed_experts": 0}, "n_routed_experts: 0; allowed 1–65536 (model_type deepseek_v3"},
		{"deepseek-v2.json", map[string]any{"n_routed_experts": 0}, "n_routed_experts: 0; allowed 1–65536 (model_type deepseek_v2"},
		{"llama4-scout.json", map[string]any{"num_local_experts": 0}, "num_local_experts: 0; allowed 1–65536 (model_type llama4_text"},
	} {
		_, err := FromHFConfig(hfEdit(t, tt.file, tt.set), 4096)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s with %v: error %v, want %q", tt.file, tt.set, err, tt.want)
		}
	}
	// Left out: MixtralConfig's defaults, 8 experts and top 2.
	m, err := FromHFConfig(hfEdit(t, "mixtral-8x7b.json", map[string]any{"num_local_experts": nil, "num_experts_per_tok": nil}), 4096)
	if err != nil || m.Experts != 8 || m.TopK != 2 || m.Params() != mixtral.Params() {
		t.Errorf("Mixtral without its expert keys: %v, %d experts top %d, %.4g parameters; want 8, 2, %.4g", err, m.Experts, m.TopK, m.Params(), mixtral.Params())
	}
	// num_experts, MixtralConfig's name for the same setting, read as it.
	m, err = FromHFConfig(hfEdit(t, "mixtral-8x7b.json", map[string]any{"num_local_experts": nil, "num_experts": 4}), 4096)
	if err != nil || m.Experts != 4 {
		t.Errorf("Mixtral with num_experts 4: %v, %d experts", err, m.Experts)
	}
	// Qwen's: 0 experts, every layer Qwen2MoeMLP of intermediate_size.
	q, err := FromHFConfig(hfEdit(t, "qwen1.5-moe-a2.7b.json", map[string]any{"num_experts": 0}), 4096)
	if err != nil || q.MoE() || q.FFNSize != 5632 {
		t.Errorf("Qwen1.5-MoE with 0 experts: %v, MoE %v, ffn %d; want the dense model its class builds", err, q.MoE(), q.FFNSize)
	}
	// Left out: Qwen3MoeConfig's 128 experts of 768, top 8.
	q3, err := FromHFConfig(hfEdit(t, "qwen3-30b-a3b.json", nil), 4096)
	if err != nil {
		t.Fatal(err)
	}
	q, err = FromHFConfig(hfEdit(t, "qwen3-30b-a3b.json", map[string]any{"num_experts": nil, "num_experts_per_tok": nil, "moe_intermediate_size": nil}), 4096)
	if err != nil || q.Params() != q3.Params() || q.ActiveParams() != q3.ActiveParams() {
		t.Errorf("Qwen3-30B-A3B without its expert keys: %v, %.4g (%.4g active); want %.4g (%.4g)", err, q.Params(), q.ActiveParams(), q3.Params(), q3.ActiveParams())
	}
	// decoder_sparse_step 2: the MoE block on layers 1, 3, …; the others
	// Qwen3MoeMLP, intermediate_size (6144) wide.
	q, err = FromHFConfig(hfEdit(t, "qwen3-30b-a3b.json", map[string]any{"decoder_sparse_step": 2}), 4096)
	if want := q3.Params() - 24*(q3.MoELayerParams()-q3.LayerParams()); err != nil || q.MoEEvery != 2 || q.Params() != want || q3.LayerParams() == q3.MoELayerParams() {
		t.Errorf("Qwen3-30B-A3B with decoder_sparse_step 2: %v, every %d, %.4g parameters; want 2, %.4g", err, q.MoEEvery, q.Params(), want)
	}
}

// model_type decides which keys are read (issue 36): an unknown one is
// refused with those the reader knows, and a key of another architecture
// that would change the count is refused naming it — Llama with
// Mixtral's keys is not a 465B mixture, nor silently a 70B.
func TestHFModelTypeDecides(t *testing.T) {
	for _, tt := range []struct {
		set  map[string]any
		want []string
	}{
		{map[string]any{"model_type": "llama_moe"}, []string{`model_type: "llama_moe"; allowed deepseek_v2, deepseek_v3, gpt2, llama, llama4_text, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe`}},
		{map[string]any{"model_type": "Llama"}, []string{`model_type: "Llama"; allowed`}},
		{map[string]any{"model_type": "gpt_neox"}, []string{`model_type: "gpt_neox"; allowed`}},
		{map[string]any{"num_local_experts": 8},
			[]string{"num_local_experts: not read by model_type llama (LlamaForCausalLM); remove it, or use a model_type that reads it: deepseek_v3, llama4_text, mixtral, qwen3_moe"}},
		{map[string]any{"num_experts_per_tok": 2}, []string{"num_experts_per_tok: not read by model_type llama"}},
		{map[string]any{"kv_lora_rank": 512}, []string{"kv_lora_rank: not read by model_type llama", "deepseek_v2, deepseek_v3"}},
		{map[string]any{"n_embd": 8192}, []string{"n_embd: not read by model_type llama", "gpt2"}},
		{map[string]any{"decoder_sparse_step": 2}, []string{"decoder_sparse_step: not read by model_type llama", "qwen2_moe, qwen3_moe"}},
		{map[string]any{"model_type": nil, "num_local_experts": 8}, []string{"model_type: missing; num_local_experts is read by model_type deepseek_v3, llama4_text, mixtral, qwen3_moe only"}},
	} {
		_, err := FromHFConfig(hfEdit(t, "llama3-70b.json", tt.set), 0)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Llama 3 70B with %v: error %v, want %q", tt.set, err, w)
			}
		}
	}
	// The values that change nothing are read: Llama 3 70B as it is.
	m, err := FromHFConfig(hfEdit(t, "llama3-70b.json", map[string]any{"num_local_experts": 0, "decoder_sparse_step": 1, "n_embd": nil, "kv_lora_rank": nil}), 0)
	if err != nil || m.Params() != llama3_70BByHand {
		t.Errorf("Llama 3 70B with harmless keys: %v, %.0f", err, m.Params())
	}
	// GPT-2 reads n_inner, not intermediate_size; GQA is not GPT-2's.
	for _, k := range []string{"intermediate_size", "num_key_value_heads", "head_dim"} {
		_, err := FromHFConfig([]byte(`{"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,"n_positions":64,"vocab_size":100,"`+k+`":2}`), 0)
		if err == nil || !strings.Contains(err.Error(), k+": not read by model_type gpt2 (GPT2LMHeadModel)") {
			t.Errorf("GPT-2 with %s: %v", k, err)
		}
	}
}

// A read config is named as its reader knows it: _name_or_path (a local
// path's last part), else architectures' first, else model_type; the ID
// stays "hf-config".
func TestHFConfigName(t *testing.T) {
	for _, tt := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"_name_or_path": "meta-llama/Meta-Llama-3-70B"}, "meta-llama/Meta-Llama-3-70B"},
		{map[string]any{"_name_or_path": "/data/ckpt/llama3-70b-sft/"}, "llama3-70b-sft"},
		{map[string]any{}, "LlamaForCausalLM"},
		{map[string]any{"architectures": nil}, "llama"},
		{map[string]any{"architectures": nil, "model_type": nil}, "config.json"},
		{map[string]any{"_name_or_path": "a\nb" + strings.Repeat("x", 200)}, "ab" + strings.Repeat("x", 78) + "…"},
	} {
		m, err := FromHFConfig(hfEdit(t, "llama3-70b.json", tt.set), 0)
		if err != nil || m.Name != tt.want || m.ID != "hf-config" {
			t.Errorf("with %v: %v, name %q, id %q; want %q, hf-config", tt.set, err, m.Name, m.ID, tt.want)
		}
	}
}

// Bad config.json files get one error naming the field, never a panic,
// in bounded time and memory: the wrong types, deep nesting, a 100 MB
// file, and the findings of issue 36. Of duplicate keys the last wins,
// as in Python's json.loads.
func TestHFConfigBadFiles(t *testing.T) {
	good := string(hfEdit(t, "llama3-70b.json", nil))
	with := func(kv string) []byte { return []byte(strings.Replace(good, "{", "{"+kv+",", 1)) }
	set := func(key, val string) []byte { // key's value in the file replaced by val
		re := regexp.MustCompile(`"` + key + `":[^,}]*`)
		return re.ReplaceAll([]byte(good), []byte(`"`+key+`":`+val))
	}
	nested := func(n int) []byte {
		return []byte(`{"hidden_size":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	}
	big := make([]byte, 100<<20)
	copy(big, good)
	for i := len(good); i < len(big); i++ {
		big[i] = ' '
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"hidden_size a string", set("hidden_size", `"8192"`), `hidden_size: a JSON string; must be an integer`},
		{"num_hidden_layers a fraction", set("num_hidden_layers", `80.5`), `num_hidden_layers: 80.5; must be an integer`},
		{"num_local_experts a list", []byte(`{"model_type":"mixtral","num_local_experts":[8]}`), `num_local_experts: a JSON array; must be an integer`},
		{"architectures a string", with(`"architectures":"LlamaForCausalLM"`), `architectures: a JSON string; must be a list of strings`},
		{"tie_word_embeddings a string", set("tie_word_embeddings", `"false"`), `tie_word_embeddings: a JSON string; must be true or false`},
		{"model_type a number", set("model_type", `3`), `model_type: a JSON number; must be a string`},
		{"_name_or_path an object", with(`"_name_or_path":{}`), `_name_or_path: a JSON object; must be a string`},
		{"num_hidden_layers null", set("num_hidden_layers", `null`), `num_hidden_layers: missing`},
		{"a list, not an object", []byte(`[` + good + `]`), `a JSON array; must be an object`},
		{"100,000 nested arrays", nested(100000), "nested deeper than 1000 levels"},
		{"100,000 nested arrays at the top", []byte(strings.Repeat("[", 100000)), "nested deeper than 1000 levels"},
		{"100,000 nested objects", []byte(strings.Repeat(`{"a":`, 100000)), "nested deeper than 1000 levels"},
		{"100 MB", big, "config.json: 104857600 bytes; allowed at most 1048576"},
		{"truncated", []byte(good[:len(good)/2]), "config.json: offset"},
		{"unknown model_type", set("model_type", `"falcon"`), `model_type: "falcon"; allowed`},
		{"Llama with experts", with(`"num_local_experts":8`), "num_local_experts: not read by model_type llama"},
		{"Mixtral with 0 experts", []byte(strings.Replace(string(hfEdit(t, "mixtral-8x7b.json", nil)), `"num_local_experts":8`, `"num_local_experts":0`, 1)), "num_local_experts: 0; allowed 1–65536"},
		{"an unknown activation", set("hidden_act", `"relu2"`), `hidden_act: "relu2"; allowed silu, swish, gelu`},
		{"MoE layers every 0th", hfEdit(t, "llama4-scout.json", map[string]any{"interleave_moe_layer_step": 0}), "interleave_moe_layer_step: 0; allowed 1–48"},
		{"Qwen's sparse step a fraction", hfEdit(t, "qwen3-30b-a3b.json", map[string]any{"decoder_sparse_step": 1.5}), "decoder_sparse_step: 1.5; must be an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				_, err = FromHFConfig(tt.data, 0)
			}()
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "config.json: ") {
				t.Errorf("error %v, want config.json: … %q", err, tt.want)
			} else if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error of %d lines: %q", strings.Count(err.Error(), "\n")+1, err)
			}
			if took > 2*time.Second {
				t.Errorf("took %v; allowed 2 s", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MB; allowed 64", alloc>>20)
			}
		})
	}
	// Duplicate keys: the last wins, as json.loads (and transformers)
	// read them.
	dup := with(`"num_hidden_layers":2`) // the file's own 80 comes after it
	m, err := FromHFConfig(dup, 0)
	if err != nil || m.Layers != 80 {
		t.Errorf("num_hidden_layers 2 then 80: %v, %d layers; want 80", err, m.Layers)
	}
	dup = bytes.Replace([]byte(good), []byte(`}`), []byte(`,"num_hidden_layers":2}`), 1)
	if m, err = FromHFConfig(dup, 0); err != nil || m.Layers != 2 {
		t.Errorf("num_hidden_layers 80 then 2: %v, %d layers; want 2", err, m.Layers)
	}
}
