package tinyjson

import (
	stdjson "encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(n), 0) {
		return []byte(`"Inf"`), nil
	}
	return []byte("7"), nil
}

type ptrMarshaler struct{ n int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"p":1}`), nil }

type badMarshaler struct{}

func (badMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"p":`), nil }

type failingMarshaler struct{}

func (failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type Inner struct {
	A     int    `json:"a"`
	Shade string `json:"shade,omitempty"`
	Dup   int    // hidden by Outer.Dup
	Tie   int    // ties with Other.Tie: dropped
}

type Other struct {
	Tie   int
	Named int `json:"tie_tagged"`
}

type deep struct {
	Deeper int `json:"deeper"`
}

type middle struct {
	deep         // an unexported embedded struct: its fields promote
	Mid  int     `json:"mid"`
	P    *Inner  `json:"p"`
	Q    *Inner  `json:"q,omitempty"`
	Any  any     `json:"any"`
	Nums []int   `json:"nums"`
	Arr  [2]bool `json:"arr"`
}

type Outer struct {
	Inner
	*Other
	middle
	Dup      string            `json:"Dup"`
	Skip     int               `json:"-"`
	Dash     int               `json:"-,"`
	skipped  int               // unexported: never written
	Bad      int               `json:"a b\x00"` // an invalid tag name: the field's name
	Map      map[string]any    `json:"map"`
	Bytes    []byte            `json:"bytes"`
	F32      float32           `json:"f32"`
	U8       uint8             `json:"u8"`
	Num      number            `json:"num"`
	NumPtr   *number           `json:"num_ptr"`
	PM       ptrMarshaler      `json:"pm"`
	Empty    map[string]string `json:"empty,omitempty"`
	Zero     float64           `json:"zero,omitempty"`
	NilSlice []string          `json:"nil_slice"`
	Esc      string            `json:"<esc>&"`
}

// TestMarshalLikeEncodingJSON writes values of every supported kind and
// compares the bytes with encoding/json's.
func TestMarshalLikeEncodingJSON(t *testing.T) {
	inf := number(math.Inf(1))
	values := []any{
		nil, true, false, 0, -1, int8(-128), uint64(math.MaxUint64), uintptr(9),
		0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.123, 5e-324, math.MaxFloat64,
		float32(0.1), float32(1e21), float32(1e-7), float32(3.4e38),
		"", "plain", "quote\" back\\ slash/ \b\f\n\r\t \x01\x1f", "<a href=\"x\">&amp;</a>",
		"é 中 😀", "\u2028\u2029", "bad \xff utf8 \xe4\xb8", "\x7f",
		[]int{}, []int(nil), []any{1, "a", nil, []string{"b"}}, [0]int{}, [3]string{"a", "b", "c"},
		[]byte(nil),
		map[string]int{"b": 2, "a": 1, "<": 0}, map[string]any(nil), map[string][]string{"é": {"x"}, "": nil},
		&Inner{A: 1}, (*Inner)(nil), Inner{Shade: "x"},
		number(1), inf, &inf, (*number)(nil), []number{1, inf},
		&ptrMarshaler{}, ptrMarshaler{}, []ptrMarshaler{{}}, map[string]*ptrMarshaler{"a": nil, "b": {}},
		Outer{
			Inner: Inner{A: 1, Dup: 2, Tie: 3}, Other: &Other{Tie: 4, Named: 5},
			middle: middle{deep: deep{6}, Mid: 7, P: &Inner{A: 8}, Any: map[string]any{"x": []any{1.5, "y"}}, Nums: []int{1, 2}},
			Dup:    "outer", Skip: 9, Dash: 10, Bad: 11, Map: map[string]any{"z": 1, "a": nil},
			F32: 0.3, U8: 200, Num: 2, NumPtr: &inf, Esc: "<>",
		},
		Outer{}, // a nil *Other: its fields are left out
		struct {
			Inner `json:"inner"` // a tagged embedded struct is a member
			X     int
		}{Inner{A: 1}, 2},
	}
	for _, v := range values {
		got, err := Marshal(v)
		want, stdErr := stdjson.Marshal(v)
		if err != nil || stdErr != nil {
			t.Errorf("Marshal(%#v): error %v; encoding/json %v", v, err, stdErr)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("Marshal(%#v)\n got %s\nwant %s", v, got, want)
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	type withChan struct{ C chan int }
	type withString struct {
		N int `json:"n,string"`
	}
	for _, tt := range []struct {
		v    any
		want string
	}{
		{math.NaN(), "unsupported value: NaN"},
		{math.Inf(-1), "unsupported value: -Inf"},
		{[]float64{1, math.Inf(1)}, "unsupported value: +Inf"},
		{float32(math.Inf(1)), "unsupported value: +Inf"},
		{make(chan int), "unsupported type: chan int"},
		{withChan{}, "unsupported type: chan int"},
		{func() {}, "unsupported type"},
		{complex(1, 2), "unsupported type: complex128"},
		{map[float64]int{1: 1}, "unsupported type: map[float64]int"},
		{map[int]string{1: "x"}, "unsupported type: map[int]string"},
		{badMarshaler{}, "error calling MarshalJSON for type tinyjson.badMarshaler"},
		{failingMarshaler{}, "error calling MarshalJSON for type tinyjson.failingMarshaler: no"},
		{withString{1}, "unsupported tag option string"},
		{[]byte("x"), "unsupported type: []uint8"},
		{errors.New("x"), ""}, // an unexported struct: {} (no error, as encoding/json)
	} {
		_, err := Marshal(tt.v)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Marshal(%#v): %v", tt.v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Marshal(%#v) error %v, want %q", tt.v, err, tt.want)
		}
		// encoding/json refuses the same values (it supports the string
		// option, []byte and integer map keys, which Marshal refuses
		// rather than write something else).
		if _, stdErr := stdjson.Marshal(tt.v); stdErr == nil && !strings.Contains(tt.want, "tag option") && !strings.Contains(tt.want, "uint8") && !strings.Contains(tt.want, "map[int]") {
			t.Errorf("encoding/json accepts %#v", tt.v)
		}
	}
	// A cycle is an error, not a stack overflow.
	type node struct{ Next *node }
	n := &node{}
	n.Next = n
	if _, err := Marshal(n); err == nil {
		t.Error("Marshal of a cycle: no error")
	}
}

// FuzzMarshalString writes any string as encoding/json does.
func FuzzMarshalString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "<>&", "\u2028", "\xff", "\x00\x1f\x7f", "é中😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Marshal(s)
		want, _ := stdjson.Marshal(s)
		if err != nil || string(got) != string(want) {
			t.Fatalf("Marshal(%q) = %s, %v; encoding/json %s", s, got, err, want)
		}
		// And what it writes parses back to the string encoding/json reads.
		v, err := Parse(got)
		var back string
		_ = stdjson.Unmarshal(want, &back)
		if err != nil || v.Text != back {
			t.Fatalf("Parse(Marshal(%q)) = %q, %v; want %q", s, v.Text, err, back)
		}
	})
}

