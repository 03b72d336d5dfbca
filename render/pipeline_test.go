package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

func pipelineView(time float64, tls ...Timeline) PipelineView {
	return PipelineView{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: english, Timelines: tls, Time: time}
}

// rowBubbles sums the grey rectangles' widths by row (their y), and
// returns the seconds a pixel is worth, from the row panels' length.
func rowBubbles(t *testing.T, l draw.List, length float64) (map[float32]float32, float32) {
	t.Helper()
	grey := map[float32]float32{}
	var panel float32
	top := rowsTop(l)
	for _, it := range l.Items {
		if it.Y < top {
			continue // the legend
		}
		if it.Color == draw.Dark.Empty {
			if it.Kind != draw.FillRect {
				t.Fatalf("the bubble colour on a %s", draw.KindNames[it.Kind])
			}
			grey[it.Y] += it.W
		}
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Panel {
			panel = it.W
		}
	}
	return grey, panel / float32(length)
}

// The other kinds: recomputation hatched inside its block, communication
// a third of the row, the data-parallel lane under the row (hidden
// lighter than exposed), the optimizer neutral, chunk 1 a shade of chunk
// 0, and the activation chart's maximum labelled.
func TestPipelineKinds(t *testing.T) {
	tl := kindsTimeline()
	l := AppendPipeline(draw.List{}, pipelineView(-1, tl))
	golden.Check(t, "pipeline_kinds.golden", l.String())
	top := rowsTop(l)
	find := func(c draw.Color) []draw.Item {
		var r []draw.Item
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == c && it.Y >= top {
				r = append(r, it)
			}
		}
		return r
	}
	fwd, bwd := find(draw.Dark.LinkActive), find(draw.Dark.Rim)
	if len(fwd) != 2 || len(bwd) != 3 {
		t.Fatalf("%d forward, %d backward/recompute rects", len(fwd), len(bwd))
	}
	rowH := fwd[0].H
	if len(find(chunkShade(draw.Dark.LinkActive, 1))) != 1 || chunkShade(draw.Dark.LinkActive, 1) == draw.Dark.LinkActive {
		t.Error("chunk 1's forward not drawn in its own shade")
	}
	comm := find(draw.Mix(draw.Dark.Hot, draw.Color{R: 0, G: 0, B: 0, A: 255}, 0.3))
	if len(comm) != 1 || math.Abs(float64(comm[0].H-rowH/3)) > 0.01 {
		t.Errorf("communication: %v, want one bar a third of the row (%.1f)", comm, rowH/3)
	}
	exposed, hidden := find(draw.Dark.Hot), find(draw.WithAlpha(draw.Dark.Hot, 110))
	if len(exposed) != 1 || len(hidden) != 1 || exposed[0].Y < fwd[0].Y+rowH || hidden[0].Y < fwd[0].Y+rowH {
		t.Errorf("data-parallel buckets: exposed %v, hidden %v; want one each under the row", exposed, hidden)
	}
	if len(find(draw.Dark.Dim)) != 1 {
		t.Error("no optimizer block")
	}
	// The recomputation is the first green block on stage 0 (6…8 ms).
	rc := draw.Item{X: float32(math.Inf(1))}
	for _, it := range bwd {
		if it.Y == fwd[0].Y && it.X < rc.X {
			rc = it
		}
	}
	hatch := 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.WithAlpha(draw.Dark.Background, 170) {
			hatch++
			for _, p := range [][2]float32{{it.X, it.Y}, {it.X2, it.Y2}} {
				if p[0] < rc.X-0.01 || p[0] > rc.X+rc.W+0.01 || p[1] < rc.Y-0.01 || p[1] > rc.Y+rc.H+0.01 {
					t.Errorf("hatching at %v outside the recompute block %v", p, rc)
				}
			}
		}
	}
	if hatch < 3 {
		t.Errorf("%d hatching lines", hatch)
	}
	// Bubbles: stage 0 waits 2.5…5.5 ms (its exposed all-reduce at 10…11
	// is communication, not a bubble), stage 1 0…2.5 ms (its hidden
	// bucket after 5.5 ms does not extend the row).
	grey, pxPerS := rowBubbles(t, l, tl.Length)
	if g0, g1 := grey[fwd[0].Y], grey[fwd[1].Y]; math.Abs(float64(g0-3e-3*pxPerS)) > 0.5 || math.Abs(float64(g1-2.5e-3*pxPerS)) > 0.5 {
		t.Errorf("bubbles %.1f and %.1f px, want 3 ms (%.1f) and 2.5 ms (%.1f)", g0, g1, 3e-3*pxPerS, 2.5e-3*pxPerS)
	}
	found := false
	for _, it := range l.Items {
		found = found || (it.Kind == draw.Text && it.Text == "peak 1.5 GB")
	}
	if !found {
		t.Error("no \"peak 1.5 GB\" label on the activation chart")
	}
}

