package model

import (
	"slices"
	"strings"
)

// hfArch is an architecture FromHFConfig models: the model_type values
// transformers files it under, the class it builds, and what that class
// reads of config.json. The architecture decides what a key means, as
// transformers' own configuration and modelling code do: its MLP is
// gated whatever hidden_act names (Llama's down(act(gate(x)) · up(x))),
// keys of another architecture are not read by it (refused when they
// would change the count), and a key it defaults takes its class's
// default when config.json leaves it out.
type hfArch struct {
	types []string // model_type values, as transformers spells them
	class string   // the class transformers builds, for messages
	// gpt2: GPT-2's ungated MLP (c_fc, act, c_proj) with biases,
	// LayerNorm, learned positions and tied embeddings; else a gated
	// decoder (Llama's MLP, RMSNorm, rotary positions).
	gpt2            bool
	qkvBias, qkNorm bool // Qwen2's Q, K and V biases; Qwen3's per-head norms
	// experts names the routed experts' key and its attribute_map
	// aliases (MixtralConfig's num_experts for num_local_experts); empty
	// for a dense architecture.
	experts []string
	// zeroDense: experts 0 builds a dense model, as Qwen's MoE classes do
	// (modeling_qwen2_moe.py: an MoE block where `config.num_experts > 0`,
	// Qwen2MoeMLP of intermediate_size elsewhere); otherwise 0 experts is
	// not a model the class can build, and is refused.
	zeroDense bool
	// reads are the keys of hfArchKeys the class reads; the others,
	// present at a value that would change the count, are refused.
	reads []string
	// def are the class's defaults for the keys of hfArchKeys (and
	// num_key_value_heads) it defaults, taken when config.json leaves
	// the key out (not when it writes null: transformers then takes
	// None, which each key's reading below handles); a key it reads with
	// no default here is required.
	def map[string]int
	// file is where def comes from: transformers'
	// src/transformers/models/<dir>/configuration_<dir>.py.
	file string
}

// hfArchKeys are the config.json keys that some architecture reads and
// that change the parameter count: a config whose architecture does not
// read one is refused while it holds a value other than null, 0, false,
// "", [] or (for the steps) 1 — never silently ignored, nor read as
// another architecture's (Llama's LlamaForCausalLM has no experts).
var hfArchKeys = []string{
	"n_layer", "n_embd", "n_head", "n_positions", "n_inner",
	"num_key_value_heads", "intermediate_size", "head_dim",
	"num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
	"moe_intermediate_size", "shared_expert_intermediate_size", "n_shared_experts",
	"first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers",
	"topk_method", "scoring_func",
	"intermediate_size_mlp", "interleave_moe_layer_step", "moe_layers",
	"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "num_nextn_predict_layers",
}

// gated are the keys every gated decoder reads (attention_bias and
// mlp_bias only at false: hfUnmodelled refuses them true).
var gated = []string{"num_key_value_heads", "intermediate_size", "head_dim", "attention_bias", "mlp_bias"}

var deepseekKeys = []string{"num_experts_per_tok", "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace",
	"moe_layer_freq", "topk_method", "scoring_func", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}

