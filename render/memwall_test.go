package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// memwallView is 4096³ in BF16 on an H100 with the step's kernel cur and
// the kernels up to it shown.
func memwallView(cur int, progress float64) MemwallView {
	ks := []MemwallKernel{
		{Name: "naive", Bytes: 2.75e11, FLOPs: 1.374e11, TFLOPS: 1.67, Utilization: 0.00169, Bound: "memory", Seconds: 0.0821},
		{Name: "16×16", Tile: 16, Bytes: 1.72e10, FLOPs: 1.374e11, TFLOPS: 14.6, Utilization: 0.0147, Bound: "shared-memory", Seconds: 0.00945},
		{Name: "32×32", Tile: 32, Bytes: 8.62e9, FLOPs: 1.374e11, TFLOPS: 15.0, Utilization: 0.0152, Bound: "shared-memory", Seconds: 0.00917},
		{Name: "tensor", Tile: 128, Bytes: 1.72e8, FLOPs: 1.374e11, TFLOPS: 787, Utilization: 0.795, Bound: "compute", Seconds: 0.000175},
	}
	for i := range ks {
		ks[i].Current, ks[i].Shown = i == cur, i <= cur
	}
	return MemwallView{Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Kernels: ks, PeakTFLOPS: 989.4, HBMName: "80 GB · 3.35 TB/s", Progress: progress, Steps: 16}
}

func TestMemwallGolden(t *testing.T) {
	golden.Check(t, "memwall_naive.golden", AppendMemwall(draw.List{}, memwallView(0, 0.3)).String())
	golden.Check(t, "memwall_tensor.golden", AppendMemwall(draw.List{}, memwallView(3, 0.7)).String())
}

// The naive kernel streams operand carts down the road and lights no
// core; the tensor kernel lights 79.5% of them; each step shows the
// kernels so far; the bytes counter grows with the loop.
func TestMemwallPicture(t *testing.T) {
	cA, cB, busy := memwallColours(draw.Dark)
	count := func(l draw.List, c draw.Color) int {
		n := 0
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == c {
				n++
			}
		}
		return n
	}
	naive := AppendMemwall(draw.List{}, memwallView(0, 0.3))
	tensor := AppendMemwall(draw.List{}, memwallView(3, 0.3))
	// Carts: nine pairs on the road (plus the shelves' boxes, five each, and the legend's swatch).
	if got := count(naive, cA); got != 9+1 {
		t.Errorf("naive: %d A-coloured boxes, want 9 carts and the legend", got)
	}
	if got := count(naive, busy); got != 1+1 { // the busy meter's sliver and the legend
		t.Errorf("naive: %d busy marks, want no core lit", got)
	}
	if got := count(tensor, busy); got != 19+2 { // 79.5% of 24 cores, the meter, the legend
		t.Errorf("tensor: %d busy marks, want 19 cores lit", got)
	}
	_ = cB
	rows := func(l draw.List) int {
		n := 0
		for _, s := range labels(l) {
			if strings.HasPrefix(s, "tflops ") {
				n++
			}
		}
		return n
	}
	for cur := 0; cur < 4; cur++ {
		if got := rows(AppendMemwall(draw.List{}, memwallView(cur, 0.5))); got != cur+1 {
			t.Errorf("step of kernel %d: %d kernels in the summary, want %d", cur, got, cur+1)
		}
	}
	got := strings.Join(labels(AppendMemwall(draw.List{}, memwallView(1, 0.5))), "\n")
	for _, want := range []string{"clock t 4.72 ms time 9.45 ms", "moved bytes 8.6 GB total 17.2 GB", "bytes_axis", "tflops v 14.6 bound shared-memory", "tflops v 1.67 bound memory", "\n82.1 ms\n", "\n9.45 ms\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

func TestMemwallText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for cur := 0; cur < 4; cur++ {
			v := memwallView(cur, 0.6)
			v.Stage, v.Width, v.Height = st, st.W, st.H
			checkText(t, AppendMemwall(draw.List{}, v), st, 13.5)
		}
	}
}
