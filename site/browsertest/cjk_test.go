package browsertest

import (
	"image"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/render/font"
	"github.com/gpuscope/gpuscope/site/server"
)

// cjkLabels are the labels testdata/cjkpaint draws, black on white: each
// at (X, Y), the top left of its line box, at Size pixels.
var cjkLabels = []struct {
	X, Y, Size float32
	Text       string
}{
	{40, 40, 32, "显存 80 GB"},
	{40, 120, 32, "a中b"},
	{40, 200, 16, "每个GPU，"},
}

// Chinese on the canvas: the painter's font has no CJK glyphs, so
// render/paint has the browser draw them into its atlas, each in a cell
// one em wide, which render/font measures natively. testdata/cjkpaint
// paints labels mixing both; every CJK cell must hold ink (whichever CJK
// font the machine has: ink, not shapes), and the Latin text after them
// must start where render/font.Width says, so the native metrics are the
// drawn ones.
func TestCanvasCJKFallback(t *testing.T) {
	ctx := openBlank(t) // skips without a site to test
	dir := buildCJKPaint(t)
	srv := httptest.NewServer(server.Handler(dir))
	defer srv.Close()
	chromedpRun(t, ctx, chromedp.Navigate(srv.URL+"/index.html"))
	deadline := time.Now().Add(readyTimeout)
	for {
		var ready bool
		chromedpRun(t, ctx, chromedp.Evaluate(`!!window.cjkReady`, &ready))
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("testdata/cjkpaint did not draw within %v", readyTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	img := decodePNG(t, screenshot(ctx, "cjk-fallback"))

	// Ink: pixels clearly darker than the white background.
	ink := func(r image.Rectangle) int {
		r = r.Intersect(img.Bounds())
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if c := pixelAt(img, x, y); int(c.R)+int(c.G)+int(c.B) < 3*170 {
					n++
				}
			}
		}
		return n
	}
	if n := ink(image.Rect(0, 260, 800, 400)); n != 0 {
		t.Fatalf("%d dark pixels where nothing is drawn: the background is not plain white", n)
	}
	for _, l := range cjkLabels {
		lineH := int(l.Size*1.156 + 0.5)
		top, bottom := int(l.Y), int(l.Y)+lineH
		pen := l.X
		for _, r := range l.Text {
			adv := font.Advance(r, l.Size)
			if font.Fallback(r) {
				if adv != float32(font.Size(l.Size)) {
					t.Errorf("%q: render/font advances %q by %v, want one em", l.Text, r, adv)
				}
				cell := image.Rect(int(pen+0.5)+1, top, int(pen+adv+0.5)-1, bottom)
				// At least 2% of the cell: a 32 px ideograph has hundreds of
				// dark pixels, a 16 px fullwidth comma a handful.
				if n, want := ink(cell), max(3, cell.Dx()*cell.Dy()/50); n < want {
					t.Errorf("%q: %d dark pixels in %q's cell %v, want at least %d: the browser fallback drew nothing", l.Text, n, r, cell, want)
				}
			}
			pen += adv
		}
	}
	// "显存 80 GB": the 8 starts where render/font puts it. Nothing is
	// drawn between the end of 存's cell and it (the space), and its first
	// dark column is its left side bearing (≈ 2 px at 32 px) away.
	l := cjkLabels[0]
	cellEnd := int(l.X + 2*l.Size + 0.5)
	eight := l.X + font.Width("显存 ", l.Size)
	top, bottom := int(l.Y), int(l.Y+l.Size*1.156)
	if n := ink(image.Rect(cellEnd+1, top, int(eight), bottom)); n != 0 {
		t.Errorf("%d dark pixels between 存's cell (ends at x=%d) and the 8 (at %.1f): the CJK advance is not one em", n, cellEnd, eight)
	}
	first := -1
	for x := int(eight); x < int(eight)+12 && first < 0; x++ {
		if ink(image.Rect(x, top, x+1, bottom)) > 0 {
			first = x
		}
	}
	if first < 0 || float32(first) > eight+4 {
		t.Errorf("the 8 of %q starts at x=%d, want within 4 px right of %.1f (render/font.Width)", l.Text, first, eight)
	}
}

// buildCJKPaint builds testdata/cjkpaint for the browser into a temporary
// directory with its page and Go's wasm_exec.js.
func buildCJKPaint(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "build", "-trimpath", "-o", filepath.Join(dir, "cjkpaint.wasm"), "./testdata/cjkpaint")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/cjkpaint: %v\n%s", err, out)
	}
	root, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	var execJS string
	for _, d := range []string{"lib/wasm", "misc/wasm"} {
		p := filepath.Join(strings.TrimSpace(string(root)), d, "wasm_exec.js")
		if _, err := os.Stat(p); err == nil {
			execJS = p
			break
		}
	}
	if execJS == "" {
		t.Fatal("wasm_exec.js not found under GOROOT")
	}
	for src, dst := range map[string]string{
		execJS:                          "wasm_exec.js",
		"testdata/cjkpaint/index.html":  "index.html",
		"testdata/cjkpaint/cjkpaint.js": "cjkpaint.js",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
