package browsertest

// The course site (issue 8): the lesson pages that `gpuscope site` builds
// from site/course into site/dist/course, their embedded simulators, the
// links between them, search, offline reading and the printed handout.
//
// The course pages register a service worker whose scope is the whole
// site, so these tests load them from a server of their own (another
// origin): the worker never stands between the other tests and the
// simulator files they count.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
	"github.com/gpuscope/gpuscope/site/server"
)

// courseReady are the lessons whose pages the test looks at more closely
// (screenshots, Show me, teacher notes), per language: one of each layer.
var courseReady = map[string][]string{
	"en": {"ring-allreduce", "memory-budget", "roofline"},
	"zh": {"nvlink-vs-ib", "data-parallel", "flash-attention"},
}

// courseLink is a link, script, stylesheet, image or frame of a page.
type courseLink struct {
	Tag  string `json:"tag"`
	URL  string `json:"url"`
	Page string `json:"page"`
}

func TestCourse(t *testing.T) {
	sideBySide(t)
	if browserCtx == nil {
		t.Skip("browser tests need GPUSCOPE_SITE_DIR (make test sets it to site/dist)")
	}
	if _, err := os.Stat(filepath.Join(siteDir, "course", "en", "index.html")); err != nil {
		t.Fatalf("no course in %s (make build writes it): %v", siteDir, err)
	}
	stub := &simStub{h: server.Handler(siteDir)}
	srv := httptest.NewServer(stub)
	defer srv.Close()
	base := srv.URL + "/"
	// The parts one after another: the test runs beside others as a
	// whole, from near the start of the run (parallel subtests would
	// wait for every other test to start, and its longest part would
	// run last, alone).

	for _, c := range []struct {
		name string
		run  func(*testing.T)
	}{{"pages", func(t *testing.T) { coursePages(t, base, stub) }}, {"search", func(t *testing.T) { courseSearch(t, base) }},
		{"phone", func(t *testing.T) { coursePhone(t, base) }}, {"print", func(t *testing.T) { coursePrint(t, base, stub) }},
		{"a11y", func(t *testing.T) { courseA11y(t, base) }}, {"offline", courseOffline}} {
		t.Run(c.name, c.run)
	}
}

// simStub is the course's server, which answers embed.html with an
// empty page while on: a course page's simulator frame then loads
// nothing. (Blocking the request in the browser, as the tests did, had
// each such page show the browser's error page in the frame, in a
// renderer of its own: 1.6 s of CPU a lesson page, against 0.45 for a
// page without a frame, measured by process over ten loads of each.)
type simStub struct {
	on atomic.Bool
	h  http.Handler
}

func (s *simStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.on.Load() && r.URL.Path == "/embed.html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, `<!doctype html><html lang="en"><meta charset="utf-8"><title>gpuscope: not loaded by this test</title></html>`)
		return
	}
	s.h.ServeHTTP(w, r)
}

// courseTab opens a tab (on the harness's server, then the course's) at
// the given size.
func courseTab(t *testing.T, width, height int64) context.Context {
	t.Helper()
	ctx := openSized(t, "favicon.svg", width, height)
	allowConsoleErrors(ctx, "favicon.ico")
	return ctx
}

func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	chromedpRun(t, ctx, chromedp.Navigate(url))
	var ok bool
	evalJSON(ctx, `new Promise((r) => document.readyState === "complete" ? r(true) : addEventListener("load", () => r(true)))`, &ok)
}

// waitJS polls a JavaScript expression until it is true.
func waitJS(t *testing.T, ctx context.Context, expr string, timeout time.Duration, what string) {
	t.Helper()
	if !waitJSOrTimeout(ctx, expr, timeout) {
		t.Fatalf("%s: not after %v (%s)", what, timeout, expr)
	}
}

