package browsertest

import (
	"fmt"
	"strings"
	"testing"
)

// The fp8-training lesson, step by step: each step's numbers are what its
// gpuscope quantize command prints, its two questions gate the numbers,
// the picture is drawn; a refused outlier names the knob and its allowed
// values and keeps the last good numbers. Then every step in Chinese, on a
// phone and in presentation mode, for a person to look at
// (out/screens/fp8-*).
func TestFP8Training(t *testing.T) {
	sideBySide(t)
	ctx := open(t, "index.html#scenario=fp8-training")
	waitReady(ctx)
	var st infraState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	asked := 0
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		st = infraStateOf(ctx)
		if st.Error != nil {
			t.Errorf("step %d: %s", n, *st.Error)
		}
		var ok bool
		if st, ok = answerIfAsked(t, ctx, st, fmt.Sprintf("step %d", n), fmt.Sprintf("fp8-step%d-%s-question", n, st.StepID)); ok {
			asked++
		}
		cmd, _ := st.Metrics["command"].(string)
		var cliOut map[string]any
		cli(t, &cliOut, strings.Fields(strings.TrimPrefix(cmd, "gpuscope "))...)
		for _, k := range []string{"underflow", "overflow", "typical_rel_rmse", "bytes_per_value"} {
			if cliOut[k] != st.Metrics[k] {
				t.Errorf("step %d: %s: CLI %v, page %v", n, k, cliOut[k], st.Metrics[k])
			}
		}
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("fp8-step%d-%s", n, st.StepID)))
		if px := drawn(img, elementRect(ctx, "#stage").image()); px < 2000 {
			t.Errorf("step %d: %d pixels drawn", n, px)
		}
	}
	if asked != 2 {
		t.Errorf("asked %d questions, want 2", asked)
	}
	// The last step's knobs are free; 7× is not an outlier the lesson has.
	command(ctx, `{type: "set", recipe: "nvfp4", outlier: 10000}`)
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	good := st.Metrics["underflow"]
	if st.Error != nil || good == nil || st.Metrics["recipe"] != "nvfp4" {
		t.Fatalf("nvfp4 at 10,000×: error %v, metrics %v", st.Error, st.Metrics)
	}
	command(ctx, `{type: "set", outlier: 7}`)
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error == nil || !strings.Contains(*st.Error, "outlier") || !strings.Contains(*st.Error, "100000") {
		t.Errorf("outlier 7: error %v, want outlier and its allowed values named", st.Error)
	}
	if st.Metrics["underflow"] != good {
		t.Errorf("after the refusal the numbers changed: %v, were %v", st.Metrics["underflow"], good)
	}

	for _, v := range []struct {
		name, frag string
		w, h       int64
	}{{"zh", "&lang=zh", 1280, 800}, {"phone", "&lang=en", 390, 844}, {"present", "&lang=en&present=1", 1280, 800}, {"phone-zh", "&lang=zh", 390, 844}} {
		t.Run(v.name, func(t *testing.T) {
			ctx := openSized(t, "index.html#scenario=fp8-training"+v.frag, v.w, v.h)
			waitReady(ctx)
			var st infraState
			evalJSON(ctx, "window.gpuscope.state()", &st)
			for n := 1; n <= st.Steps; n++ {
				command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
				settle(ctx)
				evalJSON(ctx, "window.gpuscope.state()", &st)
				if q := st.Question; q != nil && !q.Answered {
					command(ctx, `{type: "answer", choice: 0}`)
					settle(ctx)
				}
				img := decodePNG(t, screenshot(ctx, fmt.Sprintf("fp8-step%d-%s", n, v.name)))
				if px := drawn(img, elementRect(ctx, "#stage").image()); px < 1000 {
					t.Errorf("step %d: %d pixels drawn", n, px)
				}
			}
		})
	}
}
