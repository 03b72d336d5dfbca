package browsertest

// The Hugo, Jekyll and MkDocs examples (site/examples/hugo, jekyll,
// mkdocs), built with the real programs — Debian's hugo, jekyll and
// mkdocs, which .ci/deps.sh installs — into a temporary folder: the
// iframes they write must be the ones the examples' READMEs promise, and
// with gpuscope served where the READMEs say to put it (/gpuscope/), each
// generated page's frames load embed.html in the browser.
//
// The builds need no browser and run in every `go test`; the pages are
// loaded when the browser tests run (GPUSCOPE_SITE_DIR). A missing program
// skips its test, unless the test runs as root (then .ci/deps.sh should
// have installed it) or GPUSCOPE_REQUIRE_SSG=1 (make test sets it): then
// it fails.

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/site/server"
)

// ssgExample is one example site and how its program builds it.
type ssgExample struct {
	program string // the command, and its Debian package
	dir     string // the example, under site/examples
	// args builds the site copied to src into out.
	args func(src, out string) []string
	page string // the page to look at, under out
	// frames are the iframes the page must hold, attribute by attribute
	// (values unescaped), in order.
	frames []map[string]string
	// readme, when set, is the example's README: the page's first iframe
	// must be, character for character, the one it shows rendered.
	readme string
}

// The shortcode and the include are called twice in their example pages:
// as their READMEs show, and with every parameter.
var (
	shortcodeFrames = []map[string]string{
		{"src": "/gpuscope/embed.html#scenario=roofline&step=2&lang=en", "title": "gpuscope: roofline", "loading": "lazy", "allow": "fullscreen",
			"style": "width:100%; aspect-ratio:16/10; border:0"},
		{"src": "/gpuscope/embed.html#scenario=ring-allreduce&step=3&lang=zh&hide=narration,share&theme=dark&load=visible", "title": "Ring, in Chinese",
			"loading": "lazy", "allow": "fullscreen", "style": "width:100%; height:480px; border:0"},
	}
	ssgExamples = []ssgExample{
		{program: "hugo", dir: "hugo", page: "roofline/index.html", frames: shortcodeFrames, readme: "README.md",
			args: func(src, out string) []string {
				return []string{"--source", src, "--destination", out, "--cacheDir", filepath.Join(src, ".cache"), "--quiet"}
			}},
		{program: "jekyll", dir: "jekyll", page: "roofline.html", frames: shortcodeFrames, readme: "README.md",
			args: func(src, out string) []string {
				return []string{"build", "--quiet", "--disable-disk-cache", "--source", src, "--destination", out}
			}},
		// MkDocs passes the iframes through as lesson.md writes them.
		{program: "mkdocs", dir: "mkdocs", page: "lesson/index.html",
			args: func(src, out string) []string {
				return []string{"build", "--quiet", "--strict", "--config-file", filepath.Join(src, "mkdocs.yml"), "--site-dir", out}
			}},
	}
)

func TestStaticSiteGenerators(t *testing.T) {
	sideBySide(t)
	for _, ex := range ssgExamples {
		t.Run(ex.program, func(t *testing.T) {
			bin := requireProgram(t, ex.program)
			src, out := copyExample(t, ex.dir), t.TempDir()
			runSSG(t, bin, ex.args(src, out)...)
			page, err := os.ReadFile(filepath.Join(out, ex.page))
			if err != nil {
				t.Fatalf("%s wrote no %s: %v", ex.program, ex.page, err)
			}
			want := ex.frames
			if want == nil {
				md, err := os.ReadFile(filepath.Join(src, "docs", "lesson.md"))
				if err != nil {
					t.Fatal(err)
				}
				want = iframeAttrs(iframeTags(string(md)))
			}
			tags := iframeTags(string(page))
			if got := iframeAttrs(tags); !slices.EqualFunc(got, want, maps.Equal) {
				t.Errorf("%s wrote the iframes\n  %s\nwant (attribute by attribute)\n  %v", ex.program, strings.Join(tags, "\n  "), want)
			}
			if ex.readme != "" {
				readme, err := os.ReadFile(filepath.Join(examplesDir, ex.dir, ex.readme))
				if err != nil {
					t.Fatal(err)
				}
				promised := iframeTags(string(regexp.MustCompile("(?s)```html\\s*(<iframe .*?</iframe>)").Find(readme)))
				if len(promised) == 0 || len(tags) == 0 || tags[0] != promised[0] {
					t.Errorf("%s/%s promises\n  %v\n%s writes\n  %v", ex.dir, ex.readme, promised, ex.program, tags)
				}
			}
			if browserCtx != nil {
				ssgPageInBrowser(t, ex.program, out, ex.page, want)
			}
		})
	}
}