// Every lesson page in both languages loads without console errors, under
// a CSP without inline script, with its title, the language switch and
// the simulator's frame. Every lesson's simulator reaches ready: each
// lesson's in one language, the two taking turns down the list, and a
// sample (one per layer and language) in both; on the other pages the
// frame is kept from loading, so the pages go quickly (a simulator is
// the same frame in either language but for its lang). On the first
// sampled page the "show me" buttons and scrolling move it. Every
// internal link of every page answers 200.
func coursePages(t *testing.T, base string, stub *simStub) {
	ctx := courseTab(t, viewportW, viewportH)
	defer stub.on.Store(false)
	var links []courseLink
	pages := []string{"index.html", "glossary.html", "search.html", "validation.html"}
	lessonIndex := map[string]int{}
	for i, s := range scenarios.All() {
		pages = append(pages, s.ID+".html")
		lessonIndex[s.ID] = i
	}
	started := map[string]int{}
	for _, lang := range []string{"en", "zh"} {
		for _, p := range pages {
			id := strings.TrimSuffix(p, ".html")
			where := "course/" + lang + "/" + p
			i, lesson := lessonIndex[id]
			start := lesson && (slices.Contains(courseReady[lang], id) || (i%2 == 0) == (lang == "en"))
			stub.on.Store(lesson && !start)
			before := len(consoleErrors(ctx))
			navigate(t, ctx, base+where)
			var info struct {
				Lang, H1, Switch, Glossary, Search string
				Frame                              *exampleFrame
				Sim                                bool
			}
			evalJSON(ctx, `(() => { const f = document.getElementById("course-sim");
			  return {Lang: document.documentElement.lang, H1: document.querySelector("h1").textContent.trim(),
			    Switch: (document.querySelector(".lang-switch") || {}).getAttribute("href"),
			    Glossary: (document.querySelector(".site-head a[href='glossary.html']") || {}).textContent || "",
			    Search: (document.querySelector(".site-head form[action='search.html'] input[type=search][name=q]") || {}).name || "",
			    Frame: f ? {srcAttr: f.getAttribute("src"), title: f.title, loading: f.getAttribute("loading"), allow: f.getAttribute("allow")} : null,
			    Sim: !!window.courseSim}; })()`, &info)
			wantLang := map[string]string{"en": "en", "zh": "zh-Hans"}[lang]
			if info.Lang != wantLang || info.Switch != "../"+map[string]string{"en": "zh", "zh": "en"}[lang]+"/"+p || info.Glossary == "" || info.Search != "q" {
				t.Errorf("%s: lang %q, switch %q, glossary link %q, search field %q; want %s, ../OTHER/%s, a glossary link and a search form", where, info.Lang, info.Switch, info.Glossary, info.Search, wantLang, p)
			}
			noInlineScript(t, ctx)
			if s, ok := scenarios.Get(id); ok {
				if want := i18n.T(lang, s.Title); info.H1 != want {
					t.Errorf("%s: h1 %q, want %q", where, info.H1, want)
				}
				// embed.js adds the page's origin to the fragment.
				wantSrc := base + "embed.html#scenario=" + id + "&lang=" + lang + "&load=visible&hide=title&origins="
				if f := info.Frame; f == nil || !strings.HasPrefix(f.SrcAttr, wantSrc) || f.Title == "" || f.Loading != "lazy" || f.Allow != "fullscreen" || !info.Sim {
					t.Errorf("%s: simulator frame %+v (controller %v); want src %s…, a title, loading=lazy, allow=fullscreen and window.courseSim", where, f, info.Sim, wantSrc)
				}
				// Every lesson's simulator starts (issue 8): the frame
				// is on screen, so load=visible loads it at once.
				if start {
					courseSimReady(t, ctx, where)
					started[lang]++
				}
				if slices.Contains(courseReady[lang], id) {
					if lang == "en" && id == courseReady["en"][0] {
						courseShowMe(t, ctx, where)
						screenshot(ctx, "course-"+lang+"-"+id)
					}
					if lang == "zh" && id == courseReady["zh"][0] {
						screenshot(ctx, "course-"+lang+"-"+id)
						// The teacher notes, opened.
						evalJSON(ctx, `(() => { const d = document.querySelector("details.teacher-notes"); if (!d) return false;
						  d.open = true; d.scrollIntoView({block: "start"}); return true; })()`, new(bool))
						settle(ctx)
						screenshot(ctx, "course-"+lang+"-"+id+"-teacher")
					}
				}
			}
			if (lang == "en" && p == "index.html") || (lang == "zh" && p == "glossary.html") || p == "validation.html" {
				screenshot(ctx, "course-"+lang+"-"+id)
			}
			var l []courseLink
			evalJSON(ctx, `[...document.querySelectorAll("a[href], link[href], script[src], img[src], iframe[src]")].map((el) => ({
			  tag: el.tagName.toLowerCase(), page: location.pathname,
			  url: new URL(el.getAttribute("href") || el.getAttribute("src"), location.href).href}))`, &l)
			links = append(links, l...)
			if errs := consoleErrors(ctx); len(errs) > before {
				t.Errorf("%s: console errors: %v", where, errs[before:])
			}
		}
	}
	if n := len(lessonIndex); started["en"]+started["zh"] < n || started["en"] < n/2 || started["zh"] < n/2 {
		t.Errorf("simulators started: %v of %d lessons; want every lesson in one language at least, and half of them in each", started, n)
	}
	checkCourseLinks(t, base, links)
}

