package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A layer's kernels are the parts of its time: their forward times add
// up to the layer's forward, their backward times and the recomputation
// to its backward, the collectives to TP's all-reduces — and a middle
// pipeline stage's forward block of the time line is its layers' forward
// kernels, summed. GPT-3 175B, TP 8, b = 1: the products' shapes by hand
// (Q, K and V 2,048 × 3·12,288/8 × 12,288; the MLP 4·12,288/8 wide), each
// product's time the GEMM model's for that shape.
func TestLayerKernels(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	h100 := gpu(t, "h100")
	p := Plan{TP: 8, PP: 8, DP: 8, Interleave: 1, SP: true, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 512,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	c := Config{Model: m, Plan: p, Cluster: DefaultCluster(h100, 512)}
	ks, err := LayerKernels(c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var fwd, bwd, tpF, tpB float64
	for _, k := range ks {
		names = append(names, k.Name)
		if k.Kind == KernelCollective {
			tpF, tpB = tpF+k.ForwardS, tpB+k.BackwardS
			continue
		}
		fwd, bwd = fwd+k.ForwardS, bwd+k.BackwardS
	}
	if got := strings.Join(names, " "); got != "qkv out up down attention elementwise recompute tp_allreduce" {
		t.Errorf("kernels %s", got)
	}
	cl := c.Cluster
	cl.GPU = sustained(cl.GPU)
	want := layerCost(m, p, cl)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	if !near(fwd, want.fwd) || !near(bwd, want.bwd) || !near(tpF, want.tpFwd) || !near(tpB, want.tpBwd) {
		t.Errorf("kernels add up to %g / %g s (TP %g / %g); the layer is %g / %g (TP %g / %g)", fwd, bwd, tpF, tpB, want.fwd, want.bwd, want.tpFwd, want.tpBwd)
	}
	h := 12288.0
	shapes := map[string][3]float64{"qkv": {2048, 3 * h / 8, h}, "out": {2048, h, h / 8}, "up": {2048, 4 * h / 8, h}, "down": {2048, h, 4 * h / 8}}
	for _, k := range ks {
		s, ok := shapes[k.Name]
		if !ok {
			continue
		}
		if k.M != s[0] || k.N != s[1] || k.K != s[2] {
			t.Errorf("%s: %g×%g×%g, want %g×%g×%g", k.Name, k.M, k.N, k.K, s[0], s[1], s[2])
		}
		g, err := kernel.GEMM(kernel.GEMMConfig{M: int(s[0]), N: int(s[1]), K: int(s[2]), Dtype: hw.BF16, GPU: cl.GPU, Kernel: kernel.TensorTiled})
		if err != nil || !near(k.ForwardS, g.TimeS) {
			t.Errorf("%s forward %g s, the GEMM model's %g (%v)", k.Name, k.ForwardS, g.TimeS, err)
		}
	}
	// The time line's blocks: a middle stage holds 96 ÷ 8 = 12 layers.
	r, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.StageForward[3]; !near(got, 12*fwd) {
		t.Errorf("stage 3's forward block %g s, 12 layers of kernels %g s", got, 12*fwd)
	}
	// A mixture of experts' MoE layers: the attention's kernels, the
	// router, the experts' products, the permutation and the all-to-alls,
	// adding up to the MoE layer's costs.
	mx, _ := model.Preset("mixtral-8x7b")
	mc := Config{Model: mx, Plan: Plan{TP: 1, PP: 1, DP: 8, EP: 8, Interleave: 1, Recompute: RecomputeSelective, Flash: true,
		MicroBatch: 1, GlobalBatch: 8, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}, Cluster: DefaultCluster(h100, 8)}
	mks, err := LayerKernels(mc)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	var mf, mb float64
	for _, k := range mks {
		names = append(names, k.Name)
		mf, mb = mf+k.ForwardS, mb+k.BackwardS
	}
	if got := strings.Join(names, " "); got != "qkv out attention elementwise recompute experts_up experts_down router permute ep_dispatch ep_combine" {
		t.Errorf("Mixtral's kernels %s", got)
	}
	mcl := mc.Cluster
	mcl.GPU = sustained(mcl.GPU)
	ml := moeLayerOn(mx, mc.Plan, mcl, 0, 0)
	if w := ml.cost.fwd + ml.cost.tpFwd + ml.cost.cpFwd + ml.a2aFwd; !near(mf, w) {
		t.Errorf("Mixtral's kernels forward %g s, the MoE layer %g", mf, w)
	}
	if w := ml.cost.bwd + ml.cost.tpBwd + ml.cost.cpBwd + ml.a2a - ml.a2aFwd; !near(mb, w) {
		t.Errorf("Mixtral's kernels backward %g s, the MoE layer %g", mb, w)
	}
}
