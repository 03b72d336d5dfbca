package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func clusterView(w, h float32, nodes, tp, pp, dp int, active string, progress float64) ClusterView {
	return ClusterView{
		Width: w, Height: h, Stage: draw.Rect{X: 0, Y: 0, W: w, H: h}, Scale: 1, Theme: draw.Dark,
		Nodes: nodes, GPUsPerNode: 8, TP: tp, PP: pp, DP: dp,
		ColourBy: "tp", Active: active, Progress: progress,
		IntraName: "NVLink 4", IntraBW: 450e9, InterName: "IB NDR", InterBW: 50e9,
	}
}

// gpuSquares are the GPUs' squares in rank order: filled squares in
// none of the theme's structural colours, of the first one's side (the
// legend's swatches come after them, and the colour key's strip is not
// square).
func gpuSquares(l draw.List, th draw.Theme) []draw.Item {
	var out []draw.Item
	for _, it := range l.Items {
		if it.Kind != draw.FillRect || it.W != it.H || (len(out) > 0 && it.W != out[0].W) {
			continue
		}
		switch it.Color {
		case th.Panel, th.Link, th.Rim, th.LinkActive, th.Hot:
			continue
		}
		out = append(out, it)
	}
	return out
}

func TestClusterGolden(t *testing.T) {
	v := clusterView(1000, 600, 4, 16, 1, 2, "tp", 0.05)
	golden.Check(t, "cluster_tp16.golden", AppendCluster(draw.List{}, v).String())
}

// Every GPU is drawn; GPUs of one TP group share a colour, other groups'
// colours differ, and neighbouring groups differ clearly.
func TestClusterGroupsColour(t *testing.T) {
	v := clusterView(1920, 1080, 64, 8, 8, 8, "", 0)
	l := AppendCluster(draw.List{}, v)
	sq := gpuSquares(l, draw.Dark)
	if len(sq) != 64*8 {
		t.Fatalf("%d GPU squares, want %d", len(sq), 64*8)
	}
	if sq[0].W < 16 {
		t.Errorf("GPU squares of %.1f px on 1920×1080: want at least 16", sq[0].W)
	}
	group := map[draw.Color]int{}
	for r, it := range sq {
		g := r / v.TP
		if it.Color != sq[g*v.TP].Color {
			t.Fatalf("GPU %d colour %s, its TP group's first GPU %s", r, it.Color.Hex(), sq[g*v.TP].Color.Hex())
		}
		if r%v.TP != 0 {
			continue
		}
		if o, ok := group[it.Color]; ok {
			t.Errorf("TP groups %d and %d share colour %s", o, g, it.Color.Hex())
		}
		group[it.Color] = g
		if g > 0 {
			a, b := sq[(g-1)*v.TP].Color, it.Color
			d := sqr(int(a.R)-int(b.R)) + sqr(int(a.G)-int(b.G)) + sqr(int(a.B)-int(b.B))
			if d < 60*60 {
				t.Errorf("TP groups %d and %d: colours %s and %s too alike", g-1, g, a.Hex(), b.Hex())
			}
		}
	}
	// Coloured by stage: 8 colours, stage s on nodes 8s…8s+7.
	v.ColourBy = "pp"
	sq = gpuSquares(AppendCluster(draw.List{}, v), draw.Dark)
	stages := map[draw.Color]bool{}
	for r, it := range sq {
		stages[it.Color] = true
		if it.Color != sq[(r/64)*64].Color {
			t.Fatalf("coloured by stage: GPU %d differs from its stage's first GPU", r)
		}
	}
	if len(stages) != 8 {
		t.Errorf("coloured by stage: %d colours, want 8", len(stages))
	}
}

func sqr(x int) int { return x * x }

// A TP group larger than a node is flagged; one that fits is not.
func TestClusterTPSpansNodes(t *testing.T) {
	has := func(l draw.List) (label bool, dashes int) {
		for _, it := range l.Items {
			if it.Kind == draw.Text && it.Text == "canvas.cluster.key_spans" {
				label = true
			}
			if it.Kind == draw.Line && it.Color == draw.Dark.Hot {
				dashes++
			}
		}
		return
	}
	if label, dashes := has(AppendCluster(draw.List{}, clusterView(1280, 800, 8, 16, 1, 4, "", 0))); !label || dashes < 8 {
		t.Errorf("TP 16 on 8-GPU nodes: label %v, %d dashes; want the label and dashed outlines", label, dashes)
	}
	if label, dashes := has(AppendCluster(draw.List{}, clusterView(1280, 800, 8, 8, 1, 8, "", 0))); label || dashes > 0 {
		t.Errorf("TP 8 on 8-GPU nodes: label %v, %d dashes; want neither", label, dashes)
	}
}

