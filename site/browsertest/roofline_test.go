package browsertest

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

type rooflineState struct {
	Step    int    `json:"step"`
	Steps   int    `json:"steps"`
	StepID  string `json:"step_id"`
	Metrics struct {
		GPU        string  `json:"gpu"`
		Dtype      string  `json:"dtype"`
		Peak       float64 `json:"peak_tflops"`
		HBM        float64 `json:"hbm_TBps"`
		Ridge      float64 `json:"ridge_flop_per_byte"`
		Intensity  float64 `json:"intensity_flop_per_byte"`
		Attainable float64 `json:"attainable_tflops"`
		Bound      string  `json:"bound"`
	} `json:"metrics"`
	Error *string `json:"error"`
}

// The roofline lesson: each step's roof equals gpuscope roofline's, the
// attainable rate is min(peak, intensity × bandwidth), the chart is drawn,
// and an FP8 roofline on an A100 is refused with the reason.
func TestRooflineLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=roofline")
	waitReady(ctx)
	var st rooflineState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Steps != 7 {
		t.Fatalf("roofline: %d steps", st.Steps)
	}
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		evalJSON(ctx, "window.gpuscope.state()", &st)
		var want struct {
			Peak  float64 `json:"peak_tflops"`
			HBM   float64 `json:"hbm_TBps"`
			Ridge float64 `json:"ridge_flop_per_byte"`
		}
		cli(t, &want, "roofline", "--gpu", st.Metrics.GPU, "--dtype", st.Metrics.Dtype, "--json")
		m := st.Metrics
		if m.Peak != want.Peak || m.HBM != want.HBM || m.Ridge != want.Ridge {
			t.Errorf("step %d: page %+v, CLI %v", n, m, want)
		}
		if att := math.Min(m.Peak, m.Intensity*m.HBM); math.Abs(att-m.Attainable) > 1e-9*att {
			t.Errorf("step %d: attainable %g, want min(peak, I·B) = %g", n, m.Attainable, att)
		}
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("roofline-step%d-%s", n, st.StepID)))
		stage := elementRect(ctx, "#stage").image()
		// The current roof in the active colour (either theme).
		roof := countPixels(img, stage, activeDark, 20) + countPixels(img, stage, activeLight, 20)
		if roof < 200 {
			t.Errorf("step %d: %d pixels of the current roof, want the chart drawn", n, roof)
		}
	}
	// FP8 on an A100: refused, naming the reason; the lesson keeps its roof.
	command(ctx, `{type: "goto", step: 7}`)
	command(ctx, `{type: "set", gpu: "a100-80gb", dtype: "fp8"}`)
	settle(ctx)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	// (The two knobs go in together, so the whole change is refused and
	// the roof is the one before it: H100's.)
	if st.Error == nil || !strings.Contains(strings.ToLower(*st.Error), "fp8") || !strings.Contains(*st.Error, "dtype") || st.Metrics.Peak == 0 {
		e := ""
		if st.Error != nil {
			e = *st.Error
		}
		t.Errorf("A100 FP8: error %q, peak %g; want the refusal and the last good roof", e, st.Metrics.Peak)
	}
}
