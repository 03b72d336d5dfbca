package scene

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

var desk = Frame{Width: 1280, Height: 800, Stage: render.Rect{W: 845, H: 800}, Scale: 1, Theme: render.Dark, Lang: "en"}

func lesson(t *testing.T, id string) *scenarios.Lesson {
	t.Helper()
	s, ok := scenarios.Get(id)
	if !ok {
		t.Fatalf("no lesson %s", id)
	}
	return prepare(t, s)
}

func labels(l render.List) map[string]bool {
	m := map[string]bool{}
	for _, it := range l.Items {
		if it.Kind == render.Text {
			m[it.Text] = true
		}
	}
	return m
}

// memory-budget pours one kind of bytes a step into 80 GB cards and
// counts them as the engine does (parallel.CardsNeeded); the seed's
// 10–15 waits for the answer.
func TestMemoryBudgetCards(t *testing.T) {
	les := lesson(t, "memory-budget")
	var p Picture
	run := les.Steps[0].Run.(*scenarios.PlanRun)
	card := float64(run.Config.Cluster.GPU.HBMBytes)
	count := func(b float64) string { return "= " + strconv.Itoa(parallel.CardsNeeded(b, card)) + " GPUs" }
	bars := run.Bars
	want := [][]string{
		{count(bars[0].Memory.Total), count(bars[1].Memory.Total)},
		{count(bars[2].Memory.Total), count(bars[4].Memory.Weights + bars[4].Memory.Gradients + bars[4].Memory.Optimizer)},
		{count(bars[3].Memory.Total), "= 10–15 GPUs"},
	}
	for step, ws := range want {
		got := labels(p.Build(render.List{}, Moment{Lesson: les, Step: step + 1, Time: les.Steps[step].To}, desk))
		for _, w := range ws {
			if !got[w] {
				t.Errorf("step %d: no %q", step+1, w)
			}
		}
	}
	got := labels(p.Build(render.List{}, Moment{Lesson: les, Step: 3, Time: les.Steps[2].To, Pending: true}, desk))
	if got["= 10–15 GPUs"] || !got["?"] {
		t.Error("step 3 gives the seed's count before the answer")
	}
}

// overlap's steps share one time axis, the serial step's: the step with
// buckets ends short of it, by the time the buckets hide, and draws the
// serial step's end dashed.
func TestOverlapOneAxis(t *testing.T) {
	les := lesson(t, "overlap")
	var p Picture
	ends := map[int]float32{}
	var axis [2]float32
	for step := 1; step <= 2; step++ {
		l := p.Build(render.List{}, Moment{Lesson: les, Step: step, Time: les.Steps[step-1].To}, desk)
		for _, it := range l.Items {
			if it.Kind == render.FillRect && it.Color == render.Dark.Panel && it.W > 100 {
				ends[step] = it.X + it.W
			}
			if it.Kind == render.Line && it.Color == render.Dark.Dim && it.Y == it.Y2 && it.X2-it.X > 300 {
				axis[step-1] = it.X2 - it.X
			}
		}
	}
	serial := les.Steps[0].Run.(*scenarios.PlanRun).Result.Time.Step
	buckets := les.Steps[1].Run.(*scenarios.PlanRun).Result.Time.Step
	if axis[0] != axis[1] || axis[0] == 0 {
		t.Fatalf("axes %v: want one", axis)
	}
	if got, want := float64(ends[2]-ends[1]), (buckets-serial)/serial*float64(axis[0]); math.Abs(got-want) > 1 {
		t.Errorf("the bucketed step ends %.1f px from the serial one, want %.1f", got, want)
	}
	l := p.Build(render.List{}, Moment{Lesson: les, Step: 2, Time: les.Steps[1].To}, desk)
	if want := "step " + units.Duration(buckets) + " · dashed: " + units.Duration(serial) + " without overlap"; !labels(l)[want] {
		t.Errorf("step 2 does not name the serial step's end: no %q", want)
	}
}

// gradient-accumulation's gradient strip climbs a micro-batch's worth at
// each backward and empties after the update.
func TestAccumulationSums(t *testing.T) {
	les := lesson(t, "gradient-accumulation")
	run := les.Steps[1].Run.(*scenarios.PlanRun)
	s := sumsSeries(run.Timelines[0].Timeline)
	if len(s) != 6 || s[4].Bytes != 1 || s[5].Bytes != 0 || s[1].Bytes != 0.25 {
		t.Errorf("sums %v, want 0, ¼, ½, ¾, 1, then 0 after the update", s)
	}
}

// Every strategy time line the lessons draw ends at its step time and
// on the step's window: one number.
func TestTimelinesEndAtTheStep(t *testing.T) {
	for _, s := range scenarios.All() {
		if s.Kind != scenarios.KindPlan {
			continue
		}
		les := prepare(t, s)
		for i, sr := range les.Steps {
			run := sr.Run.(*scenarios.PlanRun)
			for _, pt := range run.Timelines {
				if got := timeline(pt).Length; math.Abs(got-pt.Result.Time.Step) > 1e-9*pt.Result.Time.Step {
					t.Errorf("%s step %d %s: drawn to %g s, step %g s", s.ID, i+1, pt.Label, got, pt.Result.Time.Step)
				}
			}
			if len(run.Timelines) == 1 && math.Abs(run.End().Seconds()-run.Result.Time.Step) > 1e-9 {
				t.Errorf("%s step %d: window ends at %g s, step %g s", s.ID, i+1, run.End().Seconds(), run.Result.Time.Step)
			}
		}
	}
}

