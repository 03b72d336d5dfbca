package render

import (
	"math"
	"slices"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// schedule runs engine/parallel's schedule for p stages and m
// micro-batches (v chunks) with a forward of f and a backward of b
// seconds on every stage, as the lesson would.
func schedule(t testing.TB, s parallel.Schedule, p, m, v int, f, b float64) parallel.Timeline {
	t.Helper()
	fwd, bwd := make([]float64, p), make([]float64, p)
	for i := range p {
		fwd[i], bwd[i] = f, b
	}
	tl, err := parallel.BuildTimeline(s, p, m, v, fwd, bwd, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// toView converts a schedule's compute blocks; with memory, each stage's
// activations (act bytes a forward of a chunk) after each block.
func toView(label string, tl parallel.Timeline, act float64) Timeline {
	out := Timeline{Label: label, Stages: tl.Stages, Length: tl.Length}
	if act > 0 {
		out.Memory = make([][]MemoryPoint, tl.Stages)
	}
	held := make([]float64, tl.Stages)
	for _, b := range tl.Blocks {
		k := BlockForward
		switch b.Kind {
		case parallel.Forward:
			held[b.Stage] += act
		case parallel.Backward:
			k = BlockBackward
			held[b.Stage] -= act
		default:
			continue
		}
		out.Blocks = append(out.Blocks, TimelineBlock{Stage: b.Stage, Kind: k, MicroBatch: b.MicroBatch, Chunk: b.Chunk, Start: b.Start, End: b.End})
		if act > 0 {
			out.Memory[b.Stage] = append(out.Memory[b.Stage], MemoryPoint{T: b.End, Bytes: held[b.Stage]})
		}
	}
	return out
}

func pipelineView(time float64, tls ...Timeline) PipelineView {
	return PipelineView{Width: 800, Height: 500, Stage: Rect{0, 0, 800, 500}, Scale: 1, Theme: Dark, Timelines: tls, Time: time}
}

// rowBubbles sums the grey rectangles' widths by row (their y), and
// returns the seconds a pixel is worth, from the row panels' length.
func rowBubbles(t *testing.T, l List, length float64) (map[float32]float32, float32) {
	t.Helper()
	grey := map[float32]float32{}
	var panel float32
	for _, it := range l.Items {
		if it.Color == Dark.Empty {
			if it.Kind != FillRect {
				t.Fatalf("the bubble colour on a %s", kindNames[it.Kind])
			}
			grey[it.Y] += it.W
		}
		if it.Kind == FillRect && it.Color == Dark.Panel {
			panel = it.W
		}
	}
	return grey, panel / float32(length)
}

// The bubbles are exactly the idle time on each row before its last
// block, and a larger share of the step with one micro-batch than with
// eight (GPipe, p = 4: (p−1)/(m+p−1) of the row).
func TestPipelineBubbles(t *testing.T) {
	share := map[int]float64{}
	for _, m := range []int{1, 8} {
		pt := schedule(t, parallel.GPipe, 4, m, 1, 1e-3, 2e-3)
		l := AppendPipeline(List{}, pipelineView(-1, toView("GPipe", pt, 0)))
		grey, pxPerS := rowBubbles(t, l, pt.Length)
		if len(grey) != 4 {
			t.Fatalf("m=%d: bubbles on %d rows, want 4", m, len(grey))
		}
		// Idle seconds per stage from the schedule itself.
		var idle, rows float64
		ys := make([]float32, 0, 4)
		for y := range grey {
			ys = append(ys, y)
		}
		slices.Sort(ys)
		for s, y := range ys {
			var busy, end float64
			for _, b := range pt.Blocks {
				if b.Stage == s {
					busy += b.End - b.Start
					end = max(end, b.End)
				}
			}
			want := float32(end-busy) * pxPerS
			if got := grey[y]; math.Abs(float64(got-want)) > 0.5 {
				t.Errorf("m=%d stage %d: %.1f px of bubble, want %.1f", m, s, got, want)
			}
			idle += float64(grey[y])
			rows += end * float64(pxPerS)
		}
		share[m] = idle / rows
	}
	if share[1] < 0.6 || share[8] > share[1]/2 {
		t.Errorf("bubble share: %.2f with m=1, %.2f with m=8; want most of the rows idle with one micro-batch and under half that with 8", share[1], share[8])
	}
}

// Blocks out of order on a row (sends appended after the compute, as
// engine/parallel lists them) give the same bubbles, in the sorted and
// in the scanning fallback.
func TestPipelineBubblesUnordered(t *testing.T) {
	pt := schedule(t, parallel.OneFOneB, 4, 8, 1, 1e-3, 2e-3)
	in := toView("1F1B", pt, 0)
	out := in
	out.Blocks = slices.Clone(in.Blocks)
	slices.Reverse(out.Blocks)
	a, _ := rowBubbles(t, AppendPipeline(List{}, pipelineView(-1, in)), pt.Length)
	b, _ := rowBubbles(t, AppendPipeline(List{}, pipelineView(-1, out)), pt.Length)
	for y, w := range a {
		if math.Abs(float64(b[y]-w)) > 0.01 {
			t.Errorf("row at %.0f: %.2f px of bubble in order, %.2f reversed", y, w, b[y])
		}
	}
	// 600 blocks on one row, reversed: past the sorting buffer.
	var many Timeline
	many.Stages, many.Length = 1, 1200
	for k := 599; k >= 0; k-- {
		many.Blocks = append(many.Blocks, TimelineBlock{Kind: BlockForward, MicroBatch: -1, Start: float64(2 * k), End: float64(2*k + 1)})
	}
	grey, pxPerS := rowBubbles(t, AppendPipeline(List{}, pipelineView(-1, many)), many.Length)
	if want := 599 * pxPerS; math.Abs(float64(grey[grey0(grey)]-want)) > 0.5 {
		t.Errorf("600 reversed blocks: %.1f px of bubble, want %.1f", grey[grey0(grey)], want)
	}
}

func grey0(m map[float32]float32) float32 {
	for y := range m {
		return y
	}
	return 0
}

// A block is as wide as it lasts (less a hairline between blocks): a
// backward twice a forward; every block of the schedule is drawn, with
// its micro-batch's number when wide enough.
func TestPipelineBlocks(t *testing.T) {
	pt := schedule(t, parallel.OneFOneB, 4, 8, 1, 1e-3, 2e-3)
	l := AppendPipeline(List{}, pipelineView(-1, toView("1F1B", pt, 0)))
	_, pxPerS := rowBubbles(t, l, pt.Length)
	var fw, bw []float32
	numbers := 0
	for _, it := range l.Items {
		switch {
		case it.Kind == FillRect && it.Color == Dark.LinkActive:
			fw = append(fw, it.W+1)
		case it.Kind == FillRect && it.Color == Dark.Rim:
			bw = append(bw, it.W+1)
		case it.Kind == Text && it.Color == Dark.Background:
			numbers++
		}
	}
	if len(fw) != 32 || len(bw) != 32 {
		t.Fatalf("%d forward and %d backward blocks, want 32 each", len(fw), len(bw))
	}
	for i := range fw {
		if math.Abs(float64(fw[i]-1e-3*pxPerS)) > 0.1 || math.Abs(float64(bw[i]-2e-3*pxPerS)) > 0.1 {
			t.Fatalf("block widths %.2f and %.2f px, want %.2f and %.2f", fw[i], bw[i], 1e-3*pxPerS, 2e-3*pxPerS)
		}
	}
	if numbers != 64 {
		t.Errorf("%d micro-batch numbers, want one per block (64)", numbers)
	}
}

// After the playhead, blocks are faint and start after it; before it,
// solid and end before it; a line marks it.
func TestPipelinePlayhead(t *testing.T) {
	pt := schedule(t, parallel.OneFOneB, 4, 8, 1, 1e-3, 2e-3)
	now := pt.Length * 0.4
	l := AppendPipeline(List{}, pipelineView(now, toView("1F1B", pt, 0)))
	var play float32 = -1
	for _, it := range l.Items {
		if it.Kind == Line && it.Color == Dark.Text && it.X == it.X2 {
			play = it.X
		}
	}
	if play < 0 {
		t.Fatal("no playhead line")
	}
	var solid, faint int
	for _, it := range l.Items {
		if it.Kind != FillRect || (it.Color.R != Dark.LinkActive.R || it.Color.G != Dark.LinkActive.G) {
			continue
		}
		switch it.Color.A {
		case 255:
			solid++
			if it.X+it.W > play+0.01 {
				t.Errorf("solid block to %.1f past the playhead at %.1f", it.X+it.W, play)
			}
		case pipeFaint:
			faint++
			if it.X < play-0.01 {
				t.Errorf("faint block from %.1f before the playhead at %.1f", it.X, play)
			}
		}
	}
	if solid == 0 || faint == 0 {
		t.Errorf("%d solid and %d faint forward blocks, want both", solid, faint)
	}
}

// The other kinds: recomputation hatched inside its block, communication
// a third of the row, the data-parallel lane under the row (hidden
// lighter than exposed), the optimizer neutral, chunk 1 a shade of chunk
// 0, and the activation chart's maximum labelled.
func TestPipelineKinds(t *testing.T) {
	tl := kindsTimeline()
	l := AppendPipeline(List{}, pipelineView(-1, tl))
	golden.Check(t, "pipeline_kinds.golden", l.String())
	find := func(c Color) []Item {
		var r []Item
		for _, it := range l.Items {
			if it.Kind == FillRect && it.Color == c {
				r = append(r, it)
			}
		}
		return r
	}
	fwd, bwd := find(Dark.LinkActive), find(Dark.Rim)
	if len(fwd) != 2 || len(bwd) != 3 {
		t.Fatalf("%d forward, %d backward/recompute rects", len(fwd), len(bwd))
	}
	rowH := fwd[0].H
	if len(find(chunkShade(Dark.LinkActive, 1))) != 1 || chunkShade(Dark.LinkActive, 1) == Dark.LinkActive {
		t.Error("chunk 1's forward not drawn in its own shade")
	}
	comm := find(mix(Dark.Hot, Color{0, 0, 0, 255}, 0.3))
	if len(comm) != 1 || math.Abs(float64(comm[0].H-rowH/3)) > 0.01 {
		t.Errorf("communication: %v, want one bar a third of the row (%.1f)", comm, rowH/3)
	}
	exposed, hidden := find(Dark.Hot), find(withAlpha(Dark.Hot, 110))
	if len(exposed) != 1 || len(hidden) != 1 || exposed[0].Y < fwd[0].Y+rowH || hidden[0].Y < fwd[0].Y+rowH {
		t.Errorf("data-parallel buckets: exposed %v, hidden %v; want one each under the row", exposed, hidden)
	}
	if len(find(Dark.Dim)) != 1 {
		t.Error("no optimizer block")
	}
	// The recomputation is the first green block on stage 0 (6…8 ms).
	rc := Item{X: float32(math.Inf(1))}
	for _, it := range bwd {
		if it.Y == fwd[0].Y && it.X < rc.X {
			rc = it
		}
	}
	hatch := 0
	for _, it := range l.Items {
		if it.Kind == Line && it.Color == withAlpha(Dark.Background, 170) {
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
		found = found || (it.Kind == Text && it.Text == "max 1.5 GB")
	}
	if !found {
		t.Error("no \"max 1.5 GB\" label on the activation chart")
	}
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

// GPipe, 1F1B (with its activations) and interleaved on one axis,
// mid-step.
func TestPipelinePicture(t *testing.T) {
	g := schedule(t, parallel.GPipe, 4, 4, 1, 1e-3, 2e-3)
	o := schedule(t, parallel.OneFOneB, 4, 4, 1, 1e-3, 2e-3)
	i := schedule(t, parallel.Interleaved, 4, 4, 2, 1e-3, 2e-3)
	v := pipelineView(0.012, toView("GPipe  p=4 m=4", g, 0), toView("1F1B  p=4 m=4", o, 0.5e9), toView("interleaved v=2", i, 0))
	golden.Check(t, "pipeline.golden", AppendPipeline(List{}, v).String())
}

// Nothing to draw draws the background only; a zero-length timeline does
// not divide by zero.
func TestPipelineEmpty(t *testing.T) {
	for _, v := range []PipelineView{
		pipelineView(-1),
		pipelineView(-1, Timeline{}),
		pipelineView(0, Timeline{Stages: 3}),
		{Width: 800, Height: 500, Theme: Dark, Timelines: []Timeline{kindsTimeline()}},
	} {
		if l := AppendPipeline(List{}, v); len(l.Items) != 0 || l.Background != Dark.Background {
			t.Errorf("%d items for %+v", len(l.Items), v)
		}
	}
	// A tiny stage still draws without NaNs.
	v := pipelineView(-1, kindsTimeline())
	v.Stage = Rect{0, 0, 120, 60}
	for _, it := range AppendPipeline(List{}, v).Items {
		if math.IsNaN(float64(it.X)) || math.IsNaN(float64(it.W)) || math.IsNaN(float64(it.Y)) {
			t.Fatalf("NaN in %+v", it)
		}
	}
}

func benchView(b testing.TB) PipelineView {
	const f, bw = 1e-3, 2e-3
	v := PipelineView{Width: 1280, Height: 800, Stage: Rect{0, 0, 1280, 800}, Scale: 1, Theme: Dark}
	v.Timelines = []Timeline{
		toView("GPipe  p=8 m=32", schedule(b, parallel.GPipe, 8, 32, 1, f, bw), 0.25e9),
		toView("1F1B  p=8 m=32", schedule(b, parallel.OneFOneB, 8, 32, 1, f, bw), 0.25e9),
		toView("interleaved v=2", schedule(b, parallel.Interleaved, 8, 32, 2, f, bw), 0.125e9),
	}
	return v
}

// Drawing into a reused list allocates only a few labels' strings (the
// ticks', the maxima's), none a block: twice the blocks, as many
// allocations.
func TestPipelineAllocs(t *testing.T) {
	v := benchView(t)
	v.Time = 0.05
	l := AppendPipeline(List{}, v)
	allocs := testing.AllocsPerRun(20, func() { l = AppendPipeline(l, v) })
	if allocs > 16 {
		t.Errorf("%.0f allocations a frame, want at most 16", allocs)
	}
	for i := range v.Timelines {
		v.Timelines[i].Blocks = append(slices.Clone(v.Timelines[i].Blocks), v.Timelines[i].Blocks...)
	}
	l = AppendPipeline(l, v)
	if twice := testing.AllocsPerRun(20, func() { l = AppendPipeline(l, v) }); twice != allocs {
		t.Errorf("%.0f allocations a frame with twice the blocks, %.0f with them once", twice, allocs)
	}
}

// BenchmarkPipeline draws GPipe, 1F1B and interleaved (v = 2) timelines of
// 8 stages and 32 micro-batches, with their activations, at 1280×800, the
// playhead moving, as the page does every frame.
func BenchmarkPipeline(b *testing.B) {
	v := benchView(b)
	span := v.Timelines[0].Length
	var list List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = span * float64(i%100) / 100
		list = AppendPipeline(list, v)
	}
	b.ReportMetric(float64(len(list.Items)), "items")
}

// BenchmarkPipelineInterleaved4 is the pipeline lesson's heaviest picture:
// 8 stages, 32 micro-batches, 4 chunks a stage, each block followed by a
// communication block and preceded by a recompute block (over 512 blocks
// a stage, out of order) — it took 70 ms a frame while the gaps were found
// by a quadratic scan.
func BenchmarkPipelineInterleaved4(b *testing.B) {
	tl := toView("interleaved", schedule(b, parallel.Interleaved, 8, 32, 4, 1, 2), 1e9)
	var extra []TimelineBlock
	for _, x := range tl.Blocks {
		mid := (x.Start + x.End) / 2
		extra = append(extra, TimelineBlock{Stage: x.Stage, Kind: BlockComm, MicroBatch: -1, Start: mid, End: x.End},
			TimelineBlock{Stage: x.Stage, Kind: BlockRecompute, MicroBatch: -1, Start: x.Start, End: mid})
	}
	tl.Blocks = append(extra, tl.Blocks...) // out of order, as the page's are
	v := pipelineView(0, tl, tl, tl)
	var list List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = tl.Length * float64(i%100) / 100
		list = AppendPipeline(list, v)
	}
}
