// Command posters renders the poster images of the embedded simulator: the
// picture an embed shows, before the reader clicks "Load simulation", of
// each lesson in each theme.
//
// It is a developer tool, not part of the served site. It serves the built
// site (make build) on a loopback address, opens every lesson's embed page
// in one headless Chromium — the real renderer, drawing through SwiftShader
// — and screenshots the stage at the poster moment: step 1 of the lesson,
// paused, with the playhead at the middle of the step's window. The PNGs
// go to --out as ID-dark.png and ID-light.png, and in Chinese (the
// picture's labels are in the reader's language; an embed with lang=zh
// shows these) as ID-dark-zh.png and ID-light-zh.png; they are committed,
// so that make build needs no browser.
//
// It also draws the figure of each lesson's printed handout (the course
// page's print layout), ID-handout-LANG.png: the light theme, in the page's
// language, at the step of the handout's first table (course.HandoutSteps)
// with the step's question answered, so that the figure shows what the
// tables under it give numbers for.
//
//	go run ./cmd/posters --site site/dist --out site/posters [--course site/course] [--only ID,ID] [--lang LANG,LANG] [--what posters,handouts]
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/internal/course"
	"github.com/gpuscope/gpuscope/internal/headless"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/site/server"
)

// The browser window, in CSS pixels at device pixel ratio 1. The poster is
// the part of it the stage covers (between the embed's title and its bar).
const (
	windowW = 800
	windowH = 500
)

// stageH is the height the stage is given for the poster, in CSS pixels.
// Left to the page, it would depend on the step's bar (a question or a long
// narration takes room from the picture), and posters of one site would
// come in several shapes; 350 is the stage's height at 800x500 under a bar
// of narration and buttons.
const stageH = 350

// stageStyle pins the stage's row of the embed's grid to stageH. The bar
// below may then overflow the window; the poster is the stage alone.
var stageStyle = fmt.Sprintf("body.page-embed { grid-template-rows: auto %dpx auto !important; }", stageH)

// Themes are the colour schemes a poster is rendered in, in file-name order.
var themes = []string{"dark", "light"}

const (
	readyTimeout  = 90 * time.Second // per lesson, from navigation to ready
	posterTimeout = 3 * time.Minute  // per poster, everything included
	settle        = 300 * time.Millisecond
)

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "posters: "+format+"\n", args...) }
	site := flag.String("site", "site/dist", "the built site to serve (make build)")
	out := flag.String("out", "site/posters", "directory to write ID-THEME.png into")
	chromium := flag.String("chromium", "", "Chromium binary (default: chromium, chromium-browser or google-chrome on PATH)")
	only := flag.String("only", "", "comma-separated lesson ids to render (default: all)")
	courseDir := flag.String("course", "site/course", "the course's sources, whose pages say each handout's step")
	langs := flag.String("lang", "", "comma-separated languages to render (default: all of "+strings.Join(posterLangs, ", ")+")")
	what := flag.String("what", "posters,handouts", "comma-separated kinds of image to render: posters (the embeds'), handouts (the course's printed figures)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: posters [--site DIR] [--out DIR] [--course DIR] [--chromium PATH] [--only ID[,ID]] [--lang LANG[,LANG]] [--what posters,handouts]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		log("unexpected arguments: %s", strings.Join(flag.Args(), " "))
		flag.Usage()
		os.Exit(2)
	}
	ids, err := selectIDs(scenarios.IDs(), *only)
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	sel, err := selectShots(*langs, *what)
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	steps, err := course.HandoutSteps(*courseDir)
	if err != nil {
		log("--course %s: %v", *courseDir, err)
		os.Exit(1)
	}
	var todo []shot
	for _, sh := range shots(ids, steps) {
		if sel(sh) {
			todo = append(todo, sh)
		}
	}
	if err := run(*site, *out, *chromium, todo); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

