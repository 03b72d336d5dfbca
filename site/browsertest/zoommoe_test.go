package browsertest

import (
	"fmt"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom in the mixture-of-experts lesson: a link with the lesson's gpu
// knob (a model) and the zoom's GPU (a number) opens zoomed on GPU 5 of
// H800s; at the step's end its expert's gate-and-up GEMM runs, as the
// native player says for the same link and moment; each level draws.
func TestZoomMoE(t *testing.T) {
	link := "scenario=mixture-of-experts&step=4&gpu=h800&zoom=gpu&gpu=5"
	ctx := open(t, "index.html#"+link)
	waitReady(ctx)
	var st struct {
		zoomState
		Config struct {
			GPU string `json:"gpu"`
		} `json:"config"`
		To float64 `json:"to_s"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Config.GPU != "h800" || st.Zoom == nil || st.Zoom.GPU != 5 || st.Zoom.Level != "gpu" || st.Zoom.Kernel != "ep_dispatch" {
		t.Errorf("opened: gpu %q, zoom %+v", st.Config.GPU, st.Zoom)
	}
	command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, st.To))
	settle(ctx)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Zoom == nil || st.Zoom.Kernel != "experts_up" || st.Zoom.GPU != 5 {
		t.Errorf("GPU 5 at the step's end: zoom %+v", st.Zoom)
	}
	p, _, err := scenarios.NewPlayerAt(link)
	if err != nil {
		t.Fatal(err)
	}
	p.Command([]byte(fmt.Sprintf(`{"type":"goto","time_s":%g}`, st.To)))
	if z := p.Report().Zoom; st.Zoom == nil || z.Kernel != st.Zoom.Kernel || z.TimeS != st.Zoom.TimeS || z.GPU != st.Zoom.GPU {
		t.Errorf("page %+v, native %+v", st.Zoom, z)
	}
	zoomLevelsDraw(t, ctx, "moe")
	zh := open(t, "index.html#"+link+"&lang=zh")
	waitReady(zh)
	command(zh, fmt.Sprintf(`{type: "goto", time_s: %g}`, st.To))
	settle(zh)
	screenshot(zh, "zoom-moe-gpu-zh")
}
