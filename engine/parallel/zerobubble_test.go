package parallel

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// The closed forms against the engine's own block-by-block runs, on p = 4
// equal stages and m = 8 micro-batches, a forward 1 and a whole backward
// 2 (the input gradient 1, the weight gradient W = 1: Qi et al.'s
// T_F = T_B = T_W). 1F1B's run: (p − 1)(F + B) = 3 × 3 = 9. ZB-H1:
// 9 − 2(p − 1)W = 3 = (p − 1)(T_F + T_B − T_W), a third of 1F1B's (Qi et
// al. §2.1). ZB-V: (p − 1)(F + B − 2W)/2 = 3 × (1 + 1 − 2)/2 = 0; with
// nothing split off (W = 0, B = 2) 3 × 3/2 = 4.5, the interleaved run's
// bubble for v = 2. DualPipeV: (p − 1)(F&B + B − 3W)/2 = 3 × (3 + 2 −
// 3)/2 = 3, its README's (PP/2 − 1)(F&B + B − 3W) for PP = 8 stages of
// half those times: 3 × (1.5 + 1 − 1.5) = 3.
func TestZeroBubbleClosedForms(t *testing.T) {
	f, b := []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}
	one, err := BuildTimeline(OneFOneB, 4, 8, 1, f, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	inter, err := BuildTimeline(Interleaved, 4, 8, 2, f, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"1F1B's run", one.Bubble, 9},
		{"interleaved v = 2's run", inter.Bubble, 4.5},
		{"ZB-H1", ZBH1Bubble(4, one.Bubble, 1), 3},
		{"ZB-H1, W = 0", ZBH1Bubble(4, one.Bubble, 0), 9},
		{"ZB-H1, W past the bubble", ZBH1Bubble(4, one.Bubble, 2), 0},
		{"ZB-V, F = B = W", ZBVBubble(4, 1, 1, 1), 0},
		{"ZB-V, W = 0", ZBVBubble(4, 1, 2, 0), inter.Bubble},
		{"ZB-V, W = 2", ZBVBubble(4, 1, 1, 2), 0},
		{"ZB-V, F = 1, B = 2, W = 1", ZBVBubble(4, 1, 2, 1), 1.5},
		{"DualPipeV", DualPipeVBubble(4, 3, 2, 1), 3},
		{"DualPipeV as DualPipe on 8 stages of half", DualPipeVBubble(4, 3, 2, 1), DualPipeBubble(8, 1.5, 1, 0.5)},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: bubble %g, want %g", c.name, c.got, c.want)
		}
	}
}

// gpt3XLPipeline is GPT-3 XL (24 layers) on PP 4 × DP 2 H100s, 16
// micro-batches of one sequence, under schedule s.
func gpt3XLPipeline(t *testing.T, s Schedule) (model.Transformer, Config, Result) {
	t.Helper()
	m, _ := model.Preset("gpt3-xl")
	p := Plan{TP: 1, PP: 4, DP: 2, Interleave: 1, MicroBatch: 1, GlobalBatch: 32, Schedule: s, BytesPerParam: 16,
		Dtype: hw.BF16, Recompute: RecomputeSelective, Flash: true, Overlap: true}
	c := Config{Model: m, Plan: p, Cluster: DefaultCluster(gpu(t, "h100"), 8)}
	r, err := Evaluate(c)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	checkResult(t, r)
	return m, c, r
}

// wByHand is the weight gradients of a micro-batch through layers of
// GPT-3 XL's layers (and the output head with head), from the GEMM model
// at the sustained clock Evaluate times products at: dW = K × N with
// inner M, the 2,048 tokens, for Q/K/V, the projection and the two MLP
// products of each layer, and the output layer's h × V.
func wByHand(m model.Transformer, cl Cluster, layers int, head bool) float64 {
	n, h, f := 2048.0, float64(m.Hidden), float64(m.FFNSize)
	at := cl
	at.GPU = sustained(cl.GPU)
	var w float64
	for _, x := range [][2]float64{{3 * h, h}, {h, h}, {f, h}, {h, f}} {
		w += at.gemm(hw.BF16, x[1], x[0], n)
	}
	w *= float64(layers)
	if head {
		w += at.gemm(hw.BF16, h, float64(m.Vocab), n)
	}
	return w
}

