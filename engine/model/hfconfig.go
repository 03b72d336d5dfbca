package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
)

// hfConfig is the part of a Hugging Face transformers config.json that
// fixes a decoder's shape.
type hfConfig struct {
	ModelType         string
	Architectures     []string
	Layers            *int
	Hidden            *int
	Heads             *int
	KVHeads           *int
	Intermediate      *int
	Vocab             *int
	MaxPositions      *int
	TieWordEmbeddings *bool
	HiddenAct         string
	// GPT-2 style names.
	NLayer     *int
	NEmbd      *int
	NHead      *int
	NPositions *int
	NInner     *int
	// Heads wider than hidden ÷ heads (Qwen3); biases.
	HeadDim       *int
	AttentionBias *bool
	MLPBias       *bool
	// Mixtures of experts: Mixtral's, Qwen's and DeepSeek's names.
	NumLocalExperts    *int
	NumExperts         *int
	NRoutedExperts     *int
	ExpertsPerTok      *int
	MoEIntermediate    *int
	SharedIntermediate *int
	NSharedExperts     *int
	FirstKDense        *int
	MoELayerFreq       *int
	DecoderSparseStep  *int
	TopkMethod         string
	ScoringFunc        string
	// DeepSeek's latent attention and multi-token prediction.
	QLoRARank    *int
	KVLoRARank   *int
	QKNopeDim    *int
	QKRopeDim    *int
	VHeadDim     *int
	NextNPredict *int
	// Dropout probabilities by each family's names: Llama's, Mistral's,
	// Qwen's and DeepSeek's attention_dropout, GPT-2's three, BERT-style
	// and Falcon-style hidden dropout (any one above zero: the model
	// trains with dropout).
	AttentionDropout, ResidPdrop, AttnPdrop, EmbdPdrop *float64
	HiddenDropoutProb, AttentionProbsDropout           *float64
	HiddenDropout                                      *float64
}

// hfDropoutKeys are the config.json names of dropouts(), in order.
var hfDropoutKeys = [...]string{"attention_dropout", "resid_pdrop", "attn_pdrop", "embd_pdrop", "hidden_dropout_prob", "attention_probs_dropout_prob", "hidden_dropout"}

// dropouts are the dropout probabilities the config gives.
func (c *hfConfig) dropouts() []*float64 {
	return []*float64{c.AttentionDropout, c.ResidPdrop, c.AttnPdrop, c.EmbdPdrop, c.HiddenDropoutProb, c.AttentionProbsDropout, c.HiddenDropout}
}

// fields are hfConfig's members by their config.json names.
func (c *hfConfig) fields() []hfField {
	f := []hfField{
		{"model_type", &c.ModelType}, {"architectures", &c.Architectures},
		{"num_hidden_layers", &c.Layers}, {"hidden_size", &c.Hidden},
		{"num_attention_heads", &c.Heads}, {"num_key_value_heads", &c.KVHeads},
		{"intermediate_size", &c.Intermediate}, {"vocab_size", &c.Vocab},
		{"max_position_embeddings", &c.MaxPositions}, {"tie_word_embeddings", &c.TieWordEmbeddings},
		{"hidden_act", &c.HiddenAct},
		{"n_layer", &c.NLayer}, {"n_embd", &c.NEmbd}, {"n_head", &c.NHead},
		{"n_positions", &c.NPositions}, {"n_inner", &c.NInner},
		{"head_dim", &c.HeadDim}, {"attention_bias", &c.AttentionBias}, {"mlp_bias", &c.MLPBias},
		{"num_local_experts", &c.NumLocalExperts}, {"num_experts", &c.NumExperts}, {"n_routed_experts", &c.NRoutedExperts},
		{"num_experts_per_tok", &c.ExpertsPerTok}, {"moe_intermediate_size", &c.MoEIntermediate},
		{"shared_expert_intermediate_size", &c.SharedIntermediate}, {"n_shared_experts", &c.NSharedExperts},
		{"first_k_dense_replace", &c.FirstKDense}, {"moe_layer_freq", &c.MoELayerFreq},
		{"decoder_sparse_step", &c.DecoderSparseStep}, {"topk_method", &c.TopkMethod}, {"scoring_func", &c.ScoringFunc},
		{"q_lora_rank", &c.QLoRARank}, {"kv_lora_rank", &c.KVLoRARank}, {"qk_nope_head_dim", &c.QKNopeDim},
		{"qk_rope_head_dim", &c.QKRopeDim}, {"v_head_dim", &c.VHeadDim}, {"num_nextn_predict_layers", &c.NextNPredict},
	}
	return append(f, hfField{"attention_dropout", &c.AttentionDropout}, hfField{"resid_pdrop", &c.ResidPdrop},
		hfField{"attn_pdrop", &c.AttnPdrop}, hfField{"embd_pdrop", &c.EmbdPdrop},
		hfField{"hidden_dropout_prob", &c.HiddenDropoutProb}, hfField{"attention_probs_dropout_prob", &c.AttentionProbsDropout},
		hfField{"hidden_dropout", &c.HiddenDropout})
}

