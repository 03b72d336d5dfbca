package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The README's iframe snippet, pasted into a page on another origin, shows
// the lesson: the test reads the snippet from README.md so the README stays
// true.
func TestReadmeIframeSnippet(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	snippet := regexp.MustCompile(`(?s)<iframe .*?</iframe>`).Find(readme)
	if snippet == nil {
		t.Fatal("README.md has no <iframe> snippet")
	}
	frame := strings.Replace(string(snippet), "http://localhost:8080/", baseURL, 1)
	if frame == string(snippet) {
		t.Fatalf("the README snippet does not point at http://localhost:8080/: %s", snippet)
	}
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><title>A blog post</title></head>
<body style="margin:0;background:#fff;font:16px serif"><main style="width:800px;margin:0 auto">
<p>Some prose before the simulator.</p>` + frame + `<p>Some prose after.</p></main></body></html>`))
	}))
	defer host.Close()

	ctx := openBlank(t)
	traffic.reset()
	chromedpRun(t, ctx, chromedp.Navigate(host.URL+"/post.html"))
	ifr := elementRect(ctx, "iframe")
	if ifr.Width < 780 || ifr.Height < 480 {
		t.Fatalf("iframe is %.0fx%.0f, want 800 wide at 16:10", ifr.Width, ifr.Height)
	}
	// The frame shows the lesson's poster and a load button (a blog's page
	// stays light until a reader asks): press it.
	time.Sleep(time.Second)
	if reqs, _ := traffic.count("/main.wasm"); reqs != 0 {
		t.Errorf("the README's iframe fetched main.wasm before a click")
	}
	clickCentre(t, ctx, "iframe")
	// The frame is another origin: its window cannot be read, so look at
	// it. Wait until GPU rims appear in the frame (the first frame drawn).
	deadline := time.Now().Add(readyTimeout)
	for {
		shot := screenshot(ctx, "readme-iframe")
		sectors, _ := rims(decodePNG(t, shot), ifr, 8)
		lit := 0
		for _, c := range sectors {
			if c >= 5 {
				lit++
			}
		}
		if lit == 8 {
			break // the ring of eight GPUs is drawn inside the frame
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ring of 8 GPUs in the embedded frame after %v (sectors %v)", readyTimeout, sectors)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
