package parallel

import (
	"fmt"
	"math"
	"sync"

	"github.com/gpuscope/gpuscope/engine/errs"
)

// BlockKind is what a pipeline block does.
type BlockKind string

// Block kinds.
const (
	Forward  BlockKind = "forward"
	Backward BlockKind = "backward" // includes recomputation
	SendF    BlockKind = "send-forward"
	SendB    BlockKind = "send-backward"
	// AllReduce is a data-parallel gradient collective (a bucket of it,
	// or ZeRO's reduce-scatter and gathers): Hidden when it runs under
	// the backward pass, exposed after it.
	AllReduce BlockKind = "all-reduce"
	Optimizer BlockKind = "optimizer" // the Adam update of the GPU's shard
)

// Block is one interval of the pipeline timeline.
type Block struct {
	Stage      int       `json:"stage"`
	Chunk      int       `json:"chunk"`       // model chunk on the stage (interleaved), else 0
	MicroBatch int       `json:"micro_batch"` // the micro-batch; for an all-reduce, its bucket
	Kind       BlockKind `json:"kind"`
	Start      float64   `json:"start_s"`
	End        float64   `json:"end_s"`
	Hidden     bool      `json:"hidden,omitempty"` // an all-reduce under compute
}

// Timeline is a pipeline schedule run to completion.
type Timeline struct {
	Schedule Schedule `json:"schedule"`
	Stages   int      `json:"stages"`
	Micro    int      `json:"micro_batches"`
	Chunks   int      `json:"chunks"`
	// Blocks are the compute blocks in each stage's order, then the
	// sends, then (Result.Timeline) each stage's data-parallel
	// all-reduce and optimizer update.
	Blocks []Block `json:"blocks"`
	Length float64 `json:"length_s"`
	// Ideal is m·(f + b) on the slowest stage: the time without fill and
	// drain; Bubble is the pipeline's length (its last backward) − Ideal.
	Ideal  float64 `json:"ideal_s"`
	Bubble float64 `json:"bubble_s"`
	// PeakInFlight is, per stage, the most chunk-micro-batches whose
	// forward has run and whose backward has not.
	PeakInFlight []int `json:"peak_in_flight"`
}

// op is one block of a stage's order: a forward or a backward of a
// micro-batch on a chunk.
type op struct {
	f         bool
	mb, chunk int
}

// A stage runs its 2·m·v blocks in its schedule's order: its warmUp
// forwards, then one forward and one backward in turn, then the
// remaining backwards — GPipe every forward then every backward; 1F1B
// p − st − 1 warm-up forwards; interleaved Megatron-LM's order, whose
// micro-step k runs micro-batch (k ÷ pv)·p + k mod p on chunk
// (k ÷ p) mod v, backwards on the chunks in reverse, after
// 2·(p − st − 1) + (v − 1)·p warm-up forwards.

// cursor walks one stage's blocks in that order, without a division.
type cursor struct {
	k, w, pairs int       // the next block; the warm-up; where the backwards alone begin
	f, b        microStep // the next forward's and backward's micro-step
}

// microStep is the micro-step g·p·v + c·p + r: micro-batch g·p + r, on
// chunk c.
type microStep struct{ g, c, r int }

func (x *microStep) inc(p, v int) {
	if x.r++; x.r == p {
		x.r = 0
		if x.c++; x.c == v {
			x.c = 0
			x.g++
		}
	}
}

func newCursor(s Schedule, p, m, v, st int) cursor {
	w := warmUp(s, p, m, v, st)
	return cursor{w: w, pairs: w + 2*(m*v-w)}
}

// op is the cursor's block.
func (c *cursor) op(p, v int) op {
	if c.k < c.w || (c.k < c.pairs && (c.k-c.w)&1 == 0) {
		return op{true, c.f.g*p + c.f.r, c.f.c}
	}
	return op{false, c.b.g*p + c.b.r, v - 1 - c.b.c}
}

// next moves the cursor past o, its block.
func (c *cursor) next(o op, p, v int) {
	c.k++
	if o.f {
		c.f.inc(p, v)
	} else {
		c.b.inc(p, v)
	}
}

// warmUp is how many forwards stage st runs before its first backward
// (GPipe: all of them).
func warmUp(s Schedule, p, m, v, st int) int {
	switch s {
	case GPipe:
		return m
	case Interleaved:
		return min(2*(p-st-1)+(v-1)*p, m*v)
	}
	return min(p-st-1, m)
}

