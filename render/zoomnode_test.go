package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// chinese are the canvas's words in Chinese, from the catalogue.
var chinese = draw.Words{Lang: "zh", T: func(key string, args ...string) string { return i18n.T("zh", key, args...) }}

// zoomFrames are the frames the picture rules check (scene/rules_test.go
// ruleFrames): the page's desktop stage, a phone, an embed, and
// presentation mode at 1.5×, with the smallest text each allows.
var zoomFrames = []struct {
	name    string
	st      draw.Rect
	sc      float32
	th      draw.Theme
	minText float32
}{
	{"desktop", draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1, draw.Dark, 12},
	{"phone", draw.Rect{X: 0, Y: 0, W: 390, H: 420}, 1, draw.Light, 12},
	{"embed", draw.Rect{X: 0, Y: 0, W: 640, H: 300}, 1, draw.Dark, 12},
	{"present", draw.Rect{X: 0, Y: 0, W: 1280, H: 576}, 1.5, draw.Projector, 20},
}

// zoomNodeView is node 3 of an HGX H100 cluster at a moment of the
// backward: TP 4 × 2 stages on its 8 GPUs, the first TP group in its
// all-reduce (a ring over NVLink), GPU 27 (index 3) zoomed to, one GPU
// sending to the next node over InfiniBand.
func zoomNodeView(gpus int, progress float64) ZoomNodeView {
	v := ZoomNodeView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: keyWords,
		Crumbs: "Cluster › Node 3", Title: "Node 3 of 32: 8 × H100, NVLink 4 (450 GB/s one way)", Clock: "t = 1.42 s",
		Focus: 3, IntraName: "NVLink 4", IntraBW: 450e9, InterName: "IB NDR", InterBW: 50e9,
	}
	for i := 0; i < gpus; i++ {
		g := ZoomNodeGPU{Label: "GPU " + strconv.Itoa(24+i), Role: "TP " + strconv.Itoa(i%4) + " · stage " + strconv.Itoa(i/4),
			Doing: "down GEMM", Activity: ZoomBackward, Progress: 0.4}
		switch {
		case i < 4:
			g.Doing, g.Activity, g.Progress = "all-reduce", ZoomComm, progress
		case i == 7:
			g.Doing, g.Activity, g.Progress = "waiting", ZoomIdle, 0
		case i == 6:
			g.Doing, g.Activity = "up GEMM", ZoomForward
		}
		v.GPUs = append(v.GPUs, g)
	}
	for i := 0; i < 4 && i < gpus; i++ {
		v.Flows = append(v.Flows, ZoomFlow{From: i, To: (i + 1) % min(4, gpus), Kind: "tp", Progress: progress})
	}
	if gpus > 5 {
		v.Flows = append(v.Flows, ZoomFlow{From: 5, To: -1, Kind: "pp", Progress: progress})
	}
	return v
}

func TestZoomNodeGolden(t *testing.T) {
	golden.Check(t, "zoomnode.golden", AppendZoomNode(draw.List{}, zoomNodeView(8, 0.3)).String())
}

