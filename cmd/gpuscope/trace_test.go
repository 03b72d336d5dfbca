package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
)

// gpuscope plan --trace FILE writes the step a viewer opens: a process a
// stage, the compute thread of each ending at the plan's step_s, the
// command line (without --trace) in otherData; refused with --search, an
// empty name or a file it cannot write, naming the flag.
func TestPlanTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step.json")
	args := []string{"plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--global-batch", "256"}
	out, errOut, code := runCLI(append(args, "--trace", path)...)
	if code != 0 || !strings.Contains(out, "trace: "+path) {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr parallel.Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	plan := planJSON(t, args[1:]...)
	step := num(t, plan, "time", "step_s")
	procs := map[int]bool{}
	end := map[int]float64{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" {
			procs[e.Pid] = true
		}
		if e.Ph == "X" && e.Tid == 1 {
			end[e.Pid] = math.Max(end[e.Pid], e.Ts+e.Dur)
		}
	}
	if len(procs) != 8 || len(end) != 8 {
		t.Errorf("%d processes, %d compute threads; want a process a stage, 8", len(procs), len(end))
	}
	for pid, e := range end {
		if math.Abs(e/1e6-step) > 1e-9*step {
			t.Errorf("stage %d ends at %.9g s, the plan's step is %.9g s", pid-1, e/1e6, step)
		}
	}
	if cmd, _ := tr.OtherData["command"].(string); cmd != "gpuscope plan "+strings.Join(args[1:], " ") {
		t.Errorf("otherData.command %q", cmd)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(args, "--search", "--trace", path), "--trace: writes one plan's step; not with --search"},
		{append(args, "--trace="), "--trace: empty"},
		{append(args, "--trace"), "--trace: missing value"},
		{append(args, "--trace", filepath.Join(t.TempDir(), "no", "such", "dir.json")), "--trace: open"},
	} {
		if _, e, code := runCLI(c.args...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args[len(c.args)-2:], code, e, c.want)
		}
	}
}
