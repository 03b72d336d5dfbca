package sim

// Event is something that happens at a simulated instant. Kind and the two
// arguments are the model's own: the queue only orders them.
type Event struct {
	At   Time
	Seq  uint64 // assigned by the queue: ties run first in, first out
	Kind int32
	A, B int32
}

// Queue is a priority queue of events ordered by (At, Seq). The zero value is
// ready to use.
type Queue struct {
	heap []Event
	seq  uint64
	now  Time
}

// Now is the time of the last event popped.
func (q *Queue) Now() Time { return q.now }

// Len is the number of events waiting.
func (q *Queue) Len() int { return len(q.heap) }

// Schedule adds an event at time at. An event scheduled in the past (before
// Now) is a bug in the model; it runs at Now so that time never goes
// backwards.
func (q *Queue) Schedule(at Time, kind, a, b int32) {
	if at < q.now {
		at = q.now
	}
	q.seq++
	q.heap = append(q.heap, Event{At: at, Seq: q.seq, Kind: kind, A: a, B: b})
	q.up(len(q.heap) - 1)
}

// Pop removes and returns the earliest event. ok is false when the queue is
// empty.
func (q *Queue) Pop() (ev Event, ok bool) {
	n := len(q.heap)
	if n == 0 {
		return Event{}, false
	}
	ev = q.heap[0]
	q.heap[0] = q.heap[n-1]
	q.heap = q.heap[:n-1]
	if n > 1 {
		q.down(0)
	}
	q.now = ev.At
	return ev, true
}

func less(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Seq < b.Seq
}

func (q *Queue) up(i int) {
	h := q.heap
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *Queue) down(i int) {
	h := q.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
