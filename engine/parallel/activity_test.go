package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

func activityOf(t *testing.T, id string, p Plan, gpus int) (*StepActivity, Result, Timeline) {
	t.Helper()
	m, ok := model.Preset(id)
	if !ok {
		t.Fatal(id)
	}
	r, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(gpu(t, "h100"), gpus)})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := r.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewStepActivity(r, tl)
	if err != nil {
		t.Fatal(err)
	}
	return a, r, tl
}

// Every forward and backward block of a time line is its kernels: the
// chunk's layers' (recomputation, TP's all-reduces and CP's exchange
// included) and, on the last stage, the output head's and the MTP
// modules' — to the last bit of a float, where each stage holds one
// chunk (Llama 3's (L+2)-layer split, the first and last stages a layer
// short, included); and at each kernel's middle At names that kernel.
func TestActivityAddsUpToBlocks(t *testing.T) {
	base := Plan{TP: 8, PP: 8, DP: 2, Interleave: 1, SP: true, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1, GlobalBatch: 32,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	full := base
	full.Recompute = RecomputeFull
	cp := base
	cp.CP, cp.DP = 2, 1
	for _, tc := range []struct {
		name, model string
		p           Plan
		gpus        int
	}{
		{"gpt3 selective", "gpt3-175b", base, 128},
		{"gpt3 full recompute", "gpt3-175b", full, 128},
		{"llama3 L+2 split, CP 2", "llama3-405b", cp, 128},
		{"mixtral EP 8", "mixtral-8x7b", moePlan(8, 4, 1), 64},
		{"deepseek-v3: dense first layers, latent attention, MTP, EP 8 full recompute", "deepseek-v3", moePlan(8, 8, 1), 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, r, tl := activityOf(t, tc.model, tc.p, tc.gpus)
			blocks := 0
			for _, b := range tl.Blocks {
				if b.Kind != Forward && b.Kind != Backward {
					continue
				}
				blocks++
				if s := a.scale(b); math.Abs(s-1) > 1e-9 {
					t.Fatalf("stage %d %s: block %g s, its kernels %g s", b.Stage, b.Kind, b.End-b.Start, (b.End-b.Start)/s)
				}
			}
			if blocks != 2*tc.p.PP*r.MicroBatches {
				t.Errorf("%d compute blocks, want %d", blocks, 2*tc.p.PP*r.MicroBatches)
			}
			// Walk the last stage's first forward and backward kernel by
			// kernel: each kernel's middle names it, the spans tile the
			// layer, the head comes last forward and first backward.
			last := tc.p.PP - 1
			g := last * tc.p.TP * max(tc.p.CP, 1) * tc.p.DP
			for _, kind := range []BlockKind{Forward, Backward} {
				var b Block
				for _, x := range tl.Blocks {
					if x.Stage == last && x.Kind == kind {
						b = x
						break
					}
				}
				var names []string
				layers := map[int]bool{}
				for tt := b.Start; tt < b.End; {
					act, err := a.At(g, tt)
					if err != nil {
						t.Fatal(err)
					}
					if act.Kind != kind || act.Stage != last || act.Kernel.Name == "" {
						t.Fatalf("at %g: %+v", tt, act)
					}
					mid := (act.KernelStart + act.KernelEnd) / 2
					again, _ := a.At(g, mid)
					if again.Kernel.Name != act.Kernel.Name || again.Layer != act.Layer {
						t.Fatalf("middle of %s (layer %d) reads %s (layer %d)", act.Kernel.Name, act.Layer, again.Kernel.Name, again.Layer)
					}
					if c, ok := a.Counts(act); !ok || act.Kernel.Kind == KernelGEMM && kind == Forward &&
						math.Abs(float64(c.Products)*c.GEMM.TimeS-(act.KernelEnd-act.KernelStart)) > 1e-9*c.GEMM.TimeS {
						t.Fatalf("%s: counts %+v (ok %v), kernel %g s", act.Kernel.Name, c, ok, act.KernelEnd-act.KernelStart)
					}
					if len(names) == 0 || names[len(names)-1] != act.Kernel.Name {
						names = append(names, act.Kernel.Name)
					}
					layers[act.Layer] = true
					tt = act.KernelEnd + 1e-12
				}
				seq := strings.Join(names, " ")
				if kind == Forward && !strings.HasSuffix(seq, "head loss") || kind == Backward && !strings.HasPrefix(seq, "loss head") {
					t.Errorf("%s of the last stage: %s", kind, seq)
				}
				_, n := a.chunkLayers(last)
				if len(layers) != n+1 { // its layers and the head (−1)
					t.Errorf("%s visits %d layers, want %d and the head", kind, len(layers)-1, n)
				}
				if !layers[trainedLayers(r.Config.Model)-1] {
					t.Errorf("%s misses the model's last layer", kind)
				}
			}
		})
	}
}

