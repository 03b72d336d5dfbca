package browsertest

import (
	"fmt"
	"testing"
)

// The strategy lessons drawn with time lines, memory bars and cards,
// every step, for a person to look at (out/screens/pics-*): in Chinese at
// 1280×800, on a 390×844 phone and in presentation mode, each at the end
// of its step, the question answered where one is asked (its picture
// before the answer is TestStrategyLessons').
func TestStrategyPicturesScreens(t *testing.T) {
	sideBySide(t)
	for _, v := range []struct {
		name, frag string
		w, h       int64
	}{{"zh", "&lang=zh", 1280, 800}, {"phone", "&lang=en", 390, 844}, {"present", "&lang=en&present=1", 1280, 800}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel() // the three variants side by side, each its own page
			// One page a variant, the lessons set in turn (as a parent page's
			// "set" does): a page load each would be most of the test's time.
			ids := []string{"memory-budget", "data-parallel", "pipeline-parallel", "zero-stages", "activation-checkpointing",
				"gradient-accumulation", "overlap", "3d-parallel", "mixture-of-experts", "expert-parallel", "long-context"}
			ctx := openSized(t, "index.html#scenario="+ids[0]+v.frag, v.w, v.h)
			waitReady(ctx)
			for _, id := range ids {
				if r := command(ctx, fmt.Sprintf(`{type: "set", scenario: %q}`, id)); !r.OK {
					t.Fatalf("%s %s: set refused: %v", v.name, id, r.Error)
				}
				if got := state(ctx).Scenario; got != id {
					t.Fatalf("%s: state shows %q after setting %s", v.name, got, id)
				}
				var st planState
				evalJSON(ctx, "window.gpuscope.state()", &st)
				for n := 1; n <= st.Steps; n++ {
					commands(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n), `{type: "goto", time_s: 1000}`) // one frame drawn, not two
					settle(ctx)
					evalJSON(ctx, "window.gpuscope.state()", &st)
					if q := st.Question; q != nil && !q.Answered {
						command(ctx, `{type: "answer", choice: 0}`)
						settle(ctx)
					}
					img := decodePNG(t, screenshot(ctx, fmt.Sprintf("pics-%s-step%d-%s", id, n, v.name)))
					if px := drawn(img, elementRect(ctx, "#stage").image()); px < 1000 {
						t.Errorf("%s %s step %d: %d pixels drawn", v.name, id, n, px)
					}
				}
			}
		})
	}
}
