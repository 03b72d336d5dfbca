package parallel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// orders is each stage's block order as the schedules define it, written
// out in full: the oracle the cursor that runs them must follow.
func orders(s Schedule, p, m, v int) [][]op {
	out := make([][]op, p)
	for st := range p {
		var o []op
		switch s {
		case GPipe:
			for i := range m {
				o = append(o, op{true, i, 0})
			}
			for i := range m {
				o = append(o, op{false, i, 0})
			}
		case OneFOneB:
			w := min(p-st-1, m)
			for i := range w {
				o = append(o, op{true, i, 0})
			}
			for k := 0; k < m-w; k++ {
				o = append(o, op{true, w + k, 0}, op{false, k, 0})
			}
			for k := m - w; k < m; k++ {
				o = append(o, op{false, k, 0})
			}
		case Interleaved:
			total := m * v
			at := func(k int, forward bool) op {
				g, in := k/(p*v), k%(p*v)
				c := in / p
				if !forward {
					c = v - 1 - c
				}
				return op{forward, g*p + in%p, c}
			}
			w := min(2*(p-st-1)+(v-1)*p, total)
			for k := range w {
				o = append(o, at(k, true))
			}
			for k := 0; k < total-w; k++ {
				o = append(o, at(w+k, true), at(k, false))
			}
			for k := total - w; k < total; k++ {
				o = append(o, at(k, false))
			}
		}
		out[st] = o
	}
	return out
}

// The cursor walks every stage's blocks in the schedule's order.
func TestCursorFollowsTheSchedules(t *testing.T) {
	for _, c := range []struct {
		s       Schedule
		p, m, v int
	}{{GPipe, 4, 8, 1}, {GPipe, 1, 3, 1}, {OneFOneB, 4, 8, 1}, {OneFOneB, 8, 3, 1}, {OneFOneB, 1, 5, 1},
		{Interleaved, 4, 8, 2}, {Interleaved, 4, 4, 3}, {Interleaved, 8, 16, 4}, {Interleaved, 2, 2, 5}} {
		want := orders(c.s, c.p, c.m, c.v)
		for st := range c.p {
			cur := newCursor(c.s, c.p, c.m, c.v, st)
			for k, w := range want[st] {
				if got := cur.op(c.p, c.v); got != w {
					t.Fatalf("%v stage %d block %d: %+v, want %+v", c, st, k, got, w)
				}
				cur.next(w, c.p, c.v)
			}
		}
	}
}

// A pipeline worked by hand: two stages, two micro-batches, stage 0 a
// forward of 1 and a backward of 2, stage 1 (the critical one) 2 and 3,
// sends of 0.5. GPipe's blocks: stage 0 F0 0–1, F1 1–2; stage 1 F0
// 1.5–3.5, F1 3.5–5.5, B0 5.5–8.5, B1 8.5–11.5; stage 0 B0 9–11, B1
// 12–14: 14 with sends. Without: stage 1 F0 1–3, F1 3–5, B0 5–8, B1
// 8–11; stage 0 B1 11–13: 13. 1F1B (stage 0 F0 F1 B0 B1, stage 1 F0 B0
// F1 B1) ends at the same 14 and 13. The critical stage's own work is
// 2 × (2 + 3) = 10: a bubble of 3 and 1 of sends on the critical path.
func TestScheduleWorkedByHand(t *testing.T) {
	f, b := []float64{1, 2}, []float64{2, 3}
	for _, s := range []Schedule{GPipe, OneFOneB} {
		with, without, err := scheduleLengths(s, 2, 2, 1, f, b, 0.5, &keptOrders)
		if err != nil || with != 14 || without != 13 {
			t.Errorf("%s: %g with sends, %g without (%v); want 14 and 13", s, with, without, err)
		}
		tl, _ := BuildTimeline(s, 2, 2, 1, f, b, 0.5)
		if tl.Length != 14 || tl.Ideal != 10 || tl.Bubble != 4 {
			t.Errorf("%s: time line %g long, ideal %g, bubble %g; want 14, 10, 4", s, tl.Length, tl.Ideal, tl.Bubble)
		}
	}
	tl, _ := BuildTimeline(GPipe, 2, 2, 1, f, b, 0.5)
	want := map[[3]int][2]float64{ // stage, micro-batch, backward → start, end
		{1, 0, 0}: {1.5, 3.5}, {1, 1, 0}: {3.5, 5.5}, {1, 0, 1}: {5.5, 8.5}, {1, 1, 1}: {8.5, 11.5},
		{0, 0, 1}: {9, 11}, {0, 1, 1}: {12, 14},
	}
	for _, bl := range tl.Blocks {
		k := [3]int{bl.Stage, bl.MicroBatch, 0}
		if bl.Kind == Backward {
			k[2] = 1
		} else if bl.Kind != Forward {
			continue
		}
		if w, ok := want[k]; ok && (bl.Start != w[0] || bl.End != w[1]) {
			t.Errorf("GPipe %v: %g–%g, want %g–%g", k, bl.Start, bl.End, w[0], w[1])
		}
	}
}

