package model

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Released config.json files (testdata/hf) against the sizes their
// publishers give: total and active (a token's) parameters, within 1%.
//
//   - Mixtral 8x7B: 46.7B, 12.9B active (Jiang et al. 2024, arXiv
//     2401.04088, §2: "47B" total, "13B active"; Mistral's release: 46.7B
//     and 12.9B).
//   - Qwen1.5-MoE-A2.7B: 14.3B, 2.7B active (Qwen's model card).
//   - Qwen3-30B-A3B: 30.5B, 3.3B active (Qwen3 technical report, arXiv
//     2505.09388, Table 2; the model card).
//   - DeepSeek-V3: 671B, 37B active, without the 14B multi-token-
//     prediction module (the 685B of the checkpoint; DeepSeek-V3 technical
//     report, arXiv 2412.19437, §1 and the model card).
//   - DeepSeek-V2: 236B, 21B active; DeepSeek-V2-Lite: 15.7B, 2.4B active
//     (arXiv 2405.04434, §1 and Appendix B).
//   - Llama 4 Scout: 109B, 17B active; Maverick: 400B, 17B active
//     (Meta's model cards for meta-llama/Llama-4-Scout-17B-16E and
//     Llama-4-Maverick-17B-128E). Their files here are the released
//     config.json's text_config (model_type llama4_text): the language
//     model alone, without the vision encoder and projector that Meta's
//     totals include (about 0.87B by Llama4VisionConfig's shapes), so
//     Scout's 107.8B is held to 109B within 1.5%.
//   - Dense, read as before: Llama 3.1 8B 8.03B (8,030,261,248 in the
//     checkpoint), Qwen2.5-7B 7.61B (7,615,616,512).
func TestHFConfigsPublishedSizes(t *testing.T) {
	//
	// Mistral and Qwen count the embedding table among the active
	// parameters (ActiveParams); DeepSeek does not (a token reads one row
	// of it), so its rows are compared without it (noInput). Tolerances:
	// 1%, or the published rounding where that is coarser (2.4B is
	// 2.35–2.45B: DeepSeek-V2-Lite's 2.451B is 2.1% over 2.4B).
	tests := []struct {
		file          string
		total, active float64
		mtp           float64 // the multi-token-prediction module, apart
		noInput       bool
		activeTol     float64
		totalTol      float64 // 0: 1%
	}{
		{"mixtral-8x7b.json", 46.7e9, 12.9e9, 0, false, 0.01, 0},
		{"qwen1.5-moe-a2.7b.json", 14.3e9, 2.7e9, 0, false, 0.02, 0},
		{"qwen3-30b-a3b.json", 30.5e9, 3.3e9, 0, false, 0.02, 0},
		{"deepseek-v3.json", 671e9, 37e9, 685e9 - 671e9, true, 0.014, 0},
		{"deepseek-v2.json", 236e9, 21e9, 0, true, 0.01, 0},
		{"deepseek-v2-lite.json", 15.7e9, 2.4e9, 0, true, 0.025, 0},
		{"llama-3.1-8b.json", 8.030261248e9, 8.030261248e9, 0, false, 0.001, 0},
		{"qwen2.5-7b.json", 7.615616512e9, 7.615616512e9, 0, false, 0.001, 0},
		{"llama4-scout.json", 109e9, 17e9, 0, false, 0.02, 0.015},
		{"llama4-maverick.json", 400e9, 17e9, 0, false, 0.02, 0},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "hf", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := FromHFConfig(data, 4096)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		within := func(what string, got, want, tol float64) {
			if math.Abs(got-want)/want > tol {
				t.Errorf("%s: %s %.4g, want %.4g ±%.1f%%", tt.file, what, got, want, 100*tol)
			}
		}
		within("parameters", m.Params(), tt.total, cmp.Or(tt.totalTol, 0.01))
		active := m.ActiveParams()
		if tt.noInput {
			active -= float64(m.Vocab) * float64(m.Hidden)
		}
		within("active parameters", active, tt.active, tt.activeTol)
		if tt.mtp > 0 {
			// 685B counts the module's own copies of the embedding and
			// output head: the checkpoint stores them again.
			mtp := m.MTPParams() + 2*float64(m.Vocab)*float64(m.Hidden)
			if math.Abs(mtp-tt.mtp)/tt.mtp > 0.05 {
				t.Errorf("%s: multi-token prediction %.4g (with its stored embedding and head), want ≈ %.4g", tt.file, mtp, tt.mtp)
			}
		} else if m.MTPParams() != 0 {
			t.Errorf("%s: %.4g multi-token-prediction parameters, want none", tt.file, m.MTPParams())
		}
		if m.MoE() != (tt.active < tt.total) {
			t.Errorf("%s: MoE() = %v", tt.file, m.MoE())
		}
	}
}

