package collective

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// Op is a collective operation.
type Op string

// Operations. Only all-reduce exists so far.
const (
	AllReduce Op = "allreduce"
)

// Algo is the algorithm that carries out a collective.
type Algo string

// Algorithms.
const (
	Ring Algo = "ring" // reduce-scatter then all-gather around a ring
	Star Algo = "star" // one root gathers, sums and broadcasts
)

// Limits on a configuration, so that a run stays within memory and time.
const (
	MinRanks = 2
	MaxRanks = 4096
	MinBytes = 1
	MaxBytes = 1 << 40 // 1 TiB
)

// Config describes one collective run.
type Config struct {
	Op    Op
	Algo  Algo
	Ranks int
	Bytes int64 // size of each rank's vector
	Link  hw.Link
	// Nodes splits the ranks into that many nodes of Ranks/Nodes
	// consecutive ranks (0 or 1: one node). Inside a node transfers use
	// Link; between nodes, Inter (the ring lesson grown to many nodes).
	Nodes int
	Inter hw.Link
	// Record keeps every transfer in the trace so that any moment can be
	// drawn again. Without it only the totals are kept.
	Record bool
}

// ConfigError names the field of a Config that is out of range.
type ConfigError struct {
	Field, Value, Allowed string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %s is not allowed; allowed %s", e.Field, e.Value, e.Allowed)
}

// Validate checks every field of c.
func (c Config) Validate() error {
	if c.Op != AllReduce {
		return &ConfigError{"op", string(c.Op), string(AllReduce)}
	}
	if c.Algo != Ring && c.Algo != Star {
		return &ConfigError{"algo", string(c.Algo), "ring, star"}
	}
	if c.Ranks < MinRanks || c.Ranks > MaxRanks {
		return &ConfigError{"ranks", strconv.Itoa(c.Ranks), fmt.Sprintf("%d–%d", MinRanks, MaxRanks)}
	}
	if c.Bytes < MinBytes || c.Bytes > MaxBytes {
		return &ConfigError{"bytes", strconv.FormatInt(c.Bytes, 10), fmt.Sprintf("%d–%d", MinBytes, int64(MaxBytes))}
	}
	if c.Link.Bandwidth <= 0 || c.Link.Latency < 0 {
		return &ConfigError{"link", c.Link.ID, strings.Join(hw.LinkIDs(), ", ")}
	}
	if c.Nodes < 0 || c.Nodes > c.Ranks || c.Nodes > 1 && c.Ranks%c.Nodes != 0 {
		return &ConfigError{"nodes", strconv.Itoa(c.Nodes), fmt.Sprintf("1–%d, dividing the %d GPUs evenly", c.Ranks, c.Ranks)}
	}
	if c.Nodes > 1 && (c.Inter.Bandwidth <= 0 || c.Inter.Latency < 0) {
		return &ConfigError{"inter", c.Inter.ID, strings.Join(hw.LinkIDs(), ", ")}
	}
	return nil
}

// Phase is the part of a collective a transfer belongs to.
type Phase int8

// Phases.
const (
	PhaseReduceScatter Phase = iota // ring, first half
	PhaseAllGather                  // ring, second half
	PhaseGather                     // star: everyone sends to the root
	PhaseBroadcast                  // star: the root sends the sum back
)

var phaseNames = [...]string{"reduce-scatter", "all-gather", "gather", "broadcast"}