// The shortcode's and the include's base: the site setting the READMEs
// document moves every frame, and Hugo fails a page that names no lesson.
func TestStaticSiteGeneratorSettings(t *testing.T) {
	sideBySide(t)
	const base = "https://gpuscope.example/"
	t.Run("hugo", func(t *testing.T) {
		bin := requireProgram(t, "hugo")
		src, out := copyExample(t, "hugo"), t.TempDir()
		cfg := filepath.Join(src, "hugo.toml")
		b, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), `gpuscope_base = "/gpuscope/"`, `gpuscope_base = "`+base+`"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		runSSG(t, bin, ssgExamples[0].args(src, out)...)
		checkBase(t, "hugo", filepath.Join(out, "roofline", "index.html"), base)

		// No scenario: errorf fails the build, naming the parameter.
		broken := filepath.Join(src, "content", "broken.md")
		if err := os.WriteFile(broken, []byte("---\ntitle: broken\n---\n\n{{< gpuscope step=\"2\" >}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, slices.DeleteFunc(ssgExamples[0].args(src, t.TempDir()), func(a string) bool { return a == "--quiet" })...)
		cmd.Env = ssgEnv()
		if msg, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(msg), "the scenario parameter is required") {
			t.Errorf("hugo with {{< gpuscope step=\"2\" >}}: %v, %s; want the build to fail naming scenario", err, msg)
		}
	})
	t.Run("jekyll", func(t *testing.T) {
		bin := requireProgram(t, "jekyll")
		src, out := copyExample(t, "jekyll"), t.TempDir()
		extra := filepath.Join(t.TempDir(), "base.yml")
		if err := os.WriteFile(extra, []byte("gpuscope_base: "+base+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runSSG(t, bin, append(ssgExamples[1].args(src, out), "--config", filepath.Join(src, "_config.yml")+","+extra)...)
		checkBase(t, "jekyll", filepath.Join(out, "roofline.html"), base)
	})
}

// checkBase: the page's frames come from base.
func checkBase(t *testing.T, program, page, base string) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	fs := iframeAttrs(iframeTags(string(b)))
	if len(fs) != len(shortcodeFrames) {
		t.Fatalf("%s with gpuscope_base %s: %d frames, want %d", program, base, len(fs), len(shortcodeFrames))
	}
	for i, f := range fs {
		if want := base + strings.TrimPrefix(shortcodeFrames[i]["src"], "/gpuscope/"); f["src"] != want {
			t.Errorf("%s with gpuscope_base %s: frame %d src %s, want %s", program, base, i, f["src"], want)
		}
	}
}

// requireProgram finds a generator, or skips the test (fails it as root or
// under GPUSCOPE_REQUIRE_SSG=1).
func requireProgram(t *testing.T, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err == nil {
		return bin
	}
	msg := fmt.Sprintf("%s is not installed (apt-get install -y %s; .ci/deps.sh installs it as root)", name, name)
	switch {
	case os.Getenv("GPUSCOPE_REQUIRE_SSG") == "1":
		t.Fatal(msg + "; GPUSCOPE_REQUIRE_SSG=1 (make test) requires it")
	case os.Geteuid() == 0:
		t.Fatal(msg + "; running as root, where .ci/deps.sh would have installed it")
	}
	t.Skip(msg)
	return ""
}

// copyExample copies site/examples/DIR into a temporary folder, so that
// what a generator writes beside its sources (locks, caches) stays there.
func copyExample(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), dir)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(examplesDir, dir))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// ssgEnv is the generators' environment: UTF-8, and a home of their own.
func ssgEnv() []string {
	return append(os.Environ(), "LC_ALL=C.UTF-8", "LANG=C.UTF-8")
}

func runSSG(t *testing.T, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(ssgEnv(), "HOME="+t.TempDir())
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	t.Logf("%s built the example in %v", filepath.Base(bin), time.Since(start).Round(time.Millisecond))
}

var (
	iframeTag  = regexp.MustCompile(`(?s)<iframe\s[^>]*>\s*</iframe>`)
	iframeAttr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
)

// iframeTags are the <iframe …></iframe> elements of an HTML text, as
// written.
func iframeTags(s string) []string { return iframeTag.FindAllString(s, -1) }

// iframeAttrs are each tag's attributes, values unescaped (&amp; is &).
func iframeAttrs(tags []string) []map[string]string {
	var out []map[string]string
	for _, tag := range tags {
		attrs := map[string]string{}
		for _, m := range iframeAttr.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = html.UnescapeString(m[2])
		}
		out = append(out, attrs)
	}
	return out
}

// ssgPageInBrowser serves a generated site with gpuscope's built site at
// /gpuscope/, as the READMEs say to deploy it, opens page, and checks
// each frame's attributes as the browser reads them and that each loads
// embed.html.
func ssgPageInBrowser(t *testing.T, program, out, page string, want []map[string]string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/gpuscope/", http.StripPrefix("/gpuscope", server.Handler(siteDir)))
	mux.Handle("/", http.FileServer(http.Dir(out)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := openBlank(t)
	allowConsoleErrors(ctx, "favicon.ico")
	chromedpRun(t, ctx, chromedp.Navigate(srv.URL+"/"+strings.TrimSuffix(page, "index.html")))
	fs := frames(ctx)
	if len(fs) != len(want) {
		t.Fatalf("the browser finds %d iframes in %s, want %d", len(fs), page, len(want))
	}
	for i, f := range fs {
		w := want[i]
		aspect, height := "16 / 10", ""
		if strings.Contains(w["style"], "height:480px") {
			aspect, height = "", "480px"
		}
		if f.Src != srv.URL+w["src"] || f.Title != w["title"] || f.Loading != "lazy" || f.Allow != "fullscreen" ||
			f.Width != "100%" || f.Border != "none" || f.Aspect != aspect || f.Height != height {
			t.Errorf("%s, iframe %d:\n  got  %+v\n  want src %s, title %q, loading lazy, allow fullscreen, width 100%%, no border, aspect-ratio %q, height %q",
				page, i, f, srv.URL+w["src"], w["title"], aspect, height)
		}
	}
	waitFramesLoaded(t, ctx)
	var loaded []string
	evalJSON(ctx, `[...document.querySelectorAll("iframe")].map((f) => f.contentWindow.location.pathname + " " +
	  f.contentDocument.body.classList.contains("page-embed"))`, &loaded)
	for i, l := range loaded {
		if l != "/gpuscope/embed.html true" {
			t.Errorf("%s, iframe %d shows %q, want gpuscope's embed.html", page, i, l)
		}
	}
	screenshot(ctx, "example-"+program)
}
