package render

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// faultsView is a job of the given days with failures spread over it
// (deterministic jitter), a checkpoint every ivl seconds of running and
// a restart of 20 minutes after each failure; the sweep is Young/Daly's
// first-order goodput for a 2-minute checkpoint and the failures' mean
// time between them.
func faultsView(days float64, failures int, ivl float64) FaultsView {
	span := days * 86400
	const restart, cost = 1200.0, 120.0
	v := FaultsView{
		Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Scale: 1, Theme: Dark,
		Days: days, Chosen: ivl, Time: -1,
	}
	v.Progress = append(v.Progress, ProgressPoint{0, 0})
	start, kept0, saved := 0.0, 0.0, 0.0 // the running stretch began at start with kept0
	next := ivl
	kept := func(t float64) float64 { return kept0 + (t - start) }
	for i := 0; i < failures; i++ {
		f := span * (float64(i) + 0.5 + 0.4*math.Sin(float64(i)*12.9898)) / float64(failures)
		if f < start {
			continue
		}
		for ; next < f; next += ivl {
			v.Events = append(v.Events, FaultEvent{At: next, Kind: FaultCheckpoint})
			saved = kept(next)
		}
		v.Events = append(v.Events, FaultEvent{At: f, Kind: FaultFailure})
		v.Progress = append(v.Progress, ProgressPoint{f, kept(f)}, ProgressPoint{f, saved}, ProgressPoint{f + restart, saved})
		start, kept0 = f+restart, saved
		next = start + ivl
	}
	for ; next < span; next += ivl {
		v.Events = append(v.Events, FaultEvent{At: next, Kind: FaultCheckpoint})
	}
	v.Progress = append(v.Progress, ProgressPoint{span, kept(span)})
	mtbf := span / float64(max(failures, 1))
	v.Optimum = math.Sqrt(2 * cost * mtbf)
	for e := 1.5; e <= 4.6; e += 0.1 {
		tau := math.Pow(10, e)
		v.Sweep = append(v.Sweep, GoodputPoint{tau, math.Max(0, 1-cost/tau-(tau/2+restart)/mtbf)})
	}
	return v
}

func TestFaultsGolden(t *testing.T) {
	v := faultsView(3, 8, 1800)
	v.Time = 2 * 86400
	golden.Check(t, "faults.golden", AppendFaults(List{}, v).String())
}

// failureTicks counts the Hot ticks.
func failureTicks(l List) int {
	n := 0
	for _, it := range l.Items {
		if it.Kind == Line && it.Color == Dark.Hot {
			n++
		}
	}
	return n
}

// As many red ticks as failures before the playhead.
func TestFaultsFailuresBeforeTime(t *testing.T) {
	v := faultsView(10, 40, 3600)
	for _, at := range []float64{0, 1e5, 4.3e5, 8.64e5, -1} {
		v.Time = at
		want := 0
		for _, e := range v.Events {
			if e.Kind == FaultFailure && (at < 0 || e.At < at) {
				want++
			}
		}
		if got := failureTicks(AppendFaults(List{}, v)); got != want {
			t.Errorf("time %v: %d failure ticks, want %d", at, got, want)
		}
	}
}

// The sawtooth stays under the no-failure diagonal, and with a playhead
// ends at it.
func TestFaultsSawtoothUnderDiagonal(t *testing.T) {
	v := faultsView(10, 40, 3600)
	// Bad data: more kept than wall time, just before the end.
	end := v.Progress[len(v.Progress)-1]
	v.Progress = append(v.Progress[:len(v.Progress)-1:len(v.Progress)-1], ProgressPoint{9.9 * 86400, 11 * 86400}, end)
	for _, at := range []float64{-1, 3.3e5} {
		v.Time = at
		l := AppendFaults(List{}, v)
		var diag Item
		var saw []Item
		for _, it := range l.Items {
			switch {
			case it.Kind == Line && it.Color == Dark.Link:
				diag = it
			case it.Kind == Line && it.Color == Dark.LinkActive && it.Y < 300 && it.Y2 < 300: // the top 60%
				saw = append(saw, it)
			}
		}
		if diag.Kind != Line || len(saw) < 40 {
			t.Fatalf("time %v: diagonal %v, %d sawtooth segments", at, diag, len(saw))
		}
		under := func(x, y float32) bool {
			dy := diag.Y + (diag.Y2-diag.Y)*(x-diag.X)/(diag.X2-diag.X)
			return y >= dy-0.01
		}
		for _, s := range saw {
			if !under(s.X, s.Y) || !under(s.X2, s.Y2) {
				t.Errorf("time %v: segment %v above the diagonal", at, s)
			}
		}
		if at >= 0 {
			px := diag.X + (diag.X2-diag.X)*float32(at/(v.Days*86400))
			if end := saw[len(saw)-1].X2; math.Abs(float64(end-px)) > 0.01 {
				t.Errorf("time %v: sawtooth ends at x %v, playhead at %v", at, end, px)
			}
		}
	}
}

