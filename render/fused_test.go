package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// fusedView is LayerNorm → GeLU → Dropout over 2×10⁸ BF16 elements on an
// H100: three kernels of 2 + 2 (+ 1) bytes an element, or one of 2 + 3.
func fusedView(focus FusedFocus, t float64) FusedView {
	n := 2e8
	k := func(op string, w float64) KernelBlock {
		return KernelBlock{Ops: []string{op}, Bytes: (2 + w) * n, TimeS: (2+w)*n/3.35e12 + 4e-6, Read: 2, Write: w}
	}
	return FusedView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords, Focus: focus,
		Unfused:          []KernelBlock{k("LayerNorm", 2), k("GeLU", 2), k("Dropout", 3)},
		Fused:            []KernelBlock{{Ops: []string{"LayerNorm", "GeLU", "Dropout"}, Bytes: 5 * n, TimeS: 5*n/3.35e12 + 4e-6, Read: 2, Write: 3}},
		UnfusedIntensity: 24.0 / 13, FusedIntensity: 24.0 / 5, Ridge: 295.3, Time: t,
	}
}

func TestFusedGolden(t *testing.T) {
	golden.Check(t, "fused.golden", AppendFused(draw.List{}, fusedView(FusedThree, 2e-4)).String())
}

// Three kernels make six trips (six arrows between HBM and the desk),
// the fused one two; their bytes an element are written on the arrows;
// the headline says the step's point.
func TestFusedTrips(t *testing.T) {
	l := AppendFused(draw.List{}, fusedView(FusedThree, -1))
	got := strings.Join(labels(l), "\n")
	for _, want := range []string{"head_three trips 6 per 13", "trips n 6", "trips n 2", "moved bytes 2.6 GB total 2.6 GB", "write b 3"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "read b 2"); n != 4 {
		t.Errorf("%d reads labelled, want 3 + 1", n)
	}
	got = strings.Join(labels(AppendFused(draw.List{}, fusedView(FusedOne, -1))), "\n")
	if !strings.Contains(got, "head_one per 5 ratio 2.61×") {
		t.Errorf("fused step:\n%s", got)
	}
	got = strings.Join(labels(AppendFused(draw.List{}, fusedView(FusedBound, -1))), "\n")
	if !strings.Contains(got, "ridge v 295") || !strings.Contains(got, "dot_one v 4.8") {
		t.Errorf("bound step:\n%s", got)
	}
}

// Part-way, the fused kernel is done and its lane ends at its time; the
// three are still running.
func TestFusedLanes(t *testing.T) {
	v := fusedView(FusedOne, 0)
	v.Time = v.Fused[0].TimeS * 1.1
	got := strings.Join(labels(AppendFused(draw.List{}, v)), "\n")
	var tu float64
	for _, k := range v.Unfused {
		tu += k.TimeS
	}
	if !strings.Contains(got, units.Duration(v.Fused[0].TimeS)) || strings.Contains(got, units.Duration(tu)) {
		t.Errorf("at 1.1× the fused time:\n%s", got)
	}
}

func TestFusedText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for f := FusedThree; f <= FusedAll; f++ {
			v := fusedView(f, 1e-4)
			v.Stage, v.Width, v.Height = st, st.W, st.H
			checkText(t, AppendFused(draw.List{}, v), st, 13.5)
		}
	}
}