// checkSchedule refuses a schedule BuildTimeline cannot run.
func checkSchedule(s Schedule, p, m, v int, fwd, bwd []float64) error {
	switch {
	case p < 1 || m < 1 || v < 1:
		return fmt.Errorf("pp, micro-batches, interleave: %d, %d, %d; each at least 1", p, m, v)
	case len(fwd) != p || len(bwd) != p:
		return fmt.Errorf("stage times: %d and %d, want %d", len(fwd), len(bwd), p)
	case s.closedForm():
		return fmt.Errorf("schedule: %s is costed in closed form, not run block by block: it has no time line (allowed gpipe, 1f1b, interleaved)", s)
	case s != GPipe && s != OneFOneB && s != Interleaved:
		return fmt.Errorf("schedule: %q; allowed gpipe, 1f1b, interleaved", s)
	case s == Interleaved && m%p != 0:
		return errs.F("micro_batches_pp", "micro-batches: %d must be a multiple of pp %d for the interleaved schedule", "m pp", m, p)
	case s != Interleaved && v != 1:
		return fmt.Errorf("interleave: %d needs the interleaved schedule", v)
	case p*m*v > maxScheduleBlocks:
		return errs.F("blocks", "pp × micro-batches × interleave: %d; at most %d blocks", "n max", p*m*v, maxScheduleBlocks)
	}
	for st := range p {
		if fwd[st] < 0 || bwd[st] < 0 {
			return fmt.Errorf("stage %d's times: %g forward, %g backward; neither may be negative", st, fwd[st], bwd[st])
		}
	}
	return nil
}

// maxScheduleBlocks bounds the schedules BuildTimeline runs (p·m·v).
const maxScheduleBlocks = 1 << 20

// BuildTimeline runs a schedule for p stages, m micro-batches and v
// chunks a stage (v = 1 except interleaved), where a whole micro-batch
// takes fwd[st] forward and bwd[st] backward on stage st (a chunk 1/v of
// it) and a send between stages takes p2p. Each stage runs its blocks in
// the schedule's order (cursor), a block starting when the stage is
// free and its input has arrived: a forward needs the previous virtual
// stage's forward of the same micro-batch, a backward the next one's
// backward.
func BuildTimeline(s Schedule, p, m, v int, fwd, bwd []float64, p2p float64) (Timeline, error) {
	tl := Timeline{Schedule: s, Stages: p, Micro: m, Chunks: v}
	if err := checkSchedule(s, p, m, v, fwd, bwd); err != nil {
		return tl, err
	}
	tl.Blocks = make([]Block, 0, 2*p*m*v)
	tl.PeakInFlight = make([]int, p)
	inFlight := make([]int, p)
	var sends []Block
	pv := p * v
	length, _, err := runSchedule(s, p, m, v, fwd, bwd, p2p, func(st int, o op, start, end float64) {
		kind := Backward
		vs := o.chunk*p + st
		if o.f {
			kind = Forward
			inFlight[st]++
			tl.PeakInFlight[st] = max(tl.PeakInFlight[st], inFlight[st])
			if vs < pv-1 && p2p > 0 {
				sends = append(sends, Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: SendF, Start: end, End: end + p2p})
			}
		} else {
			inFlight[st]--
			if vs > 0 && p2p > 0 {
				sends = append(sends, Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: SendB, Start: end, End: end + p2p})
			}
		}
		tl.Blocks = append(tl.Blocks, Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: kind, Start: start, End: end})
	})
	if err != nil {
		return tl, err
	}
	tl.Length = length
	tl.Blocks = append(tl.Blocks, sends...)
	tl.Ideal = float64(m) * slowest(fwd, bwd)
	tl.Bubble = tl.Length - tl.Ideal
	return tl, nil
}

// slowest is the most any stage takes for a micro-batch, forward and
// backward.
func slowest(fwd, bwd []float64) float64 {
	slow := 0.0
	for st := range fwd {
		slow = max(slow, fwd[st]+bwd[st])
	}
	return slow
}

