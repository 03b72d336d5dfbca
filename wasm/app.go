//go:build js && wasm

package main

import (
	"encoding/json"
	"sync"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/render/paint"
	"github.com/gpuscope/gpuscope/scenarios"
)

// app is the running page: the player, the DOM it drives and the picture.
type app struct {
	mu     sync.Mutex
	player *scenarios.Player
	ui     *ui

	shownRev int    // the player revision the DOM shows
	frag     string // the fragment we last wrote to the address bar
	lastLang string
	lastScn  string

	list  render.List // built by Update, painted by Draw
	dark  bool
	dpr   float64 // window.devicePixelRatio, read once per tick
	drawn bool    // Draw has run at least once
	ready bool

	perf perf
}

// perf holds running averages of the Go time spent per frame.
type perf struct {
	updateMS, drawMS, fps float64
	lastDraw              time.Time
	firstFrameMS          float64 // performance.now() when the first frame was drawn
}

func ema(avg, x float64) float64 {
	if avg == 0 {
		return x
	}
	return avg + 0.05*(x-avg)
}

func newApp() (*app, error) {
	p, err := scenarios.NewPlayer()
	if err != nil {
		return nil, err
	}
	a := &app{player: p, shownRev: -1, dpr: devicePixelRatio()}
	a.dark = !js.Global().Call("matchMedia", "(prefers-color-scheme: light)").Get("matches").Bool()
	if h := window.Get("location").Get("hash").String(); h != "" {
		p.ApplyFragment(h)
	}
	a.ui = newUI(a)
	a.publishAPI()
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.drawn && !a.ready {
		a.ready = true
		a.ui.hideLoader()
		js.Global().Get("gpuscope").Set("ready", true)
		a.ui.dispatch("ready")
	}
	for _, ev := range a.player.Advance(1 / float64(ebiten.TPS())) {
		a.ui.dispatch(ev)
	}
	if rev := a.player.Rev(); rev != a.shownRev {
		a.shownRev = rev
		a.ui.refresh()
		a.syncFragment()
	}
	a.dpr = devicePixelRatio()
	a.build()
	a.perf.updateMS = ema(a.perf.updateMS, float64(time.Since(start).Microseconds())/1000)
	return nil
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
func (a *app) build() {
	dpr := float32(a.dpr)
	r := a.ui.stageRect()
	w, h := a.ui.viewport()
	th := render.Dark
	if !a.dark {
		th = render.Light
	}
	run := a.player.Run()
	link, _ := hw.LinkByID(run.Config.Link.ID)
	a.list = render.Collective(render.CollectiveView{
		Width: float32(w) * dpr, Height: float32(h) * dpr,
		Stage:    render.Rect{X: r[0] * dpr, Y: r[1] * dpr, W: r[2] * dpr, H: r[3] * dpr},
		Scale:    dpr,
		Theme:    th,
		Snapshot: a.player.Snapshot(),
		Total:    run.Time,
		Link:     link.Name,
	})
}

// Draw paints what Update built, and nothing else.
func (a *app) Draw(screen *ebiten.Image) {
	start := time.Now()
	paint.Draw(screen, a.list)
	a.perf.drawMS = ema(a.perf.drawMS, float64(time.Since(start).Microseconds())/1000)
	if !a.perf.lastDraw.IsZero() {
		if dt := start.Sub(a.perf.lastDraw).Seconds(); dt > 0 {
			a.perf.fps = ema(a.perf.fps, 1/dt)
		}
	}
	a.perf.lastDraw = start
	if !a.drawn {
		a.perf.firstFrameMS = js.Global().Get("performance").Call("now").Float()
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
		FirstFrameMS float64 `json:"first_frame_ms"`
	}
	out := struct {
		scenarios.PlayerState
		Ready bool    `json:"ready"`
		Perf  perfOut `json:"perf"`
	}{a.player.Report(), a.ready, perfOut{a.perf.updateMS, a.perf.drawMS, a.perf.fps, a.perf.firstFrameMS}}
	b, err := json.Marshal(out)
	if err != nil {
		return "{}"
	}
	return string(b)
}
