package parallel

import "github.com/gpuscope/gpuscope/engine/errs"

// DualPipe is DeepSeek-V3's bidirectional pipeline schedule (arXiv
// 2412.19437 §3.2.1; github.com/deepseek-ai/DualPipe): micro-batches
// enter from both ends, so rank i holds stage i for those going one way
// and stage PP − 1 − i for those going the other (twice the parameters a
// rank), runs half the micro-batches through each, and pairs one
// micro-batch's forward chunk with another's backward so that each one's
// communication runs while the other computes (EPOverlap). Evaluate costs
// it in closed form — the bubble (PP/2 − 1)(F&B + B − 3W) of its README's
// table, PP + 1 micro-batches' activations a rank — not block by block:
// BuildTimeline does not run it.
const DualPipe Schedule = "dualpipe"

// validateDualPipe refuses what DualPipe cannot run: its reference
// implementation asks for an even number of ranks and an even number of
// micro-batches, at least twice the ranks.
func (p Plan) validateDualPipe() error {
	if p.Schedule != DualPipe {
		return nil
	}
	if p.PP < 2 || p.PP%2 != 0 {
		return errs.F("dualpipe_pp", "schedule: dualpipe needs an even pp ≥ 2 (pp %d)", "pp", p.PP)
	}
	if mb := p.microBatches(); mb%2 != 0 || mb < 2*p.PP {
		return errs.F("dualpipe_mb", "micro-batches: %d must be even and at least 2 × pp = %d for the dualpipe schedule (DualPipe's condition)", "m two_pp", mb, 2*p.PP)
	}
	return nil
}

// dualPipeInFlight is the micro-batches whose activations stage st holds
// at its peak under DualPipe: PP + 1 a rank over its two stages, the one
// of the first half of the pipeline holding the extra one.
func dualPipeInFlight(p, st int) int {
	if st < p/2 {
		return p/2 + 1
	}
	return p / 2
}

// foldDualPipe turns Evaluate's per-stage numbers into per-rank ones:
// rank i (and its mirror PP − 1 − i, which is the same pair) holds both
// stages' parameters and memory, and runs half the micro-batches through
// each, so a micro-batch costs it the mean of the two stages' times.
// hidden, when not nil, is each stage's hidden all-to-all time, and w
// each stage's weight-gradient time, folded the same way.
func (r *Result) foldDualPipe(hidden, w []float64) {
	pp := len(r.StageParams)
	for i := range pp / 2 {
		j := pp - 1 - i
		r.StageParams[i] += r.StageParams[j]
		r.StageParams[j] = r.StageParams[i]
		for _, l := range [...][]float64{r.StageForward, r.StageBackward, r.StageTP, r.StageTPForward, r.StageRecompute, r.StageEP, hidden, w} {
			if l != nil {
				l[i] = (l[i] + l[j]) / 2
				l[j] = l[i]
			}
		}
		if r.StageMemory == nil {
			continue
		}
		a, b := r.StageMemory[i], r.StageMemory[j]
		for _, k := range [...]int{i, j} {
			m := &r.StageMemory[k]
			m.Weights, m.Gradients, m.Optimizer = a.Weights+b.Weights, a.Gradients+b.Gradients, a.Optimizer+b.Optimizer
			m.Activations, m.Buffers = a.Activations+b.Activations, max(a.Buffers, b.Buffers)
			m.InFlight, m.Layers = a.InFlight+b.InFlight, a.Layers+b.Layers
			m.Total = m.Weights + m.Gradients + m.Optimizer + m.Activations + m.Buffers
			m.Check()
		}
	}
	if r.StageMemory != nil {
		r.Memory = r.StageMemory[0]
		for _, m := range r.StageMemory {
			if m.Total > r.Memory.Total {
				r.Memory = m
			}
		}
	}
}

// dualPipeIdle is DualPipe's bubble and the pipeline sends on its
// critical path, from the critical rank's times a micro-batch: its
// README's (PP/2 − 1)(F&B + B − 3W), F the forward chunk, B the whole
// backward, W its weight-gradient part — the products' dW, what the
// backward can hold back to fill the bubble (the attention core, the
// elementwise passes and recomputation have no weights: they are in B,
// not W) — and F&B a forward and a backward run together, F + B and
// their exposed communication; the sends of the fill and the drain,
// 2·(PP − 1), as the steady state's overlap behind the paired chunks.
func dualPipeIdle(r Result, crit int, W float64) (bubble, sends float64) {
	p := r.Config.Plan.PP
	B := r.StageBackward[crit]
	FB := r.StageForward[crit] + B + r.StageTP[crit]
	return DualPipeBubble(p, FB, B, W), 2 * float64(p-1) * r.P2P
}

// DualPipeBubble is DualPipe's bubble on pp ranks, seconds, from a
// micro-batch's times on the critical rank: fb a forward and a backward
// chunk run paired (F&B), b the whole backward, w its weight gradients —
// its README's (PP/2 − 1)(F&B + B − 3W), never below 0.
func DualPipeBubble(pp int, fb, b, w float64) float64 {
	return max(0, (float64(pp)/2-1)*(fb+b-3*w))
}