// gpuBoxes are the GPU boxes: filled rectangles in an activity's colour
// of the first one's size (the boxes come before the legend's swatches).
func gpuBoxes(l draw.List, th draw.Theme) []draw.Item {
	var out []draw.Item
	for _, it := range l.Items {
		if it.Kind != draw.FillRect {
			continue
		}
		for a := ZoomIdle; a <= ZoomOptimizer; a++ {
			if it.Color == zoomActColour(a, th) && (len(out) == 0 || it.W == out[0].W && it.H == out[0].H) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

// Every GPU is a box in its activity's colour, with its name on it; two
// rows of four for 8, and 72 still fit.
func TestZoomNodeBoxes(t *testing.T) {
	for _, n := range []int{1, 2, 8, 16, 72} {
		v := zoomNodeView(n, 0.3)
		l := AppendZoomNode(draw.List{}, v)
		boxes := gpuBoxes(l, draw.Dark)
		if len(boxes) != n {
			t.Fatalf("%d GPUs: %d boxes", n, len(boxes))
		}
		for i, b := range boxes {
			if want := zoomActColour(v.GPUs[i].Activity, draw.Dark); b.Color != want {
				t.Errorf("%d GPUs: GPU %d is %s, want %s", n, i, b.Color.Hex(), want.Hex())
			}
		}
		if n == 8 {
			rows := map[float32]int{}
			for _, b := range boxes {
				rows[b.Y]++
			}
			if len(rows) != 2 || rows[boxes[0].Y] != 4 {
				t.Errorf("8 GPUs in rows %v, want two rows of four", rows)
			}
			got := strings.Join(labels(l), "\n")
			for _, want := range []string{"GPU 24", "TP 3 · stage 0", "all-reduce", "waiting", "switch", "intra link NVLink 4 450 GB/s", "inter link IB NDR 50 GB/s"} {
				if !strings.Contains(got, want) {
					t.Errorf("no %q in\n%s", want, got)
				}
			}
		}
	}
}

// The Focus GPU, and only it, is outlined in the text colour round its
// box.
func TestZoomNodeFocus(t *testing.T) {
	for _, focus := range []int{0, 3, 6} {
		v := zoomNodeView(8, 0.3)
		v.Focus = focus
		l := AppendZoomNode(draw.List{}, v)
		boxes := gpuBoxes(l, draw.Dark)
		var frames []draw.Item
		for _, it := range l.Items {
			if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Text {
				frames = append(frames, it)
			}
		}
		if len(frames) != 1 {
			t.Fatalf("focus %d: %d outlines, want 1", focus, len(frames))
		}
		b, f := boxes[focus], frames[0]
		if f.X >= b.X || f.Y >= b.Y || f.X+f.W <= b.X+b.W || f.Y+f.H <= b.Y+b.H || f.X < b.X-8 {
			t.Errorf("focus %d: outline %v round box %v", focus, f, b)
		}
	}
}

// packets are the packet dots: circles in the text colour.
func packets(l draw.List) []draw.Item {
	var out []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.Color == draw.Dark.Text {
			out = append(out, it)
		}
	}
	return out
}

// A flow lights its route in the active link colour and carries a packet
// that starts at its GPU and moves along the route with Progress; a flow
// out of the node ends at the InfiniBand strip; with no NVLink traffic
// the picture says so.
func TestZoomNodeFlows(t *testing.T) {
	v := zoomNodeView(8, 0)
	v.Flows = []ZoomFlow{{From: 0, To: 5, Kind: "tp"}}
	var xs, ys []float32
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		v.Flows[0].Progress = p
		l := AppendZoomNode(draw.List{}, v)
		lit := 0
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.Color == draw.Dark.LinkActive {
				lit++
			}
		}
		if lit < 3 {
			t.Errorf("progress %v: %d lit segments, want the route's (at least 3)", p, lit)
		}
		pk := packets(l)
		if len(pk) != 1 {
			t.Fatalf("progress %v: %d packets, want 1", p, len(pk))
		}
		xs, ys = append(xs, pk[0].X), append(ys, pk[0].Y)
		if strings.Contains(strings.Join(labels(l), "\n"), "none") {
			t.Errorf("progress %v: 'no traffic' with a flow on NVLink", p)
		}
	}
	boxes := gpuBoxes(AppendZoomNode(draw.List{}, v), draw.Dark)
	a, b := boxes[0], boxes[5]
	if xs[0] != a.X+a.W/2 || ys[0] != a.Y+a.H {
		t.Errorf("packet at progress 0 at (%v, %v), want GPU 0's edge (%v, %v)", xs[0], ys[0], a.X+a.W/2, a.Y+a.H)
	}
	if xs[4] != b.X+b.W/2 || ys[4] != b.Y {
		t.Errorf("packet at progress 1 at (%v, %v), want GPU 5's edge (%v, %v)", xs[4], ys[4], b.X+b.W/2, b.Y)
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[i-1] && ys[i] == ys[i-1] {
			t.Errorf("packet did not move from progress %v to %v", float64(i-1)/4, float64(i)/4)
		}
	}

	// Out of the node: the route ends in the InfiniBand strip.
	v.Flows = []ZoomFlow{{From: 6, To: -1, Kind: "pp", Progress: 1}}
	l := AppendZoomNode(draw.List{}, v)
	var strip draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Link && it.H > 100 {
			strip = it
		}
	}
	pk := packets(l)
	if len(pk) != 1 || pk[0].X < strip.X || pk[0].X > strip.X+strip.W || strip.W == 0 {
		t.Errorf("packet out of the node %v, the InfiniBand strip %v", pk, strip)
	}
	if got := strings.Join(labels(l), "\n"); !strings.Contains(got, "none") {
		t.Errorf("no NVLink flow, and no note saying so:\n%s", got)
	}
	v.Flows = nil
	if got := strings.Join(labels(AppendZoomNode(draw.List{}, v)), "\n"); !strings.Contains(got, "none") {
		t.Errorf("no flow, and no note saying so:\n%s", got)
	}
}

