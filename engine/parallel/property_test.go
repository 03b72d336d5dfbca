package parallel

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// randomPlan draws a plan Validate accepts for m, or ok false after a few
// tries: TP among the divisors of the heads up to 16, PP among the splits
// of the layers (or layers + 2), a schedule, ZeRO, recomputation, batch
// sizes.
func randomPlan(rng *rand.Rand, m model.Transformer, g hw.GPU) (Config, bool) {
	var tps, pps []int
	for t := 1; t <= 16; t *= 2 {
		if m.Heads%t == 0 {
			tps = append(tps, t)
		}
	}
	for p := 1; p <= 128; p++ {
		if m.Layers%p == 0 || p > 1 && (m.Layers+2)%p == 0 {
			pps = append(pps, p)
		}
	}
	for range 20 {
		p := DefaultPlan(1)
		p.TP, p.PP, p.DP = tps[rng.IntN(len(tps))], pps[rng.IntN(len(pps))], 1<<rng.IntN(7)
		p.MicroBatch = 1 << rng.IntN(3)
		p.GlobalBatch = p.DP * p.MicroBatch * (1 + rng.IntN(64))
		p.Schedule = []Schedule{GPipe, OneFOneB, Interleaved}[rng.IntN(3)]
		if p.Schedule == Interleaved {
			p.Interleave = 2 + rng.IntN(3)
			p.GlobalBatch = p.DP * p.MicroBatch * p.PP * (1 + rng.IntN(8))
		}
		p.ZeRO = rng.IntN(4)
		if p.PP > 1 {
			p.ZeRO = rng.IntN(2)
		}
		p.Recompute = []Recompute{RecomputeNone, RecomputeSelective, RecomputeFull}[rng.IntN(3)]
		p.SP, p.Flash, p.Overlap = p.TP > 1 && rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
		p.BytesPerParam = []int{16, 18}[rng.IntN(2)]
		p.Dtype = []hw.Dtype{hw.BF16, hw.FP16, hw.FP8}[rng.IntN(3)]
		cl := DefaultCluster(g, p.TP*p.PP*p.DP)
		cl.GPUsPerNode = []int{1, 4, 8, 16}[rng.IntN(4)]
		c := Config{Model: m, Plan: p, Cluster: cl}
		if c.Validate() == nil {
			return c, true
		}
	}
	return Config{}, false
}

// Across random valid plans of every preset on every GPU: every number
// finite and non-negative, memory and step time the sums of their parts
// (checkResult).
func TestEvaluatePropertiesRandomPlans(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2025))
	perPair, want := 5, 40
	if runtime.GOARCH == "wasm" { // make test runs it under Node.js too, ~20× slower
		perPair, want = 2, 15
	}
	evaluated := 0
	for _, id := range model.PresetIDs() {
		m, _ := model.Preset(id)
		for _, gid := range hw.GPUIDs() {
			g, _ := hw.GPUByID(gid)
			for range perPair {
				c, ok := randomPlan(rng, m, g)
				if !ok {
					continue
				}
				r, err := Evaluate(c)
				if err != nil {
					t.Fatalf("%s %+v: Validate accepted, Evaluate refused: %v", id, c.Plan, err)
				}
				evaluated++
				checkResult(t, r)
				if t.Failed() {
					t.Fatalf("%s on %s, %+v", id, gid, c.Plan)
				}
			}
		}
	}
	if evaluated < want {
		t.Errorf("only %d random plans evaluated", evaluated)
	}
}

// Every plan a search ranks obeys the same identities, and the ranking
// is by step time; with the zero-bubble schedules too.
func TestSearchPlansAddUp(t *testing.T) {
	m, _ := model.Preset("gpt3-xl")
	g, _ := hw.GPUByID("h100")
	for _, zb := range []bool{false, true} {
		sr, err := Search(SearchOptions{Model: m, Cluster: DefaultCluster(g, 32), GlobalBatch: 256, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, ZeroBubble: zb})
		if err != nil || len(sr.Plans) == 0 {
			t.Fatalf("search (zero-bubble %v): %d plans, %v", zb, len(sr.Plans), err)
		}
		for i, r := range sr.Plans {
			checkResult(t, r)
			if !r.Memory.Fits {
				t.Errorf("zero-bubble %v: plan %d does not fit", zb, i+1)
			}
			if i > 0 && r.Time.Step < sr.Plans[i-1].Time.Step {
				t.Errorf("zero-bubble %v: plan %d (%g s) ranked after plan %d (%g s)", zb, i+1, r.Time.Step, i, sr.Plans[i-1].Time.Step)
			}
		}
	}
}
