package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// toyTE is a 4-layer GELU model, h 1,024, f 4,096, 2,048 tokens: its
// layer's products on one GPU (TP 1, b = 1) are QKV 2,048 × 3,072 ×
// 1,024, the output 2,048 × 1,024 × 1,024, up 2,048 × 4,096 × 1,024
// and down 2,048 × 1,024 × 4,096.
func toyTE() model.Transformer {
	return model.Transformer{ID: "toy-te", Name: "toy", Layers: 4, Hidden: 1024, Heads: 8, KVHeads: 8, Seq: 2048, Vocab: 32000,
		FFNSize: 4096, FFN: model.GeLU}
}

func tePlan(gpus int, teLinear bool) Plan {
	return Plan{TP: 1, PP: 1, DP: gpus, Interleave: 1, MicroBatch: 1, GlobalBatch: 4 * gpus, Schedule: OneFOneB,
		BytesPerParam: 16, Dtype: hw.FP8, Recompute: RecomputeNone, Flash: true, Overlap: true, TELinear: teLinear}
}

// Transformer Engine's FP8 work for one layer and micro-batch, by hand
// (te.go), for the toy's four products (n = 2,048 tokens; the weights
// 3,072·1,024 + 1,024·1,024 + 4,096·1,024 + 1,024·4,096 = 12,582,912
// values; the step's M = 4 micro-batches):
//
// Megatron-Core's modules: forward, QKV's and up's inputs only
// transposed (the norm writes FP8: 2 bytes a value), the output's and
// down's cast and transposed (4): 2,048 × (1,024·2 + 1,024·4 + 1,024·2
// + 4,096·4) = 50,331,648 bytes; the weights once a step, a quarter a
// micro-batch: 12,582,912 × 4 ÷ 4; 4 casts and 4 ÷ 4 weight casts; the
// amaxes' concatenation and fused update, 2 kernels a chunk of 4 layers
// each way (0.5 a layer); no all-reduce on one GPU (TP × CP = 1).
// Backward: every output gradient cast and transposed, 2,048 × (3,072
// + 1,024 + 4,096 + 1,024) × 4 = 75,497,472 bytes, 4 kernels + 0.5.
//
// te.Linear (llm-foundry's): every input cast and transposed, 2,048 ×
// 7,168 × 4 = 58,720,256, and the weights every micro-batch, 12,582,912
// × 4; 4 + 4 casts, the amaxes 2 kernels a module (8) and the
// concatenation a model (0.25 a layer) each way.
func TestTELayerHandWorked(t *testing.T) {
	m := toyTE()
	n := 2048.0
	mats := []mm{{3072, 1024}, {1024, 1024}, {4096, 1024}, {1024, 4096}}
	cl := DefaultCluster(gpu(t, "h100"), 1)
	for _, c := range []struct {
		teLinear                  bool
		fwdB, bwdB, fwdK, bwdK    float64
		fwdReduce, bwdReduceShare float64
	}{
		{false, 50331648 + 12582912, 75497472, 4 + 1 + 0.5, 4 + 0.5, 0, 0},
		{true, 58720256 + 50331648, 75497472, 4 + 4 + 8 + 0.25, 4 + 8 + 0.25, 0, 0},
	} {
		got := teLayer(tePlan(1, c.teLinear), cl, m.Layers, n, mats, 1, 3)
		want := teFP8{fwdBytes: c.fwdB, bwdBytes: c.bwdB, fwdKernels: c.fwdK, bwdKernels: c.bwdK}
		if got != want {
			t.Errorf("te-linear %v: %+v, want %+v", c.teLinear, got, want)
		}
	}
	// On 8 GPUs llm-foundry's region all-reduces its amaxes over all 8
	// ranks each way: 3 FP32 amaxes × 4 modules × 4 layers = 192 bytes,
	// a quarter of it a layer.
	cl8 := DefaultCluster(gpu(t, "h100"), 8)
	got := teLayer(tePlan(8, true), cl8, m.Layers, n, mats, 1, 3)
	ar := ncclTime(collective.AllReduce, 192, 8, 8, cl8)
	if ar <= 0 || got.fwdReduce != ar/4 || got.bwdReduce != ar/4 {
		t.Errorf("amax all-reduce %g/%g a layer, want %g ÷ 4", got.fwdReduce, got.bwdReduce, ar)
	}
	// Megatron-Core's group is TP × CP: data parallelism alone reduces
	// nothing.
	if got := teLayer(tePlan(8, false), cl8, m.Layers, n, mats, 1, 3); got.fwdReduce != 0 {
		t.Errorf("Megatron-Core, TP 1: amax all-reduce %g, want none", got.fwdReduce)
	}
}

