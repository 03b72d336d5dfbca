package topo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Limits on a run.
const (
	MaxFlows = 1 << 21 // flows in one Simulate call or one step
	MaxBytes = 1e18    // bytes of one flow
	MaxTimes = 1 << 30 // repetitions of one step
)

// Flow is Bytes to move from GPU Src to GPU Dst. ID is the flow's identity
// for ECMP (see Topology.Path): distinct flows should have distinct ids.
type Flow struct {
	Src, Dst int
	Bytes    float64
	ID       uint64
}

// Result is the outcome of Simulate.
type Result struct {
	Time      float64   // seconds until the last flow completes; 0 with no flows
	FlowTimes []float64 // seconds until flows[i] completes (last byte sent + path latency)
	LinkBytes []float64 // bytes carried by each link, indexed by LinkID
	// MaxUtilization is the largest over links of LinkBytes / (Bandwidth ×
	// Time): 1 means some link was busy the whole time. It never exceeds 1.
	MaxUtilization float64
	Busiest        LinkID // the link with MaxUtilization (lowest id on a tie); -1 when nothing moved
	Events         int    // how many times the fair rates were computed
}

// utilSlack absorbs float rounding: a link whose computed utilisation is
// within this of 1 is reported as exactly 1.
const utilSlack = 1e-9

// sameTime merges completions this close (relative) into one event.
const sameTime = 1e-9

// problem is a validated set of flows grouped by path: flows on the same
// path always get the same rate, so the solver works on groups ("classes").
type problem struct {
	t          *Topology
	resolution float64
	bytes      []float64 // per flow
	classOf    []int32   // per flow
	pathOff    []int32   // class c crosses links[pathOff[c]:pathOff[c+1]]
	links      []LinkID
	lat        []float64 // per class, seconds
	flowOff    []int32   // class c's flows are order[flowOff[c]:flowOff[c+1]],
	order      []int32   // sorted by bytes, then index
}

func (p *problem) path(c int32) []LinkID { return p.links[p.pathOff[c]:p.pathOff[c+1]] }

type pathKey [maxHops]LinkID

// prepare validates flows (naming them field[i]) and groups them by path.
func prepare(t *Topology, flows []Flow, field string) (*problem, error) {
	if t == nil {
		return nil, &Error{"topology", "nil", "a topology from SingleNode, FatTree or PCIeNode"}
	}
	if len(flows) > MaxFlows {
		return nil, intErr(field, len(flows), 0, MaxFlows)
	}
	gpuRange := fmt.Sprintf("0–%d", t.gpus-1)
	p := &problem{
		t:       t,
		bytes:   make([]float64, len(flows)),
		classOf: make([]int32, len(flows)),
		pathOff: []int32{0},
	}
	p.links = make([]LinkID, 0, 4*len(flows))
	ids := make(map[pathKey]int32, len(flows))
	var buf [maxHops]LinkID
	for i, f := range flows {
		name := func(sub string) string { return field + "[" + strconv.Itoa(i) + "]." + sub }
		switch {
		case f.Src < 0 || f.Src >= t.gpus:
			return nil, &Error{name("src"), strconv.Itoa(f.Src), gpuRange}
		case f.Dst < 0 || f.Dst >= t.gpus:
			return nil, &Error{name("dst"), strconv.Itoa(f.Dst), gpuRange}
		case f.Dst == f.Src:
			return nil, &Error{name("dst"), strconv.Itoa(f.Dst), gpuRange + ", other than src"}
		case !(f.Bytes >= 0 && f.Bytes <= MaxBytes):
			return nil, &Error{name("bytes"), strconv.FormatFloat(f.Bytes, 'g', -1, 64), "0–1e18"}
		}
		p.bytes[i] = f.Bytes
		path := t.appendPath(buf[:0], f.Src, f.Dst, f.ID)
		key := pathKey{-1, -1, -1, -1, -1, -1}
		copy(key[:], path)
		c, ok := ids[key]
		if !ok {
			c = int32(len(p.lat))
			ids[key] = c
			p.links = append(p.links, path...)
			p.pathOff = append(p.pathOff, int32(len(p.links)))
			p.lat = append(p.lat, t.latency(path).Seconds())
		}
		p.classOf[i] = c
	}
	// Flows of each class, by size: they share one rate, so they finish in
	// this order.
	n := len(p.lat)
	p.flowOff = make([]int32, n+1)
	for _, c := range p.classOf {
		p.flowOff[c+1]++
	}
	for c := 0; c < n; c++ {
		p.flowOff[c+1] += p.flowOff[c]
	}
	p.order = make([]int32, len(flows))
	fill := slices.Clone(p.flowOff[:n])
	for i, c := range p.classOf {
		p.order[fill[c]] = int32(i)
		fill[c]++
	}
	for c := 0; c < n; c++ {
		seg := p.order[p.flowOff[c]:p.flowOff[c+1]]
		if len(seg) > 1 {
			slices.SortFunc(seg, func(a, b int32) int {
				if d := cmp.Compare(p.bytes[a], p.bytes[b]); d != 0 {
					return d
				}
				return cmp.Compare(a, b)
			})
		}
	}
	return p, nil
}