// courseSimReady waits for the page's embed controller to report ready.
func courseSimReady(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	waitJS(t, ctx, `window.courseSim && window.courseSim.ready`, readyTimeout, where+": window.courseSim.ready")
	var st struct {
		Scenario string `json:"scenario"`
	}
	evalJSON(ctx, `window.courseSim.state || {}`, &st)
	if want := strings.TrimSuffix(filepath.Base(where), ".html"); st.Scenario != want {
		t.Errorf("%s: the simulator shows %q, want %q", where, st.Scenario, want)
	}
}

// courseShowMe presses the page's "show me" buttons and scrolls its
// sections, checking that the simulator follows.
func courseShowMe(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	var steps []int
	evalJSON(ctx, `[...document.querySelectorAll("button.show-me")].map((b) => Number(b.dataset.step))`, &steps)
	if len(steps) < 2 {
		t.Fatalf("%s: %d show-me buttons; the test wants a page with two or more", where, len(steps))
	}
	// The last button, then the first (the simulator starts at step 1).
	for _, i := range []int{len(steps) - 1, 0} {
		evalJSON(ctx, fmt.Sprintf(`(() => { document.querySelectorAll("button.show-me")[%d].click(); return true; })()`, i), new(bool))
		waitJS(t, ctx, fmt.Sprintf(`window.courseSim.state && window.courseSim.state.step === %d`, steps[i]), 10*time.Second,
			fmt.Sprintf("%s: show-me button %d (step %d) moves the simulator", where, i, steps[i]))
	}
	// Scrolling a section to the middle of the screen moves it too.
	var n int
	evalJSON(ctx, `(() => { const s = [...document.querySelectorAll("section[data-step]")].filter((s) => s.dataset.step !== "1");
	  if (!s.length) return 0;
	  const last = s[s.length - 1];
	  last.scrollIntoView({block: "center"});
	  return Number(last.dataset.step); })()`, &n)
	if n > 0 {
		waitJS(t, ctx, fmt.Sprintf(`window.courseSim.state && window.courseSim.state.step === %d`, n), 10*time.Second,
			fmt.Sprintf("%s: scrolling to the section of step %d moves the simulator", where, n))
		if r := elementRect(ctx, "#course-sim"); r.Y < 0 || r.Y+r.Height > viewportH {
			t.Errorf("%s: after scrolling, the simulator %+v has left the viewport (want it sticky)", where, r)
		}
	}
	evalJSON(ctx, `(() => { scrollTo(0, 0); return true; })()`, new(bool))
	settle(ctx)
}

