package scenarios

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// MemwallKernels are the memory-wall lesson's four kernels, slowest first.
var MemwallKernels = []string{"naive", "smem16", "smem32", "tensor"}

// MemwallKSteps is how many steps of the k-loop the picture animates,
// spread over the kernel's time.
const MemwallKSteps = 16

// MemwallRun is a memory-wall step: C = A×B of the step's size run by all
// four kernels, the step's kernel on screen, on a time line as long as
// that kernel takes (82.1 ms naive, 175 µs on tensor cores at 4096 on an
// H100), over which the picture animates the k-steps of tiles moving from
// HBM to shared memory.
type MemwallRun struct {
	Kernel  string
	Results map[string]kernel.GEMMResult
}

// End is when the step's kernel finishes: its time, to the picosecond
// (at least one).
func (r *MemwallRun) End() sim.Time { return max(sim.FromSeconds(r.Current().TimeS), sim.Picosecond) }

// Mark knows start and end.
func (r *MemwallRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.End()) }

// Current is the step's kernel's result.
func (r *MemwallRun) Current() kernel.GEMMResult { return r.Results[r.Kernel] }

// MemwallLesson is the memory-wall lesson's engine part.
type MemwallLesson struct{}

// MemwallMetrics are a step's numbers: the step's kernel under gpuscope
// gemm's names, and all four side by side.
type MemwallMetrics struct {
	kernel.GEMMMetrics
	Kernel  string                        `json:"kernel"`
	Kernels map[string]kernel.GEMMMetrics `json:"kernels"`
}

func memwallConfig(c Config, k string) kernel.GEMMConfig {
	g, _ := hw.GPUByID(c["gpu"])
	n := c.IntOf("size")
	gc := kernel.GEMMConfig{M: n, N: n, K: n, Dtype: hw.BF16, GPU: g}
	switch k {
	case "naive":
		gc.Kernel = kernel.Naive
	case "smem16":
		gc.Kernel, gc.TileM, gc.TileN = kernel.SmemTiled, 16, 16
	case "smem32":
		gc.Kernel, gc.TileM, gc.TileN = kernel.SmemTiled, 32, 32
	default:
		gc.Kernel = kernel.TensorTiled
	}
	return gc
}

func memwallRun(c Config) (*MemwallRun, error) {
	r := &MemwallRun{Kernel: c["kernel"], Results: map[string]kernel.GEMMResult{}}
	for _, k := range MemwallKernels {
		res, err := kernel.GEMM(memwallConfig(c, k))
		if err != nil {
			return nil, err
		}
		r.Results[k] = res
	}
	return r, nil
}

var prepareMemwall = prepareWith(func() lessonEngine { return MemwallLesson{} }, func(c Config) (Run, error) { return memwallRun(c) })

func (MemwallLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*MemwallRun)
	m := MemwallMetrics{GEMMMetrics: r.Current().Metrics(), Kernel: r.Kernel, Kernels: map[string]kernel.GEMMMetrics{}}
	for k, res := range r.Results {
		m.Kernels[k] = res.Metrics()
	}
	return m
}

func (MemwallLesson) narration(les *Lesson, _ int, lang string) []string {
	r, err := memwallRun(les.Config)
	if err != nil {
		return nil
	}
	m := func(k string) kernel.GEMMMetrics { return r.Results[k].Metrics() }
	tf := units.Number // three digits; 1,000 and more grouped (a B200's 1,600 TFLOP/s)
	return []string{
		"size", strconv.Itoa(les.Config.IntOf("size")),
		"naive_bytes", units.Bytes(m("naive").HBMBytes),
		"naive_tflops", tf(m("naive").TFLOPS),
		"naive_util", units.Percent(m("naive").Utilization),
		"naive_intensity", tf(m("naive").Intensity),
		"smem16_bytes", units.Bytes(m("smem16").HBMBytes),
		"smem32_bytes", units.Bytes(m("smem32").HBMBytes),
		"smem16_tflops", tf(m("smem16").TFLOPS),
		"smem32_tflops", tf(m("smem32").TFLOPS),
		"tensor_bytes", units.Bytes(m("tensor").HBMBytes),
		"tensor_tflops", tf(m("tensor").TFLOPS),
		"tensor_util", units.Percent(m("tensor").Utilization),
		"tensor_intensity", tf(m("tensor").Intensity),
		"tensor_speedup", strconv.FormatFloat(m("naive").TimeS/m("tensor").TimeS, 'f', 0, 64),
		// Each kernel's time, as the canvas's clock and summary give it.
		"naive_time", units.LocalDuration(lang, m("naive").TimeS),
		"smem16_time", units.LocalDuration(lang, m("smem16").TimeS),
		"smem32_time", units.LocalDuration(lang, m("smem32").TimeS),
		"tensor_time", units.LocalDuration(lang, m("tensor").TimeS),
	}
}

func (MemwallLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*MemwallRun)
	tb := Table{Columns: []string{t("ui.metric")}, ColumnKeys: MemwallKernels, Current: r.Kernel}
	cells := map[string][]string{}
	keys := []string{"hbm_bytes", "intensity_flop_per_byte", "tflops", "utilization", "bound", "time_s"}
	for _, k := range MemwallKernels {
		tb.Columns = append(tb.Columns, t("memwall."+k))
		m := r.Results[k].Metrics()
		cells["hbm_bytes"] = append(cells["hbm_bytes"], units.Bytes(m.HBMBytes))
		cells["intensity_flop_per_byte"] = append(cells["intensity_flop_per_byte"], units.Number(m.Intensity))
		cells["tflops"] = append(cells["tflops"], units.Number(m.TFLOPS))
		cells["utilization"] = append(cells["utilization"], strconv.FormatFloat(100*m.Utilization, 'g', 2, 64)+"%")
		cells["bound"] = append(cells["bound"], t("bound."+m.Bound))
		cells["time_s"] = append(cells["time_s"], units.LocalDuration(lang, m.TimeS))
	}
	for _, k := range keys {
		tb.Rows = append(tb.Rows, TableRow{Key: k, Label: t("metric." + k), Cells: cells[k], Source: t("source.memwall." + k)})
	}
	return tb
}

func (MemwallLesson) live(*Lesson, int, sim.Time, string) string { return "" }
