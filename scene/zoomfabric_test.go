package scene

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// fabricStep is lesson id's step stepID, prepared with the defaults.
func fabricStep(t *testing.T, id, stepID string) (*scenarios.Lesson, int, *scenarios.FabricRun) {
	t.Helper()
	s, _ := scenarios.Get(id)
	les := prepare(t, s)
	n := les.StepNumber(stepID)
	if n == 0 {
		t.Fatalf("%s has no step %s", id, stepID)
	}
	return les, n, les.Steps[n-1].Run.(*scenarios.FabricRun)
}

// The race zoomed: while both transfers run GPU 0's node carries two
// flows (NVLink to GPU 1, the NIC) and its GPU picture names both with
// the engine's times; once NVLink is done, the NIC's alone; the next
// node's GPU 8 receives through its NIC; the SMs are free.
func TestZoomFabricRace(t *testing.T) {
	_, _, r := fabricStep(t, "nvlink-vs-ib", "race")
	f := ruleFrames[0].frame
	f.Lang = "en"
	z := r.Zoom()
	early, late := r.IntraS/2, (r.IntraS+r.InterS)/2
	nv := fabricNodeView(r, z, 0, early, f)
	if len(nv.GPUs) != 8 || len(nv.Flows) != 2 || nv.Flows[0].To != 1 || nv.Flows[1].To != -1 {
		t.Errorf("node 0 early: %d GPUs, flows %+v", len(nv.GPUs), nv.Flows)
	}
	if nv := fabricNodeView(r, z, 0, late, f); len(nv.Flows) != 1 || nv.Flows[0].To != -1 || nv.GPUs[1].Doing != "done" {
		t.Errorf("node 0 late: flows %+v, GPU 1 %q", nv.Flows, nv.GPUs[1].Doing)
	}
	if nv := fabricNodeView(r, z, 8, late, f); nv.Focus != 0 || len(nv.Flows) != 1 || nv.GPUs[0].Activity != render.ZoomComm {
		t.Errorf("node 1 late: %+v", nv)
	}
	v := fabricGPUView(r, z, 0, early, f)
	d := func(s float64) string { return units.LocalDuration("en", s) }
	if !strings.Contains(v.Kernel, units.Bytes(r.Bytes)) || !strings.Contains(v.Kernel, d(r.IntraS)) || !strings.Contains(v.Kernel, d(r.InterS)) ||
		!strings.Contains(v.Kernel, r.Inter.Name) || len(v.Strip) != 2 || v.Current != 0 || !strings.Contains(v.Note, "SMs are free") {
		t.Errorf("GPU 0 early: %q, strip %d lit %d, %q", v.Kernel, len(v.Strip), v.Current, v.Note)
	}
	if v := fabricGPUView(r, z, 0, late, f); v.Current != 1 {
		t.Errorf("GPU 0 late: lit %d", v.Current)
	}
}

