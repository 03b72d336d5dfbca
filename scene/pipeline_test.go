package scene

// The pipeline picture, from the real conversion of a schedule (convert)
// to what render draws.

import (
	"math"
	"slices"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/render"
)

// toView is a bare schedule as the lesson converts it: compute blocks
// only (no TP, DP or optimizer time), with act bytes a chunk-micro-batch
// on every stage when act > 0.
func toView(label string, tl parallel.Timeline, act float64) render.Timeline {
	var per []float64
	if act > 0 {
		per = make([]float64, tl.Stages)
		for i := range per {
			per[i] = act
		}
	}
	v := convert(tl, shares{}, per)
	v.Label = label
	return v
}

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

// rowBubbles sums the grey rectangles' widths by row (their y), and
// returns the seconds a pixel is worth, from the row panels' length.
func rowBubbles(t *testing.T, l render.List, length float64) (map[float32]float32, float32) {
	t.Helper()
	grey := map[float32]float32{}
	var panel float32
	top := rowsTop(l)
	for _, it := range l.Items {
		if it.Y < top {
			continue // the legend
		}
		if it.Color == render.Dark.Empty {
			if it.Kind != render.FillRect {
				t.Fatalf("the bubble colour on an item of kind %d", it.Kind)
			}
			grey[it.Y] += it.W
		}
		if it.Kind == render.FillRect && it.Color == render.Dark.Panel {
			panel = it.W
		}
	}
	return grey, panel / float32(length)
}

// rowsTop is where the rows start: the top of the first row's panel
// (the headline and the legend are above it).
func rowsTop(l render.List) float32 {
	top := float32(math.Inf(1))
	for _, it := range l.Items {
		if it.Kind == render.FillRect && it.Color == render.Dark.Panel && it.W > 50 {
			top = min(top, it.Y)
		}
	}
	return top
}

