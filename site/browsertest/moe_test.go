package browsertest

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The mixture-of-experts lesson, step by step: each step's numbers are
// what its gpuscope route command prints, the question gates them, the
// picture is drawn, and the skewed router's overflow shows in the dropped
// copies' colour. A bad EP for the model is refused, naming ep and the
// allowed values, and the lesson keeps its last good state.
func TestMixtureOfExperts(t *testing.T) {
	ctx := open(t, "index.html#scenario=mixture-of-experts")
	waitReady(ctx)
	var st infraState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	asked := 0
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		command(ctx, `{type: "goto", time_s: 1e9}`)
		settle(ctx)
		st = infraState{}
		evalJSON(ctx, "window.gpuscope.state()", &st)
		if st.Error != nil {
			t.Fatalf("step %d: %s", n, *st.Error)
		}
		if q := st.Question; q != nil && !q.Answered {
			asked++
			if text(ctx, "#metrics table") != "" {
				t.Errorf("step %d: numbers shown before the answer", n)
			}
			chromedpRun(t, ctx, chromedp.Click(`#predict button[data-choice="0"]`, chromedp.ByQuery))
			settle(ctx)
		}
		cmd, _ := st.Metrics["command"].(string)
		var cliOut map[string]any
		cli(t, &cliOut, strings.Fields(strings.TrimPrefix(cmd, "gpuscope "))...)
		for _, k := range []string{"active_params", "max_load", "dropped", "dispatch_bytes", "layer_s"} {
			if cliOut[k] != st.Metrics[k] {
				t.Errorf("step %d: %s: CLI %v, page %v", n, k, cliOut[k], st.Metrics[k])
			}
		}
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("mixture-of-experts-step%d-%s", n, st.StepID)))
		area := elementRect(ctx, "#stage").image()
		if px := drawn(img, area); px < 2000 {
			t.Errorf("step %d: %d pixels drawn", n, px)
		}
		if st.StepID == "imbalance" {
			// The hot colour (dark or light theme): the busiest expert's
			// copies over its capacity.
			hot := max(longestRun(img, area, color.RGBA{0xf0, 0x72, 0x1e, 255}), longestRun(img, area, color.RGBA{0xd5, 0x5e, 0x00, 255}))
			if d, _ := st.Metrics["dropped"].(float64); d <= 0 || hot < 10 {
				t.Errorf("imbalance: %v copies dropped, no dropped bar drawn", st.Metrics["dropped"])
			}
		}
	}
	if asked != 2 {
		t.Errorf("%d questions asked, want 2", asked)
	}
	// The last step's knobs are free: DeepSeek-V3 on 64 GPUs is fine,
	// Mixtral on 64 is not (8 experts).
	command(ctx, `{type: "set", model: "deepseek-v3", ep: 64}`) // together: EP 64 alone would refuse Mixtral's 8 experts
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	good := st.Metrics["dispatch_bytes"]
	if st.Error != nil || good == nil {
		t.Fatalf("DeepSeek-V3 on EP 64: error %v, metrics %v", st.Error, st.Metrics)
	}
	command(ctx, `{type: "set", model: "mixtral-8x7b"}`)
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error == nil || !strings.Contains(*st.Error, "ep") || !strings.Contains(*st.Error, "1, 2, 4, 8") {
		t.Errorf("Mixtral on EP 64: error %v, want ep and its allowed values named", st.Error)
	}
	if st.Metrics["dispatch_bytes"] != good {
		t.Errorf("after the refusal the numbers changed: %v, were %v", st.Metrics["dispatch_bytes"], good)
	}
}
