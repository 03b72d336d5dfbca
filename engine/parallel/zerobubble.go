package parallel

import "fmt"

// Zero-bubble schedules split each backward pass in two: B, the input
// gradient the previous stage waits for, and W, the weight gradient
// nothing waits for, which a stage runs later, in time it would
// otherwise sit idle (Qi, Wan, Huang and Lin, "Zero Bubble Pipeline
// Parallelism", arXiv 2401.10241; github.com/sail-sg/zero-bubble-
// pipeline-parallelism). W is a stage's products' weight gradients, dW
// (costs.wgrad: the same W DualPipe holds back; the attention core, the
// elementwise passes and recomputation have no weights and stay in B).
// Evaluate costs these schedules in closed form, as it costs DualPipe;
// BuildTimeline does not run them, and Result.Timeline refuses them by
// name, so nothing draws a 1F1B time line in their place.
const (
	// ZBH1 is Qi et al.'s handcrafted ZB-H1 (§2.1): 1F1B's order of
	// forwards and input gradients, each stage's W held back to fill the
	// drain, in 1F1B's peak activation memory. Its bubble is
	// (p − 1)(T_F + T_B − T_W), T_B the input gradient alone — the
	// DualPipe README's ZB1P row, (PP − 1)(F + B − 2W) with B the whole
	// backward: 1F1B's (PP − 1)(F + B) less 2(PP − 1)W, which Evaluate
	// takes off 1F1B's bubble as its schedule runs it (ZBH1Bubble).
	ZBH1 Schedule = "zb-h1"
	// ZBV is ZB-V (the paper's later arXiv version and its repository's
	// ZBV; the follow-up's V-ZB, "Pipeline Parallelism with Controllable
	// Memory", arXiv 2405.15362): each rank holds two model chunks in a
	// V, rank i the i-th and the (2p − 1 − i)-th of 2p, so that rank 0
	// holds the first and the last (the embedding and the output head);
	// 2p chunks' activations at its peak on every rank, 1F1B's p
	// micro-batches; no bubble when T_F = T_B = T_W (ZBVBubble).
	ZBV Schedule = "zb-v"
	// DualPipeV is DualPipe cut in half (DeepSeek's DualPipe README,
	// after Sea AI Lab's "cut-in-half"): on pp ranks, 2·pp stages in a V
	// as ZB-V's, each rank 1F1B's parameters (two chunks of half its
	// layers, not DualPipe's two stages); the README's bubble
	// (PP/2 − 1)(F&B + B − 3W) and PP + 1 chunks' activations a rank,
	// for its PP = 2·pp stages. It pairs a forward and a backward chunk
	// as DualPipe does (EPOverlap).
	DualPipeV Schedule = "dualpipev"
)

// schedules are the pipeline schedules a plan may name, in the order
// errors list them.
var schedules = [...]Schedule{GPipe, OneFOneB, Interleaved, DualPipe, ZBH1, ZBV, DualPipeV}

// ScheduleIDs are the pipeline schedules' ids (gpuscope plan --schedule).
func ScheduleIDs() []string {
	ids := make([]string, len(schedules))
	for i, s := range schedules {
		ids[i] = string(s)
	}
	return ids
}

// known reports whether s is one of the schedules.
func (s Schedule) known() bool {
	for _, x := range schedules {
		if s == x {
			return true
		}
	}
	return false
}

// splitsW reports whether s runs the weight gradients W apart from the
// input gradients (DualPipe and the zero-bubble schedules): Evaluate then
// keeps each stage's W (Result.StageW).
func (s Schedule) splitsW() bool {
	return s == DualPipe || s == ZBH1 || s == ZBV || s == DualPipeV
}

// vShape reports whether s places two chunks on each rank in a V, rank i
// holding chunks i and 2·pp − 1 − i: the first and the last (the
// embedding and the output head) on rank 0.
func (s Schedule) vShape() bool { return s == ZBV || s == DualPipeV }

// closedForm reports whether Evaluate costs s's bubble in closed form:
// BuildTimeline does not run it, and no time line is drawn for it.
func (s Schedule) closedForm() bool { return s.splitsW() }

// chunks is how many model chunks a stage holds: v under the interleaved
// schedule, two in a V, one otherwise.
func (p Plan) chunks() int {
	switch {
	case p.Schedule.vShape():
		return 2
	case p.Schedule == Interleaved:
		return max(p.Interleave, 1)
	}
	return 1
}

// validateZeroBubble refuses what the zero-bubble schedules cannot run:
// a pipeline of one stage; for ZB-H1 fewer micro-batches than stages (its
// warm-up runs pp forwards on the first stage, and its drain is filled by
// deferred weight gradients: Qi et al.'s steady state, which its closed
// form assumes); for the V schedules fewer than 2·pp (rank 0 runs 2·pp
// chunk forwards before its first backward; DualPipeV's reference
// implementation asserts num_chunks ≥ 2 × num_ranks). The V's layers are
// checked by splitLayers.
func (p Plan) validateZeroBubble() error {
	s := p.Schedule
	if s != ZBH1 && !s.vShape() {
		return nil
	}
	if p.PP < 2 {
		return fmt.Errorf("schedule: %s needs pp ≥ 2 (pp %d)", s, p.PP)
	}
	mb := p.microBatches()
	switch {
	case s == ZBH1 && mb < p.PP:
		return fmt.Errorf("micro-batches: %d must be at least pp = %d for the zb-h1 schedule (its first stage runs pp forwards before its first backward, and its drain is filled by as many deferred weight gradients)", mb, p.PP)
	case s.vShape() && mb < 2*p.PP:
		return fmt.Errorf("micro-batches: %d must be at least 2 × pp = %d for the %s schedule (rank 0 runs 2 × pp chunk forwards before its first backward)", mb, 2*p.PP, s)
	}
	return nil
}