// The bubbles are exactly the idle time on each row before its last
// block, and a larger share of the step with one micro-batch than with
// eight (GPipe, p = 4: (p−1)/(m+p−1) of the row).
func TestPipelineBubbles(t *testing.T) {
	share := map[int]float64{}
	for _, m := range []int{1, 8} {
		pt := schedule(t, parallel.GPipe, 4, m, 1, 1e-3, 2e-3)
		l := render.AppendPipeline(render.List{}, pipelineView(-1, toView("GPipe", pt, 0)))
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
	a, _ := rowBubbles(t, render.AppendPipeline(render.List{}, pipelineView(-1, in)), pt.Length)
	b, _ := rowBubbles(t, render.AppendPipeline(render.List{}, pipelineView(-1, out)), pt.Length)
	for y, w := range a {
		if math.Abs(float64(b[y]-w)) > 0.01 {
			t.Errorf("row at %.0f: %.2f px of bubble in order, %.2f reversed", y, w, b[y])
		}
	}
	// 600 blocks on one row, reversed: past the sorting buffer.
	var many render.Timeline
	many.Stages, many.Length = 1, 1200
	for k := 599; k >= 0; k-- {
		many.Blocks = append(many.Blocks, render.TimelineBlock{Kind: render.BlockForward, MicroBatch: -1, Start: float64(2 * k), End: float64(2*k + 1)})
	}
	grey, pxPerS := rowBubbles(t, render.AppendPipeline(render.List{}, pipelineView(-1, many)), many.Length)
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
	l := render.AppendPipeline(render.List{}, pipelineView(-1, toView("1F1B", pt, 0)))
	_, pxPerS := rowBubbles(t, l, pt.Length)
	var fw, bw []float32
	numbers := 0
	top := rowsTop(l)
	for _, it := range l.Items {
		switch {
		case it.Y < top: // the legend
		case it.Kind == render.FillRect && it.Color == render.Dark.LinkActive:
			fw = append(fw, it.W+1)
		case it.Kind == render.FillRect && it.Color == render.Dark.Rim:
			bw = append(bw, it.W+1)
		case it.Kind == render.Text && it.Color == render.Dark.Background:
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

// The blocks are drawn in full colour wherever the playhead is; after
// them, each row is veiled from the playhead to its end, in the
// background's colour, and a line marks the playhead. Everything before
// the veils is the same at another time, for the painter to keep drawn
// (render/paint's prefix cache).
func TestPipelinePlayhead(t *testing.T) {
	pt := schedule(t, parallel.OneFOneB, 4, 8, 1, 1e-3, 2e-3)
	at := func(now float64) (l render.List, play float32, veils []int) {
		l = render.AppendPipeline(render.List{}, pipelineView(now, toView("1F1B", pt, 0)))
		play = -1
		for i, it := range l.Items {
			if it.Kind == render.Line && it.Color == render.Dark.Text && it.X == it.X2 {
				play = it.X
			}
			bg := render.Dark.Background
			if it.Kind == render.FillRect && it.Color.R == bg.R && it.Color.G == bg.G && it.Color.B == bg.B && it.Color.A > 0 && it.Color.A < 255 {
				veils = append(veils, i)
			}
		}
		if play < 0 {
			t.Fatal("no playhead line")
		}
		return l, play, veils
	}
	l, play, veils := at(pt.Length * 0.4)
	if len(veils) < 4 {
		t.Fatalf("%d veils, want one a row (4) at least", len(veils))
	}
	for _, i := range veils {
		if it := l.Items[i]; math.Abs(float64(it.X-play)) > 0.01 {
			t.Errorf("a veil from %.1f, want from the playhead at %.1f", it.X, play)
		}
	}
	var before, after int
	for i, it := range l.Items {
		if it.Kind != render.FillRect || it.Color.R != render.Dark.LinkActive.R || it.Color.G != render.Dark.LinkActive.G {
			continue
		}
		if it.Color.A != 255 {
			t.Errorf("a forward block in %s, want it in full colour", it.Color.Hex())
		}
		if i > veils[0] {
			t.Errorf("a forward block (item %d) after the first veil (item %d)", i, veils[0])
		}
		if it.X+it.W <= play {
			before++
		} else if it.X >= play {
			after++
		}
	}
	if before == 0 || after == 0 {
		t.Errorf("%d forward blocks before the playhead and %d after, want both", before, after)
	}
	l2, _, veils2 := at(pt.Length * 0.6)
	n := 0
	for n < min(len(l.Items), len(l2.Items)) && l.Items[n] == l2.Items[n] {
		n++
	}
	if n < veils[0] || veils2[0] != veils[0] {
		t.Errorf("the lists at 40%% and 60%% of the step share %d items; the veils begin at items %d and %d", n, veils[0], veils2[0])
	}
}

// GPipe, 1F1B (with its activations) and interleaved on one axis,
// mid-step.
func TestPipelinePicture(t *testing.T) {
	g := schedule(t, parallel.GPipe, 4, 4, 1, 1e-3, 2e-3)
	o := schedule(t, parallel.OneFOneB, 4, 4, 1, 1e-3, 2e-3)
	i := schedule(t, parallel.Interleaved, 4, 4, 2, 1e-3, 2e-3)
	v := pipelineView(0.012, toView("GPipe  p=4 m=4", g, 0), toView("1F1B  p=4 m=4", o, 0.5e9), toView("interleaved v=2", i, 0))
	golden.Check(t, "pipeline.golden", render.AppendPipeline(render.List{}, v).String())
}

func benchView(b testing.TB) render.PipelineView {
	const f, bw = 1e-3, 2e-3
	v := render.PipelineView{Width: 1280, Height: 800, Stage: render.Rect{X: 0, Y: 0, W: 1280, H: 800}, Scale: 1, Theme: render.Dark}
	v.Timelines = []render.Timeline{
		toView("GPipe  p=8 m=32", schedule(b, parallel.GPipe, 8, 32, 1, f, bw), 0.25e9),
		toView("1F1B  p=8 m=32", schedule(b, parallel.OneFOneB, 8, 32, 1, f, bw), 0.25e9),
		toView("interleaved v=2", schedule(b, parallel.Interleaved, 8, 32, 2, f, bw), 0.125e9),
	}
	return v
}

// Drawing into a reused list with a cache allocates nothing, frame
// after frame, the playhead moving; twice the blocks (derived again
// once, into the cache's storage), still nothing.
func TestPipelineAllocs(t *testing.T) {
	v := benchView(t)
	v.Cache = new(render.PipelineCache)
	v.Time = 0.05
	l := render.AppendPipeline(render.List{}, v)
	frame := 0
	draw := func() {
		frame++
		v.Time = v.Timelines[0].Length * float64(frame%100) / 100
		l = render.AppendPipeline(l, v)
	}
	if allocs := testing.AllocsPerRun(20, draw); allocs != 0 {
		t.Errorf("%.0f allocations a frame, want none", allocs)
	}
	for i := range v.Timelines {
		v.Timelines[i].Blocks = append(slices.Clone(v.Timelines[i].Blocks), v.Timelines[i].Blocks...)
	}
	l = render.AppendPipeline(l, v)
	if twice := testing.AllocsPerRun(20, draw); twice != 0 {
		t.Errorf("%.0f allocations a frame with twice the blocks, want none", twice)
	}
	// Without a cache it is drawn the same.
	c := v
	c.Cache = nil
	if got, want := render.AppendPipeline(render.List{}, c).String(), render.AppendPipeline(render.List{}, v).String(); got != want {
		t.Error("the picture with a cache differs from the one without")
	}
}

// With a cache, a frame whose playhead alone has moved copies what stands
// still from the last frame: the picture is, frame after frame, the one
// drawn afresh for that playhead — before the first block, mid-way,
// after the end, all done (−1) — and a change of anything else (the
// size, the language, the headline, the time lines) draws it anew.
func TestPipelineStillCache(t *testing.T) {
	v := benchView(t)
	v.Cache = new(render.PipelineCache)
	fresh := func(v render.PipelineView) string {
		v.Cache = nil
		return render.AppendPipeline(render.List{}, v).String()
	}
	var l render.List
	end := v.Timelines[0].Length
	for _, tm := range []float64{0, end * 0.3, end * 0.7, end * 2, -1, end * 0.5} {
		v.Time = tm
		if l = render.AppendPipeline(l, v); l.String() != fresh(v) {
			t.Errorf("playhead %g: the cached picture differs from one drawn afresh", tm)
		}
	}
	changes := map[string]func(*render.PipelineView){
		"width": func(v *render.PipelineView) { v.Width, v.Stage.W = v.Width*0.7, v.Stage.W*0.7 },
		"language": func(v *render.PipelineView) {
			v.Words = render.Words{Lang: "test-words", T: func(k string, _ ...string) string { return "«" + k + "»" }}
		},
		"headline":  func(v *render.PipelineView) { v.Headline = "another point" },
		"reference": func(v *render.PipelineView) { v.Ref = end * 0.8 },
		"time lines": func(v *render.PipelineView) {
			v.Timelines = append([]render.Timeline(nil), v.Timelines[:2]...)
		},
	}
	for name, change := range changes {
		w := v
		change(&w)
		before := l.String()
		if l = render.AppendPipeline(l, w); l.String() != fresh(w) {
			t.Errorf("%s changed: the cached picture differs from one drawn afresh", name)
		} else if l.String() == before {
			t.Errorf("%s changed: the picture did not", name)
		}
		l = render.AppendPipeline(l, v) // and back
	}
}

// BenchmarkPipeline draws GPipe, 1F1B and interleaved (v = 2) timelines of
// 8 stages and 32 micro-batches, with their activations, at 1280×800, the
// playhead moving, as the page does every frame.
func BenchmarkPipeline(b *testing.B) {
	v := benchView(b)
	v.Cache = new(render.PipelineCache) // as the page's scene.Picture keeps one
	span := v.Timelines[0].Length
	var list render.List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = span * float64(i%100) / 100
		list = render.AppendPipeline(list, v)
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
	var extra []render.TimelineBlock
	for _, x := range tl.Blocks {
		mid := (x.Start + x.End) / 2
		extra = append(extra, render.TimelineBlock{Stage: x.Stage, Kind: render.BlockComm, MicroBatch: -1, Start: mid, End: x.End},
			render.TimelineBlock{Stage: x.Stage, Kind: render.BlockRecompute, MicroBatch: -1, Start: x.Start, End: mid})
	}
	tl.Blocks = append(extra, tl.Blocks...) // out of order, as the page's are
	v := pipelineView(0, tl, tl, tl)
	v.Cache = new(render.PipelineCache)
	var list render.List
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Time = tl.Length * float64(i%100) / 100
		list = render.AppendPipeline(list, v)
	}
}

func pipelineView(time float64, tls ...render.Timeline) render.PipelineView {
	return render.PipelineView{Width: 800, Height: 500, Stage: render.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: render.Dark, Timelines: tls, Time: time}
}
