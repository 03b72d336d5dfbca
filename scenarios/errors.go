package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// FileError is a problem in a scenario file. Line is 1-based; problems
// with the file as a whole (a missing header field, no steps) are reported
// on line 1.
type FileError struct {
	File  string
	Line  int
	Field string // the directive concerned, such as "knob", "set" or "from"
	Msg   string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// InputError is a bad value given by a reader: in a URL fragment, a CLI
// flag or a page command. Key is an i18n key ("error.range", ...) and Args
// its name/value pairs, which always include "field" and "value". A list
// in Args (the allowed values) is joined by listArg and reads with the
// language's own separator ("a, b" in English, "a、b" in Chinese).
type InputError struct {
	Field, Value, Key string
	Args              []string
	// Local are name/key pairs: placeholders whose text is itself a
	// catalogue entry (what is allowed, in words), filled in the reader's
	// language.
	Local []string
	// params are placeholders holding parameter counts, written in the
	// reader's language (ParamCount: "46.7B", "467 亿").
	params []paramArg
}

type paramArg struct {
	name string
	n    float64
}

// Error is the message in English.
func (e *InputError) Error() string { return e.Localize(i18n.Fallback) }

// Localize is the message in lang.
func (e *InputError) Localize(lang string) string {
	args := make([]string, 0, len(e.Args)+len(e.Local))
	sep := i18n.T(lang, "ui.list_sep")
	for i, a := range e.Args {
		if i%2 == 1 {
			a = strings.ReplaceAll(a, listMark, sep)
		}
		args = append(args, a)
	}
	for _, p := range e.params {
		args = append(args, p.name, ParamCount(lang, p.n))
	}
	for i := 0; i+1 < len(e.Local); i += 2 {
		args = append(args, e.Local[i], i18n.T(lang, e.Local[i+1], args...))
	}
	return i18n.T(lang, e.Key, args...)
}

// listMark joins the items of a list argument until Localize puts the
// language's separator between them.
const listMark = "\x1f"

// listArg is a list of allowed values as one argument of an InputError.
func listArg(items []string) string { return strings.Join(items, listMark) }

// maxShown is the most runes of a reader's value an error message repeats.
const maxShown = 40

// shown shortens a reader's value for an error message.
func shown(v string) string {
	r := []rune(v)
	if len(r) <= maxShown {
		return v
	}
	return string(r[:maxShown-1]) + "…"
}

// inputError builds an InputError; extra are further name/value pairs.
func inputError(key, field, value string, extra ...string) *InputError {
	args := append([]string{"field", field, "value", shown(value)}, extra...)
	return &InputError{Field: field, Value: value, Key: key, Args: args}
}

// engineMessages word the engine's refusals of a configuration — the
// English lines the CLI prints — in the catalogue's languages: each
// pattern matches one of the engine's messages, its groups filling the
// placeholders of an error.engine.* key. A group named kind_x is a value
// of x spelt as the engine spells it, read through a catalogue key
// (schedule_id through schedule.ID, limit_id through limit.ID), a group
// named x_up is x in capitals (fp8: FP8); model is a
// model's engine name, read as the catalogue's name of that model.
var engineMessagePatterns = []struct{ pattern, key string }{
	{`^gpus: (?P<gpus>\d+) not divisible by tp × pp = (?P<tp>\d+) × (?P<pp>\d+)$`, "error.engine.gpus_tp_pp"},
	{`^gpus: no plan for (?P<model>.+) fits (?P<gpus>\d+) × (?P<gpu>.+) with a global batch of (?P<batch>\d+); add GPUs or pick a smaller model$`, "error.engine.no_plan"},
	{`^interleave: (?P<v>\d+) needs --schedule interleaved \(schedule is (?P<schedule_id>[a-z0-9]+)\)$`, "error.engine.interleave_schedule"},
	{`^schedule: interleaved needs pp ≥ 2 and interleave ≥ 2 \(pp (?P<pp>\d+), interleave (?P<v>\d+)\)$`, "error.engine.interleaved_needs"},
	{`^micro-batches: (?P<m>\d+) must be a multiple of pp (?P<pp>\d+) for the interleaved schedule`, "error.engine.micro_batches_pp"},
	{`^kv-heads: (?P<kv>\d+) must divide heads (?P<heads>\d+)$`, "error.engine.kv_heads"},
	{`^heads: (?P<heads>\d+) must divide hidden (?P<hidden>\d+)$`, "error.engine.heads_hidden"},
	{`^tp: (?P<tp>\d+) does not divide heads (?P<heads>\d+)$`, "error.engine.tp_heads"},
	{`^layers: (?P<layers>\d+) not divisible by pp × interleave = (?P<pp>\d+) × (?P<v>\d+)`, "error.engine.layers_pp"},
	{`^zero: (?P<zero>\d+) with pp (?P<pp>\d+); `, "error.engine.zero_pp"},
	{`^global-batch: (?P<batch>\d+) not divisible by dp × micro-batch = (?P<dp>\d+) × (?P<b>\d+)$`, "error.engine.global_batch"},
	{`^nodes: (?P<nodes>\d+) is not allowed; allowed 1–(?P<max>\d+), dividing the (?P<gpus>\d+) GPUs evenly$`, "error.engine.nodes"},
	{`^(?P<limit_id>[a-z-]+): one block of (?P<threads>\d+) threads × (?P<registers>\d+) registers and (?P<smem>\d+) bytes of shared memory does not fit an SM of (?P<gpu>.+)$`, "error.engine.block_fit"},
	{`^shared-memory-per-block: (?P<smem>\d+) bytes; allowed 0–(?P<max>\d+) on (?P<gpu>.+)$`, "error.engine.smem"},
	{`^dtype: (?P<gpu>.+) has no (?P<dtype_up>[a-z0-9]+) unit; allowed (?P<allowed>[a-z0-9, ]+)$`, "error.engine.dtype_allowed"},
	{`^dtype: (?P<gpu>.+) has no (?P<dtype_up>[a-z0-9]+) (?:unit|rate|tensor cores; allowed .*)$`, "error.engine.dtype"},
	{`^config\.json: (?P<n>\d+) bytes; allowed at most (?P<max>\d+) `, "error.engine.hf_size"},
	{`^config\.json: nested deeper than (?P<max>\d+) levels`, "error.engine.hf_deep"},
	{`^config\.json: model_type: "(?P<type>.*)"; allowed (?P<allowed>[a-z0-9_, ]+)$`, "error.engine.hf_model_type"},
	{`^config\.json: model_type: missing; (?P<name>[a-z_]+) is read by model_type (?P<allowed>[a-z0-9_, ]+) only`, "error.engine.hf_needs_type"},
	{`^config\.json: (?P<name>[a-z0-9_]+): not read by model_type (?P<type>[a-z0-9_]+) \((?P<class>[A-Za-z0-9]+)\); remove it, or use a model_type that reads it: (?P<allowed>[a-z0-9_, ]+)$`, "error.engine.hf_not_read"},
	{`^config\.json: (?P<name>[a-z_]+): (?P<n>-?\d+) and (?P<other>[a-z_]+): (?P<m>-?\d+) are one setting in model_type (?P<type>[a-z0-9_]+) `, "error.engine.hf_alias"},
	{`^config\.json: (?P<name>[a-z_]+): missing(?:$|; )`, "error.engine.hf_missing"},
	{`^config\.json: (?P<name>[a-z_]+): (?P<n>-?\d+); must be positive$`, "error.engine.hf_positive"},
	{`^config\.json: hidden_act: "(?P<act>.*)"; allowed `, "error.engine.hf_act"},
	{`^config\.json: (?P<name>topk_method|scoring_func): "(?P<style>.*)"; allowed (?P<allowed>[a-z_, ]+)$`, "error.engine.hf_router"},
	{`^config\.json: (?P<name>[a-z_]+): not modelled: `, "error.engine.hf_unmodelled"},
	{`^config\.json: (?P<name>[a-z_]+): a JSON (?P<kind>[a-z]+); must be (?P<want>.+)$`, "error.engine.hf_type"},
	{`^mtp-layers: (?P<n>\d+); allowed 0–(?P<hi>\d+)$`, "error.engine.mtp_layers"},
	{`^(?:config\.json: )?(?P<name>[a-z_-]+): (?P<n>-?\d+); allowed (?P<lo>\d+)–(?P<hi>\d+)`, "error.engine.hf_range"},
	{`^(?P<name>[a-z-]+): (?P<n>-?\d+); must be positive$`, "error.engine.positive"},
	{`^qk-nope-head-dim, qk-rope-head-dim, v-head-dim: (?P<nope>\d+), (?P<rope>\d+), (?P<v>\d+); `, "error.engine.mla_dims"},
	{`^kv-lora-rank: (?P<kv>-?\d+) with q-lora-rank (?P<q>-?\d+) and head dims (?P<nope>-?\d+), (?P<rope>-?\d+), (?P<v>-?\d+); `, "error.engine.mla_kv"},
	{`^ffn-kind: "(?P<kind>[a-z0-9]+)"; a mixture of experts' experts are swiglu$`, "error.engine.moe_swiglu"},
	{`^ep: (?P<ep>\d+) does not divide the (?P<experts>\d+) experts$`, "error.engine.ep_experts"},
	{`^ep: (?P<ep>\d+) does not divide dp (?P<dp>\d+) `, "error.engine.ep_dp"},
	{`^block-scaled: needs --dtype fp8 `, "error.engine.block_scaled"},
	{`^ep: (?P<ep>\d+) with a dense model; `, "error.engine.ep_dense"},
	{`^seq: (?P<seq>\d+) not divisible by 2·cp = (?P<two_cp>\d+) `, "error.engine.seq_cp"},
	{`^tp × cp × pp × dp: (?P<tp>\d+) × (?P<cp>\d+) × (?P<pp>\d+) × (?P<dp>\d+) = (?P<n>\d+); must equal gpus (?P<gpus>\d+)$`, "error.engine.gpus_product"},
	{`^tp × pp × dp: (?P<tp>\d+) × (?P<pp>\d+) × (?P<dp>\d+) = (?P<n>\d+); must equal gpus (?P<gpus>\d+)$`, "error.engine.gpus_product3"},
	{`^schedule: dualpipe needs an even pp ≥ 2 \(pp (?P<pp>\d+)\)$`, "error.engine.dualpipe_pp"},
	{`^micro-batches: (?P<m>\d+) must be even and at least 2 × pp = (?P<two_pp>\d+) for the dualpipe schedule`, "error.engine.dualpipe_mb"},
	{`^pp × micro-batches × interleave: (?P<n>\d+); at most (?P<max>\d+) blocks$`, "error.engine.blocks"},
	{`^config\.json: `, "error.engine.hf_json"},
}

// engineMessages are engineMessagePatterns compiled, on the first refusal
// to word (not at start-up: compiling them is tens of milliseconds of a
// page's first frame in WebAssembly).
var engineMessages = sync.OnceValue(func() []engineMessage {
	ms := make([]engineMessage, len(engineMessagePatterns))
	for i, m := range engineMessagePatterns {
		ms[i] = engineMessage{regexp.MustCompile(m.pattern), m.key}
	}
	return ms
})

type engineMessage struct {
	re  *regexp.Regexp
	key string
}

// engineError is the input error for a configuration the engine refuses
// with err, on field (a knob, or "config" or "hf_config"): the engine's
// message worded through the catalogue when it is one it knows, else the
// message itself (error.command).
func engineError(field, value string, err error) *InputError {
	if ie, ok := errors.AsType[*InputError](err); ok {
		return ie // already the reader's words (a kind's own check)
	}
	msg := err.Error()
	for _, m := range engineMessages() {
		g := m.re.FindStringSubmatch(msg)
		if g == nil {
			continue
		}
		e := &InputError{Field: field, Value: value, Key: m.key, Args: []string{"field", field, "value", shown(value), "detail", msg}}
		if m.key == "error.engine.hf_unmodelled" {
			// Why the field is not read, in the reader's words.
			e.Local = append(e.Local, "why", "error.hf_why."+g[m.re.SubexpIndex("name")])
		}
		for i, name := range m.re.SubexpNames() {
			switch {
			case name == "":
			case name == "model":
				e.Local = append(e.Local, "model", modelNameKey(g[i]))
			case strings.HasSuffix(name, "_up"):
				e.Args = append(e.Args, strings.TrimSuffix(name, "_up"), strings.ToUpper(g[i]))
			case strings.HasSuffix(name, "_id"):
				kind := strings.TrimSuffix(name, "_id")
				e.Local = append(e.Local, kind, kind+"."+g[i])
			default:
				e.Args = append(e.Args, name, g[i])
			}
		}
		return e
	}
	return &InputError{Field: field, Value: value, Key: "error.command", Args: []string{"field", field, "value", shown(value), "detail", msg}}
}

// modelNameKey is the catalogue key of the model the engine calls name.
func modelNameKey(name string) string {
	for _, id := range model.PresetIDs() {
		if m, _ := model.Preset(id); m.Name == name {
			return "modelname." + id
		}
	}
	return "modelname.custom"
}