// selectIDs returns the ids of all that only names (all of them when only is
// empty), in all's order, or an error naming an unknown id.
func selectIDs(all []string, only string) ([]string, error) {
	if strings.TrimSpace(only) == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(only, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !slices.Contains(all, id) {
			return nil, fmt.Errorf("--only: no lesson %q (lessons: %s)", id, strings.Join(all, ", "))
		}
		want[id] = true
	}
	var ids []string
	for _, id := range all {
		if want[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("--only names no lesson")
	}
	return ids, nil
}

// selectShots returns whether a shot is in the languages and kinds
// named (comma lists; empty langs: every language), or an error naming
// an unknown one.
func selectShots(langs, what string) (func(shot) bool, error) {
	lang := map[string]bool{}
	for _, l := range strings.Split(langs, ",") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if !slices.Contains(posterLangs, l) {
			return nil, fmt.Errorf("--lang: no language %q (languages: %s)", l, strings.Join(posterLangs, ", "))
		}
		lang[l] = true
	}
	kind := map[bool]bool{} // by shot.handout
	for _, k := range strings.Split(what, ",") {
		switch strings.TrimSpace(k) {
		case "posters":
			kind[false] = true
		case "handouts":
			kind[true] = true
		case "":
		default:
			return nil, fmt.Errorf("--what: no kind %q (kinds: posters, handouts)", k)
		}
	}
	if len(kind) == 0 {
		return nil, errors.New("--what names no kind")
	}
	return func(sh shot) bool { return (len(lang) == 0 || lang[sh.lang]) && kind[sh.handout] }, nil
}

// A shot is one image the tool draws: a lesson in a theme and language, at
// a step, its question answered or not, written to name; handout says it
// is a handout's figure, not an embed's poster.
type shot struct {
	id, theme, lang string
	step            int
	answer          bool
	handout         bool
	name            string
}

// posterLangs are the languages an embed's poster is drawn in: the
// picture's labels are in the page's language.
var posterLangs = []string{"en", "zh"}

// posterName is the file of lesson id's poster in theme and lang: ID-THEME.png
// in English, ID-THEME-LANG.png in another language (site/loader.js asks
// for the same).
func posterName(id, theme, lang string) string {
	if lang == "en" {
		return id + "-" + theme + ".png"
	}
	return id + "-" + theme + "-" + lang + ".png"
}

// shots lists every image for ids: the embed posters (step 1, as an
// embed first shows it, in each language), then the handout figures at
// steps.
func shots(ids []string, steps map[string]int) []shot {
	var out []shot
	for _, lang := range posterLangs {
		for _, theme := range themes {
			for _, id := range ids {
				out = append(out, shot{id: id, theme: theme, lang: lang, step: 1, name: posterName(id, theme, lang)})
			}
		}
	}
	for _, lang := range handoutLangs {
		for _, id := range ids {
			out = append(out, shot{id: id, theme: "light", lang: lang, step: max(steps[id], 1), answer: true, handout: true, name: course.HandoutPoster(id, lang)})
		}
	}
	return out
}

// handoutLangs are the languages of the course's pages, each printing
// its own handout figure.
var handoutLangs = []string{"en", "zh"}

