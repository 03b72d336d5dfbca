package parallel

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// The loss's passes by hand: Megatron-Core's weak-scaling 1.7B (h 2,048,
// vocabulary 131,072, TP 1) runs b·s = 4 × 4,096 tokens a micro-batch
// through its last stage, 2.1 × 10⁹ logits; Megatron's unfused
// cross-entropy moves 38 bytes a logit forward and 14 backward
// (cross_entropy.py: cast 6, max 4, subtract 8, exp 8, sum 4, divide 8;
// scale 8, cast back 6), the fused one 26 and 14, PyTorch's 22 and 26,
// a one-kernel loss 2 and 4.
func TestLossBytesByHand(t *testing.T) {
	m := model.Transformer{ID: "1.7b", Layers: 24, Hidden: 2048, Heads: 16, KVHeads: 16, Seq: 4096, Vocab: 131072,
		FFNSize: 4 * 2048, FFN: model.GeLU, Biases: true, LearnedPositions: true, Tied: true}
	c := Config{Model: m, Cluster: DefaultCluster(gpu(t, "h100"), 8)}
	c.Plan = Plan{TP: 1, PP: 1, DP: 8, Interleave: 1, BytesPerParam: 16, Schedule: OneFOneB, Dtype: hw.BF16, MicroBatch: 4, GlobalBatch: 32, Flash: true, Overlap: true, Recompute: RecomputeNone}
	g := sustained(c.Cluster.GPU)
	logits := 4.0 * float64(c.Model.Seq) * float64(c.Model.Vocab)
	for _, tc := range []struct {
		loss     Loss
		fwd, bwd float64
	}{{"", 38, 14}, {LossMegatron, 38, 14}, {LossMegatronFused, 26, 14}, {LossPyTorch, 22, 26}, {LossFused, 2, 4}} {
		p := c.Plan
		p.Loss = tc.loss
		hd := headOf(c.Model, p, Cluster{GPU: g})
		bw := g.HBMBandwidth * MemoryEfficiency
		if !within(hd.lossF, logits*tc.fwd/bw, 1e-12) || !within(hd.lossB, logits*tc.bwd/bw, 1e-12) {
			t.Errorf("%q: loss %.4g s forward, %.4g backward; by hand %.4g, %.4g", tc.loss, hd.lossF, hd.lossB, logits*tc.fwd/bw, logits*tc.bwd/bw)
		}
	}
	// Each implementation's step: the unfused loss the slowest, the
	// one-kernel loss the fastest, the rest between; the metrics name it.
	var prev float64
	for i, l := range []Loss{LossFused, LossMegatronFused, LossPyTorch, LossMegatron} {
		p := c.Plan
		p.Loss = l
		r, err := Evaluate(Config{Model: c.Model, Plan: p, Cluster: c.Cluster})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && !(r.Time.Step > prev) {
			t.Errorf("%s: step %.4g s, not above the lighter loss's %.4g", l, r.Time.Step, prev)
		}
		prev = r.Time.Step
		if got := r.Metrics().CrossEntropy; got != string(l) {
			t.Errorf("metrics cross_entropy %q, want %q", got, l)
		}
	}
	p := c.Plan
	p.Loss = "liger"
	if _, err := Evaluate(Config{Model: c.Model, Plan: p, Cluster: c.Cluster}); err == nil || !strings.Contains(err.Error(), "cross-entropy") || !strings.Contains(err.Error(), "megatron-fused") {
		t.Errorf("an unknown loss: %v; want an error naming the field and the allowed values", err)
	}
}