// hfUnmodelled are config.json keys of architectures the reader does not
// model, with why: present (and, for the last few, not at the value
// every layer alike has), the config is refused, never read as a plain
// decoder.
var hfUnmodelled = []struct{ key, why string }{
	{"text_config", "a multimodal model's config, its language model nested inside; paste the language model's own"},
	{"vision_config", "a multimodal model's vision tower"},
	{"ffn_config", "DBRX-style nested blocks"},
	{"attn_config", "DBRX- and MPT-style nested blocks"},
	{"cross_attention_layers", "cross-attention layers (Llama 3.2 Vision)"},
	{"layers_block_type", "state-space (Mamba) layers"},
	{"attn_layer_period", "state-space (Mamba) layers"},
	{"hybrid_override_pattern", "state-space (Mamba) layers"},
	{"ssm_cfg", "state-space (Mamba) layers"},
	{"mamba_d_state", "state-space (Mamba) layers"},
	{"interleave_moe_layer_step", "experts on some layers only; allowed 1"},
	{"mlp_only_layers", "dense layers among the expert layers; allowed []"},
	{"decoder_sparse_step", "experts on some layers only; allowed 1"},
	{"moe_layer_freq", "experts on some layers only; allowed 1"},
	{"index_n_heads", "the lightning indexer of DeepSeek's sparse attention (V3.2)"},
	{"mlp_layer_types", "a list of layer kinds (first_k_dense_replace says which layers are dense)"},
	{"experts_per_token", "gpt-oss's experts, with biases, and attention sinks"},
	{"attention_bias", "biases on the attention's projections; allowed false"},
	{"mlp_bias", "biases in the feed-forward block; allowed false"},
}

// UnmodelledKeys are the config.json keys FromHFConfig refuses as of an
// architecture it does not model (with "model_type" for Gemma's and
// "hidden_act" for experts that are not SwiGLU): its error then reads
// "config.json: KEY: not modelled: why".
func UnmodelledKeys() []string {
	keys := []string{"model_type", "hidden_act"}
	for _, u := range hfUnmodelled {
		if !slices.Contains(keys, u.key) {
			keys = append(keys, u.key)
		}
	}
	return keys
}

// checkModelled refuses a config (an object fillHFConfig has read)
// holding a key of hfUnmodelled at a value that changes the count: any
// value for the nested and hybrid ones; for the others anything but an
// empty list, 1, false or null.
func checkModelled(v tinyjson.Value) error {
	for _, m := range v.Members {
		for _, u := range hfUnmodelled {
			if m.Key != u.key {
				continue
			}
			x := m.Value
			harmless := x.Kind == tinyjson.Null
			switch u.key {
			case "mlp_only_layers":
				harmless = harmless || x.Kind == tinyjson.Array && len(x.Items) == 0
			case "interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq":
				harmless = harmless || x.Kind == tinyjson.Number && x.Text == "1"
			case "attention_bias", "mlp_bias":
				harmless = harmless || x.Kind == tinyjson.Bool && !x.Bool
			}
			if !harmless {
				return fmt.Errorf("config.json: %s: not modelled: %s", u.key, u.why)
			}
		}
	}
	return nil
}

type hfField struct {
	name string
	ptr  any // *string, *[]string, **int, **bool or **float64
}

// parseHFConfig reads data into c as encoding/json's Unmarshal would: a
// key matches a field by its name, exactly or else ignoring case; of
// repeated keys the last wins; null leaves a field unset; other keys
// are ignored, whatever they hold. A value of the wrong type is an error
// naming the field.
func parseHFConfig(data []byte, c *hfConfig) error {
	v, err := tinyjson.Parse(data)
	if err != nil {
		return err
	}
	return fillHFConfig(v, c)
}

