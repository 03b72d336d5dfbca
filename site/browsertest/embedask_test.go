package browsertest

import (
	"fmt"
	"testing"
)

// askingLessons are lessons whose steps ask a question, the ones the
// reviewers of issue 39 found covered on a 640×400 embed.
var askingLessons = []string{"zero-stages", "nvlink-vs-ib", "rack-scale-nvlink", "mixture-of-experts", "fault-tolerance"}

// askLayout is the embed's layout on a question step: the viewport, the
// stage (where the wasm draws the picture), the question's box, and
// whether each choice (once answered, the verdict) can be seen and
// clicked where it is — its centre is itself, not something over it, and
// inside the viewport and every scrolling box around it.
type askLayout struct {
	Shown    bool
	W, H     float64
	Stage    rect
	Predict  rect
	Hidden   []string // choices or the verdict not wholly visible
	Answered bool
	Scrolls  bool // the question's box scrolls what it cannot show
	Overlap  bool // the question's box over the stage
}

const measureAsk = `new Promise((done) => { const t0 = performance.now();
  const visible = (el) => { const b = el.getBoundingClientRect();
    if (b.width < 1 || b.height < 1 || b.top < 0 || b.left < 0 || b.bottom > innerHeight + 0.5 || b.right > innerWidth + 0.5) return false;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowY === "visible" && s.overflowX === "visible") continue;
      const c = p.getBoundingClientRect();
      if (b.top < c.top - 0.5 || b.bottom > c.bottom + 0.5 || b.left < c.left - 0.5 || b.right > c.right + 0.5) return false;
    }
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return !!hit && (hit === el || el.contains(hit)); };
  const box = (el) => { const b = el.getBoundingClientRect(); return {X: b.x, Y: b.y, Width: b.width, Height: b.height}; };
  const measure = () => { const p = document.getElementById("predict"), s = document.getElementById("stage");
    const ps = p.getBoundingClientRect(), ss = s.getBoundingClientRect();
    const items = [...p.querySelectorAll(p.querySelector(".reveal") ? ".reveal" : "button[data-choice]")];
    done({Shown: true, W: innerWidth, H: innerHeight, Stage: box(s), Predict: box(p),
      Hidden: items.filter((el) => !visible(el)).map((el) => el.textContent.trim()),
      Answered: !!p.querySelector(".reveal"), Scrolls: /auto|scroll/.test(getComputedStyle(p).overflowY),
      Overlap: ps.left < ss.right - 0.5 && ps.right > ss.left + 0.5 && ps.top < ss.bottom - 0.5 && ps.bottom > ss.top + 0.5}); };
  const look = () => { const p = document.getElementById("predict");
    if (p && !p.hidden && p.querySelector("button[data-choice]") && (%v ? p.querySelector(".reveal") : !p.querySelector(".reveal")))
      return requestAnimationFrame(() => requestAnimationFrame(measure));
    if (performance.now() - t0 > 10000) return done({Shown: false});
    requestAnimationFrame(look); };
  look(); })`

// The 640×400 embed (a blog's iframe) and a phone keep the picture on a
// question step: the question sits beside or below the stage, never over
// it, the stage keeps at least 55% of the frame's width and a height of
// 45% of the frame's or 3/4 of its own width (a 4:3 picture), whichever is
// less, and every choice (once answered, the verdict) is in view (issue 39:
// on a 640×400 embed the question and its bar left the picture 113 px of
// 400; on a phone's 390×244 frame, 20). In that tiny frame a long question
// may scroll in its column: the column is in view, and scrolls.
func TestEmbedQuestionKeepsPicture(t *testing.T) {
	sideBySide(t)
	for _, size := range [][2]int64{{640, 400}, {390, 844}, {390, 244}} {
		tiny := size[1] < 300
		for _, lang := range []string{"en", "zh"} {
			t.Run(fmt.Sprintf("%dx%d-%s", size[0], size[1], lang), func(t *testing.T) {
				ctx := openDraft(t, "embed.html#scenario="+askingLessons[0]+"&load=auto&lang="+lang, size[0], size[1])
				waitReady(ctx)
				shot := false
				for _, id := range askingLessons {
					command(ctx, fmt.Sprintf(`{type: "set", scenario: %q}`, id))
					var steps int
					evalJSON(ctx, "window.gpuscope.state().steps", &steps)
					asked := 0
					for n := 1; n <= steps; n++ {
						command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
						command(ctx, `{type: "pause"}`)
						var has bool
						evalJSON(ctx, "!!window.gpuscope.state().question", &has)
						if !has {
							continue
						}
						asked++
						for _, answered := range []bool{false, true} {
							if answered {
								evalJSON(ctx, `(document.querySelector("#predict button[data-choice]").click(), true)`, &has)
							}
							var l askLayout
							evalJSON(ctx, fmt.Sprintf(measureAsk, answered), &l)
							what := fmt.Sprintf("%s step %d (answered %v)", id, n, answered)
							if !l.Shown {
								t.Fatalf("%s: the question did not show within 10 s", what)
							}
							if !shot {
								screenshot(ctx, fmt.Sprintf("embed-ask-%dx%d-%s", size[0], size[1], lang))
								shot = true
							}
							if l.Overlap {
								t.Errorf("%s: the question's box %+v lies over the picture %+v", what, l.Predict, l.Stage)
							}
							if l.Stage.Width < 0.55*l.W || l.Stage.Height < min(0.45*l.H, 0.75*l.Stage.Width) {
								t.Errorf("%s: the picture keeps %.0f×%.0f px of the %.0f×%.0f frame, want ≥ 55%% of its width and ≥ 45%% of its height or 3/4 of its width", what, l.Stage.Width, l.Stage.Height, l.W, l.H)
							}
							if tiny {
								if l.Predict.Y < 0 || l.Predict.Y+l.Predict.Height > l.H+0.5 || l.Predict.X+l.Predict.Width > l.W+0.5 || !l.Scrolls {
									t.Errorf("%s: the question's box %+v, scrolling %v; want it in the %.0f×%.0f frame, scrolling", what, l.Predict, l.Scrolls, l.W, l.H)
								}
							} else if len(l.Hidden) > 0 {
								t.Errorf("%s: not wholly in view: %q", what, l.Hidden)
							}
						}
					}
					if asked == 0 {
						t.Errorf("%s asks no question any more: choose another lesson for this test", id)
					}
				}
			})
		}
	}
}
