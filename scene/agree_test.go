package scene

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The canvas says what the narration says (issue 39): a number on both is
// one engine value in one format.

// prepared is lesson id at its defaults with the assignments in set.
func prepared(t *testing.T, id string, set ...string) *scenarios.Lesson {
	t.Helper()
	s, ok := scenarios.Get(id)
	if !ok {
		t.Fatalf("no lesson %s", id)
	}
	cfg := s.Defaults()
	for _, a := range set {
		k, v, _ := strings.Cut(a, "=")
		cfg[k] = v
	}
	les, err := scenarios.Prepare(s, cfg)
	if err != nil {
		t.Fatalf("%s %v: %v", id, set, err)
	}
	return les
}

// stepOf is the 1-based number of the step with id.
func stepOf(t *testing.T, les *scenarios.Lesson, id string) int {
	t.Helper()
	n := les.StepNumber(id)
	if n == 0 {
		t.Fatalf("%s has no step %s", les.Scenario.ID, id)
	}
	return n
}

// texts are the canvas's words at step n, time at, in lang (on the
// desktop frame).
func texts(les *scenarios.Lesson, n int, at sim.Time, lang string) []string {
	var p Picture
	f := desktop
	f.Lang = lang
	var out []string
	for _, it := range p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: at}, f).Items {
		if it.Kind == render.Text {
			out = append(out, it.Text)
		}
	}
	return out
}

// arg is the narration's value for key at step n in lang.
func arg(t *testing.T, les *scenarios.Lesson, n int, lang, key string) string {
	t.Helper()
	args := les.StepNarrationArgs(n, lang)
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == key {
			return args[i+1]
		}
	}
	t.Fatalf("%s step %d: no narration value %s", les.Scenario.ID, n, key)
	return ""
}

// containing are the texts that contain s.
func containing(xs []string, s string) []string {
	var out []string
	for _, x := range xs {
		if strings.Contains(x, s) {
			out = append(out, x)
		}
	}
	return out
}

// The ring's canvas counts the bytes each GPU sent as its narration does,
// in binary units (the lesson's vector is 256 MiB): 448 MiB on both, not
// 470 MB beside 448 MiB.
func TestRingBytesAsNarrated(t *testing.T) {
	for _, set := range [][]string{nil, {"gpus=5", "bytes=100000000"}} {
		les := prepared(t, "ring-allreduce", set...)
		for _, c := range []struct{ step, key string }{{"all-gather", "sent_ring"}, {"star", "sent_star"}} {
			n := stepOf(t, les, c.step)
			for _, lang := range []string{"en", "zh"} {
				want := arg(t, les, n, lang, c.key)
				got := texts(les, n, les.Steps[n-1].To, lang)
				if len(containing(got, want)) == 0 {
					t.Errorf("%v %s %s: no canvas label says %q (the narration's %s); canvas: %q", set, c.step, lang, want, c.key, got)
				}
			}
		}
	}
}

// fault-tolerance's canvas names the interval it marks as its narration
// does: Daly's optimum (18.6 min), not "the best interval", which the
// narration gives as the sweep's (≈ 20.7 min).
func TestFaultsOptimumAsNarrated(t *testing.T) {
	les := prepared(t, "fault-tolerance")
	n := stepOf(t, les, "interval")
	for _, lang := range []string{"en", "zh"} {
		opt, best := arg(t, les, n, lang, "optimal"), arg(t, les, n, lang, "best_every")
		if opt == best {
			t.Fatalf("%s: Daly's optimum and the sweep's best are both %s: the test needs them apart", lang, opt)
		}
		got := texts(les, n, les.Steps[n-1].To, lang)
		marked := containing(got, opt)
		if len(marked) == 0 {
			t.Errorf("%s: no canvas label gives Daly's optimum %q", lang, opt)
		}
		for _, s := range marked {
			if !strings.Contains(s, "Daly") {
				t.Errorf("%s: the canvas's %q does not say whose optimum %s is (the narration: Daly's)", lang, s, opt)
			}
		}
	}
}

// number-formats' dying run shows, once dead, the gradient that killed
// it — FP16 stores it as infinity, BF16 as a number — not a dead run's
// NaN in both formats ("BF16 = NaN" beside a narration that says BF16
// holds the spike).
func TestNumfmtDeadRunKeepsItsGradient(t *testing.T) {
	les := prepared(t, "number-formats")
	for _, id := range []string{"fp16-dies", "bf16-lives", "loss-scaling"} {
		n := stepOf(t, les, id)
		sr := les.Steps[n-1]
		for _, at := range []sim.Time{sr.From, (sr.From + sr.To) / 2, sr.To} {
			for _, lang := range []string{"en", "zh"} {
				got := texts(les, n, at, lang)
				if nan := containing(got, "= NaN"); len(nan) > 0 {
					t.Errorf("%s at %v, %s: the gradient's rows store NaN: %q", id, at, lang, got)
				}
				if id == "fp16-dies" && at == sr.To && len(containing(got, "Inf")) == 0 {
					t.Errorf("%s at its end, %s: FP16's row does not store the spike as infinity: %q", id, lang, got)
				}
			}
		}
	}
}

