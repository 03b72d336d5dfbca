package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

func runCLI(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// jsonCLI runs a command that must succeed and decodes its JSON.
func jsonCLI(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := runCLI(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, %s", args, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCollectiveJSON(t *testing.T) {
	out, errOut, code := runCLI("collective", "--op", "allreduce", "--algo", "ring", "--ranks", "8", "--bytes", "256MiB", "--link", "nvlink4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	// The contract's field names, with the hand-worked values of
	// engine/collective TestRingHandWorked.
	want := map[string]float64{"time_s": 1.05791e-3, "bytes_sent_per_rank": 469762048, "algbw_GBps": 253.74, "busbw_GBps": 444.05}
	for k, w := range want {
		g, ok := m[k].(float64)
		if !ok || math.Abs(g-w)/w > 1e-4 {
			t.Errorf("%s = %v, want %v", k, m[k], w)
		}
	}
	// --flag=value works as well as --flag value.
	out2, _, _ := runCLI("collective", "--algo=ring", "--ranks=8", "--bytes=268435456", "--link=nvlink4", "--json")
	if out2 != out {
		t.Errorf("--flag=value output differs:\n%s\nvs\n%s", out2, out)
	}
}

func TestCollectiveStarText(t *testing.T) {
	out, _, code := runCLI("collective", "--algo", "star", "--ranks", "4", "--bytes", "1MB", "--link", "ib-ndr")
	if code != 0 || !strings.Contains(out, "bytes_sent_per_rank  3000000") {
		t.Errorf("exit %d, output:\n%s\nwant the root's 3·1 MB", code, out)
	}
}

// Bad flags: one line naming the flag and the allowed values, exit 2.
func TestBadFlags(t *testing.T) {
	tests := []refusal{
		{[]string{"collective", "--ranks", "abc"}, []string{"--ranks", "abc", "2–1048576"}},
		{[]string{"collective", "--ranks", "1"}, []string{"--ranks", "2–1048576"}},
		{[]string{"collective", "--link", "pcie"}, []string{"--link", "efa-100, ib-edr, ib-hdr, ib-ndr, ib-xdr, nvlink3, nvlink3-a800, nvlink4, nvlink4-h800, nvlink5, opa-100, pcie5, roce-200, roce-400"}},
		{[]string{"collective", "--algo", "butterfly"}, []string{"--algo", "ring, tree, hierarchical, star, nvls"}},
		{[]string{"collective", "--algo", "nvls", "--ranks", "16"}, []string{"algo", "nvls", "one NVSwitch"}},
		{[]string{"collective", "--op", "broadcast", "--algo", "hierarchical"}, []string{"algo", "broadcast", "ring, tree"}},
		{[]string{"collective", "--oversubscription", "0.5"}, []string{"--oversubscription", "1–64"}},
		{[]string{"collective", "--topology", "torus"}, []string{"--topology", "single-node, fat-tree"}},
		{[]string{"collective", "--inter", "nvlink4"}, []string{"--inter", "ib-hdr, ib-ndr, ib-xdr, roce-400"}},
		{[]string{"collective", "--bytes", "lots"}, []string{"--bytes", "lots"}},
		{[]string{"collective", "--op", "gather"}, []string{"--op", "allreduce"}},
		{[]string{"collective", "--nope", "1"}, []string{"--nope", "--ranks"}},
		{[]string{"collective", "--ranks"}, []string{"--ranks", "missing"}},
		{[]string{"collective", "--json=maybe"}, []string{"--json", "true, false"}},
		{[]string{"scenario", "run", "nope"}, []string{"nope", "ring-allreduce"}},
		{[]string{"scenario", "run", "ring-allreduce", "--gpus", "65"}, []string{"--gpus", "2–64"}},
		{[]string{"scenario", "fly"}, []string{"fly", "list, run"}},
		{[]string{"warp"}, []string{"warp", "attention, collective, faults, gemm, numfmt, plan, quantize, roofline, route, scenario, serve"}},
	}
	checkRefusals(t, tests)
}

func TestScenarioListAndRun(t *testing.T) {
	out, _, code := runCLI("scenario", "list", "--json")
	var list []scenarioInfo
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) == 0 || list[0].ID != "ring-allreduce" {
		t.Fatalf("scenario list --json: exit %d, %s", code, out)
	}
	out, errOut, code := runCLI("scenario", "run", "ring-allreduce", "--gpus", "16", "--json")
	if code != 0 {
		t.Fatalf("scenario run: exit %d: %s", code, errOut)
	}
	var steps []struct {
		Step    int                         `json:"step"`
		Metrics scenarios.CollectiveMetrics `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &steps); err != nil {
		t.Fatal(err)
	}
	if len(steps) != list[0].Steps {
		t.Fatalf("%d steps reported, want %d", len(steps), list[0].Steps)
	}
	for _, s := range steps {
		if s.Metrics.Ranks != 16 || s.Metrics.Ring.Rounds != 30 {
			t.Errorf("step %d: ranks %d, ring rounds %d; want 16 and 30", s.Step, s.Metrics.Ranks, s.Metrics.Ring.Rounds)
		}
	}
	if steps[0].Metrics.Algo != "star" || steps[5].Metrics.Algo != "ring" {
		t.Errorf("step algos %s … %s, want star … ring", steps[0].Metrics.Algo, steps[5].Metrics.Algo)
	}
}

func TestNumfmt(t *testing.T) {
	tests := []struct {
		format, value string
		want          map[string]any
	}{
		{"fp16", "70000", map[string]any{"stored": "Inf", "bits": "0 11111 0000000000", "max": 65504.0, "relative_error": "Inf"}},
		{"bf16", "70000", map[string]any{"stored": 70144.0, "exponent": 143.0, "mantissa": 9.0}},
		{"fp8-e4m3", "1000", map[string]any{"stored": "NaN", "max": 448.0}},
		{"fp8-e5m2", "57344", map[string]any{"stored": 57344.0, "relative_error": 0.0}},
		{"fp32", "nan", map[string]any{"stored": "NaN"}},
		{"fp16", "-1e-9", map[string]any{"stored": 0.0, "sign": 1.0}},
	}
	for _, tt := range tests {
		out, errOut, code := runCLI("numfmt", "--format", tt.format, "--value", tt.value, "--json")
		if code != 0 {
			t.Fatalf("numfmt %s %s: exit %d: %s", tt.format, tt.value, code, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		for k, w := range tt.want {
			if m[k] != w {
				t.Errorf("numfmt %s %s: %s = %v, want %v", tt.format, tt.value, k, m[k], w)
			}
		}
	}
	for _, args := range [][]string{{"numfmt", "--format", "fp12", "--value", "1"}, {"numfmt", "--value", "one"}, {"numfmt", "--format", "fp16"}} {
		if _, errOut, code := runCLI(args...); code != 2 || !strings.Contains(errOut, "--") {
			t.Errorf("%v: exit %d, %q; want 2 and the flag named", args, code, errOut)
		}
	}
}

func TestRoofline(t *testing.T) {
	out, errOut, code := runCLI("roofline", "--gpu", "h200", "--dtype", "bf16", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]float64
	json.Unmarshal([]byte(out), &m)
	if m["peak_tflops"] != 989.4 || m["hbm_TBps"] != 4.8 || math.Abs(m["ridge_flop_per_byte"]-206.125) > 1e-9 {
		t.Errorf("roofline h200 bf16 = %v", m)
	}
	if _, errOut, code := runCLI("roofline", "--gpu", "a100", "--dtype", "fp8"); code != 2 || !strings.Contains(errOut, "--dtype") || !strings.Contains(errOut, "bf16") {
		t.Errorf("a100 fp8: exit %d, %q; want 2 naming --dtype and the allowed dtypes", code, errOut)
	}
	if _, errOut, code := runCLI("roofline", "--gpu", "v100"); code != 2 || !strings.Contains(errOut, "h100") {
		t.Errorf("v100: exit %d, %q", code, errOut)
	}
}

// Blackwell Ultra from the command line: the ridge points by hand, peak ÷
// bandwidth — B300 FP4 105 P ÷ 8 (HGX B300 page) = 13,125 TFLOP/s over 8
// TB/s = 1,640.625 FLOP a byte; GB300 BF16 360 P sparse ÷ 72 ÷ 2 (GB300
// NVL72 page) = 2,500 over 8 = 312.5. An unknown id is refused with the
// list, the new ones in it.
func TestRooflineBlackwellUltra(t *testing.T) {
	for _, c := range []struct {
		gpu, dtype  string
		peak, ridge float64
	}{{"b300", "fp4", 13125, 1640.625}, {"b300", "bf16", 2250, 281.25}, {"gb300", "bf16", 2500, 312.5}, {"gb300", "fp4", 15000, 1875}} {
		out, errOut, code := runCLI("roofline", "--gpu", c.gpu, "--dtype", c.dtype, "--json")
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.gpu, c.dtype, code, errOut)
		}
		var m map[string]any
		json.Unmarshal([]byte(out), &m)
		if m["gpu"] != c.gpu || m["peak_tflops"] != c.peak || m["hbm_TBps"] != 8.0 || math.Abs(m["ridge_flop_per_byte"].(float64)-c.ridge) > 1e-9 {
			t.Errorf("roofline %s %s = %v; want %g TFLOP/s at 8 TB/s, ridge %g", c.gpu, c.dtype, m, c.peak, c.ridge)
		}
	}
	_, errOut, code := runCLI("roofline", "--gpu", "b400")
	if code != 2 || !strings.Contains(errOut, "b400") || !strings.Contains(errOut, "b300, gb200, gb300") {
		t.Errorf("b400: exit %d, %q; want 2 and the allowed ids, b300 and gb300 among them", code, errOut)
	}
}

func TestGEMMCommand(t *testing.T) {
	out, errOut, code := runCLI("gemm", "--m", "8192", "--n", "8192", "--k", "8192", "--dtype", "bf16", "--gpu", "h200", "--kernel", "tensor-tiled", "--tile", "128x128x64", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	for _, k := range []string{"time_s", "tflops", "hbm_bytes", "smem_bytes", "flops", "intensity_flop_per_byte", "bound", "utilization"} {
		if _, ok := m[k]; !ok {
			t.Errorf("gemm --json lacks %q: %s", k, out)
		}
	}
	if tf := m["tflops"].(float64); math.Abs(tf-788)/788 > 0.1 || m["bound"] != "compute" {
		t.Errorf("tflops %v bound %v", tf, m["bound"])
	}
	out, _, _ = runCLI("gemm", "--m", "1024", "--n", "1024", "--k", "1024", "--kernel", "naive", "--json")
	json.Unmarshal([]byte(out), &m)
	if m["bound"] != "memory" || m["flops"].(float64) != 2*1024*1024*1024 {
		t.Errorf("naive 1024³: %v", m)
	}
	for _, args := range [][]string{
		{"gemm", "--tile", "abc"}, {"gemm", "--kernel", "magic"}, {"gemm", "--gpu", "a100", "--dtype", "fp8"}, {"gemm", "--m", "0"},
	} {
		if _, errOut, code := runCLI(args...); code != 2 || !strings.Contains(errOut, "--") {
			t.Errorf("%v: exit %d, %q; want 2 and the flag named", args, code, errOut)
		}
	}
}

func TestAttentionCommand(t *testing.T) {
	var std, flash map[string]any
	out, errOut, code := runCLI("attention", "--seq", "2048", "--head-dim", "128", "--heads", "96", "--batch", "1024", "--gpu", "a100", "--impl", "standard", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	json.Unmarshal([]byte(out), &std)
	out, _, _ = runCLI("attention", "--seq", "2048", "--head-dim", "128", "--heads", "96", "--batch", "1024", "--gpu", "a100", "--impl", "flash", "--json")
	json.Unmarshal([]byte(out), &flash)
	if std["score_bytes"].(float64) != 824633720832 {
		t.Errorf("score_bytes %v, want 1024·96·2048²·2", std["score_bytes"])
	}
	if flash["hbm_bytes"].(float64) >= std["hbm_bytes"].(float64)/4 || flash["time_s"].(float64) >= std["time_s"].(float64) {
		t.Errorf("flash %v vs standard %v: want less traffic and time", flash, std)
	}
	if _, errOut, code := runCLI("attention", "--impl", "fast"); code != 2 || !strings.Contains(errOut, "--impl") {
		t.Errorf("--impl fast: exit %d, %q", code, errOut)
	}
}

func TestFaultsCommand(t *testing.T) {
	out, errOut, code := runCLI("faults", "--gpus", "10000", "--mtbf-gpu-hours", "90000", "--checkpoint-every-s", "300",
		"--checkpoint-cost-s", "30", "--restart-cost-s", "600", "--days", "30", "--seed", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]float64
	json.Unmarshal([]byte(out), &m)
	// A failure every 9 h over 30 days: about 80; Young's √(2·30·32400) = 1394 s.
	if m["failures"] < 50 || m["failures"] > 115 || m["goodput"] <= 0.5 || m["goodput"] >= 1 || math.Abs(m["young_interval_s"]-1394.3) > 1 {
		t.Errorf("faults: %v", m)
	}
	for _, k := range []string{"failures", "lost_work_s", "goodput", "optimal_interval_s"} {
		if _, ok := m[k]; !ok {
			t.Errorf("faults --json lacks %q", k)
		}
	}
	if _, errOut, code := runCLI("faults", "--days", "-1"); code != 2 || !strings.Contains(errOut, "--days") {
		t.Errorf("--days -1: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI("faults", "--mtbf-gpu-hours", "lots"); code != 2 || !strings.Contains(errOut, "--mtbf-gpu-hours") {
		t.Errorf("--mtbf-gpu-hours lots: exit %d, %q", code, errOut)
	}
}

// Issue 6's collective: the contract's fields for every operation, the
// nccl-tests figures on 8 H100s, and the --link shorthand unchanged.
func TestCollectiveFabricJSON(t *testing.T) {
	get := func(args ...string) map[string]any {
		t.Helper()
		out, errOut, code := runCLI(append([]string{"collective", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"time_s", "algbw_GBps", "busbw_GBps", "bytes_sent_per_rank", "max_link_utilization"} {
			if v, ok := m[f].(float64); !ok || !(v >= 0) {
				t.Errorf("%v: %s = %v", args, f, m[f])
			}
		}
		if u := m["max_link_utilization"].(float64); u > 1 {
			t.Errorf("%v: a link above 100%%: %g", args, u)
		}
		return m
	}
	ring := get("--op", "allreduce", "--algo", "ring", "--ranks", "8", "--gpus-per-node", "8", "--bytes", "1GB", "--topology", "single-node", "--intra", "nvlink4")
	nvls := get("--op", "allreduce", "--algo", "nvls", "--ranks", "8", "--bytes", "1GB", "--topology", "single-node")
	if b := ring["busbw_GBps"].(float64); math.Abs(b-370)/370 > 0.03 {
		t.Errorf("ring busbw %g, want ≈ 370", b)
	}
	if b := nvls["busbw_GBps"].(float64); math.Abs(b-480)/480 > 0.03 {
		t.Errorf("NVLS busbw %g, want ≈ 480", b)
	}
	for _, op := range []string{"reducescatter", "allgather", "broadcast", "alltoall"} {
		get("--op", op, "--ranks", "64", "--bytes", "256MiB", "--inter", "ib-xdr")
	}
	big := get("--op", "allreduce", "--algo", "hierarchical", "--ranks", "16384", "--bytes", "1GB", "--topology", "fat-tree", "--oversubscription", "2")
	if big["nodes"].(float64) != 2048 {
		t.Errorf("16,384 ranks in %v nodes", big["nodes"])
	}
	// The first lesson's form still runs the packet engine.
	old := get("--ranks", "8", "--bytes", "256MiB", "--link", "nvlink4")
	if _, ok := old["rounds"]; !ok {
		t.Error("--link without fabric flags no longer runs the packet-level engine")
	}
}

// refusal is a command line the CLI must refuse, and what its one-line
// error must mention.
type refusal struct {
	args     []string
	mentions []string
}

// checkRefusals runs each command: exit 2, nothing on stdout, one line on
// stderr naming the flag and the allowed values.
func checkRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		out, errOut, code := runCLI(tt.args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", tt.args, code, out)
		}
		if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
			t.Errorf("%v: %d lines of error, want one: %q", tt.args, n+1, errOut)
		}
		for _, m := range tt.mentions {
			if !strings.Contains(errOut, m) {
				t.Errorf("%v: error %q does not mention %q", tt.args, errOut, m)
			}
		}
	}
}

// gemm --block-scaled: DeepSeek-V3's FP8 expert product at DeepGEMM's
// measured rate (1297 TFLOP/s on an H800 for 8192×4096×7168), not the
// plain model's 1574; refused for BF16 with the flag named.
func TestGEMMBlockScaled(t *testing.T) {
	out, errOut, code := runCLI("gemm", "--m", "8192", "--n", "4096", "--k", "7168", "--dtype", "fp8", "--gpu", "h800", "--block-scaled", "--json")
	if code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if tf := m["tflops"].(float64); math.Abs(tf-1297)/1297 > 0.1 {
		t.Errorf("block-scaled FP8: %.0f TFLOP/s, DeepGEMM measured 1297", tf)
	}
	if _, errOut, code := runCLI("gemm", "--block-scaled"); code != 2 || !strings.Contains(errOut, "--block-scaled: needs dtype fp8") {
		t.Errorf("gemm --block-scaled (bf16): exit %d, %q", code, errOut)
	}
}

// Every step of every lesson, through scenario run in each language: its
// title and narration have the engine's numbers filled in as the page
// fills them — no "{pp}" left (issue 36: eight titles printed their
// placeholders) — and come from that language's catalogue (--lang zh:
// Chinese).
func TestScenarioRunFillsEveryStep(t *testing.T) {
	for _, lang := range i18n.Langs() {
		for _, id := range scenarios.IDs() {
			args := []string{"scenario", "run", id, "--json", "--lang", lang}
			out, errOut, code := runCLI(args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			var steps []struct {
				Step        int
				Title, Text string
			}
			if err := json.Unmarshal([]byte(out), &steps); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			s, _ := scenarios.Get(id)
			if len(steps) != len(s.Steps) {
				t.Errorf("%s: %d steps printed, the lesson has %d", id, len(steps), len(s.Steps))
			}
			for _, st := range steps {
				for field, v := range map[string]string{"title": st.Title, "text": st.Text} {
					if strings.TrimSpace(v) == "" || strings.ContainsAny(v, "{}") {
						t.Errorf("%s step %d (%s): %s %q", id, st.Step, lang, field, v)
					}
				}
				// A title may be a name alone ("ZeRO-3（FSDP）"); the narration
				// is sentences.
				if chinese := strings.IndexFunc(st.Text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0; chinese != (lang == "zh") {
					t.Errorf("%s step %d (%s): text %q is not in its language", id, st.Step, lang, st.Text)
				}
			}
		}
	}
}

// scenario run --json gives each numeric setting as a number beside the
// string config keeps (issue 36: numbers only as strings), a byte size
// with its unit; config itself is unchanged.
func TestScenarioRunConfigNumbers(t *testing.T) {
	for _, id := range []string{"ring-allreduce", "memory-budget", "fault-tolerance", "mixture-of-experts", "rack-scale-nvlink"} {
		out, errOut, code := runCLI("scenario", "run", id, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", id, code, errOut)
		}
		var steps []struct {
			Step          int
			Config        map[string]any
			ConfigNumbers map[string]map[string]any `json:"config_numbers"`
		}
		if err := json.Unmarshal([]byte(out), &steps); err != nil {
			t.Fatal(err)
		}
		s, _ := scenarios.Get(id)
		for _, st := range steps {
			for name, v := range st.Config {
				str, ok := v.(string)
				if !ok {
					t.Fatalf("%s step %d: config.%s = %v, want the string it was", id, st.Step, name, v)
				}
				k, _ := s.Knob(name)
				f, err := strconv.ParseFloat(str, 64)
				numeric := k.Kind != scenarios.KnobEnum || scenarios.NumericValue(str)
				got, has := st.ConfigNumbers[name]
				switch {
				case err != nil || !numeric:
					if has {
						t.Errorf("%s step %d: config_numbers.%s = %v for %q", id, st.Step, name, got, str)
					}
				case !has:
					t.Errorf("%s step %d: config_numbers has no %s (config %q)", id, st.Step, name, str)
				case got["value"] != f:
					t.Errorf("%s step %d: config_numbers.%s.value = %v (%T), want the number %v", id, st.Step, name, got["value"], got["value"], f)
				case (k.Kind == scenarios.KnobBytes) != (got["unit"] == "bytes"):
					t.Errorf("%s step %d: config_numbers.%s.unit = %v for a %v knob", id, st.Step, name, got["unit"], k.Kind)
				}
			}
		}
	}
}

// wrapWide keeps every word and character, in order, on lines of at most
// 80 columns (a Chinese character two), breaking Chinese between
// characters but not before a closing mark.
func TestWrapWide(t *testing.T) {
	s, _ := scenarios.Get("pipeline-parallel")
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, lang := range i18n.Langs() {
		for i := range les.Steps {
			_, text := les.Narration(i+1, lang)
			got := wrapWide(text, "  ", 80)
			if squeeze(got) != squeeze(text) {
				t.Errorf("%s step %d: wrapped %q, from %q", lang, i+1, got, text)
			}
			for _, line := range strings.Split(got, "\n") {
				cols := 0
				for _, r := range line {
					cols++
					if wide(r) {
						cols++
					}
				}
				if cols > 80 && strings.Contains(strings.TrimSpace(line), " ") {
					t.Errorf("%s step %d: %d columns: %q", lang, i+1, cols, line)
				}
				if r, _ := utf8.DecodeRuneInString(strings.TrimSpace(line)); strings.ContainsRune("，。、；：？！）》」』", r) {
					t.Errorf("%s step %d: a line begins with %q", lang, i+1, r)
				}
			}
		}
	}
}

// scenario run --lang zh prints the lesson in Chinese for a reader
// without a browser (issue 40): titles, narration and the numbers table,
// whose columns line up on a terminal as the English ones do — a Chinese
// character takes two columns, so padding by characters (%-34s) left each
// row's values at a different column.
func TestScenarioRunChineseText(t *testing.T) {
	out, errOut, code := runCLI("scenario", "run", "ring-allreduce", "--lang", "zh")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"step 1  star", "朴素做法：一颗 GPU 收集一切", "环形", "星形", "总线带宽（busbw）"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario run ring-allreduce --lang zh: no %q in\n%s", want, out)
		}
	}
	bar := -1 // the column of the first " | " of the step's table
	tables := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "step ") {
			bar = -1
			continue
		}
		i := strings.Index(line, "  |  ")
		if i < 0 {
			continue
		}
		col := columns(line[:i])
		if bar < 0 {
			bar, tables = col, tables+1
		} else if col != bar {
			t.Errorf("a table row's values start at column %d, its header's at %d: %q", col, bar, line)
		}
	}
	if tables == 0 {
		t.Errorf("no table with two columns in\n%s", out)
	}
	if got := tableText([][]string{{"", "环形", "星形"}, {"用时", "1.06 ms", "8.35 ms"}}, ""); got != "       环形     |  星形\n用时   1.06 ms  |  8.35 ms\n" {
		t.Errorf("tableText = %q", got)
	}
}
