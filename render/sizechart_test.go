package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// sizeView charts an all-reduce on 64 GPUs (5 µs a hop, 50 GB/s) at
// every decade from 1 KB to 10 GB: the ring pays 2(N−1) latencies, the
// tree 2·log2 N, but the tree moves the whole buffer twice, so the ring
// wins from about a gigabyte.
func sizeView() SizeChartView {
	const n, alpha, bw = 64.0, 5e-6, 50e9
	var sizes, ring, tree, hier []float64
	for e := 3; e <= 10; e++ {
		s := math.Pow(10, float64(e))
		sizes = append(sizes, s)
		ring = append(ring, 2*(n-1)*alpha+2*(n-1)/n*s/bw)
		tree = append(tree, 2*math.Log2(n)*alpha+2*s/bw)
		hier = append(hier, 30*alpha+2.2*s/bw)
	}
	return SizeChartView{
		Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: chartWords,
		Series: []SizeSeries{
			{Label: "ring", Bytes: sizes, Values: ring},
			{Label: "tree", Bytes: sizes, Values: tree},
			{Label: "hierarchical", Bytes: sizes, Values: hier},
		},
		YLabel: "s", Current: 64e6, Highlight: "tree",
	}
}

// chartWords says the crossover's label as the catalogue does, with its
// size; other keys as themselves.
var chartWords = draw.Words{T: func(key string, args ...string) string {
	if key == "canvas.sizes.crossover" && len(args) == 2 {
		return "crossover " + args[1]
	}
	return key
}}

func TestSizeChartGolden(t *testing.T) {
	golden.Check(t, "sizechart.golden", AppendSizeChart(draw.List{}, sizeView()).String())
}

// sizeVertices is the x of each vertex of series i's polyline, in order
// (the legend's swatch left out: it sits above the plot).
func sizeVertices(t *testing.T, l draw.List, i int, plotTop float32) []float32 {
	t.Helper()
	var xs []float32
	for _, it := range l.Items {
		if it.Kind != draw.Line || it.Color != draw.Palette[i] || it.Y < plotTop || it.Y2 < plotTop {
			continue
		}
		if len(xs) > 0 && xs[len(xs)-1] != it.X {
			t.Fatalf("series %d: segment from %v does not start where the last ended (%v)", i, it.X, xs[len(xs)-1])
		}
		if len(xs) == 0 {
			xs = append(xs, it.X)
		}
		xs = append(xs, it.X2)
	}
	return xs
}

// crossovers is the x of each crossover marker and its label.
func crossovers(l draw.List) (xs []float32, labels []string) {
	for i, it := range l.Items {
		if it.Kind == draw.Text && strings.HasPrefix(it.Text, "crossover ") {
			m := l.Items[i-1]
			if m.Kind != draw.FillCircle || m.X != it.X {
				panic("crossover label without its marker")
			}
			xs = append(xs, m.X)
			labels = append(labels, it.Text)
		}
	}
	return xs, labels
}