// Data parallelism draws its replicas and names every phase of a step.
func TestDataParallelPhases(t *testing.T) {
	les := lesson(t, "data-parallel")
	var p Picture
	got := labels(p.Build(render.List{}, Moment{Lesson: les, Step: 1, Time: les.Steps[0].To}, desk))
	for _, w := range []string{"forward", "backward", "all-reduce", "update", "GPU 0", "GPU 7"} {
		if !got[w] {
			t.Errorf("no %q", w)
		}
	}
	step := units.Duration(les.Steps[0].Run.(*scenarios.PlanRun).Result.Time.Step)
	for w := range got {
		if strings.HasPrefix(w, "8 GPUs, one recipe") && !strings.HasSuffix(w, "— "+step) {
			t.Errorf("headline %q, want the step's %s", w, step)
		}
	}
}

// A mixture of experts on the planner (Mixtral's shape, as a paste sets
// it): the ranked plans say their EP and their bars have an EP part, keyed
// in its colour; the time line of a plan with EP and no pipeline says
// each GPU holds a share of the experts and keys the all-to-alls.
func TestPlannerMixtureOfExperts(t *testing.T) {
	s, _ := scenarios.Get("strategy-planner")
	cfg := s.Defaults()
	for k, v := range map[string]string{"gpus": "64", "model": "custom", "layers": "32", "hidden": "4096", "heads": "32", "kv_heads": "8",
		"ffn": "14336", "vocab": "32000", "seq": "4096", "experts": "8", "top_k": "2", "expert_ffn": "14336"} {
		cfg[k] = v
	}
	les, err := scenarios.Prepare(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var p Picture
	l := p.Build(render.List{}, Moment{Lesson: les, Step: 2, Time: les.Steps[1].To}, desk)
	withEP := 0
	for it := range labels(l) {
		if strings.HasPrefix(it, "TP") && strings.Contains(it, " EP") {
			withEP++
		}
	}
	if withEP == 0 {
		t.Error("no ranked plan says its EP")
	}
	ep := render.PlanPartColour("ep", render.Dark)
	keyed, drawn := false, false
	for _, k := range l.Keys {
		keyed = keyed || k.Color == ep && k.Label == "EP all-to-alls"
	}
	for _, it := range l.Items {
		drawn = drawn || it.Kind == render.FillRect && it.Color == ep && it.W > 0
	}
	if !keyed || !drawn {
		t.Errorf("the EP part: keyed %v, drawn %v", keyed, drawn)
	}
	run := les.Steps[3].Run.(*scenarios.PlanRun)
	got := labels(p.Build(render.List{}, Moment{Lesson: les, Step: 4, Time: les.Steps[3].To}, desk))
	if pl := run.Config.Plan; pl.PP == 1 && pl.EP > 1 {
		if want := "each of " + strconv.Itoa(pl.DP) + " GPUs: the model with 1/" + strconv.Itoa(pl.EP) + " of its experts, " + strconv.Itoa(run.Result.MicroBatches) + " micro-batches"; !got[want] {
			t.Errorf("the time line does not say %q", want)
		}
	}
	if !got["TP / PP communication, EP all-to-alls"] {
		t.Error("the time line's communication key does not name the all-to-alls")
	}
}

// A context-parallel time line compares its throughput with Meta's 380
// TFLOP/s only for Llama 3 405B's 131K-token row (long-context); the
// sandbox's own CP plan, a Llama 2 70B, is not held to Meta's figure.
func TestCPHeadlineNamesMetaOnlyForLlama3(t *testing.T) {
	headline := func(id string, cfg scenarios.Config, step int) string {
		s, _ := scenarios.Get(id)
		c := s.Defaults()
		for k, v := range cfg {
			c[k] = v
		}
		les, err := scenarios.Prepare(s, c)
		if err != nil {
			t.Fatalf("%s %v: %v", id, cfg, err)
		}
		var p Picture
		var all []string
		for txt := range labels(p.Build(render.List{}, Moment{Lesson: les, Step: step, Time: les.Steps[step-1].To}, desk)) {
			all = append(all, txt)
		}
		if s := strings.Join(all, " | "); strings.Contains(s, "TFLOP/s of model FLOPs") {
			return s // the headline, maybe on two lines, among the picture's words
		}
		return ""
	}
	own := headline("sandbox", scenarios.Config{"model": "llama2-70b", "seq": "4096", "gpus": "256", "tp": "4", "cp": "2", "pp": "4"}, 1)
	if own == "" || strings.Contains(own, "Meta") {
		t.Errorf("sandbox, Llama 2 70B with CP 2: headline %q", own)
	}
	s, _ := scenarios.Get("long-context")
	found := false
	for i, st := range s.Steps {
		for _, v := range st.Show {
			if v == scenarios.ViewTimeline {
				found = true
				if h := headline("long-context", nil, i+1); !strings.Contains(h, "Meta: 380") {
					t.Errorf("long-context step %d: headline %q, want Meta's 380", i+1, h)
				}
			}
		}
	}
	if !found {
		t.Skip("long-context draws no time line step")
	}
}

// The sandbox's cluster names context parallelism in its title.
func TestSandboxClusterTitleSaysCP(t *testing.T) {
	s, _ := scenarios.Get("sandbox")
	c := s.Defaults()
	for k, v := range map[string]string{"model": "llama2-70b", "seq": "4096", "gpus": "256", "tp": "4", "cp": "2", "pp": "4"} {
		c[k] = v
	}
	les, err := scenarios.Prepare(s, c)
	if err != nil {
		t.Fatal(err)
	}
	var p Picture
	got := labels(p.Build(render.List{}, Moment{Lesson: les, Step: 2, Time: les.Steps[1].To}, desk))
	if want := "32 nodes × 8 GPUs · TP 4 × CP 2 × PP 4 × DP 8"; !got[want] {
		t.Errorf("no %q among %v", want, got)
	}
}
