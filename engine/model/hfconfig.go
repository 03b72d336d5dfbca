package model

import (
	"errors"
	"slices"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
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
	// Llama 4's dense layers' width and MoE layers' spacing.
	IntermediateMLP *int
	InterleaveMoE   *int
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
	// The model's name on the Hub, as transformers saves it.
	NameOrPath string
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
		{"intermediate_size_mlp", &c.IntermediateMLP}, {"interleave_moe_layer_step", &c.InterleaveMoE},
	}
	return append(f, hfField{"attention_dropout", &c.AttentionDropout}, hfField{"resid_pdrop", &c.ResidPdrop},
		hfField{"attn_pdrop", &c.AttnPdrop}, hfField{"embd_pdrop", &c.EmbdPdrop},
		hfField{"hidden_dropout_prob", &c.HiddenDropoutProb}, hfField{"attention_probs_dropout_prob", &c.AttentionProbsDropout},
		hfField{"hidden_dropout", &c.HiddenDropout}, hfField{"_name_or_path", &c.NameOrPath})
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
	{"mlp_only_layers", "dense layers among the expert layers; allowed []"},
	{"moe_layer_freq", "experts on some layers only; allowed 1"},
	{"index_n_heads", "the lightning indexer of DeepSeek's sparse attention (V3.2)"},
	{"mlp_layer_types", "a list of layer kinds (first_k_dense_replace says which layers are dense)"},
	{"experts_per_token", "gpt-oss's experts, with biases, and attention sinks"},
	{"attention_bias", "biases on the attention's projections; allowed false"},
	{"mlp_bias", "biases in the feed-forward block; allowed false"},
}

// UnmodelledKeys are the config.json keys FromHFConfig refuses as of an
// architecture it does not model (with "model_type" for Gemma's and
// "moe_layers" for Llama 4's MoE layers in a pattern of their own): its
// error then reads "config.json: KEY: not modelled: why".
func UnmodelledKeys() []string {
	keys := []string{"model_type", "moe_layers"}
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
			case "moe_layer_freq":
				harmless = harmless || x.Kind == tinyjson.Number && x.Text == "1"
			case "attention_bias", "mlp_bias":
				harmless = harmless || x.Kind == tinyjson.Bool && !x.Bool
			}
			if !harmless {
				return errs.New("hf_unmodelled", "config.json: "+u.key+": not modelled: "+u.why, "name", u.key)
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
		return errors.New("a JSON " + v.Kind.String() + "; must be an object") // not a field's: hf_json
	}
	fields := c.fields()
	var first error // encoding/json reads on after a wrong type and reports the first
	for _, m := range v.Members {
		f := matchField(fields, m.Key)
		if f == nil {
			continue
		}
		if err := f.set(m.Value); err != nil && first == nil {
			first = &hfFieldError{f.name, err}
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
		return &hfTypeError{v.Kind.String(), want}
	}
	return nil
}

// hfFieldError is a field's value that fillHFConfig refuses.
type hfFieldError struct {
	name string
	err  error
}

func (e *hfFieldError) Error() string { return e.name + ": " + e.err.Error() }

// hfTypeError is a value of another JSON kind than the field's.
type hfTypeError struct{ kind, want string }

func (e *hfTypeError) Error() string { return "a JSON " + e.kind + "; must be " + e.want }

// hfJSONError is the refusal of a config.json that does not parse, or
// whose field holds a value the field cannot: hf_type where the value is
// of another JSON kind, else hf_json.
func hfJSONError(err error) error {
	msg := "config.json: " + err.Error()
	if fe, ok := err.(*hfFieldError); ok {
		if te, ok := fe.err.(*hfTypeError); ok {
			return errs.New("hf_type", msg, "name", fe.name, "kind", te.kind, "want", te.want)
		}
	}
	return errs.New("hf_json", msg)
}

// MaxHFConfigBytes is the longest config.json FromHFConfig reads. A
// released one is a few KB (those of testdata/hf, 1 KB or so each); a
// file past 1 MiB is not a model's config, and is refused before it is
// parsed (the CLI reads no more of it than this).
const MaxHFConfigBytes = 1 << 20

