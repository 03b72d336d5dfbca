package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// pageState is the part of window.gpuscope.state() the tests read.
type pageState struct {
	Scenario string         `json:"scenario"`
	Step     int            `json:"step"`
	Steps    int            `json:"steps"`
	StepID   string         `json:"step_id"`
	Playing  bool           `json:"playing"`
	TimeS    float64        `json:"time_s"`
	EndS     float64        `json:"end_s"`
	FromS    float64        `json:"from_s"`
	ToS      float64        `json:"to_s"`
	Lang     string         `json:"lang"`
	Fragment string         `json:"fragment"`
	Config   map[string]any `json:"config"` // int and float knobs as numbers, enums and sizes as strings
	Metrics  struct {
		cliMetrics
		Ring cliMetrics `json:"ring"`
		Star cliMetrics `json:"star"`
	} `json:"metrics"`
	Error *string `json:"error"`
	Ready bool    `json:"ready"`
	Zoom  *struct {
		Level string `json:"level"`
		GPU   int    `json:"gpu"`
	} `json:"zoom"`
	Perf struct {
		UpdateMS     float64 `json:"update_ms"`
		DrawMS       float64 `json:"draw_ms"`
		FPS          float64 `json:"fps"`
		UpdateFrames int     `json:"update_frames"` // the ticks update_ms is the mean of
		DrawFrames   int     `json:"draw_frames"`   // the repaints draw_ms is the mean of
		LayerItems   int     `json:"layer_items"`   // items the last repaint took from the painter's layer
	} `json:"perf"`
}

// cliMetrics are the fields of `gpuscope collective --json`.
type cliMetrics struct {
	Op               string  `json:"op"`
	Algo             string  `json:"algo"`
	Ranks            int     `json:"ranks"`
	Bytes            int64   `json:"bytes"`
	Link             string  `json:"link"`
	TimeS            float64 `json:"time_s"`
	BytesSentPerRank int64   `json:"bytes_sent_per_rank"`
	AlgBWGBps        float64 `json:"algbw_GBps"`
	BusBWGBps        float64 `json:"busbw_GBps"`
	ClosedFormTimeS  float64 `json:"closed_form_time_s"`
	Rounds           int     `json:"rounds"`
}

func state(ctx context.Context) pageState {
	var st pageState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	return st
}

type cmdResult struct {
	OK    bool    `json:"ok"`
	Error *string `json:"error"`
}

func command(ctx context.Context, cmd string) cmdResult {
	var r cmdResult
	evalJSON(ctx, "window.gpuscope.command("+cmd+")", &r)
	return r
}

// commands sends cmds one after another in one script, so the page draws
// only where they end (one canvas frame, not one a command: each frame
// the canvas changes costs the browser's GPU process ~0.15 s of CPU
// under SwiftShader); it stops at the first refused and returns the
// results of those sent.
func commands(ctx context.Context, cmds ...string) []cmdResult {
	var r []cmdResult
	evalJSON(ctx, "(() => { const out = []; for (const c of ["+strings.Join(cmds, ", ")+
		"]) { const r = window.gpuscope.command(c); out.push(r); if (!r.ok) break; } return out; })()", &r)
	return r
}

