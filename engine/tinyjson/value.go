package tinyjson

import (
	"errors"
	"strconv"
)

// Any is v as encoding/json decodes JSON into an any: an object is a
// map[string]any (of duplicate keys the last wins), an array a []any,
// a number a float64, and string, bool and null a string, a bool and
// nil. A number beyond float64's range is an error, as it is there.
func (v Value) Any() (any, error) {
	switch v.Kind {
	case Bool:
		return v.Bool, nil
	case Number:
		return v.Float()
	case String:
		return v.Text, nil
	case Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			x, err := it.Any()
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			x, err := m.Value.Any()
			if err != nil {
				return nil, err
			}
			out[m.Key] = x
		}
		return out, nil
	}
	return nil, nil
}

// Object is v's members as a map (of duplicate keys the last wins), as
// encoding/json decodes an object into a map[string]any; nil, with no
// error, for null; an error for anything else.
func (v Value) Object() (map[string]any, error) {
	switch v.Kind {
	case Null:
		return nil, nil
	case Object:
		x, err := v.Any()
		if err != nil {
			return nil, err
		}
		return x.(map[string]any), nil
	}
	return nil, errors.New("a JSON " + v.Kind.String() + ", not an object")
}

// Float is a Number as a float64; an error for any other kind and for a
// number beyond float64's range.
func (v Value) Float() (float64, error) {
	if v.Kind != Number {
		return 0, errors.New("a JSON " + v.Kind.String() + ", not a number")
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if err != nil {
		return 0, errors.New("number " + v.Text + " is out of range")
	}
	return f, nil
}

// Int is a Number written as an integer (no fraction, no exponent) that
// fits an int, as encoding/json decodes one into an int; an error
// otherwise.
func (v Value) Int() (int, error) {
	if v.Kind != Number {
		return 0, errors.New("a JSON " + v.Kind.String() + ", not a number")
	}
	n, err := strconv.ParseInt(v.Text, 10, strconv.IntSize)
	if err != nil {
		return 0, errors.New("number " + v.Text + " is not an integer in range")
	}
	return int(n), nil
}