// Packets appear for an active collective and not without one; IB hops
// are one packet per node pair.
func TestClusterPackets(t *testing.T) {
	circles := func(v ClusterView) (nv, ib int) {
		for _, it := range AppendCluster(draw.List{}, v).Items {
			if it.Kind == draw.FillCircle {
				if it.Color == draw.Dark.Text {
					nv++
				} else {
					ib++
				}
			}
		}
		return
	}
	for _, a := range []string{"tp", "pp", "dp"} {
		if nv, ib := circles(clusterView(1280, 800, 8, 8, 2, 4, a, 0.3)); nv+ib == 0 {
			t.Errorf("active %q: no packets", a)
		}
	}
	if nv, ib := circles(clusterView(1280, 800, 8, 8, 2, 4, "", 0.3)); nv+ib != 0 {
		t.Errorf("no active collective: %d packets", nv+ib)
	}
	// TP 8 in a node: NVLink only, a packet a GPU (and one of each in
	// the legend).
	if nv, ib := circles(clusterView(1280, 800, 8, 8, 2, 4, "tp", 0.3)); nv != 64+1 || ib != 0+1 {
		t.Errorf("TP inside nodes: %d NVLink and %d IB packets, want 64 and 0 (+1 each in the legend)", nv, ib)
	}
	// DP 4 across nodes 0-3 and 4-7 (a ring each): 8 node pairs on IB.
	if nv, ib := circles(clusterView(1280, 800, 8, 8, 2, 4, "dp", 0.3)); nv != 0+1 || ib != 8+1 {
		t.Errorf("DP across nodes: %d NVLink and %d IB packets, want 0 and 8 (+1 each in the legend)", nv, ib)
	}
}

// When a TP group spans nodes, its NVLink hops finish (450/50 =) 9 times
// sooner than its IB hop; the legend races the two links at that ratio.
func TestClusterIBIsSlower(t *testing.T) {
	v := clusterView(1000, 600, 4, 16, 1, 2, "tp", 0.05)
	l := AppendCluster(draw.List{}, v)
	var lanes, dots []draw.Item
	for _, it := range l.Items {
		if it.Y > 500 && ((it.Kind == draw.FillRect && it.Color == draw.Dark.Rim) || (it.Kind == draw.Line && it.Color == draw.Dark.Dim)) {
			lanes = append(lanes, it)
		}
		if it.Kind == draw.FillCircle && it.Y > 500 {
			dots = append(dots, it)
		}
	}
	if len(lanes) != 2 || len(dots) != 2 {
		t.Fatalf("legend: %d lanes, %d dots; want 2 and 2", len(lanes), len(dots))
	}
	nv := dots[0].X - lanes[0].X
	ib := dots[1].X - lanes[1].X
	if r := nv / ib; r < 8.9 || r > 9.1 {
		t.Errorf("legend: NVLink packet %.1f px along, IB %.1f: ratio %.2f, want 9", nv, ib, r)
	}
}

// The picture fits the stage, on a projector and on a phone.
func TestClusterFitsStage(t *testing.T) {
	for i, s := range []draw.Rect{{X: 0, Y: 0, W: 1920, H: 1080}, {X: 0, Y: 0, W: 375, H: 667}, {X: 100, Y: 50, W: 800, H: 500}, {X: 0, Y: 0, W: 1000, H: 600}, {X: 0, Y: 0, W: 375, H: 667}} {
		v := clusterView(s.X+s.W, s.Y+s.H, 64, 8, 8, 8, "pp", 0.5)
		if i >= 3 {
			v = clusterView(s.W, s.H, 4, 16, 1, 2, "tp", 0.5)
		}
		v.Stage = s
		l := AppendCluster(draw.List{}, v)
		if len(gpuSquares(l, draw.Dark)) != v.Nodes*8 {
			t.Errorf("stage %v: %d GPUs", s, len(gpuSquares(l, draw.Dark)))
		}
		for _, it := range l.Items {
			x0, y0, x1, y1 := it.X, it.Y, it.X+it.W, it.Y+it.H
			switch it.Kind {
			case draw.Line:
				x1, y1 = it.X2, it.Y2
			case draw.FillCircle:
				x0, y0, x1, y1 = it.X-it.R, it.Y-it.R, it.X+it.R, it.Y+it.R
			case draw.Text:
				x1, y1 = it.X, it.Y+it.Size
			}
			if draw.Minf(x0, x1) < s.X-1 || draw.Maxf(x0, x1) > s.X+s.W+1 || draw.Minf(y0, y1) < s.Y-1 || draw.Maxf(y0, y1) > s.Y+s.H+1 {
				t.Errorf("stage %v: item outside it: %+v", s, it)
				break
			}
		}
	}
	v := clusterView(800, 600, 4, 8, 1, 4, "tp", 0.5)
	v.Stage = draw.Rect{}
	if l := AppendCluster(draw.List{}, v); len(l.Items) != 0 {
		t.Errorf("empty stage drew %d items", len(l.Items))
	}
}

