package collective

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// A ring of 4 ranks, all-reduced: in each round every rank sends one
// chunk to the next rank and receives one from the previous, reduce-
// scatter for the first 3 rounds (adding what arrives), all-gather for
// the last 3; before the first round nothing moves.
func TestActivityRing(t *testing.T) {
	link, _ := hw.LinkByID("nvlink4")
	r, err := Run(Config{Op: AllReduce, Algo: Ring, Ranks: 4, Bytes: 4 << 20, Link: link, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewActivity(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Rounds(); len(got) != 6 || got[0] != PhaseReduceScatter || got[2] != PhaseReduceScatter || got[3] != PhaseAllGather || got[5] != PhaseAllGather {
		t.Fatalf("rounds %v", got)
	}
	for round := 1; round <= 6; round++ {
		end := r.Time
		if round < 6 {
			end = r.RoundStart[round]
		}
		mid := (r.RoundStart[round-1] + end) / 2
		for rank := range 4 {
			m, err := a.At(rank, mid)
			if err != nil {
				t.Fatal(err)
			}
			if m.Round != round || len(m.Sends) != 1 || len(m.Recvs) != 1 || int(m.Sends[0].Dst) != (rank+1)%4 || int(m.Recvs[0].Src) != (rank+3)%4 {
				t.Errorf("round %d rank %d: %+v", round, rank, m)
			}
			if want := []Phase{PhaseReduceScatter, PhaseAllGather}[(round-1)/3]; m.Phase != want || m.Sends[0].Phase != want {
				t.Errorf("round %d rank %d: phase %v, want %v", round, rank, m.Phase, want)
			}
		}
	}
	if m, _ := a.At(0, r.Time+sim.Second); len(m.Sends)+len(m.Recvs) != 0 || m.Round != 6 {
		t.Errorf("after the run: %+v", m)
	}
	if _, err := a.At(4, 0); err == nil || !strings.Contains(err.Error(), "gpu: 4; allowed 0–3") {
		t.Errorf("rank 4: %v", err)
	}
	if _, err := NewActivity(&Result{}); err == nil {
		t.Errorf("an unrecorded run indexed")
	}
}
