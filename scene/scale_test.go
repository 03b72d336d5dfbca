package scene

import (
	"math"
	"strconv"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/validate"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// scaleStep is 3d-parallel's scale step at the lesson's defaults and its
// picture's view on the desktop frame at the step's end.
func scaleStep(t *testing.T) (*scenarios.PlanRun, render.ScaleView) {
	t.Helper()
	s, ok := scenarios.Get("3d-parallel")
	if !ok {
		t.Fatal("no 3d-parallel")
	}
	les := prepare(t, s)
	last := les.Steps[len(les.Steps)-1]
	if last.Step.ID != "scale" {
		t.Fatalf("3d-parallel's last step is %s, want scale", last.Step.ID)
	}
	run := last.Run.(*scenarios.PlanRun)
	f := ruleFrames[0].frame
	f.Lang = "en"
	pf := planFrame{Frame: f, stage: f.Stage, t: -1, frac: 1}
	return run, scaleView(run, pf)
}

// The curve the scale step draws is the engine's: at every GPU count,
// the MFU and the parts of the step are parallel.Evaluate's for
// validate.MegaScale175B at the curve's batch; where the plan runs, MFU
// falls as the GPUs grow.
func TestScaleCurveIsTheEngines(t *testing.T) {
	run, v := scaleStep(t)
	if len(v.Curve) != 9 || v.Curve[0].GPUs != 64 || v.Curve[8].GPUs != 16384 {
		t.Fatalf("the curve's GPU counts: %+v, want 64 … 16,384 doubling", v.Curve)
	}
	prev := math.Inf(1)
	running := 0
	for i, c := range v.Curve {
		if i > 0 && c.GPUs != 2*v.Curve[i-1].GPUs {
			t.Errorf("column %d: %d GPUs after %d", i, c.GPUs, v.Curve[i-1].GPUs)
		}
		want, err := parallel.Evaluate(validate.MegaScale175B(c.GPUs, scenarios.ScaleBatch))
		if err != nil {
			t.Fatal(err)
		}
		if c.MFU != want.MFU || c.Runs != want.Memory.Fits {
			t.Errorf("%d GPUs: MFU %g (runs %v), Evaluate %g (fits %v)", c.GPUs, c.MFU, c.Runs, want.MFU, want.Memory.Fits)
		}
		tm := want.Time
		parts := [...]float64{tm.Compute, tm.Bubble, tm.Exposed, tm.Optimizer, tm.Straggler}
		sum := 0.0
		for k, p := range parts {
			if got := c.Parts[k]; math.Abs(got-p/tm.Step) > 1e-12 {
				t.Errorf("%d GPUs: %s %g of the step, Evaluate %g", c.GPUs, render.ScaleParts[k], got, p/tm.Step)
			}
			sum += c.Parts[k]
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%d GPUs: the parts add to %g of the step", c.GPUs, sum)
		}
		if !c.Runs {
			continue
		}
		running++
		if c.MFU >= prev {
			t.Errorf("%d GPUs: MFU %.4f, not below %.4f on half as many", c.GPUs, c.MFU, prev)
		}
		prev = c.MFU
	}
	if running < 7 {
		t.Errorf("%d plans of the curve run, want 256 GPUs and up (7)", running)
	}
	// The engine beside Table 2's batch-768 rows, too.
	for _, m := range v.Small {
		want, err := parallel.Evaluate(validate.MegaScale175B(m.GPUs, scenarios.SmallBatch))
		if err != nil {
			t.Fatal(err)
		}
		if m.MFU != want.MFU {
			t.Errorf("batch 768, %d GPUs: MFU %g, Evaluate %g", m.GPUs, m.MFU, want.MFU)
		}
	}
	// The step's numbers are the curve's last plan.
	if run.Result.Time.Step != run.Scale.Last().Result.Time.Step || run.Config.Cluster.GPUs != 16384 {
		t.Errorf("the step's plan: %d GPUs, %g s; the curve's last: %g s", run.Config.Cluster.GPUs, run.Result.Time.Step, run.Scale.Last().Result.Time.Step)
	}
}

// The published points are Table 2's Megatron-LM rows as gpuscope
// validate holds them: their GPUs and printed MFU, hollow for the rows
// of the smaller batch.
func TestScalePublishedPointsAreTheRows(t *testing.T) {
	_, v := scaleStep(t)
	if len(v.Published) != len(validate.MegaScaleTable2) {
		t.Fatalf("%d published points, Table 2 has %d rows", len(v.Published), len(validate.MegaScaleTable2))
	}
	rows, err := validate.Rows()
	if err != nil {
		t.Fatal(err)
	}
	published := map[int]float64{}
	for _, r := range rows {
		for _, m := range validate.MegaScaleTable2 {
			if r.Name == "megascale-megatron-175b-"+strconv.Itoa(m.GPUs) {
				published[m.GPUs] = r.Published
			}
		}
	}
	for i, p := range v.Published {
		row := validate.MegaScaleTable2[i]
		if p.GPUs != row.GPUs || p.MFU != row.MFU || p.Hollow != (row.Batch != scenarios.ScaleBatch) {
			t.Errorf("point %d: %+v, Table 2 %+v", i, p, row)
		}
		if published[row.GPUs] != row.IterationS {
			t.Errorf("%d GPUs: gpuscope validate's published step %g s, the table's %g", row.GPUs, published[row.GPUs], row.IterationS)
		}
	}
}

// The picture draws a mark for every published point and a bar for
// every running plan: squares in the published colour, bars stacked in
// the parts' colours, the legend naming the source.
func TestScalePictureMarks(t *testing.T) {
	s, _ := scenarios.Get("3d-parallel")
	les := prepare(t, s)
	var p Picture
	f := ruleFrames[0].frame
	f.Lang = "en"
	step := len(les.Steps)
	l := p.Build(render.List{}, Moment{Lesson: les, Step: step, Time: les.Steps[step-1].To}, f)
	th := f.Theme
	squares, green := 0, 0
	for _, it := range l.Items {
		if it.Kind == render.FillRect && it.Color == th.Hot {
			squares++
		}
		if it.Kind == render.FillRect && it.Color == render.PlanPartColour("compute", th) {
			green++
		}
	}
	// 4 filled squares (batch 6,144) and 4 hollow (a background fill
	// framed): the filled ones, plus the legend's swatch.
	if squares != 4+1 {
		t.Errorf("%d published squares in the published colour, want 4 and the legend's", squares)
	}
	if green != 7+1 {
		t.Errorf("%d compute bars, want the 7 running plans' and the legend's", green)
	}
	found := false
	for _, k := range l.Keys {
		if k.Color == th.Hot && k.Label == "published (MegaScale Table 2; hollow: batch 768)" {
			found = true
		}
	}
	if !found {
		t.Errorf("no key names the published points' source: %+v", l.Keys)
	}
	// Mid-step, fewer columns: the cluster grows as the step plays.
	mid := p.Build(render.List{}, Moment{Lesson: les, Step: step, Time: middle(les, step)}, f)
	if mid.String() == l.String() {
		t.Error("the scale step draws the same at its middle as at its end")
	}
}
