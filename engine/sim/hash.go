package sim

// Hash is a 64-bit fingerprint of a sequence of integers, used to show that
// the same configuration gives the same trace on every platform. It mixes a
// whole word per step (FNV-style multiply, then a xorshift), which is fast
// enough to fingerprint millions of transfers. It is not cryptographic.
type Hash uint64

// NewHash returns the starting value (the FNV-1a 64-bit offset basis).
func NewHash() Hash { return 14695981039346656037 }

// Int64 mixes v into h.
func (h Hash) Int64(v int64) Hash {
	x := uint64(h) ^ uint64(v)
	x *= 0x100000001b3 // the FNV 64-bit prime
	x ^= x >> 29
	return Hash(x)
}

// Int64x6 is h.Int64(a).Int64(b).Int64(c).Int64(d).Int64(e).Int64(f),
// the same value sooner: each step's shift is taken beside the next
// word's xor instead of before it, a cycle less of the chain that a long
// run's hash waits on.
func (h Hash) Int64x6(a, b, c, d, e, f int64) Hash {
	const prime = 0x100000001b3
	y := (uint64(h) ^ uint64(a)) * prime
	y = (y ^ uint64(b) ^ y>>29) * prime
	y = (y ^ uint64(c) ^ y>>29) * prime
	y = (y ^ uint64(d) ^ y>>29) * prime
	y = (y ^ uint64(e) ^ y>>29) * prime
	y = (y ^ uint64(f) ^ y>>29) * prime
	return Hash(y ^ y>>29)
}
