package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/scenarios"
)

// heaviest is, for each lesson, the fragment that makes it heaviest to
// play: its largest knob values (most GPUs, ranks, blocks, micro-batches,
// the biggest sizes) on an animated step with the busiest picture. Most
// steps named here have no set: line, so the knobs stand as given; where
// a lesson animates only a step that sets its knobs (collectives-at-scale,
// number-formats, roofline), that step's values stand. memory-budget and
// zero-stages animate no step: their figure is the Go time of a repaint.
// A lesson missing here is measured at its defaults on its last step, and
// the report says so.
var heaviest = map[string]string{
	"3d-parallel":              "step=1&model=megatron-1t&gpus=1024&tp=8&pp=16&micro_batches=64&zero=1",
	"activation-checkpointing": "step=3&model=gpt3-175b&pp=16&gpus=128&micro_batches=32&recompute=full&flash=on",
	"collectives-at-scale":     "step=4&ranks=16384&gpus_per_node=8&inter=ib-hdr",
	"cpu-vs-gpu":               "step=5&size=16384&gpu=h200",
	"data-parallel":            "step=2&model=seed-100b&gpus=256&micro_batches=16&overlap=on",
	"expert-parallel":          "step=3&recompute=none&global_batch=15360",
	"fault-tolerance":          "step=4&gpus=32768&days=54&checkpoint_min=1&mtbf_gpu_hours=1000",
	"flash-attention":          "step=2&seq=65536&head_dim=256&heads=128&batch=1024",
	"fp8-training":             "step=6&recipe=nvfp4&outlier=100000&dist=lognormal",
	"fused-kernels":            "step=4&tokens=1048576&hidden=65536",
	"gradient-accumulation":    "step=3&seq=2048&micro_batch=4&micro_batches=8",
	"long-context":             "step=4&micro_batches=16&interleave=4&recompute=full",
	"memory-budget":            "step=5&model=llama3-405b&tp=8&pp=16&recompute=none&micro_batch=8",
	"memory-wall":              "step=5&size=16384&kernel=naive",
	"mixture-of-experts":       "step=4&model=deepseek-v3&gpu=h800&tokens=4096&ep=64&skew=1&capacity_factor=1.25",
	"number-formats":           "step=4",
	"nvlink-vs-ib":             "step=4&bytes=16GB&intra=nvlink5&inter=roce-400",
	"overlap":                  "step=3&model=llama2-70b&gpus=256&micro_batches=4&overlap=on",
	"rack-scale-nvlink":        "step=5&op=alltoall&bytes=16GB&domain=72&inter=ib-hdr",
	// The sandbox at its heaviest: the cluster at its 8,192 GPUs (3.6 ms
	// in a busy run; 16,384, not allowed, 7.4 ms, the build of every
	// GPU's colour and hop each frame); a drawn time line at the block
	// cap, 16 stages of 256 micro-batches, 3.1 ms.
	"sandbox":           "step=2&model=megatron-1t&gpus=8192&tp=8&pp=16&global_batch=2048",
	"pipeline-parallel": "step=4&pp=8&micro_batches=32&schedule=interleaved&interleave=4&recompute=full",
	"ring-allreduce":    "step=6&gpus=64&bytes=4GiB&nodes=8",
	"roofline":          "step=2",
	// Also the busiest silicon view: 132 SMs with every resident warp drawn.
	"simt-launch":      "step=6&blocks=100000",
	"strategy-planner": "step=4&model=llama3-405b&gpus=16384&global_batch=16384",
	"tensor-parallel":  "step=5&model=gpt3-175b&tp=32&pp=8&gpus=256",
	"zero-stages":      "step=4&model=llama2-70b&gpus=1024&zero=3",
}

// frameBudgetMS is issue 2's budget for Go time (Update + Draw) per frame.
const frameBudgetMS = 4.0

