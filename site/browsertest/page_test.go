package browsertest

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// pages are the two HTML entry points; both carry the whole DOM contract.
var pages = []string{"index.html", "embed.html"}

// autoLoad is the fragment that makes page start the simulation at once:
// embed.html otherwise waits for a click on its poster.
func autoLoad(page string) string {
	if page == "embed.html" {
		return "#load=auto"
	}
	return ""
}

// contractIDs are the element ids the wasm binds to (.plan/CONTRACTS.md).
var contractIDs = []string{
	"stage", "loader", "loader-bar", "loader-text", "title", "step-label",
	"narration", "btn-prev", "btn-play", "btn-next", "speed", "timeline",
	"time-label", "lang", "knobs", "metrics", "error",
}

// i18nKeys are the catalogue keys the static labels carry.
var i18nKeys = []string{
	"ui.prev", "ui.next", "ui.play", "ui.speed", "ui.timeline", "ui.lang",
	"ui.knobs", "ui.numbers", "ui.loading",
}

// structure is what the page reports about its static markup.
type structure struct {
	Missing   []string   `json:"missing"`
	Speed     [][]string `json:"speed"` // [value, selected]
	Timeline  []string   `json:"timeline"`
	Lang      [][]string `json:"lang"` // [value, text]
	ErrorRole string     `json:"errorRole"`
	I18n      []string   `json:"i18n"`
}

const structureJS = `(() => {
  const ids = %s;
  const opts = (id) => [...document.getElementById(id).options];
  const tl = document.getElementById("timeline");
  return {
    missing: ids.filter((id) => !document.getElementById(id)),
    speed: opts("speed").map((o) => [o.value, String(o.selected)]),
    timeline: [tl.type, tl.min, tl.max],
    lang: opts("lang").map((o) => [o.value, o.textContent.trim()]),
    errorRole: document.getElementById("error").getAttribute("role"),
    i18n: [...new Set([...document.querySelectorAll("[data-i18n]")].map((e) => e.dataset.i18n))],
  };
})()`

func TestPageStructure(t *testing.T) {
	sideBySide(t)
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			ctx := openDraft(t, p+autoLoad(p), viewportW, viewportH)
			var got structure
			evalJSON(ctx, fmt.Sprintf(structureJS, jsonString(contractIDs)), &got)
			if len(got.Missing) > 0 {
				t.Errorf("missing ids: %v", got.Missing)
			}
			wantSpeed := [][]string{{"0.25", "false"}, {"0.5", "false"}, {"1", "true"}, {"2", "false"}, {"4", "false"}}
			if !slices.EqualFunc(got.Speed, wantSpeed, slices.Equal) {
				t.Errorf("#speed options (value, selected) = %v, want %v", got.Speed, wantSpeed)
			}
			if want := []string{"range", "0", "1000"}; !slices.Equal(got.Timeline, want) {
				t.Errorf("#timeline (type, min, max) = %v, want %v", got.Timeline, want)
			}
			wantLang := [][]string{{"en", "English"}, {"zh", "简体中文"}}
			if !slices.EqualFunc(got.Lang, wantLang, slices.Equal) {
				t.Errorf("#lang options = %v, want %v", got.Lang, wantLang)
			}
			if got.ErrorRole != "alert" {
				t.Errorf(`#error role = %q, want "alert"`, got.ErrorRole)
			}
			// The loader rewrites #loader-text (and drops its key) as soon as
			// the download starts, so ui.loading may already be gone.
			for _, k := range i18nKeys {
				if k != "ui.loading" && !slices.Contains(got.I18n, k) {
					t.Errorf("no element carries data-i18n=%q (have %v)", k, got.I18n)
				}
			}
		})
	}
}

