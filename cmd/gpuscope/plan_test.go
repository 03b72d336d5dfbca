package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
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
	// Meta's plan among the 50 best without context parallelism (the
	// search tries CP too, and the engine prefers it at 8K: every plan
	// says its cp).
	m = planJSON(t, "--search", "--model", "llama3-405b", "--gpus", "16384", "--gpu", "h100", "--top", "0")
	var noCP []any
	for _, p := range m["plans"].([]any) {
		if num(t, p.(map[string]any), "cp") == 1 {
			noCP = append(noCP, p)
		}
	}
	plans = noCP[:min(50, len(noCP))]
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
	// The text names it as the file does, not "hf-config".
	named := filepath.Join(dir, "named.json")
	if err := os.WriteFile(named, []byte(strings.Replace(cfg, "{", `{"_name_or_path":"meta-llama/Llama-2-70b-hf",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("plan", "--hf-config", named, "--gpus", "64", "--tp", "8", "--pp", "4")
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.HasPrefix(first, "config.json's meta-llama/Llama-2-70b-hf (69B parameters) on 64") {
		t.Errorf("exit %d (%s), first line %q", code, errOut, first)
	}
}

// Bad config.json files given to --hf-config: exit 2, one line naming
// --hf-config and the field, in bounded time and memory — a 100 MB file
// is refused having read a megabyte of it, deep nesting without a stack
// overflow; and the findings of issue 36 (an unknown model_type, a key
// its architecture does not read, 0 experts). Of duplicate keys the
// last wins.
func TestPlanHFConfigBadFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shape := `"num_hidden_layers":80,"hidden_size":8192,"num_attention_heads":64,"num_key_value_heads":8,` +
		`"intermediate_size":28672,"vocab_size":128256,"max_position_embeddings":8192,"hidden_act":"silu"`
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"model_type":"llama",` + shape + `,"x":"`); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // a sparse 100 MB: its tail zero bytes
		t.Fatal(err)
	}
	f.Close()
	for _, tt := range []struct {
		name, path string
		mentions   []string
	}{
		{"100 MB", big, []string{"--hf-config: config.json: ", "is 104857600 bytes; allowed at most 1048576"}},
		{"a directory", dir, []string{"--hf-config: ", "directory"}},
		{"nested 100,000 deep", file("deep.json", `{"hidden_size":`+strings.Repeat("[", 100000)+`}`), []string{"--hf-config: config.json: nested deeper than 1000 levels"}},
		{"hidden_size a string", file("type.json", `{"model_type":"llama",`+shape+`,"hidden_size":"8192"}`), []string{"--hf-config: config.json: hidden_size: a JSON string; must be an integer"}},
		{"unknown model_type", file("falcon.json", `{"model_type":"falcon",`+shape+`}`), []string{`--hf-config: config.json: model_type: "falcon"; allowed`, "llama4_text"}},
		{"Llama with experts", file("llamamoe.json", `{"model_type":"llama",`+shape+`,"num_local_experts":8,"num_experts_per_tok":2}`),
			[]string{"--hf-config: config.json: num_local_experts: not read by model_type llama (LlamaForCausalLM)", "mixtral"}},
		{"Mixtral with 0 experts", file("mixtral0.json", `{"model_type":"mixtral",`+shape+`,"num_local_experts":0}`), []string{"num_local_experts: 0; allowed 1–65536"}},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		checkRefusals(t, []refusal{{[]string{"plan", "--hf-config", tt.path, "--gpus", "64", "--tp", "8", "--pp", "2"}, tt.mentions}})
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if took > 2*time.Second {
			t.Errorf("%s: %v; allowed 2 s", tt.name, took)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MB; allowed 64", tt.name, alloc>>20)
		}
	}
	// Duplicate keys: the last wins, as json.loads reads them.
	dup := file("dup.json", `{"model_type":"llama",`+shape+`,"num_hidden_layers":40}`)
	a := planJSON(t, "--hf-config", dup, "--gpus", "64", "--tp", "8", "--pp", "2", "--global-batch", "64")
	if p := num(t, a, "params"); p != 36327530496 {
		t.Errorf("num_hidden_layers 80 then 40: %.4g parameters, want 40 layers' 36,327,530,496", p)
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
		"zero-stages", "activation-checkpointing", "gradient-accumulation", "overlap", "long-context", "strategy-planner"} {
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

// The long-context lesson's compared configurations are the CLI's too:
// each sequence length of the sweep (--seq), each CP of the split (--cp,
// with the GPUs CP times those of one CP rank), each K/V exchange
// (--cp-algo).
func TestLongContextMatchesCLI(t *testing.T) {
	s, _ := scenarios.Get("long-context")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	set := func(args []string, flag, v string) []string {
		out := slices.Clone(args)
		for i := range out {
			if out[i] == flag && i+1 < len(out) {
				out[i+1] = v
				return out
			}
		}
		return append(out, flag, v)
	}
	checked := 0
	for i, sr := range les.Steps {
		pm := les.Metrics(i + 1).(scenarios.PlanMetrics)
		base := strings.Fields(strings.TrimPrefix(pm.Command, "gpuscope "))
		r := sr.Run.(*scenarios.PlanRun)
		for k, c := range pm.Compare {
			args := base
			switch r.View {
			case scenarios.ViewSeqSweep:
				args = set(args, "--seq", c.Label)
			case scenarios.ViewCPSplit:
				cp, _ := strconv.Atoi(c.Label)
				p := r.Config.Plan
				args = set(set(args, "--cp", c.Label), "--gpus", strconv.Itoa(p.TP*p.PP*p.DP*cp))
				if cp == 1 {
					args = set(args, "--cp-algo", "allgather")
				}
			case scenarios.ViewCPExchange:
				args = set(args, "--cp-algo", c.Label)
			default:
				continue
			}
			out, errOut, code := runCLI(append(args, "--json")...)
			if code != 0 {
				t.Fatalf("step %d compare %d: %v: exit %d: %s", i+1, k, args, code, errOut)
			}
			var cli map[string]any
			if err := json.Unmarshal([]byte(out), &cli); err != nil {
				t.Fatal(err)
			}
			if got, want := num(t, cli, "memory", "total_bytes"), c.Memory.Total; got != want {
				t.Errorf("step %d %s: CLI total_bytes %v, lesson %v", i+1, c.Label, got, want)
			}
			if r.View == scenarios.ViewCPExchange {
				if got, want := num(t, cli, "time", "cp_comm_s"), c.CPCommS; got != want {
					t.Errorf("step %d %s: CLI cp_comm_s %v, lesson %v", i+1, c.Label, got, want)
				}
			}
			checked++
		}
		if r.Config.Plan.CP > 1 {
			out, _, _ := runCLI(append(base, "--json")...)
			var cli map[string]any
			json.Unmarshal([]byte(out), &cli)
			if got, want := num(t, cli, "time", "cp_comm_s"), pm.Time.CPComm; got != want {
				t.Errorf("step %d: CLI cp_comm_s %v, lesson %v", i+1, got, want)
			}
			if got, want := num(t, cli, "tflops_per_gpu"), pm.TFLOPSPerGPU; got != want {
				t.Errorf("step %d: CLI tflops_per_gpu %v, lesson %v", i+1, got, want)
			}
			// The model FLOPs rate the narration compares with Meta's 380.
			rate := num(t, cli, "model_flops_per_step") / num(t, cli, "time", "step_s") / num(t, cli, "gpus") / 1e12
			if want := scenarios.ModelTFLOPS(r.Result); math.Abs(rate-want) > 1e-9*want {
				t.Errorf("step %d: CLI model TFLOP/s %v, lesson %v", i+1, rate, want)
			}
		}
	}
	if checked < 5+5+2 {
		t.Errorf("%d compared configurations checked, want the sweep's, the split's and the exchange's", checked)
	}
}

// A mixture of experts pasted into the planner (Mixtral's config, as the
// paste sets the knobs) is the CLI's too, expert parallelism and all.
func TestPlannerMoEMatchesCLI(t *testing.T) {
	p, errs, err := scenarios.NewPlayerAt("scenario=strategy-planner&gpus=64&model=custom&layers=32&hidden=4096&heads=32&kv_heads=8" +
		"&ffn=14336&vocab=32000&seq=4096&ffn_kind=swiglu&experts=8&top_k=2&expert_ffn=14336")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	les := p.Lesson()
	for i := range les.Steps {
		pm := les.Metrics(i + 1).(scenarios.PlanMetrics)
		out, errOut, code := runCLI(append(strings.Fields(strings.TrimPrefix(pm.Command, "gpuscope ")), "--json")...)
		if code != 0 {
			t.Fatalf("step %d: %s: exit %d: %s", i+1, pm.Command, code, errOut)
		}
		var cli map[string]any
		if err := json.Unmarshal([]byte(out), &cli); err != nil {
			t.Fatal(err)
		}
		for _, f := range [][]string{{"time", "step_s"}, {"time", "ep_comm_s"}, {"memory", "total_bytes"}, {"params"}, {"active_params"}, {"ep"}} {
			var want float64
			switch f[len(f)-1] {
			case "step_s":
				want = pm.Time.Step
			case "ep_comm_s":
				want = pm.Time.EPComm
			case "total_bytes":
				want = pm.Memory.Total
			case "params":
				want = pm.Params
			case "active_params":
				want = pm.ActiveParams
			case "ep":
				want = float64(pm.EP)
			}
			if got := num(t, cli, f...); got != want {
				t.Errorf("step %d: CLI %v %v, lesson %v", i+1, f, got, want)
			}
		}
		if pm.EP < 2 || pm.Time.EPComm <= 0 {
			t.Errorf("step %d: Mixtral on 64 GPUs planned with EP %d", i+1, pm.EP)
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
	s, _ = scenarios.Get("mixture-of-experts")
	les, _ = scenarios.Prepare(s, s.Defaults())
	for i := range les.Steps {
		m := les.Metrics(i + 1).(scenarios.RouteMetrics)
		cli := run(m.Command)
		for _, f := range []struct {
			name string
			page float64
		}{{"active_params", m.ActiveParams}, {"max_load", float64(m.MaxLoad)}, {"dropped", float64(m.Dropped)},
			{"dispatch_bytes", m.DispatchBytes}, {"layer_s", m.LayerS}} {
			if got := num(t, cli, f.name); got != f.page {
				t.Errorf("mixture-of-experts step %d: CLI %s %g, page %g", i+1, f.name, got, f.page)
			}
		}
	}
}

// planSettingsText reads the settings block of gpuscope plan's text
// output: each row's value and where it came from, by name.
func planSettingsText(t *testing.T, out string) map[string][2]string {
	t.Helper()
	_, block, ok := strings.Cut(out, "settings behind these numbers")
	if !ok {
		t.Fatalf("no settings under the plan:\n%s", out)
	}
	rows := map[string][2]string{}
	for _, l := range strings.Split(block, "\n")[1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), 3)
		if len(f) != 3 {
			t.Fatalf("settings row %q: want name, value and source", l)
		}
		rows[f[0]] = [2]string{f[1], f[2]}
	}
	return rows
}

// gpuscope plan says the settings behind its numbers, each marked given
// or default, in text (issue 17: SP, FlashAttention, DP overlap and
// dropout change them by tens of percent and were not said) and in JSON
// (added fields only).
func TestPlanSaysItsSettings(t *testing.T) {
	tests := []struct {
		args []string
		want map[string][2]string // value, source
	}{
		{[]string{"--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8"}, map[string][2]string{
			"GPU":                {"H100 SXM", "default"},
			"sequence parallel":  {"on", "default: on when TP > 1"},
			"FlashAttention":     {"on", "default"},
			"DP overlap":         {"on", "default"},
			"dropout":            {"on", "default: gpt3-175b's"},
			"recomputation":      {"selective", "default"},
			"ZeRO stage":         {"0", "default"},
			"micro-batch":        {"1 sequence", "default"},
			"pipeline schedule":  {"1f1b", "default: 1f1b, interleaved when --interleave > 1"},
			"global batch":       {"1536 sequences", "default: gpt3-175b's batch"},
			"sequence length":    {"2048 tokens", "default: gpt3-175b's"},
			"matrix products in": {"bf16", "default"},
			"model-state bytes":  {"16 a parameter", "default"},
			"GPUs a node":        {"8", "default for the H100 SXM"},
			"inside a node":      {"NVLink 4", "default for the H100 SXM"},
		}},
		{[]string{"--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--sp=false", "--flash=false", "--overlap=false",
			"--recompute", "full", "--global-batch", "512", "--seq", "1024", "--gpu", "a100-80gb", "--interleave", "2"}, map[string][2]string{
			"GPU":               {"A100 80GB", "given"},
			"sequence parallel": {"off", "given"},
			"FlashAttention":    {"off", "given"},
			"DP overlap":        {"off", "given"},
			"dropout":           {"on", "default: gpt3-175b's"},
			"recomputation":     {"full", "given"},
			"pipeline schedule": {"interleaved, v = 2", "default: 1f1b, interleaved when --interleave > 1"},
			"global batch":      {"512 sequences", "given"},
			"sequence length":   {"1024 tokens", "given"},
			"inside a node":     {"NVLink 3", "default for the A100 80GB"},
		}},
		// One GPU: no TP, so no sequence parallelism by default; the
		// global batch worked out.
		{[]string{"--layers", "2", "--hidden", "64", "--heads", "4", "--seq", "8", "--vocab", "10"}, map[string][2]string{
			"sequence parallel": {"off", "default: on when TP > 1"},
			"global batch":      {"4 sequences", "default: DP × micro-batch × 4·PP"},
			"sequence length":   {"8 tokens", "given"},
		}},
		{[]string{"--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--pp", "2", "--global-batch", "64"}, map[string][2]string{
			"global batch": {"64 sequences", "given"},
			"dropout":      {"off", "default: llama2-70b's"},
		}},
		{[]string{"--model", "llama2-70b", "--gpus", "64", "--tp", "8", "--pp", "2", "--dropout", "on"}, map[string][2]string{
			"dropout": {"on", "given"},
		}},
		{[]string{"--search", "--model", "gpt3-xl", "--gpus", "8"}, map[string][2]string{
			"sequence parallel": {"on when TP > 1", "in every plan searched"},
			"DP overlap":        {"on", "in every plan searched"},
			"FlashAttention":    {"on", "default"},
			"dropout":           {"on", "default: gpt3-xl's"},
			"global batch":      {"512 sequences", "default: gpt3-xl's batch"},
		}},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI(append([]string{"plan"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("plan %v: exit %d: %s", tt.args, code, errOut)
		}
		rows := planSettingsText(t, out)
		for name, w := range tt.want {
			if got, ok := rows[name]; !ok || got != w {
				t.Errorf("plan %v: setting %q = %q, want %q", tt.args, name, got, w)
			}
		}
		if slices.Contains(tt.args, "--search") {
			continue
		}
		// The JSON says the same, with the settings it lacked added and
		// every field it had kept.
		m := planJSON(t, tt.args...)
		for field, row := range map[string]string{"sp": "sequence parallel", "flash": "FlashAttention", "overlap": "DP overlap", "dropout": "dropout"} {
			if got, want := m[field], rows[row][0] == "on"; got != want {
				t.Errorf("plan %v --json: %s = %v, the text says %s %s", tt.args, field, got, row, rows[row][0])
			}
		}
		if got := num(t, m, "seq"); fmt.Sprintf("%g tokens", got) != rows["sequence length"][0] {
			t.Errorf("plan %v --json: seq %g, the text says %s", tt.args, got, rows["sequence length"][0])
		}
		var defaulted []string
		for _, d := range m["defaulted"].([]any) {
			defaulted = append(defaulted, d.(string))
		}
		for _, flag := range []string{"sp", "flash", "overlap", "recompute", "global-batch", "seq", "gpu"} {
			given := slices.ContainsFunc(tt.args, func(a string) bool { return a == "--"+flag || strings.HasPrefix(a, "--"+flag+"=") })
			if slices.Contains(defaulted, flag) == given {
				t.Errorf("plan %v --json: defaulted %q; --%s given: %v", tt.args, defaulted, flag, given)
			}
		}
	}
}

// --json adds fields and renames none: every field of the engine's plan
// metrics is still there.
func TestPlanJSONAddsOnly(t *testing.T) {
	m := planJSON(t, "--model", "gpt3-xl", "--gpus", "8")
	b, _ := json.Marshal(parallel.Metrics{})
	var want map[string]any
	json.Unmarshal(b, &want)
	for k := range want {
		if _, ok := m[k]; !ok && k != "memory_per_stage" {
			t.Errorf("plan --json lacks %q", k)
		}
	}
	for _, k := range []string{"overlap", "seq", "dropout", "defaulted"} {
		if _, ok := m[k]; !ok {
			t.Errorf("plan --json lacks the added %q", k)
		}
	}
}

// A mixture of experts is read with its real sizes and planned with
// expert parallelism (Mixtral was once planned as a dense 7.24B), and so
// is DeepSeek-V3 with its latent attention.
func TestPlanMoE(t *testing.T) {
	// DeepSeek-V3 as it was trained: PP 16 (61 layers and the
	// multi-token-prediction module, the embedding and the head counted
	// as layers: 64 = 16 × 4), EP 64, ZeRO-1, no TP, on 2,048 H800s.
	out, errOut, code := runCLI("plan", "--model", "deepseek-v3", "--gpus", "2048", "--gpu", "h800", "--pp", "16", "--ep", "64", "--zero", "1",
		"--recompute", "none", "--global-batch", "15360", "--dtype", "fp8", "--json")
	if code != 0 {
		t.Fatalf("deepseek-v3: exit %d, %s", code, errOut)
	}
	var ds map[string]any
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatal(err)
	}
	if ds["ep"] != 64.0 || ds["intra"] != "nvlink4-h800" || !(num(t, ds, "time", "ep_comm_s") > 0) {
		t.Errorf("deepseek-v3: ep %v, intra %v, time %v", ds["ep"], ds["intra"], ds["time"])
	}
	out, errOut, code = runCLI("plan", "--hf-config", "../../engine/model/testdata/hf/mixtral-8x7b.json", "--seq", "4096", "--gpus", "64", "--ep", "8", "--zero", "1", "--json")
	if code != 0 {
		t.Fatalf("mixtral: exit %d, %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if p, a := m["params"].(float64), m["active_params"].(float64); math.Abs(p-46.7e9)/46.7e9 > 0.01 || math.Abs(a-12.9e9)/12.9e9 > 0.01 || m["ep"] != 8.0 || m["capacity_factor"] != 1.0 {
		t.Errorf("mixtral: params %v, active %v, ep %v, capacity factor %v", m["params"], m["active_params"], m["ep"], m["capacity_factor"])
	}
	if tm, _ := m["time"].(map[string]any); tm == nil || !(tm["ep_comm_s"].(float64) > 0) {
		t.Errorf("mixtral with EP 8: time %v, want an ep_comm_s", m["time"])
	}
	_, errOut, code = runCLI("plan", "--model", "mixtral-8x7b", "--gpus", "64", "--ep", "3")
	if code != 2 || !strings.Contains(errOut, "ep: 3 does not divide the 8 experts") {
		t.Errorf("--ep 3: exit %d, %q", code, errOut)
	}
	out, _, code = runCLI("plan", "--model", "mixtral-8x7b", "--seq", "4096", "--gpus", "64", "--search", "--top", "3")
	if code != 0 || !strings.Contains(out, "  ep ") {
		t.Errorf("mixtral --search: exit %d, want an ep column:\n%s", code, out)
	}
}

// Context parallelism from the command line: --cp and --cp-algo set the
// plan, the JSON carries cp, cp_algo and time.cp_comm_s (the engine's
// numbers), the text names CP in the plan's line and its time; plans
// that do not add up are refused with the constraint named.
func TestPlanContextParallel(t *testing.T) {
	args := []string{"--model", "llama3-405b", "--seq", "131072", "--gpus", "16384", "--tp", "8", "--cp", "16", "--pp", "16",
		"--interleave", "4", "--zero", "1", "--recompute", "full", "--global-batch", "128"}
	m := planJSON(t, args...)
	mod, _ := model.Preset("llama3-405b")
	mod.Seq = 131072
	h100, _ := hw.GPUByID("h100")
	cl := parallel.DefaultCluster(h100, 16384)
	cl.GPUVariation = parallel.FieldGPUVariation // the CLI's default
	r, err := parallel.Evaluate(parallel.Config{Model: mod, Cluster: cl, Plan: parallel.Plan{TP: 8, CP: 16, PP: 16, DP: 8,
		Interleave: 4, SP: true, ZeRO: 1, Recompute: parallel.RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 128,
		Schedule: parallel.Interleaved, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}})
	if err != nil {
		t.Fatal(err)
	}
	if m["cp"] != 16.0 || m["cp_algo"] != "allgather" || m["dp"] != 8.0 || num(t, m, "time", "cp_comm_s") != r.Time.CPComm || !(r.Time.CPComm > 0) ||
		num(t, m, "time", "step_s") != r.Time.Step {
		t.Errorf("cp %v, cp_algo %v, dp %v, cp_comm_s %v (engine %v), step_s %v (engine %v)", m["cp"], m["cp_algo"], m["dp"], m["time"].(map[string]any)["cp_comm_s"], r.Time.CPComm, num(t, m, "time", "step_s"), r.Time.Step)
	}
	ring := planJSON(t, append(args, "--cp-algo", "ring")...)
	if ring["cp_algo"] != "ring" || !(num(t, ring, "time", "cp_comm_s") < num(t, m, "time", "cp_comm_s")) {
		t.Errorf("ring: cp_algo %v, cp_comm_s %v; want under the all-gather's %v", ring["cp_algo"], ring["time"].(map[string]any)["cp_comm_s"], m["time"].(map[string]any)["cp_comm_s"])
	}
	if plain := planJSON(t, "--model", "gpt3-xl", "--gpus", "8"); plain["cp"] != 1.0 || num(t, plain, "time", "cp_comm_s") != 0 {
		t.Errorf("no CP: cp %v, time %v", plain["cp"], plain["time"])
	}
	out, errOut, code := runCLI(append([]string{"plan"}, args...)...)
	if code != 0 || !strings.Contains(out, "TP 8 × CP 16 × PP 16 × DP 8") || !strings.Contains(out, "cp_comm_s") || !strings.Contains(out, "context parallel") {
		t.Errorf("text: exit %d %s\n%s", code, errOut, out)
	}
	// --search tries CP: at 131,072 tokens its best plan splits the
	// sequence, and the table has a cp column.
	sr := planJSON(t, "--search", "--model", "llama3-405b", "--seq", "131072", "--gpus", "16384", "--global-batch", "128", "--top", "3")
	if plans, _ := sr["plans"].([]any); len(plans) == 0 || !(plans[0].(map[string]any)["cp"].(float64) > 1) {
		t.Errorf("131K search: plans %v, want the best with cp > 1", sr["plans"])
	}
	if out, _, code := runCLI("plan", "--search", "--model", "llama3-405b", "--seq", "131072", "--gpus", "16384", "--global-batch", "128", "--top", "3"); code != 0 || !strings.Contains(out, "  cp ") {
		t.Errorf("131K search: exit %d, want a cp column:\n%s", code, out)
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--model", "llama3-405b", "--gpus", "64", "--tp", "8", "--cp", "2", "--cp-algo", "tree"}, []string{"--cp-algo", "allgather, ring"}},
		{[]string{"plan", "--model", "llama3-405b", "--gpus", "24", "--tp", "8", "--cp", "3"}, []string{"seq: 8192 not divisible by 2·cp = 6"}},
		{[]string{"plan", "--model", "llama3-405b", "--gpus", "64", "--tp", "8", "--cp", "3"}, []string{"--gpus", "tp × cp × pp = 8 × 3 × 1"}},
		{[]string{"plan", "--model", "llama3-405b", "--gpus", "64", "--tp", "8", "--cp", "2", "--dp", "2"}, []string{"tp × cp × pp × dp: 8 × 2 × 1 × 2 = 32; must equal gpus 64"}},
		{[]string{"plan", "--model", "llama3-405b", "--cp", "0"}, []string{"--cp", "1–65536"}},
	})
}

// DeepSeek-V3's expert-parallel mechanisms from the command line: each
// flag reaches the plan (JSON fields, the settings listed), lowers the
// exposed all-to-alls, and is refused out of range with the field named.
func TestPlanDeepSeekMechanisms(t *testing.T) {
	base := []string{"plan", "--model", "deepseek-v3", "--gpus", "2048", "--gpu", "h800", "--pp", "16", "--ep", "64", "--zero", "1",
		"--global-batch", "15360", "--dtype", "fp8", "--json"}
	plan := func(extra ...string) map[string]any {
		t.Helper()
		return jsonCLI(t, append(slices.Clone(base), extra...)...)
	}
	plain := plan()
	limited := plan("--node-limit", "4", "--dispatch-dtype", "fp8")
	paired := plan("--node-limit", "4", "--dispatch-dtype", "fp8", "--ep-overlap")
	if _, ok := plain["node_limit"]; ok || plain["ep_overlap"] != nil {
		t.Errorf("a plan without the mechanisms reports them: %v, %v", plain["node_limit"], plain["ep_overlap"])
	}
	if limited["node_limit"] != 4.0 || limited["dispatch_dtype"] != "fp8" || paired["ep_overlap"] != true || paired["comm_sms"] != 20.0 {
		t.Errorf("node_limit %v, dispatch_dtype %v, ep_overlap %v, comm_sms %v", limited["node_limit"], limited["dispatch_dtype"], paired["ep_overlap"], paired["comm_sms"])
	}
	a, b, c := num(t, plain, "time", "ep_comm_s"), num(t, limited, "time", "ep_comm_s"), num(t, paired, "time", "ep_comm_s")
	if !(b < a/2 && c < b/4) || !(num(t, paired, "time", "ep_hidden_s") > 0) {
		t.Errorf("ep_comm_s: %.3g unlimited, %.3g node-limited in FP8, %.3g paired; want each well below the last", a, b, c)
	}
	// The SMs reserved for the all-to-alls slow the compute beside them.
	if d := plan("--node-limit", "4", "--dispatch-dtype", "fp8", "--ep-overlap", "--comm-sms", "0"); !(num(t, d, "time", "compute_s") < num(t, paired, "time", "compute_s")) {
		t.Errorf("--comm-sms 0: compute %.4g s, 20 SMs %.4g s", num(t, d, "time", "compute_s"), num(t, paired, "time", "compute_s"))
	}
	if e := plan("--node-limit", "4", "--dispatch-dtype", "fp8", "--ep-overlap", "--block-scaled"); e["block_scaled"] != true || !(num(t, e, "time", "compute_s") > num(t, paired, "time", "compute_s")) {
		t.Errorf("--block-scaled: block_scaled %v, compute %v s (without %v s)", e["block_scaled"], num(t, e, "time", "compute_s"), num(t, paired, "time", "compute_s"))
	}
	if d := plan("--node-limit", "4", "--dispatch-dtype", "fp8", "--ep-overlap", "--block-scaled", "--schedule", "dualpipe"); d["schedule"] != "dualpipe" || !(num(t, d, "time", "bubble_s") < num(t, paired, "time", "bubble_s")) {
		t.Errorf("--schedule dualpipe: schedule %v, bubble %v s (1F1B %v s)", d["schedule"], num(t, d, "time", "bubble_s"), num(t, paired, "time", "bubble_s"))
	}
	out, _, _ := runCLI(slices.DeleteFunc(append(slices.Clone(base), "--node-limit", "4", "--ep-overlap"), func(s string) bool { return s == "--json" })...)
	for _, s := range []string{"nodes a token", "all-to-all overlap", "SMs for all-to-alls  20", "ep_hidden_s"} {
		if !strings.Contains(out, s) {
			t.Errorf("the text output lacks %q:\n%s", s, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dispatch-dtype", "fp16"}, "--dispatch-dtype"},
		{[]string{"--comm-sms", "20"}, "comm-sms: 20 needs --ep-overlap"},
		{[]string{"--ep-overlap", "--comm-sms", "132"}, "comm-sms: 132; allowed 0–131"},
		{[]string{"--node-limit", "-1"}, "--node-limit"},
		{[]string{"--block-scaled", "--dtype", "bf16"}, "block-scaled: needs --dtype fp8 (dtype is bf16)"},
		{[]string{"--schedule", "dualpipe", "--global-batch", "3840"}, "micro-batches: 30 must be even and at least 2 × pp = 32 for the dualpipe schedule"},
		{[]string{"--fp8-cache"}, "fp8-cache: needs --block-scaled"},
		{[]string{"--recompute-modules", "layernorm,attn"}, `recompute-modules: "attn"; allowed a comma-separated list of core_attn, layernorm, mla_up_proj, moe_act`},
		{[]string{"--recompute", "full", "--recompute-modules", "layernorm"}, "recompute-modules: layernorm needs --recompute selective (recompute is full)"},
		{[]string{"--recompute-modules"}, "--recompute-modules: missing value"},
	} {
		_, errOut, code := runCLI(append(slices.Clone(base), c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}

// DeepSeek-V3's memory savings from the command line: the products'
// inputs kept in FP8 and the norms, up projections and SwiGLUs
// recomputed make its DualPipe plan fit, each reported in the JSON and
// the settings; Megatron's selective recomputation (the attention core)
// does not fit.
func TestPlanDeepSeekMemory(t *testing.T) {
	base := []string{"plan", "--model", "deepseek-v3", "--gpus", "2048", "--gpu", "h800", "--pp", "16", "--ep", "64", "--zero", "1",
		"--global-batch", "15360", "--dtype", "fp8", "--block-scaled", "--node-limit", "4", "--dispatch-dtype", "fp8", "--ep-overlap",
		"--schedule", "dualpipe", "--recompute", "selective"}
	plain := jsonCLI(t, append(slices.Clone(base), "--json")...)
	ran := jsonCLI(t, append(slices.Clone(base), "--fp8-cache", "--recompute-modules", "layernorm,mla_up_proj,moe_act", "--json")...)
	if plain["memory"].(map[string]any)["fits"] != false || ran["memory"].(map[string]any)["fits"] != true {
		t.Errorf("fits: %v without DeepSeek's savings, %v with; want false, true", plain["memory"].(map[string]any)["fits"], ran["memory"].(map[string]any)["fits"])
	}
	if ran["recompute_modules"] != "layernorm,mla_up_proj,moe_act" || ran["fp8_cache"] != true || plain["recompute_modules"] != nil || plain["fp8_cache"] != nil {
		t.Errorf("recompute_modules %v, fp8_cache %v (plain: %v, %v)", ran["recompute_modules"], ran["fp8_cache"], plain["recompute_modules"], plain["fp8_cache"])
	}
	out, errOut, code := runCLI(append(slices.Clone(base), "--fp8-cache", "--recompute-modules=layernorm,mla_up_proj,moe_act")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	rows := planSettingsText(t, out)
	if rows["recomputed modules"] != [2]string{"layernorm,mla_up_proj,moe_act", "given"} || rows["FP8 activations"] != [2]string{"on", "given"} {
		t.Errorf("settings: %q, %q", rows["recomputed modules"], rows["FP8 activations"])
	}
}

// --gpu gb300 plans on GB300 NVL72 racks as gb200 on GB200's: 72 GPUs a
// node on NVLink 5; --gpu b300 on HGX nodes of 8. The step's compute is
// Blackwell Ultra's: GB300's dense BF16 is 360 PFLOP/s sparse ÷ 72 ÷ 2 =
// 2.5 PFLOP/s, the GB200's, so the same plan takes the same step on both
// racks; the B300's 2.25 is the B200's.
func TestPlanBlackwellUltra(t *testing.T) {
	args := []string{"--model", "llama3-405b", "--gpus", "576", "--tp", "16", "--pp", "9"}
	gb3 := planJSON(t, append(args, "--gpu", "gb300")...)
	if n := num(t, gb3, "gpus_per_node"); n != 72 {
		t.Errorf("gb300: %g GPUs a node, want 72", n)
	}
	if l := gb3["intra"]; l != "nvlink5" {
		t.Errorf("gb300: intra %v, want nvlink5", l)
	}
	gb2 := planJSON(t, append(args, "--gpu", "gb200")...)
	if a, b := num(t, gb3, "time", "step_s"), num(t, gb2, "time", "step_s"); a != b {
		t.Errorf("gb300 step %g s, gb200 %g s; want the same (same BF16 peak, HBM bandwidth and links)", a, b)
	}
	// The memory the plan holds against: 288 GB a GPU (the label; GB200's
	// 186 GB).
	if c := num(t, gb3, "memory", "capacity_bytes"); c != 288e9 {
		t.Errorf("gb300: capacity %g bytes, want 288e9", c)
	}
	b3 := planJSON(t, append(args, "--gpu", "b300")...)
	if n := num(t, b3, "gpus_per_node"); n != 8 || b3["intra"] != "nvlink5" {
		t.Errorf("b300: %g GPUs a node on %v, want 8 on nvlink5", n, b3["intra"])
	}
	b2 := planJSON(t, append(args, "--gpu", "b200")...)
	if a, b := num(t, b3, "time", "step_s"), num(t, b2, "time", "step_s"); a != b {
		t.Errorf("b300 step %g s, b200 %g s; want the same", a, b)
	}
	// nvidia-smi's 275,040 MiB as reported for a B300 SXM6 AC.
	if c := num(t, b3, "memory", "capacity_bytes"); c != 275040<<20 {
		t.Errorf("b300: capacity %g bytes, want 275,040 MiB", c)
	}
}

// --gpu gb200 plans on GB200 NVL72 racks: 72 GPUs a node on NVLink 5
// unless --gpus-per-node says otherwise; a TP group of 16 stays inside
// the rack, where on H100 nodes of 8 it crosses InfiniBand.
func TestPlanGB200(t *testing.T) {
	args := []string{"--model", "llama3-405b", "--gpus", "576", "--tp", "16", "--pp", "9"}
	gb := planJSON(t, append(args, "--gpu", "gb200")...)
	if n := num(t, gb, "gpus_per_node"); n != 72 {
		t.Errorf("gb200: %g GPUs a node, want 72", n)
	}
	if l := gb["intra"]; l != "nvlink5" {
		t.Errorf("gb200: intra %v, want nvlink5", l)
	}
	eight := planJSON(t, append(args, "--gpu", "gb200", "--gpus-per-node", "8")...)
	if n := num(t, eight, "gpus_per_node"); n != 8 {
		t.Errorf("gb200 --gpus-per-node 8: %g GPUs a node", n)
	}
	// The same TP 16 all-reduces of S = b·s·h·2 = 256 MiB, by hand: in the
	// rack a ring on NVLink 5 (738 GB/s at its efficiency),
	// 2·15·(1 + 22.73) µs = 711.9 µs; over nodes of 8, NVLink 5 inside
	// and NDR (45 GB/s) across, 2·7·(1 + 45.46) + 2·(5 + 372.8) µs =
	// 1406 µs: 1.975×.
	S := 8192.0 * 16384 * 2
	rack := 2 * 15 * (1e-6 + S/(16*738e9))
	nodes := 2*7*(1e-6+S/(8*738e9)) + 2*(5e-6+S/8/(2*45e9))
	if in, out := num(t, gb, "time", "tp_comm_s"), num(t, eight, "time", "tp_comm_s"); math.Abs(out/in-nodes/rack) > 1e-6 {
		t.Errorf("TP 16 comm %g s in a rack, %g s across nodes of 8: %.4f×; want %.4f×", in, out, out/in, nodes/rack)
	}
}

// The planner searching context parallelism too (search_cp=on): for
// Llama 3 405B on 16,384 H100s it ranks CP plans (the CLI's --search
// does), labels them, and each rank's command prints the same numbers.
func TestPlannerCPMatchesCLI(t *testing.T) {
	frag := "scenario=strategy-planner&step=2&model=llama3-405b&gpus=16384&global_batch=2048"
	withCP, errs, err := scenarios.NewPlayerAt(frag + "&search_cp=on")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	plain, _, _ := scenarios.NewPlayerAt(frag)
	sr := withCP.Lesson().Steps[1].Run.(*scenarios.PlanRun).Search
	sp := plain.Lesson().Steps[1].Run.(*scenarios.PlanRun).Search
	rank := 0
	for i, r := range sr.Plans {
		if r.Config.Plan.CP > 1 {
			rank = i + 1
			break
		}
	}
	for _, r := range sp.Plans {
		if r.Config.Plan.CP > 1 {
			t.Fatalf("search_cp=off lists a CP plan: %+v", r.Config.Plan)
		}
	}
	if rank == 0 || rank > 20 || !(sr.Plans[0].Time.Step < sp.Plans[0].Time.Step) {
		t.Fatalf("search_cp=on: first CP plan at rank %d; best %.3g s against %.3g s without CP", rank, sr.Plans[0].Time.Step, sp.Plans[0].Time.Step)
	}
	p, errs, err := scenarios.NewPlayerAt(frag + "&search_cp=on&rank=" + strconv.Itoa(rank))
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	pm := p.Lesson().Metrics(3).(scenarios.PlanMetrics)
	if pm.CP < 2 || !strings.Contains(pm.Command, "--cp ") {
		t.Fatalf("rank %d: cp %d, command %s", rank, pm.CP, pm.Command)
	}
	cli := jsonCLI(t, append(strings.Fields(strings.TrimPrefix(pm.Command, "gpuscope ")), "--json")...)
	if got := num(t, cli, "time", "step_s"); got != pm.Time.Step || num(t, cli, "time", "cp_comm_s") != pm.Time.CPComm {
		t.Errorf("rank %d: CLI step %v s, cp %v s; the lesson %v, %v", rank, got, num(t, cli, "time", "cp_comm_s"), pm.Time.Step, pm.Time.CPComm)
	}
}

// Latent attention from sizes: DeepSeek-V3's by flags plan as its preset
// and its config.json do (less the router's bias a routed expert, which
// neither flags nor the sandbox's knobs carry: 256 × 58 = 14,848
// parameters, 2·10⁻⁸ of them); a bad size is refused naming its flag.
func TestPlanMLAFromSizes(t *testing.T) {
	plan := []string{"--gpus", "2048", "--gpu", "h800", "--pp", "16", "--ep", "64", "--zero", "1", "--recompute", "none", "--global-batch", "15360"}
	sizes := []string{"--layers", "61", "--hidden", "7168", "--heads", "128", "--kv-heads", "128", "--seq", "4096", "--vocab", "129280",
		"--ffn", "18432", "--ffn-kind", "swiglu", "--experts", "256", "--top-k", "8", "--expert-ffn", "2048", "--shared-ffn", "2048", "--dense-layers", "3",
		"--q-lora-rank", "1536", "--kv-lora-rank", "512", "--qk-nope-head-dim", "128", "--qk-rope-head-dim", "64", "--v-head-dim", "128", "--mtp-layers", "1"}
	flags := planJSON(t, append(sizes, plan...)...)
	preset := planJSON(t, append([]string{"--model", "deepseek-v3"}, plan...)...)
	hf := planJSON(t, append([]string{"--hf-config", "../../engine/model/testdata/hf/deepseek-v3.json", "--seq", "4096"}, plan...)...)
	for _, path := range [][]string{{"params"}, {"active_params"}, {"time", "step_s"}, {"time", "compute_s"}, {"memory", "total_bytes"}, {"memory", "activations_bytes"}, {"time", "ep_comm_s"}} {
		f := num(t, flags, path...)
		for name, other := range map[string]map[string]any{"--model deepseek-v3": preset, "--hf-config": hf} {
			if o := num(t, other, path...); math.Abs(f-o) > 1e-6*math.Abs(o) {
				t.Errorf("%v: %g by flags, %g with %s", path, f, o, name)
			}
		}
	}
	if p := num(t, flags, "params"); math.Abs(p-671e9)/671e9 > 0.01 {
		t.Errorf("DeepSeek-V3 by flags: %g parameters, want ≈ 671B", p)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kv-lora-rank", "512"}, "qk-nope-head-dim, qk-rope-head-dim, v-head-dim: 0, 0, 0; each must be positive with kv-lora-rank"},
		{[]string{"--q-lora-rank", "64"}, "latent attention needs a positive kv-lora-rank"},
		{[]string{"--kv-lora-rank", "-1"}, "--kv-lora-rank"},
		{[]string{"--mtp-layers", "5"}, "mtp-layers: 5; allowed 0–4"},
	} {
		args := append([]string{"plan", "--layers", "4", "--hidden", "256", "--heads", "4", "--seq", "128", "--vocab", "1000"}, c.args...)
		if _, errOut, code := runCLI(args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// DeepSeek-V3's config.json pasted into the sandbox: the CLI line the
// page shows, latent attention's flags with it, prints the page's numbers.
func TestSandboxMLAPasteMatchesCLI(t *testing.T) {
	p, errs, err := scenarios.NewPlayerAt("scenario=sandbox&gpu=h800&gpus=2048&tp=1&pp=16&zero=1&recompute=none&global_batch=15360")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	ds, err := os.ReadFile("../../engine/model/testdata/hf/deepseek-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := p.HFConfig(string(ds)); e != nil {
		t.Fatalf("DeepSeek-V3 pasted: %v", e)
	}
	if e := p.Set("ep", "64"); e != nil {
		t.Fatal(e)
	}
	pm := p.Lesson().Metrics(1).(scenarios.PlanMetrics)
	if !strings.Contains(pm.Command, "--kv-lora-rank 512") {
		t.Fatalf("command %s", pm.Command)
	}
	cli := planJSON(t, strings.Fields(strings.TrimPrefix(pm.Command, "gpuscope plan "))...)
	for _, c := range []struct {
		path []string
		want float64
	}{{[]string{"params"}, pm.Params}, {[]string{"active_params"}, pm.ActiveParams}, {[]string{"time", "step_s"}, pm.Time.Step},
		{[]string{"memory", "total_bytes"}, pm.Memory.Total}} {
		if got := num(t, cli, c.path...); got != c.want {
			t.Errorf("%v: CLI %v, page %v (%s)", c.path, got, c.want, pm.Command)
		}
	}
}

// --fused-swiglu: Llama 3's 8K plan on 8,192 GPUs fits with SwiGLU fused
// (its product written again in the backward) and not unfused; the JSON
// and the settings say which ran, the search passes it to every plan,
// and a GeLU model is refused naming the flag.
func TestPlanFusedSwiGLU(t *testing.T) {
	base := []string{"plan", "--software", "current", "--model", "llama3-405b", "--gpus", "8192", "--tp", "8", "--pp", "16", "--interleave", "8",
		"--zero", "2", "--recompute", "none", "--bytes-per-param", "18", "--global-batch", "2048"}
	plain := jsonCLI(t, append(slices.Clone(base), "--json")...)
	fused := jsonCLI(t, append(slices.Clone(base), "--fused-swiglu", "--json")...)
	if plain["memory"].(map[string]any)["fits"] != false || fused["memory"].(map[string]any)["fits"] != true {
		t.Errorf("fits: %v unfused, %v fused; want false, true", plain["memory"].(map[string]any)["fits"], fused["memory"].(map[string]any)["fits"])
	}
	if fused["fused_swiglu"] != true || plain["fused_swiglu"] != nil {
		t.Errorf("fused_swiglu: %v fused, %v unfused", fused["fused_swiglu"], plain["fused_swiglu"])
	}
	for _, c := range []struct {
		args []string
		want [2]string
	}{
		{nil, [2]string{"unfused: keeps gate, up and their product", "default"}},
		{[]string{"--fused-swiglu"}, [2]string{"fused: keeps gate and up", "given"}},
		{[]string{"--fused-swiglu", "--search", "--top", "3"}, [2]string{"fused: keeps gate and up", "given"}},
	} {
		out, errOut, code := runCLI(append(slices.Clone(base), c.args...)...)
		if code != 0 {
			t.Fatalf("%v: %s", c.args, errOut)
		}
		if got := planSettingsText(t, out)["SwiGLU kernel"]; got != c.want {
			t.Errorf("%v: SwiGLU kernel %q, want %q", c.args, got, c.want)
		}
	}
	searched := jsonCLI(t, "plan", "--model", "llama2-70b", "--gpus", "64", "--fused-swiglu", "--search", "--top", "3", "--json")
	for _, p := range searched["plans"].([]any) {
		if p.(map[string]any)["fused_swiglu"] != true {
			t.Errorf("a searched plan without the fused SwiGLU: %v", p)
		}
	}
	out, errOut, code := runCLI("plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8", "--fused-swiglu")
	if code != 2 || !strings.Contains(errOut, "fused-swiglu: needs a SwiGLU feed-forward block; gpt3-175b's is gelu") {
		t.Errorf("gpt3-175b --fused-swiglu: exit %d, %q %q", code, errOut, out)
	}
	if out, _, _ := runCLI("plan", "--model", "gpt3-175b", "--gpus", "512", "--tp", "8", "--pp", "8"); strings.Contains(out, "SwiGLU kernel") {
		t.Errorf("a GeLU model's settings name a SwiGLU kernel:\n%s", out)
	}
}

// The GPUs of published runs from the command line: plan --gpu names
// each, with its default links; a 40 GB A100 holds what parallel.Usable
// gives of its 40,960 MiB, so GPT-3 XL at micro-batch 8 (51.8 GB a GPU)
// fits an A100 80GB and not a 40GB; the roofline prints each datasheet's
// dense peak.
func TestPlanPublishedRunGPUs(t *testing.T) {
	args := []string{"--model", "gpt3-xl", "--gpus", "8", "--micro-batch", "8", "--global-batch", "512"}
	for _, c := range []struct{ gpu, intra, inter string }{
		{"a100-40gb", "nvlink3", "ib-hdr"}, {"a800", "nvlink3-a800", "ib-hdr"},
		{"h100-pcie", "pcie5", "ib-ndr"}, {"h100-nvl", "pcie5", "ib-ndr"},
		{"h20", "nvlink4", "ib-ndr"}, {"gh200", "nvlink4", "ib-ndr"},
	} {
		m := planJSON(t, append(args, "--gpu", c.gpu)...)
		if m["gpu"] != c.gpu || m["intra"] != c.intra || m["inter"] != c.inter || num(t, m, "gpus_per_node") != 8 {
			t.Errorf("plan --gpu %s: gpu %v, intra %v, inter %v, %v a node; want %s, %s, 8", c.gpu, m["gpu"], m["intra"], m["inter"], m["gpus_per_node"], c.intra, c.inter)
		}
	}
	forty := planJSON(t, append(args, "--gpu", "a100-40gb")...)
	eighty := planJSON(t, append(args, "--gpu", "a100-80gb")...)
	capacity, usable := num(t, forty, "memory", "capacity_bytes"), num(t, forty, "memory", "usable_bytes")
	if capacity != 40960<<20 || usable != parallel.Usable(capacity) || math.Abs(usable-38.802e9) > 1e6 {
		t.Errorf("a100-40gb: capacity %g, usable %g; want 40,960 MiB and Usable's 38.80 GB", capacity, usable)
	}
	total := num(t, forty, "memory", "total_bytes")
	if forty["fits"] != false || eighty["fits"] != true || total != num(t, eighty, "memory", "total_bytes") || total <= usable {
		t.Errorf("GPT-3 XL at micro-batch 8: %g bytes a GPU fits a100-40gb %v, a100-80gb %v; want the same bytes, over 40GB's %g, under 80GB's", total, forty["fits"], eighty["fits"], usable)
	}
	for _, c := range []struct {
		gpu, dtype string
		peak, hbm  float64 // TFLOP/s dense, TB/s
	}{
		{"a100-40gb", "bf16", 312, 1.555}, {"a800", "bf16", 312, 2.039},
		{"h100-pcie", "bf16", 756.4, 2.0}, {"h100-pcie", "fp8", 1512.9, 2.0},
		{"h100-nvl", "bf16", 835.5, 3.9}, {"h100-nvl", "fp8", 1670.5, 3.9},
		{"h20", "bf16", 148, 4.0}, {"h20", "fp8", 296, 4.0},
		{"gh200", "bf16", 989.4, 4.0},
	} {
		out, errOut, code := runCLI("roofline", "--gpu", c.gpu, "--dtype", c.dtype, "--json")
		var m map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
			t.Fatalf("roofline --gpu %s --dtype %s: exit %d %s", c.gpu, c.dtype, code, errOut)
		}
		if peak, hbm := num(t, m, "peak_tflops"), num(t, m, "hbm_TBps"); math.Abs(peak-c.peak) > 0.05 || hbm != c.hbm {
			t.Errorf("roofline --gpu %s --dtype %s: %g TFLOP/s, %g TB/s; want %g, %g", c.gpu, c.dtype, peak, hbm, c.peak, c.hbm)
		}
	}
	if _, errOut, code := runCLI("roofline", "--gpu", "a800", "--dtype", "fp8"); code != 2 || !strings.Contains(errOut, "fp32, tf32, fp16, bf16") {
		t.Errorf("a800 fp8: exit %d, %q; want 2 naming Ampere's dtypes", code, errOut)
	}
	help, _, _ := runCLI("plan", "--help")
	help = strings.Join(strings.Fields(help), " ")
	for _, s := range []string{"nvlink3-a800 for a800", "pcie5 for h100-pcie and h100-nvl", "ib-hdr for the Ampere GPUs (a100-80gb, a100-40gb, a800)", "gh200"} {
		if !strings.Contains(help, s) {
			t.Errorf("plan --help does not say %q", s)
		}
	}
}

// --gpu-variation: by default the field's spread, the step waiting for
// the slowest GPU (straggler_s, the only time that changes); 0 takes the
// GPUs alike; out of range refused by name.
func TestPlanGPUVariation(t *testing.T) {
	args := []string{"--model", "llama3-70b", "--gpus", "1024", "--tp", "8", "--pp", "4", "--global-batch", "1024"}
	field := planJSON(t, args...)
	alike := planJSON(t, append(args, "--gpu-variation", "0")...)
	tf, ta := field["time"].(map[string]any), alike["time"].(map[string]any)
	wait := num(t, field, "time", "straggler_s")
	if ta["straggler_s"] != 0.0 || !(wait > 0) {
		t.Fatalf("straggler_s %v by default, %v with 0; want > 0 and 0", tf["straggler_s"], ta["straggler_s"])
	}
	want := (num(t, alike, "time", "compute_s") + num(t, alike, "time", "bubble_s")) * parallel.StragglerFactor(1024, parallel.FieldGPUVariation)
	if math.Abs(wait-want) > 1e-12*want || math.Abs(num(t, field, "time", "step_s")-num(t, alike, "time", "step_s")-wait) > 1e-9 {
		t.Errorf("straggler_s %v, want (compute + bubble) × factor = %v; steps %v and %v", wait, want, tf["step_s"], ta["step_s"])
	}
	for k, v := range ta {
		if k != "straggler_s" && k != "step_s" && tf[k] != v {
			t.Errorf("time.%s: %v with the spread, %v without; only the wait should differ", k, tf[k], v)
		}
	}
	out, _, code := runCLI(append([]string{"plan"}, args...)...)
	if code != 0 || !strings.Contains(out, "straggler_s") || !strings.Contains(out, "GPU speed spread    0.015 σ") {
		t.Errorf("text: exit %d, want straggler_s and the spread's setting:\n%s", code, out)
	}
	checkRefusals(t, []refusal{
		{append([]string{"plan"}, append(args, "--gpu-variation", "0.2")...), []string{"--gpu-variation", "0.2", "0–0.1"}},
		{append([]string{"plan"}, append(args, "--gpu-variation", "-1")...), []string{"--gpu-variation"}},
	})
}

// --tp-overlap: the JSON says it, TP's exposed time falls; refused
// without TP and with --search, by name.
func TestPlanTPOverlap(t *testing.T) {
	args := []string{"--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "4", "--global-batch", "64"}
	off := planJSON(t, args...)
	on := planJSON(t, append(args, "--tp-overlap")...)
	if on["tp_overlap"] != true || off["tp_overlap"] != false || !(num(t, on, "time", "tp_comm_s") < num(t, off, "time", "tp_comm_s")) {
		t.Errorf("tp_overlap %v/%v, tp_comm_s %v with, %v without", on["tp_overlap"], off["tp_overlap"], num(t, on, "time", "tp_comm_s"), num(t, off, "time", "tp_comm_s"))
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--model", "llama3-70b", "--gpus", "64", "--tp", "1", "--pp", "4", "--global-batch", "64", "--tp-overlap"}, []string{"tp-overlap", "sequence parallelism"}},
		{[]string{"plan", "--model", "llama3-70b", "--gpus", "64", "--search", "--tp-overlap"}, []string{"--tp-overlap", "not with --search"}},
	})
}

func TestPlanEager(t *testing.T) {
	args := []string{"--model", "llama3-8b", "--gpus", "8", "--zero", "3", "--micro-batch", "2", "--global-batch", "16"}
	off := planJSON(t, args...)
	on := planJSON(t, append(args, "--eager")...)
	if on["eager"] != true || off["eager"] != nil || !(num(t, on, "time", "compute_s") > num(t, off, "time", "compute_s")) {
		t.Errorf("eager %v/%v, compute_s %v with, %v without", on["eager"], off["eager"], num(t, on, "time", "compute_s"), num(t, off, "time", "compute_s"))
	}
	// The search runs every plan eager too, and says so in its settings.
	out, _, code := runCLI("plan", "--model", "llama3-8b", "--gpus", "8", "--search", "--top", "1", "--eager")
	if code != 0 || !strings.Contains(out, "eager: an operation a kernel") {
		t.Errorf("--search --eager: exit %d, settings without the eager row:\n%s", code, out)
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--model", "mixtral-8x7b", "--gpus", "64", "--eager"}, []string{"eager", "dense"}},
		{[]string{"plan", "--model", "llama3-8b", "--gpus", "8", "--eager", "--fused-swiglu"}, []string{"eager", "fused-swiglu"}},
	})
}

// --zero-fetch blocking: the JSON says it, nothing of ZeRO-3's traffic
// hides and the step grows; refused without ZeRO-3, for a mixture of
// experts and with --search, by name.
func TestPlanZeROFetch(t *testing.T) {
	args := []string{"--model", "gpt3-175b", "--gpus", "384", "--gpu", "a100-80gb", "--zero", "3", "--micro-batch", "4", "--global-batch", "1536", "--overlap"}
	pre := planJSON(t, args...)
	blk := planJSON(t, append(args, "--zero-fetch", "blocking")...)
	if blk["zero_fetch"] != "blocking" || pre["zero_fetch"] != nil {
		t.Errorf("zero_fetch %v with, %v without", blk["zero_fetch"], pre["zero_fetch"])
	}
	if num(t, blk, "time", "dp_hidden_s") != 0 || !(num(t, blk, "time", "step_s") > num(t, pre, "time", "step_s")) {
		t.Errorf("blocking: dp_hidden_s %v, step_s %v against %v prefetched", num(t, blk, "time", "dp_hidden_s"), num(t, blk, "time", "step_s"), num(t, pre, "time", "step_s"))
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--model", "gpt3-175b", "--gpus", "384", "--zero", "1", "--zero-fetch", "blocking"}, []string{"zero-fetch", "zero 1"}},
		{[]string{"plan", "--model", "mixtral-8x7b", "--gpus", "64", "--zero", "3", "--zero-fetch", "blocking"}, []string{"zero-fetch", "dense"}},
		{[]string{"plan", "--model", "gpt3-175b", "--gpus", "384", "--search", "--zero-fetch", "blocking"}, []string{"--zero-fetch", "not with --search"}},
	})
}
