package browsertest

// Tests of what authors use to embed gpuscope in their own pages (issue 7):
// site/embed.js and the example pages in site/examples/ (the Hugo, Jekyll
// and MkDocs examples: ssg_test.go).

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
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
	sideBySide(t)
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

// framesProbe describes each iframe of the page for a failure message:
// the URL it loaded (when readable) and whether its simulator is ready.
const framesProbe = `[...document.querySelectorAll("iframe")].map((f) => {
  try {
    const w = f.contentWindow;
    return w.location.href + " ready=" + !!(w.gpuscope && w.gpuscope.ready);
  } catch (e) {
    return f.src + " (another origin)";
  }
})`

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
			var frames []string
			evalJSON(ctx, framesProbe, &frames)
			t.Fatalf("no %s after %v (events so far: %v; frames: %v); the frame side of the postMessage API may be missing", what, timeout, types, frames)
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

// Issue 41: the classroom tally. A reader's answer to a prediction in a
// frame limited to steps 1-3 reaches the page as an answer event with the
// lesson, step, question, choice and verdict, and the page's tally counts
// it; Next, and goto from the page, stay inside the frame's steps. One
// frame of the three is loaded: the others' wasm would only cost time.
func TestClassroomTallyExample(t *testing.T) {
	ctx := open(t, "examples/classroom-tally.html")
	noInlineScript(t, ctx)
	fs := frames(ctx)
	if len(fs) != 3 {
		t.Fatalf("%d iframes, want 3: %+v", len(fs), fs)
	}
	origins := "&origins=" + url.QueryEscape(siteOrigin())
	for i, f := range fs {
		checkFrameAttrs(t, fmt.Sprintf("iframe %d", i), f)
		if !strings.Contains(f.Src, "&steps=") || !strings.HasSuffix(f.Src, origins) {
			t.Errorf("iframe %d src %q: want a steps= range and %s (embed.js adds the page's origin)", i, f.Src, origins)
		}
	}
	// The page's own controllers record what its frames post.
	evalJSON(ctx, `(window.got = [], quizFrames[1].on("*", (e) => got.push(e)).load(), true)`, new(bool))
	waitFor(t, ctx, "got", readyTimeout, "ready event", func(e exEvent) bool { return e.Type == "ready" })

	const frame = `document.getElementById("q-collectives").contentWindow`
	var q struct {
		Answer  int      `json:"answer"`
		Choices []string `json:"choices"`
	}
	// The reader clicks the first choice; the right one is in state().
	evalJSON(ctx, `(() => { const w = `+frame+`; w.document.querySelector('#predict button[data-choice="0"]').click();
	  return w.gpuscope.state().question; })()`, &q)
	type answerEvent struct {
		Source   string  `json:"source"`
		Version  int     `json:"version"`
		Type     string  `json:"type"`
		Lesson   string  `json:"lesson"`
		Step     int     `json:"step"`
		StepID   string  `json:"step_id"`
		Question string  `json:"question"`
		Choice   int     `json:"choice"`
		Correct  bool    `json:"correct"`
		Time     float64 `json:"time"`
	}
	var got []answerEvent
	deadline := time.Now().Add(10 * time.Second)
	for len(got) == 0 {
		evalJSON(ctx, `got.filter((e) => e.type === "answer")`, &got)
		if time.Now().After(deadline) {
			t.Fatal("no answer event 10 s after the click on a choice")
		}
		time.Sleep(200 * time.Millisecond)
	}
	a := got[0]
	now := float64(time.Now().UnixMilli())
	if len(got) != 1 || a.Source != "gpuscope" || a.Version != 1 || a.Lesson != "collectives-at-scale" || a.Step != 1 ||
		a.StepID != "small" || a.Question != "fastest" || a.Choice != 0 || a.Correct != (q.Answer == 0) ||
		a.Time < now-60000 || a.Time > now+1000 {
		t.Errorf("answer events %+v; want one: collectives-at-scale step 1 (small), question fastest, choice 0, correct %v, time now (%.0f ms)",
			got, q.Answer == 0, now)
	}
	var row []string
	evalJSON(ctx, `[...document.querySelectorAll("#tally tbody tr")].map((r) => r.textContent)`, &row)
	if len(row) != 1 || !strings.HasPrefix(row[0], "collectives-at-scale / fastest1") {
		t.Errorf("tally rows %q; want one for collectives-at-scale / fastest with 1 answer", row)
	}

	// steps=1-3: Next goes to 3 and no further, and so does the page's goto.
	var step int
	evalJSON(ctx, `(() => { const w = `+frame+`; for (let i = 0; i < 4; i++) w.document.getElementById("btn-next").click();
	  return true; })()`, new(bool))
	time.Sleep(500 * time.Millisecond)
	evalJSON(ctx, frame+`.gpuscope.state().step`, &step)
	var nextOff bool
	evalJSON(ctx, frame+`.document.getElementById("btn-next").disabled`, &nextOff)
	if step != 3 || !nextOff {
		t.Errorf("after four clicks on Next under steps=1-3: step %d, Next disabled %v; want 3, true", step, nextOff)
	}
	var before int
	evalJSON(ctx, `(quizFrames[1].goto(5), got.length)`, &before)
	waitFor(t, ctx, fmt.Sprintf("got.slice(%d)", before), 10*time.Second, "error event for goto(5)", func(e exEvent) bool { return e.Type == "error" })
	var errText string
	evalJSON(ctx, fmt.Sprintf(`got.slice(%d).find((e) => e.type === "error").error`, before), &errText)
	evalJSON(ctx, frame+`.gpuscope.state().step`, &step)
	if step != 3 || !strings.Contains(errText, "allowed 1–3") {
		t.Errorf("goto(5) under steps=1-3: step %d, error %q; want step 3 kept and an error naming 1–3", step, errText)
	}
	screenshot(ctx, "example-classroom-tally")
}

// The Hugo shortcode, the Jekyll include and the MkDocs pages are built
// with the real programs in ssg_test.go.

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

	// The zoom through the protocol: into GPU 5, then a level out.
	evalJSON(ctx, `(sim.zoom("gpu", 5), sim.zoom(-1), sim.requestState(), true)`, new(bool))
	waitFor(t, ctx, evs, 10*time.Second, "state event zoomed to GPU 5's node", func(e exEvent) bool {
		return e.Type == "state" && e.State != nil && e.State.Zoom != nil && e.State.Zoom.Level == "node" && e.State.Zoom.GPU == 5
	})

	// destroy: the controller stops listening.
	evalJSON(ctx, `(sim.destroy(), window.n = events.length, document.getElementById("sim").contentWindow.postMessage({version: 1, type: "state"}, "`+site+`"), true)`, new(bool))
	time.Sleep(time.Second)
	var grew bool
	evalJSON(ctx, "events.length !== window.n", &grew)
	if grew {
		t.Error("events still reach the handlers after destroy()")
	}
}
