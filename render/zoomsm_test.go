package render

import (
	"fmt"
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// zoomSMView is SM 0 in an up GEMM of a 70B model's MLP on an H100:
// 8,192 × 28,672 × 8,192 in BF16 on 128 × 128 × 64 tiles, as
// kernel.GEMM runs it (2 blocks an SM, 55 waves of 264 tiles), at wave
// wave and slab kstep of 128.
func zoomSMView(t testing.TB, wave, kstep int) ZoomSMView {
	g := hw.MustGPU("h100")
	r, err := kernel.GEMM(kernel.GEMMConfig{M: 8192, N: 28672, K: 8192, Dtype: hw.BF16, GPU: g, Kernel: kernel.TensorTiled})
	if err != nil {
		t.Fatal(err)
	}
	v := ZoomSMView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Crumbs: "Cluster › Node 3 › GPU 27 › SM", Title: "SM 0 of 132 in the up GEMM",
		TilesM: 64, TilesN: 224, TileM: 128, TileN: 128, TileK: 64, M: 8192, N: 28672, K: 8192,
		SMs: g.SMs, BlocksPerSM: r.BlocksPerSM, WarpsPerBlock: kernel.ThreadsPerBlock / 32, Waves: r.Waves,
		Wave: wave, KStep: kstep, KSteps: 128, SmemPerBlock: (128*64 + 64*128) * 2 * 2, SmemPerSM: g.SharedMemPerSM,
		Dtype: "BF16",
	}
	v.Progress = (float64(wave-1) + float64(kstep)/128) / float64(v.Waves)
	return v
}

// smallSMView is a product small enough to draw whole: 8 × 12 tiles
// (or fewer) on 10 SMs of 2 blocks, 20 tiles a wave.
func smallSMView(tm, tn, wave, kstep int) ZoomSMView {
	v := ZoomSMView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Crumbs: "Cluster › GPU 0 › SM", Title: "SM 0 of 10",
		TilesM: tm, TilesN: tn, TileM: 128, TileN: 128, TileK: 64, M: tm * 128, N: tn * 128, K: 1024,
		SMs: 10, BlocksPerSM: 2, WarpsPerBlock: 8, Wave: wave, KStep: kstep, KSteps: 16,
		SmemPerBlock: 64 << 10, SmemPerSM: 228 << 10, Dtype: "BF16",
	}
	v.Waves = (tm*tn + 19) / 20
	return v
}

func TestZoomSMGolden(t *testing.T) {
	golden.Check(t, "zoomsm_wave3.golden", AppendZoomSM(draw.List{}, zoomSMView(t, 3, 40)).String())
}

// smCells are the tile grid's cells: the first run of n or more
// consecutive filled rectangles of one size (the grid draws its dm × dn
// cells in a row, nothing between them).
func smCells(l draw.List, n int) []draw.Item {
	for i := 0; i < len(l.Items); i++ {
		a := l.Items[i]
		if a.Kind != draw.FillRect {
			continue
		}
		j := i
		for j < len(l.Items) && l.Items[j].Kind == draw.FillRect && l.Items[j].W == a.W && l.Items[j].H == a.H {
			j++
		}
		if j-i >= n {
			return l.Items[i:j]
		}
	}
	return nil
}

// smCount counts the items of a kind and colour.
func smCount(items []draw.Item, k draw.Kind, c draw.Color) int {
	n := 0
	for _, it := range items {
		if it.Kind == k && it.Color == c {
			n++
		}
	}
	return n
}