// TestBenchPage measures, in one headless run, the budgets that only a
// browser can show, and prints them for make bench:
//
//   - navigation to first frame, gpuscope vs a bare Ebiten program
//     (budget: at most 1.5× the bare program's);
//   - Update + Draw Go time per frame, from state().perf, at 64 GPUs,
//     for every lesson at its heaviest configuration (heaviest, above),
//     and with 512 GPUs on screen (budget: at most 4 ms): the median of
//     frameSamples one-second samples of steady play (steady, below),
//     with their spread;
//   - a knob change that re-plans 3d-parallel (within a 16.7 ms frame);
//   - the planner's search for Llama 3 405B on 16,384 GPUs (≤ 1 s);
//   - what an embed transfers before "Load simulation" (≤ 150 kB).
//
// It runs only when GPUSCOPE_BENCH=1 (make bench sets it): it is a
// measurement, not a pass/fail test, so timing noise never fails make test.
// The report is written to out/bench-page.txt: the sentences, then the
// same figures as Go benchmark lines (BenchmarkPage/...) for
// cmd/benchcheck to compare with bench/baseline.json.
func TestBenchPage(t *testing.T) {
	if os.Getenv("GPUSCOPE_BENCH") != "1" {
		t.Skip("set GPUSCOPE_BENCH=1 (make bench) to measure the page")
	}
	if only := os.Getenv("GPUSCOPE_BENCH_ONLY"); only != "" {
		benchLessons(t, strings.Split(only, ","))
		return
	}
	if _, err := os.Stat(filepath.Join(siteDir, "bare", "bare.wasm")); err != nil {
		t.Skip("no bare/bare.wasm in the site (make bench builds it)")
	}
	began := time.Now()
	var text, lines strings.Builder
	say := func(format string, args ...any) { fmt.Fprintf(&text, format+"\n", args...) }
	figure := func(name string, pairs ...any) {
		fmt.Fprintf(&lines, "BenchmarkPage/%s 1", name)
		for i := 0; i+1 < len(pairs); i += 2 {
			fmt.Fprintf(&lines, " %g %s", pairs[i], pairs[i+1])
		}
		lines.WriteString("\n")
	}

	var product string
	if err := chromedp.Run(browserCtx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, p, _, _, _, err := browser.GetVersion().Do(ctx)
		product = p
		return err
	})); err != nil {
		t.Logf("browser version: %v", err)
	}

	// Time to first frame, alternating the two programs.
	const runs = 5
	ours, bare := firstFrames(t, runs)
	mo, mb := median(ours), median(bare)
	say("first frame (navigation → first frame drawn, median of %d): gpuscope %.0f ms, bare Ebiten %.0f ms, ratio %.2f (budget ≤ 1.50)%s",
		runs, mo, mb, mo/mb, over(mo/mb > 1.5))
	figure("first-frame", mo, "ms", mo/mb, "ratio")

	// Issue 2's frame budget at 64 GPUs, as it has been measured since.
	t.Run("frame/ring-allreduce-64gpus", func(t *testing.T) {
		ctx, _, fr := playing(t, "index.html#scenario=ring-allreduce&gpus=64&step=6")
		var m struct{ Main, Init, Update, Draw, First float64 }
		evalJSON(ctx, `(() => { const p = window.gpuscope.state().perf; return {Main: p.main_ms, Init: p.init_ms, Update: p.first_update_ms, Draw: p.first_draw_ms, First: p.first_frame_ms}; })()`, &m)
		say("start-up of the 64-GPU tab: Go main at %.0f ms, lesson and DOM ready at %.0f ms, Ebiten's first Update at %.0f ms, first frame at %.0f ms (its Draw %.0f ms)",
			m.Main, m.Init, m.Update, m.First, m.Draw)
		sum := fr.median()
		say("per frame at 64 GPUs (ring-allreduce, gpus=64&step=6): %s (budget ≤ 4 ms)%s",
			fr, over(sum > frameBudgetMS))
		figure("frame/ring-allreduce-64gpus", sum, "ms/frame")
		chromedp.Cancel(ctx)
	})

	// Every lesson at its heaviest, playing, one tab at a time.
	for _, id := range scenarios.IDs() {
		frag, known := heaviest[id]
		if !known {
			frag = fmt.Sprintf("step=%d", lastStep(id))
		}
		t.Run("frame/"+id, func(t *testing.T) {
			ctx, st, fr := playingFor(t, "index.html#scenario="+id+"&"+frag, time.Second)
			if st.Scenario != id {
				t.Errorf("opened %s, the page shows %q", id, st.Scenario)
			}
			if st.Error != nil {
				t.Errorf("%s (%s): the page reports an error: %s", id, frag, *st.Error)
			}
			sum := fr.median()
			note := ""
			if !known {
				note = " (its defaults: add its heaviest knobs to heaviest in site/browsertest/bench_test.go)"
			}
			if fr.still {
				note += " (a still step: it stopped playing, nothing animates, and a frame repaints nothing)"
			}
			say("per frame, %s (%s; step %d/%d %q): %s (budget ≤ 4 ms)%s%s",
				id, frag, st.Step, st.Steps, st.StepID, fr, over(sum > frameBudgetMS), note)
			figure("frame/"+id, sum, "ms/frame")
			chromedp.Cancel(ctx) // close the tab: it would go on playing
		})
	}

	// The zoom's levels (issue 21) in the sandbox's heaviest time line
	// (Megatron 1T over 64 stages: 8,192 blocks), playing.
	for _, level := range []string{"node", "gpu", "sm"} {
		frag := "step=1&model=megatron-1t&gpus=512&tp=8&pp=64&global_batch=64&zoom=" + level + "&gpu=300"
		t.Run("frame/zoom-"+level, func(t *testing.T) {
			ctx, st, fr := playingFor(t, "index.html#scenario=sandbox&"+frag, time.Second)
			if st.Error != nil {
				t.Errorf("zoom %s: the page reports an error: %s", level, *st.Error)
			}
			sum := fr.median()
			say("per frame, the sandbox zoomed to the %s (%s): %s (budget ≤ 4 ms)%s", level, frag, fr, over(sum > frameBudgetMS))
			figure("frame/zoom-"+level, sum, "ms/frame")
			chromedp.Cancel(ctx)
		})
	}

	// The zoom in the lessons that gained it last (issue 21), each at its
	// heaviest level: the rack's 72-GPU NVLink domain, DeepSeek-V3's
	// dispatch over 64 H800s, a failed job's GPU on Meta's plan.
	for _, z := range []struct{ name, link string }{
		{"zoom-rack-node", "scenario=rack-scale-nvlink&step=1&zoom=node&gpu=3"},
		{"zoom-moe-node", "scenario=mixture-of-experts&step=2&zoom=node&gpu=3"},
		{"zoom-faults-gpu", "scenario=fault-tolerance&step=1&zoom=gpu&gpu=0"},
	} {
		t.Run("frame/"+z.name, func(t *testing.T) {
			ctx, st, fr := playingFor(t, "index.html#"+z.link, time.Second)
			if st.Error != nil {
				t.Errorf("%s: the page reports an error: %s", z.name, *st.Error)
			}
			sum := fr.median()
			say("per frame, %s (%s): %s (budget ≤ 4 ms)%s", z.name, z.link, fr, over(sum > frameBudgetMS))
			figure("frame/"+z.name, sum, "ms/frame")
			chromedp.Cancel(ctx)
		})
	}

	// The strategy layer: 512 GPUs on screen, playing; a knob change that
	// re-plans every step; the planner's whole search for Llama 3 405B
	// on 16,384 H100s, timed in the page around the command.
	cctx, _, cfr := playing(t, "index.html#scenario=3d-parallel&step=1&gpus=512")
	csum := cfr.median()
	say("per frame, 3d-parallel with 512 GPUs on screen (packets moving): %s (budget ≤ 4 ms)%s",
		cfr, over(csum > frameBudgetMS))
	figure("frame/3d-parallel-512gpus", csum, "ms/frame")
	timed := func(ctx context.Context, cmd string) float64 {
		var ms float64
		evalJSON(ctx, `(() => { const t0 = performance.now(); window.gpuscope.command(`+cmd+`); return performance.now() - t0; })()`, &ms)
		return ms
	}
	// Five knob changes (micro-batches 8 → 16 → 32 → 64 → 8 → 16): the
	// median, as one change is a single noisy sample.
	var replans []float64
	for _, mb := range []int{16, 32, 64, 8, 16} {
		replans = append(replans, timed(cctx, fmt.Sprintf(`{type: "set", micro_batches: %d}`, mb)))
	}
	replan := median(replans)
	say("a knob change in 3d-parallel re-plans all five steps in %.1f ms (median of micro-batches → 16, 32, 64, 8, 16: %.1f ms; one frame is 16.7 ms)%s",
		replan, replans, over(replan > 16.7))
	figure("replan", replan, "ms")
	chromedp.Cancel(cctx)

	pctx := open(t, "index.html#scenario=strategy-planner&model=llama3-405b&gpus=8192&global_batch=2048")
	waitReady(pctx)
	search := timed(pctx, `{type: "set", gpus: 16384}`)
	var fitting struct {
		Evaluated int `json:"evaluated"`
		Fitting   int `json:"fitting"`
	}
	evalJSON(pctx, `window.gpuscope.state().metrics.search`, &fitting)
	say("planner search, Llama 3 405B on 16,384 H100s (%d plans, %d fit), in the page: %.0f ms (budget ≤ 1000 ms)%s",
		fitting.Evaluated, fitting.Fitting, search, over(search > 1000))
	figure("search405B", search, "ms", float64(fitting.Evaluated), "plans/op")
	chromedp.Cancel(pctx)

	// What one embed costs a blog's reader before "Load simulation", with
	// a cold cache (TestEmbedPosterLoadsOnClick checks the same budget).
	t.Run("embed", func(t *testing.T) {
		n, paths := embedBeforeLoad(t)
		say("an embed before \"Load simulation\" transfers %d bytes (%d requests, cold cache; budget ≤ %d)%s",
			n, len(paths), embedBudget, over(n > embedBudget))
		figure("embed-before-load", float64(n), "bytes")
	})

	say("(page benchmark: %.0f s)", time.Since(began).Seconds())
	report := text.String()
	fmt.Print(report)
	out := report + "\n# The figures above for cmd/benchcheck (Go benchmark format).\n"
	if product != "" {
		out += "chromium: " + product + "\n"
	}
	out += lines.String()
	_ = os.MkdirAll(filepath.Join("..", "..", "out"), 0o755)
	_ = os.WriteFile(filepath.Join("..", "..", "out", "bench-page.txt"), []byte(out), 0o644)
}

