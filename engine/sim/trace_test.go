package sim

import (
	"slices"
	"testing"
)

// A toy model: the state is a counter per slot; each event adds to a slot.
type bump struct{ slot, by int }

func newToyTrace(every int) *Trace[bump, []int] {
	return NewTrace([]int{0, 0, 0}, every, slices.Clone[[]int],
		func(s []int, e bump) []int { s[e.slot] += e.by; return s })
}

// StateAt(t) equals the state built by applying, in order, every event at
// or before t — from any snapshot spacing, and in any order of queries.
func TestTraceStateAtReplays(t *testing.T) {
	rng := NewRNG(7)
	var evs []bump
	var at []Time
	now := Time(0)
	for i := 0; i < 500; i++ {
		now += Time(rng.Intn(3)) // ties happen
		evs = append(evs, bump{rng.Intn(3), 1 + rng.Intn(5)})
		at = append(at, now)
	}
	for _, every := range []int{1, 7, 64, 1000} {
		tr := newToyTrace(every)
		for i := range evs {
			tr.Record(at[i], evs[i])
		}
		for _, q := range []Time{now, 0, now / 2, -1, now + 10, now / 3, at[123], at[124]} {
			want := []int{0, 0, 0}
			for i := range evs {
				if at[i] <= q {
					want[evs[i].slot] += evs[i].by
				}
			}
			if got := tr.StateAt(q); !slices.Equal(got, want) {
				t.Errorf("every=%d: StateAt(%d) = %v, want %v", every, q, got, want)
			}
		}
	}
}

func TestTraceStaysOrdered(t *testing.T) {
	tr := newToyTrace(2)
	tr.Record(10, bump{0, 1})
	tr.Record(5, bump{1, 1}) // earlier than the last: recorded at 10
	if tr.Time(1) != 10 || tr.Count(9) != 0 || tr.Count(10) != 2 {
		t.Errorf("times %v %v, Count(9)=%d Count(10)=%d", tr.Time(0), tr.Time(1), tr.Count(9), tr.Count(10))
	}
	// The state a caller gets is a copy: changing it changes nothing.
	s := tr.StateAt(10)
	s[0] = 99
	if got := tr.StateAt(10); got[0] != 1 {
		t.Errorf("StateAt returned shared storage: %v", got)
	}
}
