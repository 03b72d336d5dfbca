package scene

import (
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// scaleView is a scale step's picture (issue 37): the engine's MFU for
// MegaScale's 175B from 64 to 16,384 GPUs at one global batch, Table 2's
// published points beside it, and the step's time by part under each GPU
// count. The columns appear left to right as the step plays: the cluster
// grows.
func scaleView(run *scenarios.PlanRun, f planFrame) render.ScaleView {
	s := run.Scale
	v := render.ScaleView{Width: f.Width, Height: f.Height, Stage: f.stage, Scale: f.Scale, Theme: f.Theme}
	if s == nil || len(s.Curve) == 0 {
		return v
	}
	for _, c := range s.Curve {
		tm := c.Result.Time
		col := render.ScaleColumn{GPUs: c.GPUs, MFU: c.MFU(), Runs: c.Runs(), Over: c.Result.Memory.Over}
		if tm.Step > 0 {
			col.Parts = [len(render.ScaleParts)]float64{tm.Compute / tm.Step, tm.Bubble / tm.Step, tm.Exposed / tm.Step,
				tm.Optimizer / tm.Step, tm.Straggler / tm.Step}
		}
		v.Curve = append(v.Curve, col)
	}
	for _, c := range s.Small {
		v.Small = append(v.Small, render.ScaleMark{GPUs: c.GPUs, MFU: c.MFU()})
	}
	for _, p := range s.Published {
		v.Published = append(v.Published, render.ScaleMark{GPUs: p.GPUs, MFU: p.MFU, Hollow: p.Batch != scenarios.ScaleBatch})
	}
	// The columns as far as the playhead: all of them at the step's end.
	n := len(v.Curve)
	v.Shown = n
	if f.t >= 0 {
		v.Shown = min(n, int(f.frac*float64(n))+1)
	}
	first, last := s.FirstRunning(), s.Last()
	batch, small := units.Count(scenarios.ScaleBatch), units.Count(scenarios.SmallBatch)
	v.Headline = f.say("canvas.scale.head", "gpu", last.Result.Config.Cluster.GPU.Name,
		"first", units.Percent(first.MFU()), "first_gpus", units.Count(int64(first.GPUs)),
		"last", units.Percent(last.MFU()), "last_gpus", units.Count(int64(last.GPUs)))
	v.MFUTitle = f.say("canvas.scale.mfu")
	v.TimeTitle = f.say("canvas.scale.time")
	v.Axis = f.say("canvas.scale.axis")
	v.KeyEngine = f.say("canvas.scale.key_engine", "batch", batch)
	v.KeySmall = f.say("canvas.scale.key_engine", "batch", small)
	v.KeyPublished = f.say("canvas.scale.key_published", "batch", small)
	for i, part := range render.ScaleParts {
		v.PartLabels[i] = f.say("canvas.scale.part_" + part)
	}
	v.NoFit = f.say("canvas.scale.nofit", "gpu", last.Result.Config.Cluster.GPU.Name)
	return v
}