// fillHFConfig is parseHFConfig of a parsed document.
func fillHFConfig(v tinyjson.Value, c *hfConfig) error {
	switch v.Kind {
	case tinyjson.Null:
		return nil
	case tinyjson.Object:
	default:
		return errors.New("a JSON " + v.Kind.String() + "; must be an object")
	}
	fields := c.fields()
	var first error // encoding/json reads on after a wrong type and reports the first
	for _, m := range v.Members {
		f := matchField(fields, m.Key)
		if f == nil {
			continue
		}
		if err := f.set(m.Value); err != nil && first == nil {
			first = errors.New(f.name + ": " + err.Error())
		}
	}
	return first
}

func matchField(fields []hfField, key string) *hfField {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, key) {
			return &fields[i]
		}
	}
	return nil
}

func (f *hfField) set(v tinyjson.Value) error {
	want := "" // what the field takes, when v is not that
	switch p := f.ptr.(type) {
	case *string:
		switch v.Kind {
		case tinyjson.String:
			*p = v.Text
		case tinyjson.Null:
		default:
			want = "a string"
		}
	case *[]string:
		switch v.Kind {
		case tinyjson.Array:
			// As encoding/json fills a slice: in place, so that a null
			// element of a repeated key keeps what the earlier one wrote.
			s := *p
			for i, it := range v.Items {
				if i >= cap(s) {
					s = slices.Grow(s[:i], 1)
				}
				if i >= len(s) {
					s = s[:i+1]
				}
				switch it.Kind {
				case tinyjson.String:
					s[i] = it.Text
				case tinyjson.Null:
				default:
					want = "a list of strings"
				}
			}
			if s = s[:len(v.Items)]; len(s) == 0 {
				s = []string{}
			}
			*p = s
		case tinyjson.Null:
			*p = nil
		default:
			want = "a list of strings"
		}
	case **int:
		switch v.Kind {
		case tinyjson.Number:
			n, err := v.Int()
			if err != nil {
				return errors.New(v.Text + "; must be an integer")
			}
			*p = &n
		case tinyjson.Null:
			*p = nil
		default:
			want = "an integer"
		}
	case **float64:
		switch v.Kind {
		case tinyjson.Number:
			x, err := v.Float()
			if err != nil {
				return errors.New(v.Text + "; must be a number")
			}
			*p = &x
		case tinyjson.Null:
			*p = nil
		default:
			want = "a number"
		}
	case **bool:
		switch v.Kind {
		case tinyjson.Bool:
			b := v.Bool
			*p = &b
		case tinyjson.Null:
			*p = nil
		default:
			want = "true or false"
		}
	}
	if want != "" {
		return errors.New("a JSON " + v.Kind.String() + "; must be " + want)
	}
	return nil
}

