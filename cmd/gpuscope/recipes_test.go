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