// ZB-H1 by hand on GPT-3 XL, PP 4, 16 micro-batches: 1F1B's stages,
// parameters and memory, stage by stage (its peak activation memory is
// 1F1B's: Qi et al. §2.1); W each stage's products' weight gradients (6
// layers', and the output layer's on the last stage); its bubble 1F1B's
// run less 2(p − 1)W of the critical stage (the last, with the head),
// and the step shorter by that alone.
func TestZBH1ByHand(t *testing.T) {
	m, c, one := gpt3XLPipeline(t, OneFOneB)
	_, _, r := gpt3XLPipeline(t, ZBH1)
	for st := range 4 {
		if r.StageMemory[st] != one.StageMemory[st] || r.StageParams[st] != one.StageParams[st] {
			t.Errorf("stage %d: memory %+v, parameters %g; 1F1B's %+v, %g", st, r.StageMemory[st], r.StageParams[st], one.StageMemory[st], one.StageParams[st])
		}
		if r.StageForward[st] != one.StageForward[st] || r.StageBackward[st] != one.StageBackward[st] {
			t.Errorf("stage %d: forward %g, backward %g; 1F1B's %g, %g", st, r.StageForward[st], r.StageBackward[st], one.StageForward[st], one.StageBackward[st])
		}
		if want := wByHand(m, c.Cluster, 6, st == 3); !within(r.StageW[st], want, 1e-12) {
			t.Errorf("stage %d: W %.6g s, by hand %.6g s", st, r.StageW[st], want)
		}
	}
	if r.Memory != one.Memory || r.Memory.InFlight != 4 || r.Memory.Stage != 0 {
		t.Errorf("the fullest GPU: %+v; 1F1B's %+v", r.Memory, one.Memory)
	}
	W := wByHand(m, c.Cluster, 6, true) // the last stage's: it sets the pace
	if !(r.StageForward[3]+r.StageBackward[3] > r.StageForward[0]+r.StageBackward[0]) {
		t.Fatalf("the last stage (%g s) is not the critical one (the first: %g s)", r.StageForward[3]+r.StageBackward[3], r.StageForward[0]+r.StageBackward[0])
	}
	if want := one.Time.Bubble - 2*3*W; !within(r.Time.Bubble, want, 1e-9) || !(want > 0) {
		t.Errorf("ZB-H1's bubble %.6g s; 1F1B's %.6g s less 2 × 3 × W (%.6g s) = %.6g s", r.Time.Bubble, one.Time.Bubble, W, want)
	}
	if r.Time.PPComm != one.Time.PPComm || r.Time.Compute != one.Time.Compute {
		t.Errorf("sends %g s, compute %g s; 1F1B's %g, %g", r.Time.PPComm, r.Time.Compute, one.Time.PPComm, one.Time.Compute)
	}
	if d := one.Time.Step - r.Time.Step; !within(d, one.Time.Bubble-r.Time.Bubble, 1e-9) {
		t.Errorf("the step is %.6g s shorter than 1F1B's, the bubble %.6g s", d, one.Time.Bubble-r.Time.Bubble)
	}
	if want := r.Time.Bubble / (16 * (r.StageForward[3] + r.StageBackward[3] + r.StageTP[3])); !within(r.BubbleFraction, want, 1e-12) {
		t.Errorf("bubble fraction %g, want the bubble over the ideal, %g", r.BubbleFraction, want)
	}
	if _, err := r.Timeline(); err == nil || err.Error() != "schedule: zb-h1 is costed in closed form, not run block by block: it has no time line (allowed gpipe, 1f1b, interleaved)" {
		t.Errorf("a ZB-H1 plan's time line: %v", err)
	}
	if got := r.Metrics().TimePerStage[3].WGrad; got != r.StageW[3] {
		t.Errorf("time_per_stage's wgrad_s %g, W %g", got, r.StageW[3])
	}
}

