package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func rooflineView(story RooflineStory, intensity float64) RooflineView {
	return RooflineView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Story: story, Dtype: "BF16",
		Roofs: []Roof{
			{Name: "A100 80GB", Peak: 312e12, BW: 2.039e12, Colour: 0},
			{Name: "H100 SXM", Peak: 989.4e12, BW: 3.35e12, Current: true, Colour: 1},
			{Name: "H200 SXM", Peak: 989.4e12, BW: 4.8e12, Colour: 2},
		},
		Intensity: intensity,
	}
}

func TestRooflineGolden(t *testing.T) {
	golden.Check(t, "roofline_h100.golden", AppendRoofline(draw.List{}, rooflineView(RoofGPUs, 10)).String())
}

// The kernel's dot is on the slope below the ridge, in the memory-bound
// colour, and on the roof above it, compute-bound; the headline says
// where it lands; the ridge of every GPU is labelled in the GPUs story.
func TestRooflinePicture(t *testing.T) {
	_, memC, compC := rooflineColours(draw.Dark)
	dot := func(l draw.List) (draw.Item, bool) {
		for _, it := range l.Items {
			if it.Kind == draw.FillCircle && it.R == 7 {
				return it, true
			}
		}
		return draw.Item{}, false
	}
	lo, ok1 := dot(AppendRoofline(draw.List{}, rooflineView(RoofKernel, 0.25)))
	hi, ok2 := dot(AppendRoofline(draw.List{}, rooflineView(RoofKernel, 886)))
	if !ok1 || !ok2 || lo.Color != memC || hi.Color != compC || hi.Y >= lo.Y {
		t.Errorf("dots: %+v %+v", lo, hi)
	}
	got := strings.Join(labels(AppendRoofline(draw.List{}, rooflineView(RoofKernel, 0.25))), "\n")
	if !strings.Contains(got, "kernel i 0.25 att 0.838 pct 0.0846% bound memory") || !strings.Contains(got, "ridge_at v 295") {
		t.Errorf("elementwise labels:\n%s", got)
	}
	got = strings.Join(labels(AppendRoofline(draw.List{}, rooflineView(RoofGPUs, 10))), "\n")
	for _, r := range []string{"153", "295", "206"} {
		if !strings.Contains(got, "ridge_at v "+r) {
			t.Errorf("no ridge %s among\n%s", r, got)
		}
	}
	// The axes say they are log scales.
	if !strings.Contains(got, "\nx\n") || !strings.Contains(got, "\ny\n") {
		t.Errorf("axis titles missing:\n%s", got)
	}
}

// No label is struck through by the kernel's drop line.
func TestRooflineDropLine(t *testing.T) {
	for _, in := range []float64{0.25, 10, 295.3, 886, 5000} {
		l := AppendRoofline(draw.List{}, rooflineView(RoofKernel, in))
		var drop draw.Item
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.X == it.X2 && it.Width == 1.5 {
				drop = it
			}
		}
		for _, it := range l.Items {
			if it.Kind != draw.Text || drop.Width == 0 {
				continue
			}
			b := it.Bounds()
			if b.X < drop.X-1 && b.X+b.W > drop.X+1 && b.Y+b.H > min(drop.Y, drop.Y2) && b.Y < max(drop.Y, drop.Y2) {
				t.Errorf("intensity %g: %q is crossed by the drop line at x %.0f", in, it.Text, drop.X)
			}
		}
	}
}

func TestRooflineText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for s := RoofTwo; s <= RoofRaised; s++ {
			v := rooflineView(s, 10)
			v.Stage, v.Width, v.Height = st, st.W, st.H
			checkText(t, AppendRoofline(draw.List{}, v), st, 13.5)
		}
	}
}
