package scenarios

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// FusedRun is a fused-kernels lesson step: LayerNorm → GeLU → Dropout over
// the step's activations, unfused and fused, on a time line as long as the
// unfused chain takes: the fused kernel is done well before.
type FusedRun struct {
	Unfused, Fused kernel.ElementwiseResult
	GPU            hw.GPU
}

// End is when the three unfused kernels are done.
func (r *FusedRun) End() sim.Time { return sim.FromSeconds(r.Unfused.TimeS) }

// Mark knows start and end.
func (r *FusedRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.End()) }

// FusedLesson is the fused-kernels lesson's engine part.
type FusedLesson struct{}

// FusedSide is one way of running the chain.
type FusedSide struct {
	Kernels  int     `json:"kernels"`
	HBMBytes float64 `json:"hbm_bytes"`
	FLOPs    float64 `json:"flops"`
	TimeS    float64 `json:"time_s"`
	// Intensity is FLOPs per HBM byte: far below any GPU's ridge.
	Intensity float64 `json:"intensity_flop_per_byte"`
}

// FusedMetrics are a step's numbers.
type FusedMetrics struct {
	Elements    float64   `json:"elements"`
	Unfused     FusedSide `json:"unfused"`
	Fused       FusedSide `json:"fused"`
	BytesSaved  float64   `json:"bytes_saved"`
	Speedup     float64   `json:"speedup"`
	TimeSavedS  float64   `json:"time_saved_s"`
	RidgeFLOPPB float64   `json:"ridge_flop_per_byte"`
}

func side(r kernel.ElementwiseResult) FusedSide {
	return FusedSide{Kernels: len(r.Kernels), HBMBytes: r.HBMBytes, FLOPs: r.FLOPs, TimeS: r.TimeS, Intensity: r.FLOPs / r.HBMBytes}
}

func fusedRun(c Config) (*FusedRun, error) {
	g, _ := hw.GPUByID(c["gpu"])
	n := c.Int("tokens") * c.Int("hidden")
	chain := []kernel.ElementwiseOp{kernel.LayerNorm, kernel.GeLU, kernel.Dropout}
	d := hw.Dtype(c["dtype"])
	un, err := kernel.Elementwise(chain, n, d, g, false)
	if err != nil {
		return nil, err
	}
	fu, err := kernel.Elementwise(chain, n, d, g, true)
	if err != nil {
		return nil, err
	}
	return &FusedRun{Unfused: un, Fused: fu, GPU: g}, nil
}

var prepareFused = prepareWith(func() lessonEngine { return FusedLesson{} }, func(c Config) (Run, error) { return fusedRun(c) })

func (FusedLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*FusedRun)
	roof, _ := kernel.NewRoofline(r.GPU, hw.BF16)
	return FusedMetrics{
		Elements: r.Unfused.Elements, Unfused: side(r.Unfused), Fused: side(r.Fused),
		BytesSaved: r.Unfused.HBMBytes - r.Fused.HBMBytes, Speedup: r.Unfused.TimeS / r.Fused.TimeS,
		TimeSavedS: r.Unfused.TimeS - r.Fused.TimeS, RidgeFLOPPB: roof.Ridge(),
	}
}

func (FusedLesson) narration(les *Lesson, _ int, lang string) []string {
	r, err := fusedRun(les.Config)
	if err != nil {
		return nil
	}
	roof, _ := kernel.NewRoofline(r.GPU, hw.BF16)
	ridge := roof.Ridge()
	secs := localDuration(lang)
	perElem := func(x kernel.ElementwiseResult) string {
		return strconv.FormatFloat(x.HBMBytes/x.Elements, 'g', 3, 64)
	}
	return []string{
		"elements", elementsText(lang, r.Unfused.Elements),
		"unfused_bytes", units.Bytes(r.Unfused.HBMBytes),
		"fused_bytes", units.Bytes(r.Fused.HBMBytes),
		"unfused_per_elem", perElem(r.Unfused),
		"fused_per_elem", perElem(r.Fused),
		"unfused_time", secs(r.Unfused.TimeS),
		"fused_time", secs(r.Fused.TimeS),
		"speedup", strconv.FormatFloat(r.Unfused.TimeS/r.Fused.TimeS, 'f', 1, 64),
		"intensity", strconv.FormatFloat(r.Fused.FLOPs/r.Fused.HBMBytes, 'f', 1, 64),
		"ridge", strconv.FormatFloat(ridge, 'f', 0, 64),
		"below", strconv.FormatFloat(ridge/(r.Fused.FLOPs/r.Fused.HBMBytes), 'f', 0, 64),
	}
}

func (FusedLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*FusedRun)
	secs := localDuration(lang)
	u, f := side(r.Unfused), side(r.Fused)
	row := func(key, a, b string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{a, b}, Source: t("source.fused." + key)}
	}
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	return Table{
		Columns:    []string{t("ui.metric"), t("fused.unfused"), t("fused.fused")},
		ColumnKeys: []string{"unfused", "fused"},
		Current:    "fused",
		Rows: []TableRow{
			row("kernels", strconv.Itoa(u.Kernels), strconv.Itoa(f.Kernels)),
			row("hbm_bytes", units.Bytes(u.HBMBytes), units.Bytes(f.HBMBytes)),
			row("time_s", secs(u.TimeS), secs(f.TimeS)),
			row("intensity_flop_per_byte", f1(u.Intensity), f1(f.Intensity)),
		},
	}
}

// live says how far each side has got at the playhead.
func (FusedLesson) live(les *Lesson, step int, t sim.Time, lang string) string {
	r := les.Steps[step-1].Run.(*FusedRun)
	done := func(total float64) string { return units.Percent(min(1, t.Seconds()/total)) }
	return i18n.T(lang, "ui.live_fused", "t", units.LocalDuration(lang, t.Seconds()), "unfused", done(r.Unfused.TimeS), "fused", done(r.Fused.TimeS))
}

// elementsText is the number of activations the chain works on: "201 M"
// in English, "2.01 亿" in Chinese.
func elementsText(lang string, n float64) string {
	if lang == "zh" {
		return largeCount(lang, n)
	}
	return strconv.FormatFloat(n/1e6, 'f', 0, 64) + " M"
}
