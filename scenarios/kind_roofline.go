package scenarios

import (
	"math"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// RooflineGPUs are the GPUs the roofline lesson draws side by side; a
// GPU the reader picks that is not one of them (a Blackwell) is drawn
// after them.
var RooflineGPUs = []string{"a100-80gb", "h100", "h200"}

// RooflineRun is a roofline lesson step: a picture without a time line.
type RooflineRun struct {
	// Roofs by GPU id for the step's dtype; a GPU without the dtype is
	// absent.
	Roofs map[string]kernel.Roofline
	// IDs are the GPUs compared: RooflineGPUs, then the step's GPU if it
	// is not one of them.
	IDs       []string
	GPU       string
	Intensity float64
}

// SweepTime is the length of the sweep a step with show: sweep plays.
const SweepTime = 10 * sim.Millisecond

// End is the sweep's length; steps without the sweep stay at 0.
func (r *RooflineRun) End() sim.Time { return SweepTime }

// Mark knows start and end.
func (r *RooflineRun) Mark(name string) (sim.Time, bool) { return startEnd(name, SweepTime) }

// SweepIntensity is the intensity a sweep shows at time t: from 0.01 to
// 10,000 FLOP/byte, evenly on a log scale.
func SweepIntensity(t sim.Time) float64 {
	return math.Pow(10, -2+6*float64(t)/float64(SweepTime))
}

// Current is the roofline of the step's GPU.
func (r *RooflineRun) Current() kernel.Roofline { return r.Roofs[r.GPU] }

// RooflineLesson is the roofline lesson's engine part.
type RooflineLesson struct{}

// RooflineMetrics are a step's numbers: gpuscope roofline's for the step's
// GPU and dtype, where a kernel of the step's intensity lands, and every
// GPU's roof.
type RooflineMetrics struct {
	kernel.RooflineMetrics
	IntensityFLOPPerByte float64                  `json:"intensity_flop_per_byte"`
	AttainableTFLOPS     float64                  `json:"attainable_tflops"`
	Bound                string                   `json:"bound"`
	GPUs                 []kernel.RooflineMetrics `json:"gpus"`
}

func rooflineRun(c Config) (*RooflineRun, error) {
	r := &RooflineRun{Roofs: map[string]kernel.Roofline{}, GPU: c["gpu"], Intensity: c.Float("intensity"), IDs: RooflineGPUs}
	if !slices.Contains(r.IDs, r.GPU) {
		r.IDs = append(r.IDs[:len(r.IDs):len(r.IDs)], r.GPU)
	}
	d := hw.Dtype(c["dtype"])
	for _, id := range r.IDs {
		roof, err := kernel.NewRoofline(hw.MustGPU(id), d)
		if err == nil {
			r.Roofs[id] = roof
		} else if id == r.GPU {
			return nil, err // dtype: the GPU has no unit for it; allowed …
		}
	}
	return r, nil
}

var prepareRoofline = prepareWith(func() lessonEngine { return RooflineLesson{} }, func(c Config) (Run, error) { return rooflineRun(c) })

func (RooflineLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*RooflineRun)
	cur := r.Current()
	m := RooflineMetrics{
		RooflineMetrics:      cur.Metrics(),
		IntensityFLOPPerByte: r.Intensity,
		AttainableTFLOPS:     cur.Attainable(r.Intensity) / 1e12,
		Bound:                cur.Bound(r.Intensity),
	}
	for _, id := range r.IDs {
		if roof, ok := r.Roofs[id]; ok {
			m.GPUs = append(m.GPUs, roof.Metrics())
		}
	}
	return m
}

func (RooflineLesson) narration(les *Lesson, _ int, lang string) []string {
	ridge := func(id string) string {
		g, _ := hw.GPUByID(id)
		roof, err := kernel.NewRoofline(g, hw.BF16)
		if err != nil {
			return "—"
		}
		return strconv.FormatFloat(roof.Ridge(), 'f', 0, 64)
	}
	h, _ := hw.GPUByID("h100")
	fp8, _ := kernel.NewRoofline(h, hw.FP8)
	bf16, _ := kernel.NewRoofline(h, hw.BF16)
	g, _ := hw.GPUByID("h200")
	gemm, _ := kernel.GEMM(kernel.GEMMConfig{M: 8192, N: 8192, K: 8192, Dtype: hw.BF16, GPU: g, Kernel: kernel.TensorTiled})
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	return []string{
		"ridge_a100", ridge("a100-80gb"),
		"ridge_h100", ridge("h100"),
		"ridge_h200", ridge("h200"),
		"ridge_b200", ridge("b200"),
		"peak_b200", units.Number(hw.MustGPU("b200").Peak[hw.BF16] / 1e12),
		"bw_b200", units.Number(hw.MustGPU("b200").HBMBandwidth / 1e12),
		"ridge_h100_fp8", strconv.FormatFloat(fp8.Ridge(), 'f', 0, 64),
		"peak_h100", f1(bf16.Peak / 1e12),
		"bw_h100", strconv.FormatFloat(bf16.BW/1e12, 'f', 2, 64),
		"elementwise_tflops", f1(bf16.Attainable(0.25) / 1e12),
		"gemm_intensity", strconv.FormatFloat(gemm.Metrics().Intensity, 'f', 0, 64),
	}
}

func (RooflineLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*RooflineRun)
	tb := Table{Columns: []string{t("ui.metric")}, Current: r.GPU}
	var peak, bw, ridge, att, bound []string
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, id := range r.IDs {
		g := hw.MustGPU(id)
		tb.Columns = append(tb.Columns, g.Name)
		tb.ColumnKeys = append(tb.ColumnKeys, id)
		roof, ok := r.Roofs[id]
		if !ok {
			for _, col := range []*[]string{&peak, &bw, &ridge, &att, &bound} {
				*col = append(*col, "—")
			}
			continue
		}
		peak = append(peak, f1(roof.Peak/1e12))
		bw = append(bw, strconv.FormatFloat(roof.BW/1e12, 'f', 3, 64))
		ridge = append(ridge, f1(roof.Ridge()))
		att = append(att, f1(roof.Attainable(r.Intensity)/1e12))
		bound = append(bound, t("bound."+roof.Bound(r.Intensity)))
	}
	row := func(key string, cells []string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: cells, Source: t("source.roofline." + key)}
	}
	tb.Rows = []TableRow{
		row("peak_tflops", peak), row("hbm_TBps", bw), row("ridge_flop_per_byte", ridge),
		row("attainable_tflops", att), row("bound", bound),
	}
	return tb
}

func (RooflineLesson) live(*Lesson, int, sim.Time, string) string { return "" }
