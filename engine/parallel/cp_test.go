package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// toyGQA is a small Llama-shaped model: 4 layers, hidden 1024, 8 heads
// of 128 sharing 2 KV heads, 4,096 tokens.
func toyGQA() model.Transformer {
	return model.Transformer{ID: "toy-gqa", Name: "toy", Layers: 4, Hidden: 1024, Heads: 8, KVHeads: 2, Seq: 4096, Vocab: 32000,
		FFNSize: 4096, FFN: model.SwiGLU}
}

func cpPlan(tp, cp, dp int, algo CPAlgo) Plan {
	return Plan{TP: tp, CP: cp, CPAlgo: algo, PP: 1, DP: dp, Interleave: 1, SP: tp > 1, MicroBatch: 1, GlobalBatch: dp,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Recompute: RecomputeNone, Flash: true, Overlap: true}
}

// The all-gather of K and V, by hand: each GPU's K and V of the whole
// sequence are full = b·s·2·h_kv·2 bytes (h_kv its KV heads × 128); a
// ring all-gather over CP ranks takes (CP−1)·(α + full/(CP·B)) — each
// GPU receives 2·(CP−1)/CP·b·s·h_kv·2 bytes. A layer gathers forward,
// gathers again backward and reduce-scatters dK, dV (the same form):
// three a layer and micro-batch, four with full recomputation. Inside a
// node (TP 1, CP 8) at NVLink's rate; with TP 8 every CP peer is on
// another node, at the NIC's; with TP 2 and CP 8, 4 CP ranks a node:
// hierarchical, a ring of full ÷ 4 over the 2 nodes, then one of full in
// each node.
func TestCPAllGatherByHand(t *testing.T) {
	m := toyGQA()
	h100 := gpu(t, "h100")
	ring := func(n, bytes float64, l hw.Link) float64 {
		return (n - 1) * (l.Latency.Seconds() + bytes/(n*l.Bandwidth*l.Efficiency))
	}
	for _, tt := range []struct {
		tp, cp  int
		hkv     float64 // K/V width on a GPU
		perNode int     // CP ranks a node
	}{
		{1, 8, 2 * 128, 8},
		{8, 2, 128, 1}, // 2 KV heads over 8 TP ranks: one replicated on each
		{2, 4, 128, 4},
		{2, 8, 128, 4}, // TP·CP = 16 > 8: two nodes
	} {
		cl := DefaultCluster(h100, tt.tp*tt.cp)
		full := 1 * 4096 * 2 * tt.hkv * 2
		n, k := float64(tt.cp), float64(tt.perNode)
		var ag float64
		switch {
		case k == n:
			ag = ring(n, full, cl.Intra)
		case k == 1:
			ag = ring(n, full, cl.Inter)
		default:
			ag = ring(n/k, full/k, cl.Inter) + ring(k, full, cl.Intra)
		}
		for _, rc := range []Recompute{RecomputeNone, RecomputeFull} {
			p := cpPlan(tt.tp, tt.cp, 1, CPAllGather)
			p.Recompute = rc
			r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
			if err != nil {
				t.Fatal(err)
			}
			per := 3.0
			if rc == RecomputeFull {
				per = 4
			}
			if want := 4 * per * ag; !within(r.Time.CPComm, want, 1e-9) || !within(r.StageCP[0], want, 1e-9) {
				t.Errorf("TP %d CP %d %s: CP comm %.6g s, by hand 4 layers × %g × %.6g s = %.6g", tt.tp, tt.cp, rc, r.Time.CPComm, per, ag, want)
			}
			if r.Time.Exposed < r.Time.CPComm+r.Time.TPComm {
				t.Errorf("TP %d CP %d: exposed %.4g s less than CP + TP comm", tt.tp, tt.cp, r.Time.Exposed)
			}
			if rc == RecomputeNone && r.Memory.Buffers < 2*full {
				t.Errorf("TP %d CP %d: buffers %.4g B, less than the gathered K, V and their gradients (%.4g)", tt.tp, tt.cp, r.Memory.Buffers, 2*full)
			}
		}
	}
}

