package collective

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
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
	coded                 *errs.Error // the refusal as a code and its arguments, where one words it
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %s is not allowed; allowed %s", e.Field, e.Value, e.Allowed)
}

// Unwrap is the refusal as a code and its arguments (errs.Error), or nil
// where it has none.
func (e *ConfigError) Unwrap() error {
	if e.coded == nil {
		return nil
	}
	return e.coded
}

// Validate checks every field of c.
func (c Config) Validate() error {
	if c.Op != AllReduce {
		return &ConfigError{Field: "op", Value: string(c.Op), Allowed: string(AllReduce)}
	}
	if c.Algo != Ring && c.Algo != Star {
		return &ConfigError{Field: "algo", Value: string(c.Algo), Allowed: "ring, star"}
	}
	if c.Ranks < MinRanks || c.Ranks > MaxRanks {
		return &ConfigError{Field: "ranks", Value: strconv.Itoa(c.Ranks), Allowed: fmt.Sprintf("%d–%d", MinRanks, MaxRanks)}
	}
	if c.Bytes < MinBytes || c.Bytes > MaxBytes {
		return &ConfigError{Field: "bytes", Value: strconv.FormatInt(c.Bytes, 10), Allowed: fmt.Sprintf("%d–%d", MinBytes, int64(MaxBytes))}
	}
	if c.Link.Bandwidth <= 0 || c.Link.Latency < 0 {
		return &ConfigError{Field: "link", Value: c.Link.ID, Allowed: strings.Join(hw.LinkIDs(), ", ")}
	}
	if c.Nodes < 0 || c.Nodes > c.Ranks || c.Nodes > 1 && c.Ranks%c.Nodes != 0 {
		e := &ConfigError{Field: "nodes", Value: strconv.Itoa(c.Nodes), Allowed: fmt.Sprintf("1–%d, dividing the %d GPUs evenly", c.Ranks, c.Ranks)}
		e.coded = errs.New("nodes", e.Error(), "nodes", e.Value, "max", strconv.Itoa(c.Ranks), "gpus", strconv.Itoa(c.Ranks))
		return e
	}
	if c.Nodes > 1 && (c.Inter.Bandwidth <= 0 || c.Inter.Latency < 0) {
		return &ConfigError{Field: "inter", Value: c.Inter.ID, Allowed: strings.Join(hw.LinkIDs(), ", ")}
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

type runner struct {
	cfg Config
	n   int
	res *Result
}

// Run simulates the configured collective. It returns an error, never
// panics, when the configuration is out of range.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := newRunner(cfg)
	switch cfg.Algo {
	case Ring:
		r.res.Rounds = 2 * (r.n - 1)
		r.ring()
	case Star:
		r.res.Rounds = 2
		r.star()
	}
	return r.res, nil
}

// newRunner sets up a run of a valid configuration. The n×n chunk counts
// are kept only by a recorded trace, as its state.
func newRunner(cfg Config) *runner {
	n := cfg.Ranks
	r := &runner{
		cfg: cfg,
		n:   n,
		res: &Result{
			Config:      cfg,
			Chunks:      n,
			SentPerRank: make([]int64, n),
			Hash:        sim.NewHash(),
		},
	}
	if cfg.Record {
		contrib := make([]int32, n*n)
		for i := range contrib {
			contrib[i] = 1
		}
		// Both algorithms move 2n(n−1) chunks; about 32 snapshots of the
		// n×n chunk counts are kept for seeking.
		total := 2 * n * (n - 1)
		r.res.Trace = sim.NewTrace(contrib, max(64, total/32), slices.Clone[[]int32], func(c []int32, t Transfer) []int32 {
			c[int(t.Dst)*n+int(t.Chunk)] = t.Count
			return c
		})
		r.res.Trace.Grow(total)
	}
	return r
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

// started notes a transfer of round (1-based) starting at start: a round
// starts with its first transfer.
func (r *runner) started(round int32, start sim.Time) {
	if rs := r.res.RoundStart; int(round) > len(rs) {
		r.res.RoundStart = append(rs, start)
	} else if start < rs[round-1] {
		rs[round-1] = start
	}
}

// hashTransfer mixes a transfer into a run's hash: its endpoints, chunk,
// round, count, phase, bytes and times, each transfer in the order it
// arrived.
func hashTransfer(h sim.Hash, src, dst, chunk, round, count int32, phase Phase, bytes int64, req, start, arrive sim.Time) sim.Hash {
	w1, w2 := transferWords(src, dst, chunk, round, count, phase)
	return h.Int64x6(w1, w2, bytes, int64(req), int64(start), int64(arrive))
}

// transferWords packs a transfer's endpoints, chunk and round, and its
// count and phase, into the two words hashTransfer mixes first (the hot
// loops call Int64x6 on them themselves, in line).
func transferWords(src, dst, chunk, round, count int32, phase Phase) (int64, int64) {
	return int64(src)<<48 | int64(dst)<<32 | int64(chunk)<<16 | int64(round), int64(count)<<8 | int64(phase)
}

// star runs the naive parameter-server all-reduce with rank 0 as the root.
// Gather: every other rank sends its vector, chunk by chunk, to the root
// (requests interleaved so each rank's chunk c goes before anyone's chunk
// c+1). Broadcast: once the root holds the whole sum it sends every chunk to
// every other rank.
//
// Every transfer of a phase is asked for at once and goes through one port
// of the root (it receives them, then sends them), which takes them one
// after another in the order asked; so each starts when the one before it
// ends, and the phase is worked out in that order rather than through the
// event queue, which held all n(n−1) at once (4.6 GB and 29 s at 4,096
// ranks). The transfers arrive in order of (arrival, order asked), as
// the queue had them: one stream a link, merged.
func (r *runner) star() {
	gathered := r.starPhase(PhaseGather, 0)
	r.starPhase(PhaseBroadcast, gathered)
}

// starPhase runs one phase of the star, asked for at time at, and
// returns when its last transfer arrived.
func (r *runner) starPhase(phase Phase, at sim.Time) sim.Time {
	n, per := int32(r.n), int32(r.n)
	if k := int32(r.cfg.Nodes); k > 1 {
		per = n / k
	}
	round := int32(1)
	if phase == PhaseBroadcast {
		round = 2
	}
	// Every peer sends (gathers) or receives (broadcast) the whole
	// vector, and the phase's first transfer starts when it is asked for.
	sent := r.res.SentPerRank
	if phase == PhaseGather {
		for i := 1; i < len(sent); i++ {
			sent[i] += r.cfg.Bytes
		}
	} else {
		sent[0] += int64(n-1) * r.cfg.Bytes
	}
	r.started(round, at)
	var count []int32 // gather: the ranks summed into each of the root's chunks
	if phase == PhaseGather {
		count = make([]int32, n)
		for c := range count {
			count[c] = 1
		}
	}
	q, rem := r.cfg.Bytes/int64(n), r.cfg.Bytes%int64(n)
	hash, tr, end := r.res.Hash, r.res.Trace, at
	// emit records the transfer of chunk c between the root and peer i,
	// of q+big bytes, from start to arrive.
	emit := func(c, i int32, big int64, start, arrive sim.Time) {
		src, dst, cnt := i, int32(0), n
		if count != nil {
			count[c]++
			cnt = count[c]
		} else {
			src, dst = 0, i
		}
		hash = hashTransfer(hash, src, dst, c, round, cnt, phase, q+big, at, start, arrive)
		if tr != nil {
			tr.Record(arrive, Transfer{Src: src, Dst: dst, Chunk: c, Round: round, Phase: phase, Count: cnt, Bytes: q + big, Request: at, Start: start, Arrive: arrive})
		}
		end = arrive
	}
	if per == n || per == 1 {
		// Every peer on one link: the transfers arrive in the order
		// asked, one after another.
		l := r.linkOf(1, 0)
		tt := [2]sim.Time{sim.TransferTime(q, l.Bandwidth), sim.TransferTime(q+1, l.Bandwidth)}
		free := at
		for c := range n {
			big := int64(0)
			if int64(c) < rem {
				big = 1
			}
			for i := int32(1); i < n; i++ {
				start := free
				free += tt[big]
				emit(c, i, big, start, free+l.Latency)
			}
		}
		r.res.Hash, r.res.Time = hash, max(r.res.Time, free+l.Latency)
		return free + l.Latency
	}
	// The peers in the root's node, on Link, and those in other nodes, on
	// Inter: their latencies differ, so one stream may overtake the
	// other; merged as the queue ordered them, by (arrival, order asked).
	a, b := r.newStarStream(at, 1, int(per)), r.newStarStream(at, int(per), int(n))
	okA, okB := a.next(), b.next()
	for okA || okB {
		if okA && (!okB || a.arrive < b.arrive || a.arrive == b.arrive && a.pos < b.pos) {
			emit(int32(a.c), int32(a.i-1), a.big, a.start, a.arrive)
			okA = a.next()
		} else {
			emit(int32(b.c), int32(b.i-1), b.big, b.start, b.arrive)
			okB = b.next()
		}
	}
	r.res.Hash, r.res.Time = hash, max(r.res.Time, end)
	return end
}

// starStream is the transfers of one phase of the star between the root
// and its peers [lo, hi), in the order asked — chunk by chunk, peer 1 to
// n−1 — timed on the root's port, which takes every peer's transfers one
// after another: each starts when the one asked before it (of any peer)
// ends. The peers outside [lo, hi) are a block before or after it in
// each chunk, on one link, taken as one span of time.
type starStream struct {
	n      int
	lo, hi int
	lat    sim.Time // the stream's link's latency
	rem    int64    // the first rem chunks have a byte more
	// tt and other are the time of one chunk's transfer to a peer of the
	// stream and to all the other peers: [0] for a chunk of q bytes, [1]
	// for q+1.
	tt, other [2]sim.Time
	c, i      int      // the next transfer: its chunk and its peer
	pos       int64    // its place in the order asked
	free      sim.Time // when the root's port is free
	// The transfer next returned true for: chunk c, peer i−1, a byte
	// more if big, from start to arrive.
	big           int64
	start, arrive sim.Time
}

func (r *runner) newStarStream(at sim.Time, lo, hi int) *starStream {
	n := r.n
	link, others := r.linkOf(int32(lo), 0), r.cfg.Link
	if lo == 1 {
		others = r.cfg.Inter
	}
	q := r.cfg.Bytes / int64(n)
	s := &starStream{n: n, lo: lo, hi: hi, lat: link.Latency, rem: r.cfg.Bytes % int64(n), i: lo, free: at}
	for k := range 2 {
		s.tt[k] = sim.TransferTime(q+int64(k), link.Bandwidth)
		s.other[k] = sim.Time(n-1-(hi-lo)) * sim.TransferTime(q+int64(k), others.Bandwidth)
	}
	if lo > 1 {
		s.skip() // the root's node's peers ask first
	}
	return s
}

// size is chunk c's: 1 for q+1 bytes, 0 for q.
func (s *starStream) size(c int) int64 {
	if int64(c) < s.rem {
		return 1
	}
	return 0
}

// skip passes over the current chunk's transfers to the peers outside
// the stream.
func (s *starStream) skip() {
	s.free += s.other[s.size(s.c)]
	s.pos += int64(s.n - 1 - (s.hi - s.lo))
}

// next moves to the stream's next transfer; false after its last.
func (s *starStream) next() bool {
	n := s.n
	for s.i == s.hi {
		if s.c >= n {
			return false
		}
		if s.hi < n {
			s.skip() // the other nodes' peers ask after
		}
		s.c, s.i = s.c+1, s.lo
		if s.c < n && s.lo > 1 {
			s.skip()
		}
	}
	if s.c >= n {
		return false
	}
	s.big = s.size(s.c)
	s.start = s.free
	s.free += s.tt[s.big]
	s.arrive = s.free + s.lat
	s.i++
	s.pos++
	return true
}