// benchLessons measures only the frames of the lessons named (GPUSCOPE_BENCH_ONLY,
// comma-separated, at their heaviest; "first-frame" for the time to the
// first frame), printing them: a quick look at a few lessons without the
// whole page benchmark. It writes no report file.
func benchLessons(t *testing.T, ids []string) {
	for _, id := range ids {
		if id == "first-frame" {
			// Time to first frame against the bare program, as the whole
			// benchmark measures it (needs bare/ in the site).
			ours, bare := firstFrames(t, 5)
			fmt.Printf("first frame, median of 5: gpuscope %.0f ms (%v), bare %.0f ms (%v), ratio %.2f\n", median(ours), ours, median(bare), bare, median(ours)/median(bare))
			continue
		}
		frag, known := heaviest[id]
		if !known {
			frag = fmt.Sprintf("step=%d", lastStep(id))
		}
		t.Run("frame/"+id, func(t *testing.T) {
			ctx, st, fr := playingFor(t, "index.html#scenario="+id+"&"+frag, time.Second)
			if st.Error != nil {
				t.Errorf("%s (%s): the page reports an error: %s", id, frag, *st.Error)
			}
			fmt.Printf("per frame, %s (%s): %s\n", id, frag, fr)
			chromedp.Cancel(ctx)
		})
	}
}