// ZB-V by hand on the same plan: rank i holds model chunks i and 7 − i
// of 8 (3 layers each), so rank 0 holds the first and the last — the
// embedding and the output head, the tied embedding once, no copy — and
// its stage times are 1F1B's last stage's; every rank keeps 2p = 8
// chunks' activations, 1F1B's first stage's 4 micro-batches of 6 layers,
// rank 0 the logits besides (4·s·V bytes). Its bubble (p − 1)(F + B −
// 2W)/2, F the forward, B the input gradient (the backward less W), W
// rank 0's weight gradients: below ZB-H1's and 1F1B's.
func TestZBVByHand(t *testing.T) {
	m, c, one := gpt3XLPipeline(t, OneFOneB)
	_, _, zb1 := gpt3XLPipeline(t, ZBH1)
	_, _, r := gpt3XLPipeline(t, ZBV)
	h, V := float64(m.Hidden), float64(m.Vocab)
	wantParams := []float64{one.StageParams[0] + h, one.StageParams[1], one.StageParams[2], one.StageParams[3] - V*h - h}
	for st := range 4 {
		if !within(r.StageParams[st], wantParams[st], 1e-12) {
			t.Errorf("rank %d: %.6g parameters, want %.6g", st, r.StageParams[st], wantParams[st])
		}
		mirror := st // rank 0 runs 1F1B's last stage's times, the last rank 1F1B's first's
		switch st {
		case 0:
			mirror = 3
		case 3:
			mirror = 0
		}
		if r.StageForward[st] != one.StageForward[mirror] || r.StageBackward[st] != one.StageBackward[mirror] {
			t.Errorf("rank %d: forward %g, backward %g; 1F1B's stage %d %g, %g", st, r.StageForward[st], r.StageBackward[st], mirror, one.StageForward[mirror], one.StageBackward[mirror])
		}
		if want := wByHand(m, c.Cluster, 6, st == 0); !within(r.StageW[st], want, 1e-12) {
			t.Errorf("rank %d: W %.6g s, by hand %.6g s", st, r.StageW[st], want)
		}
		mem := r.StageMemory[st]
		want := one.StageMemory[0].Activations // 4 micro-batches of 6 layers = 8 chunks of 3
		if st == 0 {
			want += 4 * 2048 * V
		}
		if mem.InFlight != 8 || mem.Layers != 6 || !within(mem.Activations, want, 1e-12) {
			t.Errorf("rank %d: %d chunks in flight, %d layers, activations %.6g; want 8, 6, %.6g", st, mem.InFlight, mem.Layers, mem.Activations, want)
		}
	}
	W := wByHand(m, c.Cluster, 6, true)
	F, B := r.StageForward[0], r.StageBackward[0]-W
	want := 3 * (F + B - 2*W) / 2
	if !within(r.Time.Bubble, want, 1e-9) || !(want > 0) {
		t.Errorf("ZB-V's bubble %.6g s, by hand (p − 1)(F + B − 2W)/2 = 3 × (%.4g + %.4g − 2 × %.4g)/2 = %.6g s", r.Time.Bubble, F, B, W, want)
	}
	if !(r.Time.Bubble < zb1.Time.Bubble && zb1.Time.Bubble < one.Time.Bubble) {
		t.Errorf("bubbles: ZB-V %.4g s, ZB-H1 %.4g s, 1F1B %.4g s; want in that order, rising", r.Time.Bubble, zb1.Time.Bubble, one.Time.Bubble)
	}
	if want := 4 * 3 * r.P2P; !within(r.Time.PPComm, want, 1e-12) {
		t.Errorf("ZB-V's sends on the critical path %.6g s, want 4(p − 1) sends of %.6g s", r.Time.PPComm, r.P2P)
	}
	if _, err := r.Timeline(); err == nil {
		t.Error("a ZB-V plan drew a block time line")
	}
}