// settle waits for the page to show the player's latest change (the DOM is
// refreshed on the next Ebiten tick) and for a couple of frames to be drawn.
func settle(ctx context.Context) {
	var ok bool
	_ = chromedp.Run(ctx, chromedp.Evaluate(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))`, &ok,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	// A margin after the three frames (which take ≈ 130 ms under
	// SwiftShader here): 727 settles a run, 150 ms → 50 ms saves ≈ 70 s;
	// the suite passed with 30.
	time.Sleep(50 * time.Millisecond)
}

func text(ctx context.Context, selector string) string {
	var s string
	sel, _ := json.Marshal(selector)
	evalJSON(ctx, `(document.querySelector(`+string(sel)+`) || {}).textContent || ""`, &s)
	return s
}

// cliBinary is the real command-line tool, built once for the run (in
// the directory runTests makes) the first time a test asks for it: a
// go run per call would link it again each time.
var cliBinary struct {
	once sync.Once
	path string
	err  error
}

// cli runs the real command-line tool and decodes its JSON.
func cli(t *testing.T, v any, args ...string) {
	t.Helper()
	cliBinary.once.Do(func() {
		build := exec.Command("go", "build", "-o", cliBinary.path, "./cmd/gpuscope")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			cliBinary.err = fmt.Errorf("go build ./cmd/gpuscope: %v\n%s", err, out)
		}
	})
	if cliBinary.err != nil {
		t.Fatal(cliBinary.err)
	}
	cmd := exec.Command(cliBinary.path, args...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpuscope %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("gpuscope %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// rims counts, in each of k equal angular sectors around the picture's
// centre and in a small disc at the centre, the pixels of the GPUs' rim
// colour (either theme). A ring of k GPUs lights every sector and leaves
// the centre dark; a star puts its root in the centre. The picture may be
// an oval and sit anywhere in the stage: its centre and radii are taken
// from the bounding box of the rim pixels, and coordinates are scaled by
// them so the oval becomes a circle.
func rims(img image.Image, stage rect, k int) (sectors []int, centre int) {
	return colourSectors(img, stage, k, rimDark, rimLight)
}

var (
	rimDark  = color.RGBA{0x00, 0xb3, 0x82, 255} // render.Dark.Rim
	rimLight = color.RGBA{0x00, 0x86, 0x62, 255} // render.Light.Rim
	hotDark  = color.RGBA{0xf0, 0x72, 0x1e, 255} // render.Dark.Hot
	hotLight = color.RGBA{0xd5, 0x5e, 0x00, 255} // render.Light.Hot
	// render.Dark.LinkActive, render.Light.LinkActive
	activeDark  = color.RGBA{0x56, 0xb4, 0xe9, 255}
	activeLight = color.RGBA{0x00, 0x72, 0xb2, 255}
)

// hot is rims for the hot-spot colour (render.Dark.Hot, render.Light.Hot),
// in the frame the rims define.
func hot(img image.Image, stage rect, k int) (sectors []int, centre int) {
	return colourSectors(img, stage, k, hotDark, hotLight)
}

func isColour(c color.RGBA, cs ...color.RGBA) bool {
	for _, w := range cs {
		if near(c.R, w.R, 24) && near(c.G, w.G, 24) && near(c.B, w.B, 24) {
			return true
		}
	}
	return false
}

func colourSectors(img image.Image, stage rect, k int, dark, light color.RGBA) (sectors []int, centre int) {
	sectors = make([]int, k)
	b := stage.image().Intersect(img.Bounds())
	// The frame: the bounding box of the GPU rims.
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X, b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if isColour(pixelAt(img, x, y), rimDark, rimLight) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 <= x0 || y1 <= y0 {
		return sectors, 0
	}
	cx, cy := float64(x0+x1)/2, float64(y0+y1)/2
	hx, hy := float64(x1-x0)/2, float64(y1-y0)/2
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !isColour(pixelAt(img, x, y), dark, light) {
				continue
			}
			dx, dy := (float64(x)-cx)/hx, (float64(y)-cy)/hy
			if math.Hypot(dx, dy) < 0.25 {
				centre++
				continue
			}
			// Angle from 12 o'clock, clockwise, shifted half a sector so
			// that GPU i sits in the middle of sector i.
			a := math.Atan2(dx, -dy)
			if a < 0 {
				a += 2 * math.Pi
			}
			s := int((a+math.Pi/float64(k))/(2*math.Pi/float64(k))) % k
			sectors[s]++
		}
	}
	return sectors, centre
}

func TestRingLessonSteps(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&gpus=8")
	waitReady(ctx)
	st := state(ctx)
	if st.Scenario != "ring-allreduce" || st.Steps != 6 || st.Step != 1 || st.Config["gpus"] != 8.0 || st.Error != nil {
		t.Fatalf("initial state = %+v, want ring-allreduce step 1 of 6 with gpus 8 and no error", st)
	}
	var scenarios []string
	evalJSON(ctx, "window.gpuscope.scenarios()", &scenarios)
	if len(scenarios) == 0 || scenarios[0] != "ring-allreduce" {
		t.Errorf("scenarios() = %v, want ring-allreduce first", scenarios)
	}

	// The hand-worked numbers for 8 GPUs × 256 MiB on NVLink 4 (see
	// engine/collective TestRingHandWorked): 2·7·(1 µs + 32 MiB / 450 GB/s).
	wantRing := 14 * (1e-6 + float64(32<<20)/450e9)
	wantStar := 2*1e-6 + 2*7*float64(256<<20)/450e9
	titles := map[string]bool{}
	for n := 1; n <= st.Steps; n++ {
		if r := command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n)); !r.OK {
			t.Fatalf("goto %d: %v", n, *r.Error)
		}
		settle(ctx)
		s := state(ctx)
		if s.Step != n {
			t.Fatalf("after goto %d: step %d", n, s.Step)
		}
		label := text(ctx, "#step-label")
		if !strings.Contains(label, fmt.Sprintf("%d / 6", n)) {
			t.Errorf("step %d: #step-label = %q", n, label)
		}
		title := text(ctx, "#narration strong")
		if title == "" || titles[title] {
			t.Errorf("step %d: narration title %q empty or repeated", n, title)
		}
		titles[title] = true
		if math.Abs(s.Metrics.Ring.TimeS-wantRing)/wantRing > 0.01 {
			t.Errorf("step %d: ring time_s = %g, want 2(N−1)(α+S/(NB)) = %g ±1%%", n, s.Metrics.Ring.TimeS, wantRing)
		}
		if math.Abs(s.Metrics.Star.TimeS-wantStar)/wantStar > 0.01 {
			t.Errorf("step %d: star time_s = %g, want 2α+2(N−1)S/B = %g ±1%%", n, s.Metrics.Star.TimeS, wantStar)
		}
		if got, want := s.Metrics.Ring.BytesSentPerRank, int64(14*(32<<20)); got != want {
			t.Errorf("step %d: ring bytes_sent_per_rank = %d, want 2(N−1)/N·S = %d", n, got, want)
		}
		if got, want := s.Metrics.Star.BytesSentPerRank, int64(7*(256<<20)); got != want {
			t.Errorf("step %d: star bytes_sent_per_rank = %d, want (N−1)·S = %d", n, got, want)
		}
		wantAlgo := "ring"
		if s.StepID == "star" {
			wantAlgo = "star"
		}
		if s.Metrics.Algo != wantAlgo {
			t.Errorf("step %d (%s): metrics.algo = %q, want %q", n, s.StepID, s.Metrics.Algo, wantAlgo)
		}
		// The numbers table shows the engine's figures.
		cell := text(ctx, `#metrics td[data-metric="rounds"][data-col="ring"]`)
		if cell != "14" {
			t.Errorf("step %d: rounds cell for ring = %q, want 14", n, cell)
		}
		shot := screenshot(ctx, fmt.Sprintf("ring-step%d-%s", n, s.StepID))
		stage := elementRect(ctx, "#stage")
		img := decodePNG(t, shot)
		sectors, centre := rims(img, stage, 8)
		switch s.StepID {
		case "star":
			// The root sits in the centre, its rim in the hot colour
			// while chunks queue for its link.
			if _, c := hot(img, stage, 7); c < 20 {
				t.Errorf("star step: %d hot pixels at the centre, want the root GPU there (≥ 20)", c)
			}
		default:
			for i, c := range sectors {
				if c < 20 {
					t.Errorf("step %d (%s): sector %d has %d rim pixels, want a GPU there (≥ 20); sectors %v", n, s.StepID, i, c, sectors)
				}
			}
			if centre > 0 {
				t.Errorf("step %d (%s): %d rim pixels at the centre of a ring", n, s.StepID, centre)
			}
		}
	}
	// Back and forth with the buttons.
	chromedpRun(t, ctx, chromedp.Click("#btn-prev", chromedp.ByQuery))
	settle(ctx)
	if s := state(ctx); s.Step != 5 {
		t.Errorf("after Back from step 6: step %d, want 5", s.Step)
	}
	chromedpRun(t, ctx, chromedp.Click("#btn-next", chromedp.ByQuery))
	settle(ctx)
	if s := state(ctx); s.Step != 6 {
		t.Errorf("after Next from step 5: step %d, want 6", s.Step)
	}
	if !strings.Contains(currentHash(ctx), "step=6") {
		t.Errorf("address bar %q does not name step 6", currentHash(ctx))
	}
}