// The running wave's tiles are lit, min(SMs × BlocksPerSM, the tiles
// left) of them; the waves before are done, the rest waiting.
func TestZoomSMWaveLit(t *testing.T) {
	run, done, _, _, _ := zoomSMColours(draw.Dark)
	for _, tc := range []struct {
		tm, tn, wave, lit, done int
	}{
		{8, 12, 1, 20, 0},
		{8, 12, 3, 20, 40},
		{8, 12, 5, 16, 80}, // the tail: 96 − 80
		{8, 12, 6, 0, 96},  // past the last wave: all done
		{3, 3, 1, 9, 0},    // fewer tiles than slots
	} {
		v := smallSMView(tc.tm, tc.tn, tc.wave, 0)
		cells := smCells(AppendZoomSM(draw.List{}, v), tc.tm*tc.tn)
		if len(cells) != tc.tm*tc.tn {
			t.Fatalf("%d × %d: %d cells drawn", tc.tm, tc.tn, len(cells))
		}
		if got, gd := smCount(cells, draw.FillRect, run), smCount(cells, draw.FillRect, done); got != tc.lit || gd != tc.done {
			t.Errorf("%d × %d wave %d: %d lit, %d done; want %d, %d", tc.tm, tc.tn, tc.wave, got, gd, tc.lit, tc.done)
		}
	}
	// The H100's 14,336 tiles, drawn 32 × 32 round the running wave:
	// its 264 tiles all in the window, lit.
	for _, wave := range []int{1, 3, 30, 55} {
		v := zoomSMView(t, wave, 0)
		l := AppendZoomSM(draw.List{}, v)
		cells := smCells(l, 32*32)
		if len(cells) != 32*32 {
			t.Fatalf("wave %d: %d cells, want 32 × 32", wave, len(cells))
		}
		want := min(264, 64*224-(wave-1)*264)
		if got := smCount(cells, draw.FillRect, run); got != want {
			t.Errorf("H100 wave %d: %d tiles lit, want %d", wave, got, want)
		}
		if s := strings.Join(labels(l), "\n"); !strings.Contains(s, "tiles_part tm 64 tn 224 bm 128 bn 128 sms 132 dm 32 dn 32") ||
			!strings.Contains(s, fmt.Sprintf("wave wave %d waves 55 n %d", wave, want)) {
			t.Errorf("H100 wave %d: labels\n%s", wave, s)
		}
	}
}

// A wave's tiles are a patch of C (the grouped order the engine's L2
// model assumes), and the order numbers every tile once.
func TestZoomSMOrder(t *testing.T) {
	for _, tc := range [][2]int{{64, 224}, {7, 5}, {1, 9}, {9, 1}, {17, 3}} {
		s := zoomSMState(ZoomSMView{TilesM: tc[0], TilesN: tc[1], SMs: 132, BlocksPerSM: 2, Wave: 1})
		seen := make([]bool, s.total)
		for r := 0; r < tc[0]; r++ {
			for c := 0; c < tc[1]; c++ {
				i := s.g.index(r, c)
				if i < 0 || i >= s.total || seen[i] {
					t.Fatalf("%v: tile (%d, %d) numbered %d twice or out of range", tc, r, c, i)
				}
				seen[i] = true
				if rr, cc := s.g.at(i); rr != r || cc != c {
					t.Fatalf("%v: at(%d) = (%d, %d), want (%d, %d)", tc, i, rr, cc, r, c)
				}
			}
		}
	}
	s := zoomSMState(ZoomSMView{TilesM: 64, TilesN: 224, SMs: 132, BlocksPerSM: 2, Wave: 3})
	r0, c0, r1, c1 := math.MaxInt, math.MaxInt, 0, 0
	for i := s.first; i < s.end; i++ {
		r, c := s.g.at(i)
		r0, c0, r1, c1 = min(r0, r), min(c0, c), max(r1, r), max(c1, c)
	}
	if area := (r1 - r0 + 1) * (c1 - c0 + 1); area > 300 || r1-r0 > 20 || c1-c0 > 20 {
		t.Errorf("wave 3's 264 tiles span rows %d–%d, columns %d–%d: not a patch", r0, r1, c0, c1)
	}
}

// This SM's tiles — every SMs-th in the dealing order — are outlined,
// and no other; its blocks with a tile now are outlined too.
func TestZoomSMThisSM(t *testing.T) {
	_, _, _, _, mine := zoomSMColours(draw.Dark)
	v := smallSMView(8, 12, 2, 0)
	l := AppendZoomSM(draw.List{}, v)
	cells := smCells(l, 96)
	if len(cells) != 96 {
		t.Fatalf("%d cells", len(cells))
	}
	x0, y0 := cells[0].X, cells[0].Y
	pitch := cells[1].X - x0
	s := zoomSMState(v)
	got := map[[2]int]bool{}
	blocks := 0
	for _, it := range l.Items {
		if it.Kind != draw.StrokeRect || it.Color != mine {
			continue
		}
		if it.W > pitch*1.01 {
			blocks++
			continue
		}
		r := int(math.Floor(float64((it.Y - y0 + pitch/2) / pitch)))
		c := int(math.Floor(float64((it.X - x0 + pitch/2) / pitch)))
		got[[2]int{r, c}] = true
	}
	want := 0
	for r := 0; r < 8; r++ {
		for c := 0; c < 12; c++ {
			if s.g.index(r, c)%10 == 0 {
				want++
				if !got[[2]int{r, c}] {
					t.Errorf("tile (%d, %d), number %d, not outlined", r, c, s.g.index(r, c))
				}
			}
		}
	}
	if len(got) != want || want != 10 {
		t.Errorf("%d tiles outlined, want %d (96 tiles on 10 SMs)", len(got), want)
	}
	if !got[[2]int{0, 0}] {
		t.Error("tile 0 not outlined")
	}
	if blocks != 2 {
		t.Errorf("%d blocks outlined, want 2", blocks)
	}
}

