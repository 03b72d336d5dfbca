package tinyjson

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts.
// encoding/json's is 10,000, but as WebAssembly each level is native
// stack of the JavaScript engine, which Node.js and Chromium run out of
// (and crash) at a few thousand levels of this parser; JSON the page
// reads nests five deep.
const MaxDepth = 1000

// MaxBytes is the longest input Parse accepts.
const MaxBytes = 8 << 20

// Kind is what a Value holds.
type Kind uint8

// The kinds of JSON value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "bool", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed JSON value.
type Value struct {
	Kind Kind
	// Bool is a Bool's value.
	Bool bool
	// Text is a String's decoded value, or a Number's literal as written
	// ("1e3", "-0.5").
	Text string
	// Items are an Array's elements.
	Items []Value
	// Members are an Object's members in the order written, duplicate
	// keys included.
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Value
}

const tooDeep = "exceeded max depth"

// TooDeep reports whether err is Parse's refusal of nesting deeper than
// MaxDepth.
func TooDeep(err error) bool {
	se, ok := err.(*SyntaxError)
	return ok && se.Msg == tooDeep
}

// SyntaxError is input that is not JSON; Offset is the byte at which it
// went wrong.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Parse reads one JSON value, with optional whitespace around it.
func Parse(data []byte) (Value, error) {
	if len(data) > MaxBytes {
		return Value{}, &SyntaxError{MaxBytes, fmt.Sprintf("%d bytes; at most %d", len(data), MaxBytes)}
	}
	p := parser{data: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i < len(p.data) {
		return Value{}, p.bad("after top-level value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) fail(msg string) error { return &SyntaxError{p.i, msg} }

// bad is the error of the byte at p.i, where says where it is.
func (p *parser) bad(where string) error {
	return p.fail("invalid character " + quoteChar(p.data[p.i]) + " " + where)
}

func (p *parser) failEOF() error { return &SyntaxError{len(p.data), "unexpected end of JSON input"} }

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads the value at p.i (whitespace already skipped); depth is
// the number of arrays and objects around it.
func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.data) {
		return Value{}, p.failEOF()
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Text: s}, err
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return Value{Kind: Bool, Bool: true}, p.literal("true")
	case c == 'f':
		return Value{Kind: Bool}, p.literal("false")
	case c == 'n':
		return Value{}, p.literal("null")
	default:
		return Value{}, p.bad("looking for beginning of value")
	}
}

func (p *parser) literal(word string) error {
	for j := 0; j < len(word); j++ {
		if p.i >= len(p.data) {
			return p.failEOF()
		}
		if p.data[p.i] != word[j] {
			return p.bad("in literal " + word + " (expecting " + quoteChar(word[j]) + ")")
		}
		p.i++
	}
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail(tooDeep)
	}
	p.i++ // {
	v := Value{Kind: Object}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		if p.i >= len(p.data) {
			return Value{}, p.failEOF()
		}
		if p.data[p.i] != '"' {
			return Value{}, p.bad("looking for beginning of object key string")
		}
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.space()
		if p.i >= len(p.data) {
			return Value{}, p.failEOF()
		}
		if p.data[p.i] != ':' {
			return Value{}, p.bad("after object key")
		}
		p.i++
		p.space()
		val, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		v.Members = append(v.Members, Member{key, val})
		done, err := p.separator('}', "after object key:value pair")
		if err != nil {
			return Value{}, err
		}
		if done {
			return v, nil
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.fail(tooDeep)
	}
	p.i++ // [
	v := Value{Kind: Array, Items: []Value{}}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		item, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		v.Items = append(v.Items, item)
		done, err := p.separator(']', "after array element")
		if err != nil {
			return Value{}, err
		}
		if done {
			return v, nil
		}
	}
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *parser) number() (Value, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++ // a leading 0 stands alone: 01 is 0 and then junk
	} else {
		if err := p.digits("in numeric literal"); err != nil {
			return Value{}, err
		}
		for p.i < len(p.data) && isDigit(p.data[p.i]) {
			p.i++
		}
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if err := p.digits("after decimal point in numeric literal"); err != nil {
			return Value{}, err
		}
		for p.i < len(p.data) && isDigit(p.data[p.i]) {
			p.i++
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if err := p.digits("in exponent of numeric literal"); err != nil {
			return Value{}, err
		}
		for p.i < len(p.data) && isDigit(p.data[p.i]) {
			p.i++
		}
	}
	return Value{Kind: Number, Text: string(p.data[start:p.i])}, nil
}

// digits requires one digit at p.i and steps over it.
func (p *parser) digits(where string) error {
	if p.i >= len(p.data) {
		return p.failEOF()
	}
	if !isDigit(p.data[p.i]) {
		return p.bad(where)
	}
	p.i++
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// str reads the string at p.i (its opening quote) and decodes it.
func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	// The common case: no escapes, valid UTF-8.
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			s := string(p.data[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	buf := append([]byte(nil), p.data[start:p.i]...)
	for {
		if p.i >= len(p.data) {
			return "", p.failEOF()
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.bad("in string literal")
		case c == '\\':
			p.i++
			if p.i >= len(p.data) {
				return "", p.failEOF()
			}
			e := p.data[p.i]
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// A pair is two escapes; anything else leaves U+FFFD,
					// and what follows is read on its own.
					hi := r
					r = utf8.RuneError
					if p.i+6 < len(p.data) && p.data[p.i+1] == '\\' && p.data[p.i+2] == 'u' {
						if lo, ok := hexValue(p.data[p.i+3 : p.i+7]); ok {
							if dec := utf16.DecodeRune(hi, lo); dec != utf8.RuneError {
								r = dec
								p.i += 6
							}
						}
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.bad("in string escape code")
			}
			p.i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, p.data[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
}

// hex4 reads the four hex digits of a \u escape, p.i at the u, and
// leaves p.i at the last digit.
func (p *parser) hex4() (rune, error) {
	for j := 1; j <= 4; j++ {
		if p.i+j >= len(p.data) {
			p.i = len(p.data)
			return 0, p.failEOF()
		}
		if _, ok := hexDigit(p.data[p.i+j]); !ok {
			p.i += j
			return 0, p.bad("in \\u hexadecimal character escape")
		}
	}
	r, _ := hexValue(p.data[p.i+1 : p.i+5])
	p.i += 4
	return r, nil
}

func hexValue(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | d
	}
	return r, true
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

// quoteChar is how an error shows the byte c, as encoding/json does.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// separator reads, after a member or element, the comma that continues
// its object or array (done false) or close that ends it (done true);
// anything else is an error saying what it came after.
func (p *parser) separator(close byte, after string) (done bool, err error) {
	p.space()
	if p.i >= len(p.data) {
		return false, p.failEOF()
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		p.space()
		return false, nil
	case close:
		p.i++
		return true, nil
	}
	return false, p.bad(after)
}