// The marker sits between the two sample sizes where ring and tree swap
// order, and nowhere else.
func TestSizeChartCrossover(t *testing.T) {
	v := sizeView()
	v.Series = v.Series[:2]
	l := AppendSizeChart(draw.List{}, v)
	flip := -1
	r, tr := v.Series[0].Values, v.Series[1].Values
	for k := 1; k < len(r); k++ {
		if (r[k-1] > tr[k-1]) != (r[k] > tr[k]) {
			if flip >= 0 {
				t.Fatal("fixture: more than one flip")
			}
			flip = k - 1
		}
	}
	if flip < 0 {
		t.Fatal("fixture: no flip")
	}
	vx := sizeVertices(t, l, 0, 3*12.5)
	if len(vx) != len(r) {
		t.Fatalf("%d ring vertices, want %d", len(vx), len(r))
	}
	xs, labels := crossovers(l)
	if len(xs) != 1 {
		t.Fatalf("crossovers %v, want one", labels)
	}
	if !(xs[0] > vx[flip] && xs[0] < vx[flip+1]) {
		t.Errorf("crossover at x %v, want between %v and %v (%s and %s)", xs[0], vx[flip], vx[flip+1],
			units.Bytes(v.Series[0].Bytes[flip]), units.Bytes(v.Series[0].Bytes[flip+1]))
	}
	// Where the curves meet, straight on log-log axes between samples.
	k := flip
	d0 := math.Log10(r[k]) - math.Log10(tr[k])
	d1 := math.Log10(r[k+1]) - math.Log10(tr[k+1])
	at := math.Pow(10, math.Log10(v.Series[0].Bytes[k])+d0/(d0-d1))
	if want := "crossover " + units.Bytes(at); labels[0] != want {
		t.Errorf("label %q, want %q", labels[0], want)
	}

	// Curves that touch without passing, or never meet: no crossover.
	touch := []float64{2, 1, 2, 3}
	above := []float64{3, 1, 3, 4}
	b := []float64{1e3, 1e4, 1e5, 1e6}
	v.Series = []SizeSeries{{Label: "a", Bytes: b, Values: touch}, {Label: "b", Bytes: b, Values: above}}
	if xs, labels := crossovers(AppendSizeChart(draw.List{}, v)); len(xs) != 0 {
		t.Errorf("touching curves: crossovers %v", labels)
	}
	// Touching at a sample and passing: one crossover, at that sample.
	v.Series[1].Values = []float64{3, 1, 1, 2}
	if xs, labels := crossovers(AppendSizeChart(draw.List{}, v)); len(xs) != 1 || labels[0] != "crossover 10 kB" {
		t.Errorf("crossing at a shared sample: crossovers %v, want [crossover 10 KB]", labels)
	}
}

// Points a log axis cannot show are skipped, and a polyline never goes
// back: its vertices are strictly increasing in x.
func TestSizeChartMonotone(t *testing.T) {
	v := sizeView()
	v.Series = []SizeSeries{
		{Label: "messy", Bytes: []float64{1e3, 1e4, 5e3, 0, 1e5, -1, 1e6, 1e7, 1e8}, Values: []float64{1, 2, 3, 4, 0, 5, -2, 6, math.Inf(1)}},
		v.Series[0],
	}
	l := AppendSizeChart(draw.List{}, v)
	xs := sizeVertices(t, l, 0, 3*12.5)
	if len(xs) != 3 { // 1 KB → 10 KB → 10 MB: 5 KB goes back, the rest cannot sit on log axes
		t.Fatalf("messy series vertices %v, want 3", xs)
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			t.Errorf("vertex %d at x %v after %v", i, xs[i], xs[i-1])
		}
	}
	if rx := sizeVertices(t, l, 1, 3*12.5); len(rx) != len(v.Series[1].Bytes) {
		t.Errorf("ring: %d vertices, want %d", len(rx), len(v.Series[1].Bytes))
	}
}

// The highlighted series is drawn thicker than every other line in a
// series colour, and last.
func TestSizeChartHighlight(t *testing.T) {
	for _, h := range []string{"ring", "tree", "hierarchical"} {
		v := sizeView()
		v.Highlight = h
		hi := -1
		for i, s := range v.Series {
			if s.Label == h {
				hi = i
			}
		}
		l := AppendSizeChart(draw.List{}, v)
		var wh, wo float32
		lastSeries := -1
		for _, it := range l.Items {
			for i := range v.Series {
				if it.Kind == draw.Line && it.Color == draw.Palette[i] && it.Y > 3*12.5 {
					lastSeries = i
					if i == hi {
						wh = draw.Maxf(wh, it.Width)
					} else {
						wo = draw.Maxf(wo, it.Width)
					}
				}
			}
		}
		if !(wh > wo) {
			t.Errorf("highlight %s: width %v, others up to %v", h, wh, wo)
		}
		if lastSeries != hi {
			t.Errorf("highlight %s: drawn before series %d", h, lastSeries)
		}
	}
}

// The current size: a dot on every curve, at the line's x.
func TestSizeChartCurrent(t *testing.T) {
	v := sizeView()
	l := AppendSizeChart(draw.List{}, v)
	var lineX float32 = -1
	dots := 0
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == "64 MB" {
			lineX = it.X
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.R == 4 && it.X == lineX {
			dots++
		}
	}
	if lineX < 0 || dots != len(v.Series) {
		t.Errorf("current at x %v with %d dots, want %d", lineX, dots, len(v.Series))
	}
}

