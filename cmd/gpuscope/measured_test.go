package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// gpuscope plan --measured-step/-mfu/-memory: the run beside the engine,
// term by term, in the JSON's measured and in the text; each term's
// needed value closes the gap alone; refused with --search and out of
// range, naming the flag.
func TestPlanMeasured(t *testing.T) {
	args := []string{"plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--global-batch", "256"}
	plan := planJSON(t, args[1:]...)
	step := num(t, plan, "time", "step_s")
	out, errOut, code := runCLI(append(args, "--json", "--measured-step", "3.5", "--measured-mfu", "0.25", "--measured-memory", "70")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Measured []struct {
			From     string  `json:"from"`
			Measured float64 `json:"measured"`
			Engine   float64 `json:"engine"`
			Diff     float64 `json:"diff"`
			Terms    []struct {
				Name string  `json:"name"`
				E    float64 `json:"engine"`
				N    float64 `json:"needed"`
			} `json:"terms"`
		} `json:"measured"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Measured) != 3 || got.Measured[0].From != "step" || got.Measured[1].From != "mfu" || got.Measured[2].From != "memory" {
		t.Fatalf("measured: %+v", got.Measured)
	}
	s := got.Measured[0]
	if s.Engine != step || math.Abs(s.Diff-(3.5-step)) > 1e-12 || len(s.Terms) != 5 {
		t.Errorf("step gap %+v; the engine's step is %g", s, step)
	}
	for _, term := range s.Terms {
		if math.Abs(term.N-term.E-(3.5-step)) > 1e-12 {
			t.Errorf("%s: needed %g from %g; want the gap added", term.Name, term.N, term.E)
		}
	}
	mfu := num(t, plan, "mfu")
	if m := got.Measured[1]; math.Abs(m.Measured-step*mfu/0.25) > 1e-9*m.Measured {
		t.Errorf("MFU 0.25 implies %g s; want %g", m.Measured, step*mfu/0.25)
	}
	if m := got.Measured[2]; m.Measured != 70e9 || m.Engine != num(t, plan, "memory", "total_bytes") {
		t.Errorf("memory gap %+v", m)
	}
	text, _, _ := runCLI(append(args, "--measured-step", "3.5")...)
	if !strings.Contains(text, "to close it with one term alone") || !strings.Contains(text, "bubble") {
		t.Errorf("text without the gap:\n%s", text)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(args, "--search", "--measured-step", "3"), "--measured-step: compares one plan; not with --search"},
		{append(args, "--measured-mfu", "1.5"), "--measured-mfu: 1.5 is out of range"},
		{append(args, "--measured-memory", "0"), "--measured-memory: 0 is out of range"},
	} {
		if _, e, code := runCLI(c.args...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args[len(c.args)-2:], code, e, c.want)
		}
	}
}