func chromedpRun(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

func currentHash(ctx context.Context) string {
	var h string
	evalJSON(ctx, "location.hash", &h)
	return h
}

// The page's numbers are the CLI's numbers for the same configuration.
func TestMetricsMatchCLI(t *testing.T) {
	ctx := openDraft(t, "index.html#scenario=ring-allreduce&gpus=16&bytes=64MiB&link=ib-ndr&step=6", viewportW, viewportH)
	waitReady(ctx)
	s := state(ctx)
	for _, algo := range []string{"ring", "star"} {
		var want cliMetrics
		cli(t, &want, "collective", "--op", "allreduce", "--algo", algo, "--ranks", "16", "--bytes", "64MiB", "--link", "ib-ndr", "--json")
		got := s.Metrics.Ring
		if algo == "star" {
			got = s.Metrics.Star
		}
		if got != want {
			t.Errorf("%s: page metrics %+v\nCLI %+v", algo, got, want)
		}
		if algo == "ring" && s.Metrics.cliMetrics != want {
			t.Errorf("top-level metrics (step 6 shows the ring) %+v, want the CLI's %+v", s.Metrics.cliMetrics, want)
		}
	}
}

// Every knob change re-runs the engine: the numbers and the picture follow.
func TestKnobsRerun(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&gpus=8&step=2")
	waitReady(ctx)
	before := state(ctx)
	// Move the GPUs slider as a reader would.
	chromedpRun(t, ctx, chromedp.Evaluate(`(() => { const el = document.getElementById("knob-gpus");
	  el.value = "16"; el.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, nil))
	settle(ctx)
	after := state(ctx)
	if after.Config["gpus"] != 16.0 || after.Metrics.Ranks != 16 || after.Metrics.Rounds != 30 {
		t.Fatalf("after the slider moved to 16: config %v, ranks %d, rounds %d; want 16, 16, 30", after.Config, after.Metrics.Ranks, after.Metrics.Rounds)
	}
	if after.Metrics.Star.TimeS <= 2*before.Metrics.Star.TimeS*0.99 {
		t.Errorf("star time went from %g to %g doubling the GPUs; want it to more than double ((N−1) from 7 to 15)", before.Metrics.Star.TimeS, after.Metrics.Star.TimeS)
	}
	if !strings.Contains(currentHash(ctx), "gpus=16") {
		t.Errorf("address bar %q does not carry gpus=16", currentHash(ctx))
	}
	shot := screenshot(ctx, "ring-16-gpus")
	sectors, _ := rims(decodePNG(t, shot), elementRect(ctx, "#stage"), 16)
	for i, c := range sectors {
		if c < 8 {
			t.Errorf("16 GPUs: sector %d has %d rim pixels; sectors %v", i, c, sectors)
		}
	}
	// The link select.
	chromedpRun(t, ctx, chromedp.SetValue("#knob-link", "ib-ndr", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("knob-link").dispatchEvent(new Event("change")) && true`, nil))
	settle(ctx)
	if s := state(ctx); s.Metrics.Link != "ib-ndr" || s.Metrics.TimeS <= after.Metrics.TimeS {
		t.Errorf("after choosing InfiniBand: link %q time %g (NVLink %g); want ib-ndr and slower", s.Metrics.Link, s.Metrics.TimeS, after.Metrics.TimeS)
	}
	// 64 GPUs, the largest, through the API.
	if r := command(ctx, `{type: "set", gpus: 64}`); !r.OK {
		t.Fatalf("set gpus 64: %v", *r.Error)
	}
	settle(ctx)
	screenshot(ctx, "ring-64-gpus")
	if s := state(ctx); s.Metrics.Ranks != 64 {
		t.Errorf("set gpus 64: ranks %d", s.Metrics.Ranks)
	}
}

func TestPlayAdvancesTime(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=3")
	waitReady(ctx)
	if r := command(ctx, `{type: "speed"}`); r.OK {
		t.Errorf("an unknown command type was accepted")
	}
	command(ctx, `{type: "set", speed: 4}`)
	if r := command(ctx, `{type: "play"}`); !r.OK {
		t.Fatal(*r.Error)
	}
	t0 := state(ctx).TimeS
	live0 := text(ctx, "#live")
	// Play until the live line counts MiB: 1.5 s on an idle machine; a
	// loaded 2-core one draws a few frames a second, so up to a minute.
	live := live0
	for end := time.Now().Add(time.Minute); time.Now().Before(end); {
		time.Sleep(500 * time.Millisecond)
		if live = text(ctx, "#live"); live != live0 && strings.Contains(live, "MiB") {
			break
		}
	}
	s := state(ctx)
	if s.TimeS <= t0 {
		t.Errorf("playing moved time_s from %g to %g", t0, s.TimeS)
	}
	// The live line (elapsed time, bytes sent so far) follows the playhead.
	if live == live0 || !strings.Contains(live, "MiB") {
		t.Errorf("#live went from %q to %q in a minute of playing; want it to move and count MiB sent", live0, live)
	}
	if text(ctx, "#btn-play") == "" {
		t.Error("play button has no label")
	}
	command(ctx, `{type: "pause"}`)
	settle(ctx)
	t1 := state(ctx).TimeS
	time.Sleep(500 * time.Millisecond)
	if s := state(ctx); s.Playing || s.TimeS != t1 {
		t.Errorf("after pause: playing %v, time %g → %g", s.Playing, t1, s.TimeS)
	}
	// Scrub the timeline to the end: every GPU holds the sum.
	chromedpRun(t, ctx, chromedp.Evaluate(`(() => { const el = document.getElementById("timeline");
	  el.value = "1000"; el.dispatchEvent(new Event("input")); el.dispatchEvent(new Event("change")); return true; })()`, nil))
	settle(ctx)
	if s := state(ctx); s.TimeS != s.EndS {
		t.Errorf("timeline at 1000: time_s %g, want the end %g", s.TimeS, s.EndS)
	}
	screenshot(ctx, "ring-end")
}

func TestLanguageSwitch(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=2")
	waitReady(ctx)
	en := text(ctx, "#narration")
	enPlay := text(ctx, "#btn-play")
	chromedpRun(t, ctx, chromedp.SetValue("#lang", "zh", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("lang").dispatchEvent(new Event("change")) && true`, nil))
	settle(ctx)
	zh := text(ctx, "#narration")
	if zh == en || !hasHan(zh) {
		t.Errorf("narration after switching to zh: %q (was %q), want Chinese", zh, en)
	}
	if p := text(ctx, "#btn-play"); p == enPlay || !hasHan(p) {
		t.Errorf("play button after switching to zh: %q", p)
	}
	var lang string
	evalJSON(ctx, "document.documentElement.lang", &lang)
	if lang != "zh-Hans" {
		t.Errorf("<html lang> = %q, want zh-Hans", lang)
	}
	if s := state(ctx); s.Lang != "zh" || !strings.Contains(currentHash(ctx), "lang=zh") {
		t.Errorf("state lang %q, hash %q; want zh in both", s.Lang, currentHash(ctx))
	}
	screenshot(ctx, "ring-zh")
	// A link with lang=zh opens in Chinese.
	ctx2 := open(t, "index.html#scenario=ring-allreduce&lang=zh&step=3")
	waitReady(ctx2)
	if n := text(ctx2, "#narration"); !hasHan(n) {
		t.Errorf("lang=zh link: narration %q", n)
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// Bad fragments get a visible, specific message, and the lesson keeps
// running on the last good values.
func TestBadFragments(t *testing.T) {
	sideBySide(t)
	long := "gpus=" + strings.Repeat("9", 10*1024)
	tests := []struct {
		name     string
		frag     string
		mentions []string
	}{
		{"gpus-abc", "scenario=ring-allreduce&gpus=abc", []string{"gpus", "abc", "2–64"}},
		{"gpus-huge", "scenario=ring-allreduce&gpus=100000", []string{"gpus", "100000", "2–64"}},
		{"scenario-nope", "scenario=nope&gpus=16", []string{"nope", "ring-allreduce"}},
		{"10kB", long, []string{"10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Loaded with the bad link.
			ctx := open(t, "index.html#"+tt.frag)
			waitReady(ctx)
			settle(ctx)
			s := state(ctx)
			if s.Error == nil {
				t.Fatalf("state().error is null for #%.60s", tt.frag)
			}
			box := text(ctx, "#error")
			for _, m := range tt.mentions {
				if !strings.Contains(box, m) {
					t.Errorf("#error %q does not mention %q", box, m)
				}
			}
			var visible bool
			evalJSON(ctx, `(() => { const e = document.getElementById("error"); const r = e.getBoundingClientRect();
			  return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; })()`, &visible)
			if !visible {
				t.Errorf("#error is not visible")
			}
			if s.Scenario != "ring-allreduce" || (s.Config["gpus"] != 8.0 && s.Config["gpus"] != 16.0) {
				t.Errorf("state after a bad link: %s gpus %v", s.Scenario, s.Config["gpus"])
			}
			screenshot(ctx, "bad-"+tt.name)
			// Still running: play moves time on.
			command(ctx, `{type: "play"}`)
			t0 := state(ctx).TimeS
			time.Sleep(700 * time.Millisecond)
			if t1 := state(ctx).TimeS; t1 <= t0 {
				t.Errorf("after a bad link the lesson does not play: time %g → %g", t0, t1)
			}
		})
	}
	// While running: a good change, then a bad one, keeps the good one.
	ctx := open(t, "index.html#scenario=ring-allreduce&gpus=12")
	waitReady(ctx)
	chromedpRun(t, ctx, chromedp.Evaluate(`location.hash = "#scenario=ring-allreduce&gpus=abc&step=2"; true`, nil))
	settle(ctx)
	s := state(ctx)
	if s.Config["gpus"] != 12.0 || s.Step != 2 || s.Error == nil || !strings.Contains(*s.Error, "abc") {
		t.Errorf("after #gpus=abc&step=2 on a running page: gpus %v step %d error %v; want gpus 12 kept, step 2, an error", s.Config["gpus"], s.Step, s.Error)
	}
	if !strings.Contains(text(ctx, "#error"), "12") {
		t.Errorf("#error %q does not say the value kept (12)", text(ctx, "#error"))
	}
}

func TestEmbedPage(t *testing.T) {
	ctx := openSized(t, "embed.html#scenario=ring-allreduce&gpus=8&step=4&load=auto", 640, 400)
	waitReady(ctx)
	s := state(ctx)
	if s.Step != 4 {
		t.Errorf("embed step = %d, want 4", s.Step)
	}
	shot := screenshot(ctx, "embed-640x400")
	sectors, _ := rims(decodePNG(t, shot), elementRect(ctx, "#stage"), 8)
	for i, c := range sectors {
		if c < 5 {
			t.Errorf("embed: sector %d has %d rim pixels; sectors %v", i, c, sectors)
		}
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Keyboard: with the picture clicked (the canvas has focus) Space plays,
// → steps, and Tab leaves the canvas instead of being swallowed by it.
func TestKeyboardOnThePicture(t *testing.T) {
	ctx := openDraft(t, "index.html#scenario=ring-allreduce&step=2", viewportW, viewportH)
	waitReady(ctx)
	st := elementRect(ctx, "#stage")
	chromedpRun(t, ctx, chromedp.MouseClickXY(st.X+st.Width/2, st.Y+st.Height/2))
	var active string
	evalJSON(ctx, "document.activeElement.tagName", &active)
	if active != "CANVAS" {
		t.Fatalf("after clicking the picture the focus is on %s, want the canvas", active)
	}
	chromedpRun(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	settle(ctx)
	if s := state(ctx); s.Step != 3 {
		t.Errorf("→ on the picture: step %d, want 3", s.Step)
	}
	chromedpRun(t, ctx, chromedp.KeyEvent(" "))
	settle(ctx)
	if s := state(ctx); !s.Playing {
		t.Errorf("Space on the picture did not start playing")
	}
	chromedpRun(t, ctx, chromedp.KeyEvent(kb.Tab))
	evalJSON(ctx, "document.activeElement.tagName", &active)
	if active == "CANVAS" {
		t.Errorf("Tab left the focus on the canvas: keyboard users are trapped")
	}
}

// The lesson picker lists every lesson and switches to the one chosen.
func TestLessonPicker(t *testing.T) {
	ctx := openDraft(t, "index.html", viewportW, viewportH)
	waitReady(ctx)
	settle(ctx)
	var ids []string
	evalJSON(ctx, `[...document.querySelectorAll("#lesson option")].map(o => o.value)`, &ids)
	var want []string
	evalJSON(ctx, "window.gpuscope.scenarios()", &want)
	if strings.Join(ids, ",") != strings.Join(want, ",") || len(ids) < 8 {
		t.Fatalf("picker lists %v, want %v", ids, want)
	}
	chromedpRun(t, ctx, chromedp.SetValue("#lesson", "memory-wall", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("lesson").dispatchEvent(new Event("change")) && true`, nil))
	settle(ctx)
	if s := state(ctx); s.Scenario != "memory-wall" || s.Step != 1 || !strings.Contains(currentHash(ctx), "scenario=memory-wall") {
		t.Errorf("after picking memory-wall: %s step %d, hash %q", s.Scenario, s.Step, currentHash(ctx))
	}
}

// The picture follows the reader's colour scheme, also when it changes
// while the page is open.
func TestThemeFollowsSystem(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=2")
	waitReady(ctx)
	setScheme := func(s string) {
		chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}))
		settle(ctx)
	}
	bg := func() color.RGBA {
		img := decodePNG(t, screenshot(ctx, "theme"))
		st := elementRect(ctx, "#stage")
		return pixelAt(img, int(st.X+st.Width/2), int(st.Y+st.Height/2))
	}
	setScheme("dark")
	dark := bg()
	setScheme("light")
	light := bg()
	if int(dark.R)+int(dark.G)+int(dark.B) > 200 || int(light.R)+int(light.G)+int(light.B) < 600 {
		t.Errorf("stage centre: dark scheme %v, light scheme %v; want a dark and a light background", dark, light)
	}
}
