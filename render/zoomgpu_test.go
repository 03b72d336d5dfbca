package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// zoomGPUView is GPU 27 of an H100 cluster in the forward of a layer at
// TP 4: its kernels in run order (the attention's, the TP all-reduce,
// the MLP's), the up GEMM running (compute-bound: 2,048 × 28,672 / 4 ×
// 8,192 in BF16), or with memory a LayerNorm (memory-bound).
func zoomGPUView(memory bool) ZoomGPUView {
	v := ZoomGPUView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: keyWords,
		Crumbs: "Cluster › Node 3 › GPU 27", Title: "GPU 27 · stage 3 · TP rank 3", Doing: "forward of micro-batch 3 · layer 14 of 126",
		Kernel: "up GEMM 2,048 × 7,168 × 8,192",
		Strip: []ZoomSpan{
			{Label: "LayerNorm", Activity: ZoomForward, Start: 0, End: 20e-6},
			{Label: "QKV GEMM", Activity: ZoomForward, Start: 20e-6, End: 180e-6},
			{Label: "attention", Activity: ZoomForward, Start: 180e-6, End: 400e-6},
			{Label: "out GEMM", Activity: ZoomForward, Start: 400e-6, End: 480e-6},
			{Label: "all-reduce", Activity: ZoomComm, Comm: true, Start: 480e-6, End: 620e-6},
			{Label: "LayerNorm", Activity: ZoomForward, Start: 620e-6, End: 640e-6},
			{Label: "up GEMM", Activity: ZoomForward, Start: 640e-6, End: 900e-6},
			{Label: "GeLU", Activity: ZoomForward, Start: 900e-6, End: 930e-6},
			{Label: "down GEMM", Activity: ZoomForward, Start: 930e-6, End: 1190e-6},
			{Label: "all-reduce", Activity: ZoomComm, Comm: true, Start: 1190e-6, End: 1330e-6},
		},
		Current: 6, Time: 700e-6,
		GPU: "H100", Dtype: "BF16", Peak: 989e12, BW: 3.35e12,
		Intensity: 1850, Attained: 700e12, Bound: "compute",
		HBMBytes: 130e6, SmemBytes: 2.1e9, FLOPs: 240e9, KernelTime: 260e-6,
	}
	if memory {
		v.Kernel, v.Current, v.Time = "LayerNorm 2,048 × 8,192", 5, 630e-6
		v.Intensity, v.Attained, v.Bound = 1.2, 3.0e12, "memory"
		v.HBMBytes, v.SmemBytes, v.FLOPs, v.KernelTime = 67e6, 67e6, 80e6, 20e-6
	}
	return v
}

// keyWords are shortWords in a language of their own, so that the labels
// the pictures memoize by language do not mix with the catalogue's
// English.
var keyWords = draw.Words{Lang: "keys", T: shortWords.T}

func TestZoomGPUGolden(t *testing.T) {
	golden.Check(t, "zoomgpu.golden", AppendZoomGPU(draw.List{}, zoomGPUView(false)).String())
}

// stripSpans are the strip's spans: the rectangles as tall as the first
// span, in its row, in the activities' colours or the panel's (a
// hatched collective).
func stripSpans(l draw.List, th draw.Theme) []draw.Item {
	var out []draw.Item
	var row draw.Item
	for _, it := range l.Items {
		if it.Kind != draw.FillRect {
			continue
		}
		if row.H == 0 {
			if it.Color == th.Panel && it.W > 300 {
				row = it // the strip's ground
			}
			continue
		}
		if it.Y == row.Y && it.H == row.H && it.W < row.W {
			out = append(out, it)
		}
	}
	return out
}