// vInFlight is the chunk-micro-batches whose activations a rank holds at
// its peak under a V schedule: ZB-V's 2·pp on every rank (zbv.py's
// memory limit, f_mem × 2 × n_stage: 1F1B's pp micro-batches, the chunks
// half a stage), DualPipeV's 2·pp + 1 (its README's PP + 1 for PP =
// 2·pp stages: 2·pp chunk forwards before the first backward, one more
// while a forward and a backward run paired).
func vInFlight(s Schedule, p, m int) int {
	n := 2 * p
	if s == DualPipeV {
		n++
	}
	return min(2*m, n)
}

// ZBH1Bubble is ZB-H1's bubble on pp stages, seconds, from 1F1B's:
// oneF1B, 1F1B's bubble for the same stages, less the 2(pp − 1)·w the
// weight gradients fill — the DualPipe README's (PP − 1)(F + B − 2W)
// against 1F1B's (PP − 1)(F + B), w the critical stage's weight
// gradients — never below 0. For equal stages, where 1F1B's is
// (pp − 1)(F + B), it is the README's form; run from 1F1B's own
// schedule, a stage heavier than the rest (the output head) weighs as
// 1F1B's run weighs it.
func ZBH1Bubble(pp int, oneF1B, w float64) float64 {
	return max(0, oneF1B-2*float64(pp-1)*w)
}

// ZBVBubble is ZB-V's bubble on pp ranks, seconds, from a rank's times
// for a micro-batch through its two chunks: f the forward, b the input
// gradient, w the weight gradient. The sources give no closed form for
// unequal times (the repository's zbv.py builds the schedule greedily
// for the times it measures); this one is ours, (pp − 1)(f + b − 2w)/2,
// never below 0: linear in w between the two points the sources fix —
// with nothing split off (w = 0) the interleaved schedule's
// (p − 1)(F + B)/v for ZB-V's v = 2 chunks (Narayanan et al.), and 0
// when f = b = w (Qi et al.; their zero, as this one, counts a rank's
// idle time within its own span, the optimizer's post-validation of
// their §4 letting the next step's forwards start behind the last
// backwards rather than after a synchronisation).
func ZBVBubble(pp int, f, b, w float64) float64 {
	return max(0, float64(pp-1)*(f+b-2*w)/2)
}

// DualPipeVBubble is DualPipeV's bubble on pp ranks, seconds, from a
// rank's times for a micro-batch through its two chunks: fb its forward
// and backward chunks run paired (F&B), b the whole backward, w its
// weight gradients — the README's (PP/2 − 1)(F&B + B − 3W) for PP =
// 2·pp stages, each a chunk of half the rank's times:
// (pp − 1)(fb + b − 3w)/2, never below 0.
func DualPipeVBubble(pp int, fb, b, w float64) float64 {
	return DualPipeBubble(2*pp, fb/2, b/2, w/2)
}

// zeroBubbleIdle is a zero-bubble schedule's bubble and the pipeline
// sends on its critical path, from the critical rank's times a
// micro-batch (crit; W its weight gradients). ZB-H1 runs 1F1B's
// schedule for its bubble and its sends (its forwards and input
// gradients keep 1F1B's order and wait for the same sends) and takes off
// what the deferred W's fill. The V schedules cross 2(pp − 1) rank
// boundaries each way in their fill and drain (the V's bottom, chunk
// pp − 1 to pp, stays on its rank): 4(pp − 1) sends, the steady state's
// behind the other chunk's work, as DualPipe's 2(PP − 1).
func zeroBubbleIdle(r Result, crit int, W, busy, slot float64, se *searching) (bubble, sends float64) {
	p := r.Config.Plan
	switch p.Schedule {
	case ZBH1:
		oneF1B, sends := pipelineIdle(r, OneFOneB, busy, slot, se)
		return ZBH1Bubble(p.PP, oneF1B, W), sends
	case ZBV:
		F := r.StageForward[crit] + r.StageTPForward[crit]
		B := r.StageBackward[crit] + r.StageTP[crit] - r.StageTPForward[crit] - W
		return ZBVBubble(p.PP, F, B, W), 4 * float64(p.PP-1) * r.P2P
	default: // DualPipeV
		FB := r.StageForward[crit] + r.StageBackward[crit] + r.StageTP[crit]
		return DualPipeVBubble(p.PP, FB, r.StageBackward[crit], W), 4 * float64(p.PP-1) * r.P2P
	}
}
