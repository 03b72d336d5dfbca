package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/internal/headless"
	"github.com/gpuscope/gpuscope/site/server"
)

// Viewport of every tab unless a test asks for another.
const (
	viewportW = 1280
	viewportH = 800
)

// readyTimeout bounds waitReady: SwiftShader on two slow cores needs a while
// to compile a large wasm module and draw the first frame.
const readyTimeout = 60 * time.Second

var (
	siteDir    string          // GPUSCOPE_SITE_DIR, absolute
	baseURL    string          // the loopback server, with trailing slash
	browserCtx context.Context // the shared browser; nil when tests are skipped
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir := os.Getenv("GPUSCOPE_SITE_DIR")
	if dir == "" {
		return m.Run() // every test skips via open
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	if _, err := os.Stat(filepath.Join(abs, "index.html")); err != nil {
		fmt.Fprintf(os.Stderr, "browsertest: GPUSCOPE_SITE_DIR=%s has no index.html (run make build)\n", dir)
		return 1
	}
	siteDir = abs

	srv := httptest.NewServer(traffic.wrap(server.Handler(siteDir)))
	defer srv.Close()
	baseURL = srv.URL + "/"

	bin, err := headless.ChromiumPath(os.Getenv("GPUSCOPE_CHROMIUM"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	profile, err := os.MkdirTemp("", "gpuscope-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(profile)
	cliDir, err := os.MkdirTemp("", "gpuscope-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(cliDir)
	cliBinary.path = filepath.Join(cliDir, "gpuscope")

	// Debian's chromium wrapper turns GPU rasterization on
	// (/etc/chromium.d/default-flags); through SwiftShader that rasters
	// the page's HTML on an emulated GPU, slower on a CPU than Chromium's
	// own software rasterizer. The canvas is WebGL either way.
	//
	// V8 compiles main.wasm twice on every page load: Liftoff's baseline
	// code as functions are first called, then TurboFan's optimised code
	// for the hot ones on background threads — about 4 s of CPU a load
	// for Go's large functions (a trace of one ring-allreduce load on this
	// machine: 4.1 s of wasm.TopTierCompilation beside 0.8 s of
	// wasm.CompileLazy), paid again by each of the suite's hundreds of
	// loads, the code cache keeping only the part tiered up. The tests
	// check what the page does, which Liftoff's code does alike (the same
	// WebAssembly semantics), so the browser runs it without tiering up;
	// make bench (GPUSCOPE_BENCH=1), which times frames, runs the browser
	// as a reader's does.
	flags := []chromedp.ExecAllocatorOption{chromedp.Flag("disable-gpu-rasterization", true)}
	//
	// Each window of new headless Chromium (a test's tab has one of its
	// own: open) loads the omnibox's popup, a page of the browser's own
	// WebUI, into a renderer every window shares: that renderer took a
	// quarter of a core through the whole run (ps, during make test).
	// The tests never touch the address bar, so the browser runs without
	// the WebUI popup (chromedp's own disabled features kept): 7.4 → 4.3
	// s of that renderer's CPU over seven tests. Chromium 156 loads a
	// second popup page, the "AI mode" one (omnibox_popup_aim.html), into
	// that renderer whatever WebUIOmniboxPopup says; WebUIOmniboxAimPopup
	// turns it off: 0.7 s of CPU a window, and the browser process's own
	// 0.2 (six page loads, measured by process: 22.4 → 16.1 s of CPU in
	// all).
	if os.Getenv("GPUSCOPE_BENCH") != "1" {
		flags = append(flags, chromedp.Flag("js-flags", "--liftoff-only"),
			chromedp.Flag("disable-features", "site-per-process,Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup"))
	}
	opts := headless.AllocatorOptions(bin, profile, viewportW, viewportH, flags...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		fmt.Fprintf(os.Stderr, "browsertest: starting %s: %v\n", bin, err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// tab is what open keeps about one browser tab, reachable from its context.
type tab struct {
	t       *testing.T
	mu      sync.Mutex
	errs    []string         // console errors, exceptions and Go panics seen
	allowed []*regexp.Regexp // errors a test expects
}

type tabKey struct{}

func tabOf(ctx context.Context) *tab {
	tb, _ := ctx.Value(tabKey{}).(*tab)
	if tb == nil {
		panic("browsertest: context does not come from open")
	}
	return tb
}

// goCrash matches what a Go program in wasm prints when it dies: the Go
// runtime writes stderr through console.log, not console.error.
var goCrash = regexp.MustCompile(`^(panic: |fatal error: |exit code: )`)

func (tb *tab) record(msg string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.errs = append(tb.errs, msg)
}

// unexpectedErrors returns the recorded errors no allow pattern matches.
func (tb *tab) unexpectedErrors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []string
	for _, e := range tb.errs {
		ok := false
		for _, re := range tb.allowed {
			if re.MatchString(e) {
				ok = true
				break
			}
		}
		if !ok {
			out = append(out, e)
		}
	}
	return out
}

// open loads path (relative to the site root, with any query or fragment)
// in a new tab of the shared browser at 1280x800, and returns the tab's
// context. It skips the test when GPUSCOPE_SITE_DIR is unset. When the test
// ends the tab closes; console errors, uncaught exceptions and Go panics
// seen in the tab fail the test unless allowed with allowConsoleErrors.
func open(t *testing.T, path string) context.Context {
	t.Helper()
	return openSized(t, path, viewportW, viewportH)
}

// openSized is open with another viewport, in CSS pixels (e.g. a phone's
// 390x844).
func openSized(t *testing.T, path string, width, height int64) context.Context {
	t.Helper()
	return openScaled(t, path, width, height, 1)
}

// openDraft is openSized at devicePixelRatio 0.5, for a test that reads
// the page's HTML, layout and state but no pixel of the canvas: the same
// CSS layout, a quarter of the canvas's pixels. Each frame the canvas
// changes costs the browser's GPU process (SwiftShader, on the CPU) in
// proportion to its pixels — 174 ms at 1,280×800 against 74 ms at ratio
// 0.5, measured while pipeline-parallel plays — so a test stepping
// through every lesson pays a half or less. Screenshots taken in such a
// tab are at half resolution; a test that looks at pixels uses open.
func openDraft(t *testing.T, path string, width, height int64) context.Context {
	t.Helper()
	return openScaled(t, path, width, height, 0.5)
}

// openScaled is openSized at a devicePixelRatio.
func openScaled(t *testing.T, path string, width, height int64, dpr float64) context.Context {
	t.Helper()
	if browserCtx == nil {
		t.Skip("browser tests need GPUSCOPE_SITE_DIR (make test sets it to site/dist)")
	}
	sideBySide(t)
	tb := &tab{t: t}
	// Each tab in a window of its own: a tab brought to the front of a
	// window shared with another would hide that one, and a hidden page
	// gets no animation frames (tests run side by side: sideBySide).
	c := chromedp.FromContext(browserCtx)
	id, err := target.CreateTarget("about:blank").WithNewWindow(true).Do(cdp.WithExecutor(browserCtx, c.Browser))
	if err != nil {
		t.Fatalf("open %s: a window: %v", path, err)
	}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithTargetID(id))
	ctx = context.WithValue(ctx, tabKey{}, tb)
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			text := headless.ConsoleText(ev.Args)
			switch {
			case ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert:
				tb.record("console.error: " + text)
			case goCrash.MatchString(text):
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
	t.Cleanup(func() {
		if t.Failed() {
			saveFailureScreenshot(ctx, t)
		}
		if errs := tb.unexpectedErrors(); len(errs) > 0 {
			t.Errorf("errors in the page console:\n  %s", strings.Join(errs, "\n  "))
		}
		cancel()
	})

	// Start recording #loader-text as soon as the document exists, so a test
	// can see the progress text even when the download is instant.
	// A new headless tab is hidden, and a hidden page gets no
	// requestAnimationFrame, so Ebiten would draw one frame and stop:
	// bring the tab to the front and let it believe it has focus.
	err = chromedp.Run(ctx,
		page.BringToFront(),
		emulation.SetFocusEmulationEnabled(true),
		chromedp.EmulateViewport(width, height, chromedp.EmulateScale(dpr)),
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(loaderRecorder).Do(ctx)
			return err
		}),
		chromedp.Navigate(baseURL+strings.TrimPrefix(path, "/")),
	)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return ctx
}

// alone are the tests that read or change what the whole browser or the
// shared server holds — the server's traffic log (traffic), the browser's
// cache, its download directory — which a test beside them would disturb.
// Every other test runs beside others (sideBySide): two at a time on a
// two-core machine (go test -parallel defaults to GOMAXPROCS), each in
// its own window; make test takes half the time it took one at a time.
var alone = map[string]bool{
	"TestWasmServedBrotli": true, "TestReadmeIframeSnippet": true, "TestEmbedPosterLoadsOnClick": true,
	"TestCatalogueFetchedOnDemand": true, "TestShareDialogPhone": true, "TestShareExportPNG": true,
	"TestShareExportWebM": true, "TestShareExportTrace": true, "TestBenchPage": true, "TestSoak": true,
}

// besides holds the tests already running side by side.
var besides sync.Map

// sideBySide lets a top-level test run beside the others (t.Parallel),
// unless it is one of alone; a test calls it at its start when it opens
// tabs only in subtests, and open calls it for the rest. A subtest is
// left as its test runs it.
func sideBySide(t *testing.T) {
	if strings.Contains(t.Name(), "/") || alone[t.Name()] {
		return
	}
	if _, was := besides.LoadOrStore(t, true); !was {
		t.Parallel()
	}
}

// loaderRecorder collects every distinct text #loader-text shows into
// window.__loaderTexts.
const loaderRecorder = `(() => {
  window.__loaderTexts = [];
  const note = (el) => {
    const s = el.textContent.trim();
    const all = window.__loaderTexts;
    if (s && all[all.length - 1] !== s) all.push(s);
  };
  document.addEventListener("DOMContentLoaded", () => {
    const el = document.getElementById("loader-text");
    if (!el) return;
    note(el);
    new MutationObserver(() => note(el)).observe(el, {childList: true, characterData: true, subtree: true});
  });
})();`

// allowConsoleErrors lets errors matching pattern appear in the tab's
// console without failing the test (e.g. a test feeding bad input).
func allowConsoleErrors(ctx context.Context, pattern string) {
	tb := tabOf(ctx)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.allowed = append(tb.allowed, regexp.MustCompile(pattern))
}

// consoleErrors returns every error recorded in the tab so far.
func consoleErrors(ctx context.Context) []string {
	tb := tabOf(ctx)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.errs...)
}

// waitReady waits up to 60 s for window.gpuscope.ready, failing the test at
// once if the loader reports a failure.
func waitReady(ctx context.Context) {
	tb := tabOf(ctx)
	tb.t.Helper()
	const probe = `(() => {
	  const l = window.gpuscopeLoader || {};
	  return {
	    ready: !!(window.gpuscope && window.gpuscope.ready),
	    failed: l.phase === "failed",
	    text: (document.getElementById("loader-text") || {}).textContent || "",
	  };
	})()`
	var st struct {
		Ready  bool   `json:"ready"`
		Failed bool   `json:"failed"`
		Text   string `json:"text"`
	}
	deadline := time.Now().Add(readyTimeout)
	for {
		if err := chromedp.Run(ctx, chromedp.Evaluate(probe, &st)); err != nil {
			tb.t.Fatalf("waitReady: %v", err)
		}
		switch {
		case st.Ready:
			return
		case st.Failed:
			tb.t.Fatalf("waitReady: the loader failed: %s", st.Text)
		case time.Now().After(deadline):
			tb.t.Fatalf("waitReady: window.gpuscope.ready not true after %v (loader says %q)", readyTimeout, st.Text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// evalJSON evaluates a JavaScript expression in the page (awaiting it if it
// is a promise), passes the value through JSON.stringify and decodes it into
// v with encoding/json. An exception or an undefined value fails the test.
// waitJSOrTimeout polls a JavaScript expression until it is true
// (reporting true) or timeout passes (false). A test may go on to its own
// check, which then says what was wrong: for what the page applies on
// its next Update (a knob's change), which a loaded machine may take
// longer than settle's frames to reach. waitJS fails the test instead.
func waitJSOrTimeout(ctx context.Context, expr string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := evalJSONErr(ctx, "!!("+expr+")", &ok); err == nil && ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func evalJSON(ctx context.Context, expr string, v any) {
	tb := tabOf(ctx)
	tb.t.Helper()
	if err := evalJSONErr(ctx, expr, v); err != nil {
		tb.t.Fatalf("evalJSON(%s): %v", expr, err)
	}
}

func evalJSONErr(ctx context.Context, expr string, v any) error {
	return headless.EvalJSON(ctx, expr, v)
}

// screenshot captures the viewport as PNG, saves it as out/screens/NAME.png
// at the repository root (for people to look at) and returns the PNG bytes.
func screenshot(ctx context.Context, name string) []byte {
	tb := tabOf(ctx)
	tb.t.Helper()
	var buf []byte
	if err := chromedp.Run(ctx, capturePNG(&buf)); err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := writeScreen(filepath.Join("..", "..", "out", "screens"), name, buf); err != nil {
		tb.t.Errorf("screenshot %s: %v", name, err)
	}
	return buf
}

// capturePNG is chromedp.CaptureScreenshot with Chromium's fast PNG
// encoding (optimizeForSpeed: zlib's fastest level; the same pixels, a
// larger file): a 1280×800 picture encodes in a fraction of the time,
// and make test takes a few hundred screenshots.
func capturePNG(buf *[]byte) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		*buf, err = page.CaptureScreenshot().WithFromSurface(true).WithFormat(page.CaptureScreenshotFormatPng).WithOptimizeForSpeed(true).Do(ctx)
		return err
	})
}

func saveFailureScreenshot(ctx context.Context, t *testing.T) {
	var buf []byte
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Run(sctx, capturePNG(&buf)); err != nil {
		t.Logf("failure screenshot: %v", err)
		return
	}
	dir := filepath.Join("testdata", "failed", "screens")
	if err := writeScreen(dir, t.Name(), buf); err != nil {
		t.Logf("failure screenshot: %v", err)
		return
	}
	t.Logf("failure screenshot: %s", filepath.Join(dir, screenFile(t.Name())))
}

func screenFile(name string) string {
	return strings.NewReplacer("/", "_", " ", "_", "#", "_", "?", "_").Replace(name) + ".png"
}

func writeScreen(dir, name string, png []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, screenFile(name)), png, 0o644)
}

// decodePNG decodes a screenshot.
func decodePNG(t *testing.T, buf []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("decoding screenshot: %v", err)
	}
	return img
}

// pixelAt returns the colour at (x, y) of a screenshot, in CSS pixels at
// device pixel ratio 1.
func pixelAt(img image.Image, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

// countPixels counts the pixels in r (clipped to the image) whose colour is
// within tol of want in each of R, G and B (alpha is ignored: screenshots
// are opaque).
func countPixels(img image.Image, r image.Rectangle, want color.RGBA, tol uint8) int {
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := pixelAt(img, x, y)
			if near(c.R, want.R, tol) && near(c.G, want.G, tol) && near(c.B, want.B, tol) {
				n++
			}
		}
	}
	return n
}

func near(a, b, tol uint8) bool {
	if a > b {
		return a-b <= tol
	}
	return b-a <= tol
}

// rect is a DOMRect from getBoundingClientRect, in CSS pixels.
type rect struct {
	X, Y, Width, Height float64
}

// image returns r as an integer rectangle (rounded inwards).
func (r rect) image() image.Rectangle {
	return image.Rect(int(r.X+0.999), int(r.Y+0.999), int(r.X+r.Width), int(r.Y+r.Height))
}

// elementRect returns the bounding client rect of the element matching a
// CSS selector.
func elementRect(ctx context.Context, selector string) rect {
	var r rect
	sel, _ := json.Marshal(selector)
	evalJSON(ctx, `(() => { const b = document.querySelector(`+string(sel)+`).getBoundingClientRect();
	  return {X: b.x, Y: b.y, Width: b.width, Height: b.height}; })()`, &r)
	return r
}

// openBlank opens a tab on a small static file of the site (not a page
// that starts the simulator), for tests that navigate elsewhere next. The
// browser may ask for /favicon.ico there; that 404 is not the test's.
func openBlank(t *testing.T) context.Context {
	t.Helper()
	ctx := open(t, "favicon.svg")
	allowConsoleErrors(ctx, "favicon.ico")
	return ctx
}
