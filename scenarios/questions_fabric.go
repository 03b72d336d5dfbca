package scenarios

import (
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The link and collective lessons' questions.

// fabricQuestion asks a question of a fabric step's run.
func fabricQuestion(f func(r *FabricRun, lang string, q *Question)) asker {
	return func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*FabricRun)
		if !ok {
			return nil, false
		}
		f(r, lang, q)
		return fabricNarration(r, lang), true
	}
}

var fabricQuestions = map[string]asker{
	// rack-scale-nvlink: how many times as long the nine nodes take.
	"rack-speedup": rackSpeedup,
	// nvlink-vs-ib: how much longer the transfer takes on InfiniBand.
	"ib-slowdown": fabricQuestion(func(r *FabricRun, lang string, q *Question) {
		q.Choices, q.Answer = numberChoices(r.InterS/r.IntraS, func(v float64) string { return units.Ratio(lang, v) })
	}),
	// collectives-at-scale: which all-reduce is fastest at this size.
	"fastest": fabricQuestion(func(r *FabricRun, lang string, q *Question) {
		best := r.Fastest()
		for i, a := range FabricAlgos {
			q.Choices = append(q.Choices, i18n.T(lang, "algo."+string(a)))
			if a == best {
				q.Answer = i
			}
		}
	}),
}
