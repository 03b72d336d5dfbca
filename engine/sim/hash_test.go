package sim

import "testing"

// Int64x6 is six Int64 steps, whatever the words.
func TestHashInt64x6(t *testing.T) {
	rng := NewRNG(3)
	h := NewHash()
	for i := 0; i < 10000; i++ {
		var w [6]int64
		for j := range w {
			w[j] = int64(rng.Uint64())
			if i%3 == 0 {
				w[j] >>= rng.Intn(64) // small words too
			}
		}
		want := h.Int64(w[0]).Int64(w[1]).Int64(w[2]).Int64(w[3]).Int64(w[4]).Int64(w[5])
		if got := h.Int64x6(w[0], w[1], w[2], w[3], w[4], w[5]); got != want {
			t.Fatalf("Int64x6(%v) = %x, want %x", w, uint64(got), uint64(want))
		}
		h = want
	}
}