// A layer's kernels run in a transformer's order forward — the norm,
// the projections, attention, the output projection, TP's all-reduce,
// the MLP, TP's all-reduce — and backward in reverse after the
// recomputation.
func TestActivityRunOrder(t *testing.T) {
	full := Plan{TP: 8, PP: 8, DP: 2, Interleave: 1, SP: true, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 32,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	a, _, _ := activityOf(t, "gpt3-175b", full, 128)
	name := func(ks []Kernel) string {
		var s []string
		for _, k := range ks {
			s = append(s, k.Name)
		}
		return strings.Join(s, " ")
	}
	if got, want := name(a.fwd), "elementwise qkv attention out tp_allreduce elementwise up down tp_allreduce"; got != want {
		t.Errorf("forward %s, want %s", got, want)
	}
	if got, want := name(a.bwd), "recompute tp_allreduce down up elementwise tp_allreduce out attention qkv elementwise"; got != want {
		t.Errorf("backward %s, want %s", got, want)
	}
}

// Ranks follow Megatron's order (TP, CP, DP, PP); a GPU outside the plan
// is refused naming the range; a stage waiting for its first input is
// idle; a mixture of experts' blocks are named, their kernels not yet.
func TestActivityRanksAndIdle(t *testing.T) {
	p := Plan{TP: 4, CP: 2, PP: 4, DP: 2, Interleave: 1, SP: true, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1, GlobalBatch: 8,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	a, _, tl := activityOf(t, "llama3-405b", p, 64)
	if got := a.GPUs(); got != 64 {
		t.Fatalf("%d GPUs", got)
	}
	// GPU 45 = ((2·2 + 1)·2 + 1)·4 + 1: stage 2, DP 1, CP 1, TP 1.
	if st, tp, cp, dp := a.Ranks(45); st != 2 || tp != 1 || cp != 1 || dp != 1 {
		t.Errorf("GPU 45: stage %d tp %d cp %d dp %d", st, tp, cp, dp)
	}
	if _, err := a.At(64, 0); err == nil || !strings.Contains(err.Error(), "gpu: 64; allowed 0–63") {
		t.Errorf("GPU 64: %v", err)
	}
	// The last stage waits at t = 0 (its first input is three stages away).
	act, err := a.At(63, 0)
	if err != nil || act.Kind != "" || act.Kernel.Name != "" {
		t.Errorf("stage 3 at 0: %+v %v", act, err)
	}
	if act, _ := a.At(0, 0); act.Kind != Forward || act.Layer != 0 || act.Kernel.Name != "elementwise" {
		t.Errorf("stage 0 at 0: %+v", act)
	}
	// After the step: idle everywhere.
	if act, _ := a.At(0, tl.Length+1); act.Kind != "" {
		t.Errorf("after the step: %+v", act)
	}

	mx := Plan{TP: 1, PP: 1, DP: 8, EP: 8, Interleave: 1, Recompute: RecomputeSelective, Flash: true,
		MicroBatch: 1, GlobalBatch: 8, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16}
	b, _, _ := activityOf(t, "mixtral-8x7b", mx, 8)
	act, _ = b.At(0, 0)
	var names []string
	for _, sp := range act.Spans {
		names = append(names, sp.Name)
	}
	if got := strings.Join(names, " "); act.Kind != Forward || act.Kernel.Name != "elementwise" ||
		got != "elementwise qkv attention out elementwise router ep_dispatch experts_up permute experts_down ep_combine" {
		t.Errorf("mixtral at 0: %s %s, the layer %s", act.Kind, act.Kernel.Name, got)
	}
}

// moePlan is a mixture of experts' plan: EP ep inside DP, PP pp, TP tp,
// full recomputation (the all-to-alls run again backward).
func moePlan(ep, pp, tp int) Plan {
	return Plan{TP: tp, PP: pp, DP: 16, EP: ep, Interleave: 1, SP: tp > 1, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 64,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
}