// One number, one place: a plan's step time is its time line's length —
// the schedule run block by block, then each stage's exposed all-reduce
// and optimizer update — and the bubble and the sends are what that run
// takes beyond the critical stage's work.
func TestStepIsTheTimeline(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2026))
	h100, _ := hw.GPUByID("h100")
	n := 0
	for _, id := range model.PresetIDs() {
		m, _ := model.Preset(id)
		for range 40 {
			c, ok := randomPlan(rng, m, h100)
			if !ok || c.Plan.PP*c.Plan.GlobalBatch/(c.Plan.DP*c.Plan.MicroBatch)*c.Plan.Interleave > 1<<15 {
				continue
			}
			r, err := Evaluate(c)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := r.Timeline()
			if err != nil {
				t.Fatalf("%+v: %v", c.Plan, err)
			}
			n++
			tm := r.Time
			if !within(tl.Length, tm.Step, 1e-9) {
				t.Errorf("%s %+v: time line %g s, step %g s", id, c.Plan, tl.Length, tm.Step)
			}
			pipe := 0.0
			hidden, exposed := 0.0, 0.0
			for _, b := range tl.Blocks {
				switch {
				case b.Kind == Forward || b.Kind == Backward:
					pipe = max(pipe, b.End)
				case b.Kind == AllReduce && b.Stage == 0 && b.Hidden:
					hidden += b.End - b.Start
				case b.Kind == AllReduce && b.Stage == 0:
					exposed += b.End - b.Start
				}
			}
			if !within(pipe, tm.Compute+tm.TPComm+tm.PPComm+tm.Bubble, 1e-9) {
				t.Errorf("%s %+v: pipeline %g s, compute + TP + sends + bubble %g s", id, c.Plan, pipe, tm.Compute+tm.TPComm+tm.PPComm+tm.Bubble)
			}
			if math.Abs(hidden-min(tm.DPHidden, pipe)) > 1e-9*tm.Step || math.Abs(exposed-(tm.DPComm-tm.DPHidden+tm.NICShared)) > 1e-9*tm.Step {
				t.Errorf("%s %+v: all-reduce drawn %g hidden, %g exposed; the step's %g of %g hidden, and %g lost to NIC sharing", id, c.Plan, hidden, exposed, tm.DPHidden, tm.DPComm, tm.NICShared)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d plans checked", n)
	}
}

// With equal stages the schedule's bubble is the closed form's: (p−1)/v
// slots of the critical stage.
func TestEqualStagesBubbleIsTheClosedForm(t *testing.T) {
	for _, c := range []struct {
		s       Schedule
		p, m, v int
	}{{GPipe, 4, 1, 1}, {GPipe, 4, 4, 1}, {OneFOneB, 8, 8, 1}, {Interleaved, 4, 8, 2}, {Interleaved, 8, 16, 4}} {
		f, b := make([]float64, c.p), make([]float64, c.p)
		for i := range f {
			f[i], b[i] = 0.75, 2.25
		}
		_, without, err := scheduleLengths(c.s, c.p, c.m, c.v, f, b, 0, &keptOrders)
		if want := float64(c.m)*3 + float64(c.p-1)/float64(c.v)*3; err != nil || !within(without, want, 1e-12) {
			t.Errorf("%v: %g, want m·slot + (p−1)/v·slot = %g (%v)", c, without, want, err)
		}
	}
}

// A shape's kept order times it as runSchedule does, bit for bit: every
// schedule over stages, micro-batches and chunks from one up, fewer
// micro-batches than stages included, with equal stages, random ones,
// stages taking nothing, no sends and sends longer than a block, and
// the times a check lets through that are not durations (+Inf, NaN).
func TestReplayIsTheRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 37))
	type shape struct {
		s       Schedule
		p, m, v int
	}
	var shapes []shape
	for _, p := range []int{1, 2, 3, 4, 5, 8, 16} {
		for _, m := range []int{1, 2, 3, p - 1, p, p + 1, 2 * p, 3*p + 1, 8 * p} {
			if m < 1 {
				continue
			}
			shapes = append(shapes, shape{GPipe, p, m, 1}, shape{OneFOneB, p, m, 1})
			if m%p == 0 {
				for _, v := range []int{1, 2, 3, 4} {
					shapes = append(shapes, shape{Interleaved, p, m, v})
				}
			}
		}
	}
	shapes = append(shapes, shape{Interleaved, 16, 16, 4}, shape{Interleaved, 16, 128, 4}, shape{OneFOneB, 16, 120, 1})
	times := func(p, kind int) (fwd, bwd []float64) {
		fwd, bwd = make([]float64, p), make([]float64, p)
		for st := range p {
			switch kind {
			case 0: // equal
				fwd[st], bwd[st] = 0.75, 2.25
			case 1: // a heavier first and last stage
				fwd[st], bwd[st] = 1, 2
				fwd[0], bwd[p-1] = 1.25, 2.5
			case 2: // nothing, and −0
				fwd[st], bwd[st] = 0, math.Copysign(0, -1)
			case 3: // random, some stages taking nothing
				if rng.IntN(4) > 0 {
					fwd[st], bwd[st] = rng.Float64(), 3*rng.Float64()
				}
			case 4: // one stage forever, one NaN
				fwd[st], bwd[st] = rng.Float64(), rng.Float64()
				fwd[rng.IntN(p)], bwd[rng.IntN(p)] = math.Inf(1), math.NaN()
			}
		}
		return fwd, bwd
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	kept := orderCache{max: maxOrderBlocks}
	n := 0
	for _, c := range shapes {
		if 2*c.p*c.m*c.v > maxOrderBlocks {
			t.Fatalf("%v: %d blocks, more than are kept", c, 2*c.p*c.m*c.v)
		}
		var order []placed
		fwd, bwd := times(c.p, 3)
		if _, _, err := runSchedule(c.s, c.p, c.m, c.v, fwd, bwd, 0.1, recordOrder(&order, c.p, c.m, c.v)); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if len(order) != 2*c.p*c.m*c.v {
			t.Fatalf("%v: %d blocks kept, want %d", c, len(order), 2*c.p*c.m*c.v)
		}
		for kind := range 5 {
			for _, p2p := range []float64{0, math.Copysign(0, -1), 0.01, 1.5, 1e9} {
				fwd, bwd := times(c.p, kind)
				with, without, err := runSchedule(c.s, c.p, c.m, c.v, fwd, bwd, p2p, nil)
				if err != nil {
					t.Fatalf("%v: %v", c, err)
				}
				w, w0 := replaySchedule(order, c.p, c.m, c.v, fwd, bwd, p2p)
				if !same(w, with) || !same(w0, without) {
					t.Fatalf("%v, times %d, sends %g: replayed %v and %v, run %v and %v", c, kind, p2p, w, w0, with, without)
				}
				for range 2 { // the first maybe run, then replayed
					w, w0, err := scheduleLengths(c.s, c.p, c.m, c.v, fwd, bwd, p2p, &kept)
					if err != nil || !same(w, with) || !same(w0, without) {
						t.Fatalf("%v, times %d, sends %g: lengths %v and %v (%v), run %v and %v", c, kind, p2p, w, w0, err, with, without)
					}
					if kept.get(orderKey{c.s, c.p, c.m, c.v}) == nil {
						t.Fatalf("%v: not kept", c)
					}
				}
				n++
			}
		}
	}
	t.Logf("%d shapes, %d runs", len(shapes), n)
}