// DeepSeek-V3 by hand (its config.json): a latent-attention layer is
// q 7168·1536 + 1536 + 1536·128·192, kv 7168·576 + 512 + 512·128·256,
// o 128·128·7168 = 187,107,328; a dense layer adds 3·7168·18432 and two
// norms; an MoE layer 257 experts of 3·7168·2048 (256 routed, 1 shared),
// the router 256·7168 and its 256 biases; 129,280 × 7168 twice and the
// final norm.
func TestDeepSeekV3ByHand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "deepseek-v3.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromHFConfig(data, 4096)
	if err != nil {
		t.Fatal(err)
	}
	attn := 7168.0*1536 + 1536 + 1536*128*192 + 7168*576 + 512 + 512*128*256 + 128*128*7168
	if attn != 187107328 || m.AttentionParams() != attn {
		t.Fatalf("attention %.0f, by hand %.0f", m.AttentionParams(), attn)
	}
	dense := attn + 3*7168*18432 + 2*7168
	expert := 3.0 * 7168 * 2048
	moe := attn + 257*expert + 256*7168 + 256 + 2*7168
	want := 3*dense + 58*moe + 2*129280*7168 + 7168
	if got := m.Params(); got != want {
		t.Errorf("parameters %.0f, by hand %.0f", got, want)
	}
	active := 3*dense + 58*(attn+9*expert+256*7168+256+2*7168) + 2*129280*7168 + 7168
	if got := m.ActiveParams(); got != active {
		t.Errorf("active parameters %.0f, by hand %.0f", got, active)
	}
	if m.DenseLayers != 3 || m.Experts != 256 || m.TopK != 8 || m.SharedFFN != 2048 || !m.RouterBias || m.MTPLayers != 1 {
		t.Errorf("read as %+v", m)
	}
}

// What the reader does not model is refused with the field named, never
// read as a dense decoder. (The configs were of model_type "x" until the
// reader refused an unknown model_type: each now names an architecture
// that reads the keys it tries.)
func TestHFConfigRefusesUnmodelled(t *testing.T) {
	shape := `"hidden_act":"silu","num_hidden_layers":4,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":4,"intermediate_size":128,"vocab_size":100,"max_position_embeddings":64`
	base := `"model_type":"llama",` + shape
	moe := `"model_type":"qwen2_moe",` + shape + `,"num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32`
	ds := `"model_type":"deepseek_v3",` + shape + `,"n_routed_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32`
	tests := []struct{ json, field string }{
		{`{` + base + `,"text_config":{"hidden_size":64}}`, "text_config"},
		{`{` + base + `,"vision_config":{}}`, "vision_config"},
		{`{` + base + `,"layers_block_type":["mamba","attention"]}`, "layers_block_type"},
		{`{` + base + `,"cross_attention_layers":[3]}`, "cross_attention_layers"},
		{`{` + moe + `,"mlp_only_layers":[0]}`, "mlp_only_layers"},
		{`{` + moe + `,"moe_layer_freq":2}`, "moe_layer_freq"},
		{`{` + base + `,"attention_bias":true}`, "attention_bias"},
		{`{` + base + `,"mlp_bias":true}`, "mlp_bias"},
		{`{` + base + `,"index_n_heads":32,"index_topk":2048}`, "index_n_heads"},
		{`{` + base + `,"num_local_experts":32,"experts_per_token":4}`, "experts_per_token"},
		{`{"model_type":"deepseek_v2",` + shape + `,"n_routed_experts":8}`, "num_experts_per_tok: missing"},
		{`{` + moe + `,"num_experts_per_tok":9}`, "top-k"},
		{`{` + ds + `,"first_k_dense_replace":4}`, "first_k_dense_replace: 4; allowed 0–3"},
		{`{` + ds + `,"kv_lora_rank":16,"qk_nope_head_dim":null,"qk_rope_head_dim":8,"v_head_dim":16}`, "qk_nope_head_dim: missing"},
		{`{` + strings.Replace(base, `"llama"`, `"gemma2"`, 1) + `}`, "model_type"},
		// A router style the reader does not know: its allowed values named.
		{`{` + ds + `,"topk_method":"expert_choice"}`, "topk_method: \"expert_choice\"; allowed greedy, group_limited_greedy, noaux_tc"},
		{`{` + ds + `,"scoring_func":"sparsemixer"}`, "scoring_func: \"sparsemixer\"; allowed softmax, sigmoid"},
	}
	for _, tt := range tests {
		_, err := FromHFConfig([]byte(tt.json), 0)
		if err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("FromHFConfig(%s) error %v, want it to name %s", tt.json, err, tt.field)
		}
	}
	// The harmless values of the same keys are read: Qwen2-MoE's 0
	// experts too, which its class builds as a dense model
	// (modeling_qwen2_moe.py: an MoE block where num_experts > 0).
	for _, ok := range []string{
		`{` + moe + `,"mlp_only_layers":[],"decoder_sparse_step":1,"moe_layer_freq":1,"attention_bias":false,"mlp_bias":null}`,
		`{"model_type":"qwen2_moe",` + shape + `,"num_experts":0,"num_experts_per_tok":2}`,
		`{` + ds + `,"topk_method":"noaux_tc","scoring_func":"sigmoid"}`,
		`{` + ds + `,"topk_method":"group_limited_greedy","scoring_func":"softmax"}`,
	} {
		if _, err := FromHFConfig([]byte(ok), 0); err != nil {
			t.Errorf("FromHFConfig(%s): %v", ok, err)
		}
	}
}

