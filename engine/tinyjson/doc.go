// Package tinyjson is the JSON gpuscope reads and writes in the browser:
// a strict parser to a small value tree and a reflection encoder for the
// project's own shapes, in place of encoding/json, which alone is about
// 100 kB of main.wasm's gzip. The native CLI keeps encoding/json; what
// this package writes and accepts is tested to be what encoding/json
// writes and accepts.
//
// Parse accepts what encoding/json's Unmarshal accepts syntactically (RFC 8259: no comments, no trailing commas, no leading
// zeros, no bare control characters in strings, whitespace only space,
// tab, CR and LF): objects keep their members in order, duplicates
// included; a string's escapes are decoded (a \u surrogate pair to one
// rune, a lone surrogate or an invalid UTF-8 byte to U+FFFD, as
// encoding/json does); a number keeps its literal text, so that the
// caller chooses how to read it (Value.Float, Value.Int). Nesting deeper
// than MaxDepth (1,000; encoding/json allows 10,000) and input longer
// than MaxBytes are errors. Every error says at which byte offset the input went wrong.
// Value.Any gives the tree as encoding/json decodes into an any:
// map[string]any (the last of duplicate keys wins), []any, float64,
// string, bool and nil.
//
// Marshal writes a Go value as encoding/json.Marshal does, byte for byte,
// for the kinds the project's state, events and metrics use: bool,
// integers, floats (ES6 formatting; NaN and infinities are errors),
// strings (HTML-safe escaping, U+2028/U+2029 escaped, invalid UTF-8 as
// U+FFFD), structs (json tags with omitempty and "-", embedded structs
// promoted by encoding/json's rules), maps with string keys (sorted),
// slices and arrays, pointers, interfaces, and types with a MarshalJSON
// method (its output is checked and written as it is: it must be
// compact). What encoding/json writes otherwise — []byte as base64, maps
// with other keys, types with a MarshalText method, the tag options
// "string" and "omitzero" — is an error here rather than other bytes, as
// are channels, functions and complex numbers there too.
package tinyjson