// The layer's time carries that work, in series: its "quantize" kernel
// is the hand-worked bytes at the engine's HBM rate and a launch a
// kernel, and taking te.Linear's extra casts away would take exactly
// their time off the layer's forward.
func TestTELayerInLayerCost(t *testing.T) {
	m := toyTE()
	g := gpu(t, "h100")
	bw := g.HBMBandwidth * MemoryEfficiency
	for _, c := range []struct {
		teLinear   bool
		fwd, bwd   float64
		fwdK, bwdK float64
	}{
		{false, 50331648 + 12582912, 75497472, 5.5, 4.5},
		{true, 58720256 + 50331648, 75497472, 16.25, 12.25},
	} {
		cfg := Config{Model: m, Plan: tePlan(1, c.teLinear), Cluster: DefaultCluster(g, 1)}
		ks, err := LayerKernels(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var q *Kernel
		for i := range ks {
			if ks[i].Name == "quantize" {
				q = &ks[i]
			}
		}
		wf := c.fwd/bw + c.fwdK*kernel.LaunchOverhead
		wb := c.bwd/bw + c.bwdK*kernel.LaunchOverhead
		if q == nil || math.Abs(q.ForwardS-wf) > 1e-12 || math.Abs(q.BackwardS-wb) > 1e-12 {
			t.Fatalf("te-linear %v: quantize %+v, want %g s forward, %g backward", c.teLinear, q, wf, wb)
		}
	}
	bf := Config{Model: m, Plan: tePlan(1, false), Cluster: DefaultCluster(g, 1)}
	bf.Plan.Dtype = hw.BF16
	ks, err := LayerKernels(bf)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if k.Name == "quantize" && (k.ForwardS != 0 || k.BackwardS != 0) {
			t.Errorf("BF16: quantize %+v, want nothing", k)
		}
	}
}

// What stays BF16 under per-tensor FP8: the output head (Megatron-Core's
// own ColumnParallelLinear, MPT's tied F.linear, torchtitan's "output"),
// the attention core.
func TestFP8HeadStaysBF16(t *testing.T) {
	m := toyTE()
	g := gpu(t, "h100")
	cl := Cluster{GPU: g}
	p := tePlan(1, false)
	hd := headOf(m, p, cl)
	if want := cl.gemm(hw.BF16, 2048, 32000, 1024); hd.gemmF != want {
		t.Errorf("FP8 plan's head forward %g s, want BF16's %g", hd.gemmF, want)
	}
	if p.headDtype() != hw.BF16 || attDtype(p.matmul()) != hw.BF16 {
		t.Errorf("FP8 plan: head %s, attention %s; want bf16", p.headDtype(), attDtype(p.matmul()))
	}
}

func TestTELinearNeedsFP8(t *testing.T) {
	m := toyTE()
	p := tePlan(1, true)
	p.Dtype = hw.BF16
	if err := (Config{Model: m, Plan: p, Cluster: DefaultCluster(gpu(t, "h100"), 1)}).Validate(); err == nil {
		t.Error("te-linear on a BF16 plan: no error")
	}
}
