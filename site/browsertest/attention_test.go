package browsertest

import (
	"fmt"
	"testing"
)

// The flash-attention lesson: each step's numbers are gpuscope attention's
// for both implementations, the chart is drawn, and the two outputs agree.
func TestFlashAttentionLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=flash-attention&seq=4096&heads=16")
	waitReady(ctx)
	var st struct {
		Steps   int            `json:"steps"`
		Config  map[string]any `json:"config"`
		Metrics struct {
			Standard   map[string]any `json:"standard"`
			Flash      map[string]any `json:"flash"`
			Speedup    float64        `json:"speedup"`
			MaxAbsDiff float64        `json:"max_abs_difference"`
		} `json:"metrics"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Steps != 5 || st.Config["seq"] != 4096.0 {
		t.Fatalf("flash-attention: %d steps, config %v", st.Steps, st.Config)
	}
	for _, impl := range []string{"standard", "flash"} {
		var want map[string]any
		cli(t, &want, "attention", "--seq", "4096", "--head-dim", "128", "--heads", "16", "--batch", "1", "--gpu", "h100", "--impl", impl, "--json")
		got := st.Metrics.Standard
		if impl == "flash" {
			got = st.Metrics.Flash
		}
		for _, k := range []string{"hbm_bytes", "time_s", "score_bytes"} {
			if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
				t.Errorf("%s %s: page %v, CLI %v", impl, k, got[k], want[k])
			}
		}
	}
	if st.Metrics.Speedup < 1.5 || st.Metrics.MaxAbsDiff > 1e-12 {
		t.Errorf("speed-up %g, largest difference %g; want > 1.5 and ≤ 1e-12", st.Metrics.Speedup, st.Metrics.MaxAbsDiff)
	}
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("flash-attention-step%d", n)))
		stage := elementRect(ctx, "#stage").image()
		hot := countPixels(img, stage, hotLight, 20) + countPixels(img, stage, hotDark, 20)
		rim := countPixels(img, stage, rimLight, 20) + countPixels(img, stage, rimDark, 20)
		if hot < 200 || rim < 200 {
			t.Errorf("step %d: %d standard-curve and %d flash-curve pixels, want both curves drawn", n, hot, rim)
		}
	}
}
