package render

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// raceView races 1 GB over NVLink 4 (450 GB/s, 1 µs) and InfiniBand NDR
// (50 GB/s, 5 µs): about 2.2 ms against 20 ms.
func raceView(t float64) RaceView {
	lane := func(name string, bw, lat float64) RaceLane {
		return RaceLane{Name: name, Rated: true, Bandwidth: bw, Latency: lat, Seconds: lat + 1e9/bw}
	}
	return RaceView{
		Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Scale: 1, Theme: Dark,
		Bytes: 1e9,
		Lanes: []RaceLane{
			lane("NVLink 4", 450e9, 1e-6),
			lane("IB NDR", 50e9, 5e-6),
		},
		Time: t,
	}
}

// raceBars is the width of each lane's progress bar (a rect in the lane's
// colour), 0 where there is none.
func raceBars(l List, n int) []float32 {
	w := make([]float32, n)
	for _, it := range l.Items {
		for i := range n {
			if it.Kind == FillRect && it.Color == sizePalette[i] {
				w[i] = it.W
			}
		}
	}
	return w
}

func TestRaceGolden(t *testing.T) {
	v := raceView(0)
	v.Time = v.Lanes[1].Seconds / 3
	golden.Check(t, "race_mid.golden", AppendRace(List{}, v).String())
	golden.Check(t, "race_done.golden", AppendRace(List{}, raceView(-1)).String())
}

// When the fast lane is done and the slow one has delivered a ninth, the
// bars are 9 to 1; the track is the whole transfer.
func TestRaceBarsProportional(t *testing.T) {
	v := raceView(0)
	slow := v.Lanes[1]
	v.Time = slow.Latency + (slow.Seconds-slow.Latency)/9
	if v.Time < v.Lanes[0].Seconds {
		t.Fatalf("fixture: fast lane not done at %v", v.Time)
	}
	w := raceBars(AppendRace(List{}, v), 2)
	if w[1] <= 0 || math.Abs(float64(w[0]/w[1])-9) > 1e-3 {
		t.Errorf("bar widths %v, want 9:1", w)
	}
	// The finish time of the fast lane only, in its colour.
	var fast, slowDone bool
	for _, it := range AppendRace(List{}, v).Items {
		fast = fast || (it.Kind == Text && it.Text == units.Duration(v.Lanes[0].Seconds) && it.Color == sizePalette[0])
		slowDone = slowDone || (it.Kind == Text && it.Color == sizePalette[1])
	}
	if !fast || slowDone {
		t.Errorf("finish labels: fast %v (want true), slow %v (want false)", fast, slowDone)
	}
}

// Nothing arrives before a lane's latency; packets already stream.
func TestRaceNothingBeforeLatency(t *testing.T) {
	v := raceView(0.5e-6)
	l := AppendRace(List{}, v)
	if w := raceBars(l, 2); w[0] != 0 || w[1] != 0 {
		t.Errorf("bars at 0.5 µs: %v, want none", w)
	}
	v.Time = 3e-6 // past NVLink's latency, before IB's
	if w := raceBars(AppendRace(List{}, v), 2); w[0] <= 0 || w[1] != 0 {
		t.Errorf("bars at 3 µs: %v, want NVLink's only", w)
	}
}

// The faster lane's packets are denser and move faster.
func TestRacePackets(t *testing.T) {
	v := raceView(1e-3)
	rowY := func(l List) (ys []float32) {
		for _, it := range l.Items {
			if it.Kind == FillRect && it.Color == Dark.Panel {
				ys = append(ys, it.Y+it.H/2)
			}
		}
		return ys
	}
	packets := func(l List, y float32) (xs []float32) {
		for _, it := range l.Items {
			if it.Kind == FillCircle && it.Y == y {
				xs = append(xs, it.X)
			}
		}
		return xs
	}
	l := AppendRace(List{}, v)
	ys := rowY(l)
	fast, slow := packets(l, ys[0]), packets(l, ys[1])
	if len(fast) <= len(slow) || len(slow) < 2 {
		t.Fatalf("%d packets on the fast lane, %d on the slow one", len(fast), len(slow))
	}
	v.Time += 1e-6
	l2 := AppendRace(List{}, v)
	f2, s2 := packets(l2, ys[0]), packets(l2, ys[1])
	if df, ds := f2[0]-fast[0], s2[0]-slow[0]; !(df > ds && ds > 0) {
		t.Errorf("packets moved %v (fast) and %v (slow) in 1 µs", df, ds)
	}
	// Done: no packets.
	if n := len(packets(AppendRace(List{}, raceView(-1)), ys[0])); n != 0 {
		t.Errorf("%d packets after the race", n)
	}
}

// Once both are done, the ratio of their times is shown.
func TestRaceRatio(t *testing.T) {
	v := raceView(-1)
	want := units.Ratio("en", v.Lanes[1].Seconds/v.Lanes[0].Seconds)
	if want != "9×" {
		t.Fatalf("fixture ratio %s", want)
	}
	count := func(l List) (n int) {
		for _, it := range l.Items {
			if it.Kind == Text && it.Text == want {
				n++
			}
		}
		return n
	}
	if n := count(AppendRace(List{}, v)); n != 1 {
		t.Errorf("%d %q labels at the end, want 1", n, want)
	}
	if n := count(AppendRace(List{}, raceView(10e-3))); n != 0 {
		t.Errorf("%d ratio labels mid-race, want 0", n)
	}
}

func TestRaceDegenerate(t *testing.T) {
	for _, v := range []RaceView{
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark},
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark, Lanes: []RaceLane{{Name: "x"}}},
		{Width: 800, Height: 500, Stage: Rect{0, 0, 10, 10}, Theme: Dark, Lanes: raceView(0).Lanes, Time: 1},
	} {
		_ = AppendRace(List{}, v)
	}
}

func TestRaceAllocs(t *testing.T) {
	v := raceView(1e-3)
	l := AppendRace(List{}, v)
	if n := testing.AllocsPerRun(20, func() { l = AppendRace(l, v) }); n > 20 {
		t.Errorf("%v allocations a frame, want at most 20 (labels)", n)
	}
}