// checkCourseLinks asks the server for every same-origin link the pages
// hold (fragments and queries dropped): each must answer 200.
func checkCourseLinks(t *testing.T, base string, links []courseLink) {
	t.Helper()
	seen := map[string]string{}
	for _, l := range links {
		if !strings.HasPrefix(l.URL, base) {
			continue
		}
		u := l.URL
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		if _, ok := seen[u]; !ok {
			seen[u] = l.Page
		}
	}
	if len(seen) < 50 {
		t.Errorf("only %d distinct internal links in the course; the link check saw too little", len(seen))
	}
	for u, from := range seen {
		resp, err := http.Head(u)
		if err != nil {
			t.Errorf("link %s (on %s): %v", u, from, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("link %s (on %s): %s", u, from, resp.Status)
		}
	}
}

// Search runs in the page from search.json: English and Chinese queries
// find pages and mark the match.
func courseSearch(t *testing.T, base string) {
	ctx := courseTab(t, viewportW, viewportH)
	for _, c := range []struct{ lang, q string }{{"en", "HBM"}, {"zh", "带宽"}, {"en", "ring all-reduce"}} {
		navigate(t, ctx, base+"course/"+c.lang+"/search.html?q="+url.QueryEscape(c.q))
		waitJS(t, ctx, `document.querySelectorAll("#results li").length > 0`, 10*time.Second, c.lang+" search for "+c.q)
		var r struct {
			N     int
			Marks []string
			First string
		}
		evalJSON(ctx, `({N: document.querySelectorAll("#results li").length,
		  Marks: [...document.querySelectorAll("#results mark")].map((m) => m.textContent),
		  First: document.querySelector("#results li a").getAttribute("href")})`, &r)
		if len(r.Marks) == 0 {
			t.Errorf("search %q (%s): %d results, no match marked", c.q, c.lang, r.N)
		}
		for _, term := range strings.Fields(strings.ToLower(c.q)) {
			found := false
			for _, m := range r.Marks {
				found = found || strings.ToLower(m) == term
			}
			if !found {
				t.Errorf("search %q (%s): %q is never marked (marks %q)", c.q, c.lang, term, r.Marks)
			}
		}
		if c.q == "HBM" {
			screenshot(ctx, "course-search-en")
		}
	}
	// The header's form leads there.
	navigate(t, ctx, base+"course/en/index.html")
	chromedpRun(t, ctx,
		chromedp.SendKeys(".site-head input[name=q]", "roofline\n", chromedp.ByQuery))
	waitJS(t, ctx, `location.pathname.endsWith("/course/en/search.html") && document.querySelectorAll("#results li").length > 0`, 10*time.Second, "the header's search form")
}

// On a phone the simulator sits above the text, full width at 4:3 (the
// embed drops its narration and minor controls in a frame that small, so
// the picture keeps most of it), and does not stick.
func coursePhone(t *testing.T, base string) {
	for _, c := range []struct{ lang, id string }{{"en", "ring-allreduce"}, {"zh", "roofline"}} {
		t.Run(c.lang, func(t *testing.T) {
			ctx := courseTab(t, 390, 844)
			where := "course/" + c.lang + "/" + c.id + ".html"
			navigate(t, ctx, base+where)
			sim, prose := elementRect(ctx, "#course-sim"), elementRect(ctx, ".prose")
			if sim.Width < 340 || prose.Y < sim.Y+sim.Height || sim.Height < sim.Width*3/4-2 || sim.Height > sim.Width*3/4+2 {
				t.Errorf("%s on a phone: simulator %+v, prose %+v; want the simulator full width at 4:3 above the text", where, sim, prose)
			}
			waitJS(t, ctx, `window.courseSim && window.courseSim.ready`, readyTimeout, where+": the simulator")
			screenshot(ctx, "course-phone-"+c.lang+"-"+c.id)
			evalJSON(ctx, `(() => { scrollTo(0, 1500); return true; })()`, new(bool))
			settle(ctx)
			if r := elementRect(ctx, "#course-sim"); r.Y > -r.Height/2 {
				t.Errorf("%s on a phone: after scrolling 1500 px the simulator is at y=%.0f; it should scroll away with the page", where, r.Y)
			}
		})
	}
	// The validation page's table is wider than a phone: it scrolls
	// sideways inside its wrapper, and the page does not.
	for _, lang := range []string{"en", "zh"} {
		t.Run("validation-"+lang, func(t *testing.T) {
			ctx := courseTab(t, 390, 844)
			where := "course/" + lang + "/validation.html"
			navigate(t, ctx, base+where)
			var w struct {
				Page, Inner, Wrap, WrapClient, Table float64
				Rows                                 int
			}
			evalJSON(ctx, `(() => { const d = document.querySelector(".validation-table .table-scroll");
			  return {Page: document.documentElement.scrollWidth, Inner: innerWidth,
			    Wrap: d ? d.scrollWidth : 0, WrapClient: d ? d.clientWidth : 0,
			    Table: d ? d.querySelector("table").getBoundingClientRect().width : 0,
			    Rows: document.querySelectorAll(".validation-table tbody tr").length}; })()`, &w)
			if w.Page > w.Inner+1 {
				t.Errorf("%s on a phone: the page is %.0f px wide in a %.0f px window; want the table to scroll in its wrapper", where, w.Page, w.Inner)
			}
			if w.Rows == 0 || w.WrapClient == 0 || w.WrapClient > w.Inner || w.Wrap <= w.WrapClient {
				t.Errorf("%s on a phone: %d rows, wrapper %.0f px showing %.0f px of a %.0f px table; want a wrapper within the window that scrolls", where, w.Rows, w.Wrap, w.WrapClient, w.Table)
			}
			screenshot(ctx, "course-phone-"+lang+"-validation")
		})
	}
}

// pdfPage counts the pages of a PDF: its /Type /Page objects (not
// /Pages).
var pdfPage = regexp.MustCompile(`/Type\s*/Page[^s]`)

// paper is a sheet the handout must fit, with the page margins of
// course.css's @page (11 mm top and bottom, 12 mm left and right) taken
// off, in CSS pixels.
type paper struct {
	name       string
	w, h       float64 // inches
	cssW, cssH int64   // the printable area
}

var papers = []paper{
	{"letter", 8.5, 11, 725, 972},  // (215.9 − 24) mm × (279.4 − 22) mm
	{"a4", 8.27, 11.69, 703, 1039}, // 186 mm × 275 mm
}

// The printed handout of every lesson fits one page, A4 and Letter: every
// page's handout is measured in print layout at each paper's width, and
// the tallest, and one more, are printed to PDF (the Chinese ones once in
// each of cjkFonts), where the title and the first number of the
// handout's tables must be found, whatever order pdftotext reads them in.
func coursePrint(t *testing.T, base string, stub *simStub) {
	ctx := courseTab(t, viewportW, viewportH)
	// The simulator is not printed: keep it from loading, so that each
	// page is quick.
	stub.on.Store(true)
	defer stub.on.Store(false)
	type tallest struct {
		where  string
		height float64
	}
	top := map[string]tallest{} // by language and paper
	var wheres []string
	for _, lang := range []string{"en", "zh"} {
		for _, s := range scenarios.All() {
			wheres = append(wheres, "course/"+lang+"/"+s.ID+".html")
		}
	}
	// One page in print layout measures every handout: each lesson's
	// handout is put in its place in turn.
	navigate(t, ctx, base+wheres[0])
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithMedia("print"))
	urls, _ := json.Marshal(wheres)
	for _, p := range papers {
		chromedpRun(t, ctx, chromedp.EmulateViewport(p.cssW, p.cssH))
		var heights []float64
		evalJSON(ctx, `(async () => {
		  const out = [];
		  const h = document.querySelector(".handout");
		  for (const u of `+string(urls)+`) {
		    const doc = new DOMParser().parseFromString(await (await fetch("/" + u)).text(), "text/html");
		    document.documentElement.lang = doc.documentElement.lang;
		    h.replaceChildren(...doc.querySelector(".handout").childNodes);
		    for (const img of h.querySelectorAll("img")) await img.decode().catch(() => {});
		    out.push(h.getBoundingClientRect().bottom + scrollY);
		  }
		  return out; })()`, &heights)
		if len(heights) != len(wheres) {
			t.Fatalf("%d handouts measured, want %d", len(heights), len(wheres))
		}
		for i, h := range heights {
			where := wheres[i]
			if h > float64(p.cssH) {
				t.Errorf("%s: the handout is %.0f px tall in print, over the %d px of a %s page", where, h, p.cssH, p.name)
			}
			if k := where[len("course/"):len("course/en")] + " " + p.name; h > top[k].height {
				top[k] = tallest{where, h}
			}
		}
	}
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithMedia(""), chromedp.EmulateViewport(viewportW, viewportH))
	for k, v := range top {
		t.Logf("tallest handout, %s: %s, %.0f px", k, v.where, v.height)
	}

	pdftotext, _ := exec.LookPath("pdftotext")
	pdftoppm, _ := exec.LookPath("pdftoppm")
	printed := map[string]bool{}
	var missingFonts []string
	// The English handouts in the page's own font stack (font ""), the
	// Chinese ones once in each of cjkFonts.
	type printing struct{ lang, font string }
	printings := []printing{{"en", ""}}
	for _, f := range cjkFonts {
		printings = append(printings, printing{"zh", f})
	}
	for _, pr := range printings {
		lang, font := pr.lang, pr.font
		for _, p := range papers {
			for _, where := range []string{top[lang+" "+p.name].where, "course/" + lang + "/ring-allreduce.html"} {
				if where == "" || printed[where+p.name+font] || slices.Contains(missingFonts, font) {
					continue
				}
				printed[where+p.name+font] = true
				id := strings.TrimSuffix(filepath.Base(where), ".html")
				s, _ := scenarios.Get(id)
				navigate(t, ctx, base+where)
				waitJS(t, ctx, `[...document.images].every((i) => i.complete)`, 10*time.Second, where+": images")
				label := where
				if font != "" {
					label += " in " + font
					if !useFont(t, ctx, font, "main h1") {
						missingFonts = append(missingFonts, font)
						continue
					}
				}
				var firstCell string
				evalJSON(ctx, `(document.querySelector(".handout .numbers td") || {}).textContent || ""`, &firstCell)
				var pdf []byte
				chromedpRun(t, ctx, chromedp.ActionFunc(func(ctx context.Context) error {
					var err error
					pdf, _, err = page.PrintToPDF().WithPaperWidth(p.w).WithPaperHeight(p.h).Do(ctx)
					return err
				}))
				if n := len(pdfPage.FindAll(pdf, -1)); n != 1 {
					t.Errorf("%s: the handout prints on %d %s pages, want 1", label, n, p.name)
				}
				if pdftotext != "" {
					// pdftotext puts Latin and CJK runs, and the lines
					// of a title beside the course's name, in an order
					// that depends on the font's metrics: compare
					// tokens, not their order.
					txt := pdfText(t, pdftotext, pdf)
					if miss := missingTokens(txt, i18n.T(lang, s.Title)); len(miss) > 0 {
						t.Errorf("%s: the printed handout (%s) lacks %q of the title:\n%s", label, p.name, miss, txt)
					}
					if miss := missingTokens(txt, firstCell); strings.TrimSpace(firstCell) == "" || len(miss) > 0 {
						t.Errorf("%s: the printed handout (%s) lacks %q of the number %q of its table:\n%s", label, p.name, miss, firstCell, txt)
					}
				}
				if pdftoppm != "" && p.name == "a4" {
					name := "course-handout-" + lang + "-" + id
					if font != "" {
						name += "-" + strings.ToLower(strings.Fields(font)[0])
					}
					pdfToScreen(t, pdftoppm, pdf, name)
				}
			}
		}
	}
	if len(missingFonts) > 0 {
		msg := fmt.Sprintf("the Chinese handouts were not printed in %s: not installed (.ci/deps.sh installs fonts-wqy-microhei and fonts-noto-cjk)", strings.Join(missingFonts, ", "))
		if os.Getenv("GPUSCOPE_REQUIRE_FONTS") == "1" {
			t.Error(msg + "; GPUSCOPE_REQUIRE_FONTS=1 (make test) requires them")
		} else {
			t.Log(msg)
		}
	}
	if pdftotext == "" {
		t.Skip("pdftotext not found (apt-get install poppler-utils): the handouts' text was not checked")
	}
}