// smWarps counts the warps drawn lit and in the waiting colour: filled
// rectangles of those colours outside the tile grid and the legend.
func smWarps(l draw.List, nCells int) (lit, idle int) {
	run, _, _, _, _ := zoomSMColours(draw.Dark)
	cells := smCells(l, nCells)
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	for _, it := range l.Items {
		if it.Kind != draw.FillRect || (it.W == fs*0.9 && it.H == fs*0.9) {
			continue
		}
		if len(cells) > 0 && it.W == cells[0].W && it.H == cells[0].H {
			continue
		}
		switch it.Color {
		case run:
			lit++
		case draw.Dark.Empty:
			if it.H > fs*1.2 { // not a bar or a strip
				idle++
			}
		}
	}
	return lit, idle
}

// Each resident block is drawn as WarpsPerBlock warps, lit while it has
// a tile; in the tail SM 0 has one tile for its two blocks.
func TestZoomSMWarps(t *testing.T) {
	for _, warps := range []int{8, 4, 12, 1} {
		v := smallSMView(8, 12, 1, 0)
		v.WarpsPerBlock = warps
		if lit, idle := smWarps(AppendZoomSM(draw.List{}, v), 96); lit != 2*warps || idle != 0 {
			t.Errorf("%d warps a block: %d lit, %d idle; want %d lit", warps, lit, idle, 2*warps)
		}
	}
	v := smallSMView(5, 17, 5, 0) // 85 tiles: the last wave's are 80–84, one for SM 0
	if lit, idle := smWarps(AppendZoomSM(draw.List{}, v), 85); lit != 8 || idle != 8 {
		t.Errorf("the tail: %d warps lit, %d idle; want 8 and 8", lit, idle)
	}
	l := AppendZoomSM(draw.List{}, v)
	if s := strings.Join(labels(l), "\n"); !strings.Contains(s, "resident blocks 2 warps 8") {
		t.Errorf("labels:\n%s", s)
	}
}

// smSlabs are the K strips' lit slabs (A's then B's): rectangles in A's
// and B's colours as tall as a strip.
func smSlabs(l draw.List) (a, b []draw.Item) {
	_, _, colA, colB, _ := zoomSMColours(draw.Dark)
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.H == fs {
			switch it.Color {
			case colA:
				a = append(a, it)
			case colB:
				b = append(b, it)
			}
		}
	}
	return a, b
}

// The K loop's lit slab moves along the strip with KStep, the slabs
// before it done; shared memory's solid stage alternates.
func TestZoomSMKStep(t *testing.T) {
	_, done, colA, _, _ := zoomSMColours(draw.Dark)
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	var x [3]float32
	var w float32
	for i, k := range []int{0, 1, 40} {
		l := AppendZoomSM(draw.List{}, zoomSMView(t, 3, k))
		a, b := smSlabs(l)
		if len(a) != 1 || len(b) != 1 {
			t.Fatalf("kstep %d: %d lit slabs of A, %d of B; want one each", k, len(a), len(b))
		}
		if a[0].X != b[0].X {
			t.Errorf("kstep %d: A's slab at %.1f, B's at %.1f", k, a[0].X, b[0].X)
		}
		x[i], w = a[0].X, a[0].W
		var doneW float32
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == done && it.H == fs {
				doneW = it.W
			}
		}
		if want := float32(k) * (x[1] - x[0]); i == 2 && math.Abs(float64(doneW-want)) > 0.5 {
			t.Errorf("kstep 40: done %.1f px, want %.1f", doneW, want)
		}
		if s := strings.Join(labels(l), "\n"); !strings.Contains(s, fmt.Sprintf("kloop i %d n 128 bk 64 k 8,192", k+1)) {
			t.Errorf("kstep %d: labels\n%s", k, s)
		}
	}
	if step := x[1] - x[0]; step <= 0 || math.Abs(float64(x[2]-x[0]-40*step)) > 0.5 || w < step-0.01 {
		t.Errorf("lit slab at %v (width %.1f): not moving a slab a step", x, w)
	}
	// Shared memory: the stage the warps read is solid, the other
	// loading; they swap each slab.
	solid := func(k int) float32 {
		for _, it := range AppendZoomSM(draw.List{}, zoomSMView(t, 3, k)).Items {
			if it.Kind == draw.FillRect && it.Color == colA && it.H == fs*1.1 {
				return it.X
			}
		}
		return -1
	}
	if a, b := solid(0), solid(1); a < 0 || b <= a || solid(2) != a {
		t.Errorf("shared memory's solid A stage at %.1f, %.1f, %.1f for slabs 0, 1, 2", a, b, solid(2))
	}
}