// FuzzMarshalFloat writes any float64 and float32 as encoding/json does.
func FuzzMarshalFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1, 1e21, 1e-7, 0.1, 5e-324, math.MaxFloat64, math.NaN()} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		for _, v := range []any{math.Float64frombits(bits), math.Float32frombits(uint32(bits))} {
			got, err := Marshal(v)
			want, stdErr := stdjson.Marshal(v)
			if (err == nil) != (stdErr == nil) || string(got) != string(want) {
				t.Fatalf("Marshal(%v) = %s, %v; encoding/json %s, %v", v, got, err, want, stdErr)
			}
		}
	})
}

// FuzzRoundTrip parses any JSON both ways and writes the values back:
// the same bytes.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5,"x"],"a":null}`, `[1e21,1e-7,-0]`, `{"<":"&"}`, `"\ud83d\ude00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		if stdjson.Unmarshal(data, &want) != nil {
			return
		}
		v, err := Parse(data)
		if TooDeep(err) {
			return
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v; encoding/json accepts it", data, err)
		}
		x, err := v.Any()
		if err != nil {
			t.Fatalf("Parse(%q).Any(): %v", data, err)
		}
		got, err := Marshal(x)
		wantB, _ := stdjson.Marshal(want)
		if err != nil || string(got) != string(wantB) {
			t.Fatalf("round trip of %q: %s, %v; encoding/json %s", data, got, err, wantB)
		}
	})
}

func BenchmarkMarshal(b *testing.B) {
	v := Outer{Inner: Inner{A: 1}, Map: map[string]any{"gpus": 64, "lang": "en"}, Esc: "x"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
