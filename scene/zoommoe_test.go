package scene

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The mixture-of-experts zoom says the engine's numbers. Four tokens a
// GPU (the first step): at its end GPU 3's expert multiplies its few
// copies — a gate-and-up GEMM of that many rows, memory-bound, far left
// of the ridge, its SMs' tiles one row of 128 mostly empty; mid
// dispatch, each GPU of the node sends to those its copies go to, over NVLink.
// DeepSeek-V3 on 64 GPUs (the second): mid dispatch, NVLink's part long
// done, each GPU's NIC still carrying; after it, the experts' products
// near the compute roof.
func TestZoomMoE(t *testing.T) {
	s, _ := scenarios.Get("mixture-of-experts")
	les := prepare(t, s)
	f := ruleFrames[0].frame
	f.Lang = "en"
	var p Picture
	run := les.Steps[0].Run.(*scenarios.RouteRun)
	res := &run.Result
	l := run.ZoomLayer()
	rows := res.KeptLoad[3]
	still := Moment{Lesson: les, Step: 1, Time: les.Steps[0].To, Zoom: scenarios.Zoom{Level: scenarios.ZoomGPU, GPU: 3}}
	v := moeGPUView(run, l, 3, l.Still, f)
	if v.Current < 0 || v.Strip[v.Current].Label != "experts gate+up" || v.Bound != "memory" || !(v.Intensity < v.Peak/v.BW/10) ||
		!strings.Contains(v.Kernel, "GEMM "+strconvI(rows)+" × 28,672 × 4,096") {
		t.Errorf("GPU 3 after the dispatch: %q, %s-bound at %g FLOP/B (ridge %g), span %d", v.Kernel, v.Bound, v.Intensity, v.Peak/v.BW, v.Current)
	}
	if c := l.GPUs[3].Layer.Up[0]; v.FLOPs != c.FLOPs || v.KernelTime != c.TimeS {
		t.Errorf("GPU 3's point: %g FLOP in %g s, the engine's %g in %g", v.FLOPs, v.KernelTime, c.FLOPs, c.TimeS)
	}
	sm := moeSMView(run, l, 3, l.Still, f)
	if sm.M != rows || sm.N != 2*run.Model.ExpertFFN || sm.K != run.Model.Hidden || sm.TilesM != 1 || !strings.Contains(sm.Title, "fill") {
		t.Errorf("GPU 3's SM: %d × %d × %d, %d rows of tiles, %q", sm.M, sm.N, sm.K, sm.TilesM, sm.Title)
	}
	mid := middle(les, 1).Seconds()
	nv := moeNodeView(run, l, 3, mid, f)
	pairs := 0 // the GPUs' copies for each other GPU
	sent := make([]float64, 8)
	for g := range 8 {
		res.SentFrom(g, sent)
		for h, b := range sent {
			if h != g && b > 0 {
				pairs++
			}
		}
	}
	if len(nv.GPUs) != 8 || len(nv.Flows) != pairs || pairs < 8 || nv.Focus != 3 || !strings.Contains(nv.GPUs[3].Role, strconvI(res.Load[3])+" copies") {
		t.Errorf("the node mid dispatch: %d GPUs, %d flows, focus %d, GPU 3 %q", len(nv.GPUs), len(nv.Flows), nv.Focus, nv.GPUs[3].Role)
	}
	for _, fl := range nv.Flows {
		if want := mid / l.GPUs[fl.From].IntraS; fl.To < 0 || fl.Progress != want {
			t.Errorf("flow %d → %d at %g, want on NVLink at %g", fl.From, fl.To, fl.Progress, want)
		}
	}
	if gs := moeGPUView(run, l, 3, mid, f); gs.Strip[gs.Current].Label != "EP dispatch" || !strings.Contains(gs.Note, "over NVLink 4") || gs.Intensity != 0 {
		t.Errorf("GPU 3 mid dispatch: %q, %q", gs.Strip[gs.Current].Label, gs.Note)
	}
	if sm := moeSMView(run, l, 3, mid, f); !strings.Contains(sm.Note, "copy each token copy") {
		t.Errorf("the SMs mid dispatch: %q", sm.Note)
	}
	if l := p.Build(render.List{}, still, f); len(l.Items) == 0 {
		t.Error("no picture")
	}

	ds := les.Steps[1].Run.(*scenarios.RouteRun)
	dl := ds.ZoomLayer()
	mid = middle(les, 2).Seconds()
	nv = moeNodeView(ds, dl, 40, mid, f)
	nics := 0
	for _, fl := range nv.Flows {
		if fl.To >= 0 {
			t.Errorf("flow %d → %d on NVLink at %g s: its part ends at %g s", fl.From, fl.To, mid, dl.GPUs[40].IntraS)
		}
		nics++
	}
	if nics != 8 || nv.Focus != 0 || nv.GPUs[0].GPU != 40 || nv.GPUs[0].Activity != render.ZoomComm {
		t.Errorf("node 5 mid dispatch: %d NIC flows, focus %d (GPU %d), %v", nics, nv.Focus, nv.GPUs[0].GPU, nv.GPUs[0].Activity)
	}
	dv := moeGPUView(ds, dl, 40, dl.Still, f)
	if dv.Bound != "compute" || !(dv.Intensity > dv.Peak/dv.BW) || !strings.Contains(dv.Kernel, "one of 4 in turn") {
		t.Errorf("DeepSeek-V3's GPU 40 after the dispatch: %q, %s-bound at %g FLOP/B", dv.Kernel, dv.Bound, dv.Intensity)
	}
	if s, _ := dl.At(40, dl.Still); s.Name != parallel.KernelExpertsUp || s.Counts.Products != 4 {
		t.Errorf("GPU 40 at %g s: %s, %d products", dl.Still, s.Name, s.Counts.Products)
	}
}

func strconvI(n int) string { return units.Count(int64(n)) }
