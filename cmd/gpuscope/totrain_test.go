package main

import (
	"io"
	"math"
	"strings"
	"testing"
)

// gpuscope plan --tokens: the plan's step as a whole run, in the JSON's
// time_to_train and in the text, each figure from the ones before it as
// the formulas say — GPT-3 XL on 8 H100s (global batch 512 of 2,048
// tokens: 1,048,576 a step), 10^9 tokens = ⌈953.67⌉ = 954 steps.
func TestPlanTokens(t *testing.T) {
	args := []string{"--model", "gpt3-xl", "--gpus", "8", "--global-batch", "512"}
	plan := planJSON(t, args...)
	if _, ok := plan["time_to_train"]; ok {
		t.Errorf("time_to_train without --tokens")
	}
	m := planJSON(t, append(args, "--tokens", "1e9", "--price", "2.5")...)
	f := func(name string) float64 { return num(t, m, "time_to_train", name) }
	step := num(t, plan, "time", "step_s")
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s = %.9g, want %.9g", name, got, want)
		}
	}
	near("tokens_per_step", f("tokens_per_step"), 512*2048)
	near("steps", f("steps"), 954)
	near("step_s", f("step_s"), step)
	near("ideal_s", f("ideal_s"), 954*step)
	near("ideal_days", f("ideal_days"), 954*step/86400)
	// 8 GPUs failing at Llama 3's rate (50,677 hours each) fail every
	// 50,677 × 3,600 ÷ 8 s; the run keeps goodput of its wall clock.
	near("cluster_mtbf_s", f("cluster_mtbf_s"), 54*24.0/419*16384*3600/8)
	if g := f("goodput"); !(g > 0.99 && g < 1) {
		t.Errorf("goodput %g on 8 GPUs for an hour", g)
	}
	near("wall_s", f("wall_s"), f("ideal_s")/f("goodput"))
	near("days", f("days"), f("wall_s")/86400)
	near("failures", f("failures"), f("wall_s")/f("cluster_mtbf_s"))
	near("gpu_hours", f("gpu_hours"), 8*f("wall_s")/3600)
	near("ideal_gpu_hours", f("ideal_gpu_hours"), 8*954*step/3600)
	// An H100 at 700 W, a fifth of it while waiting, its DGX's 575 W
	// beside it, PUE 1.1.
	tm := plan["time"].(map[string]any)
	busy := (tm["compute_s"].(float64) + tm["optimizer_s"].(float64)) / step
	near("busy", f("busy"), busy)
	near("gpu_power_w", f("gpu_power_w"), 700*(0.2+0.8*busy))
	near("node_power_w", f("node_power_w"), 575)
	near("facility_power_w", f("facility_power_w"), 8*(f("gpu_power_w")+575)*1.1)
	near("energy_mwh", f("energy_mwh"), f("facility_power_w")*f("wall_s")/3.6e9)
	near("gpu_energy_mwh", f("gpu_energy_mwh"), 8*f("gpu_power_w")*f("wall_s")/3.6e9)
	near("cost_usd", f("cost_usd"), 2.5*f("gpu_hours"))
	near("ideal_cost_usd", f("ideal_cost_usd"), 2.5*f("ideal_gpu_hours"))
	assumed := func(m map[string]any) string {
		var s []string
		for _, a := range m["time_to_train"].(map[string]any)["assumed"].([]any) {
			s = append(s, a.(map[string]any)["field"].(string))
		}
		return strings.Join(s, " ")
	}
	if got := assumed(m); got != "mtbf_gpu_hours checkpoint_cost_s restart_cost_s gpu_power_w node_power_w pue energy_mwh" {
		t.Errorf("assumed: %s", got)
	}
	// Set, they are the run's, no longer assumed: a GPU failing every
	// 1,000 h, free checkpoints, a two-minute restart keep e^(−120 ÷
	// 450,000) of the wall clock; PUE 1.3.
	g := planJSON(t, append(args, "--tokens", "1e9", "--mtbf-gpu-hours", "1000", "--checkpoint-cost-s", "0", "--restart-cost-s", "120", "--pue", "1.3")...)
	near("goodput, given", num(t, g, "time_to_train", "goodput"), math.Exp(-120.0/450000))
	near("facility_power_w, given", num(t, g, "time_to_train", "facility_power_w"), 8*(f("gpu_power_w")+575)*1.3)
	if got := assumed(g); got != "gpu_power_w node_power_w energy_mwh" {
		t.Errorf("assumed with the flags given: %s", got)
	}
	if _, ok := g["time_to_train"].(map[string]any)["cost_usd"]; ok {
		t.Errorf("a cost without --price")
	}

	text, errOut, code := runCLI(append([]string{"plan"}, append(args, "--tokens", "1e9", "--price", "2.5")...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"time to train 1B tokens (--tokens):", "  steps             954 ", "  goodput ", "  days ", "  gpu_hours ", "  energy_mwh ",
		"  cost_usd ", "assumed (not from the plan):", "--mtbf-gpu-hours sets it", "--pue sets it", "DGX"} {
		if !strings.Contains(text, want) && !(want == "DGX" && strings.Contains(text, "datasheet maximum")) {
			t.Errorf("plan --tokens text lacks %q:\n%s", want, text)
		}
	}
}

