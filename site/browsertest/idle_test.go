package browsertest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// glCounter counts the page's WebGL draw calls, and the animation frames
// in which any was made, from before the page's own scripts run.
const glCounter = `(() => {
  window.__gl = {draws: 0, frames: 0};
  for (const C of [WebGL2RenderingContext, WebGLRenderingContext]) {
    for (const m of ["drawElements", "drawArrays", "clear"]) {
      const f = C.prototype[m];
      C.prototype[m] = function (...a) { window.__gl.draws++; return f.apply(this, a); };
    }
  }
  let last = 0;
  const tick = () => {
    if (window.__gl.draws !== last) { window.__gl.frames++; last = window.__gl.draws; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`

// An idle lesson draws nothing, a change is drawn once, and playing draws
// on (issues 38 and 43: Ebiten's minimum frame mode, wasm/app.go's wake).
// The canvas is not multisampled (site/loader.js): the picture is copied
// to it pixel for pixel.
func TestIdlePageDrawsNothing(t *testing.T) {
	ctx := openBlank(t)
	chromedpRun(t, ctx, chromedp.ActionFunc(func(c context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(glCounter).Do(c)
		return err
	}), chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce"))
	waitReady(ctx)
	settle(ctx)
	var aa any
	evalJSON(ctx, `document.querySelector("body > canvas").getContext("webgl2").getContextAttributes().antialias`, &aa)
	if aa != false {
		t.Errorf("the canvas's WebGL context has antialias %v, want false", aa)
	}
	type counts struct{ Draws, Frames int }
	read := func() counts {
		var c counts
		evalJSON(ctx, `window.__gl`, &c)
		return c
	}
	time.Sleep(300 * time.Millisecond) // the last frame of the start, if any
	idle := read()
	time.Sleep(time.Second)
	if c := read(); c != idle {
		t.Errorf("an idle lesson drew: %+v over a second, from %+v (want no frame)", c, idle)
	}
	// A change of step: drawn in one frame (Ebiten's default mode draws
	// it, then copies it again on three more).
	command(ctx, `{type: "goto", step: 2}`)
	waitJS(t, ctx, `window.__gl.frames > `+strconv.Itoa(idle.Frames), 10*time.Second, "a frame after the step changed")
	time.Sleep(time.Second)
	if c := read(); c.Frames-idle.Frames > 2 {
		t.Errorf("a change of step was drawn in %d frames (%d draw calls); want 1 (2 at most)", c.Frames-idle.Frames, c.Draws-idle.Draws)
	}
	// Playing draws frame after frame, by itself.
	before := read()
	command(ctx, `{type: "play"}`)
	time.Sleep(1500 * time.Millisecond)
	if c := read(); c.Frames-before.Frames < 3 && state(ctx).Playing {
		t.Errorf("playing for 1.5 s drew %d frames; want it to go on drawing", c.Frames-before.Frames)
	}
}
