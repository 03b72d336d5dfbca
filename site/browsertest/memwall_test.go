package browsertest

import (
	"fmt"
	"math"
	"testing"
)

// The memory-wall lesson: each kernel's numbers are gpuscope gemm's, the
// traffic falls by the tile factor, naive is memory-bound and tensor
// cores compute-bound; the picture animates.
func TestMemoryWallLesson(t *testing.T) {
	ctx := open(t, "index.html#scenario=memory-wall&size=2048")
	waitReady(ctx)
	type gemm struct {
		HBMBytes    float64 `json:"hbm_bytes"`
		TFLOPS      float64 `json:"tflops"`
		Bound       string  `json:"bound"`
		Utilization float64 `json:"utilization"`
	}
	var st struct {
		Steps   int `json:"steps"`
		Metrics struct {
			gemm
			Kernel string `json:"kernel"`
		} `json:"metrics"`
	}
	flags := map[string][]string{
		"naive":  {"--kernel", "naive"},
		"smem16": {"--kernel", "smem-tiled", "--tile", "16"},
		"smem32": {"--kernel", "smem-tiled", "--tile", "32"},
		"tensor": {"--kernel", "tensor-tiled"},
	}
	bytes := map[string]float64{}
	for n := 1; n <= 4; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		evalJSON(ctx, "window.gpuscope.state()", &st)
		var want gemm
		cli(t, &want, append([]string{"gemm", "--m", "2048", "--n", "2048", "--k", "2048", "--dtype", "bf16", "--gpu", "h100", "--json"}, flags[st.Metrics.Kernel]...)...)
		if st.Metrics.gemm != want {
			t.Errorf("%s: page %+v, CLI %+v", st.Metrics.Kernel, st.Metrics.gemm, want)
		}
		bytes[st.Metrics.Kernel] = st.Metrics.HBMBytes
		img := decodePNG(t, screenshot(ctx, "memwall-"+st.Metrics.Kernel))
		active := countPixels(img, elementRect(ctx, "#stage").image(), activeLight, 20) +
			countPixels(img, elementRect(ctx, "#stage").image(), activeDark, 20)
		if active < 300 {
			t.Errorf("%s: %d pixels of the current kernel's bars, want them drawn", st.Metrics.Kernel, active)
		}
	}
	if r := bytes["naive"] / bytes["smem16"]; math.Abs(r-16)/16 > 0.05 {
		t.Errorf("16×16 tiles cut HBM bytes ×%.1f, want ≈ 16", r)
	}
	if r := bytes["smem16"] / bytes["smem32"]; math.Abs(r-2)/2 > 0.05 {
		t.Errorf("32×32 against 16×16: ×%.2f, want ≈ 2", r)
	}
}