// cjkFonts are the Chinese fonts the zh handouts are printed in, each in
// turn: Debian's fonts-wqy-microhei and fonts-noto-cjk, the most common
// (.ci/deps.sh installs both). pdftotext reads the same page back in
// another order with each.
var cjkFonts = []string{"WenQuanYi Micro Hei", "Noto Sans CJK SC"}

// useFont puts family in the course's font stack (course.css's --font)
// in place of the CJK fonts it names, as on a machine that has only that
// one (the Latin text keeps its own font), and reports whether the
// browser then draws some of the text of the element matching selector
// in it: false when family is not installed. (The handout is not laid out
// on screen: ask about the page's own title, drawn with the same stack.)
func useFont(t *testing.T, ctx context.Context, family, selector string) bool {
	t.Helper()
	var stack string
	evalJSON(ctx, fmt.Sprintf(`(async () => {
	  const root = document.documentElement;
	  const cjk = %s;
	  const stack = getComputedStyle(root).getPropertyValue("--font").split(",").map((f) => f.trim())
	    .filter((f) => !cjk.includes(f.replace(/"/g, "")));
	  stack.splice(stack.length - 1, 0, JSON.stringify(%s));
	  root.style.setProperty("--font", stack.join(", "));
	  await document.fonts.ready;
	  return stack.join(", "); })()`, jsonString(cjkFonts), jsonString(family)), &stack)
	var used []string
	chromedpRun(t, ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		if err := css.Enable().Do(ctx); err != nil {
			return err
		}
		var ids []cdp.NodeID
		if err := chromedp.NodeIDs(selector, &ids, chromedp.ByQuery).Do(ctx); err != nil {
			return err
		}
		fonts, err := css.GetPlatformFontsForNode(ids[0]).Do(ctx)
		for _, f := range fonts {
			used = append(used, f.FamilyName)
		}
		return err
	}))
	if !slices.Contains(used, family) {
		t.Logf("%s: drawn in %q with the stack %s, not in %q: is it installed?", selector, used, stack, family)
		return false
	}
	return true
}

