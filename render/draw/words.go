package draw

import (
	"math"
)

// SayBytes is w.Say(key, "bytes", bytesLabel(b)), formatted once per
// language, key and value: the bars are drawn every frame.
func SayBytes(w Words, key string, b float64) string {
	// sayMemo's number is the value's bits (never −1, which say uses).
	return SayMemo.Get(WordKey{w.Lang, key, int(math.Float64bits(b))}, func() string { return w.Say(key, "bytes", BytesLabel(b)) })
}

// WordKey is a catalogue key in a language, with a number.
type WordKey struct {
	Lang, Key string
	N         int
}

var SayMemo Memo[WordKey]

// Say is w.Say(key), formatted once per language.
func Say(w Words, key string) string {
	return SayMemo.Get(WordKey{w.Lang, key, -1}, func() string { return w.Say(key) })
}