// rowsTop is where the rows start: the top of the first row's panel
// (the headline and the legend are above it).
func rowsTop(l draw.List) float32 {
	top := float32(math.Inf(1))
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Panel && it.W > 50 {
			top = draw.Minf(top, it.Y)
		}
	}
	return top
}

func kindsTimeline() Timeline {
	ms := 1e-3
	return Timeline{
		Label: "recompute, comm, DP, optimizer", Stages: 2, Length: 12 * ms,
		Blocks: []TimelineBlock{
			{Stage: 0, Kind: BlockForward, MicroBatch: 0, Start: 0, End: 1 * ms},
			{Stage: 0, Kind: BlockForward, MicroBatch: 0, Chunk: 1, Start: 1 * ms, End: 2 * ms},
			{Stage: 0, Kind: BlockComm, MicroBatch: -1, Start: 2 * ms, End: 2.5 * ms},
			{Stage: 1, Kind: BlockForward, MicroBatch: 0, Start: 2.5 * ms, End: 3.5 * ms},
			{Stage: 1, Kind: BlockBackward, MicroBatch: 0, Start: 3.5 * ms, End: 5.5 * ms},
			{Stage: 1, Kind: BlockDPComm, MicroBatch: -1, Start: 5.5 * ms, End: 9 * ms, Hidden: true},
			{Stage: 0, Kind: BlockBackward, MicroBatch: 0, Chunk: 1, Start: 5.5 * ms, End: 6 * ms},
			{Stage: 0, Kind: BlockRecompute, MicroBatch: 0, Start: 6 * ms, End: 8 * ms},
			{Stage: 0, Kind: BlockBackward, MicroBatch: 0, Start: 8 * ms, End: 10 * ms},
			{Stage: 0, Kind: BlockDPComm, MicroBatch: -1, Start: 10 * ms, End: 11 * ms},
			{Stage: 0, Kind: BlockOptimizer, MicroBatch: -1, Start: 11 * ms, End: 12 * ms},
		},
		Memory: [][]MemoryPoint{
			{{0, 0}, {1 * ms, 0.75e9}, {2 * ms, 1.5e9}, {6 * ms, 0.75e9}, {10 * ms, 0}},
			{{0, 0}, {3.5 * ms, 1e9}, {5.5 * ms, 0}},
		},
	}
}

// Nothing to draw draws the background only; a zero-length timeline does
// not divide by zero.
func TestPipelineEmpty(t *testing.T) {
	for _, v := range []PipelineView{
		pipelineView(-1),
		pipelineView(-1, Timeline{}),
		pipelineView(0, Timeline{Stages: 3}),
		{Width: 800, Height: 500, Theme: draw.Dark, Timelines: []Timeline{kindsTimeline()}},
	} {
		if l := AppendPipeline(draw.List{}, v); len(l.Items) != 0 || l.Background != draw.Dark.Background {
			t.Errorf("%d items for %+v", len(l.Items), v)
		}
	}
	// A tiny stage still draws without NaNs.
	v := pipelineView(-1, kindsTimeline())
	v.Stage = draw.Rect{X: 0, Y: 0, W: 120, H: 60}
	for _, it := range AppendPipeline(draw.List{}, v).Items {
		if math.IsNaN(float64(it.X)) || math.IsNaN(float64(it.W)) || math.IsNaN(float64(it.Y)) {
			t.Fatalf("NaN in %+v", it)
		}
	}
}

