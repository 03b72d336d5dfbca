package render

import (
	"cmp"
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// english are the canvas's words in English, from the catalogue.
var english = draw.Words{Lang: "en", T: func(key string, args ...string) string { return i18n.T("en", key, args...) }}

// gpuMemory is one GPU's segments, in GB.
func gpuMemory(label string, weights, grads, opt, act, buf float64) MemoryBar {
	return MemoryBar{Label: label, Segments: []MemorySegment{
		{"weights", weights * 1e9}, {"gradients", grads * 1e9}, {"optimizer", opt * 1e9},
		{"activations", act * 1e9}, {"buffers", buf * 1e9},
	}}
}

// ZeRO stages of a 7B model on an 80 GB GPU: plain data parallelism is
// 12.3 GB over what a job can use, ZeRO-1 (current) fits.
func zeroView() MemoryBarsView {
	bars := []MemoryBar{
		gpuMemory("DP", 14, 14, 42, 14.3, 2),
		gpuMemory("ZeRO-1", 14, 14, 5.25, 14.3, 2),
		gpuMemory("ZeRO-2", 14, 1.75, 5.25, 14.3, 2),
		gpuMemory("ZeRO-3", 1.75, 1.75, 5.25, 14.3, 2),
	}
	bars[1].Current = true
	return MemoryBarsView{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: english, Bars: bars, Capacity: 80e9, Usable: 74e9}
}

func texts(l draw.List) map[string]draw.Item {
	m := map[string]draw.Item{}
	for _, it := range l.Items {
		if it.Kind == draw.Text {
			m[it.Text] = it
		}
	}
	return m
}

// The bar over the usable line has its excess in Hot, as tall as the
// excess, and says by how much; the current bar is outlined; segments
// stack bottom-up in their colours, as tall as their bytes; the capacity
// and usable lines are labelled.
func TestMemoryBarsPicture(t *testing.T) {
	v := zeroView()
	l := AppendMemoryBars(draw.List{}, v)
	golden.Check(t, "memorybars.golden", l.String())
	tx := texts(l)
	for _, s := range []string{"80 GB", "usable 74 GB", "86.3 GB", "37.3 GB", "weights", "buffers", "DP", "ZeRO-3"} {
		if _, ok := tx[s]; !ok {
			t.Errorf("no label %q", s)
		}
	}
	over, ok := tx["+12.3 GB over"]
	if !ok || over.Color != draw.Dark.Hot {
		t.Fatalf("over label: %+v", over)
	}
	var hot []draw.Item
	var segs []draw.Item // the first bar's
	for _, it := range l.Items {
		if veil := draw.Dark.Hot; it.Kind == draw.FillRect && it.Color == (draw.Color{R: veil.R, G: veil.G, B: veil.B, A: overVeil}) && it.W > 20 {
			hot = append(hot, it)
		}
		if it.Kind == draw.FillRect && it.X < 170 && it.Y > 50 && it.Color != draw.Dark.Hot && it.Color.A == 255 && it.W > 20 {
			segs = append(segs, it)
		}
	}
	if len(hot) != 1 || math.Abs(float64(hot[0].X+hot[0].W/2-over.X)) > 0.5 {
		t.Fatalf("hot rects %v, want one under the over label at x %.1f", hot, over.X)
	}
	// The first bar's segments; pixels a GB from its weights (14 GB).
	if len(segs) != 5 || segs[0].Color != memoryColour("weights", draw.Dark) || segs[3].Color != memoryColour("activations", draw.Dark) || segs[4].Color != memoryColour("buffers", draw.Dark) {
		t.Fatalf("first bar's segments: %v", segs)
	}
	pxPerGB := segs[0].H / 14
	if math.Abs(float64(hot[0].H-12.3*pxPerGB)) > 0.5 {
		t.Errorf("hot part %.1f px, want 12.3 GB = %.1f", hot[0].H, 12.3*pxPerGB)
	}
	// Bottom-up: each segment ends where the next begins; above the usable
	// line (74 GB) the segments go on under the Hot veil.
	for i := 1; i < len(segs); i++ {
		if math.Abs(float64(segs[i].Y+segs[i].H-segs[i-1].Y)) > 0.01 {
			t.Errorf("segment %d ends at %.1f, the one under it starts at %.1f", i, segs[i].Y+segs[i].H, segs[i-1].Y)
		}
	}
	if math.Abs(float64(segs[1].H-14*pxPerGB)) > 0.1 || math.Abs(float64(segs[2].H-42*pxPerGB)) > 0.1 {
		t.Errorf("gradients %.1f px and optimizer %.1f px, want 14 and 42 GB", segs[1].H, segs[2].H)
	}
	// The whole bar is drawn in its colours (activations 14.3 GB, buffers
	// 2 GB); the veil covers from the usable line (74 GB) to its top.
	if math.Abs(float64(segs[3].H-14.3*pxPerGB)) > 0.1 || math.Abs(float64(segs[4].H-2*pxPerGB)) > 0.1 {
		t.Errorf("activations %.1f px, buffers %.1f px, want 14.3 and 2 GB", segs[3].H, segs[4].H)
	}
	if top := segs[4].Y; math.Abs(float64(top-hot[0].Y)) > 0.01 {
		t.Errorf("the veil starts at %.1f, the bar's top is %.1f", hot[0].Y, top)
	}
	// The current bar (ZeRO-1) is outlined and nothing else is.
	var frames []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Text {
			frames = append(frames, it)
		}
	}
	cur := tx["ZeRO-1"]
	if len(frames) != 1 || math.Abs(float64(frames[0].X+frames[0].W/2-cur.X)) > 0.5 {
		t.Errorf("frames %v, want one around ZeRO-1 at x %.1f", frames, cur.X)
	}
	// Capacity solid, usable dashed.
	solid, dashes := 0, 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.Y == it.Y2 {
			if it.X2-it.X > 400 {
				solid++
			} else {
				dashes++
			}
		}
	}
	if solid != 1 || dashes < 20 {
		t.Errorf("%d capacity lines and %d dashes", solid, dashes)
	}
}