// missingTokens returns the tokens of want that text lacks, in any
// order: each run of Latin letters, digits and punctuation (found in text
// with its spaces taken out) and each CJK character (counted: text must
// hold each as often as want does). Latin ligatures count as their
// letters.
func missingTokens(text, want string) []string {
	isCJK := func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
			r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef // CJK punctuation, full-width forms
	}
	unligature := strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl")
	tokens := func(s string) (latin []string, cjk map[rune]int) {
		cjk = map[rune]int{}
		var b strings.Builder
		flush := func() {
			if b.Len() > 0 {
				latin = append(latin, b.String())
				b.Reset()
			}
		}
		for _, r := range unligature.Replace(s) {
			switch {
			case isCJK(r):
				flush()
				cjk[r]++
			case unicode.IsSpace(r):
				flush()
			default:
				b.WriteRune(r)
			}
		}
		flush()
		return latin, cjk
	}
	_, have := tokens(text)
	flat := strings.Join(strings.Fields(unligature.Replace(text)), "")
	latin, need := tokens(want)
	var miss []string
	for _, w := range latin {
		if !strings.Contains(flat, w) {
			miss = append(miss, w)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(need)) {
		if have[r] < need[r] {
			miss = append(miss, string(r))
		}
	}
	return miss
}

func pdfText(t *testing.T, bin string, pdf []byte) string {
	t.Helper()
	cmd := exec.Command(bin, "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// pdfToScreen saves the PDF's first page as out/screens/NAME.png.
func pdfToScreen(t *testing.T, bin string, pdf []byte, name string) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "h.pdf")
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-png", "-r", "60", "-singlefile", in, filepath.Join(dir, "h")).CombinedOutput(); err != nil {
		t.Errorf("pdftoppm: %v: %s", err, out)
		return
	}
	png, err := os.ReadFile(filepath.Join(dir, "h.png"))
	if err != nil {
		t.Error(err)
		return
	}
	if err := writeScreen(filepath.Join("..", "..", "out", "screens"), name, png); err != nil {
		t.Error(err)
	}
}