// Ring attention, by hand: CP−1 steps, each sending a block of K and V
// (full ÷ CP) to the next rank while the attention of the block in hand
// runs (the rank's attention ÷ CP; the rank's is the sequence's ÷ CP);
// exposed max(0, send − compute) a step; backward dK and dV travel too
// (2 blocks) against FlashAttention's backward (2.5× the FLOPs at its
// measured backward rate). The rank's attention is Transformer Engine's
// CP calls (cpAttention): its first step at the rate of s/CP tokens, the
// other CP − 1 at s/2CP's (TestCPAttentionCalls). Across nodes on short
// sequences the sends outlast the blocks' attention; on long ones they
// hide.
func TestCPRingByHand(t *testing.T) {
	h100 := gpu(t, "h100")
	peak := 989.4e12 * SustainedClock // the H100's dense BF16 at the sustained clock
	for _, tt := range []struct {
		seq, cp int
		// FlashAttention-3's measured TFLOP/s (kernel.flashRates) at
		// s/CP and s/2CP, forward and backward; held at 512's below.
		diagF, diagB, stepF, stepB float64
		hidden                     bool // the sends all hide
	}{{4096, 8, 467, 316, 467, 316, false}, {65536, 4, 648, 561, 646, 559, true}} {
		m := toyGQA()
		m.Seq = tt.seq
		cl := DefaultCluster(h100, 8*tt.cp)
		p := cpPlan(8, tt.cp, 1, CPRing)
		r, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		// One head a GPU (8 over TP 8), 128 wide: the sequence's
		// attention 4·s²·128 FLOPs unmasked, the rank's 1/CP of it in CP
		// steps of equal work.
		n, s := float64(tt.cp), float64(tt.seq)
		work := 4 * s * s * 128 / n / n // a step's
		rank := work/(peak*tt.diagF/989) + (n-1)*work/(peak*tt.stepF/989)
		rankBack := 2.5*work/(peak*tt.diagB/989) + (n-1)*2.5*work/(peak*tt.stepB/989)
		// … and the merges around its calls (TestCPMergesByHand).
		mf, mb := cpMerges(m, p, cl.perGPU())
		rank, rankBack = rank+mf, rankBack+mb
		block := s * 2 * 128 * 2 / n
		send := func(b float64) float64 {
			return cl.Inter.Latency.Seconds() + b/(cl.Inter.Bandwidth*cl.Inter.Efficiency)
		}
		fwd := (n - 1) * math.Max(0, send(block)-rank/n)
		bwd := (n - 1) * math.Max(0, send(2*block)-rankBack/n)
		want := 4 * (fwd + bwd)
		t.Logf("seq %d CP %d: a step sends %.3g s forward against %.3g s of attention; exposed %.4g s a step (by hand %.4g)", tt.seq, tt.cp, send(block), rank/n, r.Time.CPComm, want)
		if !within(r.Time.CPComm, want, 1e-9) {
			t.Errorf("seq %d CP %d: ring exposed %.6g s, by hand %.6g", tt.seq, tt.cp, r.Time.CPComm, want)
		}
		if tt.hidden != (want == 0) {
			t.Errorf("seq %d CP %d: exposed %.4g s; want hidden %v", tt.seq, tt.cp, want, tt.hidden)
		}
	}
}

// A context-parallel rank's attention core, by hand, as Transformer
// Engine calls FlashAttention (cpAttention): Llama 3 405B at 8,192
// tokens, TP 2 (64 heads of 128 a GPU), CP 8 — chunks of 512 tokens.
// The rank's work is 1/CP of the sequence's 4·s²·128·64 FLOPs
// (unmasked). All-gathered, its chunks' queries loop over keys up to
// the chunk's end, about s/2 = 4,096 for the middle ranks: forward at
// 638 TFLOP/s; each backward block of keys loops over the chunk's 512
// queries: 316 (against 559 at the whole sequence's 8,192). As a ring,
// the diagonal step at 1,024 tokens (565, 424), the 7 others at 512
// (467, 316). Without CP the whole sequence's rates, 646 and 559.
func TestCPAttentionCalls(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	h100 := gpu(t, "h100")
	peak := 989.4e12 * SustainedClock
	work := 4 * 8192.0 * 8192 * 128 * 64 // the sequence's, over TP 2
	rate := func(tflops float64) float64 { return peak * tflops / 989 }
	for _, tt := range []struct {
		cp       int
		algo     CPAlgo
		fwd, bwd float64 // by hand, seconds
	}{
		{1, CPAllGather, work / rate(646), 2.5 * work / rate(559)},
		{8, CPAllGather, work / 8 / rate(638), 2.5 * work / 8 / rate(316)},
		{8, CPRing, (work/64/rate(565) + 7*work/64/rate(467)), 2.5 * (work/64/rate(424) + 7*work/64/rate(316))},
	} {
		p := cpPlan(2, tt.cp, 1, tt.algo)
		fwd, bwd, err := cpAttention(p.attentionConfig(m, sustained(h100), hw.BF16), p)
		if err != nil {
			t.Fatal(err)
		}
		if !within(fwd, tt.fwd, 1e-9) || !within(bwd, tt.bwd, 1e-9) {
			t.Errorf("CP %d %s: attention %.6g s forward, %.6g backward; by hand %.6g, %.6g", tt.cp, tt.algo, fwd, bwd, tt.fwd, tt.bwd)
		}
	}
}

