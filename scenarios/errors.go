package scenarios

import (
	"fmt"

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
// its name/value pairs, which always include "field" and "value".
type InputError struct {
	Field, Value, Key string
	Args              []string
}

// Error is the message in English.
func (e *InputError) Error() string { return e.Localize(i18n.Fallback) }

// Localize is the message in lang.
func (e *InputError) Localize(lang string) string { return i18n.T(lang, e.Key, e.Args...) }

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
