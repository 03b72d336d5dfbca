package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/internal/golden"
)

func result(t *testing.T, algo collective.Algo, n int) *collective.Result {
	t.Helper()
	l, _ := hw.LinkByID("nvlink4")
	res, err := collective.Run(collective.Config{Op: collective.AllReduce, Algo: algo, Ranks: n, Bytes: 1 << 20, Link: l, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func view(res *collective.Result, at sim.Time) CollectiveView {
	return CollectiveView{
		Width: 800, Height: 600, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 600}, Scale: 1, Theme: draw.Dark,
		Snapshot: res.Snapshot(at), Total: res.Time, Link: "NVLink 4",
	}
}

// The display lists of a few moments, as text: any change to what is drawn
// shows up as a diff in review. Regenerate with go test -update.
func TestCollectiveGolden(t *testing.T) {
	ring := result(t, collective.Ring, 4)
	star := result(t, collective.Star, 4)
	ag, _ := ring.Mark("phase:all-gather")
	tests := []struct {
		name string
		v    CollectiveView
	}{
		{"ring4_start", view(ring, 0)},
		{"ring4_mid_round1", view(ring, ring.RoundStart[0]+(ring.RoundStart[1]-ring.RoundStart[0])/2)},
		{"ring4_allgather", view(ring, ag)},
		{"ring4_end", view(ring, ring.Time)},
		{"star4_gather", view(star, star.Time/5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, tt.name+".golden", Collective(tt.v).String())
		})
	}
}

// The picture shows the state: at the start every chunk bar is one GPU
// tall (1/N of the box); at the end every bar is full.
func TestCollectiveBarsFollowTheSums(t *testing.T) {
	res := result(t, collective.Ring, 4)
	heights := func(at sim.Time) map[float32]int {
		l := Collective(view(res, at))
		hs := map[float32]int{}
		// A bar is the rect drawn right after its empty slot, same x and
		// width; its height over the slot's is the share summed in.
		for i := 1; i < len(l.Items); i++ {
			slot, bar := l.Items[i-1], l.Items[i]
			if slot.Kind == draw.FillRect && slot.Color == draw.Dark.Empty && bar.Kind == draw.FillRect && bar.X == slot.X && bar.W == slot.W {
				hs[float32(int(bar.H/slot.H*4+0.5))]++
			}
		}
		return hs
	}
	if got := heights(0); got[1] != 16 || len(got) != 1 {
		t.Errorf("at t=0 bar heights in quarters: %v, want 16 bars of 1/4", got)
	}
	if got := heights(res.Time); got[4] != 16 || len(got) != 1 {
		t.Errorf("at the end bar heights in quarters: %v, want 16 full bars", got)
	}
}

func TestCollectiveStarShowsTheQueue(t *testing.T) {
	star := result(t, collective.Star, 8)
	l := Collective(view(star, star.Time/5))
	found := false
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == "canvas.star.queued" && it.Color == draw.Dark.Hot {
			found = true
		}
	}
	if !found {
		t.Errorf("star during gather: no queue count drawn in the hot colour:\n%s", l)
	}
}

func TestCollectiveEmptyStage(t *testing.T) {
	res := result(t, collective.Ring, 4)
	v := view(res, 0)
	v.Stage = draw.Rect{}
	if l := Collective(v); len(l.Items) != 0 {
		t.Errorf("empty stage drew %d items", len(l.Items))
	}
}

// With a cache (the GPUs' places kept), frame after frame, ring and star,
// resized between frames, the picture is the one drawn without.
func TestCollectiveCache(t *testing.T) {
	c := new(CollectiveCache)
	var l draw.List
	for _, res := range []*collective.Result{result(t, collective.Ring, 8), result(t, collective.Star, 8), result(t, collective.Ring, 16)} {
		for _, f := range []float64{0, 0.3, 0.6, 0.3, 1} {
			for _, w := range []float32{800, 500, 800} {
				v := view(res, sim.Time(float64(res.Time)*f))
				v.Width, v.Stage.W = w, w
				want := AppendCollective(draw.List{}, v).String()
				v.Cache = c
				if l = AppendCollective(l, v); l.String() != want {
					t.Fatalf("%v ranks %d at %.1f, %g wide: the cached picture differs", res.Config.Algo, res.Config.Ranks, f, w)
				}
			}
		}
	}
}