// FromHFConfig reads a Hugging Face config.json (Llama, Mistral, Qwen and
// other gated-FFN decoders, GPT-2 style, and the mixtures of experts of
// Mixtral, Qwen2-MoE and Qwen3-MoE, DeepSeek-V2 and V3 with their latent
// attention) into a Transformer. A missing or out-of-range field is an
// error naming it, and so is a field of an architecture it does not model
// (hfUnmodelled); seq, when positive, overrides max_position_embeddings as
// the training sequence length.
func FromHFConfig(data []byte, seq int) (Transformer, error) {
	var c hfConfig
	v, err := tinyjson.Parse(data)
	if err == nil {
		err = fillHFConfig(v, &c)
	}
	if err != nil {
		return Transformer{}, fmt.Errorf("config.json: %v", err)
	}
	if err := checkModelled(v); err != nil {
		return Transformer{}, err
	}
	if mt := strings.ToLower(c.ModelType); strings.HasPrefix(mt, "gemma") {
		return Transformer{}, fmt.Errorf("config.json: model_type: not modelled: %q, Gemma's gated GeLU and extra norms", c.ModelType)
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
	// Dropout: as the config says, else as the family trains — GPT-2's
	// and BERT's with it, the SwiGLU decoders (Llama, Mistral, Qwen,
	// DeepSeek) without.
	m.NoDropout = m.FFN == SwiGLU
	for i, d := range c.dropouts() {
		if d == nil {
			continue
		}
		if !(*d >= 0 && *d < 1) {
			return m, fmt.Errorf("config.json: %s: %g; allowed 0 ≤ p < 1 (a probability)", hfDropoutKeys[i], *d)
		}
		m.NoDropout = true
	}
	for _, d := range c.dropouts() {
		if d != nil && *d > 0 {
			m.NoDropout = false
		}
	}
	if err := c.readExtras(&m, pick); err != nil {
		return m, err
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

// readExtras reads what goes beyond a plain decoder: wide heads, Qwen's
// biases and norms, a mixture of experts, latent attention.
func (c *hfConfig) readExtras(m *Transformer, pick func(string, ...*int) (int, error)) error {
	var err error
	if c.HeadDim != nil {
		if m.HeadSize, err = pick("head_dim", c.HeadDim); err != nil {
			return err
		}
		if m.HeadSize*m.Heads == m.Hidden {
			m.HeadSize = 0 // hidden ÷ heads: the usual width
		}
	}
	switch strings.ToLower(c.ModelType) {
	case "qwen2", "qwen2_moe":
		m.QKVBias = true
	case "qwen3", "qwen3_moe":
		m.QKNorm = true
	}
	experts := c.NumLocalExperts
	for _, e := range []*int{c.NumExperts, c.NRoutedExperts} {
		if experts == nil {
			experts = e
		}
	}
	if experts != nil && *experts != 0 {
		if m.Experts, err = pick("num_experts", experts); err != nil {
			return err
		}
		if m.TopK, err = pick("num_experts_per_tok", c.ExpertsPerTok); err != nil {
			return err
		}
		if m.FFN != SwiGLU {
			return fmt.Errorf("config.json: hidden_act: not modelled: %q experts; a mixture of experts' are read as SwiGLU (silu)", c.HiddenAct)
		}
		// Mixtral's experts are intermediate_size wide; Qwen's and
		// DeepSeek's moe_intermediate_size (intermediate_size is then the
		// dense layers').
		m.ExpertFFN = m.FFNSize
		if c.MoEIntermediate != nil {
			if m.ExpertFFN, err = pick("moe_intermediate_size", c.MoEIntermediate); err != nil {
				return err
			}
		}
		if c.SharedIntermediate != nil && *c.SharedIntermediate != 0 {
			if m.SharedFFN, err = pick("shared_expert_intermediate_size", c.SharedIntermediate); err != nil {
				return err
			}
			m.SharedGate = true // Qwen2-MoE's sigmoid gate on it
		}
		if c.NSharedExperts != nil && *c.NSharedExperts != 0 {
			n, err := pick("n_shared_experts", c.NSharedExperts)
			if err != nil {
				return err
			}
			m.SharedFFN += n * m.ExpertFFN
		}
		if c.FirstKDense != nil {
			if *c.FirstKDense < 0 || *c.FirstKDense >= m.Layers {
				return fmt.Errorf("config.json: first_k_dense_replace: %d; allowed 0–%d", *c.FirstKDense, m.Layers-1)
			}
			m.DenseLayers = *c.FirstKDense
		}
		// The router's style: DeepSeek's top-k methods and scores; one it
		// does not know may carry parameters (V3's noaux_tc adds a bias an
		// expert), so it is refused rather than guessed.
		switch c.TopkMethod {
		case "", "greedy", "group_limited_greedy", "noaux_tc":
		default:
			return fmt.Errorf("config.json: topk_method: %q; allowed greedy, group_limited_greedy, noaux_tc", c.TopkMethod)
		}
		switch c.ScoringFunc {
		case "", "softmax", "sigmoid":
		default:
			return fmt.Errorf("config.json: scoring_func: %q; allowed softmax, sigmoid", c.ScoringFunc)
		}
		m.RouterBias = c.TopkMethod == "noaux_tc" // DeepSeek-V3's e_score_correction_bias
	}
	if c.KVLoRARank != nil && *c.KVLoRARank != 0 {
		if m.KVLoRA, err = pick("kv_lora_rank", c.KVLoRARank); err != nil {
			return err
		}
		if c.QLoRARank != nil && *c.QLoRARank != 0 {
			if m.QLoRA, err = pick("q_lora_rank", c.QLoRARank); err != nil {
				return err
			}
		}
		if m.QKNope, err = pick("qk_nope_head_dim", c.QKNopeDim); err != nil {
			return err
		}
		if m.QKRope, err = pick("qk_rope_head_dim", c.QKRopeDim); err != nil {
			return err
		}
		if m.VHead, err = pick("v_head_dim", c.VHeadDim); err != nil {
			return err
		}
		m.HeadSize = 0
	}
	if c.NextNPredict != nil && *c.NextNPredict > 0 {
		m.MTPLayers = *c.NextNPredict
	}
	return nil
}