// What Transformer Engine's CP does around a rank's FlashAttention
// calls (cpMerges), by hand, for Llama 3 405B at 8,192 tokens on TP 2
// (64 heads and 4 KV heads of 128 a GPU) and CP 8: q, the rank's queries
// (and outputs), 1,024 × 64 × 128 × 2 = 16.8 MB; kv, its K and V,
// 1,024 × 2 × 4 × 128 × 2 = 2.1 MB; K, the gathered sequence's, 8·kv.
// A ring's 8 steps: 3 kernels each way a step, less the one call a layer
// makes without CP (23 launches of 4 µs), the output merges 3·q a step
// forward, dQ's and dK, dV's accumulations 3·(q + kv) backward. An
// all-gather: 11 and 23 launches, 4·q + 2·K + 2·(17/16)·K forward and
// 6·q + 3·K + 7·(17/16)·K backward. At 0.9 of 3.35 TB/s. The layer's
// attention kernel is the calls and these.
func TestCPMergesByHand(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	h100 := gpu(t, "h100")
	bw := 3.35e12 * 0.9
	q, kv := 1024*64*128*2.0, 1024*2*4*128*2.0
	K := 8 * kv
	for _, tt := range []struct {
		algo     CPAlgo
		fwd, bwd float64
	}{
		{CPRing, 23*4e-6 + 3*8*q/bw, 23*4e-6 + 3*8*(q+kv)/bw},
		{CPAllGather, 11*4e-6 + (4*q+2*K+2*17.0/16*K)/bw, 23*4e-6 + (6*q+3*K+7*17.0/16*K)/bw},
	} {
		p := cpPlan(2, 8, 1, tt.algo)
		cl := DefaultCluster(h100, 16)
		f, b := cpMerges(m, p, cl.perGPU())
		if !within(f, tt.fwd, 1e-9) || !within(b, tt.bwd, 1e-9) {
			t.Errorf("%s: merges %.6g s forward, %.6g backward; by hand %.6g, %.6g", tt.algo, f, b, tt.fwd, tt.bwd)
		}
		calls, callsBack, err := cpAttention(p.attentionConfig(m, sustained(h100), hw.BF16), p)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := LayerKernels(Config{Model: m, Plan: p, Cluster: cl})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			if k.Name == "attention" && (!within(k.ForwardS, calls+f, 1e-12) || !within(k.BackwardS, callsBack+b, 1e-12)) {
				t.Errorf("%s: the attention kernel %.6g s, %.6g; want its calls and merges, %.6g, %.6g", tt.algo, k.ForwardS, k.BackwardS, calls+f, callsBack+b)
			}
		}
	}
	// Without CP, none.
	if f, b := cpMerges(m, cpPlan(2, 1, 1, CPRing), DefaultCluster(h100, 2)); f != 0 || b != 0 {
		t.Errorf("CP 1: merges %g, %g; want none", f, b)
	}
}

