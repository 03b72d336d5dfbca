package draw

func Grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// Pick is on when b, else off.
func Pick[T any](b bool, on, off T) T {
	if b {
		return on
	}
	return off
}