// collectives-at-scale marks the tree–ring crossover at the size its
// narration quotes ({crossover}, found on the closed forms), not at a
// size interpolated between the chart's samples (1.34 GB beside 1.29 GB).
func TestCrossoverAsNarrated(t *testing.T) {
	for _, set := range [][]string{nil, {"ranks=64"}, {"ranks=16384", "inter=ib-hdr"}} {
		les := prepared(t, "collectives-at-scale", set...)
		n := stepOf(t, les, "large")
		for _, lang := range []string{"en", "zh"} {
			want := words[lang].Say("canvas.sizes.crossover", "bytes", arg(t, les, n, lang, "crossover"))
			got := texts(les, n, les.Steps[n-1].To, lang)
			if !slices.Contains(got, want) {
				t.Errorf("%v %s: no %q on the canvas (the narration's crossover); its crossovers: %q", set, lang, want,
					containing(got, words[lang].Say("canvas.sizes.crossover", "bytes", "")))
			}
		}
	}
}

// The sandbox's narration splits the GPUs as its canvas does, every
// dimension the plan uses: CP and, for a mixture of experts, EP too (it
// said "TP 1 × PP 16 × DP 64" of 2,048 GPUs beside a canvas's "TP 1 × CP 2
// × PP 16 × DP 64").
var splitText = regexp.MustCompile(`TP [0-9]+(?: × [A-Z]{2} [0-9,]+)+`)

func TestSandboxSplitAsDrawn(t *testing.T) {
	cases := []struct {
		set  []string
		want []string // in the narration
	}{
		{nil, []string{"TP 8 × PP 8 × DP 8"}},
		{[]string{"model=llama3-405b", "gpus=1024", "tp=8", "cp=4", "pp=4"}, []string{"TP 8 × CP 4 × PP 4 × DP 8"}},
		{[]string{"model=deepseek-v3", "gpus=2048", "tp=1", "cp=2", "pp=16", "ep=64"}, []string{"TP 1 × CP 2 × PP 16 × DP 64", "EP 64"}},
	}
	for _, c := range cases {
		les := prepared(t, "sandbox", c.set...)
		n := stepOf(t, les, "timeline")
		for _, lang := range []string{"en", "zh"} {
			_, text := les.Narration(n, lang)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%v %s: the narration does not say %q: %s", c.set, lang, w, text)
				}
			}
			// The canvas's split, where its headline gives one, is the
			// narration's.
			for _, s := range texts(les, n, les.Steps[n-1].To, lang) {
				if split := splitText.FindString(s); split != "" && !strings.Contains(text, split) {
					t.Errorf("%v %s: the canvas says %q, the narration: %s", c.set, lang, split, text)
				}
			}
		}
	}
}

// zero-stages' narration quotes the DP traffic its lower chart draws for
// each stage it speaks of: ZeRO-1's beside ZeRO-0's, and ZeRO-2's, which
// reduce-scatters every micro-batch (1.67 → 4.18 s at the defaults), not
// "the same traffic" beside columns that grow.
func TestZeROTrafficAsDrawn(t *testing.T) {
	for _, set := range [][]string{nil, {"model=llama2-70b", "gpus=256"}} {
		les := prepared(t, "zero-stages", set...)
		for _, c := range []struct {
			step   string
			stages []string
		}{{"optimizer", []string{"ZeRO-0", "ZeRO-1", "ZeRO-2"}}, {"weights", []string{"ZeRO-3"}}} {
			n := stepOf(t, les, c.step)
			run := les.Steps[n-1].Run.(*scenarios.PlanRun)
			for _, lang := range []string{"en", "zh"} {
				_, text := les.Narration(n, lang)
				canvas := texts(les, n, les.Steps[n-1].To, lang)
				for _, b := range run.Bars {
					if !slices.Contains(c.stages, b.Label) {
						continue
					}
					s := units.LocalDuration(lang, b.Time.DPComm)
					if !slices.Contains(canvas, s) {
						t.Errorf("%v %s %s: the lower chart does not draw %s's %s", set, c.step, lang, b.Label, s)
					}
					if !strings.Contains(text, s) {
						t.Errorf("%v %s %s: the chart draws %s's traffic as %s; the narration does not say it: %s", set, c.step, lang, b.Label, s, text)
					}
				}
			}
		}
	}
}

