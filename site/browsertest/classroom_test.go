package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Presentation mode: the link opens it, a presenter's clicker (PageDown,
// PageUp) and the arrows step the lesson, the picture and its captions are
// large and in high contrast, and P leaves it.
func TestPresentationMode(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=1&present=1")
	waitReady(ctx)
	settle(ctx)
	var page struct {
		Present   bool    `json:"present"`
		Knobs     string  `json:"knobs"`
		Narration float64 `json:"narration"`
		Body      float64 `json:"body"`
		Bg        string  `json:"bg"`
		Pressed   string  `json:"pressed"`
	}
	probe := `(() => ({
	  present: document.documentElement.classList.contains("present"),
	  knobs: getComputedStyle(document.querySelector(".knobs-section")).display,
	  narration: parseFloat(getComputedStyle(document.getElementById("narration")).fontSize),
	  body: parseFloat(getComputedStyle(document.body).fontSize),
	  bg: getComputedStyle(document.body).backgroundColor,
	  pressed: document.getElementById("btn-present").getAttribute("aria-pressed"),
	}))()`
	evalJSON(ctx, probe, &page)
	if !page.Present || page.Knobs != "none" || page.Narration < 28 || page.Bg != "rgb(255, 255, 255)" || page.Pressed != "true" {
		t.Errorf("present=1: %+v; want the present class, knobs hidden, captions ≥ 28 px, a white page, the button pressed", page)
	}
	shot := decodePNG(t, screenshot(ctx, "present-ring-step1"))
	st := elementRect(ctx, "#stage")
	if c := pixelAt(shot, int(st.X+3), int(st.Y+3)); c.R < 250 || c.G < 250 || c.B < 250 {
		t.Errorf("stage corner %v in presentation mode: want the projector theme's white", c)
	}
	for _, k := range []struct {
		key  string
		want int
	}{{kb.PageDown, 2}, {kb.PageDown, 3}, {kb.PageUp, 2}, {kb.ArrowRight, 3}, {kb.ArrowLeft, 2}} {
		chromedpRun(t, ctx, chromedp.KeyEvent(k.key))
		settle(ctx)
		if s := state(ctx); s.Step != k.want {
			t.Fatalf("after %q: step %d, want %d", k.key, s.Step, k.want)
		}
	}
	screenshot(ctx, "present-ring-step2")
	chromedpRun(t, ctx, chromedp.KeyEvent("p"))
	settle(ctx)
	evalJSON(ctx, probe, &page)
	if page.Present || page.Knobs == "none" || strings.Contains(currentHash(ctx), "present=1") {
		t.Errorf("after P: %+v, address %q; want presentation mode off", page, currentHash(ctx))
	}
}

// A screen reader hears what the picture shows, per step: the live region
// names the step and its numbers (and is not rewritten every frame).
func TestLiveDescription(t *testing.T) {
	ctx := open(t, "index.html#scenario=roofline&step=1&lang=en")
	waitReady(ctx)
	settle(ctx)
	var d struct {
		Text string `json:"text"`
		Live string `json:"live"`
	}
	read := func() {
		evalJSON(ctx, `(() => { const e = document.getElementById("describe"); return {text: e.textContent, live: e.getAttribute("aria-live")}; })()`, &d)
	}
	read()
	if !strings.HasPrefix(d.Text, "Step 1 / ") || d.Live != "polite" {
		t.Errorf("#describe = %q (aria-live %q); want the step's account, polite", d.Text, d.Live)
	}
	first := d.Text
	command(ctx, `{type: "goto", step: 2}`)
	settle(ctx)
	read()
	if d.Text == first || !strings.HasPrefix(d.Text, "Step 2 / ") {
		t.Errorf("after goto 2: #describe = %q", d.Text)
	}
	// Count the region's rewrites while the lesson plays: per step, not
	// per frame.
	evalJSON(ctx, `(() => { window.__rewrites = 0; new MutationObserver(() => window.__rewrites++).observe(document.getElementById("describe"), {childList: true, characterData: true, subtree: true}); return true; })()`, new(bool))
	command(ctx, `{type: "play"}`)
	for range 10 {
		settle(ctx)
	}
	var rewrites int
	evalJSON(ctx, "window.__rewrites", &rewrites)
	if rewrites > 3 {
		t.Errorf("#describe rewritten %d times while playing one step; want per step, not per frame", rewrites)
	}
}
