package browsertest

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The fused-kernels lesson: 13 bytes an element unfused, 5 fused (BF16),
// the time in proportion, and the picture drawn.
func TestFusedKernelsLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=fused-kernels&tokens=8192&hidden=4096")
	waitReady(ctx)
	var st struct {
		Steps   int `json:"steps"`
		Metrics struct {
			Elements float64 `json:"elements"`
			Unfused  struct {
				Kernels  int     `json:"kernels"`
				HBMBytes float64 `json:"hbm_bytes"`
				TimeS    float64 `json:"time_s"`
			} `json:"unfused"`
			Fused struct {
				Kernels  int     `json:"kernels"`
				HBMBytes float64 `json:"hbm_bytes"`
				TimeS    float64 `json:"time_s"`
			} `json:"fused"`
			Speedup float64 `json:"speedup"`
		} `json:"metrics"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	m := st.Metrics
	n := 8192.0 * 4096
	if m.Elements != n || m.Unfused.HBMBytes != 13*n || m.Fused.HBMBytes != 5*n || m.Unfused.Kernels != 3 || m.Fused.Kernels != 1 {
		t.Errorf("metrics %+v; want %g elements, 13 and 5 bytes each, 3 and 1 kernels", m, n)
	}
	// Hand-worked: bytes ÷ 3.35 TB/s + 4 µs a launch.
	if want := 13*n/3.35e12 + 3*4e-6; math.Abs(m.Unfused.TimeS-want)/want > 1e-9 {
		t.Errorf("unfused time %g, want %g", m.Unfused.TimeS, want)
	}
	// Part-way: the fused kernel is done, the three are not.
	command(ctx, `{type: "goto", step: 1}`)
	command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, m.Fused.TimeS*1.1))
	settle(ctx)
	if live := text(ctx, "#live"); !strings.Contains(live, "fused kernel 100%") || strings.Contains(live, "kernels 100%") {
		t.Errorf("at 1.1× the fused time: %q; want the fused kernel done and the three not", live)
	}
	for i := 1; i <= st.Steps; i++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, i))
		command(ctx, `{type: "goto", time_s: 1}`) // the end of the run: both sides done
		settle(ctx)
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("fused-step%d", i)))
		rim := countPixels(img, elementRect(ctx, "#stage").image(), rimLight, 20) +
			countPixels(img, elementRect(ctx, "#stage").image(), rimDark, 20)
		if rim < 500 {
			t.Errorf("step %d: %d pixels of kernel blocks, want the blocks drawn", i, rim)
		}
	}
}
