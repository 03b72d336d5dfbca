//go:build js && wasm

package main

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/render/paint"
	"github.com/gpuscope/gpuscope/scenarios"
)

// app is the running page: the player, the DOM it drives and the picture.
type app struct {
	mu     sync.Mutex
	player *scenarios.Player
	ui     *ui

	pendingKnob map[string]string // knob values set since the last tick

	shownRev  int      // the player revision the DOM shows
	shownTime sim.Time // the playhead the clock shows
	frag      string   // the fragment we last wrote to the address bar
	lastLang  string
	lastScn   string

	list render.List // built by Update, painted by Draw
	// scratch holds a second picture before it joins list (a time line
	// beside memory bars).
	scratch render.List
	// timelines caches the strategy time lines of the run on screen.
	timelines timelineCache
	dark      bool
	dpr       float64 // window.devicePixelRatio, read once per tick
	// stage is #stage's rectangle, read again only after a resize or a
	// change of the page's text: reading it forces a layout, which costs
	// milliseconds per frame on a slow machine.
	stage      [4]float32
	stageDirty bool
	tick       int
	shown      pictureKey // what the display list was built for
	dirty      bool       // the display list has not been painted yet
	drawn      bool       // Draw has run at least once
	ready      bool
	em         embedding
	present    bool // presentation mode (present=1 in the fragment)
	// snap, when set, is called with the screen by the next Draw once it
	// has painted the picture, then cleared (issue 7: share.go's PNG
	// export; the WebGL canvas keeps no drawing buffer to read later).
	snap func(screen *ebiten.Image)

	perf perf
	mem  memSample // issue 9: heap figures for state().perf (robust.go)
}

// perf holds the Go time spent per frame, averaged over the last
// perfWindow frames so that start-up (the first frame compiles shaders and
// fills the glyph atlas) does not linger in the figures.
type perf struct {
	update, draw, interval recent
	lastDraw               time.Time
	mainMS                 float64 // performance.now() when Go's main began
	readyMS                float64 // … when newApp had prepared the lesson and the DOM
	firstFrameMS           float64 // … when the first frame was drawn
	firstUpdateMS          float64 // … when the first Update began (Ebiten is up)
	firstDrawMS            float64 // Go time of the first Draw (shader, glyphs)
}

const perfWindow = 120

// recent is a running mean of the last perfWindow samples, in ms.
type recent struct {
	v   [perfWindow]float64
	n   int
	sum float64
}

func (w *recent) add(ms float64) {
	i := w.n % perfWindow
	w.sum += ms - w.v[i]
	w.v[i] = ms
	w.n++
}

func (w *recent) mean() float64 {
	k := min(w.n, perfWindow)
	if k == 0 {
		return 0
	}
	return w.sum / float64(k)
}

func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func now() float64 { return js.Global().Get("performance").Call("now").Float() }

func newApp() (*app, error) {
	mainMS := now()
	// Prepare the lesson the address names, once. A lesson's share page
	// (ID.html) names its lesson in data-lesson, for an address without one.
	hash := window.Get("location").Get("hash").String()
	if l := document.Get("body").Get("dataset").Get("lesson"); l.Type() == js.TypeString && !strings.Contains(hash, "scenario=") {
		hash = "scenario=" + l.String() + "&" + trimHash(hash)
	}
	p, _, err := scenarios.NewPlayerAt(hash)
	if err != nil {
		return nil, err
	}
	a := &app{player: p, shownRev: -1, dpr: devicePixelRatio(), stageDirty: true, pendingKnob: map[string]string{}}
	a.perf.mainMS = mainMS
	a.guardContext() // issue 9: a lost WebGL context keeps the playhead (robust.go)
	a.ui = newUI(a)
	// Embed options, system theme and motion, the parent's messages.
	a.startEmbedding()
	a.publishAPI()
	a.perf.readyMS = now()
	listen(window, "resize", false, func(js.Value) {
		a.mu.Lock()
		a.stageDirty = true
		a.mu.Unlock()
	})
	listen(window, "hashchange", false, func(js.Value) {
		h := window.Get("location").Get("hash").String()
		a.mu.Lock()
		defer a.mu.Unlock()
		if trimHash(h) == a.frag {
			return
		}
		a.player.ApplyFragment(h)
	})
	return a, nil
}

func trimHash(h string) string {
	if len(h) > 0 && h[0] == '#' {
		return h[1:]
	}
	return h
}

