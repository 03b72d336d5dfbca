package browsertest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// The cpu-vs-gpu lesson: the CPU wins one element, the GPU the whole
// product; playing fills the GPU's C long before the CPU's.
func TestCPUvsGPULesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=cpu-vs-gpu")
	waitReady(ctx)
	var st struct {
		Steps   int `json:"steps"`
		Metrics struct {
			CPUElement float64 `json:"cpu_element_s"`
			GPUElement float64 `json:"gpu_element_s"`
			CPUTotal   float64 `json:"cpu_total_s"`
			GPUTotal   float64 `json:"gpu_total_s"`
			GPUCores   int     `json:"gpu_cuda_cores"`
		} `json:"metrics"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	m := st.Metrics
	if math.Abs(m.CPUElement-4096/3.5e9) > 1e-15 || m.CPUElement >= m.GPUElement || m.GPUTotal >= m.CPUTotal/9 || m.GPUCores != 16896 {
		t.Errorf("metrics %+v", m)
	}
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		screenshot(ctx, fmt.Sprintf("cpugpu-step%d", n))
	}
	// Play the throughput step: the GPU's C is full while the CPU's is not.
	command(ctx, `{type: "goto", step: 3}`)
	command(ctx, `{type: "set", speed: 4}`)
	command(ctx, `{type: "play"}`)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(text(ctx, "#live"), "the GPU 100%") {
		if time.Now().After(deadline) {
			t.Fatalf("the GPU never finished: %q", text(ctx, "#live"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	command(ctx, `{type: "pause"}`)
	settle(ctx)
	if live := text(ctx, "#live"); strings.Contains(live, "finished 100% of C") {
		t.Errorf("the CPU finished with the GPU: %q", live)
	}
	img := decodePNG(t, screenshot(ctx, "cpugpu-gpu-done"))
	rim := countPixels(img, elementRect(ctx, "#stage").image(), rimLight, 20) +
		countPixels(img, elementRect(ctx, "#stage").image(), rimDark, 20)
	if rim < 5000 {
		t.Errorf("%d pixels of the GPU's finished C, want it full", rim)
	}
}
