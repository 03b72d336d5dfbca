package browsertest

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// numfmtState is the number-formats part of state().
type numfmtState struct {
	Step    int    `json:"step"`
	Steps   int    `json:"steps"`
	StepID  string `json:"step_id"`
	Playing bool   `json:"playing"`
	TimeS   float64
	Config  map[string]any `json:"config"`
	Metrics struct {
		Format   string `json:"format"`
		Value    any    `json:"value"`
		Stored   any    `json:"stored"`
		Bits     string `json:"bits"`
		Training []struct {
			Variant    string `json:"variant"`
			DiedAtStep int    `json:"died_at_step"`
			Skipped    int    `json:"skipped_steps"`
		} `json:"training"`
	} `json:"metrics"`
	Error *string `json:"error"`
}

// The number-formats lesson: every step loads, its numbers are the CLI's,
// the bits are drawn in their field colours, the training chart appears
// where the step shows it, and a bad value is refused by name.
func TestNumberFormatsLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=number-formats&lang=en")
	waitReady(ctx)
	var st numfmtState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Steps != 7 || st.Step != 1 {
		t.Fatalf("number-formats: step %d of %d", st.Step, st.Steps)
	}
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		evalJSON(ctx, "window.gpuscope.state()", &st)
		// The CLI agrees on the stored value and the bits of the step's
		// value and format.
		var want map[string]any
		cli(t, &want, "numfmt", "--format", st.Metrics.Format, "--value", fmt.Sprint(st.Metrics.Value), "--json")
		if fmt.Sprint(want["stored"]) != fmt.Sprint(st.Metrics.Stored) || want["bits"] != st.Metrics.Bits {
			t.Errorf("step %d (%s): page stored %v bits %q; CLI %v %q", n, st.StepID, st.Metrics.Stored, st.Metrics.Bits, want["stored"], want["bits"])
		}
		img := decodePNG(t, screenshot(ctx, "numfmt-step"+fmt.Sprint(n)+"-"+st.StepID))
		stage := elementRect(ctx, "#stage").image()
		exp := countPixels(img, stage, color.RGBA{0x3b, 0x82, 0xd6, 255}, 12)
		if exp < 100 {
			t.Errorf("step %d: %d exponent-blue pixels, want the bit rows drawn", n, exp)
		}
		training := strings.Contains(st.StepID, "fp16") || strings.Contains(st.StepID, "bf16") || st.StepID == "loss-scaling"
		hotLines := countPixels(img, stage, hotLight, 20) + countPixels(img, stage, hotDark, 20)
		if training && hotLines == 0 {
			t.Errorf("step %d (%s): no loss chart (no spike marker)", n, st.StepID)
		}
	}
	// The story's numbers: FP16 dies after the spike, the others do not.
	died := map[string]int{}
	for _, v := range st.Metrics.Training {
		died[v.Variant] = v.DiedAtStep
	}
	if died["fp16"] != 101 || died["bf16"] != -1 || died["fp16-scaled"] != -1 {
		t.Errorf("died at: %v; want fp16 101, others -1", died)
	}
	// Play the FP16 run: the live line reaches NaN.
	command(ctx, `{type: "goto", step: 4}`)
	command(ctx, `{type: "set", speed: 4}`)
	command(ctx, `{type: "play"}`)
	// Playback advances per tick, not per wall second: a loaded machine
	// plays slower, so the deadline is generous.
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(text(ctx, "#live"), "NaN") {
		if time.Now().After(deadline) {
			t.Fatalf("the FP16 loss never showed NaN while playing: %q", text(ctx, "#live"))
		}
		time.Sleep(300 * time.Millisecond)
	}
	screenshot(ctx, "numfmt-fp16-died")
	// Free step: type a value; a bad one is refused by name.
	command(ctx, `{type: "goto", step: 7}`)
	chromedpRun(t, ctx, chromedp.SetValue("#knob-value", "abc", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("knob-value").dispatchEvent(new Event("change")) && true`, nil))
	// The change reaches the lesson on the page's next Update: on a
	// loaded machine later than a settle's three frames (make test saw
	// the old state once).
	waitJSOrTimeout(ctx, `window.gpuscope.state().error != null`, 10*time.Second)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error == nil || !strings.Contains(*st.Error, "value") || st.Config["value"] != 70000.0 {
		t.Errorf("value abc: error %v, value %v; want an error naming value and 70000 kept", st.Error, st.Config["value"])
	}
	chromedpRun(t, ctx, chromedp.SetValue("#knob-value", "65519", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("knob-value").dispatchEvent(new Event("change")) && true`, nil))
	waitJSOrTimeout(ctx, `window.gpuscope.state().error == null`, 10*time.Second)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if fmt.Sprint(st.Metrics.Stored) != "65504" || st.Error != nil {
		t.Errorf("FP16 65519: stored %v (error %v), want 65504", st.Metrics.Stored, st.Error)
	}
	// Chinese.
	command(ctx, `{type: "set", lang: "zh"}`)
	settle(ctx)
	if n := text(ctx, "#narration"); !hasHan(n) {
		t.Errorf("zh narration %q", n)
	}
	screenshot(ctx, "numfmt-zh")
}
