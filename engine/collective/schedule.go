package collective

import (
	"math"
	"slices"
	"sort"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// A closed form laid out in time, for the zoom (issue 21): what the
// collective's ranks do at a moment, read from the same α-β terms that
// ClosedForm adds up, so that its legs end exactly at Form.Seconds.

// LegKind is what a leg's rounds do.
type LegKind string

// Leg kinds.
const (
	LegReduceScatter LegKind = "reduce-scatter" // a ring's rounds: each rank adds the chunk that arrives into its own
	LegAllGather     LegKind = "all-gather"     // a ring's rounds: each rank keeps the summed chunk that arrives
	LegTreeUp        LegKind = "tree-up"        // a pipelined tree's fill: the first chunk climbs a level a round
	LegTreeStream    LegKind = "tree-stream"    // the tree's every edge streaming at once, reduced up and broadcast down
	LegTreeDown      LegKind = "tree-down"      // the tree's drain: the last chunk comes down a level a round
	LegGather        LegKind = "gather"         // a star's: everyone to the root
	LegBroadcast     LegKind = "broadcast"      // a star's root to everyone
	LegSend          LegKind = "send"           // a broadcast's pipelined transfer (two ranks: one send)
	LegAllToAll      LegKind = "all-to-all"     // pairwise exchange: in round j rank r sends to r+j
	LegNVLS          LegKind = "nvls"           // NVLink SHARP: the switch adds in flight, then multicasts
)

// Leg is a stretch of a collective's closed form: Rounds identical rounds,
// each Latency + Bandwidth seconds, in which a rank sends Bytes (the
// busiest rank: a star's root, a tree's interior), from
// Start to End (seconds from the collective's start). Across: its rounds
// cross the network, through each GPU's NIC (the closed form's B is the
// NIC's); else they stay on the node's NVLink. Node: a ring inside every
// node at once (hierarchical's first and last legs), not one ring over
// all the ranks.
type Leg struct {
	Kind               LegKind
	Rounds             int
	Latency, Bandwidth float64 // one round's α and β parts, seconds
	Bytes              float64 // a rank sends in one round
	Across, Node       bool
	Start, End         float64
}

// Round is how long one of the leg's rounds takes.
func (l Leg) Round() float64 { return l.Latency + l.Bandwidth }

// Schedule is ClosedForm(op, algo, n, gpusPerNode, bytes, intra, inter)
// as legs in the order they run, and the form itself; its legs' rounds
// add up to the form's Latency, Bandwidth, SentPerRank and Seconds:
//
//	ring all-reduce    reduce-scatter, all-gather: n−1 rounds of S/n each
//	hierarchical       reduce-scatter in every node (k−1 rounds of S/k),
//	                   an all-reduce of S/k across nodes (2·(nodes−1)
//	                   rounds), all-gather in every node
//	tree all-reduce    ⌈log2 n⌉ rounds of α up, one stream of the
//	                   bandwidth term, ⌈log2 n⌉ rounds of α down
//	star all-reduce    gather, broadcast: α + (n−1)·S/B each
//	all-to-all         n−1 rounds of S/n, round j to the rank j further on
//	broadcast, NVLS    one leg
func Schedule(op Op, algo Algo, n, gpusPerNode int, bytes float64, intra, inter hw.Link) ([]Leg, Form, error) {
	f, err := ClosedForm(op, algo, n, gpusPerNode, bytes, intra, inter)
	if err != nil || n < 2 {
		return nil, f, err
	}
	N := float64(n)
	oneNode := n <= gpusPerNode
	link := inter
	if oneNode {
		link = intra
	}
	alpha := link.Latency.Seconds()
	ring := func(kind LegKind, rounds int, s float64, l hw.Link, across, node bool) Leg {
		per := s / float64(rounds+1) // a ring of rounds+1 ranks moves S/(its ranks) a round
		return Leg{Kind: kind, Rounds: rounds, Latency: l.Latency.Seconds(), Bandwidth: per / eff(l), Bytes: per, Across: across, Node: node}
	}
	var legs []Leg
	switch {
	case algo == Hierarchical && !oneNode && (op == AllReduce || op == ReduceScatter || op == AllGather):
		k := gpusPerNode
		nodes := int(math.Ceil(N / float64(k)))
		rs := ring(LegReduceScatter, k-1, bytes, intra, false, true)
		ag := rs
		ag.Kind = LegAllGather
		xrs := ring(LegReduceScatter, nodes-1, bytes/float64(k), inter, true, false)
		xag := xrs
		xag.Kind = LegAllGather
		switch op {
		case AllReduce:
			legs = []Leg{rs, xrs, xag, ag}
		case ReduceScatter:
			legs = []Leg{rs, xrs}
		default:
			legs = []Leg{xag, ag}
		}
	case algo == Hierarchical || algo == Ring && op != Broadcast || op == AllToAll:
		switch op {
		case AllReduce:
			legs = []Leg{ring(LegReduceScatter, n-1, bytes, link, !oneNode, false), ring(LegAllGather, n-1, bytes, link, !oneNode, false)}
		case ReduceScatter:
			legs = []Leg{ring(LegReduceScatter, n-1, bytes, link, !oneNode, false)}
		case AllGather:
			legs = []Leg{ring(LegAllGather, n-1, bytes, link, !oneNode, false)}
		default:
			legs = []Leg{ring(LegAllToAll, n-1, bytes, link, !oneNode, false)}
		}
	case op == AllReduce && algo == Tree:
		logN := int(math.Ceil(math.Log2(N)))
		legs = []Leg{
			{Kind: LegTreeUp, Rounds: logN, Latency: alpha},
			{Kind: LegTreeStream, Rounds: 1, Bandwidth: f.Bandwidth, Bytes: f.SentPerRank},
			{Kind: LegTreeDown, Rounds: logN, Latency: alpha},
		}
	case op == AllReduce && algo == Star:
		half := Leg{Kind: LegGather, Rounds: 1, Latency: alpha, Bandwidth: f.Bandwidth / 2}
		bc := half
		bc.Kind, bc.Bytes = LegBroadcast, f.SentPerRank
		legs = []Leg{half, bc}
	default: // broadcast by ring or tree, NVLS: one pipelined leg
		kind := LegSend
		if algo == NVLS {
			kind = LegNVLS
		}
		legs = []Leg{{Kind: kind, Rounds: 1, Latency: f.Latency, Bandwidth: f.Bandwidth, Bytes: f.SentPerRank}}
	}
	t := 0.0
	legs = slices.DeleteFunc(legs, func(l Leg) bool { return l.Rounds < 1 }) // a node of one GPU has no ring
	for i := range legs {
		l := &legs[i]
		l.Across = l.Across || l.Kind != LegReduceScatter && l.Kind != LegAllGather && l.Kind != LegAllToAll && !oneNode
		l.Start = t
		t += float64(float64(l.Rounds) * l.Round())
		l.End = t
	}
	return legs, f, nil
}

// LegAt is the leg under way t seconds into the collective and the round
// of it (1-based): leg −1 before the start, len(legs) from the end on.
func LegAt(legs []Leg, t float64) (leg, round int) {
	if len(legs) == 0 || t < legs[0].Start {
		return -1, 0
	}
	i := sort.Search(len(legs), func(i int) bool { return legs[i].End > t })
	if i == len(legs) {
		return i, 0
	}
	l := legs[i]
	round = 1
	if d := l.Round(); d > 0 {
		round = min(l.Rounds, int((t-l.Start)/d)+1)
	}
	return i, round
}

// TreeParent is rank r's parent among n ranks in the first (second
// false) or the second of NCCL's double binary trees that a tree
// all-reduce pipelines its halves over (treeOnFabric), −1 at a root.
func TreeParent(n, r int, second bool) int {
	if r < 0 || r >= n {
		return -1
	}
	if !second {
		return btreeParent(n, r)
	}
	if n%2 == 0 {
		if p := btreeParent(n, n-1-r); p >= 0 {
			return n - 1 - p
		}
		return -1
	}
	if p := btreeParent(n, (r-1+n)%n); p >= 0 {
		return (p + 1) % n
	}
	return -1
}
