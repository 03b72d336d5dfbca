package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A routed layer whose experts got the mean copies costs what the MoE
// layer's kernels cost: Mixtral, EP 8 (one expert a GPU), a 4,096-token
// micro-batch, top-2 — 8,192 copies an expert; the router, the experts'
// products and the permutation as MoELayerKernels times them. An expert
// with twice the copies takes its products' time at twice the rows; one
// with none runs none.
func TestRoutedMoELayer(t *testing.T) {
	mx, _ := model.Preset("mixtral-8x7b")
	h100 := gpu(t, "h100")
	c := Config{Model: mx, Plan: Plan{TP: 1, PP: 1, DP: 8, EP: 8, Interleave: 1, Recompute: RecomputeSelective, Flash: true,
		MicroBatch: 1, GlobalBatch: 8, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}, Cluster: DefaultCluster(h100, 8)}
	ks, err := MoELayerKernels(c)
	if err != nil {
		t.Fatal(err)
	}
	n := mx.Seq
	l := RoutedMoELayer(mx, h100, n, []int{n * mx.TopK})
	got := map[string]float64{KernelRouter: l.Router.TimeS, KernelExpertsUp: l.Up[0].TimeS, KernelExpertsDown: l.Down[0].TimeS, KernelPermute: l.Permute.TimeS}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for _, k := range ks {
		if g, ok := got[k.Name]; ok {
			if !near(g, k.ForwardS) {
				t.Errorf("%s: routed %g s, the MoE layer's kernel %g s", k.Name, g, k.ForwardS)
			}
			delete(got, k.Name)
		}
	}
	if len(got) > 0 {
		t.Errorf("no MoE layer kernel for %v", got)
	}
	if u := l.Up[0]; u.GEMM == nil || u.GEMM.Config.M != n*2 || u.GEMM.Config.N != 2*mx.ExpertFFN || u.GEMM.Config.K != mx.Hidden {
		t.Errorf("the up product %+v", u.GEMM)
	}
	two := RoutedMoELayer(mx, h100, n, []int{0, 4 * n, 16})
	if two.Up[0].TimeS != 0 || two.Up[0].GEMM != nil || two.Up[1].GEMM.Config.M != 4*n || !(two.Up[1].TimeS > l.Up[0].TimeS) {
		t.Errorf("experts of 0 and %d copies: %+v, %+v", 4*n, two.Up[0], two.Up[1])
	}
	// Sixteen copies: a thin product, far left of the ridge; 16,384: on
	// the roof.
	if b := two.Up[2].Bound; b != "memory" {
		t.Errorf("16 copies: %s-bound", b)
	}
	if b := two.Up[1].Bound; b != "compute" {
		t.Errorf("%d copies: %s-bound", 4*n, b)
	}
	s := Sum(two.Up)
	if s.Products != 2 || !near(s.TimeS, two.Up[1].TimeS+two.Up[2].TimeS) || !near(s.FLOPs, two.Up[1].FLOPs+two.Up[2].FLOPs) || s.Bound != "compute" {
		t.Errorf("the two experts' products together: %+v", s)
	}
}