// Simulate runs flows on t, all starting at time 0, sharing links by max-min
// fairness and re-sharing whenever a flow finishes (see the package
// documentation). It is exact; its cost grows with the number of distinct
// completion times (see Options).
func Simulate(t *Topology, flows []Flow) (Result, error) {
	return SimulateWith(t, flows, Options{})
}

// Options tune a run.
type Options struct {
	// Resolution trades exactness for speed where many flows finish at
	// different times (uneven sizes). The zero value re-shares the links at
	// every completion: exact max-min fairness, at a cost of about
	// (completions) × (flows) × (hops). With Resolution r > 0, rates set
	// at time t are kept until the first completion at or after t·(1+r):
	// flows that finish before then just leave, and the others keep rates
	// that are still feasible, though some could be higher. The last
	// completion comes out late by about r, single flows off by up to a
	// few r (TestResolution), and there are at most about
	// ln(Time / first completion) / r re-shares.
	// Allowed: 0–1.
	Resolution float64
}

func (o Options) check() error {
	if !(o.Resolution >= 0 && o.Resolution <= 1) {
		return &Error{"resolution", strconv.FormatFloat(o.Resolution, 'g', -1, 64), "0–1 (0 = exact)"}
	}
	return nil
}

// SimulateWith is Simulate with options.
func SimulateWith(t *Topology, flows []Flow, o Options) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	p, err := prepare(t, flows, "flows")
	if err != nil {
		return Result{}, err
	}
	p.resolution = o.Resolution
	return p.run()
}

// solver holds the state of one run.
type solver struct {
	p *problem
	// per class
	k      []int32 // flows still running
	next   []int32 // index into order of the next flow to finish
	sent   []float64
	rate   []float64 // bytes/s of each running flow
	base   []float64 // time at which sent was last brought up to date
	due    []float64 // time of the next completion at the current rates
	frozen []uint32  // epoch in which the rate was fixed
	// per link
	adjOff []int32 // classes crossing link l: adj[adjOff[l]:adjOff[l+1]]
	adj    []int32
	rem    []float64 // capacity left while filling
	w      []int32   // unfixed flows crossing
	stamp  []uint32  // epoch in which rem and w were reset
	epoch  uint32
	heap   linkHeap
	sorted []heapItem
	queue  dueHeap
	// scratch
	touched []LinkID
}

var errStuck = errors.New("topo: internal error: a flow got no bandwidth")

