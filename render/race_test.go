package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// testWords writes a key and its arguments, so that a test sees both.
var testWords = draw.Words{Lang: "en", T: func(key string, args ...string) string { return key + " " + strings.Join(args, " ") }}

// raceView races 1 GB over NVLink 4 (450 GB/s, 1 µs) and InfiniBand NDR
// (50 GB/s, 5 µs): about 2.2 ms against 20 ms.
func raceView(t float64) RaceView {
	lane := func(name string, bw, lat float64) RaceLane {
		return RaceLane{Name: name, Rated: true, Bandwidth: bw, Latency: lat, Seconds: lat + 1e9/bw}
	}
	return RaceView{
		Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: testWords,
		Title: "1 GB",
		Lanes: []RaceLane{
			lane("NVLink 4", 450e9, 1e-6),
			lane("IB NDR", 50e9, 5e-6),
		},
		Time: t,
	}
}

// raceBars is the width of each lane's bar (a rect in the lane's colour,
// at any alpha), 0 where there is none.
func raceBars(l draw.List, n int) []float32 {
	w := make([]float32, n)
	for _, it := range l.Items {
		for i := range n {
			c := draw.Palette[i]
			if it.Kind == draw.FillRect && it.Color.R == c.R && it.Color.G == c.G && it.Color.B == c.B {
				w[i] = it.W
			}
		}
	}
	return w
}

func labels(l draw.List) []string {
	var out []string
	for _, it := range l.Items {
		if it.Kind == draw.Text {
			out = append(out, it.Text)
		}
	}
	return out
}

func TestRaceGolden(t *testing.T) {
	v := raceView(0)
	v.Time = v.Lanes[1].Seconds / 3
	golden.Check(t, "race_mid.golden", AppendRace(draw.List{}, v).String())
	golden.Check(t, "race_done.golden", AppendRace(draw.List{}, raceView(-1)).String())
}

// Finished, the bars are as long as the transfers took, on one axis: the
// slow lane's 9× the fast lane's (PICTURES.md rule 3).
func TestRaceBarsOnOneAxis(t *testing.T) {
	v := raceView(-1)
	w := raceBars(AppendRace(draw.List{}, v), 2)
	want := v.Lanes[1].Seconds / v.Lanes[0].Seconds
	if w[0] <= 0 || math.Abs(float64(w[1]/w[0])/want-1) > 0.01 {
		t.Errorf("finished bars %v: ratio %.3f, want the times' %.3f", w, w[1]/w[0], want)
	}
	// Mid-race, after the fast lane is done: its bar stopped at its time,
	// the slow one's at the clock.
	v.Time = 3 * v.Lanes[0].Seconds
	w2 := raceBars(AppendRace(draw.List{}, v), 2)
	if math.Abs(float64(w2[0]-w[0])) > 0.01 || math.Abs(float64(w2[1]/w2[0])-3) > 0.01 {
		t.Errorf("bars at 3× the fast time: %v, want the fast one's final %v and 3× it", w2, w[0])
	}
}

// The meters say what has arrived: nothing before a lane's latency; all of
// it once done; a fast lane done while the slow one is a ninth of the way.
func TestRaceMeters(t *testing.T) {
	meters := func(v RaceView) []string {
		var out []string
		for _, it := range AppendRace(draw.List{}, v).Items {
			if it.Kind == draw.Text && strings.HasSuffix(it.Text, "%") {
				out = append(out, it.Text)
			}
		}
		return out
	}
	v := raceView(0.5e-6)
	if got := meters(v); len(got) != 2 || got[0] != "0%" || got[1] != "0%" {
		t.Errorf("meters at 0.5 µs: %v, want 0%% and 0%%", got)
	}
	slow := v.Lanes[1]
	v.Time = slow.Latency + (slow.Seconds-slow.Latency)/9
	if got, want := meters(v), units.Percent(math.Floor(1000.0/9)/1000); len(got) != 2 || got[0] != "100%" || got[1] != want {
		t.Errorf("meters when the slow lane has a ninth: %v, want 100%% and %s", got, want)
	}
}

// The faster lane's packets are denser; they move with the clock; none
// once a lane is done.
func TestRacePackets(t *testing.T) {
	v := raceView(2e-3)
	count := func(l draw.List) (n int) {
		for _, it := range l.Items {
			if it.Kind == draw.FillCircle {
				n++
			}
		}
		return n
	}
	l := AppendRace(draw.List{}, v)
	if n := count(l); n < 3 {
		t.Fatalf("%d packets at 2 ms", n)
	}
	x := func(l draw.List) float32 {
		for _, it := range l.Items {
			if it.Kind == draw.FillCircle {
				return it.X
			}
		}
		return -1
	}
	v.Time += 5e-6
	if x(AppendRace(draw.List{}, v)) == x(l) {
		t.Error("packets did not move in 5 µs")
	}
	if n := count(AppendRace(draw.List{}, raceView(-1))); n != 0 {
		t.Errorf("%d packets after the race", n)
	}
}

// Once the fast lane is done the slow one is said to take N× as long, in
// the reader's language; each lane's colour is keyed.
func TestRaceRatioAndKeys(t *testing.T) {
	want := "canvas.race.ratio slow IB NDR ratio " + units.Ratio("en", raceView(0).Lanes[1].Seconds/raceView(0).Lanes[0].Seconds) + " fast NVLink 4"
	has := func(v RaceView) bool {
		for _, s := range labels(AppendRace(draw.List{}, v)) {
			if s == want {
				return true
			}
		}
		return false
	}
	if !has(raceView(-1)) || !has(raceView(3e-3)) {
		t.Errorf("no %q once NVLink is done", want)
	}
	if has(raceView(1e-3)) {
		t.Errorf("%q before NVLink is done", want)
	}
	l := AppendRace(draw.List{}, raceView(-1))
	if len(l.Keys) != 2 || l.Keys[0].Label != "NVLink 4" || l.Keys[1].Color != draw.Palette[1] {
		t.Errorf("keys %+v, want one per lane", l.Keys)
	}
}

func TestRaceDegenerate(t *testing.T) {
	for _, v := range []RaceView{
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark},
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark, Lanes: []RaceLane{{Name: "x"}}},
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 10, H: 10}, Theme: draw.Dark, Lanes: raceView(0).Lanes, Time: 1},
	} {
		_ = AppendRace(draw.List{}, v)
	}
}

func TestRaceAllocs(t *testing.T) {
	v := raceView(1e-3)
	l := AppendRace(draw.List{}, v)
	if n := testing.AllocsPerRun(20, func() { l = AppendRace(l, v) }); n > 24 {
		t.Errorf("%v allocations a frame, want at most 24 (labels)", n)
	}
}