// Update advances the lesson by one fixed tick and brings the DOM and the
// display list up to date. It never reads the wall clock for the
// simulation: each tick is 1/TPS seconds of playback.
func (a *app) Update() error {
	start := time.Now()
	if a.perf.firstUpdateMS == 0 {
		a.perf.firstUpdateMS = now()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.drawn && !a.ready {
		a.ready = true
		a.ui.hideLoader()
		quietCanvas()
		js.Global().Get("gpuscope").Set("ready", true)
		a.ui.dispatch("ready")
		a.post(a.event("ready"))
		a.em.postedStep = stepKey(a.player.State())
	}
	for _, k := range a.player.Scenario().Knobs {
		if v, ok := a.pendingKnob[k.Name]; ok {
			a.player.Set(k.Name, v)
		}
	}
	clear(a.pendingKnob)
	events := a.player.Advance(1 / float64(ebiten.TPS()))
	for _, ev := range events {
		a.ui.dispatch(ev)
	}
	changed := false
	a.tick++
	// The picture comes first: the page's text is written from the tick
	// after the first frame (and before ready is reported to scripts).
	if rev := a.player.Rev(); rev != a.shownRev && a.drawn {
		a.shownRev = rev
		a.ui.refresh()
		a.syncFragment()
		a.stageDirty = true
		a.shownTime = a.player.Time()
		changed = true
	} else if t := a.player.Time(); t != a.shownTime && (a.tick%3 == 0 || !a.player.Playing()) {
		// The clock at 20 Hz while playing is plenty to read.
		a.ui.refreshClock()
		a.shownTime = t
	}
	a.embedTick(changed, events)
	if a.stageDirty {
		a.stage = a.ui.stageRect()
		a.stageDirty = false
	}
	a.dpr = a.deviceScale() // issue 9: Ebiten follows a change of ratio (robust.go)
	// Rebuild the picture only when something in it can have changed; an
	// idle lesson on a projector then costs next to nothing.
	w, h := a.ui.viewport()
	key := pictureKey{a.player.Rev(), a.player.Time(), a.stage, a.dpr, w, h, a.dark, a.present}
	if key != a.shown {
		a.shown = key
		a.build(w, h)
		a.dirty = true
	}
	a.perf.update.add(since(start))
	return nil
}

// pictureKey is everything the picture depends on.
type pictureKey struct {
	rev     int
	t       sim.Time
	stage   [4]float32
	dpr     float64
	w, h    int
	dark    bool
	present bool
}

// syncFragment writes the state to the address bar so it is always a link
// that reopens this moment.
func (a *app) syncFragment() {
	f := a.player.Fragment()
	if f == a.frag {
		return
	}
	a.frag = f
	js.Global().Get("history").Call("replaceState", nil, "", "#"+f)
}

// build makes the display list for the current playhead inside #stage.
func (a *app) build(w, h int) {
	dpr := float32(a.dpr)
	r := a.stage
	th := render.Dark
	if !a.dark {
		th = render.Light
	}
	stage := render.Rect{X: r[0] * dpr, Y: r[1] * dpr, W: r[2] * dpr, H: r[3] * dpr}
	// Lines and labels: larger, in high contrast, in presentation mode.
	scale := dpr
	if a.present {
		th = render.Projector
		scale *= presentScale
	}
	switch run := a.player.Run().(type) {
	case *collective.Result:
		var chart []render.TimeVsN
		if cl, ok := a.player.Lesson().Collective(); ok && slices.Contains(a.player.StepRun().Step.Show, "time-vs-n") {
			for _, p := range cl.Sweep() {
				chart = append(chart, render.TimeVsN{N: p.Ranks, Ring: p.RingTimeS, Star: p.StarTimeS})
			}
		}
		link, _ := hw.LinkByID(run.Config.Link.ID)
		inter := ""
		if run.Config.Nodes > 1 {
			inter = run.Config.Inter.Name
		}
		a.list = render.AppendCollective(a.list, render.CollectiveView{
			Nodes:     run.Config.Nodes,
			InterLink: inter,
			Width:     float32(w) * dpr, Height: float32(h) * dpr,
			Stage:    stage,
			Scale:    scale,
			Theme:    th,
			Snapshot: run.Snapshot(a.player.Time()),
			Total:    run.Time,
			Link:     link.Name,
			TimeVsN:  chart,
		})
	case *scenarios.TrainingRun:
		a.list = render.AppendNumfmt(a.list, numfmtView(a.player, run, th, float32(w)*dpr, float32(h)*dpr, stage, scale))
	case *scenarios.RooflineRun:
		v := render.RooflineView{Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th, Intensity: run.Intensity}
		if slices.Contains(a.player.StepRun().Step.Show, "sweep") && a.player.Time() > 0 {
			v.Intensity = scenarios.SweepIntensity(a.player.Time())
		}
		for _, id := range scenarios.RooflineGPUs {
			if roof, ok := run.Roofs[id]; ok {
				v.Roofs = append(v.Roofs, render.Roof{Name: roof.GPU.Name, Peak: roof.Peak, BW: roof.BW, Current: id == run.GPU})
			}
		}
		a.list = render.AppendRoofline(a.list, v)
	case *scenarios.AttentionRun:
		v := render.AttentionView{Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th, Seq: run.Standard.Config.Seq}
		if slices.Contains(a.player.StepRun().Step.Show, "sweep") && a.player.Time() > 0 {
			v.Seq = scenarios.SweepSeq(a.player.Time())
		}
		for _, p := range run.Sweep {
			v.Points = append(v.Points, render.AttentionPoint{Seq: p.Seq, Standard: p.StandardHBMBytes, Flash: p.FlashHBMBytes})
		}
		a.list = render.AppendAttention(a.list, v)
	case *scenarios.FusedRun:
		v := render.FusedView{Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th, Time: a.player.Time().Seconds()}
		if sr := a.player.StepRun(); sr.From == sr.To {
			v.Time = -1 // a still step shows both runs whole
		}
		for _, k := range run.Unfused.Kernels {
			v.Unfused = append(v.Unfused, render.KernelBlock{Ops: k.Ops, Bytes: k.HBMBytes, TimeS: k.TimeS})
		}
		for _, k := range run.Fused.Kernels {
			v.Fused = append(v.Fused, render.KernelBlock{Ops: k.Ops, Bytes: k.HBMBytes, TimeS: k.TimeS})
		}
		a.list = render.AppendFused(a.list, v)
	case *scenarios.LaunchRun:
		l := run.Launch
		a.list = render.AppendLaunch(a.list, render.LaunchView{
			Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th,
			GPU: l.Config.GPU.Name, SMs: l.Config.GPU.SMs, MaxWarps: l.Config.GPU.MaxWarpsPerSM,
			Blocks: l.Config.Blocks, BlocksPerSM: l.BlocksPerSM, WarpsPerBlock: l.WarpsPerBlock,
			Wave: run.WaveAt(a.player.Time()), Waves: l.Waves,
			Taken: run.Divergence.Taken, CostA: run.Divergence.CostA, CostB: run.Divergence.CostB,
		})
	case *scenarios.MemwallRun:
		names := map[string]string{"naive": "naive", "smem16": "16×16", "smem32": "32×32", "tensor": "tensor"}
		tiles := map[string]int{"naive": 0, "smem16": 16, "smem32": 32, "tensor": 128}
		v := render.MemwallView{Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th, Steps: scenarios.MemwallKSteps}
		for _, k := range scenarios.MemwallKernels {
			m := run.Results[k].Metrics()
			v.Bars = append(v.Bars, render.MemwallBar{Name: names[k], Bytes: m.HBMBytes, TFLOPS: m.TFLOPS, Current: k == run.Kernel, Tile: tiles[k]})
		}
		v.PeakTFLOPS = run.Current().Peak / 1e12
		ms := float64(a.player.Time()) / float64(sim.Millisecond)
		v.Step = min(int(ms), scenarios.MemwallKSteps)
		v.Progress = ms - math.Floor(ms)
		a.list = render.AppendMemwall(a.list, v)
	case *scenarios.CPUGPURun:
		cpu, gpu := run.Done(a.player.Time())
		a.list = render.AppendCPUGPU(a.list, render.CPUGPUView{
			Width: float32(w) * dpr, Height: float32(h) * dpr, Stage: stage, Scale: scale, Theme: th,
			CPUName: run.CPU.Name, GPUName: run.GPU.Name, CPUCores: run.CPU.Cores, GPUSMs: run.GPU.SMs, GPUCores: run.GPU.CUDACores,
			CPUDone: cpu, GPUDone: gpu, Highlight: a.player.StepRun().Step.ID == "independent",
		})
	case *scenarios.PlanRun, *scenarios.FabricRun, *scenarios.FaultRun:
		f := planFrame{w: float32(w) * dpr, h: float32(h) * dpr, stage: stage, scale: scale, th: th, t: a.player.Time().Seconds(), frac: 1}
		if q, ok := a.player.Question(); ok && !q.Answered {
			f.conceal = true
		}
		if sr := a.player.StepRun(); sr.To > sr.From && a.player.Time() < sr.To {
			f.frac = float64(a.player.Time()-sr.From) / float64(sr.To-sr.From)
		} else {
			f.t = -1 // a still step, or the end of the window: everything done
		}
		switch run := run.(type) {
		case *scenarios.PlanRun:
			a.buildPlan(run, f)
		case *scenarios.FabricRun:
			a.buildFabric(run, f)
		case *scenarios.FaultRun:
			a.buildFaults(run, f)
		}
	default:
		// A lesson whose picture is not drawn yet: an empty stage.
		a.list = render.List{Width: float32(w) * dpr, Height: float32(h) * dpr, Background: th.Background, Items: a.list.Items[:0]}
	}
}

// Draw paints what Update built, and nothing else.
func (a *app) Draw(screen *ebiten.Image) {
	// Issue 7: a picture export asked for (share.go) repaints, then reads.
	a.mu.Lock()
	snap := a.snap
	a.snap = nil
	a.mu.Unlock()
	if !a.dirty && snap == nil {
		return // the screen is not cleared between frames: it still shows the picture
	}
	a.dirty = false
	start := time.Now()
	paint.Draw(screen, a.list)
	if snap != nil {
		snap(screen)
	}
	if a.drawn {
		a.perf.draw.add(since(start))
		a.perf.interval.add(float64(start.Sub(a.perf.lastDraw).Microseconds()) / 1000)
	}
	a.perf.lastDraw = start
	if !a.drawn {
		a.perf.firstFrameMS = now()
		a.perf.firstDrawMS = since(start)
	}
	a.drawn = true
}

// Layout makes the canvas as many pixels as the screen has: the picture
// stays sharp at devicePixelRatio 2 and 3.
func (a *app) Layout(outsideWidth, outsideHeight int) (int, int) {
	return int(float64(outsideWidth) * a.dpr), int(float64(outsideHeight) * a.dpr)
}

func devicePixelRatio() float64 {
	if r := js.Global().Get("devicePixelRatio"); r.Type() == js.TypeNumber && r.Float() > 0 {
		return r.Float()
	}
	return 1
}

// stateJSON is what window.gpuscope.state() returns.
func (a *app) stateJSON() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	type perfOut struct {
		UpdateMS     float64 `json:"update_ms"`
		DrawMS       float64 `json:"draw_ms"`
		FPS          float64 `json:"fps"`
		MainMS       float64 `json:"main_ms"`
		InitMS       float64 `json:"init_ms"`
		FirstFrameMS float64 `json:"first_frame_ms"`
		FirstUpdate  float64 `json:"first_update_ms"`
		FirstDraw    float64 `json:"first_draw_ms"`
		HeapBytes    float64 `json:"heap_bytes"`    // issue 9: Go's HeapAlloc
		JSHeapBytes  float64 `json:"js_heap_bytes"` // issue 9: performance.memory.usedJSHeapSize, 0 if none
	}
	out := struct {
		scenarios.PlayerState
		Ready bool    `json:"ready"`
		Perf  perfOut `json:"perf"`
	}{a.player.Report(), a.ready, perfOut{a.perf.update.mean(), a.perf.draw.mean(), 0, a.perf.mainMS, a.perf.readyMS, a.perf.firstFrameMS, a.perf.firstUpdateMS, a.perf.firstDrawMS, 0, 0}}
	out.Perf.HeapBytes, out.Perf.JSHeapBytes = a.mem.read() // issue 9 (robust.go)
	if iv := a.perf.interval.mean(); iv > 0 {
		out.Perf.FPS = 1000 / iv
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// numfmtView is the number-formats picture: the step's value in every
// format, and the toy training run when the step shows it.
func numfmtView(p *scenarios.Player, run *scenarios.TrainingRun, th render.Theme, w, h float32, stage render.Rect, dpr float32) render.NumfmtView {
	cfg := p.StepRun().Config
	x := cfg.Float("value")
	v := render.NumfmtView{Width: w, Height: h, Stage: stage, Scale: dpr, Theme: th}
	for _, f := range numfmt.Formats {
		v.Rows = append(v.Rows, render.FormatRow{
			Name: f.Name, ExpBits: f.ExpBits, Bits: f.BitString(f.Encode(x)),
			Stored: scenarios.NumText(f.Round(x)), Current: f.ID == cfg["format"],
		})
	}
	if slices.Contains(p.StepRun().Step.Show, "training") {
		names := map[string]string{"fp16": "FP16", "bf16": "BF16", "fp16-scaled": "FP16 + loss scaling"}
		for i, tv := range run.Variants {
			c := render.LossCurve{Name: names[tv.ID], Colour: i}
			for _, s := range tv.Steps {
				c.Loss = append(c.Loss, s.Loss)
			}
			v.Curves = append(v.Curves, c)
		}
		v.Steps = len(run.Variants[0].Steps)
		v.Upto = run.StepAt(p.Time())
		v.Spike = scenarios.TrainingSpike
	}
	return v
}