// Empty series, single points, zero and negative values: no panic; a
// lone point is a dot.
func TestSizeChartDegenerate(t *testing.T) {
	base := sizeView()
	cases := [][]SizeSeries{
		nil,
		{{Label: "empty"}},
		{{Label: "one", Bytes: []float64{1e6}, Values: []float64{1e-3}}},
		{{Label: "zeros", Bytes: []float64{0, 1e3, 1e4}, Values: []float64{0, 0, -1}}},
		{{Label: "short", Bytes: []float64{1e3, 1e4, 1e5}, Values: []float64{1}}},
		{{Label: "nan", Bytes: []float64{math.NaN(), 1e4}, Values: []float64{1, math.NaN()}}, {Label: "one", Bytes: []float64{1e4}, Values: []float64{2}}},
	}
	for i, c := range cases {
		v := base
		v.Series = c
		l := AppendSizeChart(draw.List{}, v)
		if i == 2 {
			found := false
			for _, it := range l.Items {
				found = found || (it.Kind == draw.FillCircle && it.Color == draw.Palette[0] && it.R < 4)
			}
			if !found {
				t.Error("a single point draws no dot")
			}
		}
	}
	v := base
	v.Stage = draw.Rect{X: 0, Y: 0, W: 20, H: 20}
	_ = AppendSizeChart(draw.List{}, v)
}

func TestSizeChartAllocs(t *testing.T) {
	v := sizeView()
	l := AppendSizeChart(draw.List{}, v)
	if n := testing.AllocsPerRun(20, func() { l = AppendSizeChart(l, v) }); n > 40 {
		t.Errorf("%v allocations a frame, want at most 40 (labels)", n)
	}
}

// While the question of which is fastest waits, the chart shows its axes
// and the size asked about, no curve, crossover or parts; answered, each
// algorithm's bar splits its time into latency and bandwidth in their
// proportions, and every series' colour is keyed.
func TestSizeChartPendingAndParts(t *testing.T) {
	v := sizeView()
	v.Height, v.Stage.H = 700, 700
	v.Parts = []SizePart{{Label: "ring", Latency: 3e-3, Bandwidth: 1e-3}, {Label: "tree", Latency: 1e-4, Bandwidth: 9e-4}}
	v.Pending = true
	l := AppendSizeChart(draw.List{}, v)
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Width >= 2 && it.Y > 100 && (it.Color == draw.Palette[0] || it.Color == draw.Palette[1]) {
			t.Fatalf("pending: a curve drawn: %+v", it)
		}
		if it.Kind == draw.FillRect && (it.Color == draw.Palette[3] || it.Color == draw.Palette[4]) && it.H < 20 {
			t.Fatalf("pending: a part drawn: %+v", it)
		}
	}
	if xs, _ := crossovers(l); len(xs) != 0 {
		t.Errorf("pending: %d crossovers", len(xs))
	}
	v.Pending = false
	l = AppendSizeChart(draw.List{}, v)
	var bars []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && (it.Color == draw.Palette[3] || it.Color == draw.Palette[4]) && it.W != it.H { // not the legend's squares
			bars = append(bars, it)
		}
	}
	if len(bars) != 4 {
		t.Fatalf("%d part bars, want 2 a row", len(bars))
	}
	for i, want := range []float64{0.75, 0.1} {
		lat, bw := bars[2*i], bars[2*i+1]
		if got := float64(lat.W / (lat.W + bw.W)); math.Abs(got-want) > 0.01 {
			t.Errorf("row %d: latency %.3f of the bar, want %.2f", i, got, want)
		}
	}
	keyed := map[draw.Color]bool{}
	for _, k := range l.Keys {
		keyed[k.Color] = true
	}
	for i := range v.Series {
		if !keyed[draw.Palette[i]] {
			t.Errorf("series %d's colour is not keyed", i)
		}
	}
}

// partRows are the parts' bars (latency and bandwidth rectangles) by row,
// and the frames drawn around the rows' insets.
func partRows(l draw.List) (rows map[float32][]draw.Item, frames []draw.Item) {
	rows = map[float32][]draw.Item{}
	for _, it := range l.Items {
		switch {
		case it.Kind == draw.FillRect && (it.Color == draw.Palette[3] || it.Color == draw.Palette[4]) && it.H < 20 && it.W != it.H: // not the legend's squares
			rows[it.Y] = append(rows[it.Y], it)
		case it.Kind == draw.StrokeRect && it.Y > 150:
			frames = append(frames, it)
		}
	}
	return rows, frames
}

