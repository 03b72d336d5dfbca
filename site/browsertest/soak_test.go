package browsertest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// soakLesson is the heaviest lesson at its largest configuration: in
// make bench's page report 3d-parallel has the highest Update + Draw per
// frame, and its knobs at their largest (1,024 GPUs on screen, Megatron
// 1T, PP 16 with 64 micro-batches in the time line) cost the most.
const soakLesson = "index.html#scenario=3d-parallel&model=megatron-1t&gpus=1024&tp=8&pp=16&micro_batches=64"

// soakSample is one row of out/soak.csv.
type soakSample struct {
	At       float64 // seconds since the soak began
	Heap     float64 // state().perf.heap_bytes: the Go heap (HeapAlloc)
	JSHeap   float64 // state().perf.js_heap_bytes: performance.memory.usedJSHeapSize
	CDPUsed  float64 // Runtime.getHeapUsage usedSize: the JS heap, exact
	Backing  float64 // Runtime.getHeapUsage backingStorageSize (array buffers: the wasm memory among them)
	UpdateMS float64
	DrawMS   float64
	FPS      float64
	Step     int
	TimeS    float64
	Loops    int // times the lesson was played to its end so far
}

// TestSoak plays the heaviest lesson at the highest speed on a loop for
// GPUSCOPE_SOAK_MINUTES (default 10) minutes of wall time, sampling the Go
// heap, the JS heap (both live, after a collection) and the frame time
// every 10 s, and fails unless, after a warm-up, the heaps and the frame
// time are flat. The warm-up is the first 20% of the run, and at least one
// pass through the lesson: the first pass builds each step's picture once
// and its caches (the time line step's display list alone is ~5 MB at
// PP 16 × 64 micro-batches), which is growth but not a leak. It runs only with GPUSCOPE_SOAK=1 (make soak): a long run for
// release checks, not part of make test. The samples go to out/soak.csv,
// the verdict to out/soak.txt.
func TestSoak(t *testing.T) {
	if os.Getenv("GPUSCOPE_SOAK") != "1" {
		t.Skip("set GPUSCOPE_SOAK=1 (make soak) for the soak test")
	}
	minutes := 10.0
	if s := os.Getenv("GPUSCOPE_SOAK_MINUTES"); s != "" {
		m, err := strconv.ParseFloat(s, 64)
		if err != nil || !(m > 0) {
			t.Fatalf("GPUSCOPE_SOAK_MINUTES=%q: want a number of minutes > 0", s)
		}
		minutes = m
	}
	duration := time.Duration(minutes * float64(time.Minute))
	const every = 10 * time.Second

	ctx := open(t, soakLesson)
	waitReady(ctx)
	if st := state(ctx); st.Error != nil || st.Config["gpus"] != "1024" {
		t.Fatalf("the soak lesson did not open as asked: config %v, error %v", st.Config, deref(st.Error))
	}
	// Play on a loop: at a step's end play on (Play moves to the next
	// step); at the lesson's end go back to step 1 and play again. The
	// page fires gpuscope:step and gpuscope:finished from inside its
	// tick, so the commands wait for a timeout.
	//
	// The frame time is also read every second, into __soakFrames: the
	// steps' pictures differ in cost (the time line's is the dearest),
	// and a median of 10 s samples would depend on which steps they
	// happened to catch.
	var ok bool
	evalJSON(ctx, `(() => {
	  window.__soakLoops = 0;
	  window.__soakFrames = [];
	  const g = window.gpuscope;
	  addEventListener("gpuscope:step", () => setTimeout(() => g.command({type: "play"})));
	  addEventListener("gpuscope:finished", () => setTimeout(() => {
	    window.__soakLoops++;
	    g.command({type: "goto", step: 1});
	    g.command({type: "play"});
	  }));
	  const t0 = performance.now();
	  setInterval(() => {
	    const p = g.state().perf;
	    window.__soakFrames.push([(performance.now() - t0) / 1000, p.update_ms + p.draw_ms]);
	  }, 1000);
	  return g.command({type: "set", speed: 4}).ok && g.command({type: "play"}).ok;
	})()`, &ok)
	if !ok {
		t.Fatal("could not set speed 4 and play")
	}

	var samples []soakSample
	start := time.Now()
	for next := start.Add(every); ; next = next.Add(every) {
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		s := soakRead(t, ctx)
		s.At = time.Since(start).Seconds()
		samples = append(samples, s)
		t.Logf("%4.0f s: Go heap %.1f MB, JS heap %.1f MB, update %.2f ms + draw %.2f ms, %.1f fps, step %d, %d loops",
			s.At, s.Heap/1e6, s.CDPUsed/1e6, s.UpdateMS, s.DrawMS, s.FPS, s.Step, s.Loops)
		if st := state(ctx); !st.Playing {
			command(ctx, `{type: "play"}`) // a missed event must not end the soak
		}
		if time.Since(start) >= duration {
			break
		}
	}

	var frames [][2]float64 // seconds since the start, update + draw ms
	evalJSON(ctx, `window.__soakFrames`, &frames)
	verdict, failures := soakVerdict(samples, frames, duration)
	if err := writeSoak(samples, frames, verdict); err != nil {
		t.Errorf("writing out/soak.csv: %v", err)
	}
	t.Log(verdict)
	for _, f := range failures {
		t.Error(f)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// soakRead samples the page: state().perf and the loop count from the
// page, and the JS heap from DevTools after a collection
// (performance.memory may be coarse, and holds garbage). For the Go heap
// it sets window.gpuscopeHeapGC for a little over a second (the page
// reads its heap figures at most once a second): heap_bytes is then read
// after a full collection, the live heap (wasm/robust.go).
func soakRead(t *testing.T, ctx context.Context) soakSample {
	t.Helper()
	evalJSON(ctx, `window.gpuscopeHeapGC = true`, new(bool))
	time.Sleep(1100 * time.Millisecond)
	defer evalJSON(ctx, `window.gpuscopeHeapGC = false`, new(bool))
	var p struct {
		Heap   float64 `json:"heap_bytes"`
		JSHeap float64 `json:"js_heap_bytes"`
		Update float64 `json:"update_ms"`
		Draw   float64 `json:"draw_ms"`
		FPS    float64 `json:"fps"`
		Step   int     `json:"step"`
		TimeS  float64 `json:"time_s"`
		Loops  int     `json:"loops"`
	}
	evalJSON(ctx, `(() => { const s = window.gpuscope.state(); const p = s.perf;
	  return {heap_bytes: p.heap_bytes, js_heap_bytes: p.js_heap_bytes, update_ms: p.update_ms, draw_ms: p.draw_ms, fps: p.fps,
	    step: s.step, time_s: s.time_s, loops: window.__soakLoops}; })()`, &p)
	s := soakSample{Heap: p.Heap, JSHeap: p.JSHeap, UpdateMS: p.Update, DrawMS: p.Draw, FPS: p.FPS, Step: p.Step, TimeS: p.TimeS, Loops: p.Loops}
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		if err := heapprofiler.CollectGarbage().Do(ctx); err != nil {
			return err
		}
		var err error
		s.CDPUsed, _, _, s.Backing, err = runtime.GetHeapUsage().Do(ctx)
		return err
	})); err != nil {
		t.Fatalf("reading the JS heap: %v", err)
	}
	return s
}

