package render

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

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