// TestLoaderProgress checks that the loader shows how much of main.wasm has
// arrived, then gets out of the way once the wasm draws its first frame.
func TestLoaderProgress(t *testing.T) {
	ctx := open(t, "index.html")
	waitReady(ctx)

	var texts []string
	evalJSON(ctx, "window.__loaderTexts", &texts)
	progress := regexp.MustCompile(`\d+%|\d+\.\d( of \d+\.\d)? MB`) // see TestLoaderCountsTransfer
	if !slices.ContainsFunc(texts, progress.MatchString) {
		t.Errorf("#loader-text never showed download progress (a percentage or MB); it showed %q", texts)
	}
	var st struct {
		Phase  string  `json:"phase"`
		Loaded float64 `json:"loaded"`
		Total  float64 `json:"total"`
	}
	evalJSON(ctx, "window.gpuscopeLoader", &st)
	if st.Phase != "running" || st.Loaded == 0 {
		t.Errorf("gpuscopeLoader = %+v, want phase running and bytes loaded", st)
	}
	if st.Total != 0 && st.Total != st.Loaded {
		t.Errorf("gpuscopeLoader loaded %v of a total of %v bytes, want equal", st.Loaded, st.Total)
	}

	// The wasm hides the loader when it draws its first frame, around the
	// time it sets ready.
	hidden := false
	for deadline := time.Now().Add(5 * time.Second); !hidden && time.Now().Before(deadline); {
		evalJSON(ctx, `document.getElementById("loader").classList.contains("hidden")`, &hidden)
		if !hidden {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !hidden {
		t.Error("#loader is still shown after ready")
	}
}

// TestLayout checks the display model at a desktop, a phone and an iframe
// size: the canvas covers the viewport behind the panels, #stage is a large
// region no panel covers, the body does not scroll, and our background beats
// Ebiten's black.
func TestLayout(t *testing.T) {
	sideBySide(t)
	tests := []struct {
		page          string
		width, height int64
		minStageW     float64 // fraction of the viewport
		minStageH     float64
	}{
		{"index.html", 1280, 800, 0.55, 0.95},
		{"index.html", 390, 844, 0.95, 0.45},
		{"embed.html", 1280, 800, 0.95, 0.7},
		{"embed.html", 640, 400, 0.95, 0.55},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s-%dx%d", tt.page, tt.width, tt.height)
		t.Run(name, func(t *testing.T) {
			ctx := openSized(t, tt.page+autoLoad(tt.page), tt.width, tt.height)
			waitReady(ctx)

			stage := elementRect(ctx, "#stage")
			panel := elementRect(ctx, "#panel")
			canvas := elementRect(ctx, "body > canvas")
			w, h := float64(tt.width), float64(tt.height)
			if stage.Width < tt.minStageW*w || stage.Height < tt.minStageH*h {
				t.Errorf("#stage is %.0fx%.0f, want at least %.0fx%.0f", stage.Width, stage.Height, tt.minStageW*w, tt.minStageH*h)
			}
			if canvas.X != 0 || canvas.Y != 0 || canvas.Width != w || canvas.Height != h {
				t.Errorf("canvas rect %+v, want the whole %vx%v viewport", canvas, w, h)
			}
			if !stage.image().Intersect(panel.image()).Empty() {
				t.Errorf("#panel %+v overlaps #stage %+v", panel, stage)
			}
			var page struct {
				ScrollH, InnerH float64
				Bg, StagePE     string
				CanvasZ, PanelZ string
			}
			evalJSON(ctx, `(() => {
			  const cs = (el) => getComputedStyle(el);
			  return {
			    ScrollH: document.scrollingElement.scrollHeight,
			    InnerH: innerHeight,
			    Bg: cs(document.body).backgroundColor,
			    StagePE: cs(document.getElementById("stage")).pointerEvents,
			    CanvasZ: cs(document.querySelector("body > canvas")).zIndex,
			    PanelZ: cs(document.getElementById("panel")).zIndex,
			  };
			})()`, &page)
			if page.ScrollH > page.InnerH {
				t.Errorf("document scrolls: scrollHeight %v > innerHeight %v", page.ScrollH, page.InnerH)
			}
			if page.Bg == "rgb(0, 0, 0)" {
				t.Errorf("body background is Ebiten's black, want the theme's")
			}
			if page.StagePE != "none" {
				t.Errorf("#stage pointer-events %q, want none (clicks must reach the canvas)", page.StagePE)
			}
			if page.CanvasZ != "0" || page.PanelZ != "1" {
				t.Errorf("z-index canvas %s, panel %s; want 0 and 1", page.CanvasZ, page.PanelZ)
			}
			if tt.page == "embed.html" {
				// The focus hint sits in the header, never over the picture,
				// and the narration shows whole lines (the step's title runs
				// into its text).
				var shown bool
				evalJSON(ctx, `document.getElementById("focus-hint").hidden = false`, &shown)
				hint, stage := elementRect(ctx, "#focus-hint"), elementRect(ctx, "#stage")
				if hint.Width == 0 || !hint.image().Intersect(stage.image()).Empty() {
					t.Errorf("#focus-hint %+v over #stage %+v", hint, stage)
				}
				var n struct{ H, Line float64 }
				evalJSON(ctx, `(() => { const n = document.getElementById("narration");
				  return {H: n.clientHeight, Line: parseFloat(getComputedStyle(n).lineHeight)}; })()`, &n)
				if lines := n.H / n.Line; n.Line == 0 || lines < 0.9 || math.Abs(lines-math.Round(lines)) > 0.15 {
					t.Errorf("narration %.1f px tall at %.1f px a line: %.2f lines, want whole ones", n.H, n.Line, lines)
				}
				evalJSON(ctx, `document.getElementById("focus-hint").hidden = true`, &shown)
			}
			screenshot(ctx, "layout-"+name)
		})
	}
}

// TestKeyboardFocusVisible checks that a control focused from the keyboard
// gets a visible outline.
func TestKeyboardFocusVisible(t *testing.T) {
	ctx := open(t, "index.html")
	waitReady(ctx)
	var outline string
	// Focus the control before it from script, then move with a real Tab
	// key press so that the browser treats the focus as keyboard focus.
	if err := chromedp.Run(ctx,
		chromedp.Focus("#btn-play", chromedp.ByQuery),
		chromedp.KeyEvent(kb.Tab),
	); err != nil {
		t.Fatal(err)
	}
	var active string
	evalJSON(ctx, "document.activeElement.id", &active)
	if active != "btn-next" {
		t.Fatalf("Tab from #btn-play focused %q, want btn-next", active)
	}
	evalJSON(ctx, `(() => { const s = getComputedStyle(document.getElementById("btn-next"));
	  return s.outlineStyle + " " + s.outlineWidth; })()`, &outline)
	if outline == "none 0px" || outline == "" {
		t.Errorf("#btn-next focused: outline %q, want a visible one", outline)
	}
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