// In the picture: a ring step moves the same bytes on every hop, so when
// the group spans nodes its NVLink packets have arrived by 1/9 of the step
// while its IB packets still travel; inside a node they take the step.
func TestClusterPacketsPace(t *testing.T) {
	packets := func(v ClusterView, at float64) (nv, ib []draw.Item) {
		v.Progress = at
		for _, it := range AppendCluster(draw.List{}, v).Items {
			if it.Kind == draw.FillCircle && it.Y < 500 {
				if it.Color == draw.Dark.Text {
					nv = append(nv, it)
				} else {
					ib = append(ib, it)
				}
			}
		}
		return
	}
	span := clusterView(1000, 600, 4, 16, 1, 2, "tp", 0)
	nv1, ib1 := packets(span, 0.2)
	nv2, ib2 := packets(span, 0.6)
	if len(nv1) != 28 || len(ib1) != 4 || len(nv2) != len(nv1) || len(ib2) != len(ib1) {
		t.Fatalf("TP 16: %d/%d NVLink and %d/%d IB packets, want 28 and 4", len(nv1), len(nv2), len(ib1), len(ib2))
	}
	for i := range nv1 {
		if nv1[i].X != nv2[i].X || nv1[i].Y != nv2[i].Y {
			t.Errorf("TP 16: NVLink packet %d moved after arriving, from %.1f to %.1f", i, nv1[i].X, nv2[i].X)
		}
	}
	for i := range ib1 {
		if ib1[i].X == ib2[i].X && ib1[i].Y == ib2[i].Y {
			t.Errorf("TP 16: IB packet %d still at 0.2 and 0.6 of the step", i)
		}
	}
	in := clusterView(1000, 600, 4, 8, 1, 4, "tp", 0)
	nv1, _ = packets(in, 0.2)
	nv2, _ = packets(in, 0.6)
	for i := range nv1 {
		if nv1[i].X == nv2[i].X {
			t.Errorf("TP 8 in a node: NVLink packet %d does not move", i)
		}
	}
}

// A frame reuses the list's storage: no allocations.
func TestClusterNoAllocs(t *testing.T) {
	v := clusterView(1920, 1080, 64, 8, 8, 8, "dp", 0.4)
	l := AppendCluster(draw.List{}, v)
	if n := testing.AllocsPerRun(20, func() { l = AppendCluster(l, v) }); n != 0 {
		t.Errorf("%v allocations a frame, want 0", n)
	}
}

// BenchmarkCluster512 builds the largest cluster picture, 64 nodes of 8
// GPUs at 1920×1080 during a DP all-reduce, as the page does every frame.
func BenchmarkCluster512(b *testing.B) {
	v := clusterView(1920, 1080, 64, 8, 8, 8, "dp", 0.4)
	var l draw.List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l = AppendCluster(l, v)
	}
	b.ReportMetric(float64(len(l.Items)), "items")
}

// Context parallelism sits between TP and DP in the rank order: with CP 2
// the 16 GPUs of TP 2 × CP 2 × PP 2 × DP 2 hold two pipeline stages of 8
// ranks each, so coloured by stage they show two colours, ranks 0–7 and
// 8–15 (drawn as if DP were 2 they would show four).
func TestClusterCPRanksOrder(t *testing.T) {
	v := clusterView(1000, 600, 2, 2, 2, 2, "", 0)
	v.CP, v.ColourBy = 2, "pp"
	sq := gpuSquares(AppendCluster(draw.List{}, v), v.Theme)
	if len(sq) != 16 {
		t.Fatalf("%d GPU squares, want 16", len(sq))
	}
	for r := range sq {
		if same := sq[r].Color == sq[0].Color; same != (r < 8) {
			t.Errorf("GPU %d: colour %v, stage 0's %v; want stage %d", r, sq[r].Color, sq[0].Color, r/8)
		}
	}
}