// The progress bar grows with the GPU's progress.
func TestZoomNodeProgress(t *testing.T) {
	width := func(p float64) float32 {
		v := zoomNodeView(8, 0)
		v.GPUs[5].Progress = p
		ink := zoomInk(zoomActColour(ZoomBackward, draw.Dark), draw.Dark)
		b := gpuBoxes(AppendZoomNode(draw.List{}, v), draw.Dark)[5]
		for _, it := range AppendZoomNode(draw.List{}, v).Items {
			if it.Kind == draw.FillRect && it.Color == ink && it.X > b.X && it.X < b.X+b.W && it.Y > b.Y && it.Y < b.Y+b.H {
				return it.W
			}
		}
		return 0
	}
	if a, b := width(0.25), width(0.75); a <= 0 || b < 2.9*a || b > 3.1*a {
		t.Errorf("progress bars %v at 25%%, %v at 75%%", a, b)
	}
}

// The text is large enough, inside the stage and clear of other text in
// the four frames, in both languages, for 1 to 72 GPUs; every colour is
// keyed.
func TestZoomNodeText(t *testing.T) {
	for _, f := range zoomFrames {
		for _, words := range []draw.Words{english, chinese} {
			for _, n := range []int{1, 4, 8, 16, 72} {
				for _, p := range []float64{0, 0.5, 1} {
					v := zoomNodeView(n, p)
					v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.st.W, f.st.H, f.st, f.sc, f.th, words
					l := AppendZoomNode(draw.List{}, v)
					if len(gpuBoxes(l, f.th)) != n {
						t.Errorf("%s %s %d GPUs: %d boxes", f.name, words.Lang, n, len(gpuBoxes(l, f.th)))
					}
					checkText(t, l, f.st, f.minText)
					checkKeyed(t, l, f.th)
					if n > 8 {
						continue
					}
					// What each GPU does shows whole, on a phone too (its
					// role goes first).
					got := "\n" + strings.Join(labels(l), "\n") + "\n"
					for _, gpu := range v.GPUs {
						if !strings.Contains(got, "\n"+gpu.Doing+"\n") {
							t.Errorf("%s %s %d GPUs: %s's %q not whole in%s", f.name, words.Lang, n, gpu.Label, gpu.Doing, got)
							break
						}
					}
				}
			}
		}
	}
}

// checkKeyed fails on a filled shape or a line in a colour that is not a
// theme neutral and that no key explains (scene/rules_test.go unkeyed).
func checkKeyed(t *testing.T, l draw.List, th draw.Theme) {
	t.Helper()
	rgb := func(c draw.Color) [3]uint8 { return [3]uint8{c.R, c.G, c.B} }
	ok := map[[3]uint8]bool{}
	for _, c := range []draw.Color{th.Background, th.Panel, th.Text, th.Dim, th.Link, th.GPU, th.Empty} {
		ok[rgb(c)] = true
	}
	for _, k := range l.Keys {
		ok[rgb(k.Color)] = true
	}
	for _, it := range l.Items {
		switch it.Kind {
		case draw.FillRect, draw.FillCircle, draw.Line:
			if !ok[rgb(it.Color)] {
				t.Errorf("colour %s drawn with no key", it.Color.Hex())
				return
			}
		}
	}
}