// A plan that does not fit still gets its run, said to be what it would
// take if it fit.
func TestPlanTokensDoesNotFit(t *testing.T) {
	text, errOut, code := runCLI("plan", "--model", "llama3-405b", "--gpus", "8", "--tp", "8", "--tokens", "1e9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(text, "DOES NOT FIT") || !strings.Contains(text, "(the plan does not fit: what the run would take if it did)") {
		t.Errorf("text:\n%s", text)
	}
}

// Bad input names the flag and what is allowed, on one line, with exit
// status 2; nothing runs.
func TestPlanTokensBadInput(t *testing.T) {
	base := []string{"plan", "--model", "gpt3-xl", "--gpus", "8"}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tokens", "0"}, []string{"--tokens: 0 is out of range; allowed 1–1e+18"}},
		{[]string{"--tokens", "-5e9"}, []string{"--tokens: -5e9 is out of range; allowed 1–1e+18"}},
		{[]string{"--tokens", "1e19"}, []string{"--tokens: 1e19 is out of range"}},
		{[]string{"--tokens", "lots"}, []string{"--tokens: “lots” is not a number; allowed 1 to 1e+18", "15.6e12"}},
		{[]string{"--tokens", "15.6T"}, []string{"--tokens: “15.6T” is not a number", "e notation: 15.6e12 for 15.6T"}},
		{[]string{"--tokens", "nan"}, []string{"--tokens: “nan” is not a number"}},
		{[]string{"--tokens"}, []string{"--tokens: missing value; allowed 1–1e+18"}},
		{[]string{"--tokens", "1e9", "--price", "0"}, []string{"--price: 0 is out of range; allowed 0.0001–1e+06"}},
		{[]string{"--tokens", "1e9", "--price", "-3"}, []string{"--price: -3 is out of range"}},
		{[]string{"--tokens", "1e9", "--price", "cheap"}, []string{"--price: “cheap” is not a number"}},
		{[]string{"--tokens", "1e9", "--pue", "0.9"}, []string{"--pue: 0.9 is out of range; allowed 1–3"}},
		{[]string{"--tokens", "1e9", "--restart-cost-s", "-1"}, []string{"--restart-cost-s: -1 is out of range"}},
		{[]string{"--tokens", "1e9", "--mtbf-gpu-hours", "0.001"}, []string{"--mtbf-gpu-hours: 0.001;", "keeps no progress", "allowed"}},
		{[]string{"--tokens", "1e18", "--mtbf-gpu-hours", "0.0021", "--json"}, []string{"--mtbf-gpu-hours: 0.0021;", "longer than can be counted"}},
		{[]string{"--price", "2"}, []string{"--price: sets what a training run assumes; give --tokens N too"}},
		{[]string{"--pue", "1.2"}, []string{"--pue: sets what a training run assumes; give --tokens N too"}},
		{[]string{"--tokens", "1e9", "--search"}, []string{"--tokens: turns one plan's step into a run; not with --search"}},
	} {
		_, e, code := runCLI(append(append([]string(nil), base...), tt.args...)...)
		if code != 2 || strings.Count(e, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line", tt.args, code, e)
		}
		for _, w := range tt.want {
			if !strings.Contains(e, w) {
				t.Errorf("%v: %q; want it to say %q", tt.args, e, w)
			}
		}
	}
	if _, e, code := runCLI("plan", "--params", "1e9", "--gpus", "8", "--tokens", "1e9"); code != 2 || !strings.Contains(e, "--tokens: needs a plan's step") {
		t.Errorf("--params with --tokens: exit %d, %q", code, e)
	}
}

// Llama 3 405B's plan on 16,384 H100s as a run of 15.6T tokens, the
// whole command: budgeted at 1 ms natively (issue 42).
func BenchmarkPlanTokens(b *testing.B) {
	args := strings.Fields("plan --software current --model llama3-405b --gpus 16384 --tp 8 --pp 16 --interleave 8 --zero 2 --recompute none --bytes-per-param 18 --fused-swiglu --global-batch 2048 --tokens 15.6e12 --price 2 --json")
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
