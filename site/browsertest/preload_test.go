package browsertest

import (
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// main.wasm is preloaded by the page head and fetched once: the loader's
// fetch reuses the preload rather than downloading the module twice.
func TestWasmFetchedOnce(t *testing.T) {
	ctx := openBlank(t)
	var mu sync.Mutex
	requests := 0
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && strings.HasSuffix(e.Request.URL, "/main.wasm") {
			mu.Lock()
			requests++
			mu.Unlock()
		}
	})
	chromedpRun(t, ctx, network.Enable(), chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce"))
	waitReady(ctx)
	mu.Lock()
	defer mu.Unlock()
	if requests != 1 {
		t.Errorf("main.wasm requested %d times, want once (the preload reused)", requests)
	}
}