// keyed reports a colour drawn that neither a key nor a theme neutral
// explains.
func unexplained(l draw.List, th draw.Theme) (draw.Color, bool) {
	rgb := func(c draw.Color) [3]uint8 { return [3]uint8{c.R, c.G, c.B} }
	ok := map[[3]uint8]bool{}
	for _, c := range []draw.Color{th.Background, th.Panel, th.Text, th.Dim, th.Link, th.GPU, th.Empty} {
		ok[rgb(c)] = true
	}
	for _, k := range l.Keys {
		ok[rgb(k.Color)] = true
	}
	for _, it := range l.Items {
		if (it.Kind == draw.FillRect || it.Kind == draw.Line || it.Kind == draw.FillCircle) && !ok[rgb(it.Color)] {
			return it.Color, true
		}
	}
	return draw.Color{}, false
}

// Every mark of a time line is in its legend: the kinds, the chunks'
// shades (forward and backward), the activations, the gradient's strip.
func TestPipelineLegendExplainsEveryMark(t *testing.T) {
	tl := kindsTimeline()
	tl.Blocks = append(tl.Blocks, TimelineBlock{Stage: 1, Kind: BlockBackward, MicroBatch: 1, Chunk: 2, Start: 9e-3, End: 10e-3})
	tl.Sums = []MemoryPoint{{0, 0}, {5.5e-3, 0.5}, {10e-3, 1}, {12e-3, 0}}
	for _, th := range []draw.Theme{draw.Dark, draw.Light, draw.Projector} {
		v := pipelineView(5e-3, tl)
		v.Theme = th
		l := AppendPipeline(draw.List{}, v)
		if c, bad := unexplained(l, th); bad {
			t.Errorf("colour %s drawn with no legend entry", c.Hex())
		}
		keys := map[string]bool{}
		for _, k := range l.Keys {
			keys[k.Label] = true
		}
		for _, w := range []string{"forward", "backward", "recomputed forward", "TP / PP communication", "all-reduce",
			"all-reduce under the backward", "update", "idle (bubble)", "activations held", "gradient, summed", "model chunk 2", "model chunk 3"} {
			if !keys[w] {
				t.Errorf("no legend entry %q", w)
			}
		}
	}
}

// Data parallelism's replicas: a one-stage time line drawn once a GPU
// (the last row the last GPU), the first row's blocks named; a dashed
// reference line at Ref.
func TestPipelineReplicas(t *testing.T) {
	ms := 1e-3
	tl := Timeline{Stages: 1, Length: 40 * ms, Blocks: []TimelineBlock{
		{Kind: BlockForward, MicroBatch: 0, Start: 0, End: 10 * ms},
		{Kind: BlockBackward, MicroBatch: 0, Start: 10 * ms, End: 30 * ms},
		{Kind: BlockDPComm, MicroBatch: 0, Start: 20 * ms, End: 30 * ms, Hidden: true},
		{Kind: BlockOptimizer, MicroBatch: -1, Start: 30 * ms, End: 40 * ms},
	}}
	v := pipelineView(-1, tl)
	v.Replicas, v.Phases, v.Span, v.Ref = 64, true, 60*ms, 50*ms
	l := AppendPipeline(draw.List{}, v)
	tx := texts(l)
	for _, s := range []string{"GPU 0", "GPU 6", "GPU 63", "forward", "backward", "update", "all-reduce"} {
		if _, ok := tx[s]; !ok {
			t.Errorf("no label %q", s)
		}
	}
	if _, ok := tx["GPU 7"]; ok {
		t.Error("row 7 is labelled as GPU 7, not the last GPU")
	}
	rows := 0
	dashes := 0
	var x0, xw float32
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Panel && it.W > 50 {
			rows++
			x0 = it.X
			xw = it.W / (40.0 / 60) // the rows end at 40 of the axis' 60 ms
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.X == it.X2 && math.Abs(float64(it.X-(x0+xw*50/60))) < 0.5 {
			dashes++
		}
	}
	if rows != maxReplicaRows || dashes < 3 {
		t.Errorf("%d rows (want %d), %d dashes at 50 ms", rows, maxReplicaRows, dashes)
	}
}

