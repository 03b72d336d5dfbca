package render

import (
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render/draw"
)

// The zoom's pictures (issue 21): one moment of a training step seen from
// a node, from one GPU and from one SM. The cluster level is the step's
// own picture (its time line, or the plan on the cluster); scene builds
// these views from the engine's activity at the playhead
// (parallel.StepActivity) and draws one in place of the step's picture.
//
// Every view starts with Crumbs, the way back: "Cluster › Node 3 › GPU 27
// › SM", the level shown last, drawn by ZoomCrumbs over the picture.

// ZoomActivity is the colour family of what a GPU does: a kernel of a
// forward or a backward (compute), a collective on the links, the
// optimizer, or nothing (waiting in the pipeline's bubble) — or, in a
// long job seen over days, what the job does: training, writing a
// checkpoint, restarting, the GPU that failed, work a failure threw away.
type ZoomActivity uint8

// What a GPU can be doing.
const (
	ZoomIdle ZoomActivity = iota
	ZoomForward
	ZoomBackward
	ZoomComm // a collective or a send holds the GPU (exposed)
	ZoomOptimizer
	// The job's phases (the fault-tolerance picture's colours): a node
	// or strip with any of them keys only the activities it shows.
	ZoomTrain
	ZoomCheckpoint
	ZoomRestart
	ZoomFailed // the GPU that failed
	ZoomLost   // work a failure threw away
)

// ZoomFlow is traffic at the moment: between two GPUs of the node (From,
// To their indices in ZoomNodeView.GPUs) or leaving it through a GPU's
// NIC (To −1). Kind is the parallelism it serves ("tp", "cp", "pp",
// "dp"), Progress how far its transfer has got (0–1).
type ZoomFlow struct {
	From, To int
	Kind     string
	Progress float64
}

// ZoomNodeGPU is one GPU of the node at the moment.
type ZoomNodeGPU struct {
	GPU      int          // its number in the plan (a click on it zooms in on it)
	Label    string       // "GPU 24"
	Role     string       // "TP 0 · stage 3"
	Doing    string       // "up GEMM", "waiting", "all-reduce"
	Activity ZoomActivity // its colour
	Progress float64      // through the kernel it runs (0–1)
}

// ZoomNodeView is one node at a moment: its GPUs round the NVSwitch, each
// coloured and labelled by what it runs, and the traffic on its NVLink
// and its NICs.
type ZoomNodeView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Crumbs        string
	Title         string // "Node 3 of 32: 8 × H100, NVLink 4 (450 GB/s one way)"
	Clock         string // "t = 1.42 s", the step's moment
	// Alert, where set, is a line under the title in the hot colour ("GPU
	// 9,217 failed, in node 1,152"); a click on it zooms in on AlertGPU.
	Alert     string
	AlertGPU  int
	GPUs      []ZoomNodeGPU
	Focus     int // the zoom's GPU, an index into GPUs
	IntraName string
	IntraBW   float64 // bytes/s one way, a GPU's NVLink
	InterName string
	InterBW   float64 // bytes/s one way, a GPU's NIC
	Flows     []ZoomFlow
	// KeyShown keys only the activities the node's GPUs show (a
	// collective's node); false: a training step's five.
	KeyShown bool
	// Unfit, when set, says that the plan does not fit its GPUs' memory
	// and by how much: the node is drawn as not running — veiled and
	// hatched, no progress, no traffic, no clock — with Unfit in a box
	// over it (unfitVeil, as the step's own picture).
	Unfit string
}

// ZoomSpan is one kernel in the GPU's strip: its name, colour family and
// times (seconds on the step's clock).
type ZoomSpan struct {
	Label      string
	Activity   ZoomActivity
	Comm       bool // a collective (drawn hatched or in the link colour)
	Start, End float64
}