// scheduleLengths are BuildTimeline's Length without the blocks — the
// time from the first forward to the last backward — with sends of p2p
// and without them (both from one pass over the blocks). Evaluate's step
// is built on them, so the drawn time line and the step are one number.
// A shape kept in kept is replayed (replaySchedule), the same numbers
// bit for bit; one not kept is run, and kept.
func scheduleLengths(s Schedule, p, m, v int, fwd, bwd []float64, p2p float64, kept *orderCache) (with, without float64, err error) {
	if err := checkSchedule(s, p, m, v, fwd, bwd); err != nil {
		return 0, 0, err
	}
	key := orderKey{s, p, m, v}
	if order := kept.get(key); order != nil {
		with, without = replaySchedule(order, p, m, v, fwd, bwd, p2p)
		return with, without, nil
	}
	n := 2 * p * m * v
	if n > min(maxOrderBlocks, kept.max) {
		return runSchedule(s, p, m, v, fwd, bwd, p2p, nil)
	}
	order := make([]placed, 0, n)
	with, without, err = runSchedule(s, p, m, v, fwd, bwd, p2p, recordOrder(&order, p, m, v))
	if err == nil {
		kept.put(key, order)
	}
	return with, without, err
}

// runSchedule places a schedule's blocks in an order that depends on its
// shape (s, p, m, v) alone — on whether a block's inputs have run, never
// on when — so a shape's order, kept from one run, times the shape again
// with other stage times: each block in turn, its inputs already timed,
// with the maxima and sums runSchedule takes, in its order, and none of
// its cursors and waiting (replaySchedule).

// placed is a block of a shape's order. Its end is kept at index end of
// the replay's ends: a forward's at i, a backward's at p·m·v + i, for
// micro-batch mb on virtual stage vs at i = mb·p·v + vs. A forward with
// in waits for the previous virtual stage's forward (end − 1) across a
// send, a backward with in for the next one's backward (end + 1); a
// backward waits for its own forward too.
type placed struct {
	end   int32
	st    uint16 // its stage
	f, in bool
}

// maxOrderBlocks bounds the orders kept (2·p·m·v blocks; 8 bytes each).
const maxOrderBlocks = 1 << 14

// recordOrder is runSchedule's block function appending each block to
// *order.
func recordOrder(order *[]placed, p, m, v int) func(st int, o op, start, end float64) {
	pv := p * v
	n := pv * m
	return func(st int, o op, _, _ float64) {
		vs := o.chunk*p + st
		i := o.mb*pv + vs
		b := placed{end: int32(i), st: uint16(st), f: o.f, in: vs > 0}
		if !o.f {
			b.end, b.in = int32(n+i), vs < pv-1
		}
		*order = append(*order, b)
	}
}

// replaySchedule times a checked schedule from its shape's order:
// runSchedule's lengths, bit for bit.
func replaySchedule(order []placed, p, m, v int, fwd, bwd []float64, p2p float64) (with, without float64) {
	sc := scratchPool.Get().(*scheduleScratch)
	defer scratchPool.Put(sc)
	// Each block's end, and each stage's last, with sends at 2·k and
	// without at 2·k + 1 (k its index in ends or its stage).
	n := p * m * v
	sc.ends, sc.free, sc.dur = grow(sc.ends, 4*n), grow(sc.free, 2*p), grow(sc.dur, 2*p)
	ends, free, dur := sc.ends, sc.free, sc.dur
	clear(free)
	V := float64(v)
	for st := range p {
		dur[2*st], dur[2*st+1] = fwd[st]/V, bwd[st]/V
	}
	for _, b := range order {
		st, end := 2*int(b.st), 2*int(b.end)
		r, r0 := free[st], free[st+1]
		d := dur[st]
		if b.f {
			if b.in {
				r, r0 = later(r, ends[end-2]+p2p), later(r0, ends[end-1])
			}
		} else {
			if b.in {
				r, r0 = later(r, ends[end+2]+p2p), later(r0, ends[end+3])
			}
			own := end - 2*n
			r, r0 = later(r, ends[own]), later(r0, ends[own+1])
			d = dur[st+1]
		}
		e, e0 := r+d, r0+d
		ends[end], ends[end+1] = e, e0
		free[st], free[st+1] = e, e0
	}
	for st := range p {
		with, without = max(with, free[2*st]), max(without, free[2*st+1])
	}
	return with, without
}

// orderKey is a schedule's shape.
type orderKey struct {
	s       Schedule
	p, m, v int
}

// orderCache keeps the orders of the shapes last run, up to max blocks
// in all, the oldest dropped first; for any goroutine (an order kept is
// never changed).
type orderCache struct {
	mu     sync.Mutex
	max    int // blocks
	blocks int
	orders map[orderKey][]placed
	queue  []orderKey // oldest first
}

// keptOrders are Evaluate's (a search keeps its own).
var keptOrders = orderCache{max: 1 << 16}

func (c *orderCache) get(k orderKey) []placed {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.orders[k]
}

