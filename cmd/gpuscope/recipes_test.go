package main

import "testing"

// nemotronArgs are Nemotron-4 340B's sizes from the command line (arXiv
// 2406.11704 Table 1): a squared-ReLU model from sizes is built as
// Nemotron-4 is, without biases, with rotary positions and untied
// embeddings.
var nemotronArgs = []string{"--layers", "96", "--hidden", "18432", "--heads", "96", "--kv-heads", "8", "--ffn", "73728",
	"--ffn-kind", "relu2", "--vocab", "256000", "--seq", "4096"}

// --ffn-kind relu2 and relu from sizes: Nemotron-4 340B's 341,025,638,400
// parameters by hand (engine/model's TestUngatedFFNParams), and the same
// sizes with ReLU built as OPT is (GPT style): 168,960 biases and shifts
// a layer more (16,220,160), learned positions (4096 × 18432 =
// 75,497,472), the output layer tied to the input embedding
// (−4,718,592,000) and the final norm's shift (18,432): 336,398,782,464.
func TestPlanUngatedFFNFromSizes(t *testing.T) {
	plan := append([]string{"--gpus", "64", "--tp", "8", "--pp", "8", "--global-batch", "64"}, nemotronArgs...)
	m := planJSON(t, plan...)
	if got, want := num(t, m, "params"), 341025638400.0; got != want {
		t.Errorf("relu2 from sizes: %.0f parameters, by hand %.0f", got, want)
	}
	if m["dropout"] != false {
		t.Errorf("relu2 from sizes: dropout %v, want off (Nemotron-4 trains without)", m["dropout"])
	}
	for i, a := range plan {
		if a == "relu2" {
			plan[i] = "relu"
		}
	}
	m = planJSON(t, plan...)
	if got, want := num(t, m, "params"), 336398782464.0; got != want {
		t.Errorf("relu from sizes (OPT style): %.0f parameters, by hand %.0f", got, want)
	}
	if m["dropout"] != true {
		t.Errorf("relu from sizes: dropout %v, want on (OPT trains with it)", m["dropout"])
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--layers", "2", "--hidden", "64", "--heads", "4", "--seq", "8", "--vocab", "10", "--ffn-kind", "relu3"},
			[]string{"--ffn-kind", "gelu, swiglu, relu, relu2"}},
	})
}

// nemotronRecipe is NVIDIA's Nemotron-4 340B plan on 128 H100s
// (NeMo's: TP 8, PP 8, v 12, micro-batch 1, SP and selective
// recomputation by default, the distributed optimizer as ZeRO-1 over DP
// 2), 32 sequences a step.
var nemotronRecipe = append([]string{"--gpus", "128", "--tp", "8", "--pp", "8", "--interleave", "12", "--zero", "1", "--global-batch", "32"}, nemotronArgs...)

