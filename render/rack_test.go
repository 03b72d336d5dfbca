package render

import "github.com/gpuscope/gpuscope/render/draw"
import "testing"

// rackTestView is 72 GPUs as one domain (done at 3 ms) and as nine nodes
// of 8 (done at 10 ms), both carrying NVLink bytes, the nodes NIC bytes.
func rackTestView(t float64) RackView {
	return RackView{Width: 1280, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: testWords,
		Title: "all-reduce", GPUs: 72, Time: t, Keys: [4]string{"NVLink", "IB", "switch", "arrived"}, IBSwitch: "IB",
		Panels: [2]RackPanel{
			{Name: "rack", Links: "NVLink 5", Domain: 72, NVLink: true, Lane: RaceLane{Name: "rack", Seconds: 3e-3, Latency: 1e-6}},
			{Name: "nodes", Links: "NVLink 4, IB", Domain: 8, NVLink: true, NIC: true, Lane: RaceLane{Name: "nodes", Seconds: 10e-3, Latency: 5e-6}},
		}}
}

// rackFills are the GPUs' arrived-bytes rects, by panel (left or right
// of the stage's middle); the lowest, the legend's swatch, left out.
func rackFills(l draw.List) (left, right int) {
	var fills []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == rackFill {
			fills = append(fills, it)
		}
	}
	low := 0
	for i, it := range fills {
		if it.Y > fills[low].Y {
			low = i
		}
	}
	for i, it := range fills {
		switch {
		case i == low:
		case it.X < 845/2:
			left++
		default:
			right++
		}
	}
	return left, right
}

// Each GPU fills as its system's bytes arrive: at 5 ms the rack is full
// and still, the nodes half full with packets moving; the nodes have a
// frame a node (nine) and the rack one; at the end nothing moves.
func TestRackMotion(t *testing.T) {
	var scratch draw.List
	l := AppendRack(draw.List{}, rackTestView(5e-3), &scratch)
	if a, b := rackFills(l); a != 72 || b != 72 {
		t.Errorf("fills at 5 ms: %d left, %d right; want 72 each", a, b)
	}
	frames, packets := 0, [2]int{}
	for _, it := range l.Items {
		if it.Kind == draw.StrokeRect && it.Color.R == rackNVLink.R && it.Color.B == rackNVLink.B && it.W > 100 {
			frames++
		}
		if it.Kind == draw.FillCircle && it.Y < 430 {
			packets[min(int(it.X/(845/2)), 1)]++
		}
	}
	if frames != 10 {
		t.Errorf("%d domain frames, want 1 + 9", frames)
	}
	if packets[0] != 0 || packets[1] == 0 {
		t.Errorf("packets at 5 ms: %v (rack, nodes); want none in the finished rack, some on the nodes", packets)
	}
	l = AppendRack(draw.List{}, rackTestView(-1), &scratch)
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.Y < 430 {
			t.Fatalf("a packet at the end: %+v", it)
		}
	}
}

// A TP group larger than its system's domain is hatched: TP 16–64 on the
// 8-GPU nodes, none on the rack of 72.
func TestCeilingHatches(t *testing.T) {
	v := CeilingView{Width: 1280, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Title: "TP", Degrees: []int{2, 4, 8, 16, 32, 64},
		Names: [2]string{"rack", "nodes"}, Domains: [2]int{72, 8}, Crosses: "over IB", Axis: "TP",
		Seconds: [2][]float64{{1, 2, 3, 3, 3, 4}, {2, 3, 4, 8, 9, 10}}}
	l := AppendCeiling(draw.List{}, v)
	var bars [2][]draw.Item
	for _, it := range l.Items {
		for s, c := range [2]draw.Color{rackNVLink, rackIB} {
			if it.Kind == draw.FillRect && it.Color == c && it.W != it.H {
				bars[s] = append(bars[s], it)
			}
		}
	}
	if len(bars[0]) != 6 || len(bars[1]) != 6 {
		t.Fatalf("%d and %d bars, want 6 each", len(bars[0]), len(bars[1]))
	}
	hatched := func(b draw.Item) bool {
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.X >= b.X-1 && it.X2 <= b.X+b.W+1 && it.Y >= b.Y-1 && it.Y <= b.Y+b.H+1 {
				return true
			}
		}
		return false
	}
	for s := range 2 {
		for i, b := range bars[s] {
			if got, want := hatched(b), v.Degrees[i] > v.Domains[s]; got != want {
				t.Errorf("%s TP %d: hatched %v, want %v", v.Names[s], v.Degrees[i], got, want)
			}
		}
	}
	// One scale: the nodes' TP 64 bar is 2.5× the rack's.
	if r := bars[1][5].H / bars[0][5].H; r < 2.45 || r > 2.55 {
		t.Errorf("TP 64 bars %.1f and %.1f px: ratio %.2f, want 2.5", bars[1][5].H, bars[0][5].H, r)
	}
}