// FromHFConfig reads a Hugging Face config.json into a Transformer, as
// the class transformers builds for its model_type reads it (hfArches):
// Llama, Mistral, Qwen2 and Qwen3 (gated MLPs, whatever hidden_act
// names: a GeLU there is a GeGLU, SwiGLU's shape); GPT-2; the mixtures
// of experts of Mixtral, Qwen2-MoE and Qwen3-MoE, DeepSeek-V2 and V3
// with their latent attention, and Llama 4's language model
// (llama4_text), its dense layers between the MoE layers. A config
// without model_type is read as a dense decoder by its key names
// (hfGeneric). An unknown model_type is refused with the ones it reads;
// so are a missing or out-of-range field, a key of another architecture
// that would change the count, a field of an architecture it does not
// model (hfUnmodelled), and a file over MaxHFConfigBytes — each error
// naming the field. A key the class defaults takes its default when the
// file leaves it out (a Mixtral without num_local_experts has 8). seq,
// when positive, overrides max_position_embeddings as the training
// sequence length.
func FromHFConfig(data []byte, seq int) (Transformer, error) {
	if len(data) > MaxHFConfigBytes {
		return Transformer{}, errs.F("hf_size", "config.json: %d bytes; allowed at most %d (a config.json is a few KB)", "n max", len(data), MaxHFConfigBytes)
	}
	var c hfConfig
	v, err := tinyjson.Parse(data)
	if tinyjson.TooDeep(err) {
		return Transformer{}, errs.F("hf_deep", "config.json: nested deeper than %d levels; a config.json nests two or three", "max", tinyjson.MaxDepth)
	}
	if err == nil {
		err = fillHFConfig(v, &c)
	}
	if err != nil {
		return Transformer{}, hfJSONError(err)
	}
	if err := checkModelled(v); err != nil {
		return Transformer{}, err
	}
	if strings.HasPrefix(strings.ToLower(c.ModelType), "gemma") {
		return Transformer{}, errs.F("hf_unmodelled", "config.json: %s: not modelled: %q, Gemma's gated GELU and extra norms", "name", "model_type", c.ModelType)
	}
	arch := hfGeneric
	if c.ModelType != "" {
		var ok bool
		if arch, ok = hfArchOf(c.ModelType); !ok {
			allowed := strings.Join(HFModelTypes(), ", ")
			return Transformer{}, errs.F("hf_model_type", "config.json: model_type: %q; allowed %s", "type allowed", c.ModelType, allowed)
		}
	}
	given := givenKeys(v, c.fields())
	if err := arch.checkForeign(v); err != nil {
		return Transformer{}, err
	}
	r := hfReader{v: v, c: &c, arch: arch, given: given}
	m, err := r.read(seq)
	if err != nil {
		return m, err
	}
	return m, m.Validate()
}

// givenKeys are the fields (by their config.json names) the object v
// writes, null included: a class's default stands for a key left out,
// not for one written null (transformers then takes None).
func givenKeys(v tinyjson.Value, fields []hfField) map[string]bool {
	g := map[string]bool{}
	for _, m := range v.Members {
		if f := matchField(fields, m.Key); f != nil {
			g[f.name] = true
		}
	}
	return g
}

// checkForeign refuses a key of hfArchKeys that a's class does not read
// while it holds a value that would change the count, naming the key,
// the class and the model_types that read it.
func (a hfArch) checkForeign(v tinyjson.Value) error {
	for _, m := range v.Members {
		k := archKey(m.Key)
		if k == "" || slices.Contains(a.reads, k) {
			continue
		}
		x := m.Value
		switch x.Kind {
		case tinyjson.Null:
			continue
		case tinyjson.Bool:
			if !x.Bool {
				continue
			}
		case tinyjson.String:
			if x.Text == "" {
				continue
			}
		case tinyjson.Array:
			if len(x.Items) == 0 {
				continue
			}
		case tinyjson.Number:
			steps := k == "decoder_sparse_step" || k == "interleave_moe_layer_step" || k == "moe_layer_freq"
			if f, err := x.Float(); err == nil && (f == 0 || steps && f == 1) {
				continue
			}
		}
		readers := strings.Join(readersOf(k), ", ")
		if len(a.types) == 0 {
			return errs.F("hf_needs_type", "config.json: model_type: missing; %s is read by model_type %s only, so give the one this model is", "name allowed", k, readers)
		}
		return errs.F("hf_not_read", "config.json: %s: not read by model_type %s (%s); remove it, or use a model_type that reads it: %s", "name type - allowed", k, a.types[0], a.class, readers)
	}
	return nil
}

