package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// gpuscope plan --kernels: one layer's kernels on one GPU, in the JSON and
// as a table; GPT-3 175B at TP 8 has Q, K, V as one 2,048 × 4,608 × 12,288
// product; a mixture of experts and --search are refused, named.
func TestPlanKernels(t *testing.T) {
	args := []string{"plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--kernels"}
	out, errOut, code := runCLI(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("rc %d: %s", code, errOut)
	}
	var got struct {
		Kernels []struct {
			Name      string  `json:"name"`
			Kind      string  `json:"kind"`
			M         float64 `json:"m"`
			N         float64 `json:"n"`
			K         float64 `json:"k"`
			ForwardS  float64 `json:"forward_s"`
			BackwardS float64 `json:"backward_s"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Kernels) < 6 || got.Kernels[0].Name != "qkv" || got.Kernels[0].Kind != "gemm" || got.Kernels[0].M != 2048 || got.Kernels[0].N != 4608 || got.Kernels[0].K != 12288 {
		t.Fatalf("kernels %+v", got.Kernels)
	}
	for _, k := range got.Kernels {
		if k.ForwardS < 0 || k.BackwardS < 0 || k.ForwardS+k.BackwardS == 0 {
			t.Errorf("%s: %g / %g s", k.Name, k.ForwardS, k.BackwardS)
		}
	}
	text, _, code := runCLI(args...)
	if code != 0 || !strings.Contains(text, "one layer's kernels on one GPU") || !strings.Contains(text, "2048 × 4608 × 12288") {
		t.Errorf("rc %d, text:\n%s", code, text)
	}
	// A mixture of experts: its MoE layer's kernels, the router, the
	// experts' products and the all-to-alls among them.
	if moe, e, code := runCLI("plan", "--model", "mixtral-8x7b", "--gpus", "64", "--pp", "4", "--ep", "8", "--kernels"); code != 0 ||
		!strings.Contains(moe, "experts_up") || !strings.Contains(moe, "router") || !strings.Contains(moe, "ep_dispatch") {
		t.Errorf("mixtral --kernels: %d %s %s", code, moe, e)
	}
	if _, e, code := runCLI("plan", "--model", "gpt3-175b", "--gpus", "512", "--search", "--kernels"); code != 2 || !strings.Contains(e, "--kernels:") {
		t.Errorf("with --search: rc %d, %q", code, e)
	}
}

// gpuscope plan --at T --rank N: what one GPU does at a moment of the
// step, the page's zoom — the engine's StepActivity for that plan, its
// kernel's counts; a GPU outside the plan is named with the range.
func TestPlanAt(t *testing.T) {
	base := []string{"plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--global-batch", "256", "--rank", "27", "--at"}
	type atJSON struct {
		Activity struct {
			Stage  int    `json:"stage"`
			Kind   string `json:"kind"`
			Layer  int    `json:"layer"`
			Kernel struct {
				Name string `json:"name"`
			} `json:"kernel"`
		} `json:"activity"`
		Counts struct {
			FLOPs    float64 `json:"flops"`
			HBMBytes float64 `json:"hbm_bytes"`
		} `json:"kernel_counts"`
	}
	// The first moment from 1 s, by milliseconds, at which GPU 27 runs the
	// MLP's down product in a backward pass (where in the step it falls
	// moves with the engine's times; what it runs there does not).
	var got atJSON
	var args []string
	for ms := 1000; ms < 1100 && got.Activity.Kernel.Name != "down"; ms++ {
		args = append(base[:len(base):len(base)], strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64))
		out, _, code := runCLI(append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		got = atJSON{}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Activity.Kind != "backward" {
			got.Activity.Kernel.Name = ""
		}
	}
	// By hand: the backward of the MLP's down product (2,048 × 12,288 ×
	// 6,144 on a TP 8 GPU) is dX and dW, 2 × 2 × 2048 × 12288 × 6144 FLOP;
	// GPU 27 is stage 0's.
	a := got.Activity
	if a.Stage != 0 || a.Kind != "backward" || a.Kernel.Name != "down" || got.Counts.FLOPs != 4*2048*12288*6144 || got.Counts.HBMBytes <= 0 {
		t.Fatalf("GPU 27 from 1 s to 1.1 s: never the down product's backward; last %+v", got)
	}
	text, _, code := runCLI(args...)
	if code != 0 || !strings.Contains(text, "GPU 27 (stage 0, TP rank 3, CP rank 0, DP rank 3) at "+args[len(args)-1]+" s runs down (gemm) in the backward") {
		t.Errorf("text: %s", text)
	}
	if _, e, code := runCLI("plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--global-batch", "256", "--at", "1", "--rank", "512"); code != 2 || !strings.Contains(e, "--rank: 512; allowed 0–511") {
		t.Errorf("rank 512: %d %s", code, e)
	}
	if _, e, code := runCLI("plan", "--model", "gpt3-175b", "--gpus", "512", "--search", "--at", "1"); code != 2 || !strings.Contains(e, "--at:") {
		t.Errorf("--search --at: %d %s", code, e)
	}
}

// gpuscope attention --causal halves FlashAttention's work at its
// measured causal rate; --flash-version 2 runs FlashAttention-2's rates
// on Hopper; FlashAttention-3 on an A100 is refused by name.
func TestAttentionCausalAndVersion(t *testing.T) {
	time := func(args ...string) float64 {
		t.Helper()
		m := jsonCLI(t, append([]string{"attention", "--seq", "8192", "--heads", "16", "--json"}, args...)...)
		return m["time_s"].(float64)
	}
	full, causal := time(), time("--causal")
	if r := causal / full; math.Abs(r-0.5*646/602) > 1e-3 {
		t.Errorf("causal over unmasked at 8k: %.4f, want 0.5 × 646/602 = %.4f", r, 0.5*646/602)
	}
	if r := time("--flash-version", "2") / full; math.Abs(r-646.0/370) > 1e-3 {
		t.Errorf("FlashAttention-2 over -3 at 8k: %.4f, want 646/370", r)
	}
	_, errOut, code := runCLI("attention", "--flash-version", "3", "--gpu", "a100-80gb")
	if code != 2 || !strings.Contains(errOut, "--flash-version: 3 needs Hopper") {
		t.Errorf("FlashAttention-3 on an A100: exit %d, %q", code, errOut)
	}
}