// DualPipeV by hand on the same plan: ZB-V's V and its ranks' times, but
// 2p + 1 = 9 chunks' activations a rank (9/8 of 1F1B's first stage's),
// and its README's bubble (PP/2 − 1)(F&B + B − 3W) for PP = 8 stages of
// half a rank's times: 3 × (F&B + B − 3W)/2, F&B = F + B + its exposed
// communication, B the whole backward.
func TestDualPipeVByHand(t *testing.T) {
	m, c, one := gpt3XLPipeline(t, OneFOneB)
	_, _, zbv := gpt3XLPipeline(t, ZBV)
	_, _, r := gpt3XLPipeline(t, DualPipeV)
	for st := range 4 {
		if r.StageParams[st] != zbv.StageParams[st] || r.StageForward[st] != zbv.StageForward[st] {
			t.Errorf("rank %d: parameters %g, forward %g; ZB-V's %g, %g", st, r.StageParams[st], r.StageForward[st], zbv.StageParams[st], zbv.StageForward[st])
		}
	}
	if mem := r.StageMemory[1]; mem.InFlight != 9 || !within(mem.Activations, one.StageMemory[0].Activations*9/8, 1e-12) {
		t.Errorf("rank 1: %d chunks in flight, activations %.6g; want 9, %.6g", mem.InFlight, mem.Activations, one.StageMemory[0].Activations*9/8)
	}
	W := wByHand(m, c.Cluster, 6, true)
	F, B := r.StageForward[0], r.StageBackward[0]
	if want := 3 * (F + B + r.StageTP[0] + B - 3*W) / 2; !within(r.Time.Bubble, want, 1e-9) || !(want > 0) {
		t.Errorf("DualPipeV's bubble %.6g s, by hand %.6g s", r.Time.Bubble, want)
	}
}

// What the zero-bubble schedules cannot run is refused, the field and
// the condition named.
func TestZeroBubbleRefusals(t *testing.T) {
	_, c, _ := gpt3XLPipeline(t, OneFOneB)
	for _, x := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown", func(c *Config) { c.Plan.Schedule = "zb-h2" },
			`schedule: "zb-h2"; allowed gpipe, 1f1b, interleaved, dualpipe, zb-h1, zb-v, dualpipev`},
		{"zb-h1 on one stage", func(c *Config) { c.Plan.Schedule, c.Plan.PP, c.Plan.DP = ZBH1, 1, 8; c.Plan.GlobalBatch = 64 },
			"schedule: zb-h1 needs pp ≥ 2 (pp 1)"},
		{"zb-h1, 3 micro-batches", func(c *Config) { c.Plan.Schedule, c.Plan.GlobalBatch = ZBH1, 6 },
			"micro-batches: 3 must be at least pp = 4 for the zb-h1 schedule (its first stage runs pp forwards before its first backward, and its drain is filled by as many deferred weight gradients)"},
		{"zb-v, 7 micro-batches", func(c *Config) { c.Plan.Schedule, c.Plan.GlobalBatch = ZBV, 14 },
			"micro-batches: 7 must be at least 2 × pp = 8 for the zb-v schedule (rank 0 runs 2 × pp chunk forwards before its first backward)"},
		{"dualpipev, 6 micro-batches", func(c *Config) { c.Plan.Schedule, c.Plan.GlobalBatch = DualPipeV, 12 },
			"micro-batches: 6 must be at least 2 × pp = 8 for the dualpipev schedule (rank 0 runs 2 × pp chunk forwards before its first backward)"},
		{"zb-v, 24 layers on 8 ranks", func(c *Config) {
			c.Plan.Schedule, c.Plan.PP, c.Plan.DP, c.Plan.GlobalBatch = ZBV, 8, 1, 16
		}, "layers: 24 not divisible by 2 × pp = 2 × 8 for the zb-v schedule (its V gives every rank two chunks of as many layers: rank i the i-th and the (2·pp − 1 − i)-th)"},
		{"zb-v, an uneven split", func(c *Config) { c.Plan.Schedule, c.Plan.FirstStageLayers, c.Plan.LastStageLayers = ZBV, 4, 4 },
			"first-stage-layers, last-stage-layers: 4, 4 with the zb-v schedule; allowed 0 (its V gives every rank two chunks of as many layers, the first and the last chunk both on rank 0)"},
		{"zb-v, interleaved", func(c *Config) { c.Plan.Schedule, c.Plan.Interleave = ZBV, 2 },
			"interleave: 2 needs --schedule interleaved (schedule is zb-v)"},
	} {
		q := c
		x.edit(&q)
		if _, err := Evaluate(q); fmt.Sprint(err) != x.want {
			t.Errorf("%s: %v; want %q", x.name, err, x.want)
		}
	}
	f, b := []float64{1, 1}, []float64{2, 2}
	for _, s := range []Schedule{ZBH1, ZBV, DualPipeV, DualPipe} {
		if _, err := BuildTimeline(s, 2, 4, 1, f, b, 0); err == nil {
			t.Errorf("BuildTimeline ran %s", s)
		}
	}
}

