package collective

import (
	"math/bits"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// ring runs reduce-scatter then all-gather. In round k (0-based, k < n−1)
// of reduce-scatter rank i sends chunk (i−k) mod n to rank i+1, which adds
// it to its own copy; after n−1 rounds rank i holds the full sum of chunk
// (i+1) mod n. In all-gather round k rank i passes chunk (i+1−k) mod n on.
// A rank sends its next chunk as soon as the previous one has arrived.
//
// So a chunk travels round the ring, forwarded a rank a round: rank i's
// round (1-based) carries chunk (i+1−round) mod n, summed from round+1
// ranks (n in all-gather), and each chunk has one transfer at a time.
// Rank i sends only to rank i+1, on hop i, whose send port and rank
// i+1's receive port are one server: a transfer starts when it is asked
// for (its chunk arrived) and its hop is free. The arrivals are taken in
// order of (time, order asked), the order of sim.Queue: the hash and the
// trace follow it.
//
// On hops all alike the schedule is known in closed form (ringUniform);
// otherwise it is run event by event (ringEvents).
func (r *runner) ring() {
	g := newRingGeometry(r.cfg)
	if !g.uniform() {
		r.ringEvents(g)
		return
	}
	r.ringUniform(g)
}

// ringGeometry is what a ring's transfers take: a chunk's bytes, q or
// q+1 for the first rem chunks, and each hop's link.
type ringGeometry struct {
	n      int32
	q, rem int64
	// link[kind] is a hop's link: its time for a chunk of q bytes ([0])
	// and of q+1 ([1]), and its latency. Hop i is of kind 1, on Inter,
	// when rank i+1 is in another node; else 0, on Link.
	link [2]ringLink
	kind []uint8
}

type ringLink struct {
	tt  [2]sim.Time
	lat sim.Time
}

func newRingGeometry(cfg Config) ringGeometry {
	n := int32(cfg.Ranks)
	g := ringGeometry{n: n, q: cfg.Bytes / int64(n), rem: cfg.Bytes % int64(n), kind: make([]uint8, n)}
	for j, l := range [2]hw.Link{cfg.Link, cfg.Inter} {
		g.link[j] = ringLink{[2]sim.Time{sim.TransferTime(g.q, l.Bandwidth), sim.TransferTime(g.q+1, l.Bandwidth)}, l.Latency}
	}
	if k := int32(cfg.Nodes); k > 1 {
		for i := n/k - 1; i < n; i += n / k {
			g.kind[i] = 1
		}
	}
	return g
}

// sent writes what each rank sends: every chunk twice but chunk i+1 in
// reduce-scatter and i+2 in all-gather, however the transfers are timed.
func (g *ringGeometry) sent(to []int64) {
	n := int(g.n)
	total := 2 * (g.q*int64(n) + g.rem)
	for i := range to {
		to[i] = total - 2*g.q - int64(g.big(int32((i+1)%n))+g.big(int32((i+2)%n)))
	}
}

// big is 1 when chunk c has q+1 bytes, else 0.
func (g *ringGeometry) big(c int32) int {
	if int64(c) < g.rem {
		return 1
	}
	return 0
}

// uniform says whether ringUniform's closed form holds: every hop alike
// (one node, a GPU a node, or Inter timed as Link), and a big chunk's
// extra time, over the 2n−3 rounds after the first, within a hop's
// latency (see ringUniform).
func (g *ringGeometry) uniform() bool {
	l := g.link[g.kind[0]]
	for _, k := range g.kind {
		if g.link[k] != l {
			return false
		}
	}
	return g.rem == 0 || l.lat >= sim.Time(2*g.n-3)*(l.tt[1]-l.tt[0])
}

// ringUniform is the ring on hops all alike, each taking tt_c for chunk
// c (tt0, or tt1 = tt0+Δ for a big chunk) and latency L. Then chunk c's
// k-th transfer (round k) is asked for and starts at (k−1)(tt_c+L) and
// arrives at k(tt_c+L). By induction on k: it is asked for when the
// chunk's (k−1)-th arrives, (k−1)(tt_c+L); its hop is free once the
// hop's round k−1 transfer, chunk c+1's, is sent, at (k−1)tt_{c+1} +
// (k−2)L, which is no later as (k−1)(tt_{c+1}−tt_c) ≤ L: always but for
// c = n−1 (small) and c+1 = 0 (big) when rem > 0, and then as L ≥
// (2n−3)Δ, uniform's condition.
//
// The arrivals then come round by round, each round's small chunks
// (rem…n−1) and then its big ones (0…rem−1), each in order of chunk; all
// in order of chunk if Δ = 0. Round k's last, k(tt1+L), is no later than
// round k+1's first, (k+1)(tt0+L), as kΔ ≤ L; the small and the big of a
// round are apart by kΔ; and arrivals at one instant come in the order
// asked, which is the order their chunks arrived the round before (round
// 1: by rank, which is by chunk), so by chunk in each group; and a round
// before the next. TestRingMatchesEventQueue checks this against the
// event queue, transfer for transfer.
func (r *runner) ringUniform(g ringGeometry) {
	n, q := g.n, g.q
	l := g.link[g.kind[0]]
	last := 2 * (n - 1)
	g.sent(r.res.SentPerRank)
	hash, tr := r.res.Hash, r.res.Trace
	// The chunks of a round in the order they arrive: [lo, n) then [0,
	// lo). Chunk lo is small, its round's first to start.
	lo := int32(g.rem)
	if l.tt[1] == l.tt[0] {
		lo = 0
	}
	step := [2]sim.Time{l.tt[0] + l.lat, l.tt[1] + l.lat}
	r.res.RoundStart = make([]sim.Time, last)
	var at sim.Time
	for k := int32(1); k <= last; k++ {
		phase, count := PhaseReduceScatter, k+1
		if k >= n {
			phase, count = PhaseAllGather, n
		}
		r.res.RoundStart[k-1] = sim.Time(k-1) * step[0]
		// Chunk c is sent by rank c+k−1 (mod n).
		c, src := lo, lo+k-1
		for src >= n {
			src -= n
		}
		for range n {
			big := g.big(c)
			start := sim.Time(k-1) * step[big]
			at = start + step[big]
			dst := src + 1
			if dst == n {
				dst = 0
			}
			w1, w2 := transferWords(src, dst, c, k, count, phase)
			hash = hash.Int64x6(w1, w2, q+int64(big), int64(start), int64(start), int64(at))
			if tr != nil {
				tr.Record(at, Transfer{Src: src, Dst: dst, Chunk: c, Round: k, Phase: phase, Count: count, Bytes: q + int64(big), Request: start, Start: start, Arrive: at})
			}
			if c++; c == n {
				c = 0
			}
			src = dst
		}
	}
	r.res.Hash, r.res.Time = hash, at
}

// ringFlight is a chunk's transfer in flight (a chunk has one at a time):
// when it arrives, when it was asked for, the order asked (from 1; at
// most 2n(n−1) < 2³²), its hop (the rank sending) and round; and, while
// it waits for its hop, the chunk whose transfer on the hop it waits for
// (after) and the next waiting (−1: none).
type ringFlight struct {
	at, req     sim.Time
	seq         uint32
	src, round  int32
	after, next int32
}

// ringHop is a hop's link and state: its time for a chunk of q bytes
// (tt[0]) and of q+1 (tt[1]), its latency, when it is free (it is
// sending until then), the chunk whose transfer it was asked for last,
// and the transfers asked for while it was busy, a list from first to
// last (−1: none).
type ringHop struct {
	tt          [2]sim.Time
	lat, free   sim.Time
	asked       int32
	first, last int32
}

// ringEvents runs the ring event by event, taking the arrivals in order
// of (time, order asked) as the earliest of a few lists' firsts, each
// list in that order already. A transfer asked for at now on a free hop
// arrives at now + tt + L, tt its chunk's time and L the latency on the
// hop's link: it joins one of four lists, by link (Link or Inter) and
// chunk (q or q+1 bytes), each in order as now only grows, and the
// order asked with it. A transfer asked for on a busy hop waits in the
// hop's own list until the one asked for before it on the hop arrives,
// at now: it started at now − L, when that one was sent, and arrives at
// now + tt. It then joins one of four more lists, by link and chunk,
// each in order of time as now only grows, and kept in order asked
// among those of one time. It is never late to its list: a hop's
// transfers arrive in the order asked (it sends one at a time), so it
// is due no earlier than the one it waited for. No heap, no sorting:
// O(1) an arrival.
func (r *runner) ringEvents(g ringGeometry) {
	n, q := g.n, g.q
	last := 2 * (n - 1)
	hs := make([]ringHop, n)
	for i := range hs {
		l := g.link[g.kind[i]]
		hs[i] = ringHop{tt: l.tt, lat: l.lat, asked: -1, first: -1, last: -1}
	}
	fl := make([]ringFlight, n)
	var lists ringLists
	lists.init(fl)
	rs := make([]sim.Time, last) // each round's first start
	for i := range rs {
		rs[i] = 1<<63 - 1
	}
	hash, tr, end := r.res.Hash, r.res.Trace, sim.Time(0)
	var asked uint32
	// The first round: rank i sends chunk i at 0.
	for i := range n {
		h := &hs[i]
		big := g.big(i)
		h.free = h.tt[big]
		h.asked = i
		asked++
		fl[i] = ringFlight{at: h.free + h.lat, seq: asked, src: i, round: 1}
		lists.push(2*int(g.kind[i])+big, i)
	}
	rs[0] = 0
	for {
		c := lists.pop()
		if c < 0 {
			break
		}
		f := &fl[c]
		at, req, src, round := f.at, f.req, f.src, f.round
		end = at
		h := &hs[src]
		big := g.big(c)
		if w := h.first; w >= 0 && fl[w].after == c {
			// The transfer waiting for this one's hop goes: it arrives
			// at now + tt.
			h.first = fl[w].next
			if h.first < 0 {
				h.last = -1
			}
			lists.insert(4+2*int(g.kind[src])+g.big(w), w)
		}
		bytes := q + int64(big)
		dst := src + 1
		if dst == n {
			dst = 0
		}
		phase, count := PhaseReduceScatter, round+1
		if round >= n {
			phase, count = PhaseAllGather, n
		}
		start := at - h.lat - h.tt[big]
		w1, w2 := transferWords(src, dst, c, round, count, phase)
		hash = hash.Int64x6(w1, w2, bytes, int64(req), int64(start), int64(at))
		if tr != nil {
			tr.Record(at, Transfer{Src: src, Dst: dst, Chunk: c, Round: round, Phase: phase, Count: count, Bytes: bytes, Request: req, Start: start, Arrive: at})
		}
		if round == last {
			continue
		}
		// The chunk goes on: rank dst asks for hop dst at once.
		d := &hs[dst]
		asked++
		f.req, f.seq, f.src, f.round = at, asked, dst, round+1
		if d.free <= at {
			d.free = at + d.tt[big]
			f.at = d.free + d.lat
			lists.push(2*int(g.kind[dst])+big, c)
			rs[round] = min(rs[round], at)
		} else {
			rs[round] = min(rs[round], d.free)
			d.free += d.tt[big]
			f.at, f.after, f.next = d.free+d.lat, d.asked, -1
			if d.last >= 0 {
				fl[d.last].next = c
			} else {
				d.first = c
			}
			d.last = c
		}
		d.asked = c
	}
	g.sent(r.res.SentPerRank)
	r.res.RoundStart = rs
	r.res.Hash, r.res.Time = hash, end
}

// ringLists are ringEvents' eight lists of chunks in flight — asked
// for on a free hop or waiting, by link and chunk size — each in order
// of (arrival, order asked), as rings of n: a chunk is in one at most.
// at and seq are each list's first's; bit i of full is set while list i
// holds chunks. pop merges them.
type ringLists struct {
	fl         []ringFlight
	buf        [8][]int32
	head, tail [8]uint32
	mask       uint32
	at         [8]sim.Time
	seq        [8]uint32
	full       uint
}

// init readies the lists for chunks of fl.
func (l *ringLists) init(fl []ringFlight) {
	k := 1
	for k < len(fl) {
		k *= 2
	}
	l.fl, l.mask = fl, uint32(k-1)
}

// push appends chunk c to list i, where it arrives last.
func (l *ringLists) push(i int, c int32) {
	i &= 7
	if l.full&(1<<i) == 0 {
		if l.buf[i] == nil {
			l.buf[i] = make([]int32, l.mask+1)
		}
		l.full |= 1 << i
		l.at[i], l.seq[i] = l.fl[c].at, l.fl[c].seq
	}
	l.buf[i][l.tail[i]&l.mask] = c
	l.tail[i]++
}

// insert puts chunk c in list i, where it arrives no earlier than the
// others but maybe at the same time as some asked later: before those.
func (l *ringLists) insert(i int, c int32) {
	i &= 7
	if l.full&(1<<i) == 0 {
		l.push(i, c)
		return
	}
	b, m := l.buf[i], l.mask
	f := &l.fl[c]
	j := l.tail[i]
	for ; j != l.head[i]; j-- {
		p := &l.fl[b[(j-1)&m]]
		if p.at < f.at || p.at == f.at && p.seq < f.seq {
			break
		}
		b[j&m] = b[(j-1)&m]
	}
	b[j&m] = c
	l.tail[i]++
	if j == l.head[i] {
		l.at[i], l.seq[i] = f.at, f.seq
	}
}

// pop removes the chunk that arrives next, of all lists; −1 when none
// is left.
func (l *ringLists) pop() int32 {
	if l.full == 0 {
		return -1
	}
	k := bits.TrailingZeros(l.full) & 7
	for m := l.full & (l.full - 1); m != 0; m &= m - 1 {
		i := bits.TrailingZeros(m) & 7
		if l.at[i] < l.at[k] || l.at[i] == l.at[k] && l.seq[i] < l.seq[k] {
			k = i
		}
	}
	c := l.buf[k][l.head[k]&l.mask]
	l.head[k]++
	if l.head[k] == l.tail[k] {
		l.full &^= 1 << k
	} else {
		f := &l.fl[l.buf[k][l.head[k]&l.mask]]
		l.at[k], l.seq[k] = f.at, f.seq
	}
	return c
}