// cpu-vs-gpu: the whole product takes whole rounds of one element a
// worker, so it never finishes before one element does (at size 64 an
// A100's CUDA cores finished C in 26.9 ns, one element taking 45.4); and
// the race's headline ratios are the narration's.
func TestCPUGPUProductNotBeforeAnElement(t *testing.T) {
	for _, set := range [][]string{{"size=64", "gpu=a100-80gb"}, {"size=64"}, {"size=100", "gpu=h200"}, nil} {
		les := prepared(t, "cpu-vs-gpu", set...)
		n := stepOf(t, les, "throughput")
		run := les.Steps[n-1].Run.(*scenarios.CPUGPURun)
		if run.GPUTotalS < run.GPUElementS || run.CPUTotalS < run.CPUElementS {
			t.Errorf("%v: the product in %g s (GPU) and %g s (CPU), one element in %g and %g", set, run.GPUTotalS, run.CPUTotalS, run.GPUElementS, run.CPUElementS)
		}
		for _, lang := range []string{"en", "zh"} {
			got := texts(les, n, les.Steps[n-1].To, lang)
			for _, key := range []string{"gpu_total", "cpu_total"} {
				if len(containing(got, arg(t, les, n, lang, key))) == 0 {
					t.Errorf("%v %s: the race does not finish at the narration's %s %s: %q", set, lang, key, arg(t, les, n, lang, key), got)
				}
			}
			ratio := arg(t, les, n, lang, "speedup")
			if len(containing(got, ratio+"×"))+len(containing(got, ratio+" 倍")) == 0 {
				t.Errorf("%v %s: the race's headline does not give the narration's %s×: %q", set, lang, ratio, got)
			}
		}
	}
}

// memory-wall runs each kernel on its own clock: the step's time line (the
// page's "t = … / …") is as long as the kernel takes, the canvas's clock
// and the summary's rows say the narration's time, so a naive step no
// longer plays 16 ms beside a narration of 82.1 ms, nor tensor cores 16 ms
// beside 175 µs.
func TestMemwallClockIsTheKernels(t *testing.T) {
	for _, set := range [][]string{nil, {"size=1024", "gpu=a100-80gb"}} {
		les := prepared(t, "memory-wall", set...)
		for _, k := range scenarios.MemwallKernels {
			n := stepOf(t, les, k)
			sr := les.Steps[n-1]
			for _, lang := range []string{"en", "zh"} {
				want := arg(t, les, n, lang, k+"_time")
				if got := scenarios.TimeText(lang, sr.To-sr.From); got != want {
					t.Errorf("%v %s %s: the step plays %s; the kernel takes %s", set, k, lang, got, want)
				}
				end := texts(les, n, sr.To, lang)
				if len(containing(end, "t = "+want)) == 0 {
					t.Errorf("%v %s %s: the canvas's clock does not end at %s: %q", set, k, lang, want, end)
				}
				// The summary: every kernel shown so far with its time.
				for _, shown := range scenarios.MemwallKernels[:slices.Index(scenarios.MemwallKernels, k)+1] {
					if s := arg(t, les, n, lang, shown+"_time"); !slices.Contains(end, s) {
						t.Errorf("%v %s %s: the summary does not give %s's %s: %q", set, k, lang, shown, s, end)
					}
				}
			}
		}
	}
}