// lastStep is the number of id's last step (1 if unknown).
func lastStep(id string) int {
	if s, ok := scenarios.Get(id); ok && len(s.Steps) > 0 {
		return len(s.Steps)
	}
	return 1
}

// embedBeforeLoad loads a blog-like page with one embed, the browser cache
// cleared, and returns the bytes the site sent before any click.
func embedBeforeLoad(t *testing.T) (int64, []string) {
	site := strings.TrimSuffix(baseURL, "/")
	ctx := openBlank(t)
	defer chromedp.Cancel(ctx)
	chromedpRun(t, ctx, network.Enable(), network.ClearBrowserCache())
	post := parentPage(t, `<iframe src="`+site+`/embed.html#scenario=roofline&step=1&lang=en" title="gpuscope" loading="lazy" allow="fullscreen"></iframe>`)
	traffic.reset()
	chromedpRun(t, ctx, chromedp.Navigate(post.URL+"/post.html"))
	waitServed(t, "/posters/roofline-", 1)
	time.Sleep(time.Second)
	return traffic.bytes()
}

// playing opens path and plays it to a steady state (steady).
func playing(t *testing.T, path string) (context.Context, pageState, frameStats) {
	return playingFor(t, path, 2*time.Second)
}

// frameSamples is how many one-second samples of steady play a frame
// figure is the median of.
const frameSamples = 5

