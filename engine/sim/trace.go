package sim

import "sort"

// Trace records the events of a run in the order they happen, each with its
// time, and keeps a copy of the model's state every so often, so that the
// state at any instant can be rebuilt by replaying at most Every events from
// the nearest copy: scrubbing back and forth costs what playing forward
// does, and nothing is re-simulated.
//
// E is an event record; S is the state the events change. Apply must be a
// pure function of the state and the event (it may update the state in
// place and return it); Clone must return an independent copy.
type Trace[E, S any] struct {
	Every int
	Apply func(S, E) S
	Clone func(S) S

	events []E
	times  []Time
	cur    S
	snaps  []traceSnapshot[S]
}

type traceSnapshot[S any] struct {
	n     int // events applied
	state S
}

// NewTrace starts a trace from the initial state, keeping a copy every
// `every` events (at least 1).
func NewTrace[E, S any](initial S, every int, clone func(S) S, apply func(S, E) S) *Trace[E, S] {
	if every < 1 {
		every = 1
	}
	tr := &Trace[E, S]{Every: every, Apply: apply, Clone: clone, cur: clone(initial)}
	tr.snaps = []traceSnapshot[S]{{0, clone(initial)}}
	return tr
}

// Record appends an event at time at. Times must not decrease; an earlier
// time is recorded as the latest one, so that the trace stays ordered.
func (tr *Trace[E, S]) Record(at Time, e E) {
	if n := len(tr.times); n > 0 && at < tr.times[n-1] {
		at = tr.times[n-1]
	}
	tr.events = append(tr.events, e)
	tr.times = append(tr.times, at)
	tr.cur = tr.Apply(tr.cur, e)
	if len(tr.events)%tr.Every == 0 {
		tr.snaps = append(tr.snaps, traceSnapshot[S]{len(tr.events), tr.Clone(tr.cur)})
	}
}

// Grow makes room for n more events.
func (tr *Trace[E, S]) Grow(n int) {
	if n > 0 {
		tr.events = append(make([]E, 0, len(tr.events)+n), tr.events...)
		tr.times = append(make([]Time, 0, len(tr.times)+n), tr.times...)
	}
}

// Len is the number of events recorded.
func (tr *Trace[E, S]) Len() int { return len(tr.events) }

// Events are the recorded events, in order. The slice must not be changed.
func (tr *Trace[E, S]) Events() []E { return tr.events }

// Time is when event i happened.
func (tr *Trace[E, S]) Time(i int) Time { return tr.times[i] }

// Count is how many events happened at or before t.
func (tr *Trace[E, S]) Count(t Time) int {
	return sort.Search(len(tr.times), func(i int) bool { return tr.times[i] > t })
}

// StateAt is the state once every event at or before t has happened, as a
// fresh copy the caller may keep.
func (tr *Trace[E, S]) StateAt(t Time) S {
	var none S
	return tr.StateAtInto(t, none, func(_, src S) S { return tr.Clone(src) })
}

// StateAtInto is StateAt rebuilt in dst's storage: copyInto(dst, src)
// returns dst holding a copy of src (grown if need be), so that a caller
// asking every frame allocates nothing once dst is large enough.
func (tr *Trace[E, S]) StateAtInto(t Time, dst S, copyInto func(dst, src S) S) S {
	k := tr.Count(t)
	si := sort.Search(len(tr.snaps), func(i int) bool { return tr.snaps[i].n > k }) - 1
	s := copyInto(dst, tr.snaps[si].state)
	for _, e := range tr.events[tr.snaps[si].n:k] {
		s = tr.Apply(s, e)
	}
	return s
}