// mixture-of-experts drops a copy only once its GPU's buffer for the
// expert is full, as the engine does, and the fan's bars fill so: at 30%
// of the imbalance step's dispatch no buffer is full and nothing is
// drawn dropped (the bars drew kept and dropped copies in proportion from
// the first frame, red before any expert neared its capacity); by its end
// the busiest expert's overflow is drawn.
func TestMoEDropsOnlyFullBuffers(t *testing.T) {
	les := prepared(t, "mixture-of-experts")
	n := stepOf(t, les, "imbalance")
	sr := les.Steps[n-1]
	run := sr.Run.(*scenarios.RouteRun)
	r := &run.Result
	if r.Capacity == 0 || r.Dropped == 0 {
		t.Fatalf("the imbalance step drops nothing (capacity %d, dropped %d)", r.Capacity, r.Dropped)
	}
	// The engine's order: at every sampled share, an expert has dropped
	// copies only if some GPU's buffer for it is full.
	v := routerView(run)
	if len(v.KeptBy) != r.Experts {
		t.Errorf("%d experts' arrivals for %d experts", len(v.KeptBy), r.Experts)
	}
	k, T := r.TopK, r.Tokens
	for b := 0; b <= arrivalSamples && len(v.KeptBy) == r.Experts; b++ {
		full := make([]bool, r.Experts)
		filled := make([][]int, r.EP)
		for g := range filled {
			filled[g] = make([]int, r.Experts)
		}
		for i, e := range r.Routes {
			g, j := i/(T*k), (i%(T*k))/k
			if arrivalSamples*(j+1) <= b*T && r.Kept[i] {
				if filled[g][e]++; filled[g][e] == r.Capacity {
					full[e] = true
				}
			}
		}
		for e := range r.Experts {
			if v.DroppedBy[e][b] > 0 && !full[e] {
				t.Errorf("at %d/%d of the dispatch expert %d has dropped %g copies with no GPU's buffer full", b, arrivalSamples, e, v.DroppedBy[e][b])
			}
		}
		if b == arrivalSamples {
			for e := range r.Experts {
				if int(v.KeptBy[e][b]) != r.KeptLoad[e] || int(v.DroppedBy[e][b]) != r.Load[e]-r.KeptLoad[e] {
					t.Errorf("expert %d ends with %g kept and %g dropped; the engine: %d and %d", e, v.KeptBy[e][b], v.DroppedBy[e][b], r.KeptLoad[e], r.Load[e]-r.KeptLoad[e])
				}
			}
		}
	}
	// The picture: red bar segments (dropped, right after a kept one).
	dropped := func(at sim.Time) int {
		var p Picture
		l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: at}, desktop)
		c := 0
		for _, d := range l.Items {
			if d.Kind != render.FillRect || d.Color != desktop.Theme.Hot {
				continue
			}
			for _, k := range l.Items {
				if k.Kind == render.FillRect && k.Color == desktop.Theme.LinkActive && k.Y == d.Y && k.H == d.H && math.Abs(float64(k.X+k.W-d.X)) < 0.01 {
					c++
					break
				}
			}
		}
		return c
	}
	if got := dropped(sr.From + (sr.To-sr.From)*3/10); got != 0 {
		t.Errorf("at 30%% of the dispatch, before any buffer is full, %d experts' bars show dropped copies", got)
	}
	if got := dropped(sr.To); got == 0 {
		t.Error("at the dispatch's end no expert's bar shows its dropped copies")
	}
	// The capacity line says what the narration does: a GPU's slots for
	// an expert, and the expert's in all.
	for _, lang := range []string{"en", "zh"} {
		got := texts(les, n, sr.To, lang)
		for _, key := range []string{"capacity", "expert_capacity"} {
			if len(containing(got, arg(t, les, n, lang, key))) == 0 {
				t.Errorf("%s: the canvas does not give the narration's %s %s: %q", lang, key, arg(t, les, n, lang, key), got)
			}
		}
	}
}

// strategy-planner's tree rings the leaf of the search's chosen plan and
// keys it, and the narration names both: at the defaults the tree lights
// TP + PP + DP while rank 1 (ZeRO-3 over 256 GPUs) has no pipeline, which
// the picture used to leave unsaid.
func TestPlannerTreeShowsTheChosenPlan(t *testing.T) {
	for _, set := range [][]string{nil, {"model=gpt3-175b", "gpus=1024"}, {"rank=5"}} {
		les := prepared(t, "strategy-planner", set...)
		for _, step := range []string{"tree", "plans"} {
			n := stepOf(t, les, step)
			run := les.Steps[n-1].Run.(*scenarios.PlanRun)
			ch := run.Search.Plans[run.Selected()]
			branch := scenarios.PlanBranch(ch.Config.Plan.TP, ch.Config.Plan.PP)
			if set == nil && branch == run.Search.Decision.Branch {
				t.Fatalf("the defaults' rank 1 takes the tree's branch, %s: the test needs them apart", branch)
			}
			for _, lang := range []string{"en", "zh"} {
				plan, leaf := scenarios.ChosenPlan(lang, ch), words[lang].Say("canvas.plan.leaf_"+branch)
				if step == "tree" {
					_, text := les.Narration(n, lang)
					if !strings.Contains(text, plan) || !strings.Contains(text, "“"+leaf+"”") && branch != run.Search.Decision.Branch {
						t.Errorf("%v %s: the narration does not place %s on “%s”: %s", set, lang, plan, leaf, text)
					}
				}
				var p Picture
				f := desktop
				f.Lang = lang
				l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: les.Steps[n-1].To}, f)
				var ring render.Color
				for _, k := range l.Keys {
					if strings.Contains(k.Label, plan) {
						ring = k.Color
					}
				}
				if ring.A == 0 {
					t.Errorf("%v %s %s: no key names the chosen plan %s", set, step, lang, plan)
					continue
				}
				ringed := false
				for _, it := range l.Items {
					if it.Kind != render.Text || it.Text != leaf {
						continue
					}
					for _, fr := range l.Items {
						if fr.Kind == render.StrokeRect && fr.Color == ring && it.X > fr.X && it.X < fr.X+fr.W && it.Y > fr.Y && it.Y < fr.Y+fr.H {
							ringed = true
						}
					}
				}
				if !ringed {
					t.Errorf("%v %s %s: the leaf “%s” of the chosen plan %s is not ringed", set, step, lang, leaf, plan)
				}
			}
		}
	}
}

