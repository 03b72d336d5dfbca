package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Chromium accepts br, so with main.wasm.br in the site (make build writes
// it when the brotli command is installed) that is what the server sends
// it, and the page runs on it, decoded to the full module.
func TestWasmServedBrotli(t *testing.T) {
	ctx := openBlank(t)
	br, err := os.Stat(filepath.Join(siteDir, "main.wasm.br"))
	if err != nil {
		t.Skip("no main.wasm.br in the site (brotli not installed when it was built)")
	}
	raw, err := os.Stat(filepath.Join(siteDir, "main.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	// From the server, not from the cache earlier tests filled.
	traffic.reset()
	chromedpRun(t, ctx, network.Enable(), network.SetCacheDisabled(true),
		chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce"))
	waitReady(ctx)
	if n := traffic.bytesFor("/main.wasm"); n != br.Size() {
		t.Errorf("the server sent %d bytes for main.wasm, want main.wasm.br's %d", n, br.Size())
	}
	// The loader counted the decoded stream against X-Uncompressed-Length.
	var st struct {
		Loaded float64 `json:"loaded"`
		Total  float64 `json:"total"`
	}
	evalJSON(ctx, `window.gpuscopeLoader`, &st)
	if int64(st.Loaded) != raw.Size() || int64(st.Total) != raw.Size() {
		t.Errorf("the loader read %v of %v bytes, want main.wasm's %d of %d", st.Loaded, st.Total, raw.Size(), raw.Size())
	}
}