// hfArches are the architectures FromHFConfig reads, with their classes'
// defaults as transformers' configuration files give them.
var hfArches = []hfArch{
	{types: []string{"gpt2"}, class: "GPT2LMHeadModel", gpt2: true,
		reads: []string{"n_layer", "n_embd", "n_head", "n_positions", "n_inner"}, file: "gpt2"},
	{types: []string{"llama"}, class: "LlamaForCausalLM", reads: gated, file: "llama"},
	{types: []string{"mistral"}, class: "MistralForCausalLM", reads: gated,
		def: map[string]int{"num_key_value_heads": 8}, file: "mistral"},
	{types: []string{"qwen2"}, class: "Qwen2ForCausalLM", qkvBias: true, reads: gated,
		def: map[string]int{"num_key_value_heads": 32}, file: "qwen2"},
	{types: []string{"qwen3"}, class: "Qwen3ForCausalLM", qkNorm: true, reads: gated,
		def: map[string]int{"num_key_value_heads": 32, "head_dim": 128}, file: "qwen3"},
	{types: []string{"mixtral"}, class: "MixtralForCausalLM",
		experts: []string{"num_local_experts", "num_experts"},
		reads:   append(slices.Clone(gated), "num_local_experts", "num_experts", "num_experts_per_tok"),
		def:     map[string]int{"num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2}, file: "mixtral"},
	{types: []string{"qwen2_moe"}, class: "Qwen2MoeForCausalLM", qkvBias: true, zeroDense: true,
		experts: []string{"num_experts"},
		reads: append(slices.Clone(gated), "num_experts", "num_experts_per_tok", "moe_intermediate_size",
			"shared_expert_intermediate_size", "decoder_sparse_step", "mlp_only_layers"),
		def: map[string]int{"num_key_value_heads": 16, "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
			"shared_expert_intermediate_size": 5632, "decoder_sparse_step": 1}, file: "qwen2_moe"},
	{types: []string{"qwen3_moe"}, class: "Qwen3MoeForCausalLM", qkNorm: true, zeroDense: true,
		experts: []string{"num_experts", "num_local_experts"},
		reads: append(slices.Clone(gated), "num_experts", "num_local_experts", "num_experts_per_tok", "moe_intermediate_size",
			"decoder_sparse_step", "mlp_only_layers"),
		def: map[string]int{"num_key_value_heads": 4, "num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768,
			"decoder_sparse_step": 1}, file: "qwen3_moe"},
	{types: []string{"deepseek_v2"}, class: "DeepseekV2ForCausalLM",
		experts: []string{"n_routed_experts", "num_experts"},
		reads:   append(append(slices.Clone(gated), "n_routed_experts", "num_experts"), deepseekKeys...),
		def: map[string]int{"n_routed_experts": 64, "moe_intermediate_size": 1407, "n_shared_experts": 2, "first_k_dense_replace": 0,
			"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}, file: "deepseek_v2"},
	{types: []string{"deepseek_v3"}, class: "DeepseekV3ForCausalLM",
		experts: []string{"n_routed_experts", "num_local_experts"},
		reads:   append(append(slices.Clone(gated), "n_routed_experts", "num_local_experts", "num_nextn_predict_layers"), deepseekKeys...),
		def: map[string]int{"num_key_value_heads": 128, "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
			"n_shared_experts": 1, "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
			"qk_rope_head_dim": 64, "v_head_dim": 128}, file: "deepseek_v3"},
	// Llama 4's language model (Llama4TextConfig; the multimodal
	// Llama4Config nests it under text_config): routed experts of
	// intermediate_size, one shared expert as wide, top-1 routing, and
	// dense layers intermediate_size_mlp wide between the MoE layers
	// when interleave_moe_layer_step > 1 (modeling_llama4.py:
	// Llama4TextDecoderLayer, Llama4TextMoe).
	{types: []string{"llama4_text"}, class: "Llama4ForCausalLM",
		experts: []string{"num_local_experts"},
		reads: append(slices.Clone(gated), "num_local_experts", "num_experts_per_tok", "intermediate_size_mlp",
			"interleave_moe_layer_step", "moe_layers"),
		def: map[string]int{"num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 16, "num_experts_per_tok": 1,
			"intermediate_size_mlp": 16384, "interleave_moe_layer_step": 1}, file: "llama4"},
}

// hfGeneric is how a config.json without model_type is read. transformers
// refuses such a file (AutoConfig cannot pick a class); gpuscope reads
// it as a dense decoder by its key names, as it always has, and says so
// in the model's Source: GPT-2's names (n_layer, n_embd, n_head) as
// GPT-2; otherwise a gated decoder of intermediate_size with silu or
// swish (or no hidden_act), Llama's; with a GeLU, a GPT-style ungated
// one with biases. Keys only a mixture of experts or latent attention
// reads are refused: which one they are is model_type's to say.
var hfGeneric = hfArch{class: "a dense decoder",
	reads: append(slices.Clone(gated), "n_layer", "n_embd", "n_head", "n_positions", "n_inner")}

// HFModelTypes are the model_type values FromHFConfig reads, sorted.
func HFModelTypes() []string {
	var ts []string
	for _, a := range hfArches {
		ts = append(ts, a.types...)
	}
	slices.Sort(ts)
	return ts
}

// hfArchOf is the architecture of model_type t.
func hfArchOf(t string) (hfArch, bool) {
	for _, a := range hfArches {
		if slices.Contains(a.types, t) {
			return a, true
		}
	}
	return hfArch{}, false
}

// readersOf are the model_types whose class reads key, sorted.
func readersOf(key string) []string {
	var ts []string
	for _, a := range hfArches {
		if slices.Contains(a.reads, key) {
			ts = append(ts, a.types...)
		}
	}
	slices.Sort(ts)
	return ts
}

// archKey is the key of hfArchKeys k names (exactly, or ignoring case as
// the reader matches keys), or "".
func archKey(k string) string {
	for _, a := range hfArchKeys {
		if a == k {
			return a
		}
	}
	for _, a := range hfArchKeys {
		if strings.EqualFold(a, k) {
			return a
		}
	}
	return ""
}
