package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// routerView routes 4 experts' worth of copies from 2 GPUs: loads 30,
// 10, 20, 20 against a capacity of 24 an expert; expert 0 keeps 24 and
// drops 6.
func routerTestView(frac float64) RouterView {
	v := RouterView{
		Width: 800, Height: 600, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 600}, Scale: 1, Theme: draw.Dark, Words: testWords,
		Title: "router", ParamsLabel: "all", ActiveLabel: "a token's", ActiveShare: 0.25,
		Sources: []RouterSource{{Label: "GPU 0"}, {Label: "GPU 1"}},
		Copies: []RouterCopy{{Source: 0, Expert: 0, Count: 30, At: 1}, {Source: 1, Expert: 1, Count: 10, At: 1},
			{Source: 0, Expert: 2, Count: 20, At: 1}, {Source: 1, Expert: 3, Count: 20, At: 1}},
		Load: []int{30, 10, 20, 20}, Kept: []int{24, 10, 20, 20}, ExpertGPU: []int{0, 0, 1, 1},
		ExpertCapacity: 24, Mean: 20, Frac: frac,
	}
	v.Said = MakeRouterWords(v, testWords)
	return v
}

// barsOf are the widths of the rects in colour c, top to bottom.
func barsOf(l draw.List, c draw.Color) []float32 {
	var w []float32
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color.R == c.R && it.Color.G == c.G && it.Color.B == c.B && it.H < 100 && it.W != it.H { // not a legend swatch
			w = append(w, it.W)
		}
	}
	return w
}

// The bars are the copies on one scale: kept in the link colour, the
// dropped beyond the capacity line in the hot colour, growing with the
// dispatch; the active parameters a quarter of the parameters' bar.
func TestRouterBars(t *testing.T) {
	end := AppendRouter(draw.List{}, routerTestView(1))
	kept := barsOf(end, draw.Dark.LinkActive)
	if len(kept) != 4 {
		t.Fatalf("%d kept bars, want 4: %v", len(kept), kept)
	}
	for i, want := range []float32{24, 10, 20, 20} {
		if r := kept[i] / kept[1]; math.Abs(float64(r-want/10)) > 1e-3 {
			t.Errorf("bar %d is %.3f× bar 1, want %.1f", i, r, want/10)
		}
	}
	hot := barsOf(end, draw.Dark.Hot)
	if len(hot) != 1 || math.Abs(float64(hot[0]/kept[1]-0.6)) > 1e-3 {
		t.Errorf("dropped bars %v (kept %v), want one, 0.6× bar 1", hot, kept)
	}
	rim := barsOf(end, draw.Dark.Rim)
	if len(rim) != 1 || rim[0] <= 0 {
		t.Fatalf("active-parameters bars %v", rim)
	}
	mid := AppendRouter(draw.List{}, routerTestView(0.5))
	if half := barsOf(mid, draw.Dark.LinkActive); len(half) != 4 || math.Abs(float64(half[1]/kept[1]-0.5)) > 1e-3 {
		t.Errorf("half way, bars %v against %v at the end", half, kept)
	}
	v := routerTestView(1)
	v.Pending = true
	if rim := barsOf(AppendRouter(draw.List{}, v), draw.Dark.Rim); len(rim) != 0 {
		t.Error("the active parameters are drawn before the reader answers")
	}
	golden.Check(t, "router.golden", end.String())
}

// One token's copies go out as it is routed: a token's lines appear when
// its turn comes and not before.
func TestRouterTokens(t *testing.T) {
	v := routerTestView(0)
	v.Tokens = true
	v.Sources = []RouterSource{{Group: 0}, {Group: 0}, {Group: 1}, {Group: 1}}
	v.Copies = nil
	for tok := range 4 {
		v.Copies = append(v.Copies, RouterCopy{Source: tok, Expert: tok, Count: 1, At: float64(tok+1) / 4})
	}
	v.Load, v.Kept, v.ExpertCapacity, v.Mean = []int{1, 1, 1, 1}, []int{1, 1, 1, 1}, 0, 1
	lines := func(frac float64) int {
		v.Frac = frac
		n := 0
		for _, it := range AppendRouter(draw.List{}, v).Items {
			if it.Kind == draw.Line && it.Color.R == draw.Dark.LinkActive.R && it.Color.A == 150 {
				n++
			}
		}
		return n
	}
	if a, b, c := lines(0), lines(0.5), lines(1); a != 0 || b != 4 || c != 8 {
		t.Errorf("arrived lines at 0, ½, 1: %d, %d, %d; want 0, 4, 8 (two segments a token)", a, b, c)
	}
}

