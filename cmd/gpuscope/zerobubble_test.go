package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// gpuscope plan --schedule zb-h1 | zb-v | dualpipev: GPT-3 XL on PP 4,
// 16 micro-batches. ZB-H1 is 1F1B's plan with a bubble 2(p − 1)W
// shorter, W the critical (last) stage's weight gradients as
// time_per_stage reports them, and 1F1B's memory; ZB-V's bubble is
// shorter still; the JSON has 1F1B's fields (time_per_stage adds
// wgrad_s); the text names the bubble's form.
func TestPlanZeroBubble(t *testing.T) {
	base := []string{"--model", "gpt3-xl", "--gpus", "8", "--pp", "4", "--global-batch", "32"}
	plan := func(s string) map[string]any { return planJSON(t, append(slices.Clone(base), "--schedule", s)...) }
	one, zb1, zbv := plan("1f1b"), plan("zb-h1"), plan("zb-v")
	stage := func(m map[string]any, i int) map[string]any {
		return m["time_per_stage"].([]any)[i].(map[string]any)
	}
	W := num(t, stage(zb1, 3), "wgrad_s")
	if zb1["schedule"] != "zb-h1" || !(W > 0) {
		t.Fatalf("schedule %v, the last stage's wgrad_s %v", zb1["schedule"], W)
	}
	if _, ok := stage(one, 3)["wgrad_s"]; ok {
		t.Error("1F1B's time_per_stage lists wgrad_s")
	}
	b1, bh, bv := num(t, one, "time", "bubble_s"), num(t, zb1, "time", "bubble_s"), num(t, zbv, "time", "bubble_s")
	if want := b1 - 2*3*W; !(bh > 0) || bh < want*(1-1e-9) || bh > want*(1+1e-9) {
		t.Errorf("zb-h1's bubble_s %.6g, 1F1B's %.6g less 2 × 3 × W (%.6g) = %.6g", bh, b1, W, want)
	}
	if !(bv < bh) {
		t.Errorf("zb-v's bubble_s %.6g, zb-h1's %.6g", bv, bh)
	}
	if a, b := num(t, one, "memory", "total_bytes"), num(t, zb1, "memory", "total_bytes"); a != b {
		t.Errorf("memory: zb-h1 %g bytes, 1F1B %g", b, a)
	}
	if k1, kh := slices.Sorted(maps.Keys(one)), slices.Sorted(maps.Keys(zb1)); !slices.Equal(k1, kh) {
		t.Errorf("zb-h1's JSON fields %v, 1F1B's %v", kh, k1)
	}
	text, errOut, code := runCLI(append([]string{"plan", "--schedule", "zb-v"}, base...)...)
	if code != 0 || !strings.Contains(text, "zb-v schedule") || !strings.Contains(text, "(p−1)(F+B−2W)/2 of the ideal, B the input gradient") {
		t.Errorf("plan --schedule zb-v: exit %d, %s\n%s", code, errOut, text)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--schedule", "zb-h2"}, "--schedule: “zb-h2” is not one of gpipe, 1f1b, interleaved, dualpipe, zb-h1, zb-v, dualpipev"},
		{[]string{"--schedule", "zb-v", "--pp", "8", "--global-batch", "64"}, "layers: 24 not divisible by 2 × pp = 2 × 8 for the zb-v schedule"},
		{[]string{"--schedule", "zb-v", "--global-batch", "12"}, "micro-batches: 6 must be at least 2 × pp = 8 for the zb-v schedule"},
		{[]string{"--schedule", "zb-h1", "--pp", "1"}, "schedule: zb-h1 needs pp ≥ 2 (pp 1)"},
		{[]string{"--schedule", "zb-v", "--at", "0.01"}, "--at: schedule: zb-v is costed in closed form, not run block by block: it has no time line"},
		{[]string{"--schedule", "zb-h1", "--trace", t.TempDir() + "/zb.json"}, "--trace: schedule: zb-h1 is costed in closed form"},
		{[]string{"--search", "--schedule", "dualpipev"}, "--schedule: dualpipev is not searched"},
	} {
		args := append(append([]string{"plan"}, base...), c.args...)
		if _, errOut, code := runCLI(args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// --search --schedule zb-v ranks ZB-V plans alone, the schedule
	// named among the fixed flags.
	sr := jsonCLI(t, "plan", "--search", "--model", "gpt3-xl", "--gpus", "16", "--global-batch", "64", "--schedule", "zb-v", "--top", "5", "--json")
	plans := sr["plans"].([]any)
	if len(plans) == 0 || sr["fixed"] != "--schedule zb-v" {
		t.Fatalf("--search --schedule zb-v: %d plans, fixed %v", len(plans), sr["fixed"])
	}
	for i, p := range plans {
		if s := p.(map[string]any)["schedule"]; s != "zb-v" {
			t.Errorf("plan %d: schedule %v", i+1, s)
		}
	}
}
