package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// Each side's C fills in proportion to its progress.
func TestCPUGPUPicture(t *testing.T) {
	v := CPUGPUView{Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		CPUName: "64-core CPU", GPUName: "H100 SXM", CPUCores: 64, GPUSMs: 132, GPUCores: 16896,
		CPUDone: 0.25, GPUDone: 1, Highlight: true}
	l := AppendCPUGPU(List{}, v)
	golden.Check(t, "cpugpu.golden", l.String())
	cells := map[Color]int{}
	for _, it := range l.Items {
		if it.Kind == FillRect && it.W == it.H {
			cells[it.Color]++
		}
	}
	if cells[Dark.Hot] != 144 || cells[Dark.Rim] != 576 || cells[Dark.Empty] != 432 {
		t.Errorf("C cells: CPU %d done, GPU %d done, %d empty; want 144, 576, 432", cells[Dark.Hot], cells[Dark.Rim], cells[Dark.Empty])
	}
}
