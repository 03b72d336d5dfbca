package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The fp8-training lesson (issue 20) is of the kind quantize: a step
// stores one seeded tensor by one FP8 or FP4 recipe (engine/numfmt's
// Quantize, gpuscope quantize), drawn as a strip of its values on a log
// scale with each block's FP8 window over them; its roof view is the B200
// roofline raised from BF16 to FP8 and FP4. It is a kind of its own, not the
// number-formats one: that kind plays a toy training run, this one a
// tensor and its scales.

// ViewRoof shows the roofline raised by FP8 and FP4 in place of the strip.
const ViewRoof = "roof"

// QuantizeValues is the size of the lesson's tensor: 65,536 values, 65 of
// them outliers (numfmt.Outliers).
const QuantizeValues = 1 << 16

// QuantizeStrip is how many of the tensor's values the picture draws: the
// 256 around its first outlier, two 1×128 tiles.
const QuantizeStrip = 256

// QuantizeGPU is the GPU whose roof the lesson raises.
const QuantizeGPU = "b200"

// QuantizeRun is a quantize step: every recipe's result on the step's
// tensor, and the strip the picture draws.
type QuantizeRun struct {
	View    string        // "" (the strip) or ViewRoof
	Recipe  numfmt.Recipe // the step's recipe
	Results []numfmt.QuantizeResult
	// Start is the strip's first value in the tensor; X its values, Q
	// what the recipe stores for them, Scales the scale of each block
	// of the recipe in the strip (one for tensor).
	Start   int
	X, Q    []float64
	Scales  []float64
	Outlier []bool // X[i] is one of the tensor's outliers
	// BF16Error is the tensor's ordinary values' relative RMSE in BF16,
	// for comparison.
	BF16Error      float64
	BF16, FP8, FP4 kernel.Roofline
}

// End is 0: the steps are still pictures.
func (r *QuantizeRun) End() sim.Time { return 0 }

// Mark knows start and end.
func (r *QuantizeRun) Mark(name string) (sim.Time, bool) { return startEnd(name, 0) }

// QuantizeConfigOf reads a quantize lesson's knobs (gpuscope quantize's
// flags under the same names); the error names the knob.
func QuantizeConfigOf(c Config) (numfmt.QuantizeConfig, error) {
	get := func(name, def string) string {
		if v, ok := c[name]; ok && v != "" {
			return v
		}
		return def
	}
	r := numfmt.Recipe(get("recipe", string(numfmt.Tensor)))
	if !slices.Contains(numfmt.Recipes, r) {
		return numfmt.QuantizeConfig{}, inputError("error.enum", "recipe", string(r), "allowed", listArg(numfmt.RecipeIDs()))
	}
	d := numfmt.Dist(get("dist", string(numfmt.Normal)))
	if !slices.Contains(numfmt.Dists, d) {
		return numfmt.QuantizeConfig{}, inputError("error.enum", "dist", string(d), "allowed", listArg(numfmt.DistIDs()))
	}
	k, err := strconv.ParseFloat(get("outlier", "1000"), 64)
	if err != nil || !(k >= 0 && k <= numfmt.MaxOutlier) {
		return numfmt.QuantizeConfig{}, inputError("error.enum", "outlier", get("outlier", "1000"), "allowed", "0–1000000")
	}
	seed, _ := strconv.ParseInt(get("seed", "1"), 10, 64)
	return numfmt.QuantizeConfig{Recipe: r, Values: QuantizeValues, Outlier: k, Seed: seed, Dist: d}, nil
}

// quantizeTensor is one tensor's results by recipe, and its strip.
type quantizeTensor struct {
	results []numfmt.QuantizeResult
	x       []float64
	start   int
	outlier []bool
	bf16    float64
	stored  [][]float64 // each recipe's stored values, in numfmt.Recipes' order
}

func quantizeTensorOf(qc numfmt.QuantizeConfig) (*quantizeTensor, error) {
	if _, err := numfmt.Quantize(numfmt.QuantizeConfig{Recipe: qc.Recipe, Values: 1, Outlier: qc.Outlier, Seed: qc.Seed, Dist: qc.Dist}); err != nil {
		return nil, err // the configuration checked, on one value
	}
	x, outliers := numfmt.GenerateValues(qc.Values, qc.Outlier, qc.Seed, qc.Dist)
	t := &quantizeTensor{x: x}
	for _, r := range numfmt.Recipes {
		c := qc
		c.Recipe = r
		res, q := numfmt.QuantizeValues(c, x, outliers)
		t.results = append(t.results, res)
		t.stored = append(t.stored, q)
	}
	q := make([]float64, len(x))
	for i, v := range x {
		q[i] = numfmt.BF16.Saturate(v) // BF16's rounding; no value here is near its max
	}
	t.bf16 = numfmt.Measure(x, q, outliers).TypicalRelRMSE
	if len(outliers) > 0 {
		t.start = min(outliers[0]/QuantizeStrip*QuantizeStrip, len(x)-QuantizeStrip)
	}
	t.outlier = make([]bool, QuantizeStrip)
	for _, p := range outliers {
		if p >= t.start && p < t.start+QuantizeStrip {
			t.outlier[p-t.start] = true
		}
	}
	return t, nil
}

