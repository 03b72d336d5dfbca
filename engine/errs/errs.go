// Package errs is the engine's refusal of a configuration as data: a
// code and its arguments beside the English sentence, so that a reader's
// language words it by the code (scenarios: the catalogue's
// error.engine.<code>) and never by reading the English back.
package errs

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one refusal. Its English text is Msg, as the CLI prints it;
// Code and Args carry the same facts for a translation.
type Error struct {
	// Code names the refusal: the suffix of its catalogue key
	// (error.engine.<Code>), such as "gpus_tp_pp".
	Code string
	// Args are name/value pairs, each value spelt as Msg spells it. A
	// name with a suffix says how a translation reads the value: x_up is
	// x in capitals, x_id the catalogue key x.<value>, and "model" a
	// model's engine name.
	Args []string
	// Msg is the message in English.
	Msg string
}

// Error is the message in English.
func (e *Error) Error() string { return e.Msg }

// New is the refusal code, msg in English, with args as name/value
// pairs.
func New(code, msg string, args ...string) *Error {
	return &Error{Code: code, Args: args, Msg: msg}
}

// F is the refusal code whose English is format filled with args, as
// fmt.Sprintf fills it. names holds the arguments' names, one a verb of
// format, in order, separated by spaces; "-" names none (an argument
// the refusal does not carry). Each named value is spelt as the message
// spells it, a %q's without the quotes; format's verbs are plain (%d,
// %g, %s, %q: no flags, width or precision).
func F(code, format, names string, args ...any) *Error {
	e := &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
	i := 0
	for k := 0; k+1 < len(format) && names != "" && i < len(args); k++ {
		if format[k] != '%' {
			continue
		}
		k++
		if format[k] == '%' {
			continue
		}
		name := names
		names = ""
		if n := strings.IndexByte(name, ' '); n >= 0 {
			name, names = name[:n], name[n+1:]
		}
		if name != "-" {
			v := fmt.Sprint(args[i])
			if format[k] == 'q' {
				v = Quoted(v)
			}
			e.Args = append(e.Args, name, v)
		}
		i++
	}
	return e
}

// Arg is the value of the argument name, or "" when it has none.
func (e *Error) Arg(name string) string {
	for i := 0; i+1 < len(e.Args); i += 2 {
		if e.Args[i] == name {
			return e.Args[i+1]
		}
	}
	return ""
}

// Range is the refusal hf_range: name's value n is outside lo–hi, tail
// following in the English ("name: n; allowed lo–hi" + tail).
func Range(name string, n, lo, hi int, tail string) *Error {
	return F("hf_range", "%s: %d; allowed %d–%d%s", "name n lo hi", name, n, lo, hi, tail)
}

// RangeG is Range of numbers written as %g writes them.
func RangeG(name string, n, lo, hi float64, tail string) *Error {
	return F("hf_range", "%s: %g; allowed %g–%g%s", "name n lo hi", name, n, lo, hi, tail)
}

// Positive is the refusal positive: name's value n must be positive.
func Positive(name string, n int) *Error {
	return F("positive", "%s: %d; must be positive", "name n", name, n)
}

// Quoted is s as %q writes it, without the quotes: how a message that
// quotes s spells it.
func Quoted(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
