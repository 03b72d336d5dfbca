//go:build js && wasm

package main

import (
	"slices"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/tinyjson"
	"github.com/gpuscope/gpuscope/page"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/render/paint"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scene"
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
	lastStep  int

	list render.List   // built by Update, painted by Draw
	pic  scene.Picture // builds list, keeping what a run's pictures share between frames
	dark bool
	dpr  float64 // window.devicePixelRatio, read once per tick
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

	// The zoom's move between levels (issue 21): the level last drawn,
	// and when and which way the last change went.
	zoomLevel string
	zoomSince time.Time
	zoomIn    bool
}

// zoomMove is how long the move between zoom levels takes.
const zoomMove = 250 * time.Millisecond

// perf holds the Go time spent per frame, averaged over the last
// page.WindowFrames frames since playing last started, so that start-up
// (the first frame compiles shaders and fills the glyph atlas) and the
// idle ticks before playing do not linger in the figures.
type perf struct {
	update, draw, interval page.Window
	plays                  int // the player's Plays when the windows were last emptied
	lastDraw               time.Time
	mainMS                 float64 // performance.now() when Go's main began
	readyMS                float64 // … when newApp had prepared the lesson and the DOM
	firstFrameMS           float64 // … when the first frame was drawn
	firstUpdateMS          float64 // … when the first Update began (Ebiten is up)
	firstDrawMS            float64 // Go time of the first Draw (shader, glyphs)
}

// restartOnPlay empties the windows when playing has started since the
// last tick.
func (p *perf) restartOnPlay(plays int) {
	if plays != p.plays {
		p.plays = plays
		p.update.Reset()
		p.draw.Reset()
		p.interval.Reset()
	}
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

// The page draws a frame only when something changed (issues 38 and 43:
// an idle lesson costs a phone's battery, a projector's laptop and the
// test suite's software GPU next to nothing). Ebiten runs in its minimum
// frame mode (main.go): Update and Draw run on a frame only when one is
// scheduled, and on Ebiten's own input and resize events. wake schedules
// one; everything that changes the lesson from outside Update calls it —
// every DOM event the page listens to (listen, dom.go: the panel's
// controls, keys, a parent page's messages, the fragment), and
// window.gpuscope.command. Update schedules the next frame itself while
// something moves or waits (playback, the zoom's move, the page not yet
// ready), and Draw while a wake has not yet reached Update: on the first
// frame after an idle spell Ebiten's clock resynchronises and runs no
// Update (internal/clock: calcCountFromTPS).
var woken bool

// wake asks for a frame: Update and Draw run on the next animation frame.
func wake() {
	woken = true
	ebiten.ScheduleFrame()
}

// Update advances the lesson by one fixed tick and brings the DOM and the
// display list up to date. It never reads the wall clock for the
// simulation: each tick is 1/TPS seconds of playback.
func (a *app) Update() error {
	start := time.Now()
	woken = false
	if a.perf.firstUpdateMS == 0 {
		a.perf.firstUpdateMS = now()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.perf.restartOnPlay(a.player.Plays())
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
		if st := a.player.State(); st.Step != a.lastStep || st.Scenario != a.lastScn {
			// A new step starts at the top of the panel, its title in view.
			a.lastStep, a.lastScn = st.Step, st.Scenario
			if p := document.Call("getElementById", "panel"); p.Truthy() {
				p.Set("scrollTop", 0)
			}
		}
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
		if a.present {
			fitCaptions() // the captions' size sets the picture's
		}
		a.stage = a.ui.stageRect()
		a.stageDirty = false
	}
	a.dpr = a.deviceScale() // issue 9: Ebiten follows a change of ratio (robust.go)
	// Rebuild the picture only when something in it can have changed; an
	// idle lesson on a projector then costs next to nothing.
	w, h := a.ui.viewport()
	moving := a.zoomMoving()
	key := pictureKey{a.player.Rev(), a.player.Time(), a.stage, a.dpr, w, h, a.dark, a.present, moving}
	if key != a.shown {
		a.shown = key
		a.build(w, h)
		a.dirty = true
	}
	if !a.ready || a.player.Playing() || moving < 1 {
		ebiten.ScheduleFrame()
	}
	a.perf.update.Add(since(start))
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
	moving  float32 // the zoom's move, while it runs (1 otherwise)
}

// zoomMoving notes a change of zoom level and returns the move's
// progress (0–1; 1 when none runs, or for a reader who asked for reduced
// motion).
func (a *app) zoomMoving() float32 {
	lv := a.player.State().Zoom.At()
	if lv != a.zoomLevel {
		levels := scenarios.ZoomLevels
		a.zoomIn = slices.Index(levels, lv) > slices.Index(levels, a.zoomLevel)
		if a.zoomLevel != "" && !a.player.ReducedMotion() {
			a.zoomSince = time.Now()
		}
		a.zoomLevel = lv
	}
	if a.zoomSince.IsZero() {
		return 1
	}
	p := float32(time.Since(a.zoomSince)) / float32(zoomMove)
	if p >= 1 {
		a.zoomSince = time.Time{}
		return 1
	}
	return p
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
	// Lines and labels: larger, in high contrast, in presentation mode.
	scale := dpr
	if a.present {
		th = render.Projector
		scale *= presentScale
	}
	a.list = a.pic.Build(a.list, scene.At(a.player), scene.Frame{
		Width: float32(w) * dpr, Height: float32(h) * dpr,
		Stage: render.Rect{X: r[0] * dpr, Y: r[1] * dpr, W: r[2] * dpr, H: r[3] * dpr},
		Scale: scale, Theme: th, Lang: a.player.State().Lang,
	})
	if a.shown.moving < 1 {
		render.ZoomTransition(&a.list, render.Rect{X: r[0] * dpr, Y: r[1] * dpr, W: r[2] * dpr, H: r[3] * dpr}, a.zoomIn, a.shown.moving)
	}
}

// Draw paints what Update built, and nothing else.
func (a *app) Draw(screen *ebiten.Image) {
	// Issue 7: a picture export asked for (share.go) repaints, then reads.
	a.mu.Lock()
	snap := a.snap
	a.snap = nil
	a.mu.Unlock()
	if woken {
		ebiten.ScheduleFrame() // Update has not yet run since the wake
	}
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
		a.perf.draw.Add(since(start))
		a.perf.interval.Add(float64(start.Sub(a.perf.lastDraw).Microseconds()) / 1000)
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
	out := page.State{PlayerState: a.player.Report(), Ready: a.ready, Perf: page.Perf{
		UpdateMS: a.perf.update.Mean(), DrawMS: a.perf.draw.Mean(), MainMS: a.perf.mainMS, InitMS: a.perf.readyMS,
		FirstFrameMS: a.perf.firstFrameMS, FirstUpdate: a.perf.firstUpdateMS, FirstDraw: a.perf.firstDrawMS,
		UpdateFrames: a.perf.update.Frames(), DrawFrames: a.perf.draw.Frames(), LayerItems: paint.LayerItems(),
	}}
	out.Perf.HeapBytes, out.Perf.JSHeapBytes = a.mem.read() // issue 9 (robust.go)
	if iv := a.perf.interval.Mean(); iv > 0 {
		out.Perf.FPS = 1000 / iv
	}
	b, err := tinyjson.Marshal(out)
	if err != nil {
		return "{}"
	}
	return string(b)
}
