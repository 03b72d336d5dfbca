package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// embedBudget is issue 7's budget for an embed before "Load simulation":
// everything it transfers, in bytes.
const embedBudget = 150_000

// parentPage serves a blog-like page on its own loopback origin (not the
// site's) with the given iframes, and a script that records every message
// the frames post into window.events.
func parentPage(t *testing.T, frames ...string) *httptest.Server {
	return parentPageFor(t, func(string) []string { return frames })
}

// parentPageFor is parentPage with frames that depend on the page's own
// origin (for an origins= allow-list).
func parentPageFor(t *testing.T, frameList func(origin string) []string) *httptest.Server {
	t.Helper()
	var origin string
	mux := http.NewServeMux()
	mux.HandleFunc("/record.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `window.events = [];
addEventListener("message", (e) => {
  if (e.data && e.data.source === "gpuscope") window.events.push({origin: e.origin, data: e.data});
});`)
	})
	mux.HandleFunc("/post.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>A post</title>
<script src="record.js"></script>
<style>body{margin:0;font:16px serif} .grid{display:grid;grid-template-columns:repeat(3,400px);gap:8px}
iframe{width:400px;aspect-ratio:16/10;border:0}</style></head>
<body><p>Prose before the simulators.</p><div class="grid">`+strings.Join(frameList(origin), "\n")+`</div></body></html>`)
	})
	srv := httptest.NewServer(mux)
	origin = srv.URL
	t.Cleanup(srv.Close)
	return srv
}

// frameEvents are the messages the parent page has received.
type frameEvent struct {
	Origin string `json:"origin"`
	Data   struct {
		Source  string    `json:"source"`
		Version int       `json:"version"`
		Type    string    `json:"type"`
		Step    int       `json:"step"`
		State   pageState `json:"state"`
	} `json:"data"`
}

func events(ctx context.Context) []frameEvent {
	var evs []frameEvent
	evalJSON(ctx, "window.events", &evs)
	return evs
}