// The search leaves the zero-bubble schedules out unless asked
// (ZeroBubble, or the schedule fixed); asked, each plan it ranks under
// ZB-H1 is its 1F1B twin's step less the bubble's 2(p − 1)W, and ZB-V is
// searched only where it can run.
func TestSearchZeroBubble(t *testing.T) {
	m, _ := model.Preset("gpt3-xl")
	o := SearchOptions{Model: m, Cluster: DefaultCluster(gpu(t, "h100"), 16), GlobalBatch: 64, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, MaxMicroBatch: 2}
	plain, err := Search(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range plain.Plans {
		if r.Config.Plan.Schedule.splitsW() {
			t.Fatalf("the default search ranked a %s plan", r.Config.Plan.Schedule)
		}
	}
	o.ZeroBubble = true
	zb, err := Search(o)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[Plan]float64{}
	for _, r := range plain.Plans {
		steps[r.Config.Plan] = r.Time.Step
	}
	seen := map[Schedule]int{}
	for _, r := range zb.Plans {
		p := r.Config.Plan
		seen[p.Schedule]++
		switch p.Schedule {
		case ZBH1:
			q := p
			q.Schedule = OneFOneB
			one, ok := steps[q]
			if !ok {
				t.Errorf("a ZB-H1 plan without its 1F1B twin: %+v", p)
				continue
			}
			if !(r.Time.Step <= one) {
				t.Errorf("ZB-H1 %.6g s, its 1F1B twin %.6g s", r.Time.Step, one)
			}
		case ZBV:
			if p.PP < 2 || trainedLayers(m)%(2*p.PP) != 0 || r.MicroBatches < 2*p.PP {
				t.Errorf("a ZB-V plan it cannot run: %+v", p)
			}
		}
	}
	if seen[ZBH1] == 0 || seen[ZBV] == 0 || zb.Evaluated <= plain.Evaluated {
		t.Errorf("ZeroBubble: %v plans by schedule, %d evaluated (%d without)", seen, zb.Evaluated, plain.Evaluated)
	}
	if best := zb.Plans[0]; !(best.Time.Step <= plain.Plans[0].Time.Step) {
		t.Errorf("the best plan with the zero-bubble schedules, %.6g s, is slower than without, %.6g s", best.Time.Step, plain.Plans[0].Time.Step)
	}
	o.ZeroBubble, o.Fixed.Schedule = false, ZBV
	v, err := Search(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Plans {
		if r.Config.Plan.Schedule != ZBV {
			t.Errorf("--schedule zb-v searched a %s plan", r.Config.Plan.Schedule)
		}
	}
	if len(v.Plans) == 0 {
		t.Error("--schedule zb-v: no plan")
	}
	for _, x := range []struct {
		f    SearchConstraints
		want string
	}{
		{SearchConstraints{Schedule: DualPipeV}, "schedule: dualpipev is not searched (it pairs with DeepSeek-V3's overlap settings); allowed gpipe, 1f1b, interleaved, zb-h1, zb-v"},
		{SearchConstraints{Schedule: ZBH1, PP: 1}, "schedule: zb-h1 needs a pipeline; pp is 1"},
		{SearchConstraints{Schedule: "zb-h2"}, `schedule: "zb-h2"; allowed gpipe, 1f1b, interleaved, dualpipe, zb-h1, zb-v, dualpipev`},
	} {
		o.Fixed = x.f
		if _, err := Search(o); fmt.Sprint(err) != x.want {
			t.Errorf("%+v: %v; want %q", x.f, err, x.want)
		}
	}
}
