package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// launchView is 1,000 blocks of 256 threads × 64 registers on an H100:
// 4 blocks an SM (registers), 2 waves, a branch taken by 8 lanes.
func launchView(phase LaunchPhase, wave int, frac float64) LaunchView {
	return LaunchView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Phase: phase, GPU: "H100 SXM", SMs: 132, MaxWarps: 64, MaxBlocks: 32, Registers: 65536, SharedMem: 228 << 10,
		Blocks: 1000, ThreadsPerBlock: 256, WarpsPerBlock: 8, RegsPerBlock: 16384, SmemPerBlock: 1024,
		BlocksPerSM: 4, Limit: "registers", Waves: 2, Wave: wave, WaveFrac: frac,
		Taken: 8, CostA: 10, CostB: 30,
	}
}

func TestLaunchGolden(t *testing.T) {
	golden.Check(t, "launch_wave1.golden", AppendLaunch(draw.List{}, launchView(LaunchWaves, 1, 0.2)).String())
}

// warpSlots counts the warp slots drawn in the blocks' colours, and the
// squares (SMs) they sit in.
func warpSlots(l draw.List) int {
	bA, bB, _, _, _ := launchColours(draw.Dark)
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	n := 0
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && (it.Color == bA || it.Color == bB) && it.W == it.H && it.W < 20 && it.W != fs*0.9 { // not the legend's swatches
			n++
		}
	}
	return n
}

// Wave 1 fills all 132 SMs with 4 blocks of 8 warps once dealt; wave 2
// holds the 472 left; half-way through the dealing, half are placed.
func TestLaunchWaves(t *testing.T) {
	if got := warpSlots(AppendLaunch(draw.List{}, launchView(LaunchWaves, 1, 1))); got != 132*4*8 {
		t.Errorf("wave 1 dealt: %d warps drawn, want 4224", got)
	}
	if got := warpSlots(AppendLaunch(draw.List{}, launchView(LaunchWaves, 2, 1))); got != (1000-528)*8 {
		t.Errorf("wave 2 dealt: %d warps drawn, want 3776", got)
	}
	if got := warpSlots(AppendLaunch(draw.List{}, launchView(LaunchDeal, 1, launchDealShare/2))); got != 264*8 {
		t.Errorf("half dealt: %d warps drawn, want 2112", got)
	}
	if got := warpSlots(AppendLaunch(draw.List{}, launchView(LaunchDeal, 1, 0))); got != 0 {
		t.Errorf("before dealing: %d warps drawn", got)
	}
	got := strings.Join(labels(AppendLaunch(draw.List{}, launchView(LaunchWaves, 2, 1))), "\n")
	if !strings.Contains(got, "tail n 472 util 89.4%") || !strings.Contains(got, "wave_box k 2 util 89.4%") {
		t.Errorf("the last wave's labels:\n%s", got)
	}
}

// The SM zoomed: its 32 of 64 warp slots filled, the registers' meter
// full and lit, one more block's registers hatched past it.
func TestLaunchOccupancy(t *testing.T) {
	l := AppendLaunch(draw.List{}, launchView(LaunchOccupancy, 1, 1))
	got := strings.Join(labels(l), "\n")
	for _, want := range []string{"occupancy n 4 limit registers warps 32 max 64 occ 50%", "meter_full what registers used 65,536 max 65,536",
		"meter what threads used 1,024 max 2,048", "occ warps 32 max 64 occ 50%"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	hatched := 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Hot {
			hatched++
		}
	}
	if hatched == 0 {
		t.Error("no hatched block past the full registers meter")
	}
}

// The branch: 8 lanes lit on the if's 10 slots, 24 on the else's 30 —
// rows of 32 lanes, columns as wide as the instructions.
func TestLaunchDivergence(t *testing.T) {
	_, _, _, pA, pB := launchColours(draw.Dark)
	l := AppendLaunch(draw.List{}, launchView(LaunchDivergence, 1, 1))
	var a, b int
	var wa, wb float32
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.W != fs*0.9 {
			switch it.Color {
			case pA:
				a, wa = a+1, it.W
			case pB:
				b, wb = b+1, it.W
			}
		}
	}
	if a != 8 || b != 24 {
		t.Errorf("lanes lit: %d on the if, %d on the else; want 8 and 24", a, b)
	}
	if r := wb / (wa + 1); r < 2.9 || r > 3.1 {
		t.Errorf("else/if widths %.2f, want 30/10", r)
	}
	if got := strings.Join(labels(l), "\n"); !strings.Contains(got, "divergence slots 40 idle 37.5%") || !strings.Contains(got, "lanes a 0 b 7") {
		t.Errorf("labels:\n%s", got)
	}
}

func TestLaunchText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for ph := LaunchDeal; ph <= LaunchAll; ph++ {
			for _, f := range []float64{0, 0.2, 1} {
				v := launchView(ph, 1, f)
				v.Stage, v.Width, v.Height = st, st.W, st.H
				checkText(t, AppendLaunch(draw.List{}, v), st, 13.5)
			}
		}
	}
}

func TestLaunchAllocs(t *testing.T) {
	v := launchView(LaunchAll, 1, 0.3)
	l := AppendLaunch(draw.List{}, v)
	if n := testing.AllocsPerRun(10, func() { l = AppendLaunch(l, v) }); n > 120 {
		t.Errorf("%v allocations a frame, want at most 120 (its labels)", n)
	}
}
