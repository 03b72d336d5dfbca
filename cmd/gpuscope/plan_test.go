package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios"
)

func planJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(append([]string{"plan", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d: %s", args, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("plan %v: %v\n%s", args, err, out)
	}
	return m
}

func num(t *testing.T, m map[string]any, path ...string) float64 {
	t.Helper()
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q", path, p)
		}
		v, ok = mm[p]
		if !ok {
			t.Fatalf("%v: no field %q", path, p)
		}
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v = %v, not a number", path, v)
	}
	return f
}

// The 22B run of Korthikanti et al. from the command line: the contract's
// fields, and 1.42 s with full recomputation within 10%.
func TestPlanJSONContract(t *testing.T) {
	m := planJSON(t, "--layers", "48", "--hidden", "6144", "--heads", "64", "--seq", "2048", "--vocab", "51200",
		"--gpu", "a100-80gb", "--gpus", "8", "--tp", "8", "--micro-batch", "4", "--global-batch", "4",
		"--recompute", "full", "--sp=false", "--flash=false", "--bytes-per-param", "18")
	for _, f := range []string{"params", "model_flops_per_step", "bubble_fraction", "tflops_per_gpu", "mfu", "hfu"} {
		num(t, m, f)
	}
	for _, f := range []string{"weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "total_bytes"} {
		num(t, m, "memory", f)
	}
	if fits, ok := m["memory"].(map[string]any)["fits"].(bool); !ok || !fits {
		t.Errorf("memory.fits = %v", m["memory"].(map[string]any)["fits"])
	}
	for _, f := range []string{"step_s", "compute_s", "tp_comm_s", "pp_comm_s", "dp_comm_s", "bubble_s", "exposed_comm_s"} {
		num(t, m, "time", f)
	}
	if s := num(t, m, "time", "step_s"); math.Abs(s-1.42)/1.42 > 0.10 {
		t.Errorf("step_s %g, want 1.42 ± 10%%", s)
	}
	if f := num(t, m, "model_flops_per_step"); math.Abs(f-1.143e15)/1.143e15 > 0.001 {
		t.Errorf("model_flops_per_step %g, want 1.143e15", f)
	}
}

// --search prints the fitting plans best first with their plan fields;
// Meta's TP 8, PP 16, DP 128 is among those listed for Llama 3 405B.
func TestPlanSearchJSON(t *testing.T) {
	m := planJSON(t, "--search", "--model", "llama3-405b", "--gpus", "16384", "--gpu", "h100")
	plans, ok := m["plans"].([]any)
	if !ok || len(plans) != 50 {
		t.Fatalf("plans: %d (want the 50 best)", len(plans))
	}
	found := false
	prev := 0.0
	for _, p := range plans {
		pm := p.(map[string]any)
		for _, f := range []string{"tp", "pp", "dp", "zero", "micro_batch"} {
			num(t, pm, f)
		}
		if _, ok := pm["recompute"].(string); !ok {
			t.Fatal("a plan without recompute")
		}
		step := num(t, pm, "time", "step_s")
		if step < prev {
			t.Fatal("plans not best first")
		}
		prev = step
		if num(t, pm, "tp") == 8 && num(t, pm, "pp") == 16 && num(t, pm, "dp") == 128 {
			found = true
		}
	}
	if !found {
		t.Error("Meta's TP 8 PP 16 DP 128 is not among the listed plans")
	}
	if d, _ := m["decision"].(map[string]any); d == nil || d["branch"] != "tp-pp-dp" {
		t.Errorf("decision %v", m["decision"])
	}
}

// --params alone: model states only; the seed's 175B over TP 8 × PP 8.
func TestPlanParamsOnly(t *testing.T) {
	m := planJSON(t, "--params", "175e9", "--tp", "8", "--pp", "8", "--dp", "8")
	if got := num(t, m, "memory", "total_bytes"); got != 43.75e9 {
		t.Errorf("total %g, want 43.75e9", got)
	}
	if got := num(t, m, "memory", "weights_bytes"); got != 350e9/64 {
		t.Errorf("weights %g, want 350 GB / 64", got)
	}
}

