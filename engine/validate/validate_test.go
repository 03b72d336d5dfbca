package validate

import (
	"math"
	"strings"
	"testing"
)

// Every held row is inside its tolerance; open rows are stated as open,
// with why. Each row's error is (engine − published) / published.
func TestEveryRowWithinTolerance(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	issue37 := map[string]bool{}
	for _, s := range issue37Specs() {
		issue37[s.name] = true
	}
	open := 0
	for _, r := range rows {
		if seen[r.Name] {
			t.Errorf("%s: two rows of that name", r.Name)
		}
		seen[r.Name] = true
		if r.Source == "" || r.Quantity == "" || r.Config == "" || r.Published == 0 || r.Tolerance <= 0 {
			t.Errorf("%s: incomplete row %+v", r.Name, r)
		}
		if want := (r.Engine - r.Published) / r.Published; r.Error != want || math.IsNaN(r.Engine) {
			t.Errorf("%s: error %g, want (engine − published) / published = %g", r.Name, r.Error, want)
		}
		t.Logf("%-34s %-6s published %-10.4g engine %-10.4g error %+6.1f%% (±%g%%)", r.Name, r.Status, r.Published, r.Engine, 100*r.Error, 100*r.Tolerance)
		switch r.Status {
		case Held:
			if !r.Within() {
				t.Errorf("%s: %.4g against the published %.4g: %+.1f%%, outside ±%g%% (%s)", r.Name, r.Engine, r.Published, 100*r.Error, 100*r.Tolerance, r.Source)
			}
		case Open:
			open++
			if !strings.HasPrefix(r.Name, "deepseek-v3-") && !issue37[r.Name] && korthikantiOpen[r.Name] == "" && r.Name != "llama3-405b-gpu-hours" {
				t.Errorf("%s: open (%s); of the rows outside issue 37's, only DeepSeek-V3's, the 1T's (korthikantiOpen, since the stragglers) and Llama 3's GPU-hours (the failures assumed) are not reproduced yet", r.Name, r.Note)
			}
			if r.Note == "" {
				t.Errorf("%s: open without a note saying why", r.Name)
			}
		default:
			t.Errorf("%s: status %q", r.Name, r.Status)
		}
	}
	for _, prefix := range []string{"zero-", "korthikanti-", "narayanan-", "llama3-405b-8k-8192", "llama3-405b-8k-16384", "llama3-405b-131k", "deepseek-v3-chunk-pair", "deepseek-v3-dualpipe", "nccl-allreduce-ring", "nccl-allreduce-nvls", "gemm-h200", "deepgemm-", "params-", "megascale-", "bloom-", "dgxc-", "megatron-core-", "llmfoundry-", "torchtitan-", "narayanan21-t2-", "mtnlg-", "nemotron4-", "bloomberggpt-", "opt-", "llama1-", "llama3-405b-gpu-hours", "deepseek-v3-gpu-hours", "bloom-176b-gpu-hours"} {
		found := false
		for name := range seen {
			found = found || strings.HasPrefix(name, prefix)
		}
		if !found {
			t.Errorf("no row %s…", prefix)
		}
	}
	mean, maxAbs := Summary(rows)
	all := AllMeans(rows)
	t.Logf("%d rows (%d open): held rows' mean |error| %.1f%%, max %.1f%%; all rows' %.1f%% (signed %+.1f%%), unseen rows' %.1f%% (%+.1f%%)", len(rows), open, 100*mean, 100*maxAbs,
		100*all.All.AbsError, 100*all.All.Error, 100*all.Unseen.AbsError, 100*all.Unseen.Error)
	if !(mean > 0) || maxAbs < mean {
		t.Errorf("mean %g, max %g", mean, maxAbs)
	}
}

// Same configurations, same rows.
func TestRowsDeterministic(t *testing.T) {
	a, _ := Rows()
	b, _ := Rows()
	if len(a) != len(b) {
		t.Fatal("row counts differ")
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d differs: %+v, %+v", i, a[i], b[i])
		}
	}
}

// DeepSeek's own profile of a paired forward and backward chunk, run
// through DualPipe's bubble at DeepSeek-V3's shape, by hand: 120
// micro-batches a rank (15,360 ÷ 128) of 0.129012 s each, and
// (16/2 − 1)·(0.129012 + 0.091490 − 3·0.035067) = 7 × 0.115301 s of
// bubble: 15.481 + 0.807 = 16.289 s, 3.862M tokens/s — 22% more than
// the GPU-hours imply, more than the row's 15%: even DeepSeek's measured
// kernels do not reach the published rate as steady training, which is
// why deepseek-v3-dualpipe is open while its chunk pair is held.
func TestDeepSeekV3ProfileStep(t *testing.T) {
	const want = 120*0.129012 + 7*(0.129012+0.091490-3*0.035067)
	if got := DeepSeekV3ProfileStep(); math.Abs(got-want) > 1e-9 || math.Abs(got-16.289) > 0.001 {
		t.Fatalf("profile step %.4f s, want %.4f", got, want)
	}
	rate := 15360 * 4096 / DeepSeekV3ProfileStep()
	if e := rate/DeepSeekV3TokensPerS - 1; e < 0.15 || e > 0.25 {
		t.Errorf("the profile's steady rate %.3gM against the GPU-hours' %.3gM: %+.1f%%", rate/1e6, DeepSeekV3TokensPerS/1e6, 100*e)
	}
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch r.Name {
		case "deepseek-v3-chunk-pair":
			if r.Status != Held || r.Published != DeepSeekV3Profile.Pair {
				t.Errorf("%s: %s, published %g", r.Name, r.Status, r.Published)
			}
		case "deepseek-v3-dualpipe":
			// The engine's step is slower than the profile's: what it
			// lacks to reach the GPU-hours is not in the chunks.
			if step := 15360 * 4096 / r.Engine; step <= DeepSeekV3ProfileStep() {
				t.Errorf("engine step %.2f s, not slower than the profile's %.2f s", step, DeepSeekV3ProfileStep())
			}
			if !strings.Contains(r.Note, "16.3 s") {
				t.Errorf("note does not give the profile's step: %s", r.Note)
			}
		}
	}
}
