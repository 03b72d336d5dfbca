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
}

// fields are hfConfig's members by their config.json names.
func (c *hfConfig) fields() []hfField {
	return []hfField{
		{"model_type", &c.ModelType}, {"architectures", &c.Architectures},
		{"num_hidden_layers", &c.Layers}, {"hidden_size", &c.Hidden},
		{"num_attention_heads", &c.Heads}, {"num_key_value_heads", &c.KVHeads},
		{"intermediate_size", &c.Intermediate}, {"vocab_size", &c.Vocab},
		{"max_position_embeddings", &c.MaxPositions}, {"tie_word_embeddings", &c.TieWordEmbeddings},
		{"hidden_act", &c.HiddenAct},
		{"n_layer", &c.NLayer}, {"n_embd", &c.NEmbd}, {"n_head", &c.NHead},
		{"n_positions", &c.NPositions}, {"n_inner", &c.NInner},
	}
}

type hfField struct {
	name string
	ptr  any // *string, *[]string, **int or **bool
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
// other gated-FFN decoders, or GPT-2 style) into a Transformer. A missing
// or out-of-range field is an error naming it; seq, when positive,
// overrides max_position_embeddings as the training sequence length.
func FromHFConfig(data []byte, seq int) (Transformer, error) {
	var c hfConfig
	if err := parseHFConfig(data, &c); err != nil {
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
