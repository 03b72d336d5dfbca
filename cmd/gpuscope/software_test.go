package main

import (
	"slices"
	"strings"
	"testing"
)

// --software sets an era's settings, each still overridden by its flag;
// a bad era is refused naming --software and the eras.
func TestPlanSoftwareEras(t *testing.T) {
	base := []string{"plan", "--layers", "48", "--hidden", "6144", "--heads", "64", "--seq", "2048", "--vocab", "51200", "--gpu", "a100-80gb", "--tp", "8", "--dp", "2", "--json"}
	plan := func(extra ...string) map[string]any {
		t.Helper()
		return jsonCLI(t, append(slices.Clone(base), extra...)...)
	}
	for _, tt := range []struct {
		era                []string
		flash, sp, overlap bool
		recompute          string
		bytesPerParam      float64
	}{
		{nil, true, true, true, "selective", 16},
		{[]string{"--software", "current"}, true, true, true, "selective", 16},
		{[]string{"--software", "megatron-2022"}, false, true, true, "selective", 18},
		{[]string{"--software", "megatron-2021"}, false, false, false, "full", 18},
	} {
		m := plan(tt.era...)
		if m["flash"] != tt.flash || m["sp"] != tt.sp || m["overlap"] != tt.overlap || m["recompute"] != tt.recompute || m["bytes_per_param"] != tt.bytesPerParam {
			t.Errorf("%v: flash %v sp %v overlap %v recompute %v bytes %v", tt.era, m["flash"], m["sp"], m["overlap"], m["recompute"], m["bytes_per_param"])
		}
	}
	m := plan("--software", "megatron-2021", "--flash", "--sp", "--overlap", "--recompute", "none", "--bytes-per-param", "16")
	if m["flash"] != true || m["sp"] != true || m["overlap"] != true || m["recompute"] != "none" || m["bytes_per_param"] != 16.0 {
		t.Errorf("explicit flags after --software megatron-2021 lost: %v %v %v %v %v", m["flash"], m["sp"], m["overlap"], m["recompute"], m["bytes_per_param"])
	}
	_, errOut, code := runCLI("plan", "--model", "gpt3-175b", "--software", "megatron-2020")
	if code != 2 || !strings.Contains(errOut, "--software") || !strings.Contains(errOut, "megatron-2021, megatron-2022, current") {
		t.Errorf("a bad era: exit %d, %q", code, errOut)
	}
	// The header says what the era set.
	out, _, _ := runCLI(slices.DeleteFunc(append(slices.Clone(base), "--software", "megatron-2021"), func(s string) bool { return s == "--json" })...)
	for _, want := range []string{"software era", "sequence parallel", "FlashAttention", "DP overlap", "ZeRO stage", "recomputation", "dropout", "--software megatron-2021"} {
		if !strings.Contains(out, want) {
			t.Errorf("the header does not state %q:\n%s", want, out)
		}
	}
}
