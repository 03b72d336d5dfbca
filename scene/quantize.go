package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The fp8-training pictures: a strip of the tensor's values under each
// block's FP8 window, with every format's bytes and error beside it; and
// the H100's roof raised from BF16 to FP8.

// quantCache is the last picture built: a step is a still picture, so a
// frame that asks for the same run, frame and question state is a copy
// of it (no allocation).
type quantCache struct {
	run     *scenarios.QuantizeRun
	frame   Frame
	pending bool
	list    render.List
}

func buildQuantize(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.QuantizeRun)
	c := &p.quant
	if c.run != run || c.frame != f || c.pending != m.Pending || c.list.Items == nil {
		c.run, c.frame, c.pending = run, f, m.Pending
		c.list = quantPicture(c.list, run, m.Pending, f)
	}
	out := empty(dst, f)
	out.Items = append(out.Items, c.list.Items...)
	out.Keys = append(out.Keys, c.list.Keys...)
	return out
}

func quantPicture(dst render.List, run *scenarios.QuantizeRun, pending bool, f Frame) render.List {
	w := f.words()
	if run.View == scenarios.ViewRoof {
		v := render.RooflineView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
			Story: render.RoofRaised, Dtype: "FP8", Roofs: []render.Roof{
				{Name: run.FP8.GPU.Name + " FP8", Peak: run.FP8.Peak, BW: run.FP8.BW, Current: true, Colour: 1},
				{Name: run.FP4.GPU.Name + " FP4", Peak: run.FP4.Peak, BW: run.FP4.BW, Colour: 2},
				{Name: "BF16", Peak: run.BF16.Peak, BW: run.BF16.BW, Ghost: true},
			}}
		return render.AppendRoofline(dst, v)
	}
	v := quantView(run, w)
	v.Width, v.Height, v.Stage, v.Scale, v.Theme = f.Width, f.Height, f.Stage, f.Scale, f.Theme
	v.Pending = pending
	return render.AppendQuantize(dst, v)
}

// quantView is a run's strip, windows and table in the reader's language.
func quantView(run *scenarios.QuantizeRun, w render.Words) render.QuantizeView {
	res := run.QuantizeOf(run.Recipe)
	elem := run.Recipe.Element()
	v := render.QuantizeView{X: run.X, Q: run.Q, Outlier: run.Outlier, Block: run.Recipe.Block()}
	if v.Block == 0 {
		v.Block = len(run.X)
	}
	for _, s := range run.Scales {
		v.Windows = append(v.Windows, render.QuantWindow{Top: elem.Max() * s, MinNormal: elem.MinNormal() * s, Flush: elem.MinSubnormal() * s / 2})
	}
	flushed := 0
	for i, x := range run.X {
		if x != 0 && run.Q[i] == 0 {
			flushed++
		}
	}
	pct := func(v float64) string { return units.Percent(v) }
	bits := func(b float64) string {
		return w.Say("canvas.quantize.bits", "n", strconv.FormatFloat(8*b, 'f', -1, 64))
	}
	v.Rows = []render.QuantRow{
		{Name: "FP32", Bytes: 4, Bits: bits(4), ErrText: "0"},
		{Name: "BF16", Bytes: 2, Error: run.BF16Error, Bits: bits(2), ErrText: pct(run.BF16Error)},
	}
	for _, r := range run.Results {
		v.Rows = append(v.Rows, render.QuantRow{Name: w.Say("canvas.quantize.recipe." + string(r.Recipe)), Bytes: r.BytesPerValue,
			Error: r.TypicalRelRMSE, Bits: bits(roundBits(r.BytesPerValue)), ErrText: pct(r.TypicalRelRMSE), Current: r.Recipe == run.Recipe})
	}
	outlier := units.Count(int64(res.Outlier))
	if res.Outlier >= 1e4 {
		outlier = scenarios.OutlierText(w.Lang, res.Outlier) // 10 万 in Chinese
	}
	v.Title = w.Say("canvas.quantize.title."+string(run.Recipe), "values", units.Count(int64(res.Values)), "outlier", outlier)
	if res.Outliers == 0 {
		v.Title = w.Say("canvas.quantize.title_none."+string(run.Recipe), "values", units.Count(int64(res.Values)))
	}
	v.Said = render.QuantizeWords{
		YAxis:        w.Say("canvas.quantize.y"),
		XAxis:        w.Say("canvas.quantize.x."+string(run.Recipe), "strip", strconv.Itoa(len(run.X)), "values", units.Count(int64(res.Values))),
		Flushed:      w.Say("canvas.quantize.flushed", "strip", strconv.Itoa(flushed), "n", strconv.Itoa(len(run.X)), "all", units.Count(int64(res.Underflow)), "values", units.Count(int64(res.Values)), "share", pct(float64(res.Underflow)/float64(res.Values))),
		OutlierLabel: w.Say("canvas.quantize.outlier", "k", outlier),
		KeyWindow:    w.Say("canvas.quantize.key_window", "elem", elemName(elem)),
		KeySub:       w.Say("canvas.quantize.key_sub"),
		KeyKept:      w.Say("canvas.quantize.key_kept"),
		KeyCoarse:    w.Say("canvas.quantize.key_coarse"),
		KeyFlushed:   w.Say("canvas.quantize.key_flushed"),
		KeyOutlier:   w.Say("canvas.quantize.key_outlier"),
		KeyValue:     w.Say("canvas.quantize.key_value"),
		TableTitle:   w.Say("canvas.quantize.table", "values", units.Count(int64(res.Values))),
		BytesHead:    w.Say("canvas.quantize.bytes"),
		ErrorHead:    w.Say("canvas.quantize.error"),
		Hidden:       w.Say("canvas.quantize.hidden"),
	}
	if res.Outliers == 0 {
		v.Said.OutlierLabel = ""
	}
	if run.Recipe == numfmt.Block128 {
		v.Said.TilesWeights = w.Say("canvas.quantize.tiles_weights")
		v.Said.TilesActivations = w.Say("canvas.quantize.tiles_activations")
	}
	return v
}

// roundBits is bytes a value with its bits rounded to two decimals, so
// that 1.03125 reads 8.25 bits and 0.5625038 4.5.
func roundBits(b float64) float64 {
	bits, _ := strconv.ParseFloat(strconv.FormatFloat(8*b, 'f', 2, 64), 64)
	return bits / 8
}

func elemName(f numfmt.Format) string {
	if f.ID == numfmt.FP4E2M1.ID {
		return "FP4"
	}
	return "FP8"
}