// A bar taller than a fixed axis is cut at the top of the plot and still
// says how far over it is; with no usable line, Capacity is the limit.
func TestMemoryBarsClipped(t *testing.T) {
	v := zeroView()
	v.Bars[0] = gpuMemory("DP", 14, 14, 84, 30, 2)
	v.Usable, v.Max = 0, 100e9
	l := AppendMemoryBars(draw.List{}, v)
	plotTop := float32(math.Inf(1))
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Panel {
			plotTop = draw.Minf(plotTop, it.Y)
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Y < plotTop-0.01 && it.H > 20 {
			t.Errorf("a bar above the plot's top %.1f: %+v", plotTop, it)
		}
	}
	if _, ok := texts(l)["+64 GB over"]; !ok {
		t.Error("no \"+64 GB over\" label on the clipped bar")
	}
}

// Many bars get narrower and keep every k-th label, none overlapping;
// the current one keeps its label.
func TestMemoryBarsMany(t *testing.T) {
	v := zeroView()
	v.Bars = nil
	for i := range 64 {
		b := gpuMemory("GPU "+strconv.Itoa(i), 14, 1.75, 5.25, float64(i), 2)
		b.Current = i == 37
		v.Bars = append(v.Bars, b)
	}
	l := AppendMemoryBars(draw.List{}, v)
	var under []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.Text && len(it.Text) > 4 && it.Text[:4] == "GPU " {
			under = append(under, it)
		}
	}
	if len(under) < 4 || len(under) >= 64 {
		t.Fatalf("%d bar labels for 64 bars", len(under))
	}
	slices.SortFunc(under, func(a, b draw.Item) int { return cmp.Compare(a.X, b.X) })
	found := false
	for i, it := range under {
		found = found || it.Text == "GPU 37"
		if i > 0 {
			gap := it.X - under[i-1].X
			if w := (draw.TextWidth(it.Text, it.Size) + draw.TextWidth(under[i-1].Text, it.Size)) / 2; gap < w {
				t.Errorf("%q and %q %.1f px apart, narrower than the labels (%.1f)", under[i-1].Text, it.Text, gap, w)
			}
		}
	}
	if !found {
		t.Error("the current bar lost its label")
	}
	// Above the bars: totals and, past GPU 51, excesses, one row that
	// does not overlap, the current bar's total kept.
	var above []draw.Item
	overs := 0
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Align == draw.AlignCenter && strings.Contains(it.Text, "GB") {
			above = append(above, it)
			if strings.HasSuffix(it.Text, "over") && it.Color == draw.Dark.Hot {
				overs++
			}
		}
	}
	slices.SortFunc(above, func(a, b draw.Item) int { return cmp.Compare(a.X, b.X) })
	if len(above) < 4 || overs == 0 || !slices.ContainsFunc(above, func(it draw.Item) bool { return it.Text == "60 GB" && it.Color == draw.Dark.Text }) {
		t.Errorf("labels above the bars: %d, %d of them over; want the current one's (60 GB)", len(above), overs)
	}
	for i := 1; i < len(above); i++ {
		a, b := above[i-1], above[i]
		if b.X-a.X < (draw.TextWidth(a.Text, a.Size)+draw.TextWidth(b.Text, b.Size))/2 {
			t.Errorf("%q and %q overlap", a.Text, b.Text)
		}
	}
}

