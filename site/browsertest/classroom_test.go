package browsertest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
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
	if !page.Present || page.Knobs != "none" || page.Narration < 16 || page.Bg != "rgb(255, 255, 255)" || page.Pressed != "true" {
		t.Errorf("present=1: %+v; want the present class, knobs hidden, captions ≥ 16 px, a white page, the button pressed", page)
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

// Presentation mode at 1280×800 gives the picture at least 70% of the
// screen and never cuts the captions off (they shrink to fit their band,
// and stay at least 14 px), at every step of lessons with short and long
// narration, in both languages (PICTURES.md rule 8).
func TestPresentationPictureArea(t *testing.T) {
	sideBySide(t)
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			// One page a language, the lessons set in turn as a parent
			// page's "set" does (a page load each was a third of the test).
			lessons := []string{"ring-allreduce", "pipeline-parallel", "memory-wall", "strategy-planner"}
			ctx := openSized(t, "index.html#scenario="+lessons[0]+"&present=1&lang="+lang, 1280, 800)
			waitReady(ctx)
			for _, lesson := range lessons {
				if r := command(ctx, fmt.Sprintf(`{type: "set", scenario: %q}`, lesson)); !r.OK {
					t.Fatalf("%s: set refused: %+v", lesson, r)
				}
				st := state(ctx)
				if st.Scenario != lesson || !strings.Contains(st.Fragment, "present=1") {
					t.Fatalf("after setting %s: state shows %s, fragment %q (want presentation mode kept)", lesson, st.Scenario, st.Fragment)
				}
				for n := 1; n <= st.Steps; n++ {
					command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
					settle(ctx)
					var m struct {
						Stage, View, Caption float64
						Cut                  bool
					}
					evalJSON(ctx, `(() => { const s = document.getElementById("stage").getBoundingClientRect(), p = document.getElementById("panel"),
					    n = document.getElementById("narration"), nr = n.getBoundingClientRect(), pr = p.getBoundingClientRect();
					  return {Stage: s.width * s.height, View: innerWidth * innerHeight,
					    Caption: parseFloat(getComputedStyle(n).fontSize),
					    Cut: p.scrollHeight > p.clientHeight + 1 || n.scrollHeight > n.clientHeight + 1 || nr.bottom > pr.bottom + 1}; })()`, &m)
					if m.View == 0 || m.Stage/m.View < 0.70 {
						t.Errorf("%s step %d: the picture has %.0f%% of the screen, want at least 70%%", lesson, n, 100*m.Stage/m.View)
					}
					if m.Cut || m.Caption < 14 {
						t.Errorf("%s step %d: captions %.1f px, cut off %v; want them whole, at least 14 px", lesson, n, m.Caption, m.Cut)
					}
					if n == 1 || n == st.Steps {
						screenshot(ctx, fmt.Sprintf("present-%s-%s-step%d", lesson, lang, n))
					}
				}
			}
		})
	}
}

// At 1280×800 the step's buttons are in view at every step of every
// lesson, and Previous, Play and Next share a row with their labels whole
// (not cut to "Previ…") — in both languages, also once Play has become
// Pause (checked at each lesson's first step, where the narration is
// longest on the panel's first screen).
func TestButtonsInView(t *testing.T) {
	sideBySide(t)
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			ctx := openDraft(t, "index.html#scenario=ring-allreduce&lang="+lang, 1280, 800) // the buttons, not the picture
			waitReady(ctx)
			var ids []string
			evalJSON(ctx, "window.gpuscope.scenarios()", &ids)
			paused := 0 // lessons measured with Play turned to Pause
			for _, id := range ids {
				s, ok := scenarios.Get(id)
				if !ok {
					t.Fatalf("window.gpuscope.scenarios() lists %q, which the catalogue lacks", id)
				}
				command(ctx, fmt.Sprintf(`{type: "set", scenario: %q}`, id))
				var st struct{ Steps int }
				evalJSON(ctx, "window.gpuscope.state()", &st)
				steps := 1
				if lang == "en" {
					steps = st.Steps
				}
				for n := 1; n <= steps; n++ {
					command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
					for _, playing := range []bool{false, true} {
						if playing && n > 1 {
							continue
						}
						if playing {
							command(ctx, `{type: "play"}`)
						}
						// Playing may move on to the next step at once: the
						// label is not waited for then.
						label := i18n.T(lang, "ui.step", "n", strconv.Itoa(n), "total", strconv.Itoa(st.Steps))
						if playing {
							label = ""
						}
						b := buttonsShown(ctx, i18n.T(lang, s.Title), label)
						if b.Playing {
							paused++
						}
						if !b.Shown {
							t.Fatalf("%s %s step %d (playing %v): the panel did not show it within 10 s (title, step label, play button)", lang, id, n, playing)
						}
						if b.Bottom > b.View || b.Rows != 1 {
							t.Errorf("%s %s step %d (playing %v): buttons end at %.0f of %.0f px, on %.0f rows", lang, id, n, playing, b.Bottom, b.View, b.Rows)
						}
						if len(b.Clipped) > 0 {
							t.Errorf("%s %s step %d (playing %v): labels cut: %s", lang, id, n, playing, strings.Join(b.Clipped, "; "))
						}
						if playing {
							command(ctx, `{type: "pause"}`)
						}
					}
				}
			}
			if paused < len(ids)/2 {
				t.Errorf("%s: only %d of %d lessons were measured playing (Pause in place of Play)", lang, paused, len(ids))
			}
		})
	}
}