// A note replaces the tiles; the way back and the title stay.
func TestZoomSMNote(t *testing.T) {
	run, done, _, _, _ := zoomSMColours(draw.Dark)
	v := zoomSMView(t, 3, 40)
	v.Note = "attention streams K and V past Q's blocks"
	l := AppendZoomSM(draw.List{}, v)
	s := strings.Join(labels(l), "\n")
	for _, want := range []string{v.Crumbs, v.Title, v.Note} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	if n := smCount(l.Items, draw.FillRect, run) + smCount(l.Items, draw.FillRect, done); n != 0 || strings.Contains(s, "numbers") {
		t.Errorf("the tiles drawn under a note: %d lit or done cells; labels\n%s", n, s)
	}
}

// smFrames are the frames the picture rules are checked at
// (scene/rules_test.go's ruleFrames): desktop, phone, embed and
// presentation mode.
var smFrames = []struct {
	name          string
	width, height float32
	stage         draw.Rect
	scale         float32
	theme         draw.Theme
}{
	{"desktop", 1280, 800, draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1, draw.Dark},
	{"phone", 390, 844, draw.Rect{X: 0, Y: 0, W: 390, H: 420}, 1, draw.Light},
	{"embed", 640, 400, draw.Rect{X: 0, Y: 0, W: 640, H: 300}, 1, draw.Dark},
	{"present", 1280, 800, draw.Rect{X: 0, Y: 0, W: 1280, H: 576}, 1.5, draw.Projector},
}

// smUnkeyed is a colour drawn that no key explains and is not one of the
// theme's neutrals (scene's rule).
func smUnkeyed(l draw.List, th draw.Theme) (draw.Color, bool) {
	ok := map[[3]uint8]bool{}
	for _, c := range []draw.Color{th.Background, th.Panel, th.Text, th.Dim, th.Link, th.GPU, th.Empty} {
		ok[[3]uint8{c.R, c.G, c.B}] = true
	}
	for _, k := range l.Keys {
		ok[[3]uint8{k.Color.R, k.Color.G, k.Color.B}] = true
	}
	for _, it := range l.Items {
		if it.Kind != draw.Text && !ok[[3]uint8{it.Color.R, it.Color.G, it.Color.B}] {
			return it.Color, true
		}
	}
	return draw.Color{}, false
}

// At every frame, in both languages, at the start, middle and tail of
// the kernel and under a note: text at least 13.5 px × scale, on the
// stage, over no other text; every mark on the stage; every colour keyed.
func TestZoomSMText(t *testing.T) {
	for _, f := range smFrames {
		for _, words := range []draw.Words{english, chinese} {
			for _, at := range [][2]int{{1, 0}, {3, 40}, {55, 127}, {56, 0}} {
				for _, note := range []string{"", "a collective: the SMs copy and add buffers while the GPU waits for its neighbours"} {
					v := zoomSMView(t, at[0], at[1])
					v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words, v.Note = f.width, f.height, f.stage, f.scale, f.theme, words, note
					l := AppendZoomSM(draw.List{}, v)
					name := fmt.Sprintf("%s %s wave %d slab %d note %v", f.name, words.Lang, at[0], at[1], note != "")
					t.Run(name, func(t *testing.T) {
						checkText(t, l, f.stage, 13.5*f.scale)
						for _, it := range l.Items {
							if b := it.Bounds(); it.Kind != draw.Text && (b.X < f.stage.X-1 || b.Y < f.stage.Y-1 || b.X+b.W > f.stage.X+f.stage.W+1 || b.Y+b.H > f.stage.Y+f.stage.H+1) {
								t.Errorf("%v item at %v leaves the stage", draw.KindNames[it.Kind], b)
								break
							}
						}
						if c, bad := smUnkeyed(l, f.theme); bad {
							t.Errorf("colour %s has no key", c.Hex())
						}
						if note == "" && len(smCells(l, 32*8)) == 0 {
							t.Error("no tile grid drawn")
						}
						if note == "" {
							want := 1
							if at[0] > 55 {
								want = 0 // all done
							}
							if a, b := smSlabs(l); f.name == "desktop" && (len(a) != want || len(b) != want) {
								t.Errorf("%d and %d lit slabs of A and B, want %d", len(a), len(b), want)
							}
						}
					})
				}
			}
		}
	}
}

