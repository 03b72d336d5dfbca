package browsertest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The simt-launch lesson: occupancy, waves and divergence as worked by
// hand in engine/kernel's tests, the SM grid drawn, the waves played, and
// the frame budget of the busiest silicon view (132 SMs).
func TestSIMTLaunchLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=simt-launch")
	waitReady(ctx)
	type launch struct {
		BlocksPerSM int     `json:"blocks_per_sm"`
		Limit       string  `json:"limit"`
		Occupancy   float64 `json:"occupancy"`
		Waves       int     `json:"waves"`
		IssueSlots  int     `json:"issue_slots"`
		IdleLanes   float64 `json:"idle_lanes"`
	}
	var st struct {
		Steps   int    `json:"steps"`
		StepID  string `json:"step_id"`
		Metrics launch `json:"metrics"`
	}
	want := map[string]launch{
		"occupancy":  {4, "registers", 0.5, 2, 40, 0.375},
		"registers":  {2, "registers", 0.25, 4, 40, 0.375},
		"divergence": {4, "registers", 0.5, 2, 40, 0.375},
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		evalJSON(ctx, "window.gpuscope.state()", &st)
		if w, ok := want[st.StepID]; ok && st.Metrics != w {
			t.Errorf("step %s: %+v, want %+v", st.StepID, st.Metrics, w)
		}
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("simt-step%d-%s", n, st.StepID)))
		rims := countPixels(img, elementRect(ctx, "#stage").image(), rimLight, 20) +
			countPixels(img, elementRect(ctx, "#stage").image(), rimDark, 20)
		// Every step draws the 132 SMs' rims (smaller beside the zoomed SM
		// of steps 2 and 3).
		if rims < 132*12 {
			t.Errorf("step %d: %d SM-rim pixels, want all 132 SMs drawn", n, rims)
		}
	}
	// Play the tail step: the live line reaches the last wave.
	command(ctx, `{type: "goto", step: 4}`)
	command(ctx, `{type: "set", speed: 4}`)
	command(ctx, `{type: "play"}`)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(text(ctx, "#live"), "2 of 2") && !strings.Contains(text(ctx, "#live"), "2 / 2") {
		if time.Now().After(deadline) {
			t.Fatalf("the waves never reached 2 of 2: %q", text(ctx, "#live"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	screenshot(ctx, "simt-tail-wave2")
}
