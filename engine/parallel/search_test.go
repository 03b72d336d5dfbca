package parallel

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A search told to rank only its Top plans ranks them as the whole
// search does — the same plans, bit for bit, in the same order, ties
// included — counts every plan evaluated and fitting as it does, and
// runs far fewer schedules (the rest are bounded without theirs).
func TestSearchTopRanksAsAll(t *testing.T) {
	preset := func(id string) model.Transformer {
		m, ok := model.Preset(id)
		if !ok {
			t.Fatal(id)
		}
		return m
	}
	cases := []struct {
		name string
		o    SearchOptions
		top  int
	}{
		{"llama3-405b on 16,384 H100s, CP", SearchOptions{Model: preset("llama3-405b"), Cluster: DefaultCluster(gpu(t, "h100"), 16384), GlobalBatch: 2048, CP: true}, 10},
		{"llama3-405b, one plan", SearchOptions{Model: preset("llama3-405b"), Cluster: DefaultCluster(gpu(t, "h100"), 16384), GlobalBatch: 2048}, 1},
		{"mixtral-8x7b on 64 H100s", SearchOptions{Model: preset("mixtral-8x7b"), Cluster: DefaultCluster(gpu(t, "h100"), 64), GlobalBatch: 512, CP: true}, 20},
		{"deepseek-v3 on 256 H800s", SearchOptions{Model: preset("deepseek-v3"), Cluster: DefaultCluster(gpu(t, "h800"), 256), GlobalBatch: 1024, MaxMicroBatch: 4}, 20},
		{"gpt3-175b on 1,024 A100s, more than fit", SearchOptions{Model: preset("gpt3-175b"), Cluster: DefaultCluster(gpu(t, "a100-80gb"), 1024), GlobalBatch: 1536}, 1 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.o.Cluster.GPUs > 1024 {
				t.Skip("-short (make test's run under Node.js): the 16,384-GPU searches run natively")
			}
			o := tc.o
			o.BytesPerParam, o.Dtype, o.Flash = 16, hw.BF16, true
			all, err := Search(o)
			if err != nil {
				t.Fatal(err)
			}
			o.Top = tc.top
			top, err := Search(o)
			if err != nil {
				t.Fatal(err)
			}
			if all.Fitting == 0 {
				t.Fatal("no plan fits: the case tests nothing")
			}
			if top.Evaluated != all.Evaluated || top.Fitting != all.Fitting || top.Bounded != all.Bounded || top.Pruned != all.Pruned {
				t.Errorf("top %d: evaluated %d, fitting %d, bounded %d, pruned %d; all: %d, %d, %d, %d",
					tc.top, top.Evaluated, top.Fitting, top.Bounded, top.Pruned, all.Evaluated, all.Fitting, all.Bounded, all.Pruned)
			}
			want := all.Plans[:min(tc.top, len(all.Plans))]
			if len(top.Plans) != len(want) {
				t.Fatalf("top %d lists %d plans, want %d", tc.top, len(top.Plans), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(top.Plans[i], want[i]) {
					t.Fatalf("rank %d: %+v (%.9g s), the whole search's %+v (%.9g s)", i+1,
						top.Plans[i].Config.Plan, top.Plans[i].Time.Step, want[i].Config.Plan, want[i].Time.Step)
				}
			}
			if all.Scheduled != all.Fitting {
				t.Errorf("the whole search ran %d schedules for %d fitting plans", all.Scheduled, all.Fitting)
			}
			// Without CP the bound spares most schedules; with it, the CP
			// plans under the fastest run at once (they prune), fewer
			// still.
			if tc.top < all.Fitting/10 && (top.Scheduled*4 > all.Scheduled || top.Scheduled >= all.Scheduled) {
				if !o.CP || top.Scheduled >= all.Scheduled {
					t.Errorf("top %d ran %d schedules of the whole search's %d: the bound saved little", tc.top, top.Scheduled, all.Scheduled)
				}
			}
			t.Logf("top %d: %d of %d fitting plans' schedules run", tc.top, top.Scheduled, top.Fitting)
		})
	}
}

