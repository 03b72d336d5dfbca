package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/units"
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

// --topology nvl72: 72 ranks in one GB200 NVL72 rack on NVLink 5, against
// the same all-reduce on nine H100 nodes of 8 over NDR (NCCL's
// hierarchical algorithm). By hand, S = 1 GiB, links at their protocol
// efficiency: rack 2·71·(1 µs + S/(72·738 GB/s)) = 3.011 ms; H100
// 2·7·(1 µs + S/(8·369 GB/s)) + 2·8·(5 µs + (S/8)/(9·45 GB/s)) = 10.49 ms.
func TestCollectiveNVL72(t *testing.T) {
	run := func(args ...string) FabricMetrics {
		t.Helper()
		out, errOut, code := runCLI(append([]string{"collective", "--json", "--bytes", "1073741824"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var m FabricMetrics
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	S := float64(1 << 30)
	rack := run("--topology", "nvl72", "--ranks", "72")
	want := 2 * 71 * (1e-6 + S/(72*738e9))
	if rack.GPUsPerNode != 72 || rack.Nodes != 1 || rack.Intra != "nvlink5" || math.Abs(rack.TimeS-want) > 1e-6*want {
		t.Errorf("nvl72: %d a node, %d nodes, %s, %g s; want 72, 1, nvlink5, %g s", rack.GPUsPerNode, rack.Nodes, rack.Intra, rack.TimeS, want)
	}
	h100 := run("--topology", "fat-tree", "--ranks", "72", "--algo", "hierarchical")
	hwant := 2*7*(1e-6+S/(8*369e9)) + 2*8*(5e-6+S/8/(9*45e9))
	if math.Abs(h100.ClosedFormTimeS-hwant) > 1e-9*hwant {
		t.Errorf("H100 hierarchical closed form %g s, want %g", h100.ClosedFormTimeS, hwant)
	}
	if r := h100.TimeS / rack.TimeS; math.Abs(r-3.48) > 0.02 {
		t.Errorf("H100 / NVL72 = %.3f×, want 3.48×", r)
	}
	// More than a rack: racks of 72 on the fat tree.
	if two := run("--topology", "nvl72", "--ranks", "144", "--algo", "hierarchical"); two.Nodes != 2 || two.GPUsPerNode != 72 {
		t.Errorf("nvl72 × 144: %d racks of %d, want 2 of 72", two.Nodes, two.GPUsPerNode)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--topology", "nvl72", "--gpus-per-node", "8"}, "--gpus-per-node: 8 with --topology nvl72"},
		{[]string{"--topology", "nvl72", "--intra", "nvlink4"}, "--intra: nvlink4 with --topology nvl72"},
		{[]string{"--topology", "nvl73"}, "single-node, fat-tree, nvl72"},
	} {
		_, errOut, code := runCLI(append([]string{"collective", "--ranks", "72"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.msg)
		}
	}
}

// The text says which fabric a run was on and why (issue 36: 1,024 ranks
// ran on one NVLink ring and 4,097 on a fat tree, neither said so).
func TestCollectiveSaysItsFabric(t *testing.T) {
	most := units.Count(collective.MaxRanks)
	tests := []struct {
		args []string
		says []string
	}{
		{[]string{"--ranks", strconv.Itoa(collective.MaxRanks / 4)},
			[]string{"all " + units.Count(collective.MaxRanks/4) + " ranks on one NVLink 4 switch", "packet-level run", "at most " + most + " ranks", "--gpus-per-node or --topology"}},
		{[]string{"--ranks", strconv.Itoa(collective.MaxRanks + 1)},
			[]string{"513 nodes of 8 joined by a fat tree", units.Count(collective.MaxRanks+1) + " ranks (the packet-level run takes at most " + most + ")",
				"--topology fat-tree and --gpus-per-node 8 by default"}},
		{[]string{"--ranks", "64", "--nodes", "8", "--link", "ib-ndr", "--inter", "ib-xdr"}, []string{"8 nodes of 8 ranks, each on one IB NDR 400G switch, joined by IB XDR 800G"}},
		{[]string{"--op", "allgather", "--ranks", "64"}, []string{"--op allgather (the packet-level run does allreduce only)"}},
		{[]string{"--algo", "tree", "--ranks", "64"}, []string{"--algo tree (the packet-level run has ring and star only)"}},
		{[]string{"--ranks", "16", "--gpus-per-node", "4", "--inter", "ib-xdr"}, []string{"4 nodes of 4 joined by a fat tree", "for --gpus-per-node, --inter given", "--topology fat-tree by default"}},
		{[]string{"--ranks", "16", "--topology", "single-node"}, []string{"one node (one NVSwitch)", "--topology given"}},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(append([]string{"collective"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		_, line, _ := strings.Cut(out, "\n  fabric ")
		line, _, _ = strings.Cut(line, "\n")
		for _, w := range tt.says {
			if !strings.Contains(line, w) {
				t.Errorf("%v: the fabric line %q does not say %q", tt.args, strings.TrimSpace(line), w)
			}
		}
	}
	help, _, _ := runCLI("collective", "--help")
	for _, w := range []string{"up to " + most + " ranks runs on the packet-level", "switch of --link", "fat tree", "fabric line says which ran"} {
		if !strings.Contains(help, w) {
			t.Errorf("collective --help does not state the rule: no %q", w)
		}
	}
}
