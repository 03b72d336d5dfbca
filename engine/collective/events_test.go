package collective

import "github.com/gpuscope/gpuscope/engine/sim"

// The packet engine as it ran through the event queue (sim.Queue, a
// binary heap) before the star was worked out on the root's port and the
// ring on a radix queue (issue 36): every transfer an event, its state
// in n×n chunk counts and a port a direction of every rank. It is the
// reference the engine's schedules are checked against, transfer for
// transfer.

// port is one direction of one rank's link: a first-come first-served
// server that is busy until free.
type port struct{ free sim.Time }

type eventRunner struct {
	*runner
	tx, rx  []port
	q       sim.Queue
	pending []Transfer // transfers in flight, indexed by the event's A
	freeIdx []int32
	contrib []int32 // rank*n + chunk
}

const evArrive int32 = 1

// runByEvents is Run through the event queue.
func runByEvents(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Ranks
	r := &eventRunner{runner: newRunner(cfg), tx: make([]port, n), rx: make([]port, n), contrib: make([]int32, n*n)}
	for i := range r.contrib {
		r.contrib[i] = 1
	}
	switch cfg.Algo {
	case Ring:
		r.res.Rounds = 2 * (n - 1)
		r.ringByEvents()
	case Star:
		r.res.Rounds = 2
		r.starByEvents()
	}
	return r.res, nil
}

// send asks for the link from src to dst at time now and schedules the
// arrival.
func (r *eventRunner) send(now sim.Time, t Transfer) {
	t.Request = now
	start := now
	if f := r.tx[t.Src].free; f > start {
		start = f
	}
	if f := r.rx[t.Dst].free; f > start {
		start = f
	}
	link := r.linkOf(t.Src, t.Dst)
	busy := start + sim.TransferTime(t.Bytes, link.Bandwidth)
	r.tx[t.Src].free = busy
	r.rx[t.Dst].free = busy
	t.Start = start
	t.Arrive = busy + link.Latency
	r.res.SentPerRank[t.Src] += t.Bytes
	r.started(t.Round, start)
	var slot int32
	if k := len(r.freeIdx); k > 0 {
		slot = r.freeIdx[k-1]
		r.freeIdx = r.freeIdx[:k-1]
		r.pending[slot] = t
	} else {
		slot = int32(len(r.pending))
		r.pending = append(r.pending, t)
	}
	r.q.Schedule(t.Arrive, evArrive, slot, 0)
}

// arrive completes a transfer: the chunk's count at the receiver is updated
// and the transfer is recorded — hashed word by word, as it was.
func (r *eventRunner) arrive(slot int32) Transfer {
	t := r.pending[slot]
	r.freeIdx = append(r.freeIdx, slot)
	r.contrib[int(t.Dst)*r.n+int(t.Chunk)] = t.Count
	h := r.res.Hash
	h = h.Int64(int64(t.Src)<<48 | int64(t.Dst)<<32 | int64(t.Chunk)<<16 | int64(t.Round))
	h = h.Int64(int64(t.Count)<<8 | int64(t.Phase))
	h = h.Int64(t.Bytes).Int64(int64(t.Request)).Int64(int64(t.Start)).Int64(int64(t.Arrive))
	r.res.Hash = h
	if t.Arrive > r.res.Time {
		r.res.Time = t.Arrive
	}
	if r.res.Trace != nil {
		r.res.Trace.Record(t.Arrive, t)
	}
	return t
}

// ringByEvents: a rank sends its next chunk when the previous one has
// arrived, its count read from the n×n chunk counts.
func (r *eventRunner) ringByEvents() {
	n := r.n
	s := r.cfg.Bytes
	last := int32(2 * (n - 1))
	mk := func(now sim.Time, src, round int) {
		k := round - 1
		t := Transfer{Src: int32(src), Dst: int32((src + 1) % n), Round: int32(round)}
		if k < n-1 {
			t.Phase = PhaseReduceScatter
			t.Chunk = int32(((src-k)%n + n) % n)
			t.Count = r.contrib[src*n+int(t.Chunk)] + 1
		} else {
			t.Phase = PhaseAllGather
			t.Chunk = int32(((src+1-(k-(n-1)))%n + n) % n)
			t.Count = int32(n)
		}
		t.Bytes = chunkBytes(s, n, int(t.Chunk))
		r.send(now, t)
	}
	for i := 0; i < n; i++ {
		mk(0, i, 1)
	}
	for {
		ev, ok := r.q.Pop()
		if !ok {
			return
		}
		t := r.arrive(ev.A)
		if t.Round < last {
			mk(ev.At, int(t.Dst), int(t.Round)+1)
		}
	}
}

// starByEvents: every transfer of a phase asked for at once and held in
// the queue.
func (r *eventRunner) starByEvents() {
	n := r.n
	s := r.cfg.Bytes
	for c := 0; c < n; c++ {
		for i := 1; i < n; i++ {
			r.send(0, Transfer{Src: int32(i), Dst: 0, Chunk: int32(c), Round: 1, Phase: PhaseGather, Bytes: chunkBytes(s, n, c)})
		}
	}
	var gathered sim.Time
	for {
		ev, ok := r.q.Pop()
		if !ok {
			break
		}
		slot := ev.A
		if r.pending[slot].Phase == PhaseGather {
			c := r.pending[slot].Chunk
			r.pending[slot].Count = r.contrib[c] + 1
		}
		r.arrive(slot)
		gathered = ev.At
	}
	for c := 0; c < n; c++ {
		for i := 1; i < n; i++ {
			r.send(gathered, Transfer{Src: 0, Dst: int32(i), Chunk: int32(c), Round: 2, Phase: PhaseBroadcast, Count: int32(n), Bytes: chunkBytes(s, n, c)})
		}
	}
	for {
		ev, ok := r.q.Pop()
		if !ok {
			return
		}
		r.arrive(ev.A)
	}
}