func (c *orderCache) put(k orderKey, order []placed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.orders[k]; ok || len(order) > c.max {
		return
	}
	for c.blocks+len(order) > c.max {
		c.blocks -= len(c.orders[c.queue[0]])
		delete(c.orders, c.queue[0])
		c.queue = c.queue[1:]
	}
	if c.orders == nil {
		c.orders = make(map[orderKey][]placed)
	}
	c.orders[k] = order
	c.queue = append(c.queue, k)
	c.blocks += len(order)
}

// scheduleScratch is runSchedule's working memory, reused across calls.
type scheduleScratch struct {
	fEnd, bEnd []endTimes // by block
	free       []float64  // by stage: with, without
	dur        []float64  // by stage: a forward block, a backward block
	cursors    []cursor
	queue      []int
	queued     []bool
	ends       []float64 // replaySchedule's, by block
}

// endTimes are a block's end with sends and without, each stored as its
// float64 bits + 1, so that a cleared array (zero) means "not run yet":
// clearing is far cheaper than writing a sentinel into every block.
type endTimes [2]uint64

func (e endTimes) run() bool { return e[0] != 0 }

func (e endTimes) times() (with, without float64) {
	return math.Float64frombits(e[0] - 1), math.Float64frombits(e[1] - 1)
}

// ends are the end times with and without sends (neither negative).
func ends(with, without float64) endTimes {
	return endTimes{math.Float64bits(with) + 1, math.Float64bits(without) + 1}
}

var scratchPool = sync.Pool{New: func() any { return new(scheduleScratch) }}

