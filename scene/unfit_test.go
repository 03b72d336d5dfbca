package scene

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// unfitWords is what a picture says of a plan whose memory does not fit,
// in lang, from the engine's numbers (the numbers table's total and
// usable bytes).
func unfitWords(lang string, mem parallel.Memory) string {
	return i18n.T(lang, "canvas.unfit", "need", units.Bytes(mem.Total), "usable", units.Bytes(mem.Usable),
		"ratio", units.Ratio(lang, mem.Total/mem.Usable))
}

// unfitIn reports whether l says want: keyed whole, and drawn (on one
// line or two).
func unfitIn(l render.List, want string) (keyed, drawn bool) {
	for _, k := range l.Keys {
		keyed = keyed || k.Label == want
	}
	var all strings.Builder
	for _, it := range l.Items {
		if it.Kind == render.Text {
			all.WriteString(it.Text)
		}
	}
	squeeze := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "…", "") }
	return keyed, strings.Contains(squeeze(all.String()), squeeze(want))
}

// saysUnfit reports whether l says, anywhere, that a plan does not fit.
func saysUnfit(l render.List, lang string) bool {
	head, _, _ := strings.Cut(i18n.T(lang, "canvas.unfit"), "{")
	head = strings.TrimSpace(head)
	for _, it := range l.Items {
		if it.Kind == render.Text && strings.Contains(it.Text, head) {
			return true
		}
	}
	for _, k := range l.Keys {
		if strings.Contains(k.Label, head) {
			return true
		}
	}
	return false
}

// A plan that does not fit is drawn as not running, with how far over:
// the sandbox's time line and cluster for Llama 3 405B on 16 GPUs say
// what a GPU needs against what it can use, the engine's numbers, in
// both languages, on a desktop and a phone; run no playhead over the
// time line and no packets or clock on the cluster. The sandbox at its
// defaults, which fit, says nothing of the kind.
func TestUnfitPlanDrawnAsNotRunning(t *testing.T) {
	les := prepared(t, "sandbox", "model=llama3-405b", "gpus=16", "tp=8", "pp=2", "global_batch=64")
	fitting := prepared(t, "sandbox")
	phone := ruleFrames[1].frame
	for _, id := range []string{"timeline", "cluster"} {
		n := stepOf(t, les, id)
		mem := les.Steps[n-1].Run.(*scenarios.PlanRun).Result.Memory
		if mem.Fits {
			t.Fatalf("%s: Llama 3 405B on 16 GPUs fits (%s of %s)", id, units.Bytes(mem.Total), units.Bytes(mem.Usable))
		}
		if f := fitting.Steps[n-1].Run.(*scenarios.PlanRun).Result.Memory; !f.Fits {
			t.Fatalf("%s: the sandbox's defaults do not fit", id)
		}
		for _, lang := range []string{"en", "zh"} {
			want := unfitWords(lang, mem)
			for _, fr := range []Frame{desktop, phone} {
				fr.Lang = lang
				var p Picture
				sr := les.Steps[n-1]
				mid := sr.From + (sr.To-sr.From)/2
				l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: mid}, fr)
				if keyed, drawn := unfitIn(l, want); !keyed || !drawn {
					t.Errorf("%s %s %.0f px: %q keyed %v, drawn %v", id, lang, fr.Stage.W, want, keyed, drawn)
				}
				if id == "cluster" {
					for _, it := range l.Items {
						if it.Kind == render.FillCircle {
							t.Errorf("%s %s: a packet moves on a plan that does not run", id, lang)
							break
						}
					}
				}
				var q Picture
				if l := q.Build(render.List{}, Moment{Lesson: fitting, Step: n, Time: mid}, fr); saysUnfit(l, lang) {
					t.Errorf("%s %s: the sandbox's defaults, which fit, are drawn as not fitting", id, lang)
				}
			}
		}
	}
}

// squeezed is s without spaces or ellipses: text compared whatever the
// lines it was broken into or cut at.
func squeezed(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "…", "")
}

// drawnText is every word l draws, squeezed, one after another.
func drawnText(l render.List) string {
	var all strings.Builder
	for _, it := range l.Items {
		if it.Kind == render.Text {
			all.WriteString(it.Text)
		}
	}
	return squeezed(all.String())
}

