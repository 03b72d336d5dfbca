package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Chromium accepts br, so with main.wasm.br in the site (make build writes
// it when the brotli command is installed) that is what it downloads, and
// the page runs on it.
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
	var sizes []struct {
		Encoded float64 `json:"encoded"`
		Decoded float64 `json:"decoded"`
	}
	evalJSON(ctx, `performance.getEntriesByType("resource").filter(e => new URL(e.name).pathname.endsWith("/main.wasm")).map(e => ({encoded: e.encodedBodySize, decoded: e.decodedBodySize}))`, &sizes)
	if len(sizes) != 1 {
		t.Fatalf("main.wasm fetched %d times, want once", len(sizes))
	}
	if got := sizes[0]; int64(got.Encoded) != br.Size() || int64(got.Decoded) != raw.Size() {
		t.Errorf("main.wasm arrived as %v bytes (%v decoded), want main.wasm.br's %d (%d decoded)", got.Encoded, got.Decoded, br.Size(), raw.Size())
	}
}
