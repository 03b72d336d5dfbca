package main

import (
	"encoding/json"
	"testing"
)

// Tree, star and NVLS now have flow schedules: on a topology they report
// model "flow", within their stated agreement of the closed form (a tree
// all-reduce's busiest rank sends 2S against the closed form's average
// 2(n−1)/n·S: n/(n−1) of its bandwidth term); NVLS across nodes is still
// refused (TestBadFlags).
func TestCollectiveFlowModel(t *testing.T) {
	for _, c := range []struct {
		args []string
		tol  float64
	}{
		{[]string{"--algo", "tree", "--ranks", "64", "--gpus-per-node", "1", "--topology", "fat-tree"}, 0.02},
		{[]string{"--op", "broadcast", "--algo", "tree", "--ranks", "64", "--gpus-per-node", "1"}, 0.001},
		{[]string{"--algo", "star", "--ranks", "8", "--topology", "single-node"}, 0.001},
		{[]string{"--algo", "nvls", "--ranks", "8", "--topology", "single-node"}, 0.001},
	} {
		out, errOut, code := runCLI(append([]string{"collective", "--json", "--bytes", "1GB"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var m FabricMetrics
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		if m.Model != "flow" {
			t.Errorf("%v: model %q, want flow", c.args, m.Model)
		}
		if d := m.TimeS/m.ClosedFormTimeS - 1; d < -c.tol || d > c.tol {
			t.Errorf("%v: flows %g s, closed form %g s", c.args, m.TimeS, m.ClosedFormTimeS)
		}
		if m.MaxLinkUtilization > 1 {
			t.Errorf("%v: a link at %g", c.args, m.MaxLinkUtilization)
		}
	}
}