func (p Phase) String() string {
	if p >= 0 && int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Transfer is one chunk moving over one link.
type Transfer struct {
	Src, Dst int32
	Chunk    int32
	Round    int32 // 1-based over the whole collective
	Phase    Phase
	// Count is how many ranks' data chunk Chunk holds at Dst once this
	// transfer has arrived (and been added in, during a reduction).
	Count   int32
	Bytes   int64
	Request sim.Time // data ready and the transfer asked for the link
	Start   sim.Time // the link began sending
	Arrive  sim.Time // the last byte reached Dst
}

// Result is a finished run: its totals, and its trace when recorded.
type Result struct {
	Config Config
	Chunks int
	Rounds int
	// Time is when the last byte arrived.
	Time sim.Time
	// SentPerRank is the bytes each rank sent.
	SentPerRank []int64
	// Trace holds every transfer in order of arrival, with the chunk
	// counts (rank*Chunks+chunk) as its state; nil unless Config.Record.
	Trace *sim.Trace[Transfer, []int32]
	// RoundStart[r-1] is when round r's first transfer started.
	RoundStart []sim.Time
	// Hash fingerprints the whole schedule (every transfer's endpoints and
	// times), recorded or not.
	Hash sim.Hash
}

// chunkBytes is the size of chunk c when s bytes are cut into n chunks: the
// first s mod n chunks take one byte more.
func chunkBytes(s int64, n, c int) int64 {
	q, r := s/int64(n), s%int64(n)
	if int64(c) < r {
		return q + 1
	}
	return q
}

// port is one direction of one rank's link: a first-come first-served
// server that is busy until free.
type port struct{ free sim.Time }

type runner struct {
	cfg     Config
	n       int
	tx, rx  []port
	res     *Result
	q       sim.Queue
	pending []Transfer // transfers in flight, indexed by the event's A
	freeIdx []int32
	contrib []int32 // rank*n + chunk
}

const evArrive int32 = 1

// Run simulates the configured collective. It returns an error, never
// panics, when the configuration is out of range.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Ranks
	r := &runner{
		cfg:     cfg,
		n:       n,
		tx:      make([]port, n),
		rx:      make([]port, n),
		contrib: make([]int32, n*n),
		res: &Result{
			Config:      cfg,
			Chunks:      n,
			SentPerRank: make([]int64, n),
			Hash:        sim.NewHash(),
		},
	}
	for i := range r.contrib {
		r.contrib[i] = 1
	}
	if cfg.Record {
		// Both algorithms move 2n(n−1) chunks; about 32 snapshots of the
		// n×n chunk counts are kept for seeking.
		total := 2 * n * (n - 1)
		r.res.Trace = sim.NewTrace(r.contrib, max(64, total/32), slices.Clone[[]int32], func(c []int32, t Transfer) []int32 {
			c[int(t.Dst)*n+int(t.Chunk)] = t.Count
			return c
		})
		r.res.Trace.Grow(total)
	}
	switch cfg.Algo {
	case Ring:
		r.res.Rounds = 2 * (n - 1)
		r.ring()
	case Star:
		r.res.Rounds = 2
		r.star()
	}
	return r.res, nil
}

// linkOf is the link between two ranks: Inter when they sit in
// different nodes.
func (r *runner) linkOf(src, dst int32) hw.Link {
	if k := r.cfg.Nodes; k > 1 {
		per := int32(r.n / k)
		if src/per != dst/per {
			return r.cfg.Inter
		}
	}
	return r.cfg.Link
}

// send asks for the link from src to dst at time now and schedules the
// arrival.
func (r *runner) send(now sim.Time, t Transfer) {
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
	if rs := r.res.RoundStart; int(t.Round) > len(rs) {
		r.res.RoundStart = append(rs, start)
	} else if start < rs[t.Round-1] {
		rs[t.Round-1] = start
	}
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
// and the transfer is recorded.
func (r *runner) arrive(slot int32) Transfer {
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

// ring runs reduce-scatter then all-gather. In round k (0-based, k < n−1)
// of reduce-scatter rank i sends chunk (i−k) mod n to rank i+1, which adds
// it to its own copy; after n−1 rounds rank i holds the full sum of chunk
// (i+1) mod n. In all-gather round k rank i passes chunk (i+1−k) mod n on.
// A rank sends its next chunk as soon as the previous one has arrived.
func (r *runner) ring() {
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

// star runs the naive parameter-server all-reduce with rank 0 as the root.
// Gather: every other rank sends its vector, chunk by chunk, to the root
// (requests interleaved so each rank's chunk c goes before anyone's chunk
// c+1). Broadcast: once the root holds the whole sum it sends every chunk to
// every other rank.
func (r *runner) star() {
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
			// The root's count for this chunk grows by one per arrival.
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