// MoELayersIn's closed form counts what MoELayer says layer by layer,
// for every pattern of dense first layers and spacing, the layers past
// the last (multi-token prediction) of the last one's kind.
func TestMoELayersIn(t *testing.T) {
	for L := 1; L <= 12; L++ {
		for d := 0; d < L; d++ {
			for k := 0; k <= L; k++ {
				m := Transformer{Layers: L, Experts: 4, DenseLayers: d, MoEEvery: k}
				last := L-1 >= d && (k <= 1 || L%k == 0)
				for a := 0; a <= L+2; a++ {
					for b := a; b <= L+2; b++ {
						want := 0
						for l := a; l < b; l++ {
							switch {
							case l >= L && last:
								want++
							case l < L && l >= d && (k <= 1 || (l+1)%k == 0):
								want++
							}
						}
						if got := m.MoELayersIn(a, b); got != want {
							t.Fatalf("L %d, dense %d, every %d: MoELayersIn(%d, %d) = %d, want %d", L, d, k, a, b, got, want)
						}
					}
				}
			}
		}
	}
	if (Transformer{Layers: 4}).MoELayers() != 0 {
		t.Error("a dense model has MoE layers")
	}
}

// Llama 4 Maverick by hand (the text_config of its config.json): a
// layer's attention 2·5120·5120 + 2·5120·1024 = 62,914,560 (40 heads
// and 8 KV heads of 128; its L2 query-key norm has no weights); an
// expert or the shared expert 3·5120·8192 = 125,829,120; a dense layer's
// MLP 3·5120·16384 = 251,658,240; the router 5120·128; two norms a
// layer. 24 dense layers (0, 2, …) and 24 MoE layers (1, 3, …) of 128
// routed experts and the shared one, top-1; 202,048 × 5120 twice and the
// final norm: 400.7B, Meta's 400B; a token's 17.18B, Meta's 17B.
func TestLlama4MaverickByHand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hf", "llama4-maverick.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromHFConfig(data, 8192)
	if err != nil {
		t.Fatal(err)
	}
	attn := 2.0*5120*5120 + 2*5120*1024
	expert := 3.0 * 5120 * 8192
	dense := attn + 3*5120*16384 + 2*5120
	moe := attn + 129*expert + 5120*128 + 2*5120
	emb := 2*202048*5120.0 + 5120
	if want := 24*dense + 24*moe + emb; m.Params() != want || want != 400711848960 {
		t.Errorf("parameters %.0f, by hand %.0f", m.Params(), want)
	}
	if want := 24*dense + 24*(attn+2*expert+5120*128+2*5120) + emb; m.ActiveParams() != want || want != 17184691200 {
		t.Errorf("active parameters %.0f, by hand %.0f", m.ActiveParams(), want)
	}
	if m.MoEEvery != 2 || m.Experts != 128 || m.TopK != 1 || m.SharedFFN != 8192 || m.FFNSize != 16384 || m.ExpertFFN != 8192 ||
		m.MoELayer(0) || !m.MoELayer(1) || m.MoELayers() != 24 {
		t.Errorf("read as %+v", m)
	}
	// Its moe_layers, when written, must be the layers the step places.
	odd := make([]any, 0, 24)
	for l := 1; l < 48; l += 2 {
		odd = append(odd, l)
	}
	if _, err := FromHFConfig(hfEdit(t, "llama4-maverick.json", map[string]any{"moe_layers": odd}), 8192); err != nil {
		t.Errorf("moe_layers 1, 3, …, 47: %v", err)
	}
	if _, err := FromHFConfig(hfEdit(t, "llama4-maverick.json", map[string]any{"moe_layers": odd[:23]}), 8192); err == nil ||
		!strings.Contains(err.Error(), "moe_layers: not modelled") {
		t.Errorf("moe_layers without 47: %v", err)
	}
	for _, step := range []int{0, 49} {
		if _, err := FromHFConfig(hfEdit(t, "llama4-maverick.json", map[string]any{"interleave_moe_layer_step": step}), 8192); err == nil ||
			!strings.Contains(err.Error(), fmt.Sprintf("interleave_moe_layer_step: %d; allowed 1–48", step)) {
			t.Errorf("interleave_moe_layer_step %d: %v", step, err)
		}
	}
}