// Nothing to draw is the background only; zero bytes and a Light theme
// draw without trouble.
func TestMemoryBarsEmpty(t *testing.T) {
	v := zeroView()
	v.Bars = nil
	if l := AppendMemoryBars(draw.List{}, v); len(l.Items) != 0 || l.Width != 800 {
		t.Errorf("no bars: %d items", len(l.Items))
	}
	v.Bars, v.Capacity, v.Usable = []MemoryBar{{Label: "GPU 0"}}, 0, 0
	if l := AppendMemoryBars(draw.List{}, v); len(l.Items) != 0 {
		t.Errorf("zero bytes on no axis: %d items", len(l.Items))
	}
	v = zeroView()
	v.Theme = draw.Light
	l := AppendMemoryBars(draw.List{}, v)
	if l.Background != draw.Light.Background || len(l.Items) < 20 {
		t.Errorf("Light: background %v, %d items", l.Background, len(l.Items))
	}
	for _, it := range l.Items {
		if it.Color == draw.Dark.Text || it.Color == draw.Dark.Hot {
			t.Fatalf("a Dark colour in the Light picture: %+v", it)
		}
	}
}

// A zoom shows the small bars on their own scale and says so; a lower
// chart's columns are as tall as their seconds, the hidden part hatched.
func TestMemoryBarsZoomAndLower(t *testing.T) {
	v := zeroView()
	v.Bars[0] = gpuMemory("DP", 200, 200, 1200, 5, 0)
	v.Zoom = 100e9
	for i, s := range []float64{2, 2, 4, 12} {
		v.Bars[i].Seconds, v.Bars[i].Hidden = s, s/2
	}
	v.Lower = LowerChart{Title: "communication", Solid: "exposed", Light: "hidden", Color: draw.Dark.Hot}
	l := AppendMemoryBars(draw.List{}, v)
	tx := texts(l)
	if _, ok := tx["zoom: 0 – 100 GB"]; !ok {
		t.Error("the zoom does not say what it shows")
	}
	// ZeRO-3 (23 GB of 100) is over a fifth of the zoom's height.
	var plotH, z3 float32
	for _, it := range l.Items {
		if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Link {
			plotH = it.H
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == memoryColour("activations", draw.Dark) && it.X > 400 {
			z3 = max(z3, it.H)
		}
	}
	if plotH == 0 || z3 < plotH*0.1 {
		t.Errorf("ZeRO-3's activations %.1f px on a zoom %.1f px tall", z3, plotH)
	}
	// The columns: 12 s the tallest, three times the 4 s one.
	var cols []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Hot && it.W > 20 {
			cols = append(cols, it)
		}
	}
	if len(cols) != 4 || math.Abs(float64(cols[3].H-3*cols[2].H)) > 0.5 {
		t.Errorf("exposed columns %v, want four, the last three times the third", cols)
	}
}

// A stage too short for the bars and the lower chart (a phone's lower
// half) draws the bars and drops the chart with its legend entries;
// a taller one draws both.
func TestMemoryBarsShortStageKeepsTheBars(t *testing.T) {
	for _, c := range []struct {
		h     float32
		lower bool
	}{{180, false}, {500, true}} {
		v := zeroView()
		v.Width, v.Height, v.Stage = 390, 844, draw.Rect{X: 0, Y: 240, W: 390, H: c.h}
		for i, s := range []float64{2, 2, 4, 12} {
			v.Bars[i].Seconds = s
		}
		v.Lower = LowerChart{Title: "step time", Solid: "step time", Color: draw.Dark.Hot}
		l := AppendMemoryBars(draw.List{}, v)
		weights := 0
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == memoryColour("weights", draw.Dark) && it.H > 1 {
				weights++
			}
		}
		if weights < len(v.Bars) {
			t.Errorf("stage %.0f px tall: %d bars' weights drawn, want %d", c.h, weights, len(v.Bars))
		}
		_, legend := texts(l)["step time"]
		if legend != c.lower {
			t.Errorf("stage %.0f px tall: the lower chart's legend entry drawn %v, want %v", c.h, legend, c.lower)
		}
	}
}