// later is the later of two times (neither NaN).
func later(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// runSchedule runs a checked schedule: a stage runs as many of its
// blocks (in its cursor's order) as are ready, and waits for the block its next one
// needs; a block's end wakes the stage that waits for it. Every block is
// timed twice, with sends of p2p and without sends; block, when not nil,
// is told each block with sends as it is placed (each stage's in its
// order). It returns the last block's end, with sends and without.
func runSchedule(s Schedule, p, m, v int, fwd, bwd []float64, p2p float64, block func(st int, o op, start, end float64)) (with, without float64, err error) {
	pv := p * v
	sc := scratchPool.Get().(*scheduleScratch)
	defer scratchPool.Put(sc)
	// End times of the forwards and of the backwards by (micro-batch,
	// virtual stage) — a block's inputs are its neighbours — with sends
	// and without; not run until set.
	n := pv * m
	sc.fEnd, sc.bEnd = grow(sc.fEnd, n), grow(sc.bEnd, n)
	fEnd, bEnd := sc.fEnd, sc.bEnd
	clear(fEnd)
	clear(bEnd)
	sc.free, sc.dur, sc.cursors, sc.queued = grow(sc.free, 2*p), grow(sc.dur, 2*p), grow(sc.cursors, p), grow(sc.queued, p)
	free, dur, cursors, queued := sc.free, sc.dur, sc.cursors, sc.queued
	clear(free)
	queue := sc.queue[:0]
	V := float64(v)
	for st := p - 1; st >= 0; st-- { // popped from the end: stage 0 first
		cursors[st] = newCursor(s, p, m, v, st)
		queue = append(queue, st)
		queued[st] = true
		dur[2*st], dur[2*st+1] = fwd[st]/V, bwd[st]/V
	}
	per := 2 * m * v // blocks a stage runs
	remaining := p * per
	for len(queue) > 0 {
		st := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		queued[st] = false
		df, db := dur[2*st], dur[2*st+1]
		cur := &cursors[st]
		ready, ready0 := free[2*st], free[2*st+1]
		for cur.k < per {
			o := cur.op(p, v)
			vs := o.chunk*p + st
			i := o.mb*pv + vs
			r, r0 := ready, ready0
			d := df
			if o.f {
				if vs > 0 {
					e := fEnd[i-1]
					if !e.run() {
						break
					}
					w, w0 := e.times()
					r, r0 = later(r, w+p2p), later(r0, w0)
				}
			} else {
				if vs < pv-1 {
					e := bEnd[i+1]
					if !e.run() {
						break
					}
					w, w0 := e.times()
					r, r0 = later(r, w+p2p), later(r0, w0)
				}
				w, w0 := fEnd[i].times()
				r, r0 = later(r, w), later(r0, w0)
				d = db
			}
			e, e0 := r+d, r0+d
			if block != nil {
				block(st, o, r, e)
			}
			ready, ready0 = e, e0
			// The block's end wakes the stage that needs it.
			wake := -1
			if o.f {
				fEnd[i] = ends(e, e0)
				if vs < pv-1 {
					if wake = st + 1; wake == p {
						wake = 0
					}
				}
			} else {
				bEnd[i] = ends(e, e0)
				if vs > 0 {
					if wake = st - 1; wake < 0 {
						wake = p - 1
					}
				}
			}
			if wake >= 0 && !queued[wake] {
				queued[wake] = true
				queue = append(queue, wake)
			}
			cur.next(o, p, v)
			remaining--
		}
		free[2*st], free[2*st+1] = ready, ready0
	}
	sc.queue = queue
	for st := range p {
		with, without = max(with, free[2*st]), max(without, free[2*st+1])
	}
	if remaining > 0 {
		return with, without, fmt.Errorf("schedule: %s deadlocks for pp %d, micro-batches %d, interleave %d", s, p, m, v)
	}
	return with, without, nil
}

// stageTimes are each stage's forward and backward of one micro-batch
// with their TP collectives (full recomputation's forward all-reduces run
// with the backward): the blocks of the plan's time line. They are
// written into fwd and bwd when those are long enough.
func (r Result) stageTimes(fwd, bwd []float64) ([]float64, []float64) {
	fwd, bwd = grow(fwd, len(r.StageForward)), grow(bwd, len(r.StageBackward))
	for i := range fwd {
		fwd[i] = r.StageForward[i] + r.StageTPForward[i]
		bwd[i] = r.StageBackward[i] + r.StageTP[i] - r.StageTPForward[i]
	}
	return fwd, bwd
}

// maxDrawnBuckets bounds the hidden all-reduce buckets a time line lists
// one by one; more are drawn as one block.
const maxDrawnBuckets = 64

// Timeline is the plan's step as a time line: the pipeline schedule with
// its stages' times per micro-batch (TP communication counted with the
// compute it interrupts), then on every stage, after its last backward,
// the data-parallel all-reduce — its hidden part ending there, bucket by
// bucket while the backward runs (BucketParams a bucket, ZeRO 0 and 1),
// its exposed part after — and the optimizer update. Its Length is the
// step time, Time.Step: the schedule Evaluate runs is this one.
func (r Result) Timeline() (Timeline, error) {
	p := r.Config.Plan
	fwd, bwd := r.stageTimes(nil, nil)
	tl, err := BuildTimeline(p.Schedule, p.PP, r.MicroBatches, p.Interleave, fwd, bwd, r.P2P)
	if err != nil {
		return tl, err
	}
	lastB := make([]float64, tl.Stages)
	for _, b := range tl.Blocks {
		if b.Kind == Backward {
			lastB[b.Stage] = max(lastB[b.Stage], b.End)
		}
	}
	tm := r.Time
	exposed := tm.DPComm - tm.DPHidden + tm.NICShared // DP's, and what it costs the sends and TP on the NIC
	hidden := 1                                       // blocks the hidden part is drawn as
	if p.ZeRO <= 1 {
		maxParams := 0.0
		for _, sp := range r.StageParams {
			maxParams = max(maxParams, sp)
		}
		hidden = int(min(max(1, Buckets(maxParams, p.DP*p.cp(), true)-1), maxDrawnBuckets))
	}
	for st, end := range lastB {
		if tm.DPHidden > 0 {
			start := max(0, end-tm.DPHidden)
			each := (end - start) / float64(hidden)
			for k := range hidden {
				b := Block{Stage: st, MicroBatch: k, Kind: AllReduce, Start: start + float64(k)*each, End: start + float64(k+1)*each, Hidden: true}
				if k == hidden-1 {
					b.End = end
				}
				tl.Blocks = append(tl.Blocks, b)
			}
		}
		if exposed > 0 {
			tl.Blocks = append(tl.Blocks, Block{Stage: st, MicroBatch: hidden, Kind: AllReduce, Start: end, End: end + exposed})
			end += exposed
		}
		if tm.Optimizer > 0 {
			tl.Blocks = append(tl.Blocks, Block{Stage: st, MicroBatch: -1, Kind: Optimizer, Start: end, End: end + tm.Optimizer})
			end += tm.Optimizer
		}
		tl.Length = max(tl.Length, end)
	}
	return tl, nil
}

// ceilDiv is ⌈a / b⌉ for positive a and b.
func ceilDiv(a, b float64) float64 { return math.Ceil(a / b) }