// QuantizeLesson is the quantize lessons' engine part.
type QuantizeLesson struct{}

func prepareQuantize(s *Scenario, cfg Config) (*Lesson, error) {
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: QuantizeLesson{}}
	var tensors []*quantizeTensor // one a configuration of the values, shared by the steps that show it
	bf16, err := kernel.NewRoofline(hw.MustGPU(QuantizeGPU), hw.BF16)
	if err != nil {
		return nil, err
	}
	fp8, err := kernel.NewRoofline(hw.MustGPU(QuantizeGPU), hw.FP8)
	if err != nil {
		return nil, err
	}
	fp4, err := kernel.NewRoofline(hw.MustGPU(QuantizeGPU), hw.FP4)
	if err != nil {
		return nil, err
	}
	run := func(st Step, c Config) (Run, error) {
		qc, err := QuantizeConfigOf(c)
		if err != nil {
			return nil, err
		}
		var t *quantizeTensor
		for _, u := range tensors {
			if c := u.results[0]; c.Outlier == qc.Outlier && c.Seed == qc.Seed && c.Dist == qc.Dist {
				t = u
			}
		}
		if t == nil {
			if t, err = quantizeTensorOf(qc); err != nil {
				return nil, err
			}
			tensors = append(tensors, t)
		}
		r := &QuantizeRun{Recipe: qc.Recipe, Results: t.results, Start: t.start, Outlier: t.outlier, BF16Error: t.bf16, BF16: bf16, FP8: fp8, FP4: fp4}
		if slices.Contains(st.Show, ViewRoof) {
			r.View = ViewRoof
		}
		// The strip as the whole tensor stores it: the tensor's and
		// NVFP4's scales depend on all of it.
		q := t.stored[slices.Index(numfmt.Recipes, qc.Recipe)]
		scales := qc.Recipe.Scales(t.x)
		r.X = t.x[t.start : t.start+QuantizeStrip]
		r.Q = q[t.start : t.start+QuantizeStrip]
		if b := qc.Recipe.Block(); b > 0 {
			r.Scales = scales[t.start/b : (t.start+QuantizeStrip)/b]
		} else {
			r.Scales = scales
		}
		return r, nil
	}
	if err := les.stepWindowsOf(run); err != nil {
		return nil, err
	}
	return les, nil
}

// QuantizeMetrics are a step's numbers: gpuscope quantize's for the
// step's recipe, every recipe's, and the B200's BF16, FP8 and FP4 peaks.
type QuantizeMetrics struct {
	numfmt.QuantizeResult
	UnderflowShare float64                 `json:"underflow_share"` // Underflow ÷ Values
	Recipes        []numfmt.QuantizeResult `json:"recipes"`
	PeakBF16       float64                 `json:"peak_bf16_flops"`
	PeakFP8        float64                 `json:"peak_fp8_flops"`
	PeakFP4        float64                 `json:"peak_fp4_flops"`
	Command        string                  `json:"command"`
}

// Metrics are the run's numbers under gpuscope quantize's names.
func (r *QuantizeRun) Metrics() QuantizeMetrics {
	res := r.QuantizeOf(r.Recipe)
	return QuantizeMetrics{QuantizeResult: res, UnderflowShare: float64(res.Underflow) / float64(res.Values), Recipes: r.Results,
		PeakBF16: r.BF16.Peak, PeakFP8: r.FP8.Peak, PeakFP4: r.FP4.Peak,
		Command: fmt.Sprintf("gpuscope quantize --recipe %s --values %d --outlier %s --dist %s --seed %d --json",
			res.Recipe, res.Values, strconv.FormatFloat(res.Outlier, 'g', -1, 64), res.Dist, res.Seed)}
}

func (QuantizeLesson) metrics(les *Lesson, step int) any {
	return les.Steps[step-1].Run.(*QuantizeRun).Metrics()
}

// QuantizeOf is the result of recipe r among the run's.
func (r *QuantizeRun) QuantizeOf(rec numfmt.Recipe) numfmt.QuantizeResult {
	return r.Results[slices.Index(numfmt.Recipes, rec)]
}

// RelError writes a relative error as a percentage.
func RelError(v float64) string { return units.Percent(v) }

// OutlierText is the outlier's ratio to a typical value as prose says
// it: in Chinese a whole count of 10,000 or more with 万 ("10 万", read
// before 倍), otherwise as plainNumber.
func OutlierText(lang string, v float64) string {
	if lang == "zh" && v >= 1e4 && v == math.Trunc(v) {
		return largeZH(v)
	}
	return plainNumber(v)
}

