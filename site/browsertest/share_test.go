package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gpuscope/gpuscope/engine/parallel"
)

// Issue 7: the Share / Embed dialog (wasm/share.go) and the exports of
// what is on screen.

// shareOpen clicks #btn-share and waits for the dialog to be open.
func shareOpen(t *testing.T, ctx context.Context) {
	t.Helper()
	chromedpRun(t, ctx, chromedp.Click("#btn-share", chromedp.ByQuery))
	deadline := time.Now().Add(5 * time.Second)
	for {
		var open bool
		evalJSON(ctx, `!!(document.getElementById("share-dialog") || {}).open`, &open)
		if open {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("#share-dialog did not open after a click on #btn-share")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shareSet sets a form control's value (or a checkbox's checked state) as
// a reader would, firing its change event.
func shareSet(t *testing.T, ctx context.Context, id string, v any) {
	t.Helper()
	idJSON, _ := json.Marshal(id)
	vJSON, _ := json.Marshal(v)
	var ok bool
	evalJSON(ctx, `(() => { const el = document.getElementById(`+string(idJSON)+`); const v = `+string(vJSON)+`;
	  if (typeof v === "boolean") el.checked = v; else el.value = v;
	  el.dispatchEvent(new Event("input", {bubbles: true}));
	  el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, &ok)
}

func shareValue(ctx context.Context, id string) string {
	var s string
	idJSON, _ := json.Marshal(id)
	evalJSON(ctx, `document.getElementById(`+string(idJSON)+`).value`, &s)
	return s
}

// snippetSrc is the iframe's src in a snippet, its attribute unescaped.
func snippetSrc(t *testing.T, snippet string) string {
	t.Helper()
	m := regexp.MustCompile(`<iframe src="([^"]+)"`).FindStringSubmatch(snippet)
	if m == nil {
		t.Fatalf("no iframe src in the snippet %q", snippet)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// The dialog on the full page: the snippet carries the state and follows
// the form, a bad origin is refused with a message naming the field, the
// page's keys sleep while it is open, every control is reachable by Tab
// with a visible focus, Escape closes it and the focus returns; the
// snippet's frame reopens the same state.
func TestShareDialog(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=3&gpus=12&bytes=64MiB")
	waitReady(ctx)
	settle(ctx)
	before := state(ctx)
	screenshot(ctx, "share-button-1280x800")
	shareOpen(t, ctx)
	screenshot(ctx, "share-dialog-1280x800")
	var focus string
	evalJSON(ctx, `document.activeElement.closest("#share-dialog") ? document.activeElement.id || document.activeElement.tagName : "outside"`, &focus)
	t.Logf("focus on open: %s", focus)

	var link string
	evalJSON(ctx, `document.getElementById("share-link").value === location.href && location.href`, &link)
	if !strings.Contains(link, "scenario=ring-allreduce") {
		t.Errorf("#share-link = %q, want location.href with the state", link)
	}
	snippet := shareValue(ctx, "share-snippet")
	for _, want := range []string{
		`<iframe src="` + baseURL + `embed.html#`, `loading="lazy"`, `title="gpuscope: `, `allow="fullscreen"`, `aspect-ratio`,
		"scenario=ring-allreduce", "step=3", "gpus=12", "lang=en",
	} {
		if !strings.Contains(snippet, want) {
			t.Errorf("snippet lacks %q:\n%s", want, snippet)
		}
	}
	if strings.Contains(snippet, "hide=") || strings.Contains(snippet, "theme=") {
		t.Errorf("the default snippet sets options: %s", snippet)
	}

	// The form: hide the knobs, a dark theme, load at once (for the round
	// trip below), Chinese.
	chromedpRun(t, ctx, chromedp.Click("#share-hide-knobs", chromedp.ByQuery))
	shareSet(t, ctx, "share-theme", "dark")
	shareSet(t, ctx, "share-load", "auto")
	snippet = shareValue(ctx, "share-snippet")
	for _, want := range []string{"hide=knobs", "theme=dark", "load=auto", "step=3", "gpus=12"} {
		if !strings.Contains(snippet, want) {
			t.Errorf("after hide knobs, theme dark, load auto: the snippet lacks %q:\n%s", want, snippet)
		}
	}
	shareSet(t, ctx, "share-lang", "zh")
	if s := shareValue(ctx, "share-snippet"); !strings.Contains(s, "lang=zh") || !strings.Contains(s, `title="gpuscope: `) {
		t.Errorf("with lang zh: %s", s)
	}
	shareSet(t, ctx, "share-lang", "en")
	good := shareValue(ctx, "share-snippet")

	// A bad origin: an error naming the field; the snippet stays.
	shareSet(t, ctx, "share-origins", "ftp://nope.example/path")
	var bad struct {
		Error   string `json:"error"`
		Invalid string `json:"invalid"`
		Role    string `json:"role"`
	}
	evalJSON(ctx, `(() => { const e = document.getElementById("share-error");
	  return {error: e.textContent, role: e.getAttribute("role"),
	          invalid: document.getElementById("share-origins").getAttribute("aria-invalid")}; })()`, &bad)
	if !strings.Contains(bad.Error, "origins") || bad.Role != "alert" || bad.Invalid != "true" {
		t.Errorf("bad origin: #share-error %+v; want a role=alert message naming origins and aria-invalid", bad)
	}
	if s := shareValue(ctx, "share-snippet"); s != good {
		t.Errorf("a bad origin changed the snippet:\n%s\nwant\n%s", s, good)
	}
	var ok bool
	evalJSON(ctx, `(document.getElementById("share-error").scrollIntoView({block: "center"}), true)`, &ok)
	screenshot(ctx, "share-dialog-1280x800-error")
	shareSet(t, ctx, "share-origins", "https://Blog.Example:443/")
	evalJSON(ctx, `document.getElementById("share-error").textContent`, &bad.Error)
	snippet = shareValue(ctx, "share-snippet")
	if bad.Error != "" || !strings.Contains(snippet, "origins=https%3A%2F%2Fblog.example") {
		t.Errorf("a good origin: error %q, snippet %s", bad.Error, snippet)
	}

	// A range of steps goes into the snippet; one the lesson cannot
	// hold is an error naming steps, and the snippet stays (issue 41).
	shareSet(t, ctx, "share-steps", "2-3")
	snippet = shareValue(ctx, "share-snippet")
	if !strings.Contains(snippet, "steps=2-3") {
		t.Errorf("steps 2-3: the snippet lacks steps=2-3:\n%s", snippet)
	}
	shareSet(t, ctx, "share-steps", "2-99")
	evalJSON(ctx, `(() => { const e = document.getElementById("share-error");
	  return {error: e.textContent, role: e.getAttribute("role"),
	          invalid: document.getElementById("share-steps").getAttribute("aria-invalid")}; })()`, &bad)
	if !strings.Contains(bad.Error, "steps") || !strings.Contains(bad.Error, "2-99") || bad.Invalid != "true" {
		t.Errorf("steps 2-99: #share-error %+v; want a message naming steps and the value, and aria-invalid", bad)
	}
	if s := shareValue(ctx, "share-snippet"); s != snippet {
		t.Errorf("a bad range of steps changed the snippet:\n%s\nwant\n%s", s, snippet)
	}
	shareSet(t, ctx, "share-steps", "")
	if s := shareValue(ctx, "share-snippet"); strings.Contains(s, "steps=") || !strings.Contains(s, "origins=") {
		t.Errorf("steps emptied: the snippet %s; want every step (no steps=) and the origins kept", s)
	}

	// Copying says so (by the Clipboard API or execCommand), or says how
	// to copy by hand.
	chromedpRun(t, ctx, chromedp.Click("#share-copy", chromedp.ByQuery))
	time.Sleep(300 * time.Millisecond)
	if s := text(ctx, "#share-status"); s == "" {
		t.Errorf("#share-status is empty after Copy")
	}
	screenshot(ctx, "share-dialog-1280x800-form")

	// The page's keys sleep while the dialog is open.
	evalJSON(ctx, `document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true})) || true`, &ok)
	evalJSON(ctx, `document.dispatchEvent(new KeyboardEvent("keydown", {key: " ", bubbles: true})) || true`, &ok)
	settle(ctx)
	if s := state(ctx); s.Step != 3 || s.Playing {
		t.Errorf("keys reached the page under the dialog: step %d, playing %v", s.Step, s.Playing)
	}

	// Tab reaches every control, inside the dialog, with a visible focus.
	want := []string{"share-close", "share-link", "share-copy-link", "share-theme", "share-motion", "share-lang",
		"share-load", "share-steps", "share-autoplay", "share-origins", "share-snippet", "share-copy", "share-png", "share-webm"}
	for _, p := range []string{"title", "narration", "buttons", "timeline", "speed", "lang", "knobs", "numbers", "share"} {
		want = append(want, "share-hide-"+p)
	}
	var seen []string
	for range 2 * len(want) {
		chromedpRun(t, ctx, chromedp.KeyEvent(kb.Tab))
		var f struct {
			ID      string  `json:"id"`
			Body    bool    `json:"body"`
			Inside  bool    `json:"inside"`
			Outline string  `json:"outline"`
			Width   float64 `json:"width"`
		}
		evalJSON(ctx, `(() => { const a = document.activeElement; const s = getComputedStyle(a);
		  return {id: a.id, body: a === document.body, inside: !!a.closest("#share-dialog"), outline: s.outlineStyle, width: parseFloat(s.outlineWidth)}; })()`, &f)
		if f.Body {
			continue // past the last control the browser's own UI takes the focus
		}
		if !f.Inside {
			t.Fatalf("Tab left the dialog for #%s", f.ID)
		}
		if f.Outline == "none" || f.Width < 2 {
			t.Errorf("#%s has no visible focus (outline %s %.1fpx)", f.ID, f.Outline, f.Width)
		}
		if !slices.Contains(seen, f.ID) {
			seen = append(seen, f.ID)
		}
	}
	for _, id := range want {
		if !slices.Contains(seen, id) {
			t.Errorf("Tab never reached #%s (reached %v)", id, seen)
		}
	}

	// Escape closes it; the focus returns to the button.
	chromedpRun(t, ctx, chromedp.KeyEvent(kb.Escape))
	time.Sleep(200 * time.Millisecond)
	var after struct {
		Open   bool   `json:"open"`
		Active string `json:"active"`
	}
	evalJSON(ctx, `({open: document.getElementById("share-dialog").open, active: document.activeElement.id})`, &after)
	if after.Open || after.Active != "btn-share" {
		t.Errorf("after Escape: open %v, focus on #%s; want closed, focus on #btn-share", after.Open, after.Active)
	}

	// The round trip: the snippet's frame shows the same moment.
	src := snippetSrc(t, snippet)
	if !strings.HasPrefix(src, baseURL+"embed.html#") {
		t.Fatalf("snippet src %q is not %sembed.html#…", src, baseURL)
	}
	frame := open(t, strings.TrimPrefix(src, baseURL))
	waitReady(frame)
	got := state(frame)
	if got.Scenario != before.Scenario || got.Step != before.Step || !mapsEqual(got.Config, before.Config) {
		t.Errorf("the snippet's frame shows %s step %d %v; want %s step %d %v",
			got.Scenario, got.Step, got.Config, before.Scenario, before.Step, before.Config)
	}
	var classes string
	evalJSON(frame, `document.documentElement.className + " " + document.documentElement.dataset.theme`, &classes)
	if !strings.Contains(classes, "hide-knobs") || !strings.Contains(classes, "dark") {
		t.Errorf("the snippet's frame: <html> %q; want hide-knobs and theme dark", classes)
	}
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The dialog in a small frame (640x400): embed.html has the button too,
// the dialog fits the frame and scrolls inside itself, and its form starts
// from the frame's own options.
func TestShareDialogEmbed(t *testing.T) {
	ctx := openSized(t, "embed.html#scenario=ring-allreduce&step=2&gpus=6&load=auto&steps=2-4", 640, 400)
	waitReady(ctx)
	settle(ctx)
	screenshot(ctx, "share-button-embed-640x400")
	shareOpen(t, ctx)
	var box struct {
		X, Y, W, H             float64
		ScrollH, ClientH       float64
		ScrollW, ClientW       float64
		Load, Lang, SnippetSrc string
		Steps                  string
	}
	evalJSON(ctx, `(() => { const d = document.getElementById("share-dialog"); const r = d.getBoundingClientRect();
	  return {X: r.x, Y: r.y, W: r.width, H: r.height, ScrollH: d.scrollHeight, ClientH: d.clientHeight,
	          ScrollW: d.scrollWidth, ClientW: d.clientWidth,
	          Load: document.getElementById("share-load").value, Lang: document.getElementById("share-lang").value,
	          Steps: document.getElementById("share-steps").value}; })()`, &box)
	if box.X < 0 || box.Y < 0 || box.X+box.W > 640 || box.Y+box.H > 400 || box.H > 0.9*400+1 {
		t.Errorf("the dialog is at %+v; want inside the 640x400 frame, at most 90vh high", box)
	}
	if box.ScrollH <= box.ClientH {
		t.Errorf("the dialog does not scroll inside itself (scrollHeight %v, clientHeight %v)", box.ScrollH, box.ClientH)
	}
	if box.ScrollW > box.ClientW+1 {
		t.Errorf("the dialog overflows sideways (scrollWidth %v > clientWidth %v)", box.ScrollW, box.ClientW)
	}
	if box.Load != "auto" || box.Lang != "en" || box.Steps != "2-4" {
		t.Errorf("the form starts with load %q, lang %q, steps %q; want the frame's auto, en, 2-4", box.Load, box.Lang, box.Steps)
	}
	snippet := shareValue(ctx, "share-snippet")
	for _, want := range []string{`loading="lazy"`, `title="gpuscope: `, `allow="fullscreen"`, "aspect-ratio", "scenario=ring-allreduce", "step=2", "gpus=6", "load=auto", "steps=2-4"} {
		if !strings.Contains(snippet, want) {
			t.Errorf("embed: snippet lacks %q:\n%s", want, snippet)
		}
	}
	screenshot(ctx, "share-dialog-embed-640x400")
	// Scrolled to its end, the export buttons show.
	var ok bool
	evalJSON(ctx, `(() => { const d = document.getElementById("share-dialog"); d.scrollTop = d.scrollHeight; return true; })()`, &ok)
	time.Sleep(100 * time.Millisecond)
	screenshot(ctx, "share-dialog-embed-640x400-end")
	chromedpRun(t, ctx, chromedp.Click("#share-close", chromedp.ByQuery))
	time.Sleep(100 * time.Millisecond)
	evalJSON(ctx, `!document.getElementById("share-dialog").open && document.activeElement.id === "btn-share"`, &ok)
	if !ok {
		t.Errorf("#share-close did not close the dialog and return the focus to #btn-share")
	}
}

// On a phone the dialog fits the width and nothing overflows sideways;
// in Chinese it speaks Chinese, and follows a language change.
func TestShareDialogPhone(t *testing.T) {
	ctx := openSized(t, "index.html#scenario=ring-allreduce&step=2&lang=zh&theme=dark", 390, 844)
	waitReady(ctx)
	settle(ctx)
	shareOpen(t, ctx)
	if got := text(ctx, "#share-title"); got != "分享 / 嵌入" {
		t.Errorf("zh: #share-title = %q", got)
	}
	if got := shareValue(ctx, "share-lang"); got != "zh" {
		t.Errorf("zh: #share-lang = %q, want the page's zh", got)
	}
	var box struct{ X, W, ScrollW, ClientW, H float64 }
	evalJSON(ctx, `(() => { const d = document.getElementById("share-dialog"); const r = d.getBoundingClientRect();
	  return {X: r.x, W: r.width, H: r.height, ScrollW: d.scrollWidth, ClientW: d.clientWidth}; })()`, &box)
	if box.X < 0 || box.X+box.W > 390 || box.ScrollW > box.ClientW+1 || box.H > 0.9*844+1 {
		t.Errorf("phone: the dialog is %+v; want inside 390 px, no sideways overflow, at most 90vh", box)
	}
	screenshot(ctx, "share-dialog-390x844")
	if r := command(ctx, `{type: "set", lang: "en"}`); !r.OK {
		t.Fatalf("set lang en: %+v", r)
	}
	settle(ctx)
	if got := text(ctx, "#share-png"); got != "Save picture (PNG)" {
		t.Errorf("after switching to English, #share-png = %q", got)
	}
}

// downloads lets the browser save downloads into a new directory, for the
// duration of the test.
func downloads(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	chromedpRun(t, ctx, browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(dir))
	t.Cleanup(func() {
		_ = chromedp.Run(ctx, browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorDefault))
	})
	return dir
}

// waitFile waits for dir/name to be complete (the browser writes a
// .crdownload first).
func waitFile(t *testing.T, dir, name string, timeout time.Duration) []byte {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && len(b) > 0 {
			return b
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("no download %s after %v (the directory holds %v)", name, timeout, names)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type lastExport struct {
	Type   string `json:"type"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
	Mime   string `json:"mime"`
	Name   string `json:"name"`
}

func waitExport(t *testing.T, ctx context.Context, typ string, timeout time.Duration) lastExport {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var e lastExport
		evalJSON(ctx, `window.gpuscope.lastExport || {}`, &e)
		if e.Type == typ {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s export after %v (lastExport %+v, status %q)", typ, timeout, e, text(ctx, "#share-status"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// PNG: the picture as drawn — the stage only, not the canvas under the
// side panel — with a caption band below it naming the lesson, the step,
// the knobs and the link.
func TestShareExportPNG(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=2&gpus=8")
	waitReady(ctx)
	settle(ctx)
	dir := downloads(t, ctx)
	shareOpen(t, ctx)
	chromedpRun(t, ctx, chromedp.Click("#share-png", chromedp.ByQuery))
	e := waitExport(t, ctx, "png", 15*time.Second)
	var canvas struct{ W, H int }
	evalJSON(ctx, `(() => { const s = document.getElementById("stage").getBoundingClientRect(); return {W: Math.round(s.width * devicePixelRatio), H: Math.round(s.height * devicePixelRatio)}; })()`, &canvas)
	if abs(e.Width-canvas.W) > 1 || e.Height <= canvas.H || e.Bytes < 10_000 || e.Name != "gpuscope-ring-allreduce-step2.png" {
		t.Fatalf("lastExport %+v; want the stage's %d wide, more than its %d high (a caption), > 10 kB, gpuscope-ring-allreduce-step2.png", e, canvas.W, canvas.H)
	}
	if s := text(ctx, "#share-status"); !strings.Contains(s, e.Name) {
		t.Errorf("#share-status = %q; want it to name %s", s, e.Name)
	}
	raw := waitFile(t, dir, e.Name, 10*time.Second)
	if len(raw) != e.Bytes {
		t.Errorf("downloaded %d bytes; lastExport says %d", len(raw), e.Bytes)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the download is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != e.Width || b.Dy() != e.Height {
		t.Fatalf("the PNG is %v; lastExport says %dx%d", b, e.Width, e.Height)
	}
	// The caption band: one background colour with text in it, unlike
	// the picture (the ring of GPUs is there, above it).
	band := image.Rect(0, canvas.H+2, e.Width, e.Height)
	bg := pixelAt(img, e.Width-2, e.Height-2)
	same := countPixels(img, band, bg, 4)
	total := band.Dx() * band.Dy()
	if same < total*7/10 || same == total {
		t.Errorf("caption band: %d of %d pixels are its background %v; want most, not all (text)", same, total, bg)
	}
	pic := image.Rect(0, 0, e.Width, canvas.H)
	if n := countPixels(img, pic, bg, 4); n > pic.Dx()*pic.Dy()*9/10 {
		t.Errorf("the picture is %d%% the caption's background: no picture", 100*n/(pic.Dx()*pic.Dy()))
	}
	st := elementRect(ctx, "#stage")
	if sectors, _ := rims(img, st, 8); slices.Min(sectors) < 5 {
		t.Errorf("no ring of 8 GPUs in the exported picture (sectors %v)", sectors)
	}
	if err := os.MkdirAll(filepath.Join("..", "..", "out", "screens"), 0o755); err == nil {
		_ = os.WriteFile(filepath.Join("..", "..", "out", "screens", "share-export.png"), raw, 0o644)
	}
}

// WebM: five seconds of the lesson playing, the button counting down
// meanwhile; the lesson is paused again after. (Step 3 has a time line:
// playing a still step would go on to the next.)
func TestShareExportWebM(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=3")
	waitReady(ctx)
	settle(ctx)
	dir := downloads(t, ctx)
	shareOpen(t, ctx)
	chromedpRun(t, ctx, chromedp.Click("#share-webm", chromedp.ByQuery))
	time.Sleep(1500 * time.Millisecond)
	var rec struct {
		Disabled bool   `json:"disabled"`
		Text     string `json:"text"`
	}
	evalJSON(ctx, `(() => { const b = document.getElementById("share-webm"); return {disabled: b.disabled, text: b.textContent}; })()`, &rec)
	if !rec.Disabled || !strings.Contains(rec.Text, "Recording") {
		t.Errorf("while recording the button is %+v; want disabled with a countdown", rec)
	}
	if s := state(ctx); !s.Playing {
		t.Errorf("the lesson is not playing while recording")
	}
	e := waitExport(t, ctx, "webm", 20*time.Second)
	if e.Bytes < 1000 || !strings.HasPrefix(e.Mime, "video/webm") || e.Name != "gpuscope-ring-allreduce-step3.webm" {
		t.Errorf("lastExport %+v; want > 1 kB of video/webm named gpuscope-ring-allreduce-step3.webm", e)
	}
	raw := waitFile(t, dir, e.Name, 10*time.Second)
	if !bytes.HasPrefix(raw, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Errorf("the download does not start with the EBML (WebM) header: % x", raw[:min(4, len(raw))])
	}
	settle(ctx)
	evalJSON(ctx, `(() => { const b = document.getElementById("share-webm"); return {disabled: b.disabled, text: b.textContent}; })()`, &rec)
	if rec.Disabled || rec.Text != "Record 5 s (WebM)" {
		t.Errorf("after recording the button is %+v", rec)
	}
	if s := state(ctx); s.Playing {
		t.Errorf("the lesson still plays after recording; it was paused before")
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Trace: a step with a plan downloads as Chrome Trace Event JSON — a
// process a pipeline stage, each stage's compute thread ending at the step
// time — whose otherData names the gpuscope plan command that prints the
// same step natively: run, it gives the same step_s. A lesson without a
// plan has no such button.
func TestShareExportTrace(t *testing.T) {
	ctx := open(t, "index.html#scenario=sandbox&model=gpt3-175b&gpus=512&tp=8&pp=4&micro_batch=1&global_batch=128")
	waitReady(ctx)
	settle(ctx)
	dir := downloads(t, ctx)
	shareOpen(t, ctx)
	var hidden bool
	evalJSON(ctx, `document.getElementById("share-trace").hidden`, &hidden)
	if hidden {
		t.Fatal("#share-trace is hidden on the sandbox's plan")
	}
	chromedpRun(t, ctx, chromedp.Click("#share-trace", chromedp.ByQuery))
	e := waitExport(t, ctx, "trace", 15*time.Second)
	if e.Name != "gpuscope-sandbox-step1.trace.json" || e.Bytes < 1000 {
		t.Fatalf("lastExport %+v; want gpuscope-sandbox-step1.trace.json of more than 1 kB", e)
	}
	raw := waitFile(t, dir, e.Name, 10*time.Second)
	var tr parallel.Trace // the trace as the engine writes it
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("the download is not JSON: %v", err)
	}
	end := map[int]float64{}
	for _, ev := range tr.TraceEvents {
		if ev.Ph == "X" && ev.Tid == 1 {
			end[ev.Pid] = max(end[ev.Pid], ev.Ts+ev.Dur)
		}
	}
	if len(end) != 4 {
		t.Errorf("%d stages' compute threads; want PP 4", len(end))
	}
	stepS, _ := tr.OtherData["step_s"].(float64)
	cmdLine, _ := tr.OtherData["command"].(string)
	for pid, us := range end {
		if d := us/1e6 - stepS; d > 1e-9 || d < -1e-9 {
			t.Errorf("stage %d ends at %.9g s; the step is %.9g s", pid-1, us/1e6, stepS)
		}
	}
	args := strings.Fields(cmdLine)
	if len(args) < 3 || args[0] != "gpuscope" || args[1] != "plan" {
		t.Fatalf("otherData.command %q", cmdLine)
	}
	var native struct {
		Time struct {
			Step float64 `json:"step_s"`
		} `json:"time"`
	}
	cli(t, &native, append(args[1:], "--json")...)
	if d := native.Time.Step - stepS; d > 1e-9*native.Time.Step || d < -1e-9*native.Time.Step {
		t.Errorf("%s gives step_s %.9g; the page's trace %.9g", cmdLine, native.Time.Step, stepS)
	}
	// A lesson without a plan offers no trace.
	chromedpRun(t, ctx, chromedp.Evaluate(`document.getElementById("share-dialog").close()`, nil))
	if r := command(ctx, `{type: "set", scenario: "ring-allreduce"}`); !r.OK {
		t.Fatalf("set scenario ring-allreduce: %+v", r)
	}
	settle(ctx)
	shareOpen(t, ctx)
	evalJSON(ctx, `document.getElementById("share-trace").hidden`, &hidden)
	if !hidden {
		t.Error("#share-trace shown on ring-allreduce, which has no plan")
	}
}