func run(site, out, chromiumFlag string, todo []shot) error {
	if len(todo) == 0 {
		return errors.New("nothing to render")
	}
	abs, err := filepath.Abs(site)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(abs, "embed.html")); err != nil {
		return fmt.Errorf("--site %s has no embed.html (run make build first)", site)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	bin, err := headless.ChromiumPath(chromiumFlag)
	if err != nil {
		return err
	}

	// Serve a private copy: a make build elsewhere rewriting main.wasm
	// while Chromium downloads it would break a lesson's load.
	snap, err := os.MkdirTemp("", "gpuscope-posters-site-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(snap)
	if err := snapshotSite(abs, snap); err != nil {
		return err
	}
	srv := httptest.NewServer(server.Handler(snap))
	defer srv.Close()

	profile, err := os.MkdirTemp("", "gpuscope-posters-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)

	opts := headless.AllocatorOptions(bin, profile, windowW, windowH, chromedp.Flag("force-device-scale-factor", "1"))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Run(browserCtx); err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}

	start := time.Now()
	var total, n int
	var largest int
	var largestName string
	var tb *tab
	defer func() {
		if tb != nil {
			tb.close()
		}
	}()
	for _, sh := range todo {
		if tb == nil || tb.theme != sh.theme {
			if tb != nil {
				tb.close()
			}
			if tb, err = newTab(browserCtx, sh.theme); err != nil {
				return err
			}
		}
		t0 := time.Now()
		raw, err := tb.poster(srv.URL, sh)
		if err != nil {
			return fmt.Errorf("%s: %w", sh.name, err)
		}
		buf, colours, err := compress(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", sh.name, err)
		}
		if err := os.WriteFile(filepath.Join(out, sh.name), buf, 0o644); err != nil {
			return err
		}
		kind := "truecolour"
		if colours <= 256 {
			kind = "paletted"
		}
		fmt.Printf("%-48s %6d bytes  (%s, %d colours, %.1f s)\n",
			filepath.Join(out, sh.name), len(buf), kind, colours, time.Since(t0).Seconds())
		total += len(buf)
		n++
		if len(buf) > largest {
			largest, largestName = len(buf), sh.name
		}
	}
	fmt.Printf("%d posters, %d bytes in all, %d on average, largest %s (%d bytes), %.0f s\n",
		n, total, total/max(n, 1), largestName, largest, time.Since(start).Seconds())
	return nil
}

// snapshotSite copies the files of the site directory src (not its
// subdirectories, but for the catalogues in i18n/) into dst, retrying while main.wasm and main.wasm.gz
// disagree — a build is writing them.
func snapshotSite(src, dst string) error {
	var err error
	for try := 0; try < 30; try++ {
		if try > 0 {
			time.Sleep(2 * time.Second)
		}
		if err = copyFiles(src, dst); err != nil {
			return err
		}
		if err = checkWasm(dst); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s: %w (is a build still writing it?)", src, err)
}

func copyFiles(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() == "i18n" {
			// The catalogues the page fetches for a language other
			// than English.
			if err := os.MkdirAll(filepath.Join(dst, e.Name()), 0o755); err != nil {
				return err
			}
			if err := copyFiles(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkWasm reports whether dir/main.wasm is a WebAssembly module and, when
// dir/main.wasm.gz exists (the server prefers it), whether it holds the
// same bytes.
func checkWasm(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "main.wasm"))
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(raw, []byte("\x00asm")) {
		return errors.New("main.wasm is not a WebAssembly module")
	}
	gz, err := os.Open(filepath.Join(dir, "main.wasm.gz"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		return fmt.Errorf("main.wasm.gz: %w", err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("main.wasm.gz: %w", err)
	}
	if !bytes.Equal(unz, raw) {
		return errors.New("main.wasm.gz does not hold main.wasm")
	}
	return nil
}

// tab is one browser tab, emulating one colour scheme, reused for every
// lesson of that theme. It records the page's errors, to explain a failure.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	theme  string
	mu     sync.Mutex
	errs   []string
}

func newTab(browserCtx context.Context, theme string) (*tab, error) {
	ctx, cancel := chromedp.NewContext(browserCtx)
	tb := &tab{ctx: ctx, cancel: cancel, theme: theme}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			text := headless.ConsoleText(ev.Args)
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert ||
				strings.HasPrefix(text, "panic: ") || strings.HasPrefix(text, "fatal error: ") {
				tb.record("console." + string(ev.Type) + ": " + text)
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			tb.record(fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.LevelError {
				tb.record(fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	// A headless tab in the background gets no requestAnimationFrame, and
	// Ebiten would draw one frame and stop: bring it to the front and let it
	// believe it has focus (as the browser tests do).
	err := chromedp.Run(ctx,
		page.BringToFront(),
		emulation.SetFocusEmulationEnabled(true),
		chromedp.EmulateViewport(windowW, windowH, chromedp.EmulateScale(1)),
		chromedp.ActionFunc(func(ctx context.Context) error {
			css, _ := json.Marshal(stageStyle)
			_, err := page.AddScriptToEvaluateOnNewDocument(`document.addEventListener("DOMContentLoaded", () => {
			  const s = document.createElement("style");
			  s.textContent = ` + string(css) + `;
			  document.head.appendChild(s);
			});`).Do(ctx)
			return err
		}),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
			{Name: "prefers-color-scheme", Value: theme},
		}),
	)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("opening a tab for the %s theme: %w", theme, err)
	}
	return tb, nil
}

func (tb *tab) close() { tb.cancel() }

func (tb *tab) record(msg string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.errs = append(tb.errs, msg)
}

// takeErrors returns the errors recorded since the last call.
func (tb *tab) takeErrors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	e := tb.errs
	tb.errs = nil
	return e
}

// fail wraps err with the page errors seen while making this poster.
func (tb *tab) fail(err error) error {
	if errs := tb.takeErrors(); len(errs) > 0 {
		return fmt.Errorf("%w\npage errors:\n  %s", err, strings.Join(errs, "\n  "))
	}
	return err
}

// embedURL is the embed page of lesson id in theme and lang, loading at
// once.
func embedURL(base, id, theme, lang string) string {
	return base + "/embed.html#scenario=" + url.QueryEscape(id) + "&load=auto&theme=" + theme + "&lang=" + lang
}

// playerState is the part of window.gpuscope.state() the tool reads.
type playerState struct {
	Scenario string  `json:"scenario"`
	Step     int     `json:"step"`
	Playing  bool    `json:"playing"`
	TimeS    float64 `json:"time_s"`
	FromS    float64 `json:"from_s"`
	ToS      float64 `json:"to_s"`
	EndS     float64 `json:"end_s"`
	Error    *string `json:"error"`
	Question *struct {
		Answered bool `json:"answered"`
	} `json:"question"`
}

// poster loads the shot's lesson, moves it to the shot's moment — its
// step, paused, halfway through the step's window, the question answered
// if the shot asks — and returns a PNG screenshot of the stage.
func (tb *tab) poster(base string, sh shot) ([]byte, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, posterTimeout)
	defer cancel()
	tb.takeErrors()

	// A full navigation: the lesson is prepared when the page loads, so a
	// new fragment on the same document would not do. Going through
	// about:blank also frees the previous lesson's memory first.
	if err := chromedp.Run(ctx,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(embedURL(base, sh.id, sh.theme, sh.lang)),
	); err != nil {
		return nil, tb.fail(fmt.Errorf("loading the embed page: %w", err))
	}
	if err := waitReady(ctx); err != nil {
		return nil, tb.fail(err)
	}

	for _, cmd := range []string{`{type:"pause"}`, fmt.Sprintf(`{type:"goto", step:%d}`, sh.step)} {
		if err := command(ctx, cmd); err != nil {
			return nil, tb.fail(err)
		}
	}
	var st playerState
	if err := headless.EvalJSON(ctx, `window.gpuscope.state()`, &st); err != nil {
		return nil, tb.fail(err)
	}
	if st.Scenario != sh.id {
		return nil, tb.fail(fmt.Errorf("the page shows lesson %q, not %q", st.Scenario, sh.id))
	}
	if sh.answer && st.Question != nil && !st.Question.Answered {
		// As a reader would: a click on the first choice (any choice
		// reveals the answer, and the picture with it).
		var clicked bool
		// The page draws the question's buttons on its next frame: wait
		// for them (up to 10 s).
		if err := headless.EvalJSON(ctx, `new Promise(done => { const t0 = performance.now();
		  const tick = () => { const b = document.querySelector("#predict button[data-choice]");
		    if (b) { b.click(); done(true); } else if (performance.now() - t0 > 10000) { done(false); } else { setTimeout(tick, 50); } };
		  tick(); })`, &clicked); err != nil || !clicked {
			return nil, tb.fail(fmt.Errorf("step %d asks a question, but no choice button could be clicked (%v)", sh.step, err))
		}
	}
	mid := (st.FromS + st.ToS) / 2
	for _, cmd := range []string{fmt.Sprintf(`{type:"goto", time_s:%v}`, mid), `{type:"pause"}`} {
		if err := command(ctx, cmd); err != nil {
			return nil, tb.fail(err)
		}
	}
	if err := headless.EvalJSON(ctx, `window.gpuscope.state()`, &st); err != nil {
		return nil, tb.fail(err)
	}
	if st.Step != sh.step || st.Playing || st.Error != nil || (sh.answer && st.Question != nil && !st.Question.Answered) {
		msg := ""
		if st.Error != nil {
			msg = ", error " + *st.Error
		}
		if st.Question != nil {
			msg += fmt.Sprintf(", question answered %v", st.Question.Answered)
		}
		return nil, tb.fail(fmt.Errorf("after goto: step %d, playing %v, time %g s (wanted step %d paused at %g s)%s",
			st.Step, st.Playing, st.TimeS, sh.step, mid, msg))
	}

	// Let Ebiten draw the new moment: two animation frames, then a pause.
	var frames int
	if err := headless.EvalJSON(ctx, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(2))))`, &frames); err != nil {
		return nil, tb.fail(fmt.Errorf("waiting for animation frames: %w", err))
	}
	time.Sleep(settle)

	var r struct{ X, Y, Width, Height float64 }
	if err := headless.EvalJSON(ctx, `(() => { const s = document.getElementById("stage");
	  if (!s) return null;
	  const b = s.getBoundingClientRect();
	  return {X: b.x, Y: b.y, Width: b.width, Height: b.height}; })()`, &r); err != nil {
		return nil, tb.fail(fmt.Errorf("measuring #stage: %w", err))
	}
	if r.Width != windowW || r.Height != stageH {
		return nil, tb.fail(fmt.Errorf("#stage is %gx%g px, not %dx%d (has the embed's layout changed?)", r.Width, r.Height, windowW, stageH))
	}
	var buf []byte
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		buf, err = page.CaptureScreenshot().
			WithFormat(page.CaptureScreenshotFormatPng).
			WithClip(&page.Viewport{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height, Scale: 1}).
			Do(ctx)
		return err
	})); err != nil {
		return nil, tb.fail(fmt.Errorf("screenshot: %w", err))
	}
	if errs := tb.takeErrors(); len(errs) > 0 {
		return nil, fmt.Errorf("page errors:\n  %s", strings.Join(errs, "\n  "))
	}
	return buf, nil
}

// waitReady waits up to readyTimeout for window.gpuscope.ready, and fails
// at once if the loader reports a failure.
func waitReady(ctx context.Context) error {
	const probe = `(() => {
	  const l = window.gpuscopeLoader || {};
	  return {
	    ready: !!(window.gpuscope && window.gpuscope.ready),
	    failed: l.phase === "failed" || l.phase === "exited",
	    text: (document.getElementById("loader-text") || {}).textContent || "",
	    error: (document.getElementById("error") || {}).textContent || "",
	  };
	})()`
	var st struct {
		Ready  bool   `json:"ready"`
		Failed bool   `json:"failed"`
		Text   string `json:"text"`
		Error  string `json:"error"`
	}
	deadline := time.Now().Add(readyTimeout)
	for {
		if err := chromedp.Run(ctx, chromedp.Evaluate(probe, &st)); err != nil {
			return fmt.Errorf("waiting for the lesson: %w", err)
		}
		switch {
		case st.Ready:
			return nil
		case st.Failed:
			return fmt.Errorf("the loader failed: %s %s", strings.TrimSpace(st.Text), strings.TrimSpace(st.Error))
		case time.Now().After(deadline):
			return fmt.Errorf("lesson not ready after %v (loader says %q, error box %q)",
				readyTimeout, strings.TrimSpace(st.Text), strings.TrimSpace(st.Error))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// command runs window.gpuscope.command(cmd) and returns its error, if any.
func command(ctx context.Context, cmd string) error {
	var res struct {
		OK    bool    `json:"ok"`
		Error *string `json:"error"`
	}
	if err := headless.EvalJSON(ctx, `window.gpuscope.command(`+cmd+`)`, &res); err != nil {
		return fmt.Errorf("command %s: %w", cmd, err)
	}
	if !res.OK {
		msg := "refused"
		if res.Error != nil {
			msg = *res.Error
		}
		return fmt.Errorf("command %s: %s", cmd, msg)
	}
	return nil
}

// evalJSON evaluates expr in the page (awaiting it if it is a promise) and
// decodes its JSON form into v.

// compress re-encodes a PNG at png.BestCompression, as an exact paletted
// image when it has at most 256 colours and that is smaller (never
// dithered: every pixel keeps its colour). It also returns the number of
// distinct colours (257 meaning "more than 256").
func compress(in []byte) ([]byte, int, error) {
	img, err := png.Decode(bytes.NewReader(in))
	if err != nil {
		return nil, 0, fmt.Errorf("decoding the screenshot: %w", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	var full bytes.Buffer
	if err := enc.Encode(&full, asNRGBA(img)); err != nil {
		return nil, 0, err
	}
	pal, colours := toPaletted(img)
	if pal == nil {
		return full.Bytes(), colours, nil
	}
	var small bytes.Buffer
	if err := enc.Encode(&small, pal); err != nil {
		return nil, 0, err
	}
	if small.Len() < full.Len() {
		return small.Bytes(), colours, nil
	}
	return full.Bytes(), colours, nil
}

// asNRGBA returns img as an *image.NRGBA, which the PNG encoder writes as
// RGB when every pixel is opaque.
func asNRGBA(img image.Image) image.Image {
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	return n
}

// toPaletted returns img as an *image.Paletted holding exactly the same
// pixels when it has at most 256 distinct colours, and nil otherwise. The
// count is the number of distinct colours, or 257 when there are more.
func toPaletted(img image.Image) (*image.Paletted, int) {
	b := img.Bounds()
	index := map[color.NRGBA]uint8{}
	var pal color.Palette
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if _, ok := index[c]; ok {
				continue
			}
			if len(pal) == 256 {
				return nil, 257
			}
			index[c] = uint8(len(pal))
			pal = append(pal, c)
		}
	}
	p := image.NewPaletted(b, pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			p.SetColorIndex(x, y, index[c])
		}
	}
	return p, len(pal)
}