// soakVerdict applies the soak's rules to the samples after the warm-up
// (the first 20% of the run and the first pass through the lesson), split
// into thirds: each heap's median in the
// last third within 20% of its median in the first, and no steady growth
// (a least-squares line's rise over the run under 20% of the mean); the
// frame time's (update + draw, read every second) median in the last
// third at most 1.3× the first's. It returns a one-line summary and the
// rules broken.
func soakVerdict(samples []soakSample, frames [][2]float64, duration time.Duration) (string, []string) {
	warm := 0.2 * duration.Seconds()
	for _, s := range samples {
		if s.Loops > 0 {
			warm = math.Max(warm, s.At)
			break
		}
	}
	var post []soakSample
	for _, s := range samples {
		if s.At > warm {
			post = append(post, s)
		}
	}
	if n := len(samples); n > 0 && samples[n-1].Loops == 0 {
		return "soak: the lesson never played to its end", []string{"the lesson never played through to its end: no loop to judge (run longer, or the page is stuck)"}
	}
	if len(post) < 6 {
		return fmt.Sprintf("soak: only %d samples after the warm-up, too few to judge (run longer)", len(post)),
			[]string{fmt.Sprintf("%d samples after the warm-up; the soak needs at least 6 (set GPUSCOPE_SOAK_MINUTES higher)", len(post))}
	}
	third := len(post) / 3
	first, last := post[:third], post[len(post)-third:]
	col := func(ss []soakSample, f func(soakSample) float64) []float64 {
		out := make([]float64, len(ss))
		for i, s := range ss {
			out[i] = f(s)
		}
		return out
	}
	var failures, parts []string
	heaps := []struct {
		name string
		f    func(soakSample) float64
	}{
		{"Go heap", func(s soakSample) float64 { return s.Heap }},
		{"JS heap", func(s soakSample) float64 { return s.CDPUsed }},
	}
	for _, h := range heaps {
		m1, m3 := median(col(first, h.f)), median(col(last, h.f))
		xs, ys := col(post, func(s soakSample) float64 { return s.At }), col(post, h.f)
		slope, mean := fitSlope(xs, ys)
		rise := slope * (xs[len(xs)-1] - xs[0])
		parts = append(parts, fmt.Sprintf("%s %.2f → %.2f MB (median, %+.0f%%), fitted rise %+.2f MB (%+.0f%% of the mean)",
			h.name, m1/1e6, m3/1e6, 100*(m3/m1-1), rise/1e6, 100*rise/mean))
		if m1 <= 0 || math.Abs(m3/m1-1) > 0.2 {
			failures = append(failures, fmt.Sprintf("%s not flat: median %.2f MB in the first third after the warm-up, %.2f MB in the last (allowed ±20%%)", h.name, m1/1e6, m3/1e6))
		}
		if rise > 0.2*mean {
			failures = append(failures, fmt.Sprintf("%s grows: a fitted rise of %.2f MB over the run, %.0f%% of its mean %.2f MB (allowed < 20%%)", h.name, rise/1e6, 100*rise/mean, mean/1e6))
		}
	}
	var fs []float64
	for _, f := range frames {
		if f[0] > warm && f[0] <= samples[len(samples)-1].At {
			fs = append(fs, f[1])
		}
	}
	if len(fs) < 3 {
		return "soak: no frame times after the warm-up", []string{fmt.Sprintf("%d frame time readings after the warm-up, want many", len(fs))}
	}
	f1, f3 := median(fs[:len(fs)/3]), median(fs[len(fs)-len(fs)/3:])
	parts = append(parts, fmt.Sprintf("frame (update + draw) %.2f → %.2f ms (median of %d readings a third, ×%.2f)", f1, f3, len(fs)/3, f3/f1))
	if f3 > 1.3*f1 {
		failures = append(failures, fmt.Sprintf("frame time not flat: update + draw median %.2f ms in the first third after the warm-up, %.2f ms in the last (allowed ≤ 1.3×)", f1, f3))
	}
	status := "OK"
	if len(failures) > 0 {
		status = "FAILED"
	}
	loops := samples[len(samples)-1].Loops
	return fmt.Sprintf("soak %s: %s for %s at speed 4, %d samples (%d after a %.0f s warm-up), %d times through the lesson; %s",
		status, strings.TrimPrefix(soakLesson, "index.html#"), duration, len(samples), len(post), warm, loops, strings.Join(parts, "; ")), failures
}

