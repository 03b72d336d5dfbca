package scenarios

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The strategy lessons' questions.

// planAsk asks a strategy question of the step's run: either a value,
// offered with numberChoices in format, or (value < 0) choices it set in q
// itself; extra are narration arguments beyond the step's own.
type planAsk func(les *Lesson, r *PlanRun, lang string, q *Question) (value float64, format func(float64) string, extra []string, ok bool)

func planQuestion(f planAsk) asker {
	return func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*PlanRun)
		if !ok {
			return nil, false
		}
		value, format, extra, ok := f(les, r, lang, q)
		if !ok {
			return nil, false
		}
		if value >= 0 {
			q.Choices, q.Answer = numberChoices(value, format)
		}
		return append(planNarration(r, lang), extra...), true
	}
}

// stepRun finds a strategy step's run by its id.
func stepRun(les *Lesson, id string) (*PlanRun, bool) {
	n := les.StepNumber(id)
	if n == 0 {
		return nil, false
	}
	r, ok := les.Steps[n-1].Run.(*PlanRun)
	return r, ok
}

var planQuestions = map[string]asker{
	// expert-parallel: a GPU's memory when every GPU of a stage holds all
	// of its layers' experts.
	"ep-memory": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		return r.Result.Memory.Total, units.Bytes, nil, r.Config.Model.MoE()
	}),
	// expert-parallel: the all-to-alls' share of a step with the experts
	// over several nodes.
	"a2a-share": planQuestion(func(_ *Lesson, r *PlanRun, _ string, q *Question) (float64, func(float64) string, []string, bool) {
		tm := r.Result.Time
		if tm.Step <= 0 {
			return 0, nil, nil, false
		}
		share := tm.EPComm / tm.Step
		q.Choices, q.Answer = rotate([]float64{share, share / 4, share / 2, math.Min(share*1.5, 0.95)}, 0, units.Percent)
		return -1, nil, nil, true
	}),
	// memory-budget: how many 80 GB cards the seed's 100B model needs.
	"cards": planQuestion(func(_ *Lesson, _ *PlanRun, _ string, q *Question) (float64, func(float64) string, []string, bool) {
		lo, hi := parallel.CardsNeeded(800e9, 80e9), parallel.CardsNeeded(1.2e12, 80e9)
		q.Choices, q.Answer = numberChoices(float64(lo), func(v float64) string {
			k := v / float64(lo)
			return strconv.Itoa(int(math.Round(float64(lo)*k))) + "–" + strconv.Itoa(int(math.Round(float64(hi)*k)))
		})
		return -1, nil, nil, true
	}),
	// data-parallel: the naive gradient sync over NVLink.
	"sync": planQuestion(func(_ *Lesson, r *PlanRun, lang string, _ *Question) (float64, func(float64) string, []string, bool) {
		return parallel.NaiveSyncSeconds(2*r.Result.Params, 900e9), localDuration(lang), nil, true
	}),
	// tensor-parallel: TP's communication once the group leaves the node.
	"tp-across": planQuestion(func(les *Lesson, r *PlanRun, lang string, _ *Question) (float64, func(float64) string, []string, bool) {
		in, ok := stepRun(les, "node")
		if !ok {
			return 0, nil, nil, false
		}
		return r.Result.Time.TPComm, localDuration(lang), []string{"tp_in", units.LocalDuration(lang, in.Result.Time.TPComm), "tp_node", strconv.Itoa(in.Config.Plan.TP)}, true
	}),
	// pipeline-parallel: the bubble with p stages and 4 micro-batches.
	"bubble-m4": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		return float64(r.Config.Plan.PP-1) / 4, units.Percent, nil, true
	}),
	// 3d-parallel: model states per GPU.
	"states-per-gpu": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		p := r.Config.Plan
		return 16 * r.Result.Params / float64(p.TP*p.PP), units.Bytes, nil, true
	}),
	// zero-stages: what ZeRO-3 saves a GPU against plain DP.
	"zero3-saving": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		p := r.Config.Plan
		full, _ := parallel.ZeROStates(r.Result.Params, p.DP, 0, p.BytesPerParam)
		z3, _ := parallel.ZeROStates(r.Result.Params, p.DP, 3, p.BytesPerParam)
		return full.Total() - z3.Total(), units.Bytes, nil, true
	}),
	// activation-checkpointing: what full recomputation costs in time.
	"recompute-cost": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		if len(r.Timelines) != 3 {
			return 0, nil, nil, false
		}
		return r.Timelines[2].Result.Time.Step/r.Timelines[0].Result.Time.Step - 1, units.Percent, nil, true
	}),
	// gradient-accumulation: activation memory with 4 micro-batches.
	"accum-memory": planQuestion(func(_ *Lesson, r *PlanRun, lang string, q *Question) (float64, func(float64) string, []string, bool) {
		if len(r.Bars) < 3 {
			return 0, nil, nil, false
		}
		ratio := r.Bars[2].Memory.Activations / r.Bars[0].Memory.Activations // m = 4 against m = 1
		q.Choices = []string{i18n.T(lang, "predict.same"), units.Ratio(lang, 2), units.Ratio(lang, 4), units.Ratio(lang, 8)}
		q.Answer = 0
		for i, f := range []float64{1, 2, 4, 8} {
			if math.Abs(math.Log2(ratio)-math.Log2(f)) < 0.5 {
				q.Answer = i
			}
		}
		return -1, nil, nil, true
	}),
	// overlap: the share of the all-reduce hidden behind the backward pass.
	"hidden-share": planQuestion(func(_ *Lesson, r *PlanRun, _ string, q *Question) (float64, func(float64) string, []string, bool) {
		on := r.Config
		on.Plan.Overlap = true
		rr, err := parallel.Evaluate(on)
		if err != nil || rr.Time.DPComm == 0 {
			return 0, nil, nil, false
		}
		v := rr.Time.DPHidden / rr.Time.DPComm
		q.Choices, q.Answer = rotate([]float64{v / 4, v / 2, v, v + (1-v)/2}, 2, units.Percent)
		return -1, nil, nil, true
	}),
	// long-context: the fullest GPU's activations at the step's sequence,
	// with no context parallelism.
	"long-activations": planQuestion(func(_ *Lesson, r *PlanRun, _ string, _ *Question) (float64, func(float64) string, []string, bool) {
		return r.Result.Memory.Activations, units.Bytes, nil, true
	}),
	// strategy-planner: Amdahl's law on the seed's step budget. The
	// decoys: the naive 20%, and guesses either side.
	"amdahl": planQuestion(func(_ *Lesson, _ *PlanRun, _ string, q *Question) (float64, func(float64) string, []string, bool) {
		b := parallel.SeedBudget(0.05)
		v := 1 - b.Faster(1.2).Step()/b.Step()
		q.Choices, q.Answer = rotate([]float64{0.20, 0.15, v, 0.02}, 2, units.Percent)
		return -1, nil, nil, true
	}),
}

// localDuration formats seconds for reading in lang.
func localDuration(lang string) func(float64) string {
	return func(s float64) string { return units.LocalDuration(lang, s) }
}