// Marks narrower than a pixel are merged, never lost: 4,000 blocks on a
// row a few hundred pixels long draw at most a rectangle a pixel column
// (and one a run of one colour), and every pixel column a block falls in
// is painted; communication of one colour that follows itself is one
// bar as long as all of it.
func TestPipelineMergesNarrowMarks(t *testing.T) {
	var tl Timeline
	tl.Stages = 1
	const n = 4000
	for i := range n {
		k := BlockForward
		if i%3 == 2 {
			k = BlockBackward
		}
		tl.Blocks = append(tl.Blocks, TimelineBlock{Kind: k, MicroBatch: -1, Start: float64(i), End: float64(i + 1)})
	}
	// A communication bar in 100 pieces, under a hundredth of a block each.
	for i := range 100 {
		tl.Blocks = append(tl.Blocks, TimelineBlock{Kind: BlockComm, MicroBatch: -1, Start: 1000 + float64(i)*0.01, End: 1000 + float64(i+1)*0.01})
	}
	tl.Length = n
	v := pipelineView(-1, tl)
	v.Cache = new(PipelineCache)
	l := AppendPipeline(draw.List{}, v)
	var panel draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Panel {
			panel = it
		}
	}
	if panel.W == 0 {
		t.Fatal("no row panel")
	}
	painted := map[int]bool{}
	blocks, comm := 0, 0
	for _, it := range l.Items {
		if it.Kind != draw.FillRect || it.Y < panel.Y || it.Y >= panel.Y+panel.H {
			continue
		}
		switch it.Color {
		case draw.Dark.LinkActive, draw.Dark.Rim:
			blocks++
			for x := int(math.Floor(float64(it.X))); float32(x) < it.X+it.W; x++ {
				painted[x] = true
			}
		case draw.CommColour(draw.Dark):
			comm++
			if want := panel.W / n; math.Abs(float64(it.W-want)) > 1e-3 {
				t.Errorf("the communication bar is %.4f px, want %.4f (its pieces together)", it.W, want)
			}
		}
	}
	columns := int(math.Ceil(float64(panel.W))) + 1
	if blocks > columns {
		t.Errorf("%d block rectangles on a row of %d pixel columns", blocks, columns)
	}
	for x := int(panel.X); float32(x) < panel.X+panel.W-1; x++ {
		if !painted[x] {
			t.Fatalf("pixel column %d under blocks is not painted", x)
		}
	}
	if comm != 1 {
		t.Errorf("%d communication rectangles, want the 100 pieces as one", comm)
	}
	t.Logf("%d blocks in %d rectangles, %d items in all", n, blocks, len(l.Items))
}

// A click on a stage's row picks its first GPU (the zoom's way in), on
// the first frame and on the frames that copy what stands still.
func TestPipelineHits(t *testing.T) {
	v := pipelineView(0.004, kindsTimeline())
	v.StageGPUs, v.Cache = 16, new(PipelineCache)
	for frame := range 2 {
		l := AppendPipeline(draw.List{}, v)
		if len(l.Hits) != 2 {
			t.Fatalf("frame %d: %d places for 2 stages", frame, len(l.Hits))
		}
		for i, h := range l.Hits {
			if g, ok := l.HitAt(h.X+h.W/2, h.Y+h.H/2); !ok || g != 16*i {
				t.Errorf("frame %d: the middle of row %d picks %d (%v)", frame, i, g, ok)
			}
		}
		v.Time = 0.006
	}
	v.StageGPUs = 0
	if l := AppendPipeline(draw.List{}, v); len(l.Hits) != 0 {
		t.Errorf("without StageGPUs: %d places", len(l.Hits))
	}
}

// An interleaved time line with more than four chunks a stage draws them
// in four shades that come round again: its legend names every chunk a
// shade stands for; with four or fewer, one each.
func TestChunkLabels(t *testing.T) {
	zh := draw.Words{Lang: "zh", T: func(key string, args ...string) string { return i18n.T("zh", key, args...) }}
	for _, tt := range []struct {
		w    draw.Words
		c, v int
		want string
	}{
		{english, 1, 2, "model chunk 2"},
		{english, 3, 4, "model chunk 4"},
		{english, 1, 5, "model chunk 2"}, // chunk 6 does not exist
		{english, 1, 8, "model chunks 2, 6"},
		{english, 3, 8, "model chunks 4, 8"},
		{english, 2, 16, "model chunks 3, 7, 11, 15"},
		{zh, 1, 8, "模型块 2、6"},
	} {
		if got := chunkLabel(tt.w, tt.c, tt.v); got != tt.want {
			t.Errorf("%s shade %d of %d chunks: %q, want %q", tt.w.Lang, tt.c, tt.v, got, tt.want)
		}
	}
}