// Offline: a lesson page loaded once comes back, from the service worker,
// when the network has gone (the emulated network is offline and the
// server is closed).
func courseOffline(t *testing.T) {
	srv := httptest.NewServer(server.Handler(siteDir))
	defer srv.Close()
	ctx := courseTab(t, viewportW, viewportH)
	where := "course/en/roofline.html"
	navigate(t, ctx, srv.URL+"/"+where)
	waitJS(t, ctx, `document.documentElement.dataset.offline === "ready"`, 20*time.Second, "the service worker keeps the page")
	var title string
	evalJSON(ctx, `document.querySelector("h1").textContent`, &title)

	srv.CloseClientConnections()
	srv.Close()
	chromedpRun(t, ctx, network.Enable(), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := network.EmulateNetworkConditionsByRule([]*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}).
			WithEmulateOfflineServiceWorker(true).Do(ctx)
		return err
	}))
	// What the page did not keep (the simulator, not loaded under the
	// worker) fails to load, as it should.
	allowConsoleErrors(ctx, `ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED|ERR_FAILED|Failed to (load|fetch)|offline|gpuscope`)
	chromedpRun(t, ctx, chromedp.Reload())
	var got struct {
		H1      string
		Grid    string
		Offline bool
	}
	evalJSON(ctx, `({H1: (document.querySelector("h1") || {}).textContent || "", Grid: getComputedStyle(document.querySelector("main")).display,
	  Offline: !!navigator.serviceWorker.controller})`, &got)
	if got.H1 != title || got.Grid != "grid" || !got.Offline {
		t.Errorf("offline reload of %s: h1 %q (want %q), main display %q (want grid: the stylesheet came too), controlled by the worker %v", where, got.H1, title, got.Grid, got.Offline)
	}
	screenshot(ctx, "course-offline")
}