// hfReader reads one config's fields as its architecture does.
type hfReader struct {
	v     tinyjson.Value // the parsed object
	c     *hfConfig
	arch  hfArch
	given map[string]bool // the keys the file writes (givenKeys)
}

// pick is the first set of ps, which must be positive; name is the key
// an error names.
func pick(name string, ps ...*int) (int, error) {
	for _, p := range ps {
		if p != nil {
			if *p < 1 {
				return 0, errs.F("hf_positive", "config.json: %s: %d; must be positive", "name n", name, *p)
			}
			return *p, nil
		}
	}
	return 0, hfMissing(name)
}

// hfMissing is the refusal of a config.json without the key name.
func hfMissing(name string) error {
	return errs.New("hf_missing", "config.json: "+name+": missing", "name", name)
}

// opt is key's value: p when set; its class's default when the file
// leaves the key out; else, with ok false, none (the key written null,
// or neither written nor defaulted).
func (r hfReader) opt(key string, p *int) (n int, ok bool) {
	if p != nil {
		return *p, true
	}
	if d, has := r.arch.def[key]; has && !r.given[key] {
		return d, true
	}
	return 0, false
}

// need is opt's value, which must be positive; its absence is an error
// naming key.
func (r hfReader) need(key string, p *int) (int, error) {
	n, ok := r.opt(key, p)
	if !ok {
		return pick(key)
	}
	return pick(key, &n)
}