// The placement draws a line from GPU 0 to every GPU it sends to, in
// NVLink's colour inside its node and InfiniBand's across, and the race
// below.
func TestPlacementLines(t *testing.T) {
	v := PlacementView{Width: 900, Height: 700, Stage: draw.Rect{X: 0, Y: 0, W: 900, H: 700}, Scale: 1, Theme: draw.Dark, Words: testWords, Title: "placement",
		GPUs: 16, GPUsPerNode: 8, Load: make([]float64, 32), Bytes: make([]float64, 16), RaceTitle: "race", Time: 1e-4,
		NodeNames: []string{"node 0", "node 1"}, KeyLoad: "load",
		Lanes: [2]RaceLane{{Name: "NVLink", Rated: true, Bandwidth: 450e9, Latency: 1e-6, Seconds: 2e-4}, {Name: "IB", Rated: true, Bandwidth: 50e9, Latency: 5e-6, Seconds: 1e-3}}}
	for g := 1; g < 16; g++ {
		v.Bytes[g] = 1e6
	}
	var scratch draw.List
	l := AppendPlacement(draw.List{}, v, &scratch)
	in, out := 0, 0
	for _, it := range l.Items {
		if it.Kind != draw.Line || it.Color.A != 110 {
			continue
		}
		switch {
		case it.Color.R == draw.Palette[0].R && it.Color.G == draw.Palette[0].G:
			in++
		case it.Color.R == draw.Palette[1].R && it.Color.G == draw.Palette[1].G:
			out++
		}
	}
	if in != 7 || out != 8 {
		t.Errorf("%d lines inside the node, %d across; want 7 and 8", in, out)
	}
	if len(barsOf(l, draw.Palette[1])) == 0 {
		t.Error("no InfiniBand lane in the race")
	}
	golden.Check(t, "placement.golden", l.String())
}

// A model with shared experts shows them once on every GPU, in the
// colour of what every token uses, after its routed experts, and says so
// in the legend; without them no such cell is drawn.
func TestPlacementSharedExpert(t *testing.T) {
	v := PlacementView{Width: 900, Height: 700, Stage: draw.Rect{X: 0, Y: 0, W: 900, H: 700}, Scale: 1, Theme: draw.Dark, Words: testWords, Title: "placement",
		GPUs: 16, GPUsPerNode: 8, Load: make([]float64, 64), Bytes: make([]float64, 16), RaceTitle: "race",
		NodeNames: []string{"node 0", "node 1"}, KeyLoad: "load", KeyShared: "shared",
		Lanes: [2]RaceLane{{Name: "NVLink", Rated: true, Bandwidth: 450e9, Latency: 1e-6, Seconds: 2e-4}, {Name: "IB", Rated: true, Bandwidth: 50e9, Latency: 5e-6, Seconds: 1e-3}}}
	for _, shared := range []bool{false, true} {
		v.Shared = shared
		l := AppendPlacement(draw.List{}, v, nil)
		cells, routed := 0, 0
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == draw.Dark.Rim {
				cells++
			}
			if it.Kind == draw.FillRect && it.Color.R == draw.Dark.LinkActive.R && it.Color.G == draw.Dark.LinkActive.G && it.Color.B == draw.Dark.LinkActive.B && it.Color.A < 255 {
				routed++
			}
		}
		keyed := false
		for _, k := range l.Keys {
			keyed = keyed || k.Label == "shared"
		}
		want := 0
		if shared {
			want = 17 // a cell on each of the 16 GPUs, and the legend's swatch
		}
		if cells != want || keyed != shared || routed != 64 {
			t.Errorf("shared %v: %d shared cells (want %d), keyed %v, %d routed cells (want 64)", shared, cells, want, keyed, routed)
		}
	}
}
