package collective

import (
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Packet is a transfer as seen at one instant.
type Packet struct {
	Src, Dst, Chunk int
	Count           int   // ranks' data it carries
	Bytes           int64 // its size
	Phase           Phase
	// Progress runs from 0 (leaving Src) to 1 (at Dst); a packet still
	// waiting for its link has Waiting set and Progress 0.
	Progress float64
	Waiting  bool
}

// Snapshot is the state of a recorded run at one instant, everything a
// picture needs.
type Snapshot struct {
	Time   sim.Time
	Algo   Algo
	Ranks  int
	Chunks int
	// Contrib[rank*Chunks+chunk] is how many ranks' data chunk holds at
	// rank, from 1 (its own only) to Ranks (the full sum).
	Contrib []int32
	// Packets in flight or waiting, in the order they were asked for.
	Packets []Packet
	// Round is the 1-based round under way (0 before the first starts);
	// Phase its phase.
	Round int
	Phase Phase
	// Sent[rank] is the bytes rank has sent so far (a transfer's bytes
	// leave at the link's rate).
	Sent []int64
	Done bool
}

// Snapshot returns the state at time t. It needs a recorded run
// (Config.Record); without one it returns an empty picture of the end.
func (res *Result) Snapshot(t sim.Time) Snapshot {
	var sn Snapshot
	res.SnapshotInto(&sn, t)
	return sn
}

// SnapshotInto is Snapshot(t) written over sn, in its slices' storage: a
// picture asking every frame allocates nothing once they are large
// enough. What sn held before is overwritten.
func (res *Result) SnapshotInto(sn *Snapshot, t sim.Time) {
	n := res.Config.Ranks
	*sn = Snapshot{Time: t, Algo: res.Config.Algo, Ranks: n, Chunks: res.Chunks,
		Contrib: sn.Contrib[:0], Packets: sn.Packets[:0], Sent: append(sn.Sent[:0], make([]int64, n)...)}
	if t < 0 {
		t = 0
	}
	if res.Trace == nil {
		sn.Done = true
		sn.Time = res.Time
		sn.Contrib = nil
		return
	}
	tr := res.Trace.Events()
	// Arrived: transfers [0, k) have Arrive <= t.
	k := res.Trace.Count(t)
	sn.Contrib = res.Trace.StateAtInto(t, sn.Contrib, func(dst, src []int32) []int32 { return append(dst[:0], src...) })
	for i := range tr {
		x := &tr[i]
		if x.Start < t {
			// Bytes leave at the link's rate while it sends: the
			// serialisation time is Arrive − latency − Start.
			ser := x.Arrive - res.Config.Link.Latency - x.Start
			if done := t - x.Start; ser <= 0 || done >= ser {
				sn.Sent[x.Src] += x.Bytes
			} else {
				sn.Sent[x.Src] += int64(float64(x.Bytes) * float64(done) / float64(ser))
			}
		}
		if i < k || x.Request > t {
			continue
		}
		p := Packet{Src: int(x.Src), Dst: int(x.Dst), Chunk: int(x.Chunk), Bytes: x.Bytes, Phase: x.Phase}
		p.Count = int(x.Count)
		if x.Phase != PhaseBroadcast && x.Phase != PhaseAllGather {
			// What travels is the sender's partial sum, one less than
			// the receiver will hold.
			p.Count = int(x.Count) - 1
			if x.Phase == PhaseGather {
				p.Count = 1
			}
		}
		if x.Start > t {
			p.Waiting = true
		} else if span := x.Arrive - x.Start; span > 0 {
			p.Progress = float64(t-x.Start) / float64(span)
		}
		sn.Packets = append(sn.Packets, p)
	}
	for r := len(res.RoundStart); r >= 1; r-- {
		if res.RoundStart[r-1] <= t {
			sn.Round = r
			break
		}
	}
	sn.Phase = res.phaseOfRound(sn.Round)
	sn.Done = t >= res.Time
}

func (res *Result) phaseOfRound(round int) Phase {
	n := res.Config.Ranks
	switch res.Config.Algo {
	case Star:
		if round >= 2 {
			return PhaseBroadcast
		}
		return PhaseGather
	default:
		if round >= n {
			return PhaseAllGather
		}
		return PhaseReduceScatter
	}
}

// Mark returns the time of a named instant of the run: "start", "end",
// "phase:reduce-scatter", "phase:all-gather", "phase:gather",
// "phase:broadcast", "round:K" (1-based) and "round:last-rs". ok is false
// for a name this run does not have.
func (res *Result) Mark(name string) (sim.Time, bool) {
	n := res.Config.Ranks
	round := func(r int) (sim.Time, bool) {
		if r < 1 || r > len(res.RoundStart) {
			return 0, false
		}
		return res.RoundStart[r-1], true
	}
	switch name {
	case "start":
		return 0, true
	case "end":
		return res.Time, true
	}
	if res.Config.Algo == Ring {
		switch name {
		case "phase:reduce-scatter":
			return round(1)
		case "phase:all-gather":
			return round(n)
		case "round:last-rs":
			return round(n - 1)
		}
	} else {
		switch name {
		case "phase:gather":
			return round(1)
		case "phase:broadcast":
			return round(2)
		}
	}
	if k, ok := strings.CutPrefix(name, "round:"); ok {
		if r, err := strconv.Atoi(k); err == nil {
			return round(r)
		}
	}
	return 0, false
}

// End is when the last byte arrived: the length of the run's time line.
func (res *Result) End() sim.Time { return res.Time }
