package scenarios

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
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

// engineError is the input error for a configuration the engine refuses
// with err, on field (a knob, or "config" or "hf_config"): the engine's
// refusal worded through the catalogue by its code (errs.Error: the key
// error.engine.<code>, its arguments filling the placeholders), else the
// message itself (error.command).
func engineError(field, value string, err error) *InputError {
	if ie, ok := errors.AsType[*InputError](err); ok {
		return ie // already the reader's words (a kind's own check)
	}
	msg := err.Error()
	e := &InputError{Field: field, Value: value, Key: "error.command", Args: []string{"field", field, "value", shown(value), "detail", msg}}
	ee, ok := errors.AsType[*errs.Error](err)
	if !ok {
		return e
	}
	e.Key = "error.engine." + ee.Code
	if ee.Code == "hf_unmodelled" {
		// Why the field is not read, in the reader's words.
		e.Local = append(e.Local, "why", "error.hf_why."+ee.Arg("name"))
	}
	for i := 0; i+1 < len(ee.Args); i += 2 {
		name, v := ee.Args[i], ee.Args[i+1]
		switch {
		case name == "model":
			e.Local = append(e.Local, "model", modelNameKey(v))
		case strings.HasSuffix(name, "_up"):
			e.Args = append(e.Args, strings.TrimSuffix(name, "_up"), strings.ToUpper(v))
		case strings.HasSuffix(name, "_id"):
			kind := strings.TrimSuffix(name, "_id")
			e.Local = append(e.Local, kind, kind+"."+v)
		default:
			e.Args = append(e.Args, name, v)
		}
	}
	return e
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