// A plan that does not fit has no step time to headline: in each
// strategy lesson with knobs turned so that the step's plan is over its
// GPUs' memory — a time line of one plan, of data-parallel replicas, of
// an overlapped all-reduce, of recomputation modes, of expert
// parallelism; the cluster — the picture gives the plan's step time
// nowhere (not in its headline, over its time line or in a chart of
// times) and headlines what a GPU needs, how far over it is and that it
// cannot run, in both languages, on a desktop and a phone. The
// schedules keep the headline that names what they compare.
func TestUnfitPlanHeadlinesNoStepTime(t *testing.T) {
	cases := []struct {
		id, step string
		set      []string
	}{
		{"sandbox", "timeline", []string{"model=llama3-405b", "gpus=16", "tp=8", "pp=2", "global_batch=64"}},
		{"sandbox", "cluster", []string{"model=llama3-405b", "gpus=16", "tp=8", "pp=2", "global_batch=64"}},
		{"activation-checkpointing", "keep", nil}, // no recomputation: over by a hair at the lesson's defaults
		{"data-parallel", "cycle", []string{"model=seed-100b"}},
		{"data-parallel", "replicas", []string{"model=seed-100b"}},
		{"overlap", "serial", []string{"model=llama2-70b", "gpus=8"}},
		{"overlap", "buckets", []string{"model=llama2-70b", "gpus=8"}},
		{"pipeline-parallel", "four", []string{"recompute=none", "pp=2", "micro_batches=32"}},
		{"pipeline-parallel", "schedules", []string{"recompute=none", "pp=2", "micro_batches=32"}},
		{"3d-parallel", "step", []string{"model=megatron-1t", "gpus=64", "tp=1", "pp=1"}},
		{"tensor-parallel", "node", []string{"model=gpt3-175b", "pp=1", "gpus=32"}},
		{"expert-parallel", "try", []string{"ep=1"}},
	}
	phone := ruleFrames[1].frame
	for _, c := range cases {
		les := prepared(t, c.id, c.set...)
		n := stepOf(t, les, c.step)
		run := les.Steps[n-1].Run.(*scenarios.PlanRun)
		mem := run.Result.Memory
		if mem.Fits {
			t.Fatalf("%s %s %v: the plan fits (%s of %s)", c.id, c.step, c.set, units.Bytes(mem.Total), units.Bytes(mem.Usable))
		}
		step := units.Duration(run.Result.Time.Step)
		for _, lang := range []string{"en", "zh"} {
			for _, fr := range []Frame{desktop, phone} {
				fr.Lang = lang
				var p Picture
				l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: middle(les, n)}, fr)
				where := c.id + " " + c.step + " " + lang + " " + strconv.Itoa(int(fr.Stage.W)) + " px"
				for _, it := range l.Items {
					if it.Kind == render.Text && strings.Contains(it.Text, step) {
						t.Errorf("%s: %q gives the step time (%s) of a plan that cannot run", where, it.Text, step)
					}
				}
				if run.View == scenarios.ViewSchedules {
					continue
				}
				head := unfitHead(fr.words(), mem, planWhat(run, planFrame{Frame: fr}))
				if !strings.Contains(drawnText(l), squeezed(head)) {
					t.Errorf("%s: the headline is not %q", where, head)
				}
			}
		}
	}
}