// playingFor opens path, waits warm after the page is ready, plays at a
// quarter speed and measures steady play (steady); it returns the state
// at the end and the samples. At a quarter speed a step's window lasts
// 24 s, so the 7 s of playing stay within the step it opened.
func playingFor(t *testing.T, path string, warm time.Duration) (context.Context, pageState, frameStats) {
	ctx := open(t, path)
	waitReady(ctx)
	time.Sleep(warm)
	command(ctx, `{type: "set", speed: 0.25}`)
	fr := steady(ctx)
	return ctx, state(ctx), fr
}

// steady samples a playing page's Go time per frame. state().perf's
// means start afresh whenever playing starts: a second after starting
// (its first frames rebuild what the run shares), each sample pauses,
// plays again and reads the means of the second that follows — ticks and
// repaints of steady play only, however few the frames SwiftShader
// manages. A step that does not play (a still one: play moves the
// playhead to its end) is read once, a second after its play.
func steady(ctx context.Context) frameStats {
	command(ctx, `{type: "play"}`)
	time.Sleep(time.Second)
	var fr frameStats
	if st := state(ctx); !st.Playing {
		fr.still = true
		fr.add(st)
		return fr
	}
	for range frameSamples {
		command(ctx, `{type: "pause"}`)
		command(ctx, `{type: "play"}`)
		time.Sleep(time.Second)
		fr.add(state(ctx))
	}
	return fr
}

// frameStats are samples of state().perf: Update + Draw ms a frame, and
// the frames behind each.
type frameStats struct {
	sums, update, draw []float64
	ticks, repaints    []float64
	still              bool
}

func (f *frameStats) add(st pageState) {
	f.sums = append(f.sums, st.Perf.UpdateMS+st.Perf.DrawMS)
	f.update, f.draw = append(f.update, st.Perf.UpdateMS), append(f.draw, st.Perf.DrawMS)
	f.ticks, f.repaints = append(f.ticks, float64(st.Perf.UpdateFrames)), append(f.repaints, float64(st.Perf.DrawFrames))
}

// median is the median sample's Update + Draw, ms (0 for none).
func (f frameStats) median() float64 {
	if len(f.sums) == 0 {
		return 0
	}
	return median(f.sums)
}

// String says the figure, its parts, its spread and its frames.
func (f frameStats) String() string {
	if len(f.sums) == 0 {
		return "no samples"
	}
	lo, hi := slices.Min(f.sums), slices.Max(f.sums)
	return fmt.Sprintf("update %.2f ms + draw %.2f ms = %.2f ms a frame (median of %d one-second samples: %.2f–%.2f ms; a sample %.0f ticks, %.0f repaints, %.0f fps in SwiftShader)",
		median(f.update), median(f.draw), f.median(), len(f.sums), lo, hi, median(f.ticks), median(f.repaints), median(f.repaints))
}

func over(b bool) string {
	if b {
		return "  OVER BUDGET"
	}
	return ""
}

// firstFrame opens path in a fresh tab and returns the page's
// performance.now() at its first frame, read by probe (0 until then).
// firstFrames times runs first frames of gpuscope (the 8-GPU
// ring-allreduce) and of the bare Ebiten program, alternating them.
func firstFrames(t *testing.T, runs int) (ours, bare []float64) {
	for range runs {
		bare = append(bare, firstFrame(t, "bare/index.html", `window.__bareReadyAt || 0`))
		ours = append(ours, firstFrame(t, "index.html#scenario=ring-allreduce&gpus=8",
			`(window.gpuscope && window.gpuscope.ready) ? window.gpuscope.state().perf.first_frame_ms : 0`))
	}
	return ours, bare
}

func firstFrame(t *testing.T, path, probe string) float64 {
	ctx := openBlank(t)
	hook := `Object.defineProperty(window, "bareReady", {configurable: true,
	  set(v) { if (v && !window.__bareReadyAt) window.__bareReadyAt = performance.now(); }, get() { return !!window.__bareReadyAt; }});`
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(c context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(hook).Do(c)
		return err
	}), chromedp.Navigate(baseURL+path)); err != nil {
		t.Fatal(err)
	}
	// Close the tab once measured, so it does not slow the next one down.
	defer chromedp.Cancel(ctx)
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		var at float64
		evalJSON(ctx, probe, &at)
		if at > 0 {
			return at
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: no first frame after %v", path, readyTimeout)
	return 0
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
