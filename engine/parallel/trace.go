package parallel

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
)

// A plan's step as Chrome's Trace Event Format: the JSON that Perfetto
// (ui.perfetto.dev), Chromium's trace viewer (chrome://tracing) and
// PyTorch's profiler (Kineto) read and write. One process a pipeline
// stage (the stage's GPUs run alike), three threads each:
//
//   - compute: every forward, recomputation and backward block of the
//     schedule with the engine's durations (a block's TP, CP and
//     expert-parallel communication inside it, in its args), the bubble
//     where the stage waits, the optimizer update and the wait for the
//     slowest GPU;
//   - communication: the pipeline sends, the data-parallel collective —
//     its hidden buckets beside the backward, its exposed part after;
//   - memory: a counter of the bytes the stage's GPU holds, its model
//     states and the activations of the chunk-micro-batches in flight.
//
// Times are microseconds from the step's start; the compute thread of
// the busiest stage ends at the step time (Time.Step).

// TraceEvent is one event of the Trace Event Format ("X" a complete
// event, "C" a counter, "M" metadata naming a process or thread).
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is a trace file: its events and what they are of.
type Trace struct {
	TraceEvents     []TraceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// The threads of a stage's process.
const (
	TraceCompute = 1
	TraceComm    = 2
	TraceMemory  = 3
)

// Trace categories: what an event is, for a viewer's filters.
const (
	TraceCatCompute = "compute"
	TraceCatComm    = "communication"
	TraceCatIdle    = "idle"
	TraceCatMemory  = "memory"
)

const us = 1e6 // microseconds a second

// ChromeTrace is the plan's step as a trace (see above); command is the
// gpuscope plan command line that prints the plan, kept in otherData.
func (r Result) ChromeTrace(command string) (Trace, error) {
	tl, err := r.Timeline()
	if err != nil {
		return Trace{}, err
	}
	p := r.Config.Plan
	v := max(1, tl.Chunks)
	tr := Trace{DisplayTimeUnit: "ms", OtherData: map[string]any{
		"generator": "gpuscope",
		"model":     r.Config.Model.ID,
		"plan":      planText(r),
		"step_s":    r.Time.Step,
		"command":   command,
	}}
	ev := func(e TraceEvent) { tr.TraceEvents = append(tr.TraceEvents, e) }
	gpusPerStage := r.Config.Cluster.GPUs / max(1, p.PP)
	for st := range tl.Stages {
		pid := st + 1
		ev(TraceEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": fmt.Sprintf("stage %d (%d GPUs: TP %d × CP %d × DP %d)", st, gpusPerStage, p.TP, p.cp(), p.DP)}})
		ev(TraceEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": st}})
		for _, th := range []struct {
			tid  int
			name string
		}{{TraceCompute, "compute"}, {TraceComm, "communication"}, {TraceMemory, "memory"}} {
			ev(TraceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: th.tid, Args: map[string]any{"name": th.name}})
		}
	}

	// The compute blocks, in time order on each stage; the idle gaps
	// between them are the bubble.
	blocks := slices.Clone(tl.Blocks)
	slices.SortStableFunc(blocks, func(a, b Block) int {
		if a.Stage != b.Stage {
			return a.Stage - b.Stage
		}
		return cmp.Compare(a.Start, b.Start)
	})
	last := make([]float64, tl.Stages)     // where each stage's compute thread is
	flight := make([]int, tl.Stages)       // chunk-micro-batches in flight
	perChunk := make([]float64, tl.Stages) // the activations of one
	states := make([]float64, tl.Stages)   // model states and buffers
	for st := range tl.Stages {
		if st < len(r.StageMemory) {
			m := r.StageMemory[st]
			states[st] = m.Weights + m.Gradients + m.Optimizer + m.Buffers
			if st < len(tl.PeakInFlight) && tl.PeakInFlight[st] > 0 {
				perChunk[st] = m.Activations / float64(tl.PeakInFlight[st])
			}
		}
	}
	counter := func(st int, t float64) {
		ev(TraceEvent{Name: "memory (GB)", Cat: TraceCatMemory, Ph: "C", Ts: t * us, Pid: st + 1, Tid: TraceMemory,
			Args: map[string]any{"model states": states[st] / 1e9, "activations": float64(flight[st]) * perChunk[st] / 1e9}})
	}
	for st := range tl.Stages {
		counter(st, 0)
	}
	gap := func(st int, to float64) {
		if to-last[st] > 1e-12 {
			ev(TraceEvent{Name: "bubble", Cat: TraceCatIdle, Ph: "X", Ts: last[st] * us, Dur: (to - last[st]) * us, Pid: st + 1, Tid: TraceCompute})
		}
	}
	for _, b := range blocks {
		pid := b.Stage + 1
		dur := b.End - b.Start
		args := map[string]any{"micro_batch": b.MicroBatch}
		if v > 1 {
			args["chunk"] = b.Chunk
		}
		switch b.Kind {
		case Forward, Backward:
			gap(b.Stage, b.Start)
			st := b.Stage
			tp := r.StageTPForward[st] / float64(v)
			if b.Kind == Backward {
				tp = (r.StageTP[st] - r.StageTPForward[st]) / float64(v)
			}
			if tp > 0 {
				args["tp_cp_ep_comm_us"] = tp * us
			}
			if b.Kind == Forward {
				ev(TraceEvent{Name: fmt.Sprintf("forward mb %d", b.MicroBatch), Cat: TraceCatCompute, Ph: "X", Ts: b.Start * us, Dur: dur * us, Pid: pid, Tid: TraceCompute, Args: args})
				flight[st]++
				counter(st, b.Start)
			} else {
				rc := min(r.StageRecompute[st]/float64(v), dur)
				if rc > 0 {
					ev(TraceEvent{Name: fmt.Sprintf("recompute mb %d", b.MicroBatch), Cat: TraceCatCompute, Ph: "X", Ts: b.Start * us, Dur: rc * us, Pid: pid, Tid: TraceCompute, Args: map[string]any{"micro_batch": b.MicroBatch}})
				}
				ev(TraceEvent{Name: fmt.Sprintf("backward mb %d", b.MicroBatch), Cat: TraceCatCompute, Ph: "X", Ts: (b.Start + rc) * us, Dur: (dur - rc) * us, Pid: pid, Tid: TraceCompute, Args: args})
				flight[st]--
				counter(st, b.End)
			}
			last[st] = max(last[st], b.End)
		case SendF, SendB:
			name := "send activations"
			if b.Kind == SendB {
				name = "send gradients"
			}
			ev(TraceEvent{Name: name, Cat: TraceCatComm, Ph: "X", Ts: b.Start * us, Dur: dur * us, Pid: pid, Tid: TraceComm, Args: args})
		case AllReduce:
			name := "data-parallel collective, exposed"
			if b.Hidden {
				name = "data-parallel collective, hidden"
			} else {
				// The GPUs wait for what the backward could not hide.
				gap(b.Stage, b.Start)
				ev(TraceEvent{Name: "wait for the data-parallel collective", Cat: TraceCatIdle, Ph: "X", Ts: b.Start * us, Dur: dur * us, Pid: pid, Tid: TraceCompute})
				last[b.Stage] = max(last[b.Stage], b.End)
			}
			ev(TraceEvent{Name: name, Cat: TraceCatComm, Ph: "X", Ts: b.Start * us, Dur: dur * us, Pid: pid, Tid: TraceComm, Args: map[string]any{"zero": p.ZeRO}})
		case Optimizer:
			gap(b.Stage, b.Start)
			ev(TraceEvent{Name: "optimizer", Cat: TraceCatCompute, Ph: "X", Ts: b.Start * us, Dur: dur * us, Pid: pid, Tid: TraceCompute})
			last[b.Stage] = max(last[b.Stage], b.End)
		}
	}
	// The slowest of the plan's GPUs sets the pace: every stage waits for
	// it at the end of the step (Time.Straggler), then the step ends.
	end := tl.Length
	for st := range tl.Stages {
		gap(st, end)
		if w := r.Time.Straggler; w > 0 {
			ev(TraceEvent{Name: "wait for the slowest GPU", Cat: TraceCatIdle, Ph: "X", Ts: end * us, Dur: w * us, Pid: st + 1, Tid: TraceCompute,
				Args: map[string]any{"gpu_variation": r.Config.Cluster.GPUVariation}})
		}
	}
	return tr, nil
}

// planText is the plan in one line, as gpuscope plan heads its text.
func planText(r Result) string {
	p := r.Config.Plan
	var b strings.Builder
	fmt.Fprintf(&b, "TP %d × CP %d × PP %d × DP %d, %s schedule", p.TP, p.cp(), p.PP, p.DP, p.Schedule)
	if p.Interleave > 1 {
		fmt.Fprintf(&b, " (v = %d)", p.Interleave)
	}
	fmt.Fprintf(&b, ", %d micro-batches of %d, ZeRO %d, recomputation %s", r.MicroBatches, p.MicroBatch, p.ZeRO, p.Recompute)
	return b.String()
}

// JSON is the trace as a file.
func (t Trace) JSON() ([]byte, error) { return tinyjson.Marshal(t) }