// waitEvent waits until the parent has received n events of type typ.
func waitEvent(t *testing.T, ctx context.Context, typ string, n int) []frameEvent {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	for {
		var got []frameEvent
		for _, e := range events(ctx) {
			if e.Data.Type == typ {
				got = append(got, e)
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %q events after %v; want %d (events: %+v)", len(got), typ, readyTimeout, n, events(ctx))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitServed waits until the site has served n requests under prefix.
func waitServed(t *testing.T, prefix string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if got, _ := traffic.count(prefix); got >= n {
			return
		}
		if time.Now().After(deadline) {
			got, _ := traffic.count(prefix)
			t.Fatalf("%d requests for %s after 20 s; want %d", got, prefix, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clickCentre clicks the middle of the element (in the top page's
// coordinates, so it reaches into a cross-origin frame).
func clickCentre(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	r := elementRect(ctx, selector)
	chromedpRun(t, ctx, chromedp.MouseClickXY(r.X+r.Width/2, r.Y+r.Height/2))
}

// One embed shows its poster and a load button and stays within the
// budget; five on one page fetch nothing of the simulator until a reader
// clicks one, and the second one clicked takes the wasm from the cache.
func TestEmbedPosterLoadsOnClick(t *testing.T) {
	site := strings.TrimSuffix(baseURL, "/")
	ctx := openBlank(t)
	chromedpRun(t, ctx, network.Enable(), network.ClearBrowserCache())

	// One embed, a cold cache: what it costs before the click.
	one := parentPage(t, `<iframe src="`+site+`/embed.html#scenario=roofline&step=1&lang=en" title="gpuscope" loading="lazy" allow="fullscreen"></iframe>`)
	traffic.reset()
	chromedpRun(t, ctx, chromedp.Navigate(one.URL+"/post.html"))
	waitServed(t, "/posters/roofline-", 1)
	time.Sleep(time.Second)
	n, paths := traffic.bytes()
	if n > embedBudget || n < 10_000 {
		t.Errorf("an embed before loading transferred %d bytes (%v); want 10 kB–%d", n, paths, embedBudget)
	}
	if reqs, _ := traffic.count("/main.wasm"); reqs != 0 {
		t.Errorf("the embed fetched main.wasm %d times before a click", reqs)
	}
	shot := decodePNG(t, screenshot(ctx, "embed-poster"))
	fr := elementRect(ctx, "iframe")
	if c := pixelAt(shot, int(fr.X+fr.Width/2), int(fr.Y+fr.Height/2)); isColour(c, pixelAt(shot, 2, 2)) {
		t.Errorf("nothing drawn at the frame's centre (%v): want the load button over the poster", c)
	}

	// Five embeds, each allowing the parent to listen.
	chromedpRun(t, ctx, network.ClearBrowserCache())
	lessons := []string{"ring-allreduce", "roofline", "pipeline-parallel", "flash-attention", "fault-tolerance"}
	five := parentPageFor(t, func(origin string) []string {
		var frames []string
		for i, id := range lessons {
			frames = append(frames, fmt.Sprintf(`<iframe id="f%d" src="%s/embed.html#scenario=%s&origins=%s" title="gpuscope %d" loading="lazy" allow="fullscreen"></iframe>`,
				i, site, id, url.QueryEscape(origin), i))
		}
		return frames
	})
	traffic.reset()
	chromedpRun(t, ctx, chromedp.Navigate(five.URL+"/post.html"))
	waitServed(t, "/posters/", len(lessons))
	time.Sleep(time.Second)
	if reqs, _ := traffic.count("/main.wasm"); reqs != 0 {
		t.Fatalf("five embeds fetched main.wasm %d times before any click", reqs)
	}
	clickCentre(t, ctx, "#f1")
	ready := waitEvent(t, ctx, "ready", 1)
	if s := ready[0].Data.State; s.Scenario != "roofline" || ready[0].Origin != site || ready[0].Data.Version != 1 {
		t.Errorf("first ready event: scenario %q from %q version %d; want roofline from %s, version 1", s.Scenario, ready[0].Origin, ready[0].Data.Version, site)
	}
	clickCentre(t, ctx, "#f3")
	ready = waitEvent(t, ctx, "ready", 2)
	if s := ready[1].Data.State; s.Scenario != "flash-attention" {
		t.Errorf("second ready event from %q, want flash-attention", s.Scenario)
	}
	if reqs, full := traffic.count("/main.wasm"); full != 1 || reqs > 2 {
		t.Errorf("two loaded embeds: main.wasm requested %d times, sent in full %d times; want it sent once (the second from the cache)", reqs, full)
	}
	if reqs, _ := traffic.count("/posters/ring-allreduce"); reqs != 1 {
		t.Errorf("ring-allreduce's poster requested %d times, want 1", reqs)
	}
}

// The fragment's embed options shape the page: hidden parts, a fixed
// theme over the system's, and they stay in the address as the reader
// plays.
func TestEmbedOptions(t *testing.T) {
	ctx := openBlank(t)
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Navigate(baseURL+"embed.html#scenario=roofline&load=auto&hide=narration,knobs,numbers,speed&theme=light"))
	waitReady(ctx)
	settle(ctx)
	var got struct {
		Display map[string]string `json:"display"`
		Theme   string            `json:"theme"`
		Hash    string            `json:"hash"`
	}
	evalJSON(ctx, `(() => {
	  const d = {};
	  for (const s of ["#narration", ".drawer", ".field-speed", ".buttons", ".field-lang", "#title"]) d[s] = getComputedStyle(document.querySelector(s)).display;
	  return {display: d, theme: document.documentElement.dataset.theme || "", hash: location.hash};
	})()`, &got)
	for _, s := range []string{"#narration", ".drawer", ".field-speed"} {
		if got.Display[s] != "none" {
			t.Errorf("%s is displayed (%s); hide= asked to hide it", s, got.Display[s])
		}
	}
	for _, s := range []string{".buttons", ".field-lang", "#title"} {
		if got.Display[s] == "none" {
			t.Errorf("%s is hidden; hide= did not name it", s)
		}
	}
	if got.Theme != "light" || !strings.Contains(got.Hash, "hide=narration%2Cspeed%2Cknobs%2Cnumbers") && !strings.Contains(got.Hash, "hide=narration,speed,knobs,numbers") || !strings.Contains(got.Hash, "theme=light") {
		t.Errorf("data-theme %q, address %q: want the light theme and the options kept in the fragment", got.Theme, got.Hash)
	}
	img := decodePNG(t, screenshot(ctx, "embed-theme-light"))
	st := elementRect(ctx, "#stage")
	if c := pixelAt(img, int(st.X+4), int(st.Y+st.Height-4)); int(c.R)+int(c.G)+int(c.B) < 600 {
		t.Errorf("stage corner %v under theme=light with a dark system: want a light picture", c)
	}
	// A bad option is reported and changes nothing else.
	command(ctx, `{type: "set", key: "theme", value: "sepia"}`)
	settle(ctx)
	if s := state(ctx); s.Error == nil || !strings.Contains(*s.Error, "theme") {
		t.Errorf("theme=sepia: error %v, want one naming theme", s.Error)
	}
}

// A reader who asks for reduced motion gets step mode: each step opens on
// its final picture and Play moves a whole step, nothing animated.
func TestReducedMotionStartsInStepMode(t *testing.T) {
	ctx := openBlank(t)
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}),
		chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce&step=1"))
	waitReady(ctx)
	type motion struct {
		pageState
		Reduced bool `json:"reduced_motion"`
	}
	var s motion
	evalJSON(ctx, "window.gpuscope.state()", &s)
	if !s.Reduced || s.Playing || s.TimeS != s.ToS || s.ToS == 0 {
		t.Fatalf("reduced motion: reduced_motion %v playing %v time %g window end %g; want step mode at the step's end", s.Reduced, s.Playing, s.TimeS, s.ToS)
	}
	command(ctx, `{type: "play"}`)
	settle(ctx)
	evalJSON(ctx, "window.gpuscope.state()", &s)
	if s.Step != 2 || s.TimeS != s.ToS || s.Playing {
		t.Errorf("play in step mode: step %d time %g/%g playing %v; want step 2 at its end, paused", s.Step, s.TimeS, s.ToS, s.Playing)
	}
	// motion=full in the fragment overrides the system's preference (a
	// fresh load: a new fragment alone would not reload the page).
	chromedpRun(t, ctx, chromedp.Navigate(baseURL+"favicon.svg"), chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce&step=1&motion=full"))
	waitReady(ctx)
	var f motion
	evalJSON(ctx, "window.gpuscope.state()", &f)
	if f.Reduced || f.TimeS != f.FromS {
		t.Errorf("motion=full: reduced_motion %v time %g; want full motion from the window's start %g", f.Reduced, f.TimeS, f.FromS)
	}
}

// A lesson's share page opens on its lesson and tells oEmbed consumers
// (blog platforms that turn a pasted link into an embed) where its oEmbed
// file is; the file frames the same lesson.
func TestLessonSharePageAndOEmbed(t *testing.T) {
	ctx := open(t, "roofline.html")
	waitReady(ctx)
	if s := state(ctx); s.Scenario != "roofline" {
		t.Errorf("roofline.html opened %q", s.Scenario)
	}
	var href string
	evalJSON(ctx, `document.querySelector('link[rel="alternate"][type="application/json+oembed"]').getAttribute("href")`, &href)
	if !strings.HasSuffix(href, "/oembed/roofline.json") {
		t.Fatalf("oEmbed discovery href %q", href)
	}
	resp, err := http.Get(baseURL + "oembed/roofline.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o struct {
		Type, Version, HTML, Title string
		ThumbnailURL               string `json:"thumbnail_url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
		t.Fatal(err)
	}
	if o.Type != "rich" || o.Version != "1.0" || !strings.Contains(o.HTML, "embed.html#scenario=roofline&amp;") || !strings.HasSuffix(o.ThumbnailURL, "posters/roofline-light.png") {
		t.Errorf("oembed/roofline.json: %+v", o)
	}
	// An explicit fragment wins over the page's own lesson.
	chromedpRun(t, ctx, chromedp.Navigate(baseURL+"favicon.svg"), chromedp.Navigate(baseURL+"roofline.html#scenario=memory-wall&step=2"))
	waitReady(ctx)
	if s := state(ctx); s.Scenario != "memory-wall" || s.Step != 2 {
		t.Errorf("roofline.html#scenario=memory-wall&step=2 opened %s step %d", s.Scenario, s.Step)
	}
}

// An embed in Chinese shows the Chinese poster before loading — the
// picture's labels in the reader's language, as the simulator will draw
// them — and its load button in Chinese, within the same budget (issue
// 39: lang=zh showed the English poster).
func TestEmbedPosterInChinese(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		t.Run(theme, func(t *testing.T) {
			ctx := openSized(t, "embed.html#scenario=zero-stages&step=1&lang=zh&theme="+theme, 640, 400)
			var p struct {
				Src, Button, Lang, Phase string
				Width                    int
				Bytes                    float64
			}
			evalJSON(ctx, `new Promise((done) => { const t0 = performance.now();
			  const look = () => { const img = document.getElementById("poster-img");
			    if (img && img.complete && img.naturalWidth > 0) {
			      const bytes = [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].reduce((n, e) => n + (e.encodedBodySize || 0), 0);
			      return done({Src: img.src, Button: document.getElementById("load-btn").textContent, Lang: document.documentElement.lang,
			        Phase: (window.gpuscopeLoader || {}).phase, Width: img.naturalWidth, Bytes: bytes}); }
			    if (performance.now() - t0 > 10000) return done({Src: img ? img.src : ""});
			    setTimeout(look, 50); };
			  look(); })`, &p)
			if want := "/posters/zero-stages-" + theme + "-zh.png"; !strings.HasSuffix(p.Src, want) || p.Width == 0 {
				t.Errorf("poster %q (%d px wide), want %s loaded", p.Src, p.Width, want)
			}
			if p.Button != "▶ 加载模拟" || p.Lang != "zh-Hans" || p.Phase != "poster" {
				t.Errorf("button %q, html lang %q, loader phase %q; want ▶ 加载模拟, zh-Hans, poster", p.Button, p.Lang, p.Phase)
			}
			if p.Bytes > embedBudget {
				t.Errorf("the embed's files before loading: %.0f bytes, want ≤ %d", p.Bytes, embedBudget)
			}
			screenshot(ctx, "embed-poster-zh-"+theme)
		})
	}
}
