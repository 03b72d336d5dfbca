// Package moe simulates one mixture-of-experts layer's routing on a batch
// of tokens: the router sends each token to its top-k experts; the
// experts, spread over the GPUs of an expert-parallel group, receive the
// copies by an all-to-all (the dispatch) and send their results back (the
// combine); a capacity factor bounds what an expert takes from each GPU,
// dropping the copies over it and padding the slots under it.
//
// The router is modelled by what it does to the load, not by its weights:
// each expert has a popularity p_e (equal for a balanced router; ∝
// rank^−Skew, in an order drawn from the seed, for an imbalanced one) and
// each token draws its k experts one after another in proportion to it,
// never the same twice (the Plackett–Luce model a softmax router's top-k
// follows when its scores are noisy; drawn by Walker's alias method, a
// repeat drawn again). Same configuration and seed, same routes, on every
// platform.
package moe

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// Config is one layer's routing of one batch.
type Config struct {
	Experts int // routed experts
	TopK    int // experts a token goes to
	// Tokens is each GPU's micro-batch, in tokens: the EP group routes
	// Tokens × EP of them at once.
	Tokens int
	Hidden int // a token's width: a copy is Hidden BF16 values
	// Skew is the router's imbalance: expert popularity ∝ rank^−Skew (0:
	// every expert equally likely).
	Skew float64
	// CapacityFactor sizes the buffer each GPU fills for each expert:
	// ⌈CapacityFactor × Tokens·TopK ÷ Experts⌉ slots (GShard's local
	// capacity). 0: no capacity (dropless, as DeepSeek-V3 and MegaBlocks
	// route) — nothing dropped, nothing padded.
	CapacityFactor float64
	// EP is the GPUs the experts are spread over, Experts ÷ EP each in
	// order. GPUsPerNode of them share a node's Intra link; the rest are
	// reached over Inter.
	EP, GPUsPerNode int
	Intra, Inter    hw.Link
	Seed            uint64
}

// MaxCopies bounds a batch: Tokens × EP × TopK token copies at most.
const MaxCopies = 1 << 22

// Validate names the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Experts < 2 || c.Experts > 4096:
		return errs.Range("experts", c.Experts, 2, 4096, "")
	case c.TopK < 1 || c.TopK > c.Experts:
		return errs.Range("top-k", c.TopK, 1, c.Experts, " (the experts)")
	case c.EP < 1 || c.EP > c.Experts || c.Experts%c.EP != 0:
		return fmt.Errorf("ep: %d; allowed a divisor of the experts (%d)", c.EP, c.Experts)
	case c.Tokens < 1 || c.Tokens > MaxCopies:
		return errs.Range("tokens", c.Tokens, 1, MaxCopies, "")
	case c.Tokens*c.EP*c.TopK > MaxCopies:
		return fmt.Errorf("tokens: %d; %d tokens × ep %d × top-k %d copies, at most %d: allowed up to %d", c.Tokens, c.Tokens, c.EP, c.TopK, MaxCopies, MaxCopies/(c.EP*c.TopK))
	case c.Hidden < 1 || c.Hidden > 1<<17:
		return errs.Range("hidden", c.Hidden, 1, 1<<17, "")
	case !(c.Skew >= 0) || c.Skew > 2:
		return errs.RangeG("skew", c.Skew, 0, 2, "")
	case c.CapacityFactor != 0 && !(c.CapacityFactor >= 1 && c.CapacityFactor <= 16):
		return fmt.Errorf("capacity-factor: %g; allowed 0 (no capacity) or 1–16", c.CapacityFactor)
	case c.GPUsPerNode < 1 || c.GPUsPerNode > 1024:
		return errs.Range("gpus-per-node", c.GPUsPerNode, 1, 1024, "")
	case !(c.Intra.Bandwidth > 0) || !(c.Inter.Bandwidth > 0):
		return fmt.Errorf("link: a bandwidth of %g and %g bytes/s; both must be positive", c.Intra.Bandwidth, c.Inter.Bandwidth)
	}
	return nil
}

// Result is the routed batch.
type Result struct {
	Config
	// Routes are each token's experts, TopK a token, token after token
	// (GPU 0's Tokens first), the router's first choice first.
	Routes []int32
	// Popularity is each expert's probability of being a token's first
	// choice (sums to 1).
	Popularity []float64
	Load       []int // token copies routed to each expert
	// Kept is, for each copy of Routes, whether its expert had room in
	// its GPU's buffer (a buffer takes copies in token order up to
	// Capacity).
	Kept     []bool
	KeptLoad []int // … and the copies each expert keeps
	Capacity int   // slots a GPU's buffer for one expert has; 0: no capacity
	Dropped  int   // copies over capacity: not computed, passed on by the residual
	Padded   int   // empty slots sent and computed all the same
	// Bytes each GPU sends in one dispatch (the combine sends as much
	// back): to GPUs in its node and to other nodes. With a capacity
	// every GPU sends its buffers whole, padding included; without one,
	// its tokens' copies.
	SendIntra, SendInter []float64
	// … and receives.
	RecvIntra, RecvInter []float64
	// DispatchS is one dispatch's time: the slowest GPU's, each link
	// carrying its part at its rate (Bandwidth × Efficiency, plus a
	// latency), both at once. The combine takes as long.
	DispatchS float64
	// IntraS and InterS are the slowest GPU's parts on each link.
	IntraS, InterS float64
}

