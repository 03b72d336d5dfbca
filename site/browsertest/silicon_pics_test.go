package browsertest

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// siliconLessons are the silicon layer's lessons, with the prefix their
// lesson tests give their screenshots.
var siliconLessons = []struct{ id, prefix string }{
	{"cpu-vs-gpu", "cpugpu"}, {"simt-launch", "simt"}, {"memory-wall", "memwall"}, {"roofline", "roofline"},
	{"fused-kernels", "fused"}, {"flash-attention", "flash-attention"}, {"number-formats", "numfmt"},
}

// stepEnds screenshots every step of the lesson open in ctx whose window
// plays at the window's end (where its picture has done its work; the
// lesson tests screenshot each step's start), as prefix-stepN-end.
func stepEnds(t *testing.T, ctx context.Context, prefix string) {
	t.Helper()
	st := state(ctx)
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		settle(ctx)
		s := state(ctx)
		if s.ToS <= s.FromS {
			continue
		}
		command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, s.ToS))
		settle(ctx)
		screenshot(ctx, fmt.Sprintf("%s-step%d-end", prefix, n))
	}
}

// Every silicon lesson's playing steps, at their end: the picture the
// step builds up to (a poster, an exported PNG, reduced motion).
func TestSiliconStepEnds(t *testing.T) {
	sideBySide(t)
	for _, l := range siliconLessons {
		t.Run(l.id, func(t *testing.T) {
			t.Parallel() // a page each, side by side
			ctx := open(t, "index.html#scenario="+l.id)
			waitReady(ctx)
			stepEnds(t, ctx, l.prefix)
		})
	}
}

// The silicon lessons in Chinese, on a phone and in presentation mode,
// every step at its end, for looking at (GPUSCOPE_SHEETS=1; the rules of
// the canvas are checked natively in package scene for all of them).
func TestSiliconSheets(t *testing.T) {
	sideBySide(t)
	if os.Getenv("GPUSCOPE_SHEETS") != "1" {
		t.Skip("set GPUSCOPE_SHEETS=1 to screenshot the silicon lessons in zh, on a phone and presenting")
	}
	for _, l := range siliconLessons {
		for _, v := range []struct {
			name, frag string
			w, h       int64
		}{{"zh", "&lang=zh", 1280, 800}, {"phone", "", 390, 844}, {"present", "&present=1", 1280, 800}} {
			t.Run(l.id+"/"+v.name, func(t *testing.T) {
				ctx := openSized(t, "index.html#scenario="+l.id+v.frag, v.w, v.h)
				waitReady(ctx)
				st := state(ctx)
				for n := 1; n <= st.Steps; n++ {
					command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
					settle(ctx)
					if s := state(ctx); s.ToS > s.FromS {
						command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, s.ToS))
						settle(ctx)
					}
					screenshot(ctx, fmt.Sprintf("%s-%s-step%d", l.prefix, v.name, n))
				}
			})
		}
	}
}
