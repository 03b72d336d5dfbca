package scenarios

import (
	"math"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Prediction questions (a step's predict: line). Each kind's questions
// are in its questions_KIND.go, registered in kinds.go; each reads the
// step's live configuration, so a question stays right when knobs change.
// Numeric answers are offered with three decoys a factor of two or four
// away.

// An asker asks one question of step (1-based): it fills q's Choices and
// Answer from the step's run and returns the narration arguments its
// prompt and reveal quote; ok is false when the step cannot ask it (its
// run lacks what the question compares).
type asker func(les *Lesson, step int, lang string, q *Question) (args []string, ok bool)

// Question is the question of step (1-based), if it asks one, worded in
// lang from the i18n keys predict.ID and predict.ID.reveal.
func (les *Lesson) Question(step int, lang string) (Question, bool) {
	step = clampStep(les, step)
	id := les.Steps[step-1].Step.Predict
	ask, ok := les.Scenario.LessonKind().questions[id]
	if id == "" || !ok {
		return Question{}, false
	}
	q := Question{ID: id}
	args, ok := ask(les, step, lang, &q)
	if !ok || q.Answer < 0 || q.Answer >= len(q.Choices) {
		return Question{}, false
	}
	q.Prompt = i18n.T(lang, "predict."+id, args...)
	q.Reveal = i18n.T(lang, "predict."+id+".reveal", append(args, "answer", q.Choices[q.Answer])...)
	return q, true
}

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
