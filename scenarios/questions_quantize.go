package scenarios

import (
	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/units"
)

// The fp8-training lesson's questions.

var quantizeQuestions = map[string]asker{
	// fp8-training: what share of the tensor one per-tensor scale
	// flushes to zero.
	"fp8-underflow": func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*QuantizeRun)
		if !ok {
			return nil, false
		}
		res := r.QuantizeOf(r.Recipe)
		q.Choices, q.Answer = numberChoices(float64(res.Underflow)/float64(res.Values), units.Percent)
		return quantizeNarration(r, lang), true
	},
	// fp8-training: how many times MXFP8's error NVFP4's is.
	"nvfp4-error": func(les *Lesson, step int, lang string, q *Question) ([]string, bool) {
		r, ok := les.Steps[step-1].Run.(*QuantizeRun)
		if !ok {
			return nil, false
		}
		ratio := r.QuantizeOf(numfmt.NVFP4).TypicalRelRMSE / r.QuantizeOf(numfmt.MXFP8).TypicalRelRMSE
		q.Choices, q.Answer = numberChoices(ratio, func(v float64) string { return units.Ratio(lang, v) })
		return quantizeNarration(r, lang), true
	},
}