// Zoomed into a plan that does not fit — a node, a GPU, its SMs — the
// picture runs nothing: no packets, no clock, no kernel, no GPU or SM at
// work (only what is idle keyed), and says what a GPU needs against what
// it can use, keyed and in a box, in both languages and every frame,
// within the canvas rules. Zoomed into the sandbox at its defaults,
// which fit, no level says so.
func TestUnfitPlanZoomedNotRunning(t *testing.T) {
	les := prepared(t, "sandbox", "model=llama3-405b", "gpus=16", "tp=8", "pp=2", "global_batch=64")
	fitting := prepared(t, "sandbox")
	n := stepOf(t, les, "timeline")
	mem := les.Steps[n-1].Run.(*scenarios.PlanRun).Result.Memory
	got := ruleFailures{}
	for _, level := range scenarios.ZoomLevels[1:] {
		for _, lang := range []string{"en", "zh"} {
			want := unfitWords(lang, mem)
			idle := map[string]bool{want: true, i18n.T(lang, "canvas.zoom.node.idle"): true, i18n.T(lang, "canvas.zoom.sm.key_sm_waiting"): true}
			clock, _, _ := strings.Cut(i18n.T(lang, "canvas.clock"), "{")
			for _, rf := range ruleFrames {
				fr := rf.frame
				fr.Lang = lang
				where := level + " " + lang + " " + rf.name
				var p Picture
				l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: middle(les, n), Zoom: scenarios.Zoom{Level: level, GPU: 1}}, fr)
				checkList(got, "sandbox unfit", where, l, fr, rf.minText, lang)
				if keyed, drawn := unfitIn(l, want); !keyed || !drawn {
					t.Errorf("%s: %q keyed %v, drawn %v", where, want, keyed, drawn)
				}
				for _, k := range l.Keys {
					if !idle[k.Label] && !strings.Contains(k.Label, "NVLink") && !strings.Contains(k.Label, "IB") {
						t.Errorf("%s: keys %q, a sign of work on a plan that does not run", where, k.Label)
					}
				}
				for _, it := range l.Items {
					if it.Kind == render.FillCircle {
						t.Errorf("%s: a packet moves on a plan that does not run", where)
						break
					}
					if it.Kind == render.Text && strings.HasPrefix(it.Text, strings.TrimSpace(clock)) {
						t.Errorf("%s: a clock runs (%q) on a plan that does not run", where, it.Text)
						break
					}
				}
				var q Picture
				if l := q.Build(render.List{}, Moment{Lesson: fitting, Step: n, Time: middle(fitting, n), Zoom: scenarios.Zoom{Level: level, GPU: 1}}, fr); saysUnfit(l, lang) {
					t.Errorf("%s: the sandbox's defaults, which fit, are drawn as not fitting", where)
				}
			}
		}
	}
	for id, rules := range got {
		for r, ex := range rules {
			t.Errorf("%s zoomed breaks %s: %s", id, r, ex)
		}
	}
}

// Among time lines that run, one that does not fit is passed over by
// the playhead: activation-checkpointing's, at its defaults, where
// keeping every activation is over by a hair, draws no playhead across
// the "none" time line's veil and its box, but does across the others.
func TestUnfitTimeLineHasNoPlayhead(t *testing.T) {
	les := prepared(t, "activation-checkpointing")
	n := stepOf(t, les, "keep")
	for _, fr := range []Frame{desktop, ruleFrames[1].frame} {
		fr.Lang = "en"
		var p Picture
		l := p.Build(render.List{}, Moment{Lesson: les, Step: n, Time: middle(les, n)}, fr)
		// The box: framed in the hot colour round the words.
		head, _, _ := strings.Cut(i18n.T("en", "canvas.unfit"), ":")
		var box *render.Item
		for i, it := range l.Items {
			if it.Kind != render.StrokeRect || it.Color != fr.Theme.Hot {
				continue
			}
			for _, w := range l.Items {
				if w.Kind == render.Text && strings.HasPrefix(w.Text, head) && w.Y > it.Y && w.Y < it.Y+it.H {
					box = &l.Items[i]
				}
			}
		}
		if box == nil {
			t.Fatalf("%.0f px: no box says that the plan does not fit", fr.Stage.W)
		}
		crossed, played := false, false
		for _, it := range l.Items {
			if it.Kind != render.Line || it.X != it.X2 || it.Color != fr.Theme.Text || it.Width != 1.5*fr.Scale {
				continue
			}
			played = true
			lo, hi := min(it.Y, it.Y2), max(it.Y, it.Y2)
			crossed = crossed || (it.X >= box.X && it.X <= box.X+box.W && lo < box.Y+box.H && hi > box.Y)
		}
		if !played || crossed {
			t.Errorf("%.0f px: a playhead %v, across the box of the time line that does not run %v", fr.Stage.W, played, crossed)
		}
	}
}
