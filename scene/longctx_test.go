package scene

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// longLesson is the long-context lesson at its defaults.
func longLesson(t *testing.T) *scenarios.Lesson {
	s, ok := scenarios.Get("long-context")
	if !ok {
		t.Fatal("no long-context lesson")
	}
	return prepare(t, s)
}

// The sweep's question asks for the activations at 131,072 tokens: until
// it is answered that bar is drawn empty (fewer activation rects), the
// others as they are.
func TestLongSweepConceals(t *testing.T) {
	les := longLesson(t)
	acts := func(pending bool) int {
		var p Picture
		l := p.Build(render.List{}, Moment{Lesson: les, Step: 1, Time: les.Steps[0].To, Pending: pending}, desktop)
		n := 0
		for _, it := range l.Items {
			if it.Kind == render.FillRect && it.Color == (render.Color{R: 0xcc, G: 0x79, B: 0xa7, A: 255}) && it.H > 2 {
				n++
			}
		}
		return n
	}
	if open, hidden := acts(false), acts(true); hidden != open-1 || open < 5 {
		t.Errorf("activation bars: %d answered, %d pending; want the 5 bars less the asked one", open, hidden)
	}
}

// One number, one source: the exchange's lanes end where the engine's
// layer does — the all-gather after its gather and the attention, the
// ring after the attention and what its sends leave exposed.
func TestLongExchangeIsTheEngines(t *testing.T) {
	les := longLesson(t)
	run := les.Steps[2].Run.(*scenarios.PlanRun)
	l := run.Exchange
	if l.CP != 16 {
		t.Fatalf("exchange step CP %d", l.CP)
	}
	ag, ring := exchangeLanes(l)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	if !near(ag.End, l.AllGather+l.Attention) || !near(ring.End-l.Attention, l.ExposedRing) {
		t.Errorf("lanes end at %g and %g; engine: all-gather %g + attention %g, ring exposes %g", ag.End, ring.End, l.AllGather, l.Attention, l.ExposedRing)
	}
	if len(ag.Sends) != 15 || len(ag.Computes) != 16 || len(ring.Sends) != 15 || len(ring.Computes) != 16 {
		t.Errorf("blocks: all-gather %d sends %d computes, ring %d and %d", len(ag.Sends), len(ag.Computes), len(ring.Sends), len(ring.Computes))
	}
	// The ring brings every other GPU's block once.
	seen := map[int]bool{}
	for _, s := range ring.SendSrc {
		seen[s] = true
	}
	if len(seen) != 15 || seen[0] {
		t.Errorf("ring sends from %v", ring.SendSrc)
	}
	// The step's clock runs over the slower lane (to the picosecond).
	if got := les.Steps[2].To.Seconds(); math.Abs(got-max(ag.End, ring.End)) > 1e-12 {
		t.Errorf("the step's window ends at %g s, the slower lane at %g", got, max(ag.End, ring.End))
	}
}
