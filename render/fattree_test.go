package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// fatTrees are two trees of 2 leaves of 4 nodes under 2 spines: the
// first's NICs saturated and its uplinks busy, the second's uplinks half
// the bandwidth and saturated; the second takes twice as long.
func fatTrees() FatTreeView {
	tree := func(name string, upBW, nicBusy, upBusy, s float64) FatTree {
		t := FatTree{Name: name, Short: name, Leaves: 2, Spines: 2, NodesPerLeaf: 4, Seconds: s}
		for n := 0; n < 8; n++ {
			for _, up := range []bool{true, false} {
				t.Links = append(t.Links, FatTreeLink{Up: up, Node: n, Leaf: n / 4, Spine: -1, Bandwidth: 50e9, Busy: nicBusy})
			}
		}
		for f := 0; f < 2; f++ {
			for sp := 0; sp < 2; sp++ {
				for _, up := range []bool{true, false} {
					t.Links = append(t.Links, FatTreeLink{Up: up, Node: -1, Leaf: f, Spine: sp, Bandwidth: upBW, Busy: upBusy})
				}
			}
		}
		return t
	}
	return FatTreeView{Width: 800, Height: 600, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 600}, Scale: 1, Theme: draw.Dark, Title: "title",
		Trees: []FatTree{tree("1:1", 100e9, 0.99, 0.8, 1e-3), tree("2:1", 50e9, 0.6, 0.99, 2e-3)}, Time: -1}
}

func TestFatTreeGolden(t *testing.T) {
	v := fatTrees()
	v.Time = 0.5e-3
	golden.Check(t, "fattree_mid.golden", AppendFatTree(draw.List{}, v).String())
}

// Each link in the colour of how busy it was and as thick as its
// bandwidth on one scale; the bottleneck said; each tree's time bar as
// long as its time on the slowest's scale; packets only while running.
func TestFatTreeLoads(t *testing.T) {
	v := fatTrees()
	l := AppendFatTree(draw.List{}, v)
	hot, blue := map[float32]int{}, map[float32]int{}
	for _, it := range l.Items {
		if it.Kind != draw.Line {
			continue
		}
		switch it.Color {
		case draw.Dark.Hot:
			hot[it.Width]++
		case draw.Dark.LinkActive:
			blue[it.Width]++
		}
	}
	// Tree 1: 8 saturated NICs (1 px), 4 busy uplinks (4 px); tree 2: 4
	// saturated uplinks at half the bandwidth (2 px).
	if hot[1] != 8 || blue[4] != 4 || hot[2] != 4 {
		t.Errorf("hot lines by width %v, busy %v", hot, blue)
	}
	texts := map[string]bool{}
	for _, it := range l.Items {
		if it.Kind == draw.Text {
			texts[it.Text] = true
		}
	}
	for _, s := range []string{"canvas.fattree.nic", "canvas.fattree.uplink", "canvas.fattree.ratio", "canvas.fattree.done"} {
		if !texts[s] {
			t.Errorf("no %q on the finished trees", s)
		}
	}
	// The time bars: Dim rects on the trees' bottoms.
	var bars []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Dim {
			bars = append(bars, it)
		}
	}
	if len(bars) != 2 || math.Abs(float64(bars[0].W/bars[1].W)-0.5) > 0.01 {
		t.Fatalf("time bars %+v, want two in the ratio 1:2", bars)
	}
	packets := func(l draw.List) (n int) {
		for _, it := range l.Items {
			if it.Kind == draw.FillCircle {
				n++
			}
		}
		return n
	}
	if n := packets(l); n != 0 {
		t.Errorf("%d packets once done", n)
	}
	v.Time = 1.5e-3 // the first done, the second running
	if n := packets(AppendFatTree(draw.List{}, v)); n == 0 {
		t.Errorf("no packets while the second tree runs")
	}
	keyed := map[draw.Color]bool{}
	for _, k := range l.Keys {
		keyed[k.Color] = true
	}
	if !keyed[draw.Dark.Hot] || !keyed[draw.Dark.LinkActive] {
		t.Errorf("the loads' colours are not keyed: %+v", l.Keys)
	}
}

func TestFatTreeDegenerate(t *testing.T) {
	v := fatTrees()
	for _, tr := range [][]FatTree{nil, {{}}, {{Leaves: 1}}, {{Leaves: 3, Spines: 0, NodesPerLeaf: 0, Seconds: 1}}} {
		v.Trees = tr
		_ = AppendFatTree(draw.List{}, v)
	}
	v = fatTrees()
	v.Stage = draw.Rect{X: 0, Y: 0, W: 30, H: 30}
	_ = AppendFatTree(draw.List{}, v)
}