func (p *problem) run() (Result, error) {
	t := p.t
	nc, nl := len(p.lat), len(t.links)
	res := Result{
		FlowTimes: make([]float64, len(p.bytes)),
		LinkBytes: make([]float64, nl),
		Busiest:   -1,
	}
	for i, b := range p.bytes {
		for _, l := range p.path(p.classOf[i]) {
			res.LinkBytes[l] += b
		}
	}
	s := &solver{
		p:      p,
		k:      make([]int32, nc),
		next:   make([]int32, nc),
		sent:   make([]float64, nc),
		rate:   make([]float64, nc),
		base:   make([]float64, nc),
		due:    make([]float64, nc),
		frozen: make([]uint32, nc),
		adjOff: make([]int32, nl+1),
		rem:    make([]float64, nl),
		w:      make([]int32, nl),
		stamp:  make([]uint32, nl),
	}
	for _, l := range p.links {
		s.adjOff[l+1]++
	}
	for l := 0; l < nl; l++ {
		s.adjOff[l+1] += s.adjOff[l]
	}
	s.adj = make([]int32, len(p.links))
	fill := slices.Clone(s.adjOff[:nl])
	for c := int32(0); c < int32(nc); c++ {
		for _, l := range p.path(c) {
			s.adj[fill[l]] = c
			fill[l]++
		}
	}

	active := make([]int32, 0, nc)
	for c := int32(0); c < int32(nc); c++ {
		s.k[c] = p.flowOff[c+1] - p.flowOff[c]
		s.next[c] = p.flowOff[c]
		s.finish(c, 0, res.FlowTimes) // empty flows
		if s.k[c] > 0 {
			active = append(active, c)
		}
	}
	now := 0.0
	for len(active) > 0 {
		s.fillRates(active)
		res.Events++
		// Each class's next completion at these rates.
		first := math.Inf(1)
		for _, c := range active {
			if !(s.rate[c] > 0) {
				return Result{}, errStuck
			}
			s.base[c] = now
			s.due[c] = now + (p.bytes[p.order[s.next[c]]]-s.sent[c])/s.rate[c]
			first = min(first, s.due[c])
		}
		if math.IsInf(first, 1) {
			return Result{}, errStuck
		}
		if p.resolution == 0 {
			// Exact: complete the first flows (merging those a rounding
			// error apart) and share again.
			lim := first + float64((first-now)*sameTime)
			for _, c := range active {
				if s.due[c] <= lim {
					s.complete(c, first, res.FlowTimes)
				}
			}
			now = first
		} else {
			now = s.window(active, now, res.FlowTimes)
		}
		// Bring the running classes up to now and share again.
		kept := active[:0]
		for _, c := range active {
			if s.k[c] > 0 {
				s.sent[c] += float64(s.rate[c] * (now - s.base[c]))
				kept = append(kept, c)
			}
		}
		active = kept
	}
	for _, ft := range res.FlowTimes {
		res.Time = max(res.Time, ft)
	}
	res.MaxUtilization, res.Busiest = maxUtil(t, res.LinkBytes, res.Time)
	return res, nil
}

// complete finishes class c's next flow (and any of the same size) at time
// at; the class runs on at the same rate.
func (s *solver) complete(c int32, at float64, times []float64) {
	p := s.p
	s.sent[c] = p.bytes[p.order[s.next[c]]]
	s.base[c] = at
	s.finish(c, at, times)
}

// window runs completions in time order at the current rates until the
// first one at or after now·(1+resolution), and returns its time.
func (s *solver) window(active []int32, now float64, times []float64) float64 {
	p := s.p
	horizon := now + float64(now*p.resolution)
	q := &s.queue
	q.items = q.items[:0]
	for _, c := range active {
		q.items = append(q.items, dueItem{s.due[c], c})
	}
	q.init()
	for {
		at := q.items[0].at
		lim := at + float64((at-now)*sameTime)
		for len(q.items) > 0 && q.items[0].at <= lim {
			c := q.pop().class
			s.complete(c, at, times)
			if s.k[c] > 0 {
				q.push(dueItem{at + (p.bytes[p.order[s.next[c]]]-s.sent[c])/s.rate[c], c})
			}
		}
		if len(q.items) == 0 || at >= horizon {
			return at
		}
	}
}

// finish completes class c's flows whose bytes are all sent by now.
func (s *solver) finish(c int32, now float64, times []float64) {
	p := s.p
	end := p.flowOff[c+1]
	for s.next[c] < end {
		f := p.order[s.next[c]]
		if p.bytes[f] > s.sent[c] {
			return
		}
		times[f] = now + p.lat[c]
		s.next[c]++
		s.k[c]--
	}
}