// Route routes the batch.
func Route(c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	E, k, T := c.Experts, c.TopK, c.Tokens*c.EP
	r := Result{Config: c, Routes: make([]int32, T*k), Load: make([]int, E), KeptLoad: make([]int, E), Kept: make([]bool, T*k), Popularity: make([]float64, E)}
	rng := sim.NewRNG(c.Seed)
	// Popularity by rank, the ranks dealt to the experts by a shuffle.
	order := make([]int, E)
	for i := range order {
		order[i] = i
	}
	for i := E - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	sum := 0.0
	for rank, e := range order {
		r.Popularity[e] = math.Pow(float64(rank+1), -c.Skew)
		sum += r.Popularity[e]
	}
	for e := range r.Popularity {
		r.Popularity[e] /= sum
	}
	prob, alias := aliasTable(r.Popularity)
	for t := range T {
		picked := r.Routes[t*k : (t+1)*k]
		for j := range picked {
			for {
				i := int32(rng.Intn(E))
				if rng.Float64() >= prob[i] {
					i = alias[i]
				}
				if !slices.Contains(picked[:j], i) {
					picked[j] = i
					break
				}
			}
		}
	}
	if c.CapacityFactor > 0 {
		r.Capacity = int(math.Ceil(c.CapacityFactor*float64(c.Tokens*k)/float64(E) - 1e-9))
	}
	filled := make([]int, E) // the current GPU's buffers
	for i, e := range r.Routes {
		if i%(c.Tokens*k) == 0 {
			clear(filled)
		}
		r.Load[e]++
		filled[e]++
		r.Kept[i] = r.Capacity == 0 || filled[e] <= r.Capacity
		if r.Kept[i] {
			r.KeptLoad[e]++
		} else {
			r.Dropped++
		}
	}
	if r.Capacity > 0 {
		r.Padded = r.Capacity*E*c.EP - (T*k - r.Dropped)
	}
	r.dispatch()
	return r, nil
}

