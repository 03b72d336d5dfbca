package scenarios

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The strategy lessons' questions (predict: lines). Each reads the step's
// live configuration; numeric answers are offered with three decoys a
// factor of two or four away.

// numberChoices are four readings of v: v itself and v × ¼, ½ or 2, in an
// order that depends on v, so the answer is not always in one place.
func numberChoices(v float64, format func(float64) string) ([]string, int) {
	factors := [4]float64{0.25, 0.5, 1, 2}
	rot := int(math.Float64bits(v)>>32) % 4
	if rot < 0 {
		rot = -rot
	}
	out := make([]string, 4)
	answer := 0
	for i := range 4 {
		f := factors[(i+rot)%4]
		out[i] = format(v * f)
		if f == 1 {
			answer = i
		}
	}
	return out, answer
}

// rotate formats vals (the answer at index answer) in an order that
// depends on the answer's value.
func rotate(vals []float64, answer int, format func(float64) string) ([]string, int) {
	n := len(vals)
	rot := int(math.Float64bits(vals[answer])>>32) % n
	out := make([]string, n)
	for i := range n {
		out[i] = format(vals[(i+rot)%n])
	}
	return out, (answer - rot + n) % n
}

// stepRun finds a step's run by its id.
func stepRun(les *Lesson, id string) (*PlanRun, bool) {
	for _, sr := range les.Steps {
		if sr.Step.ID == id {
			r, ok := sr.Run.(*PlanRun)
			return r, ok
		}
	}
	return nil, false
}

func (PlanLesson) question(les *Lesson, step int, id, lang string) (Question, bool) {
	r := les.Steps[step-1].Run.(*PlanRun)
	res, pc := r.Result, r.Config
	p := pc.Plan
	psi := res.Params
	args := planNarration(r)
	q := Question{ID: id}
	var value float64
	format := Seconds
	switch id {
	case "cards":
		lo, hi := parallel.CardsNeeded(800e9, 80e9), parallel.CardsNeeded(1.2e12, 80e9)
		q.Choices, q.Answer = numberChoices(float64(lo), func(v float64) string {
			k := v / float64(lo)
			return strconv.Itoa(int(math.Round(float64(lo)*k))) + "–" + strconv.Itoa(int(math.Round(float64(hi)*k)))
		})
		value = -1
	case "sync":
		value = parallel.NaiveSyncSeconds(2*psi, 900e9)
	case "tp-across":
		in, ok := stepRun(les, "node")
		if !ok {
			return q, false
		}
		args = append(args, "tp_in", Seconds(in.Result.Time.TPComm), "tp_node", strconv.Itoa(in.Config.Plan.TP))
		value = res.Time.TPComm
	case "bubble-m4":
		value, format = float64(p.PP-1)/4, pct
	case "states-per-gpu":
		value, format = 16*psi/float64(p.TP*p.PP), GB
	case "zero3-saving":
		full, _ := parallel.ZeROStates(psi, p.DP, 0, p.BytesPerParam)
		z3, _ := parallel.ZeROStates(psi, p.DP, 3, p.BytesPerParam)
		value, format = full.Total()-z3.Total(), GB
	case "recompute-cost":
		if len(r.Timelines) != 3 {
			return q, false
		}
		value, format = r.Timelines[2].Result.Time.Step/r.Timelines[0].Result.Time.Step-1, pct
	case "accum-memory":
		if len(r.Bars) < 3 {
			return q, false
		}
		ratio := r.Bars[2].Memory.Activations / r.Bars[0].Memory.Activations // m = 4 against m = 1
		q.Choices = []string{i18n.T(lang, "predict.same"), "×2", "×4", "×8"}
		q.Answer = 0
		for i, f := range []float64{1, 2, 4, 8} {
			if math.Abs(math.Log2(ratio)-math.Log2(f)) < 0.5 {
				q.Answer = i
			}
		}
		value = -1
	case "hidden-share":
		on := pc
		on.Plan.Overlap = true
		rr, err := parallel.Evaluate(on)
		if err != nil || rr.Time.DPComm == 0 {
			return q, false
		}
		v := rr.Time.DPHidden / rr.Time.DPComm
		q.Choices, q.Answer = rotate([]float64{v / 4, v / 2, v, v + (1-v)/2}, 2, pct)
		value = -1
	case "amdahl":
		// The decoys: the naive 20%, and guesses either side.
		b := parallel.SeedBudget(0.05)
		v := 1 - b.Faster(1.2).Step()/b.Step()
		q.Choices, q.Answer = rotate([]float64{0.20, 0.15, v, 0.02}, 2, pct)
		value = -1
	default:
		return q, false
	}
	if value >= 0 {
		q.Choices, q.Answer = numberChoices(value, format)
	}
	q.Prompt = i18n.T(lang, "predict."+id, args...)
	q.Reveal = i18n.T(lang, "predict."+id+".reveal", append(args, "answer", q.Choices[q.Answer])...)
	return q, true
}

func (FabricLesson) question(les *Lesson, step int, id, lang string) (Question, bool) {
	r := les.Steps[step-1].Run.(*FabricRun)
	args := fabricNarration(r)
	q := Question{ID: id}
	switch id {
	case "ib-slowdown":
		q.Choices, q.Answer = numberChoices(r.InterS/r.IntraS, func(v float64) string { return "×" + strconv.FormatFloat(v, 'f', 1, 64) })
	case "fastest":
		best := r.Fastest()
		for i, a := range FabricAlgos {
			q.Choices = append(q.Choices, i18n.T(lang, "algo."+string(a)))
			if a == best {
				q.Answer = i
			}
		}
	default:
		return q, false
	}
	q.Prompt = i18n.T(lang, "predict."+id, args...)
	q.Reveal = i18n.T(lang, "predict."+id+".reveal", append(args, "answer", q.Choices[q.Answer])...)
	return q, true
}

func (FaultLesson) question(les *Lesson, step int, id, lang string) (Question, bool) {
	r := les.Steps[step-1].Run.(*FaultRun)
	if id != "failures" {
		return Question{}, false
	}
	c := r.Result.Config
	expected := c.Days * 86400 / c.ClusterMTBF()
	q := Question{ID: id}
	q.Choices, q.Answer = numberChoices(expected, func(v float64) string { return strconv.FormatFloat(math.Round(v), 'f', 0, 64) })
	args := faultNarration(r)
	q.Prompt = i18n.T(lang, "predict."+id, args...)
	q.Reveal = i18n.T(lang, "predict."+id+".reveal", append(args, "answer", q.Choices[q.Answer])...)
	return q, true
}