// A GPU's activations ÷ CP: ActivationBytesCP is ActivationBytes of s/CP
// tokens (FlashAttention: every term linear in s), and a plan's stored
// activations (the logits too) on CP × the GPUs with the same DP are
// 1/CP of the plan's without; its weights are the same, its ZeRO-1
// optimizer shard 1/CP (sharded over DP × CP).
func TestCPActivations(t *testing.T) {
	m := toyGQA()
	for _, rc := range []Recompute{RecomputeNone, RecomputeSelective, RecomputeFull} {
		one := ActivationBytes(m, 4096, 1, 8, true, true, rc)
		if got := ActivationBytesCP(m, 4096, 1, 8, 4, true, true, rc); !within(got, one/4, 1e-12) {
			t.Errorf("%s: CP 4 %.6g B a layer; want %.6g ÷ 4", rc, got, one)
		}
	}
	h100 := gpu(t, "h100")
	base := cpPlan(8, 1, 2, CPAllGather)
	base.ZeRO = 1
	a, err := Evaluate(Config{Model: m, Plan: base, Cluster: DefaultCluster(h100, 16)})
	if err != nil {
		t.Fatal(err)
	}
	p := base
	p.CP = 4
	b, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(h100, 64)})
	if err != nil {
		t.Fatal(err)
	}
	if !within(b.Memory.Activations, a.Memory.Activations/4, 1e-12) || b.Memory.Weights != a.Memory.Weights || !within(b.Memory.Optimizer, a.Memory.Optimizer/4, 1e-12) {
		t.Errorf("CP 4: activations %.4g (want %.4g ÷ 4), weights %.4g (want %.4g), optimizer %.4g (want %.4g ÷ 4)",
			b.Memory.Activations, a.Memory.Activations, b.Memory.Weights, a.Memory.Weights, b.Memory.Optimizer, a.Memory.Optimizer)
	}
	// The compute splits over the CP ranks but for what Transformer
	// Engine's CP adds around the attention calls (cpMerges: on this toy
	// of a head a GPU, mostly launches, a fixed cost that does not).
	mf, mb := cpMerges(m, p, DefaultCluster(h100, 64).perGPU())
	split := b.Time.Compute - float64(m.Layers)*(mf+mb)
	if b.ModelFLOPs != a.ModelFLOPs || split >= a.Time.Compute/2 {
		t.Errorf("CP 4: model FLOPs %.4g (want %.4g), compute %.4g s less the merges (want well under %.4g ÷ 2)", b.ModelFLOPs, a.ModelFLOPs, split, a.Time.Compute)
	}
}

// Context-parallel plans that do not add up are refused with the
// constraint named.
func TestCPRefusals(t *testing.T) {
	h100 := gpu(t, "h100")
	m := toyGQA()
	for _, tt := range []struct {
		edit func(*Plan, *Cluster)
		want string
	}{
		{func(p *Plan, _ *Cluster) { p.CP = -1 }, "cp: -1; allowed 1–65536"},
		{func(p *Plan, _ *Cluster) { p.CP = 1 << 17 }, "cp: 131072; allowed 1–65536"},
		{func(p *Plan, _ *Cluster) { p.CPAlgo = "tree" }, `cp-algo: "tree"; allowed allgather, ring`},
		{func(p *Plan, c *Cluster) { p.CP, c.GPUs = 3, 24 }, "seq: 4096 not divisible by 2·cp = 6"},
		{func(p *Plan, _ *Cluster) { p.CP = 4 }, "tp × cp × pp × dp: 8 × 4 × 1 × 1 = 32; must equal gpus 16"},
	} {
		p, cl := cpPlan(8, 2, 1, CPAllGather), DefaultCluster(h100, 16)
		tt.edit(&p, &cl)
		_, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v; want %q", err, tt.want)
		}
	}
	// Without CP the product's message is the one lessons word.
	p := cpPlan(8, 1, 1, CPAllGather)
	if _, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(h100, 16)}); err == nil || !strings.HasPrefix(err.Error(), "tp × pp × dp: 8 × 1 × 1 = 8; must equal gpus 16") {
		t.Errorf("no CP: %v", err)
	}
}

// llama405Long is Llama 3 405B's 131,072-token row of Table 4 (arXiv
// 2407.21783): TP 8, CP 16, PP 16 on 16,384 H100s. The table prints DP
// 4, but 8 × 16 × 16 × 4 = 8,192 GPUs, and 4 replicas × 16 sequences
// × 131,072 tokens = 8.4M tokens, not the 16M a batch it states; on
// 16,384 GPUs DP is 8: 8 × 16 × 131,072 = 16.8M tokens, 128 sequences.
// K and V all-gathered, as Meta did; the stack of the 8K rows as Meta ran
// them (TestLlama3AsMetaRanIt): ZeRO-2, 18 bytes a parameter, v = 8, no
// recomputation.
func llama405Long(tb testing.TB) Config {
	c := llama405(tb)
	c.Model.Seq = 131072
	c.Plan.CP, c.Plan.CPAlgo, c.Plan.DP, c.Plan.GlobalBatch = 16, CPAllGather, 8, 128
	c.Plan.Interleave, c.Plan.ZeRO, c.Plan.BytesPerParam, c.Plan.Recompute, c.Plan.FusedSwiGLU = 8, 2, 18, RecomputeNone, true
	return c
}