func (r hfReader) read(seq int) (Transformer, error) {
	c, arch := r.c, r.arch
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
	// None: as many as the heads, in every class; latent attention
	// (DeepSeek's) has no K and V heads of its own.
	m.KVHeads = m.Heads
	if n, ok := r.opt("num_key_value_heads", c.KVHeads); ok && !slices.Contains(arch.reads, "kv_lora_rank") {
		if m.KVHeads, err = pick("num_key_value_heads", &n); err != nil {
			return m, err
		}
		if c.KVHeads == nil && m.Heads%m.KVHeads != 0 {
			return m, errs.F("hf_missing", "config.json: %s: missing; model_type %s's default, %d, does not divide num_attention_heads %d",
				"name", "num_key_value_heads", arch.types[0], m.KVHeads, m.Heads)
		}
	}
	how := "" // how the file was read, for the model's Source
	act := strings.ToLower(c.HiddenAct)
	gpt2 := arch.gpt2 || len(arch.types) == 0 && c.NEmbd != nil
	switch {
	case gpt2:
		// GPT2MLP: c_fc, act, c_proj, 4·n_embd wide unless n_inner says;
		// the activation is activation_function's, not hidden_act's.
		m.FFN, m.Biases, m.LearnedPositions, m.Tied = GeLU, true, true, true
		m.FFNSize = 4 * m.Hidden
		if c.NInner != nil && *c.NInner > 0 {
			m.FFNSize = *c.NInner
		}
		how = "GPT-2's MLP"
	case act == "silu" || act == "swish" || act == "" && (len(arch.types) > 0 || c.Intermediate != nil):
		m.FFN = SwiGLU
	case strings.HasPrefix(act, "gelu") && len(arch.types) > 0:
		// The class's MLP is gated whatever its activation: a GeGLU, of
		// SwiGLU's three matrices and (to the engine's resolution, an
		// elementwise pass) its FLOPs.
		m.FFN = SwiGLU
		how = "hidden_act " + c.HiddenAct + ": a gated GELU (GeGLU), counted and timed as SwiGLU, whose shape it has"
	case strings.HasPrefix(act, "gelu"):
		m.FFN, m.Biases = GeLU, true
		how = "hidden_act " + c.HiddenAct + " without model_type: a GPT-style ungated MLP with biases"
	default:
		return m, errs.F("hf_act", "config.json: hidden_act: %q; allowed silu, swish, gelu…", "act", c.HiddenAct)
	}
	if !gpt2 {
		if m.FFNSize, err = pick("intermediate_size", c.Intermediate); err != nil {
			return m, err
		}
	}
	if c.TieWordEmbeddings != nil {
		m.Tied = *c.TieWordEmbeddings
	}
	// Dropout: as the config says, else as the family trains — GPT-2's
	// and BERT's with it, the gated decoders (Llama, Mistral, Qwen,
	// DeepSeek) without.
	m.NoDropout = m.FFN == SwiGLU
	for i, d := range c.dropouts() {
		if d == nil {
			continue
		}
		if !(*d >= 0 && *d < 1) {
			return m, errs.F("hf_json", "config.json: %s: %g; allowed 0 ≤ p < 1 (a probability)", "", hfDropoutKeys[i], *d)
		}
		m.NoDropout = true
	}
	for _, d := range c.dropouts() {
		if d != nil && *d > 0 {
			m.NoDropout = false
		}
	}
	if err := r.readExtras(&m); err != nil {
		return m, err
	}
	m.Seq = seq
	if m.Seq <= 0 {
		if m.Seq, err = pick("max_position_embeddings", c.MaxPositions, c.NPositions); err != nil {
			return m, err
		}
	}
	m.ID, m.Name = "hf-config", hfName(c)
	m.Source = "a Hugging Face config.json, "
	if len(arch.types) == 0 {
		m.Source += "without model_type: read as a dense decoder by its key names"
	} else {
		m.Source += "model_type " + arch.types[0] + ", read as transformers' " + arch.class + " reads it"
	}
	if how != "" {
		m.Source += "; " + how
	}
	return m, nil
}

