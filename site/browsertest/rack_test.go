package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The rack-scale-nvlink lesson step by step, on a desktop (dark, English),
// a phone (light, Chinese) and in presentation mode: each step's two times
// are what the CLI commands it carries print, the question gates the
// numbers, the picture is drawn mid-race and at the end (screenshots
// out/screens/rack-*); then a bad domain is refused, naming the allowed
// values, and the last good state kept.
func TestRackScaleNVLink(t *testing.T) {
	for i, v := range []struct {
		name, lang, scheme, frag string
		w, h                     int64
	}{{"desktop-en", "en", "dark", "", 1280, 800}, {"phone-zh", "zh", "light", "", 390, 844}, {"present-en", "en", "light", "&present=1", 1280, 800}} {
		ctx := openSized(t, "favicon.svg", v.w, v.h)
		allowConsoleErrors(ctx, "favicon.ico")
		chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v.scheme}}))
		chromedpRun(t, ctx, chromedp.Navigate(baseURL+"index.html#scenario=rack-scale-nvlink&lang="+v.lang+v.frag))
		waitReady(ctx)
		var st infraState
		evalJSON(ctx, "window.gpuscope.state()", &st)
		asked := 0
		for n := 1; n <= st.Steps; n++ {
			command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
			settle(ctx)
			var ok bool
			if st, ok = answerIfAsked(t, ctx, infraStateOf(ctx), fmt.Sprintf("%s step %d", v.name, n), fmt.Sprintf("rack-%s-step%d-question", v.name, n)); ok {
				asked++
			}
			if st.Error != nil {
				t.Errorf("%s step %d: %s", v.name, n, *st.Error)
			}
			if slow, _ := st.Metrics["h100_nodes_time_s"].(float64); slow > 0 && st.StepID != "ceiling" {
				command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, slow/2))
				settle(ctx)
				screenshot(ctx, fmt.Sprintf("rack-%s-step%d-%s-middle", v.name, n, st.StepID))
			}
			command(ctx, `{type: "goto", time_s: 1e9}`)
			settle(ctx)
			img := decodePNG(t, screenshot(ctx, fmt.Sprintf("rack-%s-step%d-%s", v.name, n, st.StepID)))
			if px := drawn(img, elementRect(ctx, "#stage").image()); px < 2000 {
				t.Errorf("%s step %d: %d pixels drawn", v.name, n, px)
			}
			if i > 0 {
				continue
			}
			for _, c := range []struct{ cmd, key string }{{"command", "nvlink5_time_s"}, {"command_h100", "h100_nodes_time_s"}} {
				cmd, _ := st.Metrics[c.cmd].(string)
				var out map[string]any
				cli(t, &out, strings.Fields(strings.TrimPrefix(cmd, "gpuscope "))...)
				if out["time_s"] != st.Metrics[c.key] {
					t.Errorf("step %d: %s: CLI %v, page %s %v", n, cmd, out["time_s"], c.key, st.Metrics[c.key])
				}
			}
		}
		if asked != 1 {
			t.Errorf("%s: asked %d questions, want 1", v.name, asked)
		}
		if i > 0 {
			continue
		}
		good := st.Metrics["nvlink5_time_s"]
		command(ctx, `{type: "set", domain: 16}`)
		settle(ctx)
		st = infraState{}
		evalJSON(ctx, "window.gpuscope.state()", &st)
		if st.Error == nil || !strings.Contains(*st.Error, "domain") || !strings.Contains(*st.Error, "72") {
			t.Errorf("domain=16: error %v, want domain and its allowed values named", st.Error)
		}
		if st.Metrics["nvlink5_time_s"] != good {
			t.Errorf("after the refusal the numbers changed: %v, were %v", st.Metrics["nvlink5_time_s"], good)
		}
	}
}
