package zzprobe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
	"github.com/gpuscope/gpuscope/internal/headless"
)

func warm() int { if os.Getenv("WARM") != "" { return 12 }; return 0 }

func TestTraceLoad(t *testing.T) {
	opts := headless.AllocatorOptions("/usr/bin/chromium", t.TempDir(), 1280, 800, chromedp.Flag("disable-gpu-rasterization", true), chromedp.Flag("js-flags", os.Getenv("JSFLAGS")))
	actx, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
	defer c1()
	ctx, c2 := chromedp.NewContext(actx)
	defer c2()
	var events []map[string]any
	done := make(chan struct{})
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			for _, raw := range e.Value {
				var m map[string]any
				if json.Unmarshal(raw, &m) == nil {
					events = append(events, m)
				}
			}
		case *tracing.EventTracingComplete:
			close(done)
		}
	})
	chromedp.Run(ctx, chromedp.Navigate(os.Getenv("PROBE_URL")))
	time.Sleep(time.Duration(warm()) * time.Second)
	chromedp.Run(ctx, chromedp.Navigate("about:blank"))
	if err := chromedp.Run(ctx, tracing.Start().WithTraceConfig(&tracing.TraceConfig{IncludedCategories: []string{"devtools.timeline", "v8", "v8.wasm", "disabled-by-default-v8.compile", "toplevel", "gpu", "blink", "loading"}}).WithTransferMode(tracing.TransferModeReportEvents)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	chromedp.Run(ctx, chromedp.Navigate(os.Getenv("PROBE_URL")))
	var ready bool
	for !ready && time.Since(start) < 60*time.Second {
		chromedp.Run(ctx, chromedp.Evaluate(`!!(window.gpuscope && window.gpuscope.ready)`, &ready))
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	chromedp.Run(ctx, tracing.End())
	<-done
	// complete events' self durations by name and thread
	type key struct{ name, thread string }
	tot := map[key]float64{}
	threads := map[string]string{}
	for _, e := range events {
		if e["ph"] == "M" && e["name"] == "thread_name" {
			args, _ := e["args"].(map[string]any)
			threads[fmt.Sprint(e["pid"], "/", e["tid"])] = fmt.Sprint(args["name"])
		}
	}
	for _, e := range events {
		if e["ph"] != "X" {
			continue
		}
		d, _ := e["dur"].(float64)
		th := threads[fmt.Sprint(e["pid"], "/", e["tid"])]
		tot[key{fmt.Sprint(e["name"]), th}] += d / 1000
	}
	var ks []key
	for k := range tot {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return tot[ks[i]] > tot[ks[j]] })
	fmt.Printf("ready after %v\n", time.Since(start))
	for _, k := range ks[:min(45, len(ks))] {
		fmt.Printf("%9.1f ms  %-50s %s\n", tot[k], k.name, k.thread)
	}
}