// hfName is the name a reader knows the model by: config.json's
// _name_or_path (the Hub's "meta-llama/Meta-Llama-3-8B"; a local path's
// last part), else its architectures' first, else its model_type.
func hfName(c *hfConfig) string {
	name := strings.TrimSpace(c.NameOrPath)
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, ".") || strings.Contains(name, `\`) {
		name = strings.TrimRight(name, `/\`)
		name = name[strings.LastIndexAny(name, `/\`)+1:]
	}
	if name == "" && len(c.Architectures) > 0 {
		name = strings.TrimSpace(c.Architectures[0])
	}
	if name == "" {
		name = strings.TrimSpace(c.ModelType)
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if rs := []rune(name); len(rs) > 80 {
		name = string(rs[:80]) + "…"
	}
	if name == "" {
		name = "config.json"
	}
	return name
}

// readExtras reads what goes beyond a plain decoder: wide heads, Qwen's
// biases and norms, a mixture of experts, latent attention.
func (r hfReader) readExtras(m *Transformer) error {
	c, arch := r.c, r.arch
	var err error
	if n, ok := r.opt("head_dim", c.HeadDim); ok {
		if m.HeadSize, err = pick("head_dim", &n); err != nil {
			return err
		}
		if m.HeadSize*m.Heads == m.Hidden {
			m.HeadSize = 0 // hidden ÷ heads: the usual width
		}
	}
	m.QKVBias, m.QKNorm = arch.qkvBias, arch.qkNorm
	if len(arch.experts) > 0 {
		if err := r.readExperts(m); err != nil {
			return err
		}
	}
	if slices.Contains(arch.reads, "kv_lora_rank") {
		if err := r.readLatent(m); err != nil {
			return err
		}
	}
	if slices.Contains(arch.reads, "num_nextn_predict_layers") && c.NextNPredict != nil && *c.NextNPredict > 0 {
		m.MTPLayers = *c.NextNPredict
	}
	return nil
}

// experts is the routed experts' count as the class reads it: its key
// or an alias (one setting under two names: both written, they must
// agree), else its class's default.
func (r hfReader) experts() (key string, n int, ok bool, err error) {
	c := r.c
	ptrs := map[string]*int{"num_local_experts": c.NumLocalExperts, "num_experts": c.NumExperts, "n_routed_experts": c.NRoutedExperts}
	key = r.arch.experts[0]
	var set string
	for _, k := range r.arch.experts {
		p := ptrs[k]
		if p == nil {
			continue
		}
		if set != "" && *ptrs[set] != *p {
			return key, 0, false, errs.F("hf_alias", "config.json: %s: %d and %s: %d are one setting in model_type %s (%s); give one", "name n other m type", set, *ptrs[set], k, *p, r.arch.types[0], r.arch.class)
		}
		if set == "" {
			set = k
		}
	}
	if set != "" {
		return set, *ptrs[set], true, nil
	}
	for _, k := range r.arch.experts {
		if r.given[k] {
			return k, 0, false, nil // written null
		}
	}
	n, ok = r.arch.def[key]
	return key, n, ok, nil
}

// readExperts reads a mixture of experts' keys, as its class does.
func (r hfReader) readExperts(m *Transformer) error {
	c, arch := r.c, r.arch
	key, n, ok, err := r.experts()
	switch {
	case err != nil:
		return err
	case !ok:
		return hfMissing(key)
	case n == 0 && arch.zeroDense:
		return nil // every layer the dense MLP, intermediate_size wide
	case n < 1 || n > 1<<16:
		return errs.F("hf_range", "config.json: %s: %d; allowed %d–%d (model_type %s is a mixture of experts: %s routes each token to its experts)", "name n lo hi", key, n, 1, 1<<16, arch.types[0], arch.class)
	}
	m.Experts = n
	if m.TopK, err = r.need("num_experts_per_tok", c.ExpertsPerTok); err != nil {
		return err
	}
	// Mixtral's and Llama 4's experts are intermediate_size wide; Qwen's
	// and DeepSeek's moe_intermediate_size (intermediate_size is then
	// the dense layers').
	m.ExpertFFN = m.FFNSize
	if slices.Contains(arch.reads, "moe_intermediate_size") {
		if m.ExpertFFN, err = r.need("moe_intermediate_size", c.MoEIntermediate); err != nil {
			return err
		}
	}
	switch {
	case slices.Contains(arch.reads, "shared_expert_intermediate_size"):
		// Qwen2-MoE's shared expert, with a sigmoid gate of h weights.
		if s, ok := r.opt("shared_expert_intermediate_size", c.SharedIntermediate); ok && s != 0 {
			if m.SharedFFN, err = pick("shared_expert_intermediate_size", &s); err != nil {
				return err
			}
			m.SharedGate = true
		}
	case slices.Contains(arch.reads, "n_shared_experts"):
		// DeepSeek's n_shared_experts, each moe_intermediate_size wide.
		if s, ok := r.opt("n_shared_experts", c.NSharedExperts); ok && s != 0 {
			if s, err = pick("n_shared_experts", &s); err != nil {
				return err
			}
			m.SharedFFN = s * m.ExpertFFN
		}
	case slices.Contains(arch.reads, "intermediate_size_mlp"):
		// Llama 4: one shared expert as wide as the routed ones; the
		// dense layers intermediate_size_mlp wide.
		m.SharedFFN = m.ExpertFFN
		if m.FFNSize, err = r.need("intermediate_size_mlp", c.IntermediateMLP); err != nil {
			return err
		}
	}
	if slices.Contains(arch.reads, "first_k_dense_replace") {
		if k, ok := r.opt("first_k_dense_replace", c.FirstKDense); ok {
			if k < 0 || k >= m.Layers {
				return errs.F("hf_range", "config.json: %s: %d; allowed %d–%d", "name n lo hi", "first_k_dense_replace", k, 0, m.Layers-1)
			}
			m.DenseLayers = k
		}
	}
	// MoE layers every step-th: Qwen's decoder_sparse_step and Llama 4's
	// interleave_moe_layer_step, each an MoE layer where (l+1) mod step
	// is 0 (Llama4TextConfig's moe_layers, when it does not list them).
	for _, s := range []struct {
		key string
		p   *int
	}{{"decoder_sparse_step", c.DecoderSparseStep}, {"interleave_moe_layer_step", c.InterleaveMoE}} {
		if !slices.Contains(arch.reads, s.key) {
			continue
		}
		step, ok := r.opt(s.key, s.p)
		if !ok {
			step = 1
		}
		if step < 1 || step > m.Layers {
			return errs.F("hf_range", "config.json: %s: %d; allowed %d–%d (an MoE layer every step-th of the %d)", "name n lo hi", s.key, step, 1, m.Layers, m.Layers)
		}
		if step > 1 {
			m.MoEEvery = step
		}
	}
	if slices.Contains(arch.reads, "moe_layers") {
		if err := r.checkMoELayers(*m); err != nil {
			return err
		}
	}
	if slices.Contains(arch.reads, "topk_method") {
		// The router's style: DeepSeek's top-k methods and scores; one it
		// does not know may carry parameters (V3's noaux_tc adds a bias
		// an expert), so it is refused rather than guessed.
		switch c.TopkMethod {
		case "", "greedy", "group_limited_greedy", "noaux_tc":
		default:
			return errs.F("hf_router", "config.json: %s: %q; allowed %s", "name style allowed", "topk_method", c.TopkMethod, "greedy, group_limited_greedy, noaux_tc")
		}
		switch c.ScoringFunc {
		case "", "softmax", "sigmoid":
		default:
			return errs.F("hf_router", "config.json: %s: %q; allowed %s", "name style allowed", "scoring_func", c.ScoringFunc, "softmax, sigmoid")
		}
		m.RouterBias = c.TopkMethod == "noaux_tc" // DeepSeek-V3's e_score_correction_bias
	}
	return nil
}

// checkMoELayers refuses Llama 4's moe_layers unless it lists the layers
// interleave_moe_layer_step places (what Llama4TextConfig fills in when
// it is null): another list is a layer pattern the model does not hold.
func (r hfReader) checkMoELayers(m Transformer) error {
	var list *tinyjson.Value // the last moe_layers written, as the reader takes keys
	for i, mb := range r.v.Members {
		if strings.EqualFold(mb.Key, "moe_layers") {
			list = &r.v.Members[i].Value
		}
	}
	if list == nil || list.Kind == tinyjson.Null {
		return nil
	}
	var want []int
	for l := range m.Layers {
		if m.MoELayer(l) {
			want = append(want, l)
		}
	}
	same := list.Kind == tinyjson.Array && len(list.Items) == len(want)
	for i := 0; same && i < len(want); i++ {
		n, err := list.Items[i].Int()
		same = err == nil && n == want[i]
	}
	if !same {
		return errs.New("hf_unmodelled", "config.json: moe_layers: not modelled: MoE layers other than every interleave_moe_layer_step-th; allowed null or the layers it gives",
			"name", "moe_layers")
	}
	return nil
}

// readLatent reads DeepSeek's multi-head latent attention, which its
// classes always build (kv_lora_rank 512 by default; q_lora_rank null:
// queries straight from h).
func (r hfReader) readLatent(m *Transformer) error {
	c := r.c
	var err error
	if m.KVLoRA, err = r.need("kv_lora_rank", c.KVLoRARank); err != nil {
		return err
	}
	if q, ok := r.opt("q_lora_rank", c.QLoRARank); ok && q != 0 {
		if m.QLoRA, err = pick("q_lora_rank", &q); err != nil {
			return err
		}
	}
	if m.QKNope, err = r.need("qk_nope_head_dim", c.QKNopeDim); err != nil {
		return err
	}
	if m.QKRope, err = r.need("qk_rope_head_dim", c.QKRopeDim); err != nil {
		return err
	}
	if m.VHead, err = r.need("v_head_dim", c.VHeadDim); err != nil {
		return err
	}
	m.HeadSize = 0
	return nil
}