// fitSlope returns the least-squares slope of ys against xs, and ys's mean.
func fitSlope(xs, ys []float64) (slope, mean float64) {
	n := float64(len(xs))
	var sx, sy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, my
	}
	return sxy / sxx, my
}

// writeSoak writes out/soak.csv (one row per sample, with the mean of the
// frame times read every second since the sample before) and out/soak.txt
// (the verdict) at the repository root.
func writeSoak(samples []soakSample, frames [][2]float64, verdict string) error {
	dir := filepath.Join("..", "..", "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("elapsed_s,go_heap_bytes,js_heap_bytes,js_heap_used_cdp_bytes,backing_store_bytes,update_ms,draw_ms,frame_ms_mean_since_last,fps,step,time_s,loops\n")
	prev := 0.0
	for _, s := range samples {
		sum, n := 0.0, 0
		for _, f := range frames {
			if f[0] > prev && f[0] <= s.At {
				sum += f[1]
				n++
			}
		}
		mean := math.NaN()
		if n > 0 {
			mean = sum / float64(n)
		}
		prev = s.At
		fmt.Fprintf(&b, "%.1f,%.0f,%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.2f,%d,%g,%d\n",
			s.At, s.Heap, s.JSHeap, s.CDPUsed, s.Backing, s.UpdateMS, s.DrawMS, mean, s.FPS, s.Step, s.TimeS, s.Loops)
	}
	if err := os.WriteFile(filepath.Join(dir, "soak.csv"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "soak.txt"), []byte(verdict+"\n"), 0o644)
}