func quantizeNarration(r *QuantizeRun, lang string) []string {
	res := r.QuantizeOf(r.Recipe)
	of := r.QuantizeOf
	ten, blk, mx, nv := of(numfmt.Tensor), of(numfmt.Block128), of(numfmt.MXFP8), of(numfmt.NVFP4)
	share := func(n int) string { return units.Percent(float64(n) / float64(res.Values)) }
	return []string{
		"values", count(res.Values), "strip", count(QuantizeStrip), "outliers", count(res.Outliers),
		"outlier", OutlierText(lang, res.Outlier), "amax", plainNumber(res.Amax),
		"underflow", count(res.Underflow), "underflow_share", share(res.Underflow),
		"error", RelError(res.TypicalRelRMSE),
		"tensor_underflow", count(ten.Underflow), "tensor_share", share(ten.Underflow), "tensor_error", RelError(ten.TypicalRelRMSE),
		"block_underflow", count(blk.Underflow), "block_share", share(blk.Underflow), "block_error", RelError(blk.TypicalRelRMSE),
		"mx_underflow", count(mx.Underflow), "mx_error", RelError(mx.TypicalRelRMSE), "mx_overflow", count(mx.Overflow),
		"nv_underflow", count(nv.Underflow), "nv_share", share(nv.Underflow), "nv_error", RelError(nv.TypicalRelRMSE),
		"mx_bytes", strconv.FormatFloat(mx.BytesPerValue, 'f', 2, 64), "nv_bytes", strconv.FormatFloat(nv.BytesPerValue, 'f', 2, 64),
		"mx_bits", strconv.FormatFloat(8*mx.BytesPerValue, 'f', 2, 64), "nv_bits", strconv.FormatFloat(8*nv.BytesPerValue, 'f', 1, 64),
		"nv_mx_error", units.Ratio(lang, nv.TypicalRelRMSE/mx.TypicalRelRMSE),
		"gpu", r.FP8.GPU.Name, "bf16_peak", units.FLOPS(r.BF16.Peak), "fp8_peak", units.FLOPS(r.FP8.Peak),
		"bf16_ridge", strconv.FormatFloat(math.Round(r.BF16.Peak/r.BF16.BW), 'f', 0, 64),
		"fp8_ridge", strconv.FormatFloat(math.Round(r.FP8.Peak/r.FP8.BW), 'f', 0, 64),
		"fp4_peak", units.FLOPS(r.FP4.Peak), "fp4_ridge", strconv.FormatFloat(math.Round(r.FP4.Peak/r.FP4.BW), 'f', 0, 64),
	}
}

func (QuantizeLesson) narration(les *Lesson, step int, lang string) []string {
	return quantizeNarration(les.Steps[step-1].Run.(*QuantizeRun), lang)
}

// table is every recipe's numbers, a column each, the step's recipe the
// current one.
func (QuantizeLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*QuantizeRun)
	if r.View == ViewRoof {
		roof := func(key string, v func(kernel.Roofline) string) TableRow {
			return TableRow{Key: key, Label: t("metric." + key), Cells: []string{v(r.BF16), v(r.FP8), v(r.FP4)}, Source: t("source.quantize." + key)}
		}
		return Table{Columns: []string{t("ui.metric"), "BF16", "FP8", "FP4"}, ColumnKeys: []string{"bf16", "fp8", "fp4"}, Current: "fp8", Rows: []TableRow{
			roof("peak_tflops", func(k kernel.Roofline) string { return units.Number(k.Peak / 1e12) }),
			roof("ridge_flop_per_byte", func(k kernel.Roofline) string { return units.Number(k.Peak / k.BW) }),
		}}
	}
	tb := Table{Columns: []string{t("ui.metric")}, Current: string(r.Recipe)}
	for _, rec := range numfmt.Recipes {
		tb.Columns = append(tb.Columns, t("recipe."+string(rec)))
		tb.ColumnKeys = append(tb.ColumnKeys, string(rec))
	}
	row := func(key string, cell func(numfmt.QuantizeResult) string) {
		tr := TableRow{Key: key, Label: t("metric." + key), Source: t("source.quantize." + key)}
		for _, res := range r.Results {
			tr.Cells = append(tr.Cells, cell(res))
		}
		tb.Rows = append(tb.Rows, tr)
	}
	row("bytes_per_value", func(q numfmt.QuantizeResult) string {
		return i18n.T(lang, "canvas.quantize.bytes_cell", "bytes", strconv.FormatFloat(q.BytesPerValue, 'f', 4, 64),
			"bits", i18n.T(lang, "canvas.quantize.bits", "n", strconv.FormatFloat(8*q.BytesPerValue, 'f', 2, 64)))
	})
	row("typical_rel_rmse", func(q numfmt.QuantizeResult) string { return RelError(q.TypicalRelRMSE) })
	row("underflow", func(q numfmt.QuantizeResult) string { return count(q.Underflow) })
	row("overflow", func(q numfmt.QuantizeResult) string { return count(q.Overflow) })
	row("rel_rmse", func(q numfmt.QuantizeResult) string { return RelError(q.RelRMSE) })
	return tb
}

func (QuantizeLesson) live(*Lesson, int, sim.Time, string) string { return "" }