func TestZoomNodeAllocs(t *testing.T) {
	v := zoomNodeView(8, 0.3)
	l := AppendZoomNode(draw.List{}, v)
	if n := testing.AllocsPerRun(10, func() { l = AppendZoomNode(l, v) }); n > 0 {
		t.Errorf("%v allocations a frame, want none", n)
	}
}

// What moves comes last: two moments differ only in the items after
// the still ones, and those are the progress bars, the lit routes, their
// packets, the note and the clock.
func TestZoomNodeStillFirst(t *testing.T) {
	a := AppendZoomNode(draw.List{}, zoomNodeView(8, 0.2))
	v := zoomNodeView(8, 0.6)
	v.Clock = "t = 1.43 s"
	b := AppendZoomNode(draw.List{}, v)
	same := 0
	for same < len(a.Items) && same < len(b.Items) && a.Items[same] == b.Items[same] {
		same++
	}
	legend := 0
	for i, it := range b.Items {
		if it.Kind == draw.Text && it.Text == "lit" {
			legend = i
		}
	}
	if same <= legend {
		t.Errorf("the moments differ at item %d, before the legend's end (%d)", same, legend)
	}
	for _, it := range b.Items[same:] {
		switch {
		case it.Kind == draw.FillRect && (it.Color == draw.Dark.Text || it.Color == draw.Dark.Background),
			it.Kind == draw.Line && it.Color == draw.Dark.LinkActive,
			it.Kind == draw.FillCircle && it.Color == draw.Dark.Text,
			it.Kind == draw.Text && (it.Text == v.Clock || it.Text == "none"):
		default:
			t.Errorf("%+v among what moves", it)
		}
	}
}

// A click on a GPU's box picks that GPU (the zoom's way in): each box is
// a place standing for its GPU.
func TestZoomNodeHits(t *testing.T) {
	v := zoomNodeView(8, 0.5)
	for i := range v.GPUs {
		v.GPUs[i].GPU = 40 + i
	}
	l := AppendZoomNode(draw.List{}, v)
	if len(l.Hits) != len(v.GPUs) {
		t.Fatalf("%d places for %d GPUs", len(l.Hits), len(v.GPUs))
	}
	for i, h := range l.Hits {
		if g, ok := l.HitAt(h.X+h.W/2, h.Y+h.H/2); !ok || g != 40+i {
			t.Errorf("the middle of box %d picks %d (%v)", i, g, ok)
		}
	}
	if _, ok := l.HitAt(v.Stage.X+1, v.Stage.Y+1); ok {
		t.Errorf("the stage's corner picks a GPU")
	}
}

// A job's node (the fault-tolerance zoom) keys only what its GPUs show —
// here a restart and the GPU that failed, no training step's colours and
// no lit link — and its alert line, a click on which picks the GPU it
// names, sits clear of the GPUs' boxes.
func TestZoomNodeJobKeysAndAlert(t *testing.T) {
	v := zoomNodeView(8, 0.5)
	v.Flows = nil
	v.Words = draw.Words{Lang: "whole-keys", T: func(key string, _ ...string) string { return key }}
	for i := range v.GPUs {
		v.GPUs[i].Activity, v.GPUs[i].Doing, v.GPUs[i].Role = ZoomRestart, "restarting", ""
		v.GPUs[i].GPU = 24 + i
	}
	v.GPUs[5].Activity = ZoomFailed
	v.Alert, v.AlertGPU = "GPU 9217 (node 1152) failed at day 3.2", 9217
	l := AppendZoomNode(draw.List{}, v)
	var keys []string
	for _, it := range l.Items {
		if it.Kind == draw.Text && strings.HasPrefix(it.Text, "canvas.zoom.node.") {
			keys = append(keys, it.Text)
		}
	}
	got := strings.Join(keys, " ")
	for _, k := range []string{"canvas.zoom.node.restart", "canvas.zoom.node.failed"} {
		if !strings.Contains(got, k) {
			t.Errorf("legend %q lacks %s", got, k)
		}
	}
	for _, k := range []string{"canvas.zoom.node.forward", "canvas.zoom.node.backward", "canvas.zoom.node.lit", "canvas.zoom.node.train"} {
		if strings.Contains(got, k) {
			t.Errorf("legend %q keys %s, which no GPU shows", got, k)
		}
	}
	alert := -1
	for i, h := range l.Hits {
		if h.GPU == 9217 {
			alert = i
		}
	}
	if alert < 0 {
		t.Fatalf("no place to click for the alert's GPU: %+v", l.Hits)
	}
	h := l.Hits[alert]
	if g, ok := l.HitAt(h.X+h.W/2, h.Y+h.H/2); !ok || g != 9217 {
		t.Errorf("a click on the alert picks %d, %v", g, ok)
	}
	for _, o := range l.Hits {
		if o.GPU != 9217 && o.X < h.X+h.W && h.X < o.X+o.W && o.Y < h.Y+h.H && h.Y < o.Y+o.H {
			t.Errorf("the alert's place %+v overlaps GPU %d's %+v", h.Rect, o.GPU, o.Rect)
		}
	}
}

