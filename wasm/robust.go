//go:build js && wasm

package main

// Issue 9, "the browser's own failures": a lost WebGL context, a change of
// devicePixelRatio while the page runs, and the heap figures the soak test
// (make soak) watches.

import (
	"runtime"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// A lost WebGL context: Ebiten (v2.8, internal/ui/ui_js.go) answers
// webglcontextlost on its canvas by reloading the page, its only recovery
// on the web (internal/restorable restores images on Android only). The
// fragment brings the lesson, step and knobs back, but not the playhead:
// the lesson reopened paused at the start of the step. guardContext saves
// the playhead, play state, speed and the step's answer in sessionStorage
// just before that reload (a capturing listener on window runs before
// Ebiten's on the canvas) and puts them back when the page starts again.
// What it saves is state()'s JSON, the page API's own: new code costs
// main.wasm bytes.

const resumeKey = "gpuscope:resume"

// guardContext resumes a playhead saved before a context-loss reload, and
// saves it when the context is lost. Called once from newApp.
func (a *app) guardContext() {
	a.resume()
	listen(window, "webglcontextlost", true, func(js.Value) {
		s := a.stateJSON()
		storage(func(st js.Value) { st.Call("setItem", resumeKey, s) })
	})
}

func (a *app) resume() {
	defer func() { _ = recover() }() // a saved value of the wrong type: start afresh
	var saved js.Value
	storage(func(st js.Value) {
		if raw := st.Call("getItem", resumeKey); raw.Type() == js.TypeString {
			saved = js.Global().Get("JSON").Call("parse", raw)
		}
		st.Call("removeItem", resumeKey)
	})
	if saved.Type() != js.TypeObject || saved.Get("fragment").String() != a.player.Fragment() {
		return // nothing saved, or for another lesson or moment
	}
	if q := saved.Get("question"); q.Truthy() && q.Get("answered").Truthy() {
		a.player.Answer(q.Get("choice").Int())
		a.player.TakeAnswers() // posted before the reload: not again
	}
	a.player.Set("speed", js.Global().Call("String", saved.Get("speed")).String())
	a.player.SeekTime(sim.FromSeconds(saved.Get("time_s").Float()))
	if saved.Get("playing").Truthy() {
		a.player.Play()
	}
}

// storage runs f on window.sessionStorage, if the page may use it: in a
// sandboxed iframe even reading the property throws, and syscall/js turns
// a JavaScript exception into a Go panic.
func storage(f func(js.Value)) {
	defer func() { _ = recover() }()
	if s := window.Get("sessionStorage"); s.Truthy() {
		f(s)
	}
}

// deviceScale returns window.devicePixelRatio and keeps Ebiten in step with
// it. Ebiten (v2.8, ui.Monitor.DeviceScaleFactor) reads devicePixelRatio
// once and caches it for good ("TODO: If DeviceScaleFactor changes, call
// updateScreenSize"), so after a change (browser zoom, the window moved to
// another screen) its canvas kept the old number of pixels: Layout drew
// outside × the new ratio, Ebiten scaled that to the old backing store and
// the browser scaled it again — a blurred picture at 2× or 3×. When the
// ratio differs from Ebiten's, forget Ebiten's cached value and resize the
// canvas as Ebiten's resize handler would (updateScreenSize).
func (a *app) deviceScale() float64 {
	dpr := devicePixelRatio()
	m := ebiten.Monitor()
	if m == nil || m.DeviceScaleFactor() == dpr {
		return dpr
	}
	// ebiten.MonitorType is ui.Monitor, whose only field is the cached
	// float64 deviceScaleFactor. Touch it only while that still holds: an
	// Ebiten upgrade that changes the struct leaves the page as it was.
	cached := (*float64)(unsafe.Pointer(m))
	if unsafe.Sizeof(*m) != unsafe.Sizeof(float64(0)) || *cached != m.DeviceScaleFactor() {
		return dpr
	}
	*cached = 0 // the next DeviceScaleFactor() reads devicePixelRatio again
	if c := document.Call("querySelector", "body > canvas"); c.Truthy() {
		body := document.Get("body")
		c.Set("width", int(body.Get("clientWidth").Float()*dpr))
		c.Set("height", int(body.Get("clientHeight").Float()*dpr))
	}
	a.stageDirty = true
	return dpr
}

// memSample is the heap figures state().perf reports, read at most once a
// second: runtime.ReadMemStats stops the world. heap_bytes is HeapAlloc,
// garbage since the last collection included; when a test sets
// window.gpuscopeHeapGC (make soak does), a full collection runs first, so
// that heap_bytes is the live heap: at a few frames a second in
// SwiftShader a collection comes only every few minutes, and HeapAlloc's
// sawtooth would hide a leak or fake one.
type memSample struct {
	at           time.Time
	heap, jsHeap float64
}

func (m *memSample) read() (heap, jsHeap float64) {
	if time.Since(m.at) < time.Second {
		return m.heap, m.jsHeap
	}
	m.at = time.Now()
	if window.Get("gpuscopeHeapGC").Truthy() {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = float64(ms.HeapAlloc)
	// performance.memory is Chromium's only; elsewhere js_heap_bytes is 0.
	if pm := js.Global().Get("performance").Get("memory"); pm.Truthy() {
		if v := pm.Get("usedJSHeapSize"); v.Type() == js.TypeNumber {
			m.jsHeap = v.Float()
		}
	}
	return m.heap, m.jsHeap
}