// The kept orders are shared by goroutines evaluating at once (go test
// -race), more shapes than fit: each gets its own run's lengths, and no
// more blocks are kept than the cache's max.
func TestReplayConcurrently(t *testing.T) {
	fwd, bwd := make([]float64, 8), make([]float64, 8)
	for st := range fwd {
		fwd[st], bwd[st] = 1+float64(st)/8, 2
	}
	want := make(map[int][2]float64)
	for m := 8; m <= 8*12; m += 8 {
		w, w0, _ := runSchedule(Interleaved, 8, m, 2, fwd, bwd, 0.05, nil)
		want[m] = [2]float64{w, w0}
	}
	kept := orderCache{max: 8000} // 32·m blocks a shape: 19,968 for all twelve
	errs := make(chan string, 4)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 60 {
				m := 8 * (1 + (g+k)%12) // twelve shapes: more than are kept
				w, w0, err := scheduleLengths(Interleaved, 8, m, 2, fwd, bwd, 0.05, &kept)
				if err != nil || w != want[m][0] || w0 != want[m][1] {
					errs <- fmt.Sprintf("m %d: %g and %g (%v), want %g and %g", m, w, w0, err, want[m][0], want[m][1])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	blocks := 0
	for _, o := range kept.orders {
		blocks += len(o)
	}
	if blocks != kept.blocks || blocks > kept.max || len(kept.queue) != len(kept.orders) {
		t.Errorf("%d blocks kept in %d orders (%d counted, %d queued), at most %d", blocks, len(kept.orders), kept.blocks, len(kept.queue), kept.max)
	}
}