// A Hugging Face config.json names the model.
func TestPlanHFConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"model_type":"llama","num_hidden_layers":80,"hidden_size":8192,"num_attention_heads":64,"num_key_value_heads":8,
"intermediate_size":28672,"vocab_size":32000,"max_position_embeddings":4096,"hidden_act":"silu","tie_word_embeddings":false}`
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	a := planJSON(t, "--hf-config", path, "--gpus", "64", "--tp", "8", "--pp", "2", "--recompute", "full", "--global-batch", "64")
	b := planJSON(t, "--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--pp", "2", "--recompute", "full", "--global-batch", "64")
	if num(t, a, "params") != num(t, b, "params") || num(t, a, "time", "step_s") != num(t, b, "time", "step_s") {
		t.Errorf("config.json and preset differ: %g vs %g params", num(t, a, "params"), num(t, b, "params"))
	}
}

func TestPlanBadInput(t *testing.T) {
	tests := []refusal{
		{[]string{"plan", "--model", "gpt5"}, []string{"--model", "gpt3-175b", "llama3-405b"}},
		{[]string{"plan", "--model", "llama2-70b", "--tp", "3", "--gpus", "3"}, []string{"tp", "heads 64"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--dp", "4"}, []string{"tp × pp × dp", "64"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpus", "16", "--pp", "3"}, []string{"--gpus", "tp × pp"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpus", "24", "--pp", "3", "--tp", "8"}, []string{"layers", "80"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpus", "8", "--global-batch", "12", "--micro-batch", "1"}, []string{"global-batch", "12"}},
		{[]string{"plan", "--model", "llama2-70b", "--recompute", "some"}, []string{"--recompute", "none, selective, full"}},
		{[]string{"plan", "--model", "llama2-70b", "--zero", "4"}, []string{"--zero", "0–3"}},
		{[]string{"plan", "--model", "llama2-70b", "--bytes-per-param", "12"}, []string{"--bytes-per-param", "16, 18"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpu", "a100", "--dtype", "fp8"}, []string{"dtype", "fp8"}},
		{[]string{"plan", "--hf-config", "/nonexistent.json"}, []string{"--hf-config"}},
		{[]string{"plan", "--layers", "4"}, []string{"--hidden", "missing"}},
		{[]string{"plan"}, []string{"missing model", "--params"}},
		{[]string{"plan", "--params", "1e9", "--search"}, []string{"--search"}},
	}
	checkRefusals(t, tests)
}

// Every number of a strategy lesson can be reproduced with the CLI: each
// step's configuration, run as the gpuscope plan command the page shows,
// prints the same numbers.
func TestStrategyLessonsMatchCLI(t *testing.T) {
	for _, id := range []string{"memory-budget", "data-parallel", "tensor-parallel", "pipeline-parallel", "3d-parallel",
		"zero-stages", "activation-checkpointing", "gradient-accumulation", "overlap", "strategy-planner"} {
		s, ok := scenarios.Get(id)
		if !ok {
			t.Fatalf("no lesson %s", id)
		}
		les, err := scenarios.Prepare(s, s.Defaults())
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		for i := range les.Steps {
			pm := les.Metrics(i + 1).(scenarios.PlanMetrics)
			args := append(strings.Fields(strings.TrimPrefix(pm.Command, "gpuscope ")), "--json")
			out, errOut, code := runCLI(args...)
			if code != 0 {
				t.Fatalf("%s step %d: %s: exit %d: %s", id, i+1, pm.Command, code, errOut)
			}
			var cli map[string]any
			if err := json.Unmarshal([]byte(out), &cli); err != nil {
				t.Fatal(err)
			}
			if got, want := num(t, cli, "time", "step_s"), pm.Time.Step; got != want {
				t.Errorf("%s step %d: CLI step_s %v, lesson %v", id, i+1, got, want)
			}
			if got, want := num(t, cli, "memory", "total_bytes"), pm.Memory.Total; got != want {
				t.Errorf("%s step %d: CLI total_bytes %v, lesson %v", id, i+1, got, want)
			}
			if got, want := num(t, cli, "params"), pm.Params; got != want {
				t.Errorf("%s step %d: CLI params %v, lesson %v", id, i+1, got, want)
			}
		}
	}
}

// The infrastructure lessons' numbers are the CLI's: each step's command
// prints the time the page shows.
func TestInfraLessonsMatchCLI(t *testing.T) {
	run := func(cmd string) map[string]any {
		t.Helper()
		out, errOut, code := runCLI(strings.Fields(strings.TrimPrefix(cmd, "gpuscope "))...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, id := range []string{"nvlink-vs-ib", "collectives-at-scale"} {
		s, _ := scenarios.Get(id)
		les, err := scenarios.Prepare(s, s.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		for i := range les.Steps {
			m := les.Metrics(i + 1).(scenarios.FabricMetrics)
			cli := run(m.Command)
			if m.CommandIntra != "" {
				if got := num(t, cli, "time_s"); got != m.InterTimeS {
					t.Errorf("%s step %d: CLI %g s, page %g s over the network", id, i+1, got, m.InterTimeS)
				}
				if got := num(t, run(m.CommandIntra), "time_s"); got != m.IntraTimeS {
					t.Errorf("%s step %d: CLI %g s, page %g s over NVLink", id, i+1, got, m.IntraTimeS)
				}
				continue
			}
			if m.AllToAllOversubS > 0 {
				if got := num(t, cli, "time_s"); got != m.AllToAllOversubS {
					t.Errorf("%s step %d: CLI %g s, page %g s for the 2:1 all-to-all", id, i+1, got, m.AllToAllOversubS)
				}
				continue
			}
			// The lesson compares the algorithms by their α-β closed forms
			// (its sweep and crossover are closed forms too); the CLI prints
			// that figure beside its flow-level time.
			if got, want := num(t, cli, "closed_form_time_s"), m.Algos[m.Fastest].TimeS; got != want {
				t.Errorf("%s step %d: CLI closed form %g s, page %g s", id, i+1, got, want)
			}
		}
	}
	s, _ := scenarios.Get("fault-tolerance")
	les, _ := scenarios.Prepare(s, s.Defaults())
	for i := range les.Steps {
		m := les.Metrics(i + 1).(scenarios.FaultLessonMetrics)
		cli := run(m.Command)
		if num(t, cli, "failures") != float64(m.Failures) || num(t, cli, "goodput") != m.Goodput {
			t.Errorf("fault-tolerance step %d: CLI %v, page %d failures %g goodput", i+1, cli, m.Failures, m.Goodput)
		}
	}
}
