package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// faultsView is a real job from engine/faults: gpus GPUs at Llama 3's
// per-GPU MTBF for days, a checkpoint every ivl seconds (30 s to write),
// restarts of 5 minutes, with a sweep of intervals from the same engine.
func faultsView(t testing.TB, days float64, gpus int, ivl float64) (FaultsView, faults.Result) {
	t.Helper()
	c := faults.Config{GPUs: gpus, MTBFGPUHours: 50680, CheckpointEvery: ivl, CheckpointCost: 30, RestartCost: 300, Days: days, Seed: 1, Record: true}
	r, err := faults.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Metrics()
	v := FaultsView{
		Width: 800, Height: 700, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 700}, Scale: 1, Theme: draw.Dark, Title: "title",
		Days: days, Chosen: ivl, ChosenGoodput: m.Goodput, Optimum: m.OptimalIntervalS, MTBF: m.ClusterMTBFS, Time: -1,
	}
	for _, p := range r.Trace {
		v.Progress = append(v.Progress, ProgressPoint{Wall: p.Wall, Kept: p.Progress, Saved: p.Saved, Lost: p.Lost, Restart: p.Restart, Ckpt: p.Checkpoint})
	}
	for _, f := range r.FailureTimes {
		v.Events = append(v.Events, FaultEvent{At: f, Kind: FaultFailure})
	}
	for _, ct := range r.CheckpointTimes {
		v.Events = append(v.Events, FaultEvent{At: ct, Kind: FaultCheckpoint})
	}
	for e := 0.0; e <= 1.0001; e += 1.0 / 12 {
		sc := c
		sc.CheckpointEvery, sc.Record = 60*math.Pow(1440, e), false
		sr, _ := faults.Run(sc)
		v.Sweep = append(v.Sweep, GoodputPoint{sc.CheckpointEvery, sr.Goodput()})
	}
	return v, r
}

func TestFaultsGolden(t *testing.T) {
	v, _ := faultsView(t, 3, 16384, 600)
	v.Time = 2 * 86400
	golden.Check(t, "faults.golden", AppendFaults(draw.List{}, v).String())
}

// The whole job's strip: a strike for every failure before the playhead
// (none while the question of how many waits).
func TestFaultsStrikesBeforeTime(t *testing.T) {
	v, _ := faultsView(t, 3, 16384, 600)
	strip := func(l draw.List) (n int) {
		// The strikes over the bar are the Hot lines 1.5 px wide.
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.Color == draw.Dark.Hot && it.Width == 1.5 {
				n++
			}
		}
		return n
	}
	for _, at := range []float64{0, 1e5, 2.2e5, -1} {
		v.Time = at
		want := 0
		for _, e := range v.Events {
			if e.Kind == FaultFailure && (at < 0 || e.At < at) {
				want++
			}
		}
		if got := strip(AppendFaults(draw.List{}, v)); got != want {
			t.Errorf("time %v: %d strikes, want %d", at, got, want)
		}
	}
	v.Time, v.Pending = -1, true
	l := AppendFaults(draw.List{}, v)
	if got := strip(l); got != 0 {
		t.Errorf("pending: %d strikes", got)
	}
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == "canvas.faults.headline" {
			t.Errorf("pending: the failures counted in the headline")
		}
	}
}

// The finished bar: the wall time stacked by what it became, each part
// as wide as its share of the job (PICTURES.md rule 3: one scale).
func TestFaultsBarIsTheWallTime(t *testing.T) {
	v, r := faultsView(t, 3, 16384, 600)
	l := AppendFaults(draw.List{}, v)
	// The bar's panel is the first Panel rect the width of the plot.
	var bar draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Panel && it.W > 700 {
			bar = it
			break
		}
	}
	if bar.W == 0 {
		t.Fatal("no bar")
	}
	span := 3 * 86400.0
	for _, part := range []struct {
		c    draw.Color
		want float64
	}{{draw.Dark.LinkActive, r.Useful}, {draw.Dark.Hot, r.LostWork}, {draw.Dark.Rim, r.CheckpointTime}} {
		var got float32
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == part.c && it.Y == bar.Y && it.H == bar.H {
				got += it.W
			}
		}
		want := bar.W * float32(part.want/span)
		if math.Abs(float64(got-want)) > 0.5 {
			t.Errorf("colour %s: %v px, want %v (%g s of %g)", part.c.Hex(), got, want, part.want, span)
		}
	}
}

// The magnified window: a save (a dot in the checkpoint colour) for
// every checkpoint in it, a red tooth for every failure that lost work
// there, every colour keyed.
func TestFaultsSawtooth(t *testing.T) {
	v, r := faultsView(t, 3, 16384, 600)
	l := AppendFaults(draw.List{}, v)
	zw := faultZoom(3*86400, 600, v.MTBF, v.Events, 72)
	if zw[1]-zw[0] < 3600 {
		t.Fatalf("window %v", zw)
	}
	saves, want := 0, 0
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.Color == draw.Dark.Rim && it.R == 2 {
			saves++
		}
	}
	for _, ct := range r.CheckpointTimes {
		if ct > zw[0] && ct <= zw[1] {
			want++
		}
	}
	if saves != want || want < 20 {
		t.Errorf("%d saves drawn, %d checkpoints in the window %v", saves, want, zw)
	}
	lost, failures := 0, 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Hot && it.Width == 2 && it.Y2 < it.Y {
			lost++ // a rising tooth in red
		}
	}
	for i := 1; i < len(r.Trace); i++ {
		if p, q := r.Trace[i-1], r.Trace[i]; q.Wall == p.Wall && q.Lost > p.Lost && p.Wall > zw[0] && p.Wall <= zw[1] {
			failures++
		}
	}
	if lost != failures || failures == 0 {
		t.Errorf("%d red teeth, %d failures losing work in the window", lost, failures)
	}
	keyed := map[[3]uint8]bool{}
	for _, k := range l.Keys {
		keyed[[3]uint8{k.Color.R, k.Color.G, k.Color.B}] = true
	}
	for _, c := range []draw.Color{draw.Dark.LinkActive, draw.Dark.Hot, draw.Dark.Rim} {
		if !keyed[[3]uint8{c.R, c.G, c.B}] {
			t.Errorf("colour %s drawn without a key", c.Hex())
		}
	}
}