// The parts' bars share one axis: their lengths are in the ratio of the
// algorithms' times (ISSUE 39: 10.2 ms and 103 µs were drawn as equal
// bars). Past a 50× gap the short bar keeps its true length and is drawn
// again, framed and zoomed, and a line says the ratio and the zoom.
func TestSizeChartPartsProportional(t *testing.T) {
	for _, c := range []struct {
		name       string
		ring, tree [2]float64 // latency, bandwidth
		inset      bool
	}{
		{"4× apart", [2]float64{3e-3, 1e-3}, [2]float64{1e-4, 9e-4}, false},
		{"the default's 99×", [2]float64{10.23e-3, 1.3e-6}, [2]float64{100e-6, 2.6e-6}, true},
		{"600×", [2]float64{60e-3, 1e-6}, [2]float64{50e-6, 50e-6}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := sizeView()
			v.Height, v.Stage.H = 700, 700
			v.Words = draw.Words{T: func(key string, args ...string) string { return key + "|" + strings.Join(args, "|") }}
			v.Parts = []SizePart{{Label: "ring", Latency: c.ring[0], Bandwidth: c.ring[1]}, {Label: "tree", Latency: c.tree[0], Bandwidth: c.tree[1]}}
			l := AppendSizeChart(draw.List{}, v)
			rows, frames := partRows(l)
			var ys []float32
			for y := range rows {
				ys = append(ys, y)
			}
			if len(ys) != 2 {
				t.Fatalf("%d rows of bars, want 2", len(ys))
			}
			if ys[0] > ys[1] {
				ys[0], ys[1] = ys[1], ys[0]
			}
			// A row's first bar (its true length) is its first two rectangles.
			width := func(y float32, k int) float32 {
				r := rows[y]
				return r[2*k].W + r[2*k+1].W
			}
			ringT, treeT := c.ring[0]+c.ring[1], c.tree[0]+c.tree[1]
			want := ringT / treeT
			ringW, treeW := width(ys[0], 0), width(ys[1], 0)
			if !c.inset {
				if got := float64(ringW / treeW); math.Abs(got/want-1) > 0.02 {
					t.Errorf("ring's bar %.1f px, tree's %.1f: %.3g times as long, the times %.3g", ringW, treeW, got, want)
				}
				if len(frames) != 0 || len(rows[ys[1]]) != 2 {
					t.Errorf("an inset under a 50× gap: %d frames", len(frames))
				}
				return
			}
			// The short bar on the long one's axis: its true length, a pixel at least.
			if truth := ringW / float32(want); math.Abs(float64(treeW-draw.Maxf(truth, 1))) > 0.05 {
				t.Errorf("tree's bar %.2f px on the ring's axis, want %.2f", treeW, draw.Maxf(truth, 1))
			}
			if len(frames) != 1 || len(rows[ys[1]]) != 4 || len(rows[ys[0]]) != 2 {
				t.Fatalf("want one inset, on the tree's row: %d frames, bars by row %d, %d", len(frames), len(rows[ys[0]]), len(rows[ys[1]]))
			}
			f := frames[0]
			zoomed := width(ys[1], 1)
			if zoomed < 30 || rows[ys[1]][2].X < f.X || rows[ys[1]][3].X+rows[ys[1]][3].W > f.X+f.W {
				t.Errorf("the zoomed bar (%.1f px from %.1f) is not inside its frame %+v", zoomed, rows[ys[1]][2].X, f)
			}
			zoom := float64(zoomed) / (float64(ringW) / want)
			var said bool
			for _, it := range l.Items {
				if it.Kind == draw.Text && strings.HasPrefix(it.Text, "canvas.sizes.gap|") {
					said = true
					for _, s := range []string{"slow|ring", "fast|tree", "ratio|" + units.Ratio("", want), "zoom|" + units.Ratio("", zoom)} {
						if !strings.Contains(it.Text, s) {
							t.Errorf("the gap's line %q does not say %s", it.Text, s)
						}
					}
				}
			}
			if !said {
				t.Error("no line says the gap and the zoom")
			}
		})
	}
}