// The NVL72's 72 GPUs on a phone are too small for their words; the
// GPUs at work and the zoomed one still carry their numbers (the idle
// ones none), at the picture's text size, inside their boxes.
func TestZoomNodeSmallBoxesNumbered(t *testing.T) {
	v := zoomNodeView(72, 0.3)
	v.Stage, v.Width, v.Height, v.Theme = draw.Rect{X: 0, Y: 0, W: 390, H: 420}, 390, 844, draw.Light
	for i := range v.GPUs {
		v.GPUs[i].GPU = i
		v.GPUs[i].Activity, v.GPUs[i].Doing = ZoomIdle, "waiting"
	}
	v.GPUs[0].Activity, v.GPUs[71].Activity, v.Focus = ZoomComm, ZoomComm, 5
	l := AppendZoomNode(draw.List{}, v)
	boxes := gpuBoxes(l, draw.Light)
	if len(boxes) != 72 {
		t.Fatalf("%d boxes", len(boxes))
	}
	got := map[string]draw.Item{}
	for _, it := range l.Items {
		if it.Kind == draw.Text {
			got[it.Text] = it
		}
	}
	if _, ok := got["GPU 0"]; ok {
		t.Fatal("the boxes are large enough for their names: not the case this test is for")
	}
	for _, c := range []struct {
		num string
		box int
	}{{"0", 0}, {"71", 71}, {"5", 5}} {
		it, ok := got[c.num]
		b := boxes[c.box]
		if !ok {
			t.Errorf("GPU %s has no number", c.num)
			continue
		}
		if it.X < b.X || it.X > b.X+b.W || it.Y < b.Y || it.Y > b.Y+b.H || it.Size < 12 {
			t.Errorf("GPU %s's number %+v, not inside its box %+v at 12 px or more", c.num, it, b)
		}
	}
	for _, idle := range []string{"1", "2", "40"} {
		if _, ok := got[idle]; ok {
			t.Errorf("idle GPU %s numbered", idle)
		}
	}
}

// A box too narrow for "GPU 10" but not for "10" says "10", not the
// useless "GPU …" (the NVL72 in presentation mode).
func TestZoomNodeNumberNotCutName(t *testing.T) {
	v := zoomNodeView(72, 0.3)
	v.Stage, v.Width, v.Height, v.Scale, v.Theme = draw.Rect{X: 0, Y: 0, W: 1000, H: 576}, 1000, 800, 1.5, draw.Projector
	for i := range v.GPUs {
		v.GPUs[i].GPU, v.GPUs[i].Label = i, "GPU "+strconv.Itoa(i)
		v.GPUs[i].Doing, v.GPUs[i].Activity = "waiting", ZoomIdle
	}
	l := AppendZoomNode(draw.List{}, v)
	nums := 0
	for _, it := range l.Items {
		if it.Kind != draw.Text {
			continue
		}
		if strings.HasPrefix(it.Text, "GPU") && strings.Contains(it.Text, "…") {
			t.Errorf("a GPU's name cut: %q", it.Text)
		}
		if _, err := strconv.Atoi(it.Text); err == nil {
			nums++
		}
	}
	if nums == 0 {
		t.Error("no GPU numbered")
	}
}