// buttonsShown waits for the panel to show a lesson's step — its title,
// step label and play button are written in one refresh, on the Ebiten
// tick after a command — and for the frame that lays it out, then
// measures Previous, Play and Next: their lowest edge, the viewport's
// height, the rows they take and those whose label is cut (clippedJS).
// The play button must show what the player is doing at that moment (a
// step's animation may have ended); Playing says which. An empty label
// is not waited for.
func buttonsShown(ctx context.Context, title, label string) (b struct {
	Shown, Playing     bool
	Bottom, View, Rows float64
	Clipped            []string
}) {
	evalJSON(ctx, fmt.Sprintf(`new Promise((done) => { const t0 = performance.now();
	  const measure = () => { const els = ["btn-prev", "btn-play", "btn-next"].map((id) => document.getElementById(id)), r = els.map((el) => el.getBoundingClientRect());
	    done({Shown: true, Playing: document.getElementById("btn-play").getAttribute("aria-pressed") === "true", Bottom: Math.max(...r.map((x) => x.bottom)), View: innerHeight, Rows: new Set(r.map((x) => Math.round(x.top))).size,
	      Clipped: els.map(`+clippedJS+`).filter(Boolean)}); };
	  const look = () => {
	    if (document.getElementById("title").textContent === %q && (%q === "" || document.getElementById("step-label").textContent === %q) &&
	        document.getElementById("btn-play").getAttribute("aria-pressed") === String(window.gpuscope.state().playing)) return requestAnimationFrame(measure);
	    if (performance.now() - t0 > 10000) return done({Shown: false});
	    requestAnimationFrame(look); };
	  look(); })`, title, label, label), &b)
	return b
}

// clippedJS is a function of a button that says how its label is cut,
// or "" when it is whole: an ellipsis or a hidden overflow (the label, or
// its ::before/::after icon, wider than the button's box), or the button
// itself cut by a box around it that clips (the panel's edge).
const clippedJS = `((el) => {
  if (el.offsetParent === null) return "";
  const name = JSON.stringify(el.textContent.trim());
  if (el.scrollWidth > el.clientWidth + 0.5 || el.scrollHeight > el.clientHeight + 0.5)
    return name + ": content " + el.scrollWidth + "×" + el.scrollHeight + " in " + el.clientWidth + "×" + el.clientHeight + " px";
  const b = el.getBoundingClientRect();
  if (b.left < -0.5 || b.right > innerWidth + 0.5) return name + ": beyond the window";
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (s.overflowX === "visible" && s.overflowY === "visible") continue;
    const c = p.getBoundingClientRect();
    const left = c.left + p.clientLeft, right = left + p.clientWidth;
    if (b.left < left - 0.5 || b.right > right + 0.5) return name + ": cut by " + (p.id || p.className) + " (" + Math.round(b.left) + "–" + Math.round(b.right) + " in " + Math.round(left) + "–" + Math.round(right) + ")";
  }
  return ""; })`

// Every button of the panel shows its whole label while a lesson plays —
// not "◀ Previ…" and "❚❚ Pa…", as at 1280×800 once Play had become Pause
// (issue 39's review) — at 1280×800 and on a phone (390×844), each also in
// presentation mode, in both languages.
func TestButtonLabelsWhole(t *testing.T) {
	sideBySide(t)
	for _, size := range [][2]int64{{1280, 800}, {1024, 768}, {390, 844}} { // 1,024×768: a projector
		for _, present := range []bool{false, true} {
			for _, lang := range []string{"en", "zh"} {
				name := fmt.Sprintf("%dx%d-%s", size[0], size[1], lang)
				frag := ""
				if present {
					name, frag = name+"-present", "&present=1"
				}
				t.Run(name, func(t *testing.T) {
					// 3d-parallel shows the zoom's buttons beside the others.
					ctx := openDraft(t, "index.html#scenario=ring-allreduce&step=1&lang="+lang+frag, size[0], size[1])
					waitReady(ctx)
					for _, id := range []string{"ring-allreduce", "3d-parallel"} {
						command(ctx, fmt.Sprintf(`{type: "set", scenario: %q}`, id))
						command(ctx, `{type: "goto", step: 1}`)
						command(ctx, `{type: "play"}`)
						var clipped []string
						evalJSON(ctx, `new Promise((done) => { const t0 = performance.now();
						  const look = () => {
						    if (document.getElementById("btn-play").getAttribute("aria-pressed") === "true" || performance.now() - t0 > 10000)
						      return requestAnimationFrame(() => done([...document.querySelectorAll("#panel button")].map(`+clippedJS+`).filter(Boolean)));
						    requestAnimationFrame(look); };
						  look(); })`, &clipped)
						if st := state(ctx); !st.Playing {
							t.Fatalf("%s: not playing after play", id)
						}
						if len(clipped) > 0 {
							t.Errorf("%s, playing: labels cut: %s", id, strings.Join(clipped, "; "))
						}
						screenshot(ctx, "button-labels-"+name+"-"+id)
						command(ctx, `{type: "pause"}`)
					}
				})
			}
		}
	}
}

// A screen reader hears what the picture shows, per step: the live region
// names the step and its numbers (and is not rewritten every frame).
func TestLiveDescription(t *testing.T) {
	ctx := openDraft(t, "index.html#scenario=roofline&step=1&lang=en", viewportW, viewportH) // the live region, not the picture
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