// The collectives' parts bars are drawn on one axis (issue 39: the ring's
// 10.2 ms and the tree's 103 µs were two bars of one length): each bar's
// length is its algorithm's time on the slowest's scale, and past a 50×
// gap each short bar is framed again, zoomed, under a line that says the
// ratio.
func TestCollectivePartsProportional(t *testing.T) {
	for _, set := range [][]string{nil, {"ranks=4096"}, {"ranks=64"}} {
		les := prepared(t, "collectives-at-scale", set...)
		n := stepOf(t, les, "small")
		run := les.Steps[n-1].Run.(*scenarios.FabricRun)
		var long, short float64 = 0, math.Inf(1)
		for _, f := range run.Forms {
			long, short = math.Max(long, f.Seconds), math.Min(short, f.Seconds)
		}
		for _, lang := range []string{"en", "zh"} {
			var p Picture
			f := desktop
			f.Lang = lang
			l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: les.Steps[n-1].To}, f)
			var lat, bw render.Color
			for _, k := range l.Keys {
				switch k.Label {
				case words[lang].Say("canvas.sizes.latency"):
					lat = k.Color
				case words[lang].Say("canvas.sizes.bandwidth"):
					bw = k.Color
				}
			}
			// A row's bars by their top: the first two rectangles are its
			// bar on the common axis, two more its zoomed copy.
			rows := map[float32][]render.Item{}
			var frames int
			for _, it := range l.Items {
				if it.Kind == render.FillRect && (it.Color == lat || it.Color == bw) && it.W != it.H {
					rows[it.Y] = append(rows[it.Y], it)
				}
				if it.Kind == render.StrokeRect && it.Y > f.Stage.Y+f.Stage.H/2 {
					frames++
				}
			}
			if len(rows) != len(run.Forms) {
				t.Fatalf("%v %s: %d rows of bars, want %d", set, lang, len(rows), len(run.Forms))
			}
			// The rows top to bottom are the algorithms in the chart's order.
			var ys []float32
			for y := range rows {
				ys = append(ys, y)
			}
			slices.Sort(ys)
			var times []float64
			for _, a := range scenarios.FabricAlgos {
				if fm, ok := run.Forms[a]; ok {
					times = append(times, fm.Seconds)
				}
			}
			var widest float32
			for i, y := range ys {
				if times[i] == long {
					widest = rows[y][0].W + rows[y][1].W
				}
			}
			var framed int
			for i, y := range ys {
				r := rows[y]
				w := r[0].W + r[1].W
				got := times[i]
				truth := float32(got / long * float64(widest))
				if math.Abs(float64(w-maxf(truth, 1))) > 0.05 {
					t.Errorf("%v %s: a %s bar %.2f px wide, want %.2f (of %.1f for %s)", set, lang, units.Duration(got), w, maxf(truth, 1), widest, units.Duration(long))
				}
				if got*50 < long {
					framed++
					if len(r) != 4 {
						t.Errorf("%v %s: the %s bar has no zoomed copy, though the slowest (%s) takes %s as long", set, lang, units.Duration(got), units.Duration(long), units.Ratio(lang, long/got))
					}
				} else if len(r) != 2 {
					t.Errorf("%v %s: the %s bar has a zoomed copy under a 50× gap", set, lang, units.Duration(got))
				}
			}
			if frames != framed {
				t.Errorf("%v %s: %d frames, %d bars to zoom", set, lang, frames, framed)
			}
			ratio := units.Ratio(lang, long/short)
			if said := containing(texts(les, n, les.Steps[n-1].To, lang), ratio); (framed > 0) != (len(said) > 0) {
				t.Errorf("%v %s: %d bars zoomed, lines saying %s: %q", set, lang, framed, ratio, said)
			}
		}
	}
}

func maxf(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}