// ZoomGPUView is one GPU at a moment: the kernel running, among the
// layer's kernels in the order they run (a strip with the playhead); its
// point under the GPU's roofline; the bytes it moves through HBM and
// through shared memory.
type ZoomGPUView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Crumbs        string
	Title         string // "GPU 27 · stage 3 · TP rank 3"
	Doing         string // "forward of micro-batch 3 · layer 14 of 126"
	Kernel        string // "up GEMM 4,096 × 28,672 × 8,192" or "TP all-reduce over NVLink 4"
	Strip         []ZoomSpan
	StripKey      string  // the strip's caption, an i18n key with {t} (its length); "": the layer's kernels
	Current       int     // the running kernel, an index into Strip (−1 none)
	Time          float64 // the playhead, seconds
	// The roofline: the GPU's peak in the kernel's dtype (FLOP/s) and HBM
	// bandwidth (bytes/s); the kernel's arithmetic intensity (FLOP per
	// HBM byte) and the FLOP/s it attains. Intensity 0: no point (a
	// collective, waiting).
	GPU        string // "H100"
	Dtype      string // "BF16"
	Peak, BW   float64
	Intensity  float64
	Attained   float64
	Bound      string  // "compute", "memory", "shared-memory", "" for none
	HBMBytes   float64 // bytes the kernel moves through HBM
	SmemBytes  float64 // … and through shared memory
	FLOPs      float64
	KernelTime float64 // seconds
	// Note replaces the roofline and the bytes when the GPU runs no
	// kernel with a point: what it does instead ("waits for stage 2's
	// activations", "the layer's all-reduce on NVLink").
	Note string
	// Unfit, when set, says that the plan does not fit its GPUs' memory
	// and by how much: under the title, in place of what the GPU does
	// (no strip, no roofline, no playhead), a veiled and hatched panel
	// with Unfit in a box.
	Unfit string
}

// ZoomSMView is one SM at the moment, inside the GPU's running matrix
// product: C's output tiles (TilesM × TilesN of TileM × TileN) dealt to
// the SMs in waves, the wave running lit; the SM's own tiles, each a
// block of warps; and the K loop — strips of A and B staged TileK at a
// time through shared memory, KStep of KSteps done.
type ZoomSMView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Crumbs        string
	Title         string // "SM 0 of 132 in the up GEMM"
	TilesM        int
	TilesN        int
	TileM         int
	TileN         int
	TileK         int
	M, N, K       int
	SMs           int
	BlocksPerSM   int
	WarpsPerBlock int
	Waves         int
	Wave          int     // the running wave, 1-based
	KStep         int     // the K loop's step in the running wave, 0-based
	KSteps        int     // ⌈K ÷ TileK⌉
	SmemPerBlock  int     // bytes: its double-buffered A and B tiles
	SmemPerSM     int     // the SM's shared memory
	Dtype         string  // "BF16"
	Progress      float64 // through the kernel (0–1)
	// Note replaces the tiles when the GPU's kernel is not a matrix
	// product ("attention streams K and V past Q's blocks", "a
	// collective: the SMs copy and add buffers").
	Note string
	// Pass, with Note, draws what the SMs do instead of a product's
	// tiles: the SMs at work and waiting over the memory or link they
	// use (zoomsmpass.go); without it the Note stands alone.
	Pass *ZoomSMPass
	// Unfit, when set, says that the plan does not fit its GPUs' memory
	// and by how much: what is drawn under the title (the SMs idle, say)
	// is veiled and hatched, nothing moves, and Unfit is in a box over
	// it.
	Unfit string
}

// zoomCrumbs draws the way back (a view's Crumbs) on a line at the top of
// st, in the dim colour, and returns the part of st under it.
func zoomCrumbs(l *draw.List, th draw.Theme, st draw.Rect, sc float32, s string) draw.Rect {
	if s == "" {
		return st
	}
	if sc <= 0 {
		sc = 1
	}
	fs, pad := draw.HeadFont(st, sc)
	// A little smaller than a headline, never under the pictures'
	// smallest text (20 px in presentation mode, PICTURES.md rule 8).
	fs = draw.Maxf(fs*0.85, draw.TextSize(sc))
	l.Label(st.X+pad, st.Y+pad*0.5, fs, draw.AlignLeft, th.Dim, draw.Fit(s, fs, st.W-2*pad))
	h := pad*0.5 + fs*draw.LineHeight
	st.Y, st.H = st.Y+h, st.H-h
	return st
}

