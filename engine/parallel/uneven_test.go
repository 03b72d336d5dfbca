package parallel

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// bloom is BLOOM-176B's run (Scao et al. 2022, arXiv 2211.05100 §3.4:
// 70 layers, hidden 14336, 112 heads, a 250,880 vocabulary, 2,048-token
// sequences; 384 A100s as TP 4 × PP 12 × DP 8, micro-batches of 2, 2,048
// sequences a step, ZeRO-1, full recomputation), GPT-style sizes.
func bloom(t *testing.T) Config {
	t.Helper()
	m := model.Transformer{ID: "custom", Name: "BLOOM-176B", Layers: 70, Hidden: 14336, Heads: 112, KVHeads: 112, Seq: 2048, Vocab: 250880,
		FFNSize: 4 * 14336, FFN: model.GeLU, Biases: true, Tied: true}
	return Config{Model: m, Cluster: DefaultCluster(gpu(t, "a100-80gb"), 384),
		Plan: Plan{TP: 4, PP: 12, DP: 8, Interleave: 1, ZeRO: 1, Recompute: RecomputeFull, MicroBatch: 2, GlobalBatch: 2048,
			Schedule: OneFOneB, BytesPerParam: 18, Dtype: hw.BF16}}
}

// Megatron-Core's uneven pipeline split, by hand: BLOOM-176B's 70 layers
// on 12 stages with 5 on the first and the last (its Megatron-DeepSpeed
// split counted the two embeddings as layers, 72 ÷ 12 = 6 a stage) hold
// 5, 6 × 10, 5; 60 layers on 16 stages with 2 on each end 2, 4 × 14, 2,
// and with v = 2 chunks of 1, 2 × 14, 1, then again; Nemotron-4's 96 on
// 8 with 11 and 13 at the ends (96 − 24 = 72 over 6 stages) 11, 12 × 6,
// 13; only the first set, 70 on 12 with 4 first: 66 over 11, 6 each.
func TestSplitLayersByHand(t *testing.T) {
	for _, c := range []struct {
		L, p, v, first, last int
		stages               []int
		chunks               []int
	}{
		{70, 12, 1, 5, 5, []int{5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5}, nil},
		{60, 16, 1, 2, 2, []int{2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2}, nil},
		{60, 16, 2, 2, 2, nil, []int{1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}},
		{96, 8, 1, 11, 13, []int{11, 12, 12, 12, 12, 12, 12, 13}, nil},
		{70, 12, 1, 4, 0, []int{4, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6}, nil},
		{70, 2, 1, 30, 40, []int{30, 40}, nil},
		// Llama 3's balancing without them: 126 on 16, the ends a layer
		// short; with v = 2, the first and last chunks.
		{126, 16, 1, 0, 0, []int{7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}, nil},
		{126, 16, 2, 0, 0, nil, []int{3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3}},
	} {
		s, err := splitLayers(c.L, c.p, c.v, c.first, c.last)
		if err != nil {
			t.Errorf("%d layers on %d × %d, %d and %d: %v", c.L, c.p, c.v, c.first, c.last, err)
			continue
		}
		sum := 0
		for st := range c.p {
			sum += s.stage(st)
			if c.stages != nil && s.stage(st) != c.stages[st] {
				t.Errorf("%d layers on %d, %d and %d: stage %d holds %d, by hand %d", c.L, c.p, c.first, c.last, st, s.stage(st), c.stages[st])
			}
		}
		chunks := 0
		for q := range c.p * c.v {
			chunks += s.chunk(q)
			if c.chunks != nil && s.chunk(q) != c.chunks[q] {
				t.Errorf("%d layers on %d × %d: chunk %d holds %d, by hand %d", c.L, c.p, c.v, q, s.chunk(q), c.chunks[q])
			}
		}
		if (c.v == 1 && sum != c.L) || chunks != c.L {
			t.Errorf("%d layers on %d × %d: the stages hold %d, the chunks %d", c.L, c.p, c.v, sum, chunks)
		}
	}
	for _, c := range []struct {
		L, p, v, first, last int
		want                 string
	}{
		{70, 12, 1, 4, 5, "first-stage-layers, last-stage-layers: 4, 5 leave 61 of the 70 layers for the 10 other stages; must be a positive multiple of 10"},
		{70, 1, 1, 5, 0, "first-stage-layers, last-stage-layers: 5, 0 with pp 1; an uneven split needs pp ≥ 2"},
		{70, 12, 1, 70, 0, "first-stage-layers: 70; allowed 1–69"},
		{70, 12, 1, 0, 80, "last-stage-layers: 80; allowed 1–69"},
		{70, 2, 1, 30, 30, "first-stage-layers, last-stage-layers: 30 + 30 of 70 layers on pp 2; with no other stage they must add up to the layers"},
		{70, 12, 2, 5, 5, "interleave: 2 does not divide the first stage's 5 layers"},
		{62, 16, 2, 2, 18, "interleave: 2 does not divide the middle stages' 3 layers"},
		{60, 16, 1, 0, 0, "layers: 60 not divisible by pp × interleave = 16 × 1"},
	} {
		if _, err := splitLayers(c.L, c.p, c.v, c.first, c.last); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%d layers on %d × %d, %d and %d: %v, want %q", c.L, c.p, c.v, c.first, c.last, err, c.want)
		}
	}
}

