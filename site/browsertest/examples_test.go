package browsertest

// Tests of what authors use to embed gpuscope in their own pages (issue 7):
// site/embed.js, the example pages in site/examples/, the Hugo shortcode
// and the Jekyll include.

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// examplesDir is site/examples, relative to this package.
var examplesDir = filepath.Join("..", "examples")

// exampleFrame is what the tests read of an <iframe> in a page.
type exampleFrame struct {
	ID      string `json:"id"`
	SrcAttr string `json:"srcAttr"` // as written (embed.js may have rewritten it)
	Src     string `json:"src"`     // resolved
	Title   string `json:"title"`
	Loading string `json:"loading"`
	Allow   string `json:"allow"`
	Width   string `json:"width"`  // style.width
	Aspect  string `json:"aspect"` // style.aspectRatio
	Border  string `json:"border"` // style.borderStyle
	Height  string `json:"height"` // style.height
}

const readFrames = `[...document.querySelectorAll("iframe")].map((f) => ({
  id: f.id, srcAttr: f.getAttribute("src") || "", src: f.src, title: f.title,
  loading: f.getAttribute("loading") || "", allow: f.getAttribute("allow") || "",
  width: f.style.width, aspect: f.style.aspectRatio, border: f.style.borderStyle, height: f.style.height}))`

func frames(ctx context.Context) []exampleFrame {
	var fs []exampleFrame
	evalJSON(ctx, readFrames, &fs)
	return fs
}

// checkFrameAttrs checks what every gpuscope iframe in the examples has:
// a title, loading="lazy", allow="fullscreen" and the 16:10 style.
func checkFrameAttrs(t *testing.T, where string, f exampleFrame) {
	t.Helper()
	if f.Title == "" || f.Loading != "lazy" || f.Allow != "fullscreen" ||
		f.Width != "100%" || f.Aspect != "16 / 10" || f.Border != "none" {
		t.Errorf("%s: iframe %+v; want a title, loading=lazy, allow=fullscreen and style width:100%%; aspect-ratio:16/10; border:0", where, f)
	}
}

// siteOrigin is the test server's origin (baseURL without the slash).
func siteOrigin() string { return strings.TrimSuffix(baseURL, "/") }