// ZoomTransition is the move between two zoom levels, applied to the new
// level's picture while it arrives: the picture grows (zooming in) or
// shrinks (zooming out) to its size about the stage's centre as it fades
// in. p is the transition's progress (0–1); at 1 the list is unchanged.
// Readers who ask for reduced motion get no transition (the page does
// not call it).
func ZoomTransition(l *draw.List, st draw.Rect, in bool, p float32) {
	p = draw.Clamp(p, 0, 1)
	if p >= 1 {
		return
	}
	ease := 1 - (1-p)*(1-p) // fast, then settling
	k := 0.8 + 0.2*ease
	if !in {
		k = 1.25 - 0.25*ease
	}
	cx, cy := st.X+st.W/2, st.Y+st.H/2
	alpha := 0.25 + 0.75*ease
	for i := range l.Items {
		it := &l.Items[i]
		it.X, it.Y = cx+(it.X-cx)*k, cy+(it.Y-cy)*k
		it.X2, it.Y2 = cx+(it.X2-cx)*k, cy+(it.Y2-cy)*k
		it.W, it.H, it.R, it.Width, it.Size = it.W*k, it.H*k, it.R*k, it.Width*k, it.Size*k
		it.Color.A = uint8(float32(it.Color.A) * alpha)
	}
}

// zoomActColour is the colour of what a GPU does: the pipeline time
// line's forward, backward, communication, update and bubble colours
// (render/pipeline.go), so that the zoom matches the step's picture.
func zoomActColour(a ZoomActivity, th draw.Theme) draw.Color {
	switch a {
	case ZoomForward:
		return th.LinkActive
	case ZoomBackward:
		return th.Rim
	case ZoomComm:
		return draw.CommColour(th)
	case ZoomOptimizer, ZoomRestart:
		return th.Dim
	case ZoomTrain:
		return th.LinkActive
	case ZoomCheckpoint:
		return th.Rim
	case ZoomFailed, ZoomLost:
		return th.Hot
	}
	return th.Empty
}

// zoomActKeys are the activities' legend words, by ZoomActivity.
var zoomActKeys = [...]string{"canvas.zoom.node.idle", "canvas.zoom.node.forward", "canvas.zoom.node.backward", "canvas.zoom.node.comm", "canvas.zoom.node.optimizer",
	"canvas.zoom.node.train", "canvas.zoom.node.checkpoint", "canvas.zoom.node.restart", "canvas.zoom.node.failed", "canvas.zoom.node.lost"}

// zoomActOrder is the legend's order, the time line's; then the job's.
var zoomActOrder = [...]ZoomActivity{ZoomForward, ZoomBackward, ZoomComm, ZoomOptimizer, ZoomIdle, ZoomTrain, ZoomCheckpoint, ZoomLost, ZoomRestart, ZoomFailed}

func zoomAct(a ZoomActivity) ZoomActivity {
	if int(a) >= len(zoomActKeys) {
		return ZoomIdle
	}
	return a
}

// zoomInk is the text colour that reads on fill: the theme's text or
// background, whichever contrasts more.
func zoomInk(fill draw.Color, th draw.Theme) draw.Color {
	lum := func(c draw.Color) float32 { return 0.2126*float32(c.R) + 0.7152*float32(c.G) + 0.0722*float32(c.B) }
	f, a, b := lum(fill), lum(th.Text), lum(th.Background)
	if draw.Abs(f-a) >= draw.Abs(f-b) {
		return th.Text
	}
	return th.Background
}

// zKey is a zoom label's memo key: a language, up to two strings and a
// kind, with up to two numbers.
type zKey struct {
	lang, s, t string
	kind       byte
	a, b       float64
}

var zoomLabels draw.Memo[zKey]

// zoomSay is w.Say(key, a, x, b, y) with x and y written by fa and fb
// ('d' a duration, 'f' FLOP, else rfNum's number; no b: one value; no
// key: x alone),
// formatted once a value.
func zoomSay(w draw.Words, key, a string, fa byte, x float64, b string, fb byte, y float64) string {
	return zoomLabels.Get(zKey{w.Lang, key, "", 0, x, y}, func() string {
		switch {
		case key == "":
			return zoomNum(w.Lang, fa, x)
		case b == "":
			return w.Say(key, a, zoomNum(w.Lang, fa, x))
		}
		return w.Say(key, a, zoomNum(w.Lang, fa, x), b, zoomNum(w.Lang, fb, y))
	})
}

func zoomNum(lang string, f byte, x float64) string {
	switch f {
	case 'd':
		return units.LocalDuration(lang, x)
	case 'f':
		return units.FLOP(x)
	case 'r':
		return units.Rate(x)
	}
	return draw.Num(x)
}