// BLOOM's run with its 5-layer first and last stages: each stage is
// costed with its own layers — the first stage's forward 5 layers', a
// middle stage's 6 (×6/5), the last's 5 and the output layer — and the
// time line's blocks are those times; the stages' parameters add up to
// the model's (the tied embedding's copy on the last stage apart). The
// split is the one Llama 3's balancing gives 70 layers on 12 stages, so
// the plan is exactly the plan without the flags. 60 layers on 16
// stages, refused without them, plan with 2 on each end.
func TestUnevenStagesBLOOM(t *testing.T) {
	c := bloom(t)
	c.Plan.FirstStageLayers, c.Plan.LastStageLayers = 5, 5
	r, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	for st, want := range []int{5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5} {
		if got := r.StageMemory[st].Layers; got != want {
			t.Errorf("stage %d holds %d layers, want %d", st, got, want)
		}
	}
	if got := r.StageForward[1] / r.StageForward[0]; !within(got, 6.0/5, 1e-12) {
		t.Errorf("a middle stage's forward ×%.6f the first's, by hand 6/5", got)
	}
	if got := r.StageBackward[5] / r.StageBackward[0]; !within(got, 6.0/5, 1e-12) {
		t.Errorf("a middle stage's backward ×%.6f the first's, by hand 6/5", got)
	}
	if r.StageForward[11] <= r.StageForward[0] {
		t.Errorf("the last stage's forward %.6g s, not above the first's %.6g (the same layers and the output layer)", r.StageForward[11], r.StageForward[0])
	}
	sum := 0.0
	for _, p := range r.StageParams {
		sum += p
	}
	if want := c.Model.Params() + 250880*14336.0; !within(sum*4, want, 1e-3) {
		t.Errorf("the stages hold %.5g parameters (× TP 4), the model %.5g with the tied embedding's copy", sum*4, want)
	}
	tl, err := r.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range tl.Blocks {
		// A forward block: the stage's forward and its TP all-reduces.
		if f := r.StageForward[b.Stage] + r.StageTPForward[b.Stage]; b.Kind == Forward && b.MicroBatch == 0 && !within(b.End-b.Start, f, 1e-9) {
			t.Errorf("stage %d's first forward block lasts %.6g s, its forward %.6g s", b.Stage, b.End-b.Start, f)
		}
	}
	if got := (r.StageTPForward[1]) / r.StageTPForward[0]; !within(got, 6.0/5, 1e-12) {
		t.Errorf("a middle stage's TP all-reduces ×%.6f the first's, by hand 6/5", got)
	}
	even := bloom(t)
	re, err := Evaluate(even)
	if err != nil {
		t.Fatal(err)
	}
	if re.Time != r.Time || re.Memory != r.Memory {
		t.Errorf("5, 6 … 6, 5 given: %+v; by Llama 3's balancing, the same split: %+v", r.Time, re.Time)
	}
	// 60 layers on 16 stages.
	c.Model.Layers = 60
	c.Plan.PP, c.Plan.DP, c.Plan.FirstStageLayers, c.Plan.LastStageLayers = 16, 6, 0, 0
	c.Plan.GlobalBatch = 2040
	if _, err := Evaluate(c); err == nil || !strings.HasPrefix(err.Error(), "layers: 60 not divisible") {
		t.Errorf("60 layers on 16 stages without a split: %v", err)
	}
	c.Plan.FirstStageLayers, c.Plan.LastStageLayers = 2, 2
	r, err = Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.StageMemory[0].Layers != 2 || r.StageMemory[7].Layers != 4 || r.StageMemory[15].Layers != 2 ||
		!within(r.StageForward[7]/r.StageForward[0], 2, 1e-12) {
		t.Errorf("60 layers on 16 stages, 2 on each end: %d, %d, %d layers; forward ×%.4f", r.StageMemory[0].Layers, r.StageMemory[7].Layers,
			r.StageMemory[15].Layers, r.StageForward[7]/r.StageForward[0])
	}
	// Interleaved, v = 2: the zoom's layers are Megatron-Core's — stage
	// 0's second chunk begins at layer 1 + 2·14 + 1 = 30 and holds one,
	// stage 1's first layers 1 and 2.
	c.Plan.Interleave, c.Plan.Schedule, c.Plan.GlobalBatch = 2, Interleaved, 1920
	if r, err = Evaluate(c); err != nil {
		t.Fatal(err)
	}
	tl, err = r.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	sa, err := NewStepActivity(r, tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct{ chunk, first, n int }{{0, 0, 1}, {1, 1, 2}, {15, 29, 1}, {16, 30, 1}, {17, 31, 2}, {31, 59, 1}} {
		if first, n := sa.chunkLayers(q.chunk); first != q.first || n != q.n {
			t.Errorf("chunk %d: layers %d on, %d of them; by hand %d, %d", q.chunk, first, n, q.first, q.n)
		}
	}
}

// An MoE model's dense layers follow the chunks: DeepSeek-V3's 61 layers
// and its MTP module on 16 stages as 3, 4 × 14, 3 (its first 3 layers
// dense, all on the first stage) plan exactly as Llama 3's balancing
// splits them; with 4 and 2 at the ends the first stage holds its 3
// dense layers and an MoE one.
func TestUnevenStagesMoE(t *testing.T) {
	m, p, cl := deepSeekV3(t)
	base, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	p.FirstStageLayers, p.LastStageLayers = 3, 3
	r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	if r.Time != base.Time || r.Memory != base.Memory {
		t.Errorf("3 and 3 given: %+v; balanced: %+v", r.Time, base.Time)
	}
	p.FirstStageLayers, p.LastStageLayers = 4, 2
	s, err := p.layerSplit(m)
	if err != nil {
		t.Fatal(err)
	}
	if d := denseOnStage(m, s, 0); d != 3 || s.stage(0) != 4 || s.stage(15) != 2 {
		t.Errorf("4 and 2: the first stage holds %d layers, %d dense; the last %d", s.stage(0), d, s.stage(15))
	}
}