// The job's interval is marked with the job's own goodput (the numbers'
// figure), not one read off the sweep; the goodput view drops the
// window for the chart and says both ways to lose.
func TestFaultsGoodput(t *testing.T) {
	v, _ := faultsView(t, 3, 16384, 600)
	v.ChosenGoodput = 0.5 // far from the curve
	var dot draw.Item
	for _, it := range AppendFaults(draw.List{}, v).Items {
		if it.Kind == draw.FillCircle && it.Color == draw.Dark.Text {
			dot = it
		}
	}
	// The goodput plot's 0% and 100% lines bound the dot halfway.
	var ys []float32
	l := AppendFaults(draw.List{}, v)
	for _, it := range l.Items {
		if it.Kind == draw.Text && (it.Text == "0%" || it.Text == "100%") {
			ys = append(ys, it.Y+it.Size*0.6)
		}
	}
	if len(ys) != 2 || math.Abs(float64(dot.Y-(ys[0]+ys[1])/2)) > 1 {
		t.Errorf("the job's dot at y=%v, the axis at %v", dot.Y, ys)
	}
	v.GoodputMain = true
	texts := map[string]bool{}
	for _, it := range AppendFaults(draw.List{}, v).Items {
		if it.Kind == draw.Text {
			texts[it.Text] = true
		}
	}
	if texts["canvas.faults.zoom"] || !texts["canvas.faults.too_often"] || !texts["canvas.faults.too_rare"] {
		t.Errorf("the goodput view shows %v", texts)
	}
}

func TestFaultsDegenerate(t *testing.T) {
	for _, v := range []FaultsView{
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark},
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark, Time: 5, Progress: []ProgressPoint{{Wall: 10, Kept: 5}}},
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark, Days: 1, Chosen: 600, Optimum: 600, MTBF: 100, Sweep: []GoodputPoint{{600, 0.9}}},
		{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Theme: draw.Dark, Days: math.Inf(1), Chosen: -1, Sweep: []GoodputPoint{{0, 1}, {math.NaN(), 2}}},
		{Width: 40, Height: 40, Stage: draw.Rect{X: 0, Y: 0, W: 40, H: 40}, Theme: draw.Dark, Days: 1},
	} {
		_ = AppendFaults(draw.List{}, v)
	}
}

// Allocations are the labels', not the events'.
func TestFaultsAllocs(t *testing.T) {
	v, _ := faultsView(t, 30, 16384, 120)
	v.Time = 20 * 86400
	l := AppendFaults(draw.List{}, v)
	n := testing.AllocsPerRun(10, func() { l = AppendFaults(l, v) })
	if n > 30 {
		t.Errorf("%v allocations a frame, want at most 30", n)
	}
}

// With a cache the picture is the one drawn without, frame after frame,
// the playhead moving, at the thinned density of a large job too (one
// strike a pixel column: the column's earliest failure, struck once it
// has happened); other events, or another size, derive it again.
func TestFaultsCache(t *testing.T) {
	dense, _ := faultsView(t, 30, 65536, 600) // ≈ 1,000 failures: thinned
	sparse, _ := faultsView(t, 3, 16384, 600)
	c := new(FaultsCache)
	var l draw.List
	for _, v := range []FaultsView{dense, sparse, dense} {
		days := v.Days
		for _, frac := range []float64{0, 0.001, 0.2, 0.5, 0.93, 1, -1} {
			v.Time = frac * days * 86400
			if frac < 0 {
				v.Time = -1
			}
			want := AppendFaults(draw.List{}, v).String()
			w := v
			w.Cache = c
			if l = AppendFaults(l, w); l.String() != want {
				t.Fatalf("%g days at %g: the cached picture differs from one drawn afresh", days, v.Time)
			}
		}
		v.Width, v.Stage.W = 600, 600
		want := AppendFaults(draw.List{}, v).String()
		v.Cache = c
		if l = AppendFaults(l, v); l.String() != want {
			t.Errorf("%g days, narrower: the cached picture differs from one drawn afresh", days)
		}
	}
	if n := len(c.fails); n <= fltThin {
		t.Fatalf("the dense job has %d failures: not thinned", n)
	}
}

// BenchmarkFaults draws 30 days of 16,384 GPUs checkpointing every two
// minutes (21,000 checkpoints, 230 failures), the playhead moving, with a
// cache as the page's picture keeps one.
func BenchmarkFaults(b *testing.B) {
	v, _ := faultsView(b, 30, 16384, 120)
	v.Cache = new(FaultsCache)
	var l draw.List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = 30 * 86400 * float64(i%100) / 100
		l = AppendFaults(l, v)
	}
	b.ReportMetric(float64(len(l.Items)), "items")
}
