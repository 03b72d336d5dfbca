package main

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/scenarios"
)

// --json holds the field names, and the engine's numbers.
func TestQuantizeJSON(t *testing.T) {
	for _, r := range numfmt.RecipeIDs() {
		m := jsonCLI(t, "quantize", "--recipe", r, "--values", "10000", "--outlier", "500", "--seed", "-3", "--dist", "lognormal", "--json")
		for _, f := range []string{"rel_rmse", "typical_rel_rmse", "max_rel_error", "bytes_per_value", "overflow", "underflow",
			"recipe", "values", "outlier", "seed", "dist", "outliers", "block", "element", "amax"} {
			if _, ok := m[f]; !ok {
				t.Errorf("quantize --recipe %s --json: no %q in %v", r, f, m)
			}
		}
		want, err := numfmt.Quantize(numfmt.QuantizeConfig{Recipe: numfmt.Recipe(r), Values: 10000, Outlier: 500, Seed: -3, Dist: numfmt.LogNormal})
		if err != nil {
			t.Fatal(err)
		}
		if m["recipe"] != r || m["rel_rmse"] != want.RelRMSE || m["bytes_per_value"] != want.BytesPerValue ||
			m["underflow"] != float64(want.Underflow) || m["overflow"] != float64(want.Overflow) || m["seed"] != -3.0 || m["outliers"] != 10.0 {
			t.Errorf("quantize --recipe %s --json = %v; want the engine's %+v", r, m, want)
		}
	}
	// The published sizes: MXFP8 8.25 bits a value, NVFP4 4.5 (and the
	// tensor's FP32 scale).
	if m := jsonCLI(t, "quantize", "--recipe", "mxfp8", "--values", "4096", "--json"); m["bytes_per_value"] != 1.03125 {
		t.Errorf("mxfp8 bytes_per_value = %v, want 1.03125", m["bytes_per_value"])
	}
	if m := jsonCLI(t, "quantize", "--recipe", "nvfp4", "--values", "4096", "--json"); m["bytes_per_value"] != 0.5625+4.0/4096 {
		t.Errorf("nvfp4 bytes_per_value = %v, want %v", m["bytes_per_value"], 0.5625+4.0/4096)
	}
}

func TestQuantizeText(t *testing.T) {
	out, errOut, code := runCLI("quantize", "--recipe", "nvfp4", "--values", "4096", "--outlier", "1000")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	for _, w := range []string{"nvfp4: 4096 normal values (seed 1), 4 outliers of ±1000", "E4M3 scale a block of 16", "FP4 E2M1",
		"rel_rmse", "typical_rel_rmse", "max_rel_error", "bytes_per_value   0.5634766  (4.508 bits", "overflow", "underflow"} {
		if !strings.Contains(out, w) {
			t.Errorf("quantize text does not contain %q:\n%s", w, out)
		}
	}
	if out, _, _ := runCLI("quantize", "--values", "10", "--outlier", "1"); !strings.Contains(out, "no outliers") {
		t.Errorf("--outlier 1 places outliers:\n%s", out)
	}
}

func TestQuantizeRefusals(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"quantize", "--recipe", "int8"}, []string{"--recipe", "int8", "tensor, block128, mxfp8, nvfp4"}},
		{[]string{"quantize", "--values", "0"}, []string{"--values", "1–16777216"}},
		{[]string{"quantize", "--values", "16777217"}, []string{"--values", "1–16777216"}},
		{[]string{"quantize", "--values", "many"}, []string{"--values", "1–16777216"}},
		{[]string{"quantize", "--outlier", "-1"}, []string{"--outlier", "0–1e+06"}},
		{[]string{"quantize", "--outlier", "2e6"}, []string{"--outlier", "0–1e+06"}},
		{[]string{"quantize", "--outlier", "nan"}, []string{"--outlier", "1e+06"}},
		{[]string{"quantize", "--seed", "1.5"}, []string{"--seed", "9223372036854775807"}},
		{[]string{"quantize", "--seed", "9223372036854775808"}, []string{"--seed", "9223372036854775807"}},
		{[]string{"quantize", "--dist", "uniform"}, []string{"--dist", "normal, lognormal"}},
		{[]string{"quantize", "--recipe"}, []string{"--recipe", "missing"}},
		{[]string{"quantize", "--bits", "4"}, []string{"--bits", "unknown flag", "--recipe"}},
		{[]string{"quantize", "tensor"}, []string{"unexpected argument", "--recipe"}},
	})
	// The extremes are accepted.
	for _, args := range [][]string{{"--seed", "-9223372036854775808"}, {"--seed", "9223372036854775807"}, {"--values", "1"}, {"--outlier", "1e6"}, {"--outlier", "0"}} {
		if _, errOut, code := runCLI(append(append([]string{"quantize"}, args...), "--values=1000", "--json")...); code != 0 {
			t.Errorf("quantize %v: exit %d, %s", args, code, errOut)
		}
	}
}

// Every step of the fp8-training lesson carries the gpuscope quantize
// command whose numbers it shows.
func TestQuantizeLessonCommands(t *testing.T) {
	s, _ := scenarios.Get("fp8-training")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for i := range les.Steps {
		m := les.Metrics(i + 1).(scenarios.QuantizeMetrics)
		cli := jsonCLI(t, strings.Fields(strings.TrimPrefix(m.Command, "gpuscope "))...)
		for k, page := range map[string]float64{"underflow": float64(m.Underflow), "overflow": float64(m.Overflow),
			"typical_rel_rmse": m.TypicalRelRMSE, "rel_rmse": m.RelRMSE, "bytes_per_value": m.BytesPerValue} {
			if cli[k] != page {
				t.Errorf("step %d: %s: CLI %v, page %v", i+1, k, cli[k], page)
			}
		}
	}
}
