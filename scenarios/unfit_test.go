package scenarios

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// stepNamed is the 1-based number of les's step id.
func stepNamed(t *testing.T, les *Lesson, id string) int {
	t.Helper()
	n := les.StepNumber(id)
	if n == 0 {
		t.Fatalf("%s has no step %s", les.Scenario.ID, id)
	}
	return n
}

// The narration of a step whose plan does not fit its GPUs never says
// that the plan runs: with knobs turned so that the plan is over its
// memory, the sandbox's time line and cluster say what a GPU would need,
// how far over it is and that it cannot run, and quote neither the step
// time nor the MFU (their own text for the case); a lesson's text that
// quotes the plan's times gets them only after a sentence that says the
// plan cannot run, how far over it is, and that they are what it would
// take if it fitted; activation-checkpointing's first step, over by a
// hair at the lesson's defaults, says that keeping everything would be
// fastest but cannot run. Nothing runs, so no live line counts passes.
// In both languages; the sandbox at its defaults, which fit, keeps its
// text.
func TestUnfitNarrationQuotesNoRunningTime(t *testing.T) {
	big := []string{"model", "llama3-405b", "gpus", "16", "tp", "8", "pp", "2", "global_batch", "64"}
	cases := []struct {
		id, step string
		set      []string
		lead     bool // the step's own text, led by plan.unfit_lead; else its text for the case
	}{
		{"sandbox", "timeline", big, false},
		{"sandbox", "cluster", big, false},
		{"activation-checkpointing", "keep", nil, false},
		{"data-parallel", "cycle", []string{"model", "seed-100b"}, true},
		{"overlap", "serial", []string{"model", "llama2-70b", "gpus", "8"}, true},
		{"pipeline-parallel", "four", []string{"recompute", "none", "pp", "2", "micro_batches", "32"}, true},
		{"3d-parallel", "step", []string{"model", "megatron-1t", "gpus", "64", "tp", "1", "pp", "1"}, true},
		{"tensor-parallel", "node", []string{"model", "gpt3-175b", "pp", "1", "gpus", "32"}, true},
		{"long-context", "exchange", []string{"dp", "1", "recompute", "none", "zero", "0"}, true},
	}
	for _, c := range cases {
		les := planLesson(t, c.id, c.set...)
		n := stepNamed(t, les, c.step)
		r := les.Steps[n-1].Run.(*PlanRun)
		res := r.Result
		if res.Memory.Fits {
			t.Fatalf("%s %s %v: the plan fits", c.id, c.step, c.set)
		}
		for _, lang := range []string{"en", "zh"} {
			_, text := les.Narration(n, lang)
			where := c.id + " " + c.step + " " + lang
			if strings.ContainsAny(text, "{}⟦") {
				t.Errorf("%s: %q has a hole", where, text)
			}
			for _, want := range []string{units.Bytes(res.Memory.Total), units.Bytes(res.Memory.Over)} {
				if !strings.Contains(text, want) {
					t.Errorf("%s: %q does not say %s (what a GPU needs, how far over)", where, text, want)
				}
			}
			step, mfu := units.LocalDuration(lang, res.Time.Step), units.Percent(res.MFU)
			lead, _, _ := strings.Cut(i18n.T(lang, "plan.unfit_lead", les.StepNarrationArgs(n, lang)...), "{text}")
			switch {
			case c.lead && !strings.HasPrefix(text, lead):
				t.Errorf("%s: %q quotes the times of a plan that cannot run without saying so first", where, text)
			case !c.lead && (strings.Contains(text, step) || strings.Contains(text, mfu)):
				t.Errorf("%s: %q quotes the step time %s or the MFU %s of a plan that cannot run", where, text, step, mfu)
			}
			if live := les.Live(n, les.Steps[n-1].To/2, lang); live != "" {
				t.Errorf("%s: live line %q on a plan that does not run", where, live)
			}
		}
	}
	fitting := planLesson(t, "sandbox")
	for _, lang := range []string{"en", "zh"} {
		for n, key := range []string{"step.sandbox.timeline.text", "step.sandbox.cluster.text"} {
			if _, text := fitting.Narration(n+1, lang); text != i18n.T(lang, key, fitting.StepNarrationArgs(n+1, lang)...) {
				t.Errorf("sandbox %s at its defaults, which fit: %q, not its own text", lang, text)
			}
		}
	}
}