// fillRates sets the max-min fair rate of every active class by progressive
// filling: take the link with the smallest fair share (capacity left / flows
// not yet fixed), fix the rate of its flows at that share, take their rates
// off the other links they cross, repeat.
func (s *solver) fillRates(active []int32) {
	p, bw := s.p, s.p.t.bw
	s.epoch++
	ep := s.epoch
	s.touched = s.touched[:0]
	for _, c := range active {
		k := s.k[c]
		for _, l := range p.path(c) {
			if s.stamp[l] != ep {
				s.stamp[l] = ep
				s.rem[l] = bw[l]
				s.w[l] = 0
				s.touched = append(s.touched, l)
			}
			s.w[l] += k
		}
	}
	// A link's share only grows as classes are fixed elsewhere (the new
	// share is a mediant of the old one and the fixed rate, which is no
	// larger), so a stored share is a lower bound. The links wait sorted by
	// their first share; one whose share has grown by the time it comes up
	// goes into a heap with its new share; the smaller of the two fronts is
	// next, and if its stored share is current it is the true minimum.
	order := s.sorted[:0]
	for _, l := range s.touched {
		order = append(order, heapItem{s.rem[l] / float64(s.w[l]), l})
	}
	slices.SortFunc(order, heapItem.compare)
	s.sorted = order
	h := &s.heap
	h.items = h.items[:0]
	for next := 0; ; {
		var it heapItem
		switch {
		case next < len(order) && (len(h.items) == 0 || order[next].less(h.items[0])):
			it = order[next]
			next++
		case len(h.items) > 0:
			it = h.pop()
		default:
			return
		}
		l := it.link
		if s.w[l] == 0 {
			continue
		}
		share := max(s.rem[l], 0) / float64(s.w[l])
		if share != it.share {
			h.push(heapItem{share, l})
			continue
		}
		for _, c := range s.adj[s.adjOff[l]:s.adjOff[l+1]] {
			if s.k[c] == 0 || s.frozen[c] == ep {
				continue
			}
			s.frozen[c] = ep
			s.rate[c] = share
			k := s.k[c]
			used := float64(share * float64(k))
			for _, m := range p.path(c) {
				s.rem[m] -= used
				s.w[m] -= k
			}
		}
	}
}

func maxUtil(t *Topology, bytes []float64, total float64) (float64, LinkID) {
	best, at := 0.0, LinkID(-1)
	if !(total > 0) {
		return 0, -1
	}
	for l, b := range bytes {
		if b <= 0 {
			continue
		}
		u := b / float64(t.bw[l]*total)
		if u > best {
			best, at = u, LinkID(l)
		}
	}
	if best > 1 && best <= 1+utilSlack {
		best = 1
	}
	return best, at
}

// RepeatedStep is one step of a collective, run Times times in a row.
type RepeatedStep struct {
	Flows []Flow
	Times int
}

// StepsResult is the outcome of Steps.
type StepsResult struct {
	Time      float64   // seconds, all steps
	StepTimes []float64 // seconds for one run of steps[i]
	LinkBytes []float64 // bytes carried by each link over all steps, by LinkID
	// MaxUtilization is the largest over links of LinkBytes / (Bandwidth ×
	// Time); it never exceeds 1.
	MaxUtilization float64
	Busiest        LinkID // the link with MaxUtilization; -1 when nothing moved
	Simulated      int    // distinct steps actually simulated; the others were cached
}

type cached struct {
	key   []uint64
	time  float64
	links []LinkID // links that carried bytes, in id order
	bytes []float64
}

// Steps runs steps one after the other with a barrier between them: step
// i+1 starts when the last flow of step i has completed, latency included.
// A step whose flows have the same paths and sizes as one already run (flow
// ids may differ where they pick the same spines) is not simulated again.
func Steps(t *Topology, steps []RepeatedStep) (StepsResult, error) {
	return StepsWith(t, steps, Options{})
}

