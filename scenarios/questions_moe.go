package scenarios

import "github.com/gpuscope/gpuscope/engine/units"

// The mixture-of-experts lesson's questions.

var moeQuestions = map[string]asker{
	// mixture-of-experts: how many of the model's parameters one token
	// goes through.
	"active-params": func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*RouteRun)
		if !ok {
			return nil, false
		}
		q.Choices, q.Answer = numberChoices(r.Model.ActiveParams(), func(v float64) string { return ParamCount(lang, v) })
		return routeNarration(r, lang), true
	},
	// mixture-of-experts: what share of the dispatch leaves the node.
	"inter-share": func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*RouteRun)
		if !ok {
			return nil, false
		}
		share := r.Result.Metrics().InterNodeShare
		vals := []float64{share, 1 - share, 1.0 / 8, 0.5}
		q.Choices, q.Answer = rotate(vals, 0, units.Percent)
		return routeNarration(r, lang), true
	},
}
