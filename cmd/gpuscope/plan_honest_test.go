package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// searchJSON runs gpuscope plan --search --json and returns its plans.
func searchJSON(t *testing.T, args ...string) (plans []map[string]any, fixed string) {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"plan", "--search", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan --search %v: exit %d: %s", args, code, errOut)
	}
	var r struct {
		Plans []map[string]any `json:"plans"`
		Fixed string           `json:"fixed"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("plan --search %v: %v", args, err)
	}
	return r.Plans, r.Fixed
}

// A plan flag given with --search fixes that part of every plan ranked,
// and the output says so; before, --tp 8 was read and ignored.
func TestSearchHoldsGivenFlags(t *testing.T) {
	base := []string{"--model", "llama2-70b", "--gpus", "64", "--global-batch", "64", "--top", "0"}
	for _, c := range []struct {
		flag, value, field string
		want               any
	}{
		{"--tp", "8", "tp", 8.0},
		{"--pp", "4", "pp", 4.0},
		{"--dp", "2", "dp", 2.0},
		{"--cp", "2", "cp", 2.0},
		{"--zero", "0", "zero", 0.0},
		{"--zero", "2", "zero", 2.0},
		{"--recompute", "full", "recompute", "full"},
		{"--micro-batch", "2", "micro_batch", 2.0},
		{"--interleave", "2", "interleave", 2.0},
		{"--schedule", "gpipe", "schedule", "gpipe"},
		{"--schedule", "interleaved", "schedule", "interleaved"},
	} {
		t.Run(c.flag[2:]+"="+c.value, func(t *testing.T) {
			plans, fixed := searchJSON(t, append(base, c.flag, c.value)...)
			if len(plans) == 0 {
				t.Fatalf("%s %s: no plan", c.flag, c.value)
			}
			for i, p := range plans {
				if p[c.field] != c.want {
					t.Fatalf("%s %s: plan %d has %s = %v", c.flag, c.value, i+1, c.field, p[c.field])
				}
			}
			if want := c.flag + " " + c.value; fixed != want {
				t.Errorf("fixed = %q, want %q", fixed, want)
			}
		})
	}
	// The ring or the all-gather alone, and EP on a mixture of experts.
	plans, _ := searchJSON(t, "--model", "llama2-70b", "--gpus", "64", "--global-batch", "64", "--cp", "4", "--cp-algo", "ring", "--top", "0")
	for _, p := range plans {
		if p["cp"] != 4.0 || p["cp_algo"] != "ring" {
			t.Fatalf("--cp 4 --cp-algo ring: a plan with cp %v %v", p["cp"], p["cp_algo"])
		}
	}
	plans, _ = searchJSON(t, "--model", "mixtral-8x7b", "--gpus", "32", "--global-batch", "64", "--ep", "4", "--top", "0")
	for _, p := range plans {
		if p["ep"] != 4.0 {
			t.Fatalf("--ep 4: a plan with ep %v", p["ep"])
		}
	}
	// And the text's header says what was held.
	out, _, code := runCLI(append([]string{"plan", "--search", "--tp", "8", "--zero", "1"}, base...)...)
	if code != 0 || !strings.Contains(out, "only plans with --tp 8 --zero 1 (given; the rest searched)") {
		t.Errorf("--search --tp 8 --zero 1: the header does not say what is fixed:\n%s", out)
	}
}

// What a search cannot take is refused by name, as a single plan refuses
// it: EP on a dense model, a TP that does not divide the heads, and the
// flags no plan searched reads.
func TestSearchRefusesWhatItCannotHold(t *testing.T) {
	base := []string{"plan", "--search", "--model", "llama2-70b", "--gpus", "64", "--global-batch", "64"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ep", "8"}, "--ep: 8 with a dense model"},
		{[]string{"--tp", "3"}, "--gpus: 64 not divisible by tp × pp = 3 × 1"},
		{[]string{"--gpus", "48", "--tp", "3"}, "--tp: 3 does not divide the 64 heads"},
		{[]string{"--cp", "1", "--cp-algo", "ring"}, "--cp-algo: ring needs context parallelism"},
		{[]string{"--schedule", "dualpipe"}, "--schedule: dualpipe is not searched"},
		{[]string{"--sp"}, "--sp: not with --search"},
		{[]string{"--overlap=false"}, "--overlap: not with --search"},
		{[]string{"--capacity-factor", "1.5"}, "--capacity-factor: not with --search"},
		{[]string{"--recompute-modules", "core_attn"}, "--recompute-modules: not with --search"},
		{[]string{"--rank", "3"}, "--rank: not with --search"},
	} {
		_, errOut, code := runCLI(append(base, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// The same EP is refused without --search too: one rule.
	_, errOut, code := runCLI("plan", "--model", "llama2-70b", "--gpus", "64", "--ep", "8")
	if code != 2 || !strings.Contains(errOut, "--ep: 8 with a dense model") {
		t.Errorf("--ep 8 without --search: exit %d, %q", code, errOut)
	}
}

// The search table tells plans that differ only by CP's algorithm or the
// schedule apart.
func TestSearchTableNamesCPAlgo(t *testing.T) {
	out, _, code := runCLI("plan", "--search", "--model", "llama2-70b", "--gpus", "64", "--global-batch", "64", "--cp", "2", "--top", "4")
	if code != 0 {
		t.Fatal(out)
	}
	var head string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[0] == "rank" {
			head = l
			continue
		}
		if head != "" && len(f) > 3 {
			if seen[l[4:]] {
				t.Errorf("two ranked rows read the same: %q", l)
			}
			seen[l[4:]] = true
			if f[3] != "ring" && f[3] != "allgather" {
				t.Errorf("cp_algo column %q, want ring or allgather: %q", f[3], l)
			}
		}
	}
	if !strings.Contains(head, "cp_algo") || !strings.Contains(head, "schedule") {
		t.Errorf("header %q: no cp_algo or schedule column", head)
	}
}

// FP8's MFU is over FP8's peak, which the JSON names: model FLOPs a
// second over mfu_peak_tflops is mfu, and it stays under 1 where the BF16
// peak would not hold it. BF16 plans keep the BF16 peak.
func TestMFUNamesItsPeak(t *testing.T) {
	plan := []string{"--model", "gpt3-175b", "--gpus", "128", "--tp", "4", "--pp", "8", "--interleave", "12", "--global-batch", "256", "--zero", "1"}
	for _, c := range []struct {
		dtype string
		peak  float64
	}{{"bf16", 989.4}, {"fp8", 1978.9}} {
		m := planJSON(t, append(plan, "--dtype", c.dtype)...)
		got := m["mfu_peak_dtype"]
		if got != c.dtype {
			t.Errorf("%s: mfu_peak_dtype %v", c.dtype, got)
		}
		peak, mfu, model, hard := num(t, m, "mfu_peak_tflops"), num(t, m, "mfu"), num(t, m, "model_tflops_per_gpu"), num(t, m, "tflops_per_gpu")
		if math.Abs(peak-c.peak) > 0.1 {
			t.Errorf("%s: mfu_peak_tflops %.1f, want %.1f", c.dtype, peak, c.peak)
		}
		if math.Abs(model/peak-mfu) > 1e-9 || math.Abs(hard/peak-num(t, m, "hfu")) > 1e-9 {
			t.Errorf("%s: mfu %.6f, hfu %.6f; model %.1f and hardware %.1f TFLOP/s over %.1f", c.dtype, mfu, num(t, m, "hfu"), model, hard, peak)
		}
		// By hand: model FLOPs a step over the step and the GPUs.
		if want := num(t, m, "model_flops_per_step") / num(t, m, "time", "step_s") / 128 / 1e12; math.Abs(model-want) > 1e-6*want {
			t.Errorf("%s: model_tflops_per_gpu %.3f, want %.3f", c.dtype, model, want)
		}
		if mfu <= 0 || mfu >= 1 {
			t.Errorf("%s: mfu %.3f", c.dtype, mfu)
		}
		out, _, _ := runCLI(append([]string{"plan", "--dtype", c.dtype}, plan...)...)
		if want := fmt.Sprintf("dense %s peak, %.1f TFLOP/s", strings.ToUpper(c.dtype), c.peak); !strings.Contains(out, want) {
			t.Errorf("%s: the text does not say the peak (%q):\n%s", c.dtype, want, out)
		}
	}
}

// A plan that does not fit says so first, in the text and the JSON, and
// the text gives no speed or MFU: a 70B model on TP 1 × PP 1 needs 1.2 TB
// a GPU.
func TestPlanThatDoesNotFitSaysSoFirst(t *testing.T) {
	out, _, code := runCLI("plan", "--model", "llama2-70b", "--gpus", "64")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "DOES NOT FIT: the fullest GPU needs 1.") || !strings.Contains(first, "TB") {
		t.Errorf("first line %q; want DOES NOT FIT with the bytes", first)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && (f[0] == "mfu" || f[0] == "hfu" || f[0] == "model_tflops") {
			t.Errorf("a plan that does not fit prints %q", l)
		}
	}
	raw, _, _ := runCLI("plan", "--json", "--model", "llama2-70b", "--gpus", "64")
	if !strings.HasPrefix(raw, "{\n  \"fits\": false,") {
		t.Errorf("JSON does not begin with fits: false:\n%.80s", raw)
	}
	// One that fits says nothing of the kind, and begins fits: true.
	out, _, _ = runCLI("plan", "--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--pp", "4")
	if strings.Contains(out, "DOES NOT FIT") || !strings.Contains(out, "  mfu ") {
		t.Errorf("a fitting plan:\n%s", out)
	}
	raw, _, _ = runCLI("plan", "--json", "--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--pp", "4")
	if !strings.HasPrefix(raw, "{\n  \"fits\": true,") {
		t.Errorf("JSON does not begin with fits: true:\n%.80s", raw)
	}
}