// The spans are as wide as their kernels take, in run order; the running
// one is outlined; the playhead stands at Time; a collective is hatched.
func TestZoomGPUStrip(t *testing.T) {
	v := zoomGPUView(false)
	l := AppendZoomGPU(draw.List{}, v)
	sp := stripSpans(l, draw.Dark)
	if len(sp) != len(v.Strip) {
		t.Fatalf("%d spans, want %d", len(sp), len(v.Strip))
	}
	// Widths ∝ time: the up GEMM (260 µs) 13 times the LayerNorm (20 µs).
	if r := (sp[6].W + 1) / (sp[0].W + 1); r < 12.8 || r > 13.2 {
		t.Errorf("up GEMM / LayerNorm widths %.2f, want 13", r)
	}
	for i := 1; i < len(sp); i++ {
		if sp[i].X <= sp[i-1].X {
			t.Errorf("span %d at %v before span %d at %v", i, sp[i].X, i-1, sp[i-1].X)
		}
	}
	if sp[4].Color != draw.Dark.Panel || sp[0].Color != draw.Dark.LinkActive {
		t.Errorf("the all-reduce %s (want the panel's, hatched), the LayerNorm %s", sp[4].Color.Hex(), sp[0].Color.Hex())
	}
	hatch := 0
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.CommColour(draw.Dark) && it.Y >= sp[4].Y && it.Y <= sp[4].Y+sp[4].H+0.01 && it.X >= sp[4].X-0.01 && it.X <= sp[4].X+sp[4].W+0.01 {
			hatch++
		}
	}
	if hatch < 3 {
		t.Errorf("%d hatch lines in the all-reduce", hatch)
	}
	for _, cur := range []int{6, 2, -1} {
		v.Current = cur
		l := AppendZoomGPU(draw.List{}, v)
		var outline []draw.Item
		for _, it := range l.Items {
			if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Text {
				outline = append(outline, it)
			}
		}
		if cur < 0 {
			if len(outline) != 0 {
				t.Errorf("no current kernel, %d outlines", len(outline))
			}
			continue
		}
		s := sp[cur]
		if len(outline) != 1 || outline[0].X > s.X || outline[0].X+outline[0].W < s.X+s.W || outline[0].Y > s.Y || outline[0].Y+outline[0].H < s.Y+s.H {
			t.Errorf("current %d: outlines %v round span %v", cur, outline, s)
		}
	}
	// The playhead: a vertical line in the text colour at Time's x.
	for _, tm := range []float64{0, 700e-6, 1330e-6} {
		v.Time = tm
		l := AppendZoomGPU(draw.List{}, v)
		want := sp[0].X + (sp[9].X+sp[9].W+1-sp[0].X)*float32(tm/1330e-6)
		found := false
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.X == it.X2 && it.Y < sp[0].Y && it.Y2 > sp[0].Y+sp[0].H {
				found = true
				if d := it.X - want; d < -0.5 || d > 0.5 {
					t.Errorf("time %v: playhead at %v, want %v", tm, it.X, want)
				}
			}
		}
		if !found {
			t.Errorf("time %v: no playhead", tm)
		}
	}
	// Labels only in spans wide enough: the GeLU (30 µs) has none.
	got := strings.Join(labels(l), "\n")
	if !strings.Contains(got, "up GEMM\n") || strings.Contains(got, "GeLU") {
		t.Errorf("span labels:\n%s", got)
	}
}