// aliasTable is Walker's alias table of the distribution p (Vose's
// construction): draw i uniformly, keep it with probability prob[i], else
// take alias[i].
func aliasTable(p []float64) (prob []float64, alias []int32) {
	n := len(p)
	prob, alias = make([]float64, n), make([]int32, n)
	scaled := make([]float64, n)
	var small, large []int32
	for i, x := range p {
		scaled[i] = x * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		prob[s], alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range large {
		prob[i], alias[i] = 1, i
	}
	for _, i := range small { // rounding left it a hair below 1
		prob[i], alias[i] = 1, i
	}
	return prob, alias
}

// GPUOf is the GPU that expert e lives on.
func (r *Result) GPUOf(e int) int { return e / (r.Experts / r.EP) }

// SourceOf is the GPU that token t starts on.
func (r *Result) SourceOf(t int) int { return t / r.Tokens }

// SameNode reports whether GPUs a and b share a node.
func (r *Result) SameNode(a, b int) bool { return a/r.GPUsPerNode == b/r.GPUsPerNode }

// CopyBytes is one token copy's bytes (BF16).
func (r *Result) CopyBytes() float64 { return 2 * float64(r.Hidden) }

// SentFrom fills into (EP long) with the bytes GPU src sends each GPU in
// one dispatch, its own included: with a capacity, every expert's buffer
// of Capacity slots, full or not (fixed shapes); without, its tokens'
// copies.
func (r *Result) SentFrom(src int, into []float64) {
	clear(into)
	if r.Capacity > 0 {
		per := float64(r.Capacity) * r.CopyBytes()
		for e := range r.Experts {
			into[r.GPUOf(e)] += per
		}
		return
	}
	for i := src * r.Tokens * r.TopK; i < (src+1)*r.Tokens*r.TopK; i++ {
		into[r.GPUOf(int(r.Routes[i]))] += r.CopyBytes()
	}
}

// dispatch counts each GPU's bytes on each link and times the slowest.
func (r *Result) dispatch() {
	n := r.EP
	r.SendIntra, r.SendInter = make([]float64, n), make([]float64, n)
	r.RecvIntra, r.RecvInter = make([]float64, n), make([]float64, n)
	add := func(src, dst int, bytes float64) {
		switch {
		case src == dst:
		case r.SameNode(src, dst):
			r.SendIntra[src] += bytes
			r.RecvIntra[dst] += bytes
		default:
			r.SendInter[src] += bytes
			r.RecvInter[dst] += bytes
		}
	}
	sent := make([]float64, n)
	for src := range n {
		r.SentFrom(src, sent)
		for dst, b := range sent {
			add(src, dst, b)
		}
	}
	for g := range n {
		a, b := r.LinkTimes(g)
		r.IntraS, r.InterS = max(r.IntraS, a), max(r.InterS, b)
		r.DispatchS = max(r.DispatchS, a, b)
	}
}

// LinkTimes are GPU g's parts of one dispatch: the time its NVLink
// (Intra) and its NIC (Inter) take to carry what it sends or receives on
// each, whichever is more, at the link's rate plus its latency (0 where
// nothing crosses it). The dispatch lasts as long as the slowest GPU's
// slower part (DispatchS); a GPU whose parts end sooner waits for it.
func (r *Result) LinkTimes(g int) (intra, inter float64) {
	time := func(bytes float64, l hw.Link) float64 {
		if bytes <= 0 {
			return 0
		}
		return l.Latency.Seconds() + bytes/(l.Bandwidth*efficiency(l))
	}
	if g < 0 || g >= len(r.SendIntra) {
		return 0, 0
	}
	return time(max(r.SendIntra[g], r.RecvIntra[g]), r.Intra), time(max(r.SendInter[g], r.RecvInter[g]), r.Inter)
}

// efficiency is the share of a link's bandwidth a collective sustains
// (hw.Link.Efficiency; the full bandwidth for a link without one).
func efficiency(l hw.Link) float64 {
	if l.Efficiency > 0 {
		return l.Efficiency
	}
	return 1
}

// MeanLoad is the copies an expert gets on average: Tokens·EP·TopK ÷
// Experts.
func (r *Result) MeanLoad() float64 {
	return float64(r.Tokens*r.EP*r.TopK) / float64(r.Experts)
}

// ExpertCapacity is the slots an expert has in all the GPUs' buffers
// together: Capacity × EP (0: no capacity).
func (r *Result) ExpertCapacity() int { return r.Capacity * r.EP }

// MaxLoad is the busiest expert's copies.
func (r *Result) MaxLoad() int { return slices.Max(r.Load) }

// Metrics are the numbers gpuscope route prints.
type Metrics struct {
	Experts        int     `json:"experts"`
	TopK           int     `json:"top_k"`
	Tokens         int     `json:"tokens"` // each GPU's
	EP             int     `json:"ep"`
	Copies         int     `json:"copies"`
	MeanLoad       float64 `json:"mean_load"`
	MaxLoad        int     `json:"max_load"`
	Imbalance      float64 `json:"imbalance"` // MaxLoad ÷ MeanLoad
	Capacity       int     `json:"capacity"`
	Dropped        int     `json:"dropped"`
	DroppedShare   float64 `json:"dropped_share"` // of the copies
	Padded         int     `json:"padded"`
	PaddedShare    float64 `json:"padded_share"`     // of the slots
	DispatchBytes  float64 `json:"dispatch_bytes"`   // the busiest GPU's, one dispatch (to other GPUs)
	InterNodeShare float64 `json:"inter_node_share"` // of all bytes sent, the part that leaves its node
	IntraS         float64 `json:"intra_node_s"`
	InterS         float64 `json:"inter_node_s"`
	DispatchS      float64 `json:"dispatch_s"`
	LayerS         float64 `json:"layer_s"` // dispatch and combine, forward
}

// Metrics are the batch's numbers.
func (r *Result) Metrics() Metrics {
	copies := r.Tokens * r.EP * r.TopK
	m := Metrics{Experts: r.Experts, TopK: r.TopK, Tokens: r.Tokens, EP: r.EP, Copies: copies, MeanLoad: r.MeanLoad(), MaxLoad: r.MaxLoad(),
		Capacity: r.Capacity, Dropped: r.Dropped, Padded: r.Padded, IntraS: r.IntraS, InterS: r.InterS, DispatchS: r.DispatchS, LayerS: 2 * r.DispatchS}
	m.Imbalance = float64(m.MaxLoad) / m.MeanLoad
	m.DroppedShare = float64(r.Dropped) / float64(copies)
	if r.Capacity > 0 {
		m.PaddedShare = float64(r.Padded) / float64(r.ExpertCapacity()*r.Experts)
	}
	var in, out float64
	for g := range r.EP {
		m.DispatchBytes = max(m.DispatchBytes, r.SendIntra[g]+r.SendInter[g], r.RecvIntra[g]+r.RecvInter[g])
		in += r.SendIntra[g]
		out += r.SendInter[g]
	}
	if in+out > 0 {
		m.InterNodeShare = out / (in + out)
	}
	return m
}