// waitFramesLoaded scrolls each iframe into view (they load lazily) and
// waits until its document has loaded. The example pages are on the
// site's origin, so the frames' documents can be read.
func waitFramesLoaded(t *testing.T, ctx context.Context) {
	t.Helper()
	var n int
	evalJSON(ctx, `document.querySelectorAll("iframe").length`, &n)
	for i := 0; i < n; i++ {
		deadline := time.Now().Add(20 * time.Second)
		for {
			var ok bool
			evalJSON(ctx, fmt.Sprintf(`(() => { const f = document.querySelectorAll("iframe")[%d];
			  f.scrollIntoView({block: "center"});
			  const d = f.contentDocument;
			  return !!d && d.readyState === "complete" && d.location.href !== "about:blank"; })()`, i), &ok)
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("iframe %d has not loaded after 20 s", i)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// The example pages load without console errors (in the page or in its
// frames), use no inline script, and their iframes have the attributes
// authors should copy. embed.js puts the page's origin on the driven
// frames' allow-lists and leaves the pasted one alone.
func TestExamplePages(t *testing.T) {
	origins := "origins=" + url.QueryEscape(siteOrigin())

	t.Run("plain", func(t *testing.T) {
		ctx := open(t, "examples/plain.html")
		noInlineScript(t, ctx)
		fs := frames(ctx)
		if len(fs) != 2 {
			t.Fatalf("%d iframes, want 2: %+v", len(fs), fs)
		}
		for i, f := range fs {
			checkFrameAttrs(t, fmt.Sprintf("iframe %d", i), f)
		}
		if want := "../embed.html#scenario=ring-allreduce&step=1&lang=en"; fs[0].SrcAttr != want {
			t.Errorf("the pasted iframe's src is %q, want %q", fs[0].SrcAttr, want)
		}
		if want := baseURL + "embed.html#scenario=ring-allreduce&step=1&lang=en&hide=share&" + origins; fs[1].ID != "ring-sim" || fs[1].Src != want {
			t.Errorf("the driven iframe: id %q src %q; want ring-sim with %q (embed.js adds the page's origin)", fs[1].ID, fs[1].Src, want)
		}
		var buttons []string
		evalJSON(ctx, `[...document.querySelectorAll(".controls button")].map((b) => b.textContent.trim())`, &buttons)
		if !reflect.DeepEqual(buttons, []string{"Show the ring", "Play"}) {
			t.Errorf("buttons %q, want Show the ring, Play", buttons)
		}
		waitFramesLoaded(t, ctx)
		// A reader's click before the simulation has loaded.
		chromedpRun(t, ctx, chromedp.Click("#show-ring", chromedp.ByQuery))
		time.Sleep(time.Second)
		screenshot(ctx, "example-plain")
	})

	t.Run("scrollytelling", func(t *testing.T) {
		ctx := open(t, "examples/scrollytelling.html")
		noInlineScript(t, ctx)
		fs := frames(ctx)
		if len(fs) != 1 {
			t.Fatalf("%d iframes, want 1: %+v", len(fs), fs)
		}
		f := fs[0]
		checkFrameAttrs(t, "the story's iframe", f)
		if !strings.HasPrefix(f.Src, baseURL+"embed.html#scenario=ring-allreduce&") ||
			!strings.Contains(f.Src, "&load=auto&") || !strings.Contains(f.Src, "narration,") ||
			!strings.HasSuffix(f.Src, "&"+origins) {
			t.Errorf("the story's iframe src = %q; want ring-allreduce, load=auto, narration hidden and %s", f.Src, origins)
		}
		// Desktop: the simulator to the right of the story, staying on
		// screen as the story scrolls; the scene at the middle is active.
		story, sim := elementRect(ctx, ".story"), elementRect(ctx, "#story-sim")
		if sim.X < story.X+story.Width || sim.Width < 500 {
			t.Errorf("desktop: simulator %+v not to the right of the story %+v", sim, story)
		}
		for i := 0; i < 5; i++ {
			scrollScene(t, ctx, i)
			var active []int
			evalJSON(ctx, `[...document.querySelectorAll(".scene")].flatMap((s, i) => s.classList.contains("active") ? [i] : [])`, &active)
			if !reflect.DeepEqual(active, []int{i}) {
				t.Errorf("scene %d scrolled to the middle: active scenes %v", i, active)
			}
			if r := elementRect(ctx, "#story-sim"); r.Y < 0 || r.Y+r.Height > viewportH {
				t.Errorf("scene %d: the simulator %+v has left the %d px viewport", i, r, viewportH)
			}
		}
		screenshot(ctx, "example-scrollytelling")
	})

	t.Run("scrollytelling-phone", func(t *testing.T) {
		ctx := openSized(t, "examples/scrollytelling.html", 390, 844)
		sim, story := elementRect(ctx, "#story-sim"), elementRect(ctx, ".story")
		if sim.Width < 370 || story.Y < sim.Y+sim.Height-1 {
			t.Errorf("phone: simulator %+v and story %+v; want the simulator full width above the story", sim, story)
		}
		scrollScene(t, ctx, 3)
		if r := elementRect(ctx, "#story-sim"); r.Y < -1 || r.Y > 1 {
			t.Errorf("phone: after scrolling, the simulator is at y=%.0f; want it stuck to the top", r.Y)
		}
		screenshot(ctx, "example-scrollytelling-phone")
	})
}

// scrollScene scrolls scene i of the scrollytelling page to the middle of
// the viewport and lets the IntersectionObserver see it.
func scrollScene(t *testing.T, ctx context.Context, i int) {
	t.Helper()
	var ok bool
	evalJSON(ctx, fmt.Sprintf(`(() => { document.querySelectorAll(".scene")[%d].scrollIntoView({block: "center"}); return true; })()`, i), &ok)
	settle(ctx)
	time.Sleep(200 * time.Millisecond)
}

// noInlineScript checks the page would run under a CSP without
// 'unsafe-inline': no <script> without src, no on* attributes, no
// javascript: URLs.
func noInlineScript(t *testing.T, ctx context.Context) {
	t.Helper()
	var bad []string
	evalJSON(ctx, `[...document.querySelectorAll("*")].flatMap((el) => {
	  const out = [];
	  if (el.tagName === "SCRIPT" && !el.src) out.push("inline <script>");
	  for (const a of el.attributes) {
	    if (/^on/i.test(a.name)) out.push(el.tagName + " " + a.name);
	    if (/^\s*javascript:/i.test(a.value)) out.push(el.tagName + " " + a.name + "=javascript:");
	  }
	  return out; })`, &bad)
	if len(bad) > 0 {
		t.Errorf("inline script in the page: %v", bad)
	}
}

// gpuscopeRecorder runs in every document of a tab before its own scripts
// and keeps the gpuscope events the page receives in
// window.__gpuscopeEvents.
const gpuscopeRecorder = `window.__gpuscopeEvents = [];
addEventListener("message", (e) => {
  if (e.data && e.data.source === "gpuscope") window.__gpuscopeEvents.push(e.data);
});`

// exEvent is an event the frame posted to its parent.
type exEvent struct {
	Type   string     `json:"type"`
	Step   int        `json:"step"`
	Height float64    `json:"height"`
	State  *pageState `json:"state"`
}

// waitFor polls the JavaScript expression list (an array of events) until
// one satisfies ok, and returns it; it fails the test after timeout.
func waitFor(t *testing.T, ctx context.Context, list string, timeout time.Duration, what string, ok func(exEvent) bool) exEvent {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var evs []exEvent
		evalJSON(ctx, list, &evs)
		for _, e := range evs {
			if ok(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			types := make([]string, len(evs))
			for i, e := range evs {
				types[i] = e.Type
			}
			t.Fatalf("no %s after %v (events so far: %v); the frame side of the postMessage API may be missing", what, timeout, types)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The scrollytelling page drives its simulator: with the simulation
// loaded, scrolling to the last scene brings step 6 with 16 GPUs on 4
// nodes.
func TestScrollytellingDrivesFrame(t *testing.T) {
	ctx := openBlank(t)
	chromedpRun(t, ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(gpuscopeRecorder).Do(ctx)
		return err
	}), chromedp.Navigate(baseURL+"examples/scrollytelling.html"))
	waitFor(t, ctx, "window.__gpuscopeEvents", readyTimeout, "ready event", func(e exEvent) bool { return e.Type == "ready" })
	scrollScene(t, ctx, 4)
	ask := `(() => { document.getElementById("story-sim").contentWindow.postMessage({version: 1, type: "state"}, location.origin);
	  return window.__gpuscopeEvents; })()`
	e := waitFor(t, ctx, ask, 20*time.Second, "state event with step 6, 16 GPUs on 4 nodes", func(e exEvent) bool {
		return e.Type == "state" && e.State != nil && e.State.Step == 6 && e.State.Config["gpus"] == 16.0 && e.State.Config["nodes"] == "4"
	})
	if e.State.Playing {
		t.Errorf("the last scene has no data-play, but the simulator plays")
	}
	screenshot(ctx, "example-scrollytelling-last-scene")
	// Back to the first scene: the star with 8 GPUs on one node.
	scrollScene(t, ctx, 0)
	waitFor(t, ctx, ask, 20*time.Second, "state event with step 1, 8 GPUs on 1 node", func(e exEvent) bool {
		return e.Type == "state" && e.State != nil && e.State.Step == 1 && e.State.Config["gpus"] == 8.0 && e.State.Config["nodes"] == "1"
	})
}

// ---- Hugo ----

// The Hugo shortcode, for the call in hugo/README.md, renders the iframe
// the README shows, and that iframe, on a page of another origin, loads
// embed.html with the expected fragment.
//
// A Hugo shortcode is a Go html/template. The test executes it with Go's
// html/template (Hugo runs a fork of it, with the same contextual
// escaping) against hugoShortcode, a stand-in for Hugo's shortcode context
// offering what the shortcode uses: .Get "name" (named parameters; "" when
// absent, as Hugo's), .Site.Params, and Hugo's functions default, errorf
// and safeCSS with Hugo's semantics. Keep the shortcode to those.
func TestHugoShortcode(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(examplesDir, "hugo", "layouts", "shortcodes", "gpuscope.html"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.New("gpuscope.html").Funcs(hugoFuncs).Parse(string(src))
	if err != nil {
		t.Fatalf("the shortcode does not parse as a Go template with default, errorf and safeCSS: %v", err)
	}
	readme := readExample(t, "hugo", "README.md")
	call := regexp.MustCompile(`\{\{<\s*gpuscope\s+(.*?)\s*>\}\}`).FindStringSubmatch(readme)
	if call == nil {
		t.Fatal("hugo/README.md shows no {{< gpuscope … >}} call")
	}
	params := hugoParams(t, call[1])
	render := func(params map[string]any, siteParams map[string]any) (string, error) {
		var b strings.Builder
		err := tmpl.Execute(&b, hugoShortcode{params: params, site: hugoSite{Params: siteParams}})
		return b.String(), err
	}

	// The README's call with no site parameter: the README's output.
	got, err := render(params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := readmeIframe(t, readme); got != want {
		t.Errorf("{{< gpuscope %s >}} renders\n  %s\nhugo/README.md says\n  %s", call[1], got, want)
	}
	// No scenario: an error, as errorf fails a Hugo build.
	if out, err := render(map[string]any{"step": "2"}, nil); err == nil {
		t.Errorf("no scenario: rendered %q, want an error", out)
	}

	// In a browser: the README's call with the site parameter pointing at
	// the test server, and one with every parameter.
	first, err := render(params, map[string]any{"gpuscope_base": baseURL})
	if err != nil {
		t.Fatal(err)
	}
	all := hugoParams(t, `scenario="ring-allreduce" step=3 lang="zh" hide="narration,share" theme="dark" load="visible" title="Ring, in Chinese" height=480 base="`+baseURL+`"`)
	second, err := render(all, map[string]any{"gpuscope_base": "/elsewhere/"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `style="width:100%; height:480px; border:0"`; !strings.Contains(second, want) {
		t.Errorf("height=480 renders %s; want %s", second, want)
	}
	checkRenderedFrames(t, first+"\n"+second, []exampleFrame{
		{Src: baseURL + "embed.html#scenario=roofline&step=2&lang=en", Title: "gpuscope: roofline", Aspect: "16 / 10"},
		{Src: baseURL + "embed.html#scenario=ring-allreduce&step=3&lang=zh&hide=narration,share&theme=dark&load=visible", Title: "Ring, in Chinese", Height: "480px"},
	})
}

// hugoShortcode stands in for Hugo's shortcode context (ShortcodeWithPage).
type hugoShortcode struct {
	params map[string]any
	site   hugoSite
}

// Get returns a named parameter, "" when it is absent (as Hugo's does).
func (s hugoShortcode) Get(key any) any {
	k, ok := key.(string)
	if !ok {
		return nil // positional parameters: the shortcode uses none
	}
	if v, ok := s.params[k]; ok {
		return v
	}
	return ""
}

func (s hugoShortcode) Site() hugoSite { return s.site }

type hugoSite struct {
	Params map[string]any
}

// hugoFuncs are Hugo's template functions the shortcode uses, as Hugo
// defines them.
var hugoFuncs = template.FuncMap{
	// default DEFAULT INPUT: INPUT unless it is unset: nil, a zero
	// number, an empty string, slice or map (booleans are always set).
	"default": func(dflt any, given ...any) any {
		if len(given) == 0 {
			return dflt
		}
		g := given[0]
		if g == nil {
			return dflt
		}
		v := reflect.ValueOf(g)
		switch v.Kind() {
		case reflect.Bool:
			return g
		case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
			if v.Len() == 0 {
				return dflt
			}
		case reflect.Int, reflect.Int64, reflect.Float64:
			if v.IsZero() {
				return dflt
			}
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return dflt
			}
		}
		return g
	},
	// errorf fails the build with a message.
	"errorf": func(format string, args ...any) (string, error) {
		return "", fmt.Errorf(format, args...)
	},
	// safeCSS marks a string as trusted CSS.
	"safeCSS": func(s any) template.CSS { return template.CSS(fmt.Sprint(s)) },
}

// hugoParams parses a shortcode call's named parameters: name="string",
// or an unquoted value, which Hugo types (an integer here).
func hugoParams(t *testing.T, call string) map[string]any {
	t.Helper()
	out := map[string]any{}
	re := regexp.MustCompile(`(\w+)=(?:"([^"]*)"|(\S+))`)
	rest := re.ReplaceAllStringFunc(call, func(m string) string {
		p := re.FindStringSubmatch(m)
		if strings.HasPrefix(m[len(p[1])+1:], `"`) {
			out[p[1]] = p[2]
		} else if n, err := strconv.Atoi(p[3]); err == nil {
			out[p[1]] = n
		} else {
			out[p[1]] = p[3]
		}
		return ""
	})
	if strings.TrimSpace(rest) != "" {
		t.Fatalf("shortcode call %q: cannot read %q", call, rest)
	}
	return out
}

func readExample(t *testing.T, parts ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{examplesDir}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeIframe is the first <iframe …></iframe> inside an html code block
// of a README: the output it promises.
func readmeIframe(t *testing.T, readme string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```html\\s*(<iframe .*?</iframe>)").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("the README shows no rendered <iframe> in an html code block")
	}
	return m[1]
}

// checkRenderedFrames puts html into a page served from another loopback
// origin and checks, in the browser, each iframe's attributes and that it
// navigates to the site's embed.html: its document becomes one of another
// origin (which cannot be read), and the page's resource timing lists
// embed.html fetched by an iframe. want gives each frame's resolved src,
// title, style.aspectRatio and style.height; every frame must also have
// loading=lazy, allow=fullscreen, width 100% and no border.
func checkRenderedFrames(t *testing.T, html string, want []exampleFrame) {
	t.Helper()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/post.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>A post</title></head>
<body style="margin:0;font:16px serif"><main style="width:800px;margin:0 auto"><p>Prose.</p>`+html+`<p>More prose.</p></main></body></html>`)
	}))
	defer host.Close()

	ctx := openBlank(t)
	chromedpRun(t, ctx, chromedp.Navigate(host.URL+"/post.html"))
	fs := frames(ctx)
	if len(fs) != len(want) {
		t.Fatalf("%d iframes rendered, want %d:\n%s", len(fs), len(want), html)
	}
	for i, f := range fs {
		w := want[i]
		if f.Src != w.Src || f.Title != w.Title || f.Loading != "lazy" || f.Allow != "fullscreen" ||
			f.Width != "100%" || f.Border != "none" || f.Aspect != w.Aspect || f.Height != w.Height {
			t.Errorf("iframe %d:\n  got  %+v\n  want src %q title %q, loading lazy, allow fullscreen, width 100%%, border 0, aspect-ratio %q, height %q",
				i, f, w.Src, w.Title, w.Aspect, w.Height)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := range fs {
		for {
			var navigated bool
			evalJSON(ctx, fmt.Sprintf(`(() => { const f = document.querySelectorAll("iframe")[%d];
			  f.scrollIntoView({block: "center"});
			  try { f.contentWindow.location.href; return false; } catch (e) { return true; } })()`, i), &navigated)
			if navigated {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("iframe %d did not navigate to another origin within 20 s", i)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// An iframe's resource timing entry appears when its document has
	// loaded, after it became cross-origin: wait for all of them.
	var fetched []string
	n := 0
	deadline = time.Now().Add(20 * time.Second)
	for {
		evalJSON(ctx, `performance.getEntriesByType("resource").filter((e) => e.initiatorType === "iframe").map((e) => e.name)`, &fetched)
		n = 0
		for _, u := range fetched {
			if strings.SplitN(u, "#", 2)[0] == baseURL+"embed.html" {
				n++
			}
		}
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n != len(want) {
		t.Errorf("the page's iframes fetched %v; want %s %d times", fetched, baseURL+"embed.html", len(want))
	}
}

// ---- Jekyll ----

// The Jekyll include, for the call in jekyll/README.md, renders the iframe
// the README shows, and that iframe loads embed.html in a browser.
//
// Jekyll's templates are Liquid, which Go cannot run: renderLiquid is a
// stand-in that knows only the constructs the include uses, and fails on
// anything else, so the include cannot drift beyond what is checked.
func TestJekyllInclude(t *testing.T) {
	include := readExample(t, "jekyll", "_includes", "gpuscope.html")
	readme := readExample(t, "jekyll", "README.md")
	call := regexp.MustCompile(`\{%\s*include\s+gpuscope\.html\s+(.*?)\s*%\}`).FindStringSubmatch(readme)
	if call == nil {
		t.Fatal("jekyll/README.md shows no {% include gpuscope.html … %} call")
	}
	params := jekyllParams(t, call[1])

	got, err := renderLiquid(include, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := readmeIframe(t, readme); strings.TrimSpace(got) != want {
		t.Errorf("{%% include gpuscope.html %s %%} renders\n  %s\njekyll/README.md says\n  %s", call[1], got, want)
	}

	first, err := renderLiquid(include, params, map[string]string{"gpuscope_base": baseURL})
	if err != nil {
		t.Fatal(err)
	}
	all := jekyllParams(t, `scenario="ring-allreduce" step=3 lang="zh" hide="narration,share" theme="dark" load="visible" title="Ring, in Chinese" height=480 base="`+baseURL+`"`)
	second, err := renderLiquid(include, all, map[string]string{"gpuscope_base": "/elsewhere/"})
	if err != nil {
		t.Fatal(err)
	}
	checkRenderedFrames(t, first+second, []exampleFrame{
		{Src: baseURL + "embed.html#scenario=roofline&step=2&lang=en", Title: "gpuscope: roofline", Aspect: "16 / 10"},
		{Src: baseURL + "embed.html#scenario=ring-allreduce&step=3&lang=zh&hide=narration,share&theme=dark&load=visible", Title: "Ring, in Chinese", Height: "480px"},
	})
}

// jekyllParams parses an include call's parameters as Jekyll does
// (Jekyll::Tags::IncludeTag's VALID_SYNTAX): name="string", name='string'
// or an unquoted value, which Jekyll evaluates as a Liquid expression; the
// stand-in accepts only integer literals there.
func jekyllParams(t *testing.T, call string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`([\w-]+)\s*=\s*(?:"([^"\\]*(?:\\.[^"\\]*)*)"|'([^'\\]*(?:\\.[^'\\]*)*)'|([\w.-]+))`)
	out := map[string]string{}
	rest := re.ReplaceAllStringFunc(call, func(m string) string {
		p := re.FindStringSubmatch(m)
		switch {
		case strings.Contains(m, `"`):
			out[p[1]] = p[2]
		case strings.Contains(m, `'`):
			out[p[1]] = p[3]
		default:
			if _, err := strconv.Atoi(p[4]); err != nil {
				t.Fatalf("include parameter %s=%s: the stand-in evaluates only integer literals", p[1], p[4])
			}
			out[p[1]] = p[4]
		}
		return ""
	})
	if strings.TrimSpace(rest) != "" {
		t.Fatalf("include call %q: cannot read %q", call, rest)
	}
	return out
}

var (
	liquidComment = regexp.MustCompile(`(?s)\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}`)
	liquidIf      = regexp.MustCompile(`(?s)\{%\s*if\s+(include|site)\.(\w+)\s*%\}(.*?)(?:\{%\s*else\s*%\}(.*?))?\{%\s*endif\s*%\}`)
	liquidOutput  = regexp.MustCompile(`\{\{(.*?)\}\}`)
	liquidOperand = regexp.MustCompile(`^(?:(include|site)\.(\w+)|"([^"]*)"|'([^']*)'|(-?\d+))$`)
)

// renderLiquid renders a Liquid include with its parameters (include.*)
// and site variables (site.*). It knows only:
//
//	{% comment %}…{% endcomment %}                 dropped
//	{% if include.x %}…{% else %}…{% endif %}      not nested; else optional;
//	                                               true when x is given (even
//	                                               empty, as in Liquid)
//	{{ operand | default: operand | … }}           operand: include.x, site.x,
//	                                               "text", 'text' or an integer;
//	                                               default replaces a missing
//	                                               or empty value
//
// Whitespace control ({%- -%}) and anything else are errors.
func renderLiquid(src string, include, site map[string]string) (string, error) {
	lookup := func(scope, name string) (string, bool) {
		m := include
		if scope == "site" {
			m = site
		}
		v, ok := m[name]
		return v, ok
	}
	s := liquidComment.ReplaceAllString(src, "")
	var err error
	s = liquidIf.ReplaceAllStringFunc(s, func(m string) string {
		p := liquidIf.FindStringSubmatch(m)
		if strings.Contains(p[3], "{%") || strings.Contains(p[4], "{%") {
			err = fmt.Errorf("nested tags in %q: the stand-in does not nest", m)
		}
		if _, ok := lookup(p[1], p[2]); ok {
			return p[3]
		}
		return p[4]
	})
	s = liquidOutput.ReplaceAllStringFunc(s, func(m string) string {
		expr := liquidOutput.FindStringSubmatch(m)[1]
		parts := strings.Split(expr, "|")
		val, set, e := liquidOperandValue(strings.TrimSpace(parts[0]), lookup)
		if e != nil {
			err = e
		}
		for _, f := range parts[1:] {
			name, arg, _ := strings.Cut(strings.TrimSpace(f), ":")
			if strings.TrimSpace(name) != "default" {
				err = fmt.Errorf("filter %q in %q: the stand-in knows only default", name, m)
				continue
			}
			dv, dset, e := liquidOperandValue(strings.TrimSpace(arg), lookup)
			if e != nil {
				err = e
			}
			if !set || val == "" {
				val, set = dv, dset
			}
		}
		return val
	})
	if err != nil {
		return "", err
	}
	if strings.Contains(s, "{%") || strings.Contains(s, "{{") {
		return "", errors.New("Liquid the stand-in does not know is left in: " + s)
	}
	return s, nil
}

func liquidOperandValue(op string, lookup func(scope, name string) (string, bool)) (string, bool, error) {
	p := liquidOperand.FindStringSubmatch(op)
	switch {
	case p == nil:
		return "", false, fmt.Errorf("operand %q: the stand-in knows include.x, site.x, strings and integers", op)
	case p[1] != "":
		v, ok := lookup(p[1], p[2])
		return v, ok, nil
	case p[5] != "":
		return p[5], true, nil
	case strings.HasPrefix(op, `"`):
		return p[3], true, nil
	default:
		return p[4], true, nil
	}
}

// ---- embed.js ----

// A parent page on another origin drives a frame through embed.js: the
// script puts the page's origin on the frame's allow-list, queues a
// command given before the frame is ready, and relays goto, set and state;
// the numbers in the state are the CLI's. A third origin, not on the
// allow-list, posting raw messages to the same frame changes nothing.
func TestEmbedJSDrivesFrame(t *testing.T) {
	site := siteOrigin()

	// The page on the third origin: on the parent's word, it posts
	// commands straight to the simulator's frame (its parent's first
	// frame), then tells the parent it has.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/other.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>Another origin</title>
<script src="other.js"></script></head><body><p>Not on the allow-list.</p></body></html>`)
		case "/other.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			fmt.Fprint(w, `const p = new URLSearchParams(location.hash.slice(1));
const sim = p.get("sim"), parentOrigin = p.get("parent");
addEventListener("message", (e) => {
  if (e.source !== parent || e.origin !== parentOrigin || e.data !== "go") return;
  const w = parent.frames[0];
  w.postMessage({version: 1, type: "goto", step: 5}, sim);
  w.postMessage({version: 1, type: "set", gpus: 4}, sim);
  w.postMessage({version: 1, type: "set", key: "link", value: "ib-ndr"}, sim);
  w.postMessage({version: 1, type: "play"}, sim);
  w.postMessage({version: 1, type: "state"}, sim);
  parent.postMessage("sent", parentOrigin);
});`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer other.Close()

	parent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/parent.html":
			otherSrc := other.URL + "/other.html#sim=" + url.QueryEscape(site) + "&parent=" + url.QueryEscape("http://"+r.Host)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>A parent</title></head>
<body style="margin:0;font:16px serif"><main style="width:800px;margin:0 auto">
<iframe id="sim" src="`+site+`/embed.html#scenario=ring-allreduce&load=auto" title="gpuscope" allow="fullscreen" style="width:100%; aspect-ratio:16/10; border:0"></iframe>
<iframe id="other" src="`+template.HTMLEscapeString(otherSrc)+`" title="another origin" style="width:300px; height:60px; border:0"></iframe>
</main>
<script src="`+site+`/embed.js"></script>
<script src="parent.js"></script>
</body></html>`)
		case "/parent.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			fmt.Fprint(w, `window.events = [];
window.acks = [];
window.sim = gpuscopeEmbed("#sim", {autoHeight: true});
sim.on("*", (e) => events.push(e));
sim.goto(2); // before ready: queued
const other = document.getElementById("other");
const otherOrigin = new URL(other.src).origin;
addEventListener("message", (e) => {
  if (e.source === other.contentWindow && e.origin === otherOrigin) acks.push(e.data);
});
window.pokeOther = () => { other.contentWindow.postMessage("go", otherOrigin); return true; };`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer parent.Close()

	ctx := openBlank(t)
	chromedpRun(t, ctx, chromedp.Navigate(parent.URL+"/parent.html"))

	var src string
	evalJSON(ctx, `document.getElementById("sim").src`, &src)
	if want := site + "/embed.html#scenario=ring-allreduce&load=auto&origins=" + url.QueryEscape(parent.URL); src != want {
		t.Errorf("embed.js left the frame's src as %q; want %q", src, want)
	}

	const evs = "window.events"
	ready := waitFor(t, ctx, evs, readyTimeout, "ready event", func(e exEvent) bool { return e.Type == "ready" })
	if ready.State == nil || ready.State.Scenario != "ring-allreduce" {
		t.Errorf("ready event's state = %+v, want ring-allreduce", ready.State)
	}
	var isReady bool
	evalJSON(ctx, "sim.ready", &isReady)
	if !isReady {
		t.Error("sim.ready is false after the ready event")
	}
	waitFor(t, ctx, evs, 10*time.Second, "step event for the goto(2) queued before ready", func(e exEvent) bool {
		return e.Type == "step" && e.Step == 2
	})

	evalJSON(ctx, `(sim.goto(3), sim.set("gpus", 16), sim.requestState(), true)`, new(bool))
	waitFor(t, ctx, evs, 10*time.Second, "step event for goto(3)", func(e exEvent) bool {
		return e.Type == "step" && e.Step == 3 && e.State != nil && e.State.Step == 3
	})
	st := waitFor(t, ctx, evs, 10*time.Second, "state event with step 3 and gpus 16", func(e exEvent) bool {
		return e.Type == "state" && e.State != nil && e.State.Step == 3 && e.State.Config["gpus"] == 16.0
	}).State

	var want cliMetrics
	cli(t, &want, "collective", "--op", "allreduce", "--algo", "ring", "--ranks", "16", "--bytes", "268435456", "--link", "nvlink4", "--json")
	if got := st.Metrics.cliMetrics; got != want {
		t.Errorf("state event's metrics %+v\nCLI %+v", got, want)
	}
	if st.Metrics.TimeS != want.TimeS || want.TimeS <= 0 {
		t.Errorf("time_s %g in the frame, %g from the CLI", st.Metrics.TimeS, want.TimeS)
	}
	var last pageState
	evalJSON(ctx, "sim.state", &last)
	if last.Step != 3 || last.Config["gpus"] != 16.0 {
		t.Errorf("sim.state = step %d gpus %v; want the last state, step 3 with 16", last.Step, last.Config["gpus"])
	}

	// autoHeight: the iframe follows the frame's resize events.
	var resize struct {
		N      int     `json:"n"`
		Last   float64 `json:"last"`
		Height string  `json:"height"`
	}
	evalJSON(ctx, `(() => { const r = events.filter((e) => e.type === "resize");
	  return {n: r.length, last: r.length ? r[r.length - 1].height : 0, height: document.getElementById("sim").style.height}; })()`, &resize)
	if resize.N == 0 {
		t.Log("no resize event arrived; autoHeight not exercised")
	} else if want := fmt.Sprintf("%dpx", int(math.Ceil(resize.Last))); resize.Height != want {
		t.Errorf("after a resize event of height %g, the iframe's style.height is %q; want %q", resize.Last, resize.Height, want)
	}

	// The third origin posts goto 5, set gpus 4 and link ib-ndr, play and
	// state: the frame must ignore all of them.
	var before int
	evalJSON(ctx, "events.length", &before)
	evalJSON(ctx, "pokeOther()", new(bool))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var acks []string
		evalJSON(ctx, "acks", &acks)
		if len(acks) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page on the third origin did not post its messages")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	var since []exEvent
	evalJSON(ctx, fmt.Sprintf("events.slice(%d)", before), &since)
	for _, e := range since {
		if e.Type == "step" || e.Type == "state" || e.Type == "finished" {
			t.Errorf("after messages from a page not on the allow-list, the frame sent a %q event (step %d)", e.Type, e.Step)
		}
	}
	evalJSON(ctx, "(sim.requestState(), events.length)", &before)
	after := waitFor(t, ctx, fmt.Sprintf("events.slice(%d)", before), 10*time.Second, "state event after requestState", func(e exEvent) bool {
		return e.Type == "state" && e.State != nil
	}).State
	if after.Step != 3 || after.Config["gpus"] != 16.0 || after.Config["link"] != "nvlink4" || after.Playing {
		t.Errorf("after messages from a page not on the allow-list: step %d, gpus %v, link %v, playing %v; want step 3, 16, nvlink4, paused",
			after.Step, after.Config["gpus"], after.Config["link"], after.Playing)
	}
	screenshot(ctx, "embedjs-parent")

	// destroy: the controller stops listening.
	evalJSON(ctx, `(sim.destroy(), window.n = events.length, document.getElementById("sim").contentWindow.postMessage({version: 1, type: "state"}, "`+site+`"), true)`, new(bool))
	time.Sleep(time.Second)
	var grew bool
	evalJSON(ctx, "events.length !== window.n", &grew)
	if grew {
		t.Error("events still reach the handlers after destroy()")
	}
}