// StepsWith is Steps with options.
func StepsWith(t *Topology, steps []RepeatedStep, o Options) (StepsResult, error) {
	if err := o.check(); err != nil {
		return StepsResult{}, err
	}
	if t == nil {
		return StepsResult{}, &Error{"topology", "nil", "a topology from SingleNode, FatTree or PCIeNode"}
	}
	res := StepsResult{
		StepTimes: make([]float64, len(steps)),
		LinkBytes: make([]float64, len(t.links)),
		Busiest:   -1,
	}
	var cache []cached
	byHash := map[sim.Hash][]int{}
	for i, st := range steps {
		field := "steps[" + strconv.Itoa(i) + "]"
		if st.Times < 0 || st.Times > MaxTimes {
			return StepsResult{}, intErr(field+".times", st.Times, 0, MaxTimes)
		}
		p, err := prepare(t, st.Flows, field+".flows")
		if err != nil {
			return StepsResult{}, err
		}
		key := p.canonical()
		h := sim.NewHash()
		for _, v := range key {
			h = h.Int64(int64(v))
		}
		hit := -1
		for _, j := range byHash[h] {
			if slices.Equal(cache[j].key, key) {
				hit = j
				break
			}
		}
		if hit < 0 {
			p.resolution = o.Resolution
			r, err := p.run()
			if err != nil {
				return StepsResult{}, err
			}
			res.Simulated++
			e := cached{key: key, time: r.Time}
			for l, b := range r.LinkBytes {
				if b != 0 {
					e.links = append(e.links, LinkID(l))
					e.bytes = append(e.bytes, b)
				}
			}
			hit = len(cache)
			cache = append(cache, e)
			byHash[h] = append(byHash[h], hit)
		}
		e := &cache[hit]
		res.StepTimes[i] = e.time
		n := float64(st.Times)
		res.Time += float64(n * e.time)
		for j, l := range e.links {
			res.LinkBytes[l] += float64(n * e.bytes[j])
		}
	}
	res.MaxUtilization, res.Busiest = maxUtil(t, res.LinkBytes, res.Time)
	return res, nil
}

// canonical encodes the multiset of (path, bytes) of p's flows, which is all
// that a run depends on: classes in path order, each with its sorted sizes.
func (p *problem) canonical() []uint64 {
	cs := make([]int32, len(p.lat))
	for c := range cs {
		cs[c] = int32(c)
	}
	slices.SortFunc(cs, func(a, b int32) int {
		return slices.Compare(p.path(a), p.path(b))
	})
	key := make([]uint64, 0, len(p.links)+len(p.bytes)+len(cs))
	for _, c := range cs {
		path := p.path(c)
		flows := p.order[p.flowOff[c]:p.flowOff[c+1]]
		key = append(key, uint64(len(path))<<32|uint64(len(flows)))
		for _, l := range path {
			key = append(key, uint64(l))
		}
		for _, f := range flows {
			key = append(key, math.Float64bits(p.bytes[f]))
		}
	}
	return key
}

// minHeap is a binary min-heap by T's less: links by fair share (heapItem)
// and flow classes by next completion (dueItem).
type minHeap[T interface{ less(T) bool }] struct{ items []T }

// linkHeap orders links by fair share, ties by link id.
type linkHeap = minHeap[heapItem]

// dueHeap orders classes by next completion time, ties by class.
type dueHeap = minHeap[dueItem]

type heapItem struct {
	share float64
	link  LinkID
}

func (a heapItem) compare(b heapItem) int {
	if a.share != b.share {
		return cmp.Compare(a.share, b.share)
	}
	return cmp.Compare(a.link, b.link)
}

func (a heapItem) less(b heapItem) bool {
	if a.share != b.share {
		return a.share < b.share
	}
	return a.link < b.link
}

type dueItem struct {
	at    float64
	class int32
}

func (a dueItem) less(b dueItem) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.class < b.class
}

func (h *minHeap[T]) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *minHeap[T]) push(it T) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.items[i].less(h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *minHeap[T]) pop() T {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	h.down(0)
	return top
}

func (h *minHeap[T]) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.items[r].less(h.items[l]) {
			m = r
		}
		if !h.items[m].less(h.items[i]) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
