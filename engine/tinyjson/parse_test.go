package tinyjson

import (
	stdjson "encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want any // Value.Any of the result
	}{
		{`null`, nil},
		{` true `, true},
		{"\t\r\nfalse\n", false},
		{`0`, 0.0},
		{`-0`, math.Copysign(0, -1)},
		{`12`, 12.0},
		{`-12.5e+2`, -1250.0},
		{`1E-2`, 0.01},
		{`1e-400`, 0.0}, // underflows to zero, as encoding/json reads it
		{`""`, ""},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\u4E2D"`, "é中"},
		{`"\ud83d\ude00"`, "😀"},            // a surrogate pair
		{`"\ud83d"`, "\uFFFD"},             // a lone high surrogate
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD"}, // a low one, then a high one
		{`"\ud83dx"`, "\uFFFDx"},           // a high one, then not an escape
		{`"\ud83d\u0041"`, "\uFFFDA"},      // a high one, then not a low one
		{"\"\xff\"", "\uFFFD"},             // an invalid UTF-8 byte
		{"\"a\xe4\xb8\"", "a\uFFFD\uFFFD"}, // a cut rune: one U+FFFD a byte
		{"\"\u2028 ok\"", "\u2028 ok"},     // a line separator, as it is
		{`[]`, []any{}},
		{`[1, "a", [null]]`, []any{1.0, "a", []any{nil}}},
		{`{}`, map[string]any{}},
		{`{"a":1,"b":{"c":[true]}}`, map[string]any{"a": 1.0, "b": map[string]any{"c": []any{true}}}},
		{`{"a":1,"a":2}`, map[string]any{"a": 2.0}}, // the last duplicate wins
		{`{"\u0061":1}`, map[string]any{"a": 1.0}},  // escaped keys are decoded
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got, err := v.Any()
		if err != nil {
			t.Errorf("Parse(%q).Any(): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) || !sameSign(got, tt.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func sameSign(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return !ok1 || !ok2 || math.Signbit(x) == math.Signbit(y)
}

func TestParseKeepsMembersInOrder(t *testing.T) {
	v, err := Parse([]byte(`{"b":1,"a":2,"b":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range v.Members {
		keys = append(keys, m.Key+"="+m.Value.Text)
	}
	if got, want := strings.Join(keys, " "), "b=1 a=2 b=3"; got != want {
		t.Errorf("members %s, want %s", got, want)
	}
	if n, _ := Parse([]byte(`1.50e3`)); n.Kind != Number || n.Text != "1.50e3" {
		t.Errorf("a number keeps its literal: %+v", n)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "unexpected end of JSON input"},
		{`   `, 3, "unexpected end of JSON input"},
		{`x`, 0, "invalid character 'x' looking for beginning of value"},
		{`nul`, 3, "unexpected end"},
		{`nulL`, 3, "invalid character 'L' in literal null"},
		{`True`, 0, "invalid character 'T'"},
		{`01`, 1, "invalid character '1' after top-level value"},
		{`-`, 1, "unexpected end"},
		{`-a`, 1, "invalid character 'a' in numeric literal"},
		{`+1`, 0, "invalid character '+'"},
		{`.5`, 0, "invalid character '.'"},
		{`1.`, 2, "unexpected end"},
		{`1.e3`, 2, "invalid character 'e' after decimal point"},
		{`1e`, 2, "unexpected end"},
		{`1e+`, 3, "unexpected end"},
		{`1 2`, 2, "after top-level value"},
		{`NaN`, 0, "invalid character 'N'"},
		{`"abc`, 4, "unexpected end"},
		{"\"a\nb\"", 2, `invalid character '\n' in string literal`},
		{"\"\x00\"", 1, `invalid character '\x00' in string literal`},
		{`"\x"`, 2, "invalid character 'x' in string escape code"},
		{`"\u12"`, 5, `invalid character '"' in \u hexadecimal character escape`},
		{`"\u12g4"`, 5, `invalid character 'g' in \u hexadecimal character escape`},
		{`"\`, 2, "unexpected end"},
		{`[1,]`, 3, "invalid character ']' looking for beginning of value"},
		{`[1 2]`, 3, "invalid character '2' after array element"},
		{`[`, 1, "unexpected end"},
		{`{,}`, 1, "looking for beginning of object key string"},
		{`{"a":1,}`, 7, "looking for beginning of object key string"},
		{`{"a" 1}`, 5, "invalid character '1' after object key"},
		{`{"a":1 "b":2}`, 7, "after object key:value pair"},
		{`{1:2}`, 1, "looking for beginning of object key string"},
		{`{"a":}`, 5, "looking for beginning of value"},
		{"\xef\xbb\xbf{}", 0, "invalid character"}, // a byte-order mark
		{`/* c */ 1`, 0, "invalid character '/'"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) error %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q) error %q, want offset %d and %q", tt.in, err, tt.offset, tt.msg)
		}
		if stdjson.Valid([]byte(tt.in)) {
			t.Errorf("encoding/json accepts %q", tt.in)
		}
		if !strings.HasPrefix(err.Error(), "offset ") {
			t.Errorf("Parse(%q) error %q does not name its offset", tt.in, err)
		}
	}
}

func TestParseDepth(t *testing.T) {
	for _, open := range []string{"[", `{"k":`} {
		close := map[string]string{"[": "]", `{"k":`: "}"}[open]
		nest := func(n int) []byte {
			return []byte(strings.Repeat(open, n) + "0" + strings.Repeat(close, n))
		}
		if _, err := Parse(nest(MaxDepth)); err != nil {
			t.Errorf("%d levels of %s: %v", MaxDepth, open, err)
		}
		_, err := Parse(nest(MaxDepth + 1))
		if !TooDeep(err) {
			t.Errorf("%d levels of %s: error %v, want exceeded max depth", MaxDepth+1, open, err)
		}
		if se, ok := err.(*SyntaxError); !ok || se.Offset != MaxDepth*len(open) {
			t.Errorf("%d levels of %s: error %v, want it at offset %d", MaxDepth+1, open, err, MaxDepth*len(open))
		}
	}
}

func TestParseSize(t *testing.T) {
	big := []byte(`"` + strings.Repeat("a", MaxBytes-1) + `"`)
	if _, err := Parse(big[:MaxBytes]); err == nil || !strings.Contains(err.Error(), "unexpected end") {
		t.Errorf("MaxBytes bytes are read: %v", err)
	}
	if _, err := Parse(big); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("MaxBytes+1 bytes: error %v, want the limit", err)
	}
}

func TestValueNumbers(t *testing.T) {
	tests := []struct {
		in      string
		i       int
		intOK   bool
		f       float64
		floatOK bool
	}{
		{`42`, 42, true, 42, true},
		{`-7`, -7, true, -7, true},
		{`42.0`, 0, false, 42, true},
		{`4e1`, 0, false, 40, true},
		{`9223372036854775807`, math.MaxInt64, true, 9223372036854775807, true},
		{`9223372036854775808`, 0, false, 9223372036854775808, true},
		{`1e400`, 0, false, 0, false},
		{`"42"`, 0, false, 0, false},
		{`null`, 0, false, 0, false},
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.in, err)
		}
		i, err := v.Int()
		if (err == nil) != tt.intOK || i != tt.i {
			t.Errorf("Parse(%s).Int() = %d, %v; want %d, ok %v", tt.in, i, err, tt.i, tt.intOK)
		}
		f, err := v.Float()
		if (err == nil) != tt.floatOK || f != tt.f {
			t.Errorf("Parse(%s).Float() = %g, %v; want %g, ok %v", tt.in, f, err, tt.f, tt.floatOK)
		}
		// encoding/json agrees on which are ints and which floats.
		var n int
		var g float64
		if ok := stdjson.Unmarshal([]byte(tt.in), &n) == nil && tt.in != "null"; ok != tt.intOK {
			t.Errorf("encoding/json reads %s into an int: %v", tt.in, ok)
		}
		if ok := stdjson.Unmarshal([]byte(tt.in), &g) == nil && tt.in != "null"; ok != tt.floatOK {
			t.Errorf("encoding/json reads %s into a float64: %v", tt.in, ok)
		}
	}
}

func TestObject(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    map[string]any
		wantErr bool
	}{
		{`{"type":"play"}`, map[string]any{"type": "play"}, false},
		{`null`, nil, false},
		{`[]`, nil, true},
		{`"x"`, nil, true},
		{`{"a":1e999}`, nil, true},
	} {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Object()
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%s).Object() = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		var m map[string]any
		stdErr := stdjson.Unmarshal([]byte(tt.in), &m)
		if (stdErr != nil) != tt.wantErr || !tt.wantErr && !reflect.DeepEqual(m, tt.want) {
			t.Errorf("encoding/json reads %s into a map as %v, %v", tt.in, m, stdErr)
		}
	}
}

// FuzzParse holds Parse to encoding/json on any input: the same inputs
// accepted, and the same values (through Value.Any and Unmarshal into an
// any).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"type":"set","gpus":16,"lang":"zh"}`, `[1,2.5e-3,-0,"\u00e9\ud83d\ude00",true,false,null]`,
		`{"a":{"b":[{}]},"a":1}`, "\"\xff\\ud800\\u0041\"", `1e400`, `01`, `{"a":1,}`, " \t\n\r[ ] ",
		`"\u2028<>&"`, `123456789012345678901234567890`, `-`, `"\/"`, `{"":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if TooDeep(err) {
			return // encoding/json reads on to 10,000 levels
		}
		valid := stdjson.Valid(data)
		if (err == nil) != valid {
			t.Fatalf("Parse(%q) error %v; encoding/json.Valid %v", data, err, valid)
		}
		var want any
		stdErr := stdjson.Unmarshal(data, &want)
		if err != nil {
			if stdErr == nil {
				t.Fatalf("Parse(%q) error %v; encoding/json accepts it", data, err)
			}
			return
		}
		got, anyErr := v.Any()
		if (anyErr == nil) != (stdErr == nil) {
			t.Fatalf("Parse(%q).Any() error %v; encoding/json %v", data, anyErr, stdErr)
		}
		if anyErr == nil && !equalJSON(got, want) {
			t.Fatalf("Parse(%q) = %#v; encoding/json %#v", data, got, want)
		}
	})
}

// equalJSON is reflect.DeepEqual that also tells -0 from 0.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y && math.Signbit(x) == math.Signbit(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
