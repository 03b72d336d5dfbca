package browsertest

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The long-context lesson in the browser: every step's picture drawn in
// both languages on a 1280 px screen and a phone, at its middle (what a
// poster shows) and its end (out/screens/long-context-*); and the sweep's
// question hides the 131,072-token bar until it is answered.
func TestLongContextLesson(t *testing.T) {
	for _, v := range []struct {
		scheme, lang string
		w, h         int64
	}{{"dark", "en", 1280, 800}, {"light", "zh", 390, 844}} {
		ctx := openSized(t, "index.html#scenario=long-context&lang="+v.lang, v.w, v.h)
		chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v.scheme}}))
		waitReady(ctx)
		settle(ctx)
		stage := elementRect(ctx, "#stage").image()
		before := drawn(decodePNG(t, screenshot(ctx, fmt.Sprintf("long-context-%s-%d-step1-pending", v.lang, v.w))), stage)
		chromedpRun(t, ctx, chromedp.Click(`#predict button[data-choice="2"]`, chromedp.ByQuery))
		command(ctx, `{type: "goto", time_s: 1000}`)
		settle(ctx)
		after := drawn(decodePNG(t, screenshot(ctx, fmt.Sprintf("long-context-%s-%d-step1-answered", v.lang, v.w))), stage)
		if after < before+300 {
			t.Errorf("%s %d px: %d stage pixels before answering, %d after: the 131,072-token bar should appear", v.lang, v.w, before, after)
		}
		var st struct {
			Steps int `json:"steps"`
		}
		var win struct {
			FromS float64 `json:"from_s"`
			ToS   float64 `json:"to_s"`
		}
		evalJSON(ctx, "window.gpuscope.state()", &st)
		for n := 1; n <= st.Steps; n++ {
			command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
			command(ctx, `{type: "pause"}`)
			for _, at := range []string{"middle", "end"} {
				if at == "end" {
					command(ctx, `{type: "goto", time_s: 1000}`)
				} else {
					evalJSON(ctx, "window.gpuscope.state()", &win)
					command(ctx, fmt.Sprintf(`{type: "goto", time_s: %v}`, (win.FromS+win.ToS)/2))
				}
				settle(ctx)
				img := decodePNG(t, screenshot(ctx, fmt.Sprintf("long-context-%s-%d-step%d-%s", v.lang, v.w, n, at)))
				if px := drawn(img, stage); px < 2000 {
					t.Errorf("%s %d px, step %d at the %s: %d pixels drawn", v.lang, v.w, n, at, px)
				}
			}
		}
	}
}