// --optimizer-states and --master-weights: Nemotron-4 340B's recipe does
// not fit an H100 with FP32 Adam (85.6 GB) and does with BF16 moments,
// its first stage's optimizer states 8 × 5,771,280,384 ÷ 2 bytes
// (engine/parallel's TestNemotron4OptimizerStates); the JSON says the
// breakdown, the text the bytes a parameter and the flag given;
// --bytes-per-param 16 and 18 stay what they were.
func TestPlanOptimizerStates(t *testing.T) {
	m := planJSON(t, nemotronRecipe...)
	if m["fits"] != false || m["optimizer_states"] != "fp32" || m["master_weights"] != "fp32" || num(t, m, "model_state_bytes_per_param") != 16 {
		t.Errorf("FP32 Adam: fits %v, %v %v, %g bytes a parameter; want false, fp32 fp32, 16", m["fits"], m["optimizer_states"], m["master_weights"], num(t, m, "model_state_bytes_per_param"))
	}
	m = planJSON(t, append([]string{"--optimizer-states", "bf16"}, nemotronRecipe...)...)
	stages := m["memory_per_stage"].([]any)
	if got, want := stages[0].(map[string]any)["optimizer_bytes"].(float64), 8*5771280384.0/2; m["fits"] != true || got != want {
		t.Errorf("BF16 moments: fits %v, the first stage's optimizer %.0f bytes; want true, %.0f", m["fits"], got, want)
	}
	if num(t, m, "optimizer_state_bytes_per_param") != 8 || num(t, m, "model_state_bytes_per_param") != 12 || num(t, m, "bytes_per_param") != 16 ||
		num(t, m, "state_bytes_per_param", "moment1") != 2 || num(t, m, "state_bytes_per_param", "master_weights") != 4 {
		t.Errorf("BF16 moments: %v", m["state_bytes_per_param"])
	}
	out, errOut, code := runCLI(append([]string{"plan", "--optimizer-states", "bf16", "--master-weights", "none"}, nemotronRecipe...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := planSettingsText(t, out)
	for name, want := range map[string][2]string{
		"model-state bytes": {"8 a parameter: weights 2, gradients 2, master 0, moments 2 + 2", "default"},
		"Adam's moments in": {"bf16", "given"},
		"master weights":    {"none", "given"},
	} {
		if got := rows[name]; got != want {
			t.Errorf("setting %q = %q, want %q", name, got, want)
		}
	}
	out, _, _ = runCLI(append([]string{"plan"}, nemotronRecipe...)...)
	if rows := planSettingsText(t, out); rows["model-state bytes"] != [2]string{"16 a parameter", "default"} || rows["Adam's moments in"] != [2]string{} {
		t.Errorf("FP32 Adam's settings: %q, %q", rows["model-state bytes"], rows["Adam's moments in"])
	}
	// --params: model-state memory alone, with the same bytes.
	m = planJSON(t, "--params", "1e9", "--optimizer-states", "8bit")
	if got, want := num(t, m, "memory", "optimizer_bytes"), 1e9*(4+2*(1+4.0/256)); got != want {
		t.Errorf("--params 1e9 with 8-bit Adam: %.0f optimizer bytes, by hand %.0f", got, want)
	}
	checkRefusals(t, []refusal{
		{[]string{"plan", "--model", "llama2-70b", "--optimizer-states", "4bit"}, []string{"--optimizer-states", "fp32, bf16, 8bit"}},
		{[]string{"plan", "--model", "llama2-70b", "--master-weights", "bf16"}, []string{"--master-weights", "fp32, remainder, none"}},
		{[]string{"plan", "--model", "llama2-70b", "--gpus", "8", "--master-weights", "remainder", "--dtype", "fp16"}, []string{"master-weights", "BF16", "allowed fp32, none"}},
	})
}

// bloomArgs are BLOOM-176B's run from sizes (70 layers, hidden 14336, 112
// heads, 250,880 vocabulary, 2,048 tokens) on 384 A100s, TP 4 × PP 12.
var bloomArgs = []string{"--layers", "70", "--hidden", "14336", "--heads", "112", "--seq", "2048", "--vocab", "250880",
	"--gpu", "a100-80gb", "--gpus", "384", "--tp", "4", "--pp", "12", "--micro-batch", "2", "--global-batch", "2048", "--zero", "1"}

// --first-stage-layers and --last-stage-layers: BLOOM's 5, 6 × 10, 5 in
// memory_per_stage's layers and the JSON's added fields; the settings say
// them; a split that does not add up, or one with --search, is refused
// in one line naming the flags.
func TestPlanUnevenStages(t *testing.T) {
	m := planJSON(t, append([]string{"--first-stage-layers", "5", "--last-stage-layers", "5"}, bloomArgs...)...)
	if num(t, m, "first_stage_layers") != 5 || num(t, m, "last_stage_layers") != 5 {
		t.Errorf("first_stage_layers %v, last_stage_layers %v; want 5 and 5", m["first_stage_layers"], m["last_stage_layers"])
	}
	for st, s := range m["memory_per_stage"].([]any) {
		want := 6.0
		if st == 0 || st == 11 {
			want = 5
		}
		if got := s.(map[string]any)["layers"].(float64); got != want {
			t.Errorf("stage %d holds %g layers, want %g", st, got, want)
		}
	}
	out, errOut, code := runCLI(append([]string{"plan", "--first-stage-layers", "5", "--last-stage-layers", "5"}, bloomArgs...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := planSettingsText(t, out)
	if rows["first stage's layers"] != [2]string{"5", "given"} || rows["last stage's layers"] != [2]string{"5", "given"} {
		t.Errorf("settings: %q, %q", rows["first stage's layers"], rows["last stage's layers"])
	}
	if m := planJSON(t, bloomArgs...); m["first_stage_layers"] != nil {
		t.Errorf("without the flags: first_stage_layers %v, want absent", m["first_stage_layers"])
	}
	checkRefusals(t, []refusal{
		{append([]string{"plan", "--first-stage-layers", "4", "--last-stage-layers", "5"}, bloomArgs...),
			[]string{"first-stage-layers, last-stage-layers", "61 of the 70 layers", "10 other stages"}},
		{append([]string{"plan", "--first-stage-layers", "70"}, bloomArgs...), []string{"first-stage-layers", "allowed 1–69"}},
		{[]string{"plan", "--search", "--model", "gpt3-xl", "--gpus", "8", "--first-stage-layers", "2"}, []string{"--first-stage-layers", "--search"}},
	})
}