// The published check: Llama 3 405B at 131,072 tokens, 380 TFLOP/s a GPU
// (38% MFU), within 10%. Meta's TFLOP/s are model FLOPs (380 ÷ 989 =
// 38%), so the engine's MFU × 989 is compared; both count attention
// without the causal mask (4·s·h a token and layer forward, as
// Megatron-LM's and PaLM's MFU do) and the engine times it so, at
// FlashAttention's measured rates (kernel.FlashEfficiency). Each GPU
// holds 8,192 tokens of a sequence, as at 8K, so its activations are
// near the 8K plan's and it fits without recomputation, as the 8K rows
// ran. Attention is over half of the FLOPs here, so its kernel's rate
// decides the row (README: timed at a large GEMM's rate the same plan
// read 22% fast).
func TestLlama3LongContextRow(t *testing.T) {
	c := llama405Long(t)
	r, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	peak, _ := c.Cluster.GPU.PeakFLOPS(hw.BF16)
	model := r.MFU * peak / 1e12
	tm := r.Time
	t.Logf("Llama 3 405B, 131,072 tokens, TP 8 CP 16 PP 16 DP 8, no recomputation: %.0f TFLOP/s of model FLOPs a GPU (MFU %.1f%%), published 380 (38%%); step %.2f s: compute %.2f, bubble %.2f, TP %.3f, CP %.3f, PP %.3f, DP %.3f (%.3f hidden), optimizer %.4f; %.1f GB a GPU (activations %.1f, buffers %.2f)",
		model, 100*r.MFU, tm.Step, tm.Compute, tm.Bubble, tm.TPComm, tm.CPComm, tm.PPComm, tm.DPComm, tm.DPHidden, tm.Optimizer, r.Memory.Total/1e9, r.Memory.Activations/1e9, r.Memory.Buffers/1e9)
	if !r.Memory.Fits {
		t.Errorf("does not fit: %.1f GB", r.Memory.Total/1e9)
	}
	if !within(model, 380, 0.10) {
		t.Errorf("%.0f TFLOP/s a GPU; published 380 (±10%%)", model)
	}
	// Exposed but small beside the compute, as Meta reports (GQA: 8 KV
	// heads, one a TP rank).
	if tm.CPComm <= 0 || tm.CPComm > 0.1*tm.Compute {
		t.Errorf("CP comm %.3f s of %.2f s compute; want exposed and under a tenth", tm.CPComm, tm.Compute)
	}
	// FlashAttention below a GEMM's rate, its backward below its forward.
	fe, be := kernel.FlashEfficiency(8192)
	if fe >= kernel.TensorEfficiency || be >= fe {
		t.Errorf("FlashAttention at 8,192 keys: forward %.3f, backward %.3f of peak; want under the GEMM's %.2f, backward under forward", fe, be, kernel.TensorEfficiency)
	}
}

// Same configuration, same numbers, with context parallelism too.
func TestEvaluateDeterministicCP(t *testing.T) {
	for _, algo := range []CPAlgo{CPAllGather, CPRing} {
		c := llama405Long(t)
		c.Plan.CPAlgo = algo
		a, _ := Evaluate(c)
		for range 3 {
			b, _ := Evaluate(c)
			if a.Time != b.Time || a.Memory != b.Memory {
				t.Fatal("Evaluate is not deterministic")
			}
		}
	}
}

// The search's bound is a bound: every plan with context parallelism
// takes at least the bound of its shape (one chunk a stage, no ZeRO),
// whatever its chunks, ZeRO stage and schedule.
func TestSearchCPBoundHolds(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	o := SearchOptions{Model: m, Cluster: DefaultCluster(gpu(t, "h100"), 512), GlobalBatch: 256, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, MaxMicroBatch: 2}
	base := Plan{BytesPerParam: 16, Dtype: hw.BF16, Flash: true, Overlap: true, GlobalBatch: 256}
	bounds := searching{mode: searchBound}
	n := 0
	o.plans(base, true, nil, func(p Plan) {
		if testing.Short() && n >= 150 {
			return // -short (make test's run under Node.js): the first 150; natively all
		}
		r, err := Evaluate(Config{Model: m, Plan: p, Cluster: o.Cluster})
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.ZeRO, q.Interleave, q.Schedule = 0, 1, OneFOneB
		b, err := evaluate(Config{Model: m, Plan: q, Cluster: o.Cluster}, &bounds)
		if err != nil {
			t.Fatal(err)
		}
		if n++; r.Time.Step < b.Time.Step*(1-1e-12) {
			t.Fatalf("TP %d CP %d PP %d DP %d v %d ZeRO %d %s: step %.6g s under its bound %.6g", p.TP, p.CP, p.PP, p.DP, p.Interleave, p.ZeRO, p.Recompute, r.Time.Step, b.Time.Step)
		}
	})
	if n < 100 {
		t.Fatalf("%d plans with CP checked", n)
	}
	t.Logf("%d plans with CP at or above their bound", n)
}
