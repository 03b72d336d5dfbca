package collective

import (
	"errors"
	"sort"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// What one rank does at one moment of a recorded collective, for the
// zoom (issue 21): the chunks it sends and receives then, the round and
// its phase.

// Activity indexes a recorded run by rank.
type Activity struct {
	r      *Result
	events []Transfer
	byRank [][]int32 // each rank's transfers (sent or received), by start
	phases []Phase   // each round's phase (round r at r−1)
}

// NewActivity indexes r, which must have been recorded (Config.Record).
func NewActivity(r *Result) (*Activity, error) {
	if r == nil || r.Trace == nil {
		return nil, errors.New("activity: the run was not recorded")
	}
	a := &Activity{r: r, events: r.Trace.Events(), byRank: make([][]int32, r.Config.Ranks), phases: make([]Phase, r.Rounds)}
	for i, e := range a.events {
		for _, k := range [...]int32{e.Src, e.Dst} {
			if k >= 0 && int(k) < len(a.byRank) {
				a.byRank[k] = append(a.byRank[k], int32(i))
			}
		}
		if e.Round >= 1 && int(e.Round) <= len(a.phases) {
			a.phases[e.Round-1] = e.Phase
		}
	}
	for _, l := range a.byRank {
		sort.SliceStable(l, func(i, j int) bool { return a.events[l[i]].Start < a.events[l[j]].Start })
	}
	return a, nil
}

// RankMoment is one rank at one moment: the round under way (0 before
// the first, Rounds after the last), its phase, and the transfers from
// and to the rank that are on their link then.
type RankMoment struct {
	Rank  int
	Time  sim.Time
	Round int
	Phase Phase
	Sends []Transfer
	Recvs []Transfer
}

// Rounds are the run's rounds and their phases, for a strip of them:
// round r from RoundStart[r−1] to the next round's start (the last, to
// the run's end).
func (a *Activity) Rounds() []Phase { return a.phases }

// At is rank at time t; a rank outside the run is an error naming the
// range.
func (a *Activity) At(rank int, t sim.Time) (RankMoment, error) {
	if rank < 0 || rank >= len(a.byRank) {
		return RankMoment{}, errs.F("hf_range", "%s: %d; allowed %d–%d (the collective's %d ranks)", "name n lo hi", "gpu", rank, 0, len(a.byRank)-1, len(a.byRank))
	}
	m := RankMoment{Rank: rank, Time: t}
	rs := a.r.RoundStart
	m.Round = sort.Search(len(rs), func(i int) bool { return rs[i] > t })
	if m.Round >= 1 && m.Round <= len(a.phases) {
		m.Phase = a.phases[m.Round-1]
	}
	for _, i := range a.byRank[rank] {
		e := a.events[i]
		if e.Start > t {
			break
		}
		if t >= e.Arrive {
			continue
		}
		if int(e.Src) == rank {
			m.Sends = append(m.Sends, e)
		} else {
			m.Recvs = append(m.Recvs, e)
		}
	}
	return m, nil
}