// The bound a search ranks by is a bound: no plan's step is below the
// step without its bubble and sends, and plans with a pipeline have a
// bubble (the bound is not the step). A search's plan, its GEMM times
// kept by shape, times as Evaluate does, bit for bit.
func TestSearchLowerBound(t *testing.T) {
	for _, tc := range []struct {
		id, gpu     string
		gpus, batch int
	}{{"llama3-405b", "h100", 16384, 2048}, {"deepseek-v3", "h800", 256, 1024}} {
		if testing.Short() && tc.gpus > 1024 {
			continue // -short (make test's run under Node.js): natively only
		}
		m, ok := model.Preset(tc.id)
		if !ok {
			t.Fatal(tc.id)
		}
		cl := DefaultCluster(gpu(t, tc.gpu), tc.gpus)
		var lower, exact searching
		lower.mode = searchLower
		n, below := 0, 0
		o := SearchOptions{Model: m, Cluster: cl, GlobalBatch: tc.batch, BytesPerParam: 16, Dtype: hw.BF16, Flash: true, MaxMicroBatch: 2}
		o.plans(Plan{BytesPerParam: 16, Dtype: hw.BF16, Flash: true, Overlap: true, GlobalBatch: tc.batch}, false, nil, func(p Plan) {
			c := Config{Model: m, Plan: p, Cluster: cl}
			lo, err := evaluate(c, &lower)
			if err != nil || !lo.Memory.Fits {
				return
			}
			r, err := evaluate(c, &exact)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if one, err := Evaluate(c); err != nil || one.Time != r.Time || one.MFU != r.MFU {
				t.Fatalf("%s %+v: in the search %+v, alone %+v (%v)", tc.id, p, r.Time, one.Time, err)
			}
			if lo.Time.Step > r.Time.Step {
				t.Fatalf("%s %+v: bound %.9g s above its step %.9g s", tc.id, p, lo.Time.Step, r.Time.Step)
			}
			if p.PP > 1 && lo.Time.Step < r.Time.Step {
				below++
			}
		})
		if n == 0 || below == 0 {
			t.Fatalf("%s: %d fitting plans, %d with their bound below the step", tc.id, n, below)
		}
	}
}

// A GEMM's key holds its precision and shape, each apart; a side too
// large for it, or a precision not numbered, is not kept (key 0) — and
// timed all the same.
func TestGEMMKey(t *testing.T) {
	seen := map[uint64]string{}
	for _, d := range []hw.Dtype{hw.FP32, hw.TF32, hw.FP16, hw.BF16, hw.FP8, hw.FP4, fp8Block} {
		for _, s := range [][3]int{{1, 1, 1}, {4096, 7168, 2048}, {2048, 7168, 4096}, {1<<20 - 1, 1, 1}, {1, 1<<20 - 1, 1}, {1, 1, 1<<20 - 1}} {
			k := gemmKey(d, s[0], s[1], s[2])
			name := fmt.Sprint(d, s)
			if k == 0 || seen[k] != "" {
				t.Errorf("%s: key %#x (also %q)", name, k, seen[k])
			}
			seen[k] = name
		}
		if k := gemmKey(d, 1<<20, 1, 1); k != 0 {
			t.Errorf("%s with a side of 2^20: key %#x, want 0", d, k)
		}
	}
	if k := gemmKey("int8", 1, 1, 1); k != 0 {
		t.Errorf("int8: key %#x, want 0", k)
	}
	memo := &gemmMemo{times: map[uint64]float64{}}
	cl := Cluster{GPU: gpu(t, "h100"), gemms: memo}
	big := cl.gemm(hw.BF16, 1<<21, 128, 128)
	if big <= 0 || len(memo.times) != 0 {
		t.Errorf("a 2^21-row product: %g s, %d kept", big, len(memo.times))
	}
	if a, b := cl.gemm(hw.BF16, 4096, 4096, 4096), (Cluster{GPU: cl.GPU}).gemm(hw.BF16, 4096, 4096, 4096); a != b || len(memo.times) != 1 {
		t.Errorf("kept %g s, alone %g s, %d kept", a, b, len(memo.times))
	}
}

// The decision tree's advice can be carried out: TP × PP divides the
// GPUs, so "DP over the rest" is a whole number of replicas. Llama 3
// 405B on 16,384 H100s was told PP 14 (14 × 8 does not divide 16,384).
func TestDecideAdviceDividesTheGPUs(t *testing.T) {
	for _, id := range []string{"llama3-405b", "gpt3-175b", "seed-100b", "megatron-1t", "llama2-70b", "deepseek-v3"} {
		m, _ := model.Preset(id)
		for _, gpus := range []int{8, 24, 64, 96, 384, 1000, 1024, 3072, 12288, 16384} {
			cl := DefaultCluster(gpu(t, "h100"), gpus)
			d := Decide(m, cl, 16)
			if d.Branch == "tp-pp-dp" && d.PP == 0 {
				continue // nothing fits: the advice says so
			}
			if d.TP < 1 || gpus >= d.TP*max(d.PP, 1) && gpus%(d.TP*max(d.PP, 1)) != 0 {
				t.Errorf("%s on %d GPUs: %s (TP %d PP %d): TP × PP does not divide the GPUs", id, gpus, d.Advice, d.TP, d.PP)
			}
			if !strings.Contains(d.Advice, fmt.Sprintf("TP %d", d.TP)) && d.Branch != "dp" {
				t.Errorf("%s on %d GPUs: advice %q does not say TP %d", id, gpus, d.Advice, d.TP)
			}
		}
	}
	m, _ := model.Preset("llama3-405b")
	if d := Decide(m, DefaultCluster(gpu(t, "h100"), 16384), 16); d.TP != 8 || d.PP != 16 {
		t.Errorf("Llama 3 405B on 16,384 H100s: TP %d PP %d, want TP 8 PP 16 (the fewest stages that fit and divide)", d.TP, d.PP)
	}
}
