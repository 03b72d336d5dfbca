package tinyjson

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Marshaler is a type that writes its own JSON (encoding/json's
// Marshaler, by the same method).
type Marshaler interface {
	MarshalJSON() ([]byte, error)
}

// maxEncodeDepth bounds how deep Marshal follows pointers, interfaces and
// containers: a cycle is an error, never a stack overflow.
const maxEncodeDepth = 1000

// Marshal is v's JSON, as encoding/json.Marshal writes it (see the
// package documentation for the kinds it supports).
func Marshal(v any) ([]byte, error) {
	return appendValue(nil, reflect.ValueOf(v), 0)
}

// textMarshaler is encoding.TextMarshaler, which encoding/json writes as
// a string: not supported here, so an error rather than other bytes.
type textMarshaler interface {
	MarshalText() ([]byte, error)
}

var (
	marshalerType     = reflect.TypeFor[Marshaler]()
	textMarshalerType = reflect.TypeFor[textMarshaler]()
)

func appendValue(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	if depth > maxEncodeDepth {
		return b, errors.New("json: unsupported value: nesting deeper than " + strconv.Itoa(maxEncodeDepth) + " (a cycle?)")
	}
	t := v.Type()
	if done, err := appendMarshaler(&b, v, t); done {
		return b, err
	}
	switch t.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Float32:
		return appendFloat(b, v.Float(), 32)
	case reflect.Float64:
		return appendFloat(b, v.Float(), 64)
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendValue(b, v.Elem(), depth+1)
	case reflect.Struct:
		return appendStruct(b, v, depth)
	case reflect.Map:
		return appendMap(b, v, depth)
	case reflect.Slice:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(marshalerType) && !reflect.PointerTo(t.Elem()).Implements(marshalerType) {
			// encoding/json writes base64; nothing here needs it.
			return b, errors.New("json: unsupported type: " + t.String())
		}
		return appendList(b, v, depth)
	case reflect.Array:
		return appendList(b, v, depth)
	}
	return b, errors.New("json: unsupported type: " + t.String())
}

// appendMarshaler writes v with its MarshalJSON method, if its type or
// its pointer (when v is addressable) has one: done reports whether.
func appendMarshaler(b *[]byte, v reflect.Value, t reflect.Type) (done bool, err error) {
	if t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(marshalerType) {
		v = v.Addr()
		t = v.Type()
	}
	if !t.Implements(marshalerType) {
		if t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
			return true, errors.New("json: unsupported type: " + t.String() + " (a TextMarshaler)")
		}
		return false, nil
	}
	if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
		*b = append(*b, "null"...)
		return true, nil
	}
	out, err := v.Interface().(Marshaler).MarshalJSON()
	if err == nil {
		_, err = Parse(out)
	}
	if err != nil {
		return true, errors.New("json: error calling MarshalJSON for type " + t.String() + ": " + err.Error())
	}
	*b = append(*b, out...)
	return true, nil
}

// appendFloat writes f as encoding/json does: ES6's number to string,
// 'f' between 1e-6 and 1e21, else 'e' with the exponent unpadded.
func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString writes s quoted as encoding/json does: HTML-safe (<, >
// and & as \u escapes), U+2028 and U+2029 escaped, invalid UTF-8 as
// U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendList(b []byte, v reflect.Value, depth int) ([]byte, error) {
	b = append(b, '[')
	for i := range v.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, v.Index(i), depth+1); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendMap(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.Type().Key().Kind() != reflect.String {
		return b, errors.New("json: unsupported type: " + v.Type().String())
	}
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	type entry struct {
		key string
		val reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		entries = append(entries, entry{it.Key().String(), it.Value()})
	}
	// sort.Slice, not slices.SortFunc: the wasm links it already, and
	// each generic instantiation is ≈ 10 kB of code.
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	b = append(b, '{')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, e.key), ':')
		var err error
		if b, err = appendValue(b, e.val, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func appendStruct(b []byte, v reflect.Value, depth int) ([]byte, error) {
	b = append(b, '{')
	first := true
fields:
	for _, f := range cachedFields(v.Type()) {
		fv := v
		for _, i := range f.index {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue fields // a nil embedded pointer has no fields
				}
				fv = fv.Elem()
			}
			fv = fv.Field(i)
		}
		if f.option != "" {
			return b, errors.New("json: unsupported tag option " + f.option + " on " + v.Type().String() + "." + f.name)
		}
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, f.name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, fv, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// field is one JSON member of a struct: its name and the path of field
// indices to it through embedded structs.
type field struct {
	name      string
	index     []int
	tagged    bool
	omitEmpty bool
	// option is a tag option Marshal does not support ("string",
	// "omitzero"): writing the field is an error.
	option string
}

var fieldCache sync.Map // reflect.Type → []field

func cachedFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	f, _ := fieldCache.LoadOrStore(t, typeFields(t))
	return f.([]field)
}

// typeFields lists the members of struct type t by encoding/json's rules:
// exported fields, named by their tag or else by the field's name;
// untagged embedded structs (or pointers to them) have their fields
// promoted, breadth first; of fields with the same name the shallowest
// wins, a tagged one among the shallowest, and a tie drops the name; the
// members keep the order of declaration.
func typeFields(t reflect.Type) []field {
	type level struct {
		t     reflect.Type
		index []int
	}
	var all []field
	var current []level
	next := []level{{t: t}}
	var count map[reflect.Type]int
	nextCount := map[reflect.Type]int{}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.t] {
				continue
			}
			visited[l.t] = true
			for i := range l.t.NumField() {
				sf := l.t.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := field{name: name, index: index, tagged: name != "", omitEmpty: hasOption(opts, "omitempty")}
					if f.name == "" {
						f.name = sf.Name
					}
					for _, o := range []string{"string", "omitzero"} {
						if hasOption(opts, o) {
							f.option = o
						}
					}
					all = append(all, f)
					if count[l.t] > 1 {
						// The same struct embedded twice at this depth:
						// a second copy makes its names a tie.
						all = append(all, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{ft, index})
				}
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tagged != b.tagged {
			return a.tagged
		}
		return indexLess(a.index, b.index)
	})
	var fields []field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		// all[i] is the shallowest of its name, tagged first: it wins
		// unless the next is as deep and as tagged.
		if j-i == 1 || len(all[i+1].index) > len(all[i].index) || all[i+1].tagged != all[i].tagged {
			fields = append(fields, all[i])
		}
		i = j
	}
	sort.Slice(fields, func(i, j int) bool { return indexLess(fields[i].index, fields[j].index) })
	return fields
}

func indexLess(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// validTagName is encoding/json's test of a tag's name.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
