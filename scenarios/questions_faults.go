package scenarios

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The fault-tolerance lesson's question.

var faultQuestions = map[string]asker{
	// fault-tolerance: how many failures the job should expect.
	"failures": func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*FaultRun)
		if !ok {
			return nil, false
		}
		c := r.Result.Config
		expected := c.Days * 86400 / c.ClusterMTBF()
		q.Choices, q.Answer = numberChoices(expected, func(v float64) string { return units.Count(int64(math.Round(v))) })
		return faultNarration(r, lang), true
	},
}
