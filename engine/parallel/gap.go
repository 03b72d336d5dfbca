package parallel

import "fmt"

// A measured run beside the engine's plan: where the difference could
// come from, term by term. The engine's step is the sum of its terms
// (Time: compute, bubble, exposed communication, optimizer, the wait for
// the slowest GPU); for each, what it would have to be for the engine's
// step to equal the measured one with the other terms as the engine has
// them. The same for memory, part by part. A reader sees which term a
// gap could plausibly hide in — a bubble that would have to double, or a
// compute time 2% longer — not a verdict.

// GapTerm is one term of the step (or one part of the memory): the
// engine's value and what it would have to be to close the gap alone.
type GapTerm struct {
	Name   string  `json:"name"`
	Engine float64 `json:"engine"`
	// Needed is Engine plus the gap: negative when the term alone cannot
	// close it (the run is faster by more than the whole term).
	Needed float64 `json:"needed"`
	// Factor is Needed ÷ Engine (0 when the engine's term is 0).
	Factor float64 `json:"factor"`
}

// Gap is a measured quantity against the engine's: seconds a step, or
// bytes on the fullest GPU.
type Gap struct {
	// From is what was measured: "step" (seconds), "mfu" (the step it
	// implies: the engine's step × the engine's MFU ÷ the measured MFU)
	// or "memory" (bytes).
	From     string  `json:"from"`
	Given    float64 `json:"given"`    // the figure as given: seconds, a fraction, bytes
	Measured float64 `json:"measured"` // seconds or bytes
	Engine   float64 `json:"engine"`
	// Diff is Measured − Engine (positive: the run is slower, or holds
	// more) and Rel it over Engine.
	Diff  float64   `json:"diff"`
	Rel   float64   `json:"rel"`
	Terms []GapTerm `json:"terms"`
}

// StepTerms are the terms Time.Step is the sum of, in the order a gap
// lists them.
var StepTerms = []string{"compute", "exposed_comm", "bubble", "optimizer", "straggler"}

func (t Time) terms() []float64 {
	return []float64{t.Compute, t.Exposed, t.Bubble, t.Optimizer, t.Straggler}
}

func gapOf(from string, given, measured, engine float64, names []string, values []float64) Gap {
	g := Gap{From: from, Given: given, Measured: measured, Engine: engine, Diff: measured - engine}
	if engine > 0 {
		g.Rel = g.Diff / engine
	}
	for i, n := range names {
		t := GapTerm{Name: n, Engine: values[i], Needed: values[i] + g.Diff}
		if values[i] > 0 {
			t.Factor = t.Needed / values[i]
		}
		g.Terms = append(g.Terms, t)
	}
	return g
}

// StepGap sets a measured step time, seconds, beside the engine's.
func (r Result) StepGap(seconds float64) (Gap, error) {
	if !(seconds > 0) {
		return Gap{}, fmt.Errorf("measured-step: %g s; must be above 0", seconds)
	}
	return gapOf("step", seconds, seconds, r.Time.Step, StepTerms, r.Time.terms()), nil
}

// MFUGap sets a measured MFU (a fraction of the same peak the engine's
// MFU is over, Result.MFUPeak) beside the engine's, as the step it
// implies: the model FLOPs a step being the same, the step is the
// engine's × the engine's MFU ÷ the measured.
func (r Result) MFUGap(mfu float64) (Gap, error) {
	if !(mfu > 0 && mfu <= 1) {
		return Gap{}, fmt.Errorf("measured-mfu: %g; must be a fraction above 0, at most 1 (0.41 for 41%%)", mfu)
	}
	if !(r.MFU > 0) {
		return Gap{}, fmt.Errorf("measured-mfu: the plan has no MFU to compare (it does not fit)")
	}
	step := r.Time.Step * r.MFU / mfu
	return gapOf("mfu", mfu, step, r.Time.Step, StepTerms, r.Time.terms()), nil
}

// MemoryTerms are the parts Memory.Total is the sum of.
var MemoryTerms = []string{"weights", "gradients", "optimizer", "activations", "buffers"}

// MemoryGap sets a measured peak memory on the fullest GPU, bytes,
// beside the engine's.
func (r Result) MemoryGap(bytes float64) (Gap, error) {
	if !(bytes > 0) {
		return Gap{}, fmt.Errorf("measured-memory: %g bytes; must be above 0", bytes)
	}
	m := r.Memory
	return gapOf("memory", bytes, bytes, m.Total, MemoryTerms, []float64{m.Weights, m.Gradients, m.Optimizer, m.Activations, m.Buffers}), nil
}