// BenchmarkCollective64 builds the largest picture of the first lesson (64
// GPUs, mid-run) at 1280×800, as the page does every frame.
func BenchmarkCollective64(b *testing.B) {
	l, _ := hw.LinkByID("nvlink4")
	res, _ := collective.Run(collective.Config{Op: collective.AllReduce, Algo: collective.Ring, Ranks: 64, Bytes: 1 << 30, Link: l, Record: true})
	v := CollectiveView{Width: 1280, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 840, H: 800}, Scale: 1, Theme: draw.Dark, Total: res.Time, Link: "NVLink 4"}
	var list draw.List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Snapshot = res.Snapshot(res.Time * sim.Time(i%100) / 100)
		list = AppendCollective(list, v)
	}
	b.ReportMetric(float64(len(list.Items)), "items")
}

// The compare step's chart: the star's curve ends far above the ring's,
// both are drawn, and the picture stays golden.
func TestCollectiveTimeVsN(t *testing.T) {
	res := result(t, collective.Ring, 8)
	v := view(res, res.Time)
	for _, n := range []int{2, 4, 8, 16, 32, 64} {
		// Hand-made times of the right shape: ring flat, star ∝ N−1.
		v.TimeVsN = append(v.TimeVsN, TimeVsN{N: n, Ring: 1e-3 * (2 - 2/float64(n)), Star: 1e-3 * float64(n-1)})
	}
	l := Collective(v)
	golden.Check(t, "ring8_time_vs_n.golden", l.String())
	var ring, star []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.Color == draw.Dark.LinkActive {
			ring = append(ring, it)
		}
		if it.Kind == draw.FillCircle && it.Color == draw.Dark.Hot {
			star = append(star, it)
		}
	}
	if len(ring) != 6 || len(star) != 6 {
		t.Fatalf("%d ring points and %d star points, want 6 each", len(ring), len(star))
	}
	// Screen y grows downwards: the star's last point is the highest.
	if star[5].Y >= ring[5].Y || star[5].Y >= star[0].Y {
		t.Errorf("star ends at y=%v, ring at y=%v, star starts at y=%v: want the star far above both", star[5].Y, ring[5].Y, star[0].Y)
	}
	for i := 1; i < 6; i++ {
		if ring[i].X <= ring[i-1].X {
			t.Errorf("ring points not left to right: %v then %v", ring[i-1].X, ring[i].X)
		}
	}
}

// Grown to several nodes: the ring's hops between nodes are drawn thin and
// hot, and the legend names their link; the others as before.
func TestCollectiveAcrossNodes(t *testing.T) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	res, err := collective.Run(collective.Config{Op: collective.AllReduce, Algo: collective.Ring, Ranks: 16, Bytes: 1 << 20, Link: nv, Nodes: 4, Inter: ib, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	l := AppendCollective(draw.List{}, CollectiveView{Width: 800, Height: 600, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 600}, Scale: 1, Theme: draw.Dark,
		Snapshot: res.Snapshot(0), Total: res.Time, Link: "NVLink 4", Nodes: 4, InterLink: ib.Name})
	hot := 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color.R == draw.Dark.Hot.R && it.Color.G == draw.Dark.Hot.G && it.Color.B == draw.Dark.Hot.B {
			hot++
		}
	}
	if hot != 4 {
		t.Errorf("%d hot hops, want one per hop between the 4 nodes", hot)
	}
	keyed := false
	for _, k := range l.Keys {
		keyed = keyed || (k.Color == draw.Dark.Hot && k.Label == "canvas.ring.key_inter")
	}
	if !keyed {
		t.Errorf("the hops between nodes are not keyed: %+v", l.Keys)
	}
}