// The markers: the job's interval and the optimum where a log axis puts
// them (on the "10 min" and "1 h" ticks), the job's goodput read off the
// curve between samples.
func TestFaultsMarkers(t *testing.T) {
	v := faultsView(3, 8, 600)
	v.Optimum = 3600
	v.Sweep = []GoodputPoint{{60, 0.2}, {300, 0.6}, {1200, 0.8}, {7200, 0.9}, {36000, 0.5}}
	l := AppendFaults(List{}, v)
	tick := map[string]float32{}
	var chosen, optimal Item
	var y0, y100 float32
	for _, it := range l.Items {
		switch {
		case it.Kind == Text:
			tick[it.Text] = it.X
			switch it.Text {
			case "0%":
				y0 = it.Y
			case "100%":
				y100 = it.Y
			}
		case it.Kind == FillCircle && it.R == 5 && it.Color == Dark.Text:
			chosen = it
		case it.Kind == FillCircle && it.R == 5 && it.Color == Dark.Rim:
			optimal = it
		}
	}
	for _, k := range []string{"1 min", "10 min", "1 h", "10 h", "optimal"} {
		if _, ok := tick[k]; !ok {
			t.Fatalf("no %q label", k)
		}
	}
	if chosen.Kind != FillCircle || math.Abs(float64(chosen.X-tick["10 min"])) > 0.01 {
		t.Errorf("chosen marker at x %v, the 10 min tick at %v", chosen.X, tick["10 min"])
	}
	if optimal.Kind != FillCircle || math.Abs(float64(optimal.X-tick["1 h"])) > 0.01 || tick["optimal"] != optimal.X {
		t.Errorf("optimal marker at x %v (label at %v), the 1 h tick at %v", optimal.X, tick["optimal"], tick["1 h"])
	}
	// Log scale: 10 min is as far from 1 min as 10 h from 1 h.
	if d1, d2 := tick["10 min"]-tick["1 min"], tick["10 h"]-tick["1 h"]; math.Abs(float64(d1-d2)) > 0.01 {
		t.Errorf("decades %v and %v px wide", d1, d2)
	}
	// 600 s lies between 300 (0.6) and 1200 (0.8), halfway on the log axis.
	want := 0.7
	off := float32(12.5 * 0.5) // the labels sit half a line above their gridlines
	got := float64((y0 + off - chosen.Y) / (y0 - y100))
	if math.Abs(got-want) > 1e-3 {
		t.Errorf("chosen goodput on screen %v, want %v", got, want)
	}
	if g, _ := fltGoodputAt(v.Sweep, 600); math.Abs(g-want) > 1e-9 {
		t.Errorf("goodput at 600 s: %v, want %v", g, want)
	}
	if g, _ := fltGoodputAt(v.Sweep, 10); g != 0.2 {
		t.Errorf("goodput left of the sweep: %v, want the first point's", g)
	}
}

// checkpointTicks counts the checkpoint ticks (the dim, translucent ones).
func checkpointTicks(l List) int {
	ck := Dark.Dim
	ck.A = 150
	n := 0
	for _, it := range l.Items {
		if it.Kind == Line && it.Color == ck {
			n++
		}
	}
	return n
}

// Up to fltThin checkpoints each get a tick; more are thinned to one a
// pixel column.
func TestFaultsThinning(t *testing.T) {
	few := faultsView(3, 4, 3*86400/200.0)
	nf := 0
	for _, e := range few.Events {
		if e.Kind == FaultCheckpoint {
			nf++
		}
	}
	if nf > fltThin {
		t.Fatalf("fixture: %d checkpoints", nf)
	}
	if got := checkpointTicks(AppendFaults(List{}, few)); got != nf {
		t.Errorf("%d checkpoints, %d ticks", nf, got)
	}
	many := faultsView(30, 500, 30*86400/10000.0)
	got := checkpointTicks(AppendFaults(List{}, many))
	plotW := 800 - 12.5*5.5 // the top plot's width in pixels
	if got > int(plotW)+1 || got < 300 {
		t.Errorf("%d ticks for 10 000 checkpoints over %v px", got, plotW)
	}
	// One a column.
	cols := map[int]bool{}
	ck := Dark.Dim
	ck.A = 150
	for _, it := range AppendFaults(List{}, many).Items {
		if it.Kind == Line && it.Color == ck {
			c := int(it.X - 12.5*4)
			if cols[c] {
				t.Fatalf("two ticks in column %d", c)
			}
			cols[c] = true
		}
	}
}

func TestFaultsDegenerate(t *testing.T) {
	for _, v := range []FaultsView{
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark},
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark, Time: 5, Progress: []ProgressPoint{{10, 5}}},
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark, Days: 1, Chosen: 600, Optimum: 600, Sweep: []GoodputPoint{{600, 0.9}}},
		{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Theme: Dark, Days: math.Inf(1), Chosen: -1, Sweep: []GoodputPoint{{0, 1}, {math.NaN(), 2}}},
		{Width: 40, Height: 40, Stage: Rect{0, 0, 40, 40}, Theme: Dark, Days: 1},
	} {
		_ = AppendFaults(List{}, v)
	}
}

// Allocations are the labels', not the events'.
func TestFaultsAllocs(t *testing.T) {
	v := faultsView(30, 500, 30*86400/10000.0)
	v.Time = 20 * 86400
	l := AppendFaults(List{}, v)
	n := testing.AllocsPerRun(10, func() { l = AppendFaults(l, v) })
	if n > 30 {
		t.Errorf("%v allocations a frame, want at most 30", n)
	}
}

// BenchmarkFaults draws 30 days with 500 failures and 10 000 checkpoints,
// the playhead moving.
func BenchmarkFaults(b *testing.B) {
	v := faultsView(30, 500, 30*86400/10000.0)
	var l List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = 30 * 86400 * float64(i%100) / 100
		l = AppendFaults(l, v)
	}
	b.ReportMetric(float64(len(l.Items)), "items")
}