// collectives-at-scale zoomed: at 64 kB the fastest algorithm, the tree,
// is 2·10 rounds of latency round one stream, its first chunk climbing a
// level a round; at 4 GB the ring's 1,023 rounds of 3.91 MB are
// bandwidth-bound; the still step shows the collective a quarter of the
// way in, in its own seconds; the lit span holds the moment. A round's
// bytes are in the lesson's decimal units (61 kB, not 59.6 KiB: the
// message sizes are 64 kB and 4 GB).
func TestZoomFabricSizes(t *testing.T) {
	f := ruleFrames[0].frame
	f.Lang = "en"
	for _, c := range []struct {
		step  string
		algo  collective.Algo
		spans int
		says  string
	}{
		{"small", collective.Tree, 21, "of latency, no bytes"},
		{"large", collective.Ring, 2, "bandwidth-bound"},
		{"hierarchical", collective.Hierarchical, 4, "latency-bound"}, // 2,047 rounds of 61 kB across nodes
	} {
		les, step, r := fabricStep(t, "collectives-at-scale", c.step)
		z := r.Zoom()
		sr := &les.Steps[step-1]
		tt := r.ZoomTime(sr, sr.From)
		if z.Algo != c.algo || r.Fastest() != c.algo || tt != r.Forms[c.algo].Seconds/4 {
			t.Errorf("%s: zoom on %s at %g s; fastest %s of %g s", c.step, z.Algo, tt, r.Fastest(), r.Forms[r.Fastest()].Seconds)
		}
		g := 3
		v := fabricGPUView(r, z, g, tt, f)
		if strings.Contains(v.Kernel, "iB") {
			t.Errorf("%s: %q, a round's bytes in binary units beside the lesson's decimal sizes", c.step, v.Kernel)
		}
		if len(v.Strip) != c.spans || v.Current < 0 || v.Strip[v.Current].Start > tt || v.Strip[v.Current].End <= tt || !strings.Contains(v.Kernel, c.says) {
			t.Errorf("%s: %d spans, lit %d, %q", c.step, len(v.Strip), v.Current, v.Kernel)
		}
		mo := r.ZoomAt(g, tt)
		if mo.Kernel != "" && !strings.Contains(v.Doing, legLabel(f.words(), z, z.Legs[mo.Leg], false)) {
			t.Errorf("%s: %q, the engine's leg %s", c.step, v.Doing, z.Legs[mo.Leg].Kind)
		}
		nv := fabricNodeView(r, z, g, tt, f)
		if len(nv.GPUs) != r.GPUsPerNode || nv.GPUs[nv.Focus].GPU != g || len(nv.Flows) == 0 {
			t.Errorf("%s: node of %d GPUs, focus %d, %d flows", c.step, len(nv.GPUs), nv.Focus, len(nv.Flows))
		}
	}
	// Hierarchical's legs across nodes leave every GPU by its NIC.
	_, _, r := fabricStep(t, "collectives-at-scale", "hierarchical")
	z := r.Zoom()
	mid := z.Legs[1].Start + z.Legs[1].Round()/2
	for _, fl := range fabricNodeView(r, z, 0, mid, f).Flows {
		if fl.To != -1 {
			t.Errorf("across nodes, a flow to GPU %d", fl.To)
		}
	}
	if nv := fabricNodeView(r, z, 0, z.Legs[0].Round()/2, f); len(nv.Flows) != 8 || nv.Flows[7].To != 0 {
		t.Errorf("in the node, flows %+v", nv.Flows)
	}
}

// The contention step: one GPU a node, its NIC's busy share on each tree
// as the engine's loads say; the rack: 72 GPUs of one NVLink domain in
// the all-reduce's ring, each sending to the next, and the nine H100
// nodes still at it on the GPU's strip.
func TestZoomFabricContentionRack(t *testing.T) {
	f := ruleFrames[0].frame
	f.Lang = "en"
	_, _, r := fabricStep(t, "collectives-at-scale", "contention")
	z := r.Zoom()
	nv := fabricNodeView(r, z, 40, z.Seconds/2, f)
	_, busy := nicBusy(r, 40)
	if len(nv.GPUs) != 1 || len(nv.Flows) != 1 || !strings.Contains(nv.GPUs[0].Role, units.Percent(busy[1])) || busy[0] <= busy[1] {
		t.Errorf("contention node: %+v, busy %v", nv.GPUs, busy)
	}
	_, _, r = fabricStep(t, "rack-scale-nvlink", "allreduce")
	z = r.Zoom()
	nv = fabricNodeView(r, z, 3, z.Seconds/2, f)
	if len(nv.GPUs) != 72 || len(nv.Flows) != 72 || nv.Focus != 3 || nv.Flows[71].To != 0 {
		t.Errorf("NVL72: %d GPUs, %d flows", len(nv.GPUs), len(nv.Flows))
	}
	v := fabricGPUView(r, z, 3, z.Seconds/2, f)
	if last := v.Strip[len(v.Strip)-1]; last.End != r.Rack.Systems[1].Seconds || last.Comm {
		t.Errorf("NVL72 GPU strip ends %+v", last)
	}
}
