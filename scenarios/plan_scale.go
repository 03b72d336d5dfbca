package scenarios

import (
	"sync"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/engine/validate"
)

// A scale step (issue 37's "draw it"): one model's MFU against the GPU
// count, 64 to 16,384, the engine's curve beside the published points,
// and where each step's time goes. The model is the 175B of MegaScale's
// Table 2 as gpuscope validate runs it (validate.MegaScale175B); the
// published points are that table's Megatron-LM rows
// (validate.MegaScaleTable2). The step's picture does not follow the
// lesson's knobs: it is the published run, whatever the reader set.

// ViewScale is the scale-out picture.
const ViewScale = "scale"

// ScaleBatch is the curve's global batch, sequences of 2,048 tokens: the
// batch of Table 2's rows from 3,072 GPUs up (12.6 million tokens).
const ScaleBatch = 6144

// ScaleFrom and ScaleTo are the curve's ends; it doubles between them.
const (
	ScaleFrom = 64
	ScaleTo   = 16384
)

// ScalePoint is one plan of a scale step: the model on GPUs GPUs at a
// global batch of Batch, as the engine evaluates it.
type ScalePoint struct {
	GPUs, Batch int
	Result      parallel.Result
}

// MFU is the point's model FLOPs utilisation (Megatron's count, as Table
// 2's: the engine's model FLOPs over the A100's 312 TFLOP/s).
func (p ScalePoint) MFU() float64 { return p.Result.MFU }

// Runs reports whether the plan fits in its GPUs' memory.
func (p ScalePoint) Runs() bool { return p.Result.Memory.Fits }

// ScaleRun is what a scale step draws.
type ScaleRun struct {
	// Curve is the plan at ScaleBatch on ScaleFrom, 2·ScaleFrom …
	// ScaleTo GPUs.
	Curve []ScalePoint
	// Small is the plan at each of Table 2's rows of batch 768 (256 to
	// 1,024 GPUs): the engine beside the published points of that batch.
	Small []ScalePoint
	// Published are Table 2's Megatron-LM rows, as printed.
	Published []validate.MegaScaleRow
	Source    string
}

// SmallBatch is the batch of Table 2's rows on 256 to 1,024 GPUs.
const SmallBatch = 768

var (
	scaleOnce sync.Once
	scaleRun  ScaleRun
	scaleErr  error
)

// Scale is the scale step's run, evaluated once (it does not depend on
// the lesson's knobs).
func Scale() (ScaleRun, error) {
	scaleOnce.Do(func() {
		s := ScaleRun{Published: validate.MegaScaleTable2, Source: validate.MegaScaleSource}
		point := func(gpus, batch int) (ScalePoint, error) {
			r, err := parallel.Evaluate(validate.MegaScale175B(gpus, batch))
			return ScalePoint{GPUs: gpus, Batch: batch, Result: r}, err
		}
		for g := ScaleFrom; g <= ScaleTo; g *= 2 {
			p, err := point(g, ScaleBatch)
			if err != nil {
				scaleErr = err
				return
			}
			s.Curve = append(s.Curve, p)
		}
		for _, row := range s.Published {
			if row.Batch != SmallBatch {
				continue
			}
			p, err := point(row.GPUs, row.Batch)
			if err != nil {
				scaleErr = err
				return
			}
			s.Small = append(s.Small, p)
		}
		scaleRun = s
	})
	return scaleRun, scaleErr
}

// FirstRunning is the curve's first point that fits in memory (the last
// point when none does).
func (s ScaleRun) FirstRunning() ScalePoint {
	for _, p := range s.Curve {
		if p.Runs() {
			return p
		}
	}
	return s.Curve[len(s.Curve)-1]
}

// Last is the curve's last point (ScaleTo GPUs).
func (s ScaleRun) Last() ScalePoint { return s.Curve[len(s.Curve)-1] }

// scaleNarration are the numbers a scale step's text quotes.
func scaleNarration(s ScaleRun, lang string) []string {
	if len(s.Curve) == 0 || len(s.Published) == 0 {
		return nil
	}
	first, last := s.FirstRunning(), s.Last()
	pf, pl := s.Published[0], s.Published[len(s.Published)-1]
	tm := last.Result.Time
	share := func(x float64) string { return units.Percent(x / tm.Step) }
	return []string{
		"scale_batch", count(ScaleBatch), "small_batch", count(SmallBatch),
		"scale_first_gpus", count(first.GPUs), "scale_first_mfu", units.Percent(first.MFU()),
		"scale_last_gpus", count(last.GPUs), "scale_last_mfu", units.Percent(last.MFU()),
		"pub_first_gpus", count(pf.GPUs), "pub_first_mfu", units.Percent(pf.MFU),
		"pub_last_gpus", count(pl.GPUs), "pub_last_mfu", units.Percent(pl.MFU),
		"scale_compute_share", share(tm.Compute), "scale_exposed_share", share(tm.Exposed),
		"scale_straggler_share", share(tm.Straggler), "scale_bubble_share", share(tm.Bubble),
		"scale_step", units.LocalDuration(lang, tm.Step),
	}
}