// Degenerate views draw something or nothing, never panic.
func TestZoomSMDegenerate(t *testing.T) {
	base := func() ZoomSMView { return zoomSMView(t, 3, 40) }
	cases := map[string]func(*ZoomSMView){
		"no tiles":      func(v *ZoomSMView) { v.TilesM, v.TilesN = 0, 0 },
		"no columns":    func(v *ZoomSMView) { v.TilesN = 0 },
		"negative":      func(v *ZoomSMView) { v.TilesM, v.TilesN, v.Wave, v.KStep = -3, -4, -1, -9 },
		"TileK 0":       func(v *ZoomSMView) { v.TileK, v.KSteps = 0, 0 },
		"no tile sizes": func(v *ZoomSMView) { v.TileM, v.TileN, v.TileK = 0, 0, 0 },
		"huge":          func(v *ZoomSMView) { v.M, v.N, v.TilesM, v.TilesN = 1<<40, 1<<40, 1<<40, 1<<40 },
		"wave past":     func(v *ZoomSMView) { v.Wave = 1000 },
		"wave 0":        func(v *ZoomSMView) { v.Wave, v.Waves = 0, 0 },
		"kstep past":    func(v *ZoomSMView) { v.KStep = 1 << 30 },
		"no SMs":        func(v *ZoomSMView) { v.SMs, v.BlocksPerSM, v.WarpsPerBlock = 0, 0, 0 },
		"many blocks":   func(v *ZoomSMView) { v.BlocksPerSM, v.WarpsPerBlock = 32, 1000 },
		"many slabs":    func(v *ZoomSMView) { v.KSteps, v.KStep = 1<<20, 5000 },
		"one slab":      func(v *ZoomSMView) { v.KSteps, v.KStep = 1, 0 },
		"smem over":     func(v *ZoomSMView) { v.SmemPerSM, v.SmemPerBlock = 1000, 1<<30 },
		"no smem":       func(v *ZoomSMView) { v.SmemPerSM, v.SmemPerBlock = 0, 0 },
		"odd tile":      func(v *ZoomSMView) { v.TileM, v.TileN = 1, 100000 },
		"NaN progress":  func(v *ZoomSMView) { v.Progress = math.NaN() },
		"tiny stage":    func(v *ZoomSMView) { v.Stage = draw.Rect{X: 0, Y: 0, W: 60, H: 40} },
		"no stage":      func(v *ZoomSMView) { v.Stage = draw.Rect{} },
		"no scale":      func(v *ZoomSMView) { v.Scale = 0 },
		"empty":         func(v *ZoomSMView) { *v = ZoomSMView{} },
	}
	for name, change := range cases {
		v := base()
		change(&v)
		t.Run(name, func(t *testing.T) {
			l := AppendZoomSM(draw.List{}, v)
			if v.Stage.W > 100 {
				checkText(t, l, v.Stage, 13.5)
			}
		})
	}
}

// Successive frames of a wave share the picture's still parts as a
// prefix: a slab later, only the K loop and the labels after it change.
func TestZoomSMStillFirst(t *testing.T) {
	a := AppendZoomSM(draw.List{}, zoomSMView(t, 3, 40)).Items
	b := AppendZoomSM(draw.List{}, zoomSMView(t, 3, 41)).Items
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n < len(a)*3/4 {
		t.Errorf("a slab later, frames share %d of %d items", n, len(a))
	}
}
