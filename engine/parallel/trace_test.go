package parallel

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A plan's trace, parsed back as a viewer reads it: on every stage the
// compute thread's events — forwards, recomputation, backwards, the
// bubble, the exposed collective, the optimizer and the wait for the
// slowest GPU — tile the step from 0 to Time.Step without overlapping;
// its forward and backward blocks are the schedule's 2·m·v; the memory
// counter rises with the forwards in flight to the stage's peak and
// ends where it began; a stage is a process, named.
func TestChromeTraceTilesTheStep(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	for _, p := range []Plan{
		{TP: 8, PP: 8, DP: 8, Interleave: 1, SP: true, ZeRO: 1, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1, GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true},
		{TP: 8, PP: 4, DP: 16, Interleave: 3, SP: true, ZeRO: 1, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 512, Schedule: Interleaved, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true},
	} {
		cl := DefaultCluster(gpu(t, "h100"), p.TP*p.PP*p.DP)
		r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := r.ChromeTrace("gpuscope plan …")
		if err != nil {
			t.Fatal(err)
		}
		raw, err := tr.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var back Trace
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("the trace is not JSON: %v", err)
		}
		if got := back.OtherData["step_s"].(float64); got != r.Time.Step {
			t.Errorf("otherData.step_s %g, want %g", got, r.Time.Step)
		}
		step := r.Time.Step * 1e6
		names := map[int]string{}
		end := make([]float64, p.PP+1)
		blocks, peak := make([]int, p.PP+1), make([]float64, p.PP+1)
		lastAct := make([]float64, p.PP+1)
		for _, e := range back.TraceEvents {
			switch {
			case e.Ph == "M" && e.Name == "process_name":
				names[e.Pid] = e.Args["name"].(string)
			case e.Ph == "X" && e.Tid == TraceCompute:
				if math.Abs(e.Ts-end[e.Pid]) > 1e-3 {
					t.Fatalf("%s stage %d: %q at %.3f µs, the thread was at %.3f µs (a gap or an overlap)", planText(r), e.Pid-1, e.Name, e.Ts, end[e.Pid])
				}
				if e.Dur < 0 {
					t.Fatalf("%q lasts %g µs", e.Name, e.Dur)
				}
				end[e.Pid] = e.Ts + e.Dur
				if strings.HasPrefix(e.Name, "forward ") || strings.HasPrefix(e.Name, "backward ") {
					blocks[e.Pid]++
				}
			case e.Ph == "C":
				a := e.Args["activations"].(float64)
				peak[e.Pid] = max(peak[e.Pid], a)
				lastAct[e.Pid] = a
			}
		}
		for st := 1; st <= p.PP; st++ {
			if math.Abs(end[st]-step) > 1e-6*step {
				t.Errorf("%s stage %d: the compute thread ends at %.6g µs, the step is %.6g µs", planText(r), st-1, end[st], step)
			}
			if want := 2 * r.MicroBatches * p.Interleave; blocks[st] != want {
				t.Errorf("stage %d: %d forward and backward events, want 2·m·v = %d", st-1, blocks[st], want)
			}
			if want := r.StageMemory[st-1].Activations / 1e9; math.Abs(peak[st]-want) > 1e-9*want {
				t.Errorf("stage %d: the activations counter peaks at %.4g GB, the stage holds %.4g", st-1, peak[st], want)
			}
			if lastAct[st] != 0 {
				t.Errorf("stage %d: %.3g GB of activations left after the step", st-1, lastAct[st])
			}
			if !strings.HasPrefix(names[st], "stage ") {
				t.Errorf("process %d named %q", st, names[st])
			}
		}
	}
}
