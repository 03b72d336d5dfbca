package page

import "github.com/gpuscope/gpuscope/scenarios"

// State is what window.gpuscope.state() returns: the player's report,
// whether the page is ready, and the Go time it spends per frame.
type State struct {
	scenarios.PlayerState
	Ready bool `json:"ready"`
	Perf  Perf `json:"perf"`
}

// Perf is state().perf. UpdateMS and DrawMS are the means of the last
// WindowFrames ticks (Update) and repaints (Draw; a frame with nothing
// new to paint is not one) since playing last started, or since the page
// did before it has played — the page starts them afresh on each play,
// so that start-up ticks do not linger in them — and UpdateFrames and
// DrawFrames how many samples each mean holds (0: none yet, the mean is
// 0). FPS is repaints per second over the same repaints.
type Perf struct {
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
	UpdateFrames int     `json:"update_frames"` // issue 16: the ticks UpdateMS is the mean of
	DrawFrames   int     `json:"draw_frames"`   // issue 16: the repaints DrawMS (and FPS) are over
	LayerItems   int     `json:"layer_items"`   // issue 16: display items the last repaint drew from the painter's layer (render/paint)
}

// WindowFrames is how many samples a Window's mean holds at most: two
// seconds of ticks.
const WindowFrames = 120

// Window is a running mean of the last WindowFrames samples, in ms.
type Window struct {
	v   [WindowFrames]float64
	n   int // samples added since the last Reset
	sum float64
}

// Add adds a sample.
func (w *Window) Add(ms float64) {
	i := w.n % WindowFrames
	w.sum += ms - w.v[i]
	w.v[i] = ms
	w.n++
}

// Frames is how many samples the mean holds.
func (w *Window) Frames() int { return min(w.n, WindowFrames) }

// Mean is the mean of the samples held, 0 for none.
func (w *Window) Mean() float64 {
	if k := w.Frames(); k > 0 {
		return w.sum / float64(k)
	}
	return 0
}

// Reset empties the window.
func (w *Window) Reset() { *w = Window{} }
