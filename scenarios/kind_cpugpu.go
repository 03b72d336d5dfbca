package scenarios

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// CPUGPURun is a cpu-vs-gpu step: the comparison, with a time line as long
// as the CPU takes for the whole product, over which both fill C.
type CPUGPURun struct {
	kernel.CPUvsGPU
}

// End is the CPU's total time.
func (r *CPUGPURun) End() sim.Time { return sim.FromSeconds(r.CPUTotalS) }

// Round is how long one round of elements takes on the slower side: each
// lane computes one element, N multiply-adds, in a round.
func (r *CPUGPURun) Round() float64 { return max(r.CPUElementS, r.GPUElementS) }

// Mark knows start, end and round:K, the start of round K: round:2 is
// when one CPU core and one CUDA core have both finished one element (the
// latency step's race).
func (r *CPUGPURun) Mark(name string) (sim.Time, bool) {
	if m, ok := ParseMark(name); ok && m.Kind == MarkRound {
		t := sim.FromSeconds(float64(m.Round-1) * r.Round())
		return t, t <= r.End()
	}
	return startEnd(name, r.End())
}

// Done is the share of C each side has finished at time t.
func (r *CPUGPURun) Done(t sim.Time) (cpu, gpu float64) {
	s := t.Seconds()
	return min(1, s/r.CPUTotalS), min(1, s/r.GPUTotalS)
}

// CPUGPULesson is the cpu-vs-gpu lesson's engine part.
type CPUGPULesson struct{}

// CPUGPUMetrics are a step's numbers.
type CPUGPUMetrics struct {
	Size         int     `json:"size"`
	CPUElementS  float64 `json:"cpu_element_s"`
	GPUElementS  float64 `json:"gpu_element_s"`
	CPUTotalS    float64 `json:"cpu_total_s"`
	GPUTotalS    float64 `json:"gpu_total_s"`
	TensorTotalS float64 `json:"tensor_total_s"`
	CPUWorkers   int     `json:"cpu_cores"`
	GPUWorkers   int     `json:"gpu_cuda_cores"`
	Speedup      float64 `json:"speedup"`
}

func cpugpuRun(c Config) (*CPUGPURun, error) {
	g, _ := hw.GPUByID(c["gpu"])
	r, err := kernel.CompareCPUGPU(c.IntOf("size"), hw.ServerCPU, g)
	if err != nil {
		return nil, err
	}
	return &CPUGPURun{r}, nil
}

var prepareCPUGPU = prepareWith(func() lessonEngine { return CPUGPULesson{} }, func(c Config) (Run, error) { return cpugpuRun(c) })

func cpugpuMetrics(r *CPUGPURun) CPUGPUMetrics {
	return CPUGPUMetrics{
		Size: r.N, CPUElementS: r.CPUElementS, GPUElementS: r.GPUElementS, CPUTotalS: r.CPUTotalS,
		GPUTotalS: r.GPUTotalS, TensorTotalS: r.TensorTotalS, CPUWorkers: r.CPUWorkers, GPUWorkers: r.GPUWorkers,
		Speedup: r.CPUTotalS / r.GPUTotalS,
	}
}

func (CPUGPULesson) metrics(les *Lesson, step int) any {
	return cpugpuMetrics(les.Steps[step-1].Run.(*CPUGPURun))
}

func (CPUGPULesson) narration(les *Lesson, _ int, lang string) []string {
	r, err := cpugpuRun(les.Config)
	if err != nil {
		return nil
	}
	m := cpugpuMetrics(r)
	secs := localDuration(lang)
	return []string{
		"size", strconv.Itoa(m.Size),
		"cpu_cores", count(m.CPUWorkers),
		"gpu_cores", count(m.GPUWorkers),
		"cpu_element", secs(m.CPUElementS),
		"gpu_element", secs(m.GPUElementS),
		"gpu_clock", strconv.FormatFloat(r.GPU.VectorClockHz/1e9, 'f', 2, 64) + " GHz",
		"cpu_total", secs(m.CPUTotalS),
		"gpu_total", secs(m.GPUTotalS),
		"tensor_total", secs(m.TensorTotalS),
		// The ratios to three digits, as the canvas's headlines give them
		// (units.Ratio's number).
		"speedup", units.Number(m.Speedup),
		"tensor_speedup", units.Number(m.CPUTotalS / m.TensorTotalS),
	}
}

func (CPUGPULesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	m := cpugpuMetrics(les.Steps[step-1].Run.(*CPUGPURun))
	secs := localDuration(lang)
	row := func(key, a, b string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{a, b}, Source: t("source.cpugpu." + key)}
	}
	g, _ := hw.GPUByID(les.Steps[step-1].Config["gpu"])
	return Table{
		Columns:    []string{t("ui.metric"), cpuName(lang, hw.ServerCPU), g.Name},
		ColumnKeys: []string{"cpu", "gpu"},
		Current:    "gpu",
		Rows: []TableRow{
			row("workers", count(m.CPUWorkers), count(m.GPUWorkers)),
			row("element_s", secs(m.CPUElementS), secs(m.GPUElementS)),
			row("total_s", secs(m.CPUTotalS), paren(lang, secs(m.GPUTotalS), i18n.T(lang, "cpugpu.tensor", "t", secs(m.TensorTotalS)))),
		},
	}
}

func (CPUGPULesson) live(les *Lesson, step int, t sim.Time, lang string) string {
	r := les.Steps[step-1].Run.(*CPUGPURun)
	cpu, gpu := r.Done(t)
	return i18n.T(lang, "ui.live_cpugpu", "t", units.LocalDuration(lang, t.Seconds()), "cpu", units.Percent(cpu), "gpu", units.Percent(gpu))
}