// roofMarks are the ridge's dot (text colour, 4.5 px), the kernel's (the
// hot colour, 6 px) and the roof's flat line's y.
func roofMarks(t *testing.T, l draw.List) (ridge, kernel draw.Item, roofY float32) {
	t.Helper()
	for _, it := range l.Items {
		switch {
		case it.Kind == draw.FillCircle && it.Color == draw.Dark.Text && it.R == 4.5:
			ridge = it
		case it.Kind == draw.FillCircle && it.Color == draw.Dark.Hot && it.R == 6:
			kernel = it
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.Width == 3 && it.Y == it.Y2 && it.X == ridge.X {
			roofY = it.Y
		}
	}
	if ridge.R == 0 || kernel.R == 0 || roofY == 0 {
		t.Fatalf("ridge %v, kernel %v, roof at %v", ridge, kernel, roofY)
	}
	return ridge, kernel, roofY
}

// The compute-bound GEMM sits right of the ridge, under the flat roof;
// the memory-bound LayerNorm left of it, under the slope; each named
// with its bound.
func TestZoomGPURoofline(t *testing.T) {
	for _, memory := range []bool{false, true} {
		v := zoomGPUView(memory)
		l := AppendZoomGPU(draw.List{}, v)
		ridge, k, roofY := roofMarks(t, l)
		got := strings.Join(labels(l), "\n")
		if !memory {
			if k.X <= ridge.X || k.Y <= roofY {
				t.Errorf("GEMM at (%v, %v): want right of the ridge (%v) and under the roof (%v)", k.X, k.Y, ridge.X, roofY)
			}
			if !strings.Contains(got, "bound_compute") {
				t.Errorf("no compute-bound label:\n%s", got)
			}
			continue
		}
		if k.X >= ridge.X {
			t.Errorf("LayerNorm at %v: want left of the ridge (%v)", k.X, ridge.X)
		}
		// Under the slope: the slope at its intensity is BW × I = 4 TFLOP/s,
		// above its 3.
		var slope draw.Item
		for _, it := range l.Items {
			if it.Kind == draw.Line && it.Color == draw.Dark.Text && it.Width == 3 && it.X2 == ridge.X && it.Y2 == ridge.Y {
				slope = it
			}
		}
		if slope.Width == 0 {
			t.Fatal("no slope")
		}
		sy := slope.Y + (slope.Y2-slope.Y)*(k.X-slope.X)/(slope.X2-slope.X)
		if k.Y <= sy {
			t.Errorf("LayerNorm at y %v, the slope over it at %v: want under it", k.Y, sy)
		}
		if !strings.Contains(got, "bound_memory") {
			t.Errorf("no memory-bound label:\n%s", got)
		}
	}
	got := strings.Join(labels(AppendZoomGPU(draw.List{}, zoomGPUView(false))), "\n") + "\n"
	for _, want := range []string{"y", "x", "hbm bytes 130 MB", "smem bytes 2.1 GB", "work flop 240 GFLOP t 260 µs"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

// With a Note, the note stands where the roofline and the bytes were;
// the strip stays.
func TestZoomGPUNote(t *testing.T) {
	v := zoomGPUView(false)
	v.Current, v.Time = 4, 500e-6
	v.Kernel, v.Note = "TP all-reduce over NVLink 4", "the layer's all-reduce on NVLink"
	v.Intensity, v.Attained, v.Bound = 0, 0, ""
	l := AppendZoomGPU(draw.List{}, v)
	got := strings.Join(labels(l), "\n")
	if !strings.Contains(got, v.Note) {
		t.Errorf("no note in\n%s", got)
	}
	for _, gone := range []string{"roof gpu", "hbm bytes", "x_short", "\ny\n"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q drawn with a note:\n%s", gone, got)
		}
	}
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && (it.Color == draw.Dark.Hot || it.R == 4.5) {
			t.Errorf("a roofline dot %+v with a note", it)
		}
	}
	if len(stripSpans(l, draw.Dark)) != len(v.Strip) {
		t.Error("the strip went with the note")
	}
}

// The text is large enough, inside the stage and clear of other text in
// the four frames, in both languages, for either kernel and a note;
// every colour is keyed.
func TestZoomGPUText(t *testing.T) {
	for _, f := range zoomFrames {
		for _, words := range []draw.Words{english, chinese} {
			for _, c := range []string{"compute", "memory", "note", "big"} {
				v := zoomGPUView(c == "memory")
				if c == "big" {
					// The page's GPT-3 MLP up GEMM, whose bytes column lost its
					// labels in presentation mode.
					v.Kernel = "MLP up GEMM 2,048 × 6,144 × 12,288"
					v.Intensity, v.Attained, v.Peak = 750, 680e12, 841e12
					v.HBMBytes, v.SmemBytes, v.FLOPs, v.KernelTime = 824e6, 19.3e9, 618e9, 912e-6
				}
				if c == "note" {
					v.Note = "waits for stage 2's activations: the pipeline's bubble, no kernel runs"
					v.Intensity, v.Attained = 0, 0
				}
				v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.st.W, f.st.H, f.st, f.sc, f.th, words
				l := AppendZoomGPU(draw.List{}, v)
				checkText(t, l, f.st, f.minText)
				checkKeyed(t, l, f.th)
				if c == "note" {
					continue
				}
				// Every bar keeps its label whole, and the work shows.
				got := "\n" + strings.Join(labels(l), "\n") + "\n"
				for _, want := range []string{
					words.Say("canvas.zoom.gpu.hbm", "bytes", units.Bytes(v.HBMBytes)),
					words.Say("canvas.zoom.gpu.smem", "bytes", units.Bytes(v.SmemBytes)),
					words.Say("canvas.zoom.gpu.work", "flop", units.FLOP(v.FLOPs), "t", units.LocalDuration(words.Lang, v.KernelTime)),
				} {
					if !strings.Contains(got, "\n"+want+"\n") {
						t.Errorf("%s %s %s: no %q in%s", f.name, words.Lang, c, want, got)
					}
				}
			}
		}
	}
}

// The bars share one linear scale; where one moves 50× the other's bytes
// or more, the picture says how many times, and not below.
func TestZoomGPURatio(t *testing.T) {
	for _, c := range []struct {
		hbm, smem float64
		want      string
	}{
		{130e6, 2.1e9, ""},
		{824e6, 19.3e9, ""},
		{20e6, 2.1e9, "ratio_smem n 105"},
		{3e9, 30e6, "ratio_hbm n 100"},
	} {
		v := zoomGPUView(false)
		v.HBMBytes, v.SmemBytes = c.hbm, c.smem
		for _, f := range zoomFrames {
			v.Width, v.Height, v.Stage, v.Scale, v.Theme = f.st.W, f.st.H, f.st, f.sc, f.th
			l := AppendZoomGPU(draw.List{}, v)
			got := "\n" + strings.Join(labels(l), "\n") + "\n"
			if c.want == "" && strings.Contains(got, "ratio") || c.want != "" && !strings.Contains(got, "\n"+c.want+"\n") {
				t.Errorf("%s: HBM %v, shared memory %v: want %q in%s", f.name, c.hbm, c.smem, c.want, got)
			}
			// The bars: as long as their bytes, on one scale.
			var bars []draw.Item
			for _, it := range l.Items {
				if it.Kind == draw.FillRect && (it.Color == f.th.Dim || it.Color == f.th.Link) && it.H < 20*f.sc {
					bars = append(bars, it)
				}
			}
			if len(bars) < 2 {
				t.Fatalf("%s: bars %v", f.name, bars)
			}
			a, b := bars[len(bars)-2], bars[len(bars)-1]
			if r, want := float64(b.W/a.W), c.smem/c.hbm; max(a.W, b.W) < 50 || min(a.W, b.W) > 2*f.sc && math.Abs(r-want)/want > 0.02 {
				t.Errorf("%s: bars %v and %v, want the ratio %v", f.name, a.W, b.W, want)
			}
		}
	}
}

// The ridge's value touches no line of the roofline: the slope, the roof,
// the ridge's drop, the kernel's, the frame; it shows on the desktop and
// in presentation mode.
func TestZoomGPURidgeClear(t *testing.T) {
	for _, f := range zoomFrames {
		for _, memory := range []bool{false, true} {
			v := zoomGPUView(memory)
			v.Intensity, v.Attained, v.Peak, v.HBMBytes, v.SmemBytes = 750, 680e12, 841e12, 824e6, 19.3e9
			if memory {
				v.Intensity, v.Attained = 1.2, 3e12
			}
			v.Width, v.Height, v.Stage, v.Scale, v.Theme = f.st.W, f.st.H, f.st, f.sc, f.th
			l := AppendZoomGPU(draw.List{}, v)
			var lab *draw.Item
			for i, it := range l.Items {
				if it.Kind == draw.Text && strings.HasPrefix(it.Text, "ridge v") {
					lab = &l.Items[i]
				}
			}
			if lab == nil {
				if f.name == "desktop" || f.name == "present" {
					t.Errorf("%s memory %v: no ridge label", f.name, memory)
				}
				continue
			}
			b := lab.Bounds()
			for _, it := range l.Items {
				if it.Kind != draw.Line || it.Color.A < 100 {
					continue // the faint grid
				}
				for k := 0; k <= 200; k++ {
					x := it.X + (it.X2-it.X)*float32(k)/200
					y := it.Y + (it.Y2-it.Y)*float32(k)/200
					h := it.Width / 2
					if x+h > b.X && x-h < b.X+b.W && y+h > b.Y && y-h < b.Y+b.H {
						t.Errorf("%s memory %v: %q at %v touches the line %+v", f.name, memory, lab.Text, b, it)
						break
					}
				}
			}
		}
	}
}

func TestZoomGPUAllocs(t *testing.T) {
	for _, memory := range []bool{false, true} {
		v := zoomGPUView(memory)
		l := AppendZoomGPU(draw.List{}, v)
		if n := testing.AllocsPerRun(10, func() { v.Time += 1e-6; l = AppendZoomGPU(l, v) }); n > 0 {
			t.Errorf("%v allocations a frame, want none", n)
		}
	}
}

// A pass with no arithmetic (0 FLOP) has no point on the roofline's log
// axis: the bytes' column says so, and at what rate HBM streams it, in
// place of "0 FLOP in 20 µs".
func TestZoomGPUNoArithmetic(t *testing.T) {
	v := zoomGPUView(true)
	v.Intensity, v.Attained, v.FLOPs = 0, 0, 0
	l := AppendZoomGPU(draw.List{}, v)
	got := strings.Join(labels(l), "\n")
	for _, want := range []string{"work_bw t 20 µs rate 3.35 TB/s", "no_point"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "\nwork flop") {
		t.Errorf("the plain work line beside the no-arithmetic one:\n%s", got)
	}
	v = zoomGPUView(true) // 80 MFLOP: a point, no such words
	if got := strings.Join(labels(AppendZoomGPU(draw.List{}, v)), "\n"); strings.Contains(got, "no_point") {
		t.Errorf("a kernel with arithmetic said to have no point:\n%s", got)
	}
}

// The bars' widest name is never cut by its own width's rounding (it
// was: "HBM 79.7 …" in Chinese, where the other name is narrower).
func TestZoomGPUBarNamesWhole(t *testing.T) {
	v := zoomGPUView(true)
	v.Words, v.HBMBytes, v.SmemBytes = chinese, 79.7e6, 0
	for _, s := range labels(AppendZoomGPU(draw.List{}, v)) {
		if strings.HasPrefix(s, "HBM") && strings.Contains(s, "…") {
			t.Errorf("the HBM bar's name cut: %q", s)
		}
	}
}
