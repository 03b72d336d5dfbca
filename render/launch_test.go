package render

import (
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func launchView(wave int) LaunchView {
	return LaunchView{
		Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		GPU: "H100 SXM", SMs: 132, MaxWarps: 64, Blocks: 1000, BlocksPerSM: 4, WarpsPerBlock: 8,
		Wave: wave, Waves: 2, Taken: 8, CostA: 10, CostB: 30,
	}
}

// Wave 1 fills all 132 SMs with 4 blocks of 8 warps; wave 2 holds the 472
// left; the warp at the branch lights 8 lanes on one path, 24 on the other.
func TestLaunchPicture(t *testing.T) {
	l1 := AppendLaunch(List{}, launchView(1))
	golden.Check(t, "launch_wave1.golden", l1.String())
	// At 800×600 a warp slot is under 2 px, so each block is one bar as
	// wide as its 8 warps: count warps by width.
	warps := func(l List) int {
		var w float32
		box := float32(0)
		for _, it := range l.Items {
			if it.Kind == FillRect && it.Color == Dark.GPU {
				box = it.W
			}
			if it.Kind == FillRect && box > 0 && it.H == box*0.8 && it.Color != Dark.GPU {
				w += it.W + 0.5
			}
		}
		return int(w/(box/64) + 0.5)
	}
	if got := warps(l1); got != 132*4*8 {
		t.Errorf("wave 1: %d warps drawn, want 4224", got)
	}
	if got := warps(AppendLaunch(List{}, launchView(2))); got != (1000-528)*8 {
		t.Errorf("wave 2: %d warps drawn, want 3776", got)
	}
	a, b := 0, 0
	for _, it := range l1.Items {
		if it.Kind == FillRect && it.W > 10 && it.W < 30 {
			switch it.Color {
			case Dark.LinkActive:
				a++
			case Dark.Hot:
				b++
			}
		}
	}
	if a != 8 || b != 24 {
		t.Errorf("branch lanes lit: %d on if, %d on else; want 8 and 24", a, b)
	}
}
