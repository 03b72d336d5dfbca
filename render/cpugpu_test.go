package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/internal/golden"
)

// cpugpuView is C = A×B of 4096² on a 64-core CPU (1,024 lanes at 3.5
// GHz) and an H100 SXM (16,896 at 1.98 GHz).
func cpugpuView(phase CPUGPUPhase, t float64) CPUGPUView {
	n := 4096.0
	return CPUGPUView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Phase: phase, N: 4096, Time: t,
		CPU:     CPUGPUSide{Name: "64-core CPU", Units: 64, LanesPerUnit: 16, ClockHz: 3.5e9, ElementS: n / 3.5e9, TotalS: 2 * n * n * n / 7.168e12},
		GPU:     CPUGPUSide{Name: "H100 SXM", Units: 132, LanesPerUnit: 128, ClockHz: 1.98e9, ElementS: n / 1.98e9, TotalS: 2 * n * n * n / 66.9e12},
		TensorS: 2 * n * n * n / 989.4e12,
	}
}

// shortWords writes a key's last part and its arguments: short enough
// for the labels to fit as real words do.
var shortWords = draw.Words{Lang: "en", T: func(key string, args ...string) string {
	return strings.TrimSpace(key[strings.LastIndex(key, ".")+1:] + " " + strings.Join(args, " "))
}}

func TestCPUGPUGolden(t *testing.T) {
	v := cpugpuView(CPUGPURace, 0)
	v.Time = v.GPU.TotalS * 1.5
	golden.Check(t, "cpugpu.golden", AppendCPUGPU(draw.List{}, v).String())
}

// finishes is the x of each lane's finish mark (a 2 px vertical line in
// its colour) in a race picture, by colour.
func finishes(l draw.List) map[draw.Color][]float32 {
	out := map[draw.Color][]float32{}
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.Width == 2 && it.X == it.X2 {
			out[it.Color] = append(out[it.Color], it.X)
		}
	}
	return out
}

// The finishes are on one time axis: the CPU's mark 9.3× as far from the
// axis's start as the CUDA cores', the tensor cores' 138× closer.
func TestCPUGPUFinishesOnOneAxis(t *testing.T) {
	for _, phase := range []CPUGPUPhase{CPUGPURace, CPUGPUTensor} {
		v := cpugpuView(phase, -1)
		fs, _ := draw.TextSizes(v.Stage, 1)
		x0 := v.Stage.X + fs
		f := finishes(AppendCPUGPU(draw.List{}, v))
		cpu, gpu, ten := f[draw.Dark.Hot], f[draw.Dark.Rim], f[draw.Dark.LinkActive]
		if len(cpu) == 0 || len(gpu) == 0 || len(ten) == 0 {
			t.Fatalf("phase %d: finish marks %v", phase, f)
		}
		if r, want := float64((cpu[0]-x0)/(gpu[0]-x0)), v.CPU.TotalS/v.GPU.TotalS; math.Abs(r/want-1) > 0.01 {
			t.Errorf("phase %d: CPU/GPU finish %.2f, want the times' %.2f", phase, r, want)
		}
		if r, want := float64((cpu[0]-x0)/(ten[0]-x0)), v.CPU.TotalS/v.TensorS; math.Abs(r/want-1) > 0.02 {
			t.Errorf("phase %d: CPU/tensor finish %.1f, want %.1f", phase, r, want)
		}
	}
	// The tensor picture zooms on the GPU's part: a second pair of marks.
	if f := finishes(AppendCPUGPU(draw.List{}, cpugpuView(CPUGPUTensor, -1))); len(f[draw.Dark.Rim]) != 2 || len(f[draw.Dark.LinkActive]) != 2 {
		t.Errorf("tensor picture: marks %v, want the CUDA and tensor cores twice (the zoom)", f)
	}
}

// The copies of C fill at their sides' pace, each clock stops at its
// side's finish, and the headline names the ratio once the GPU is done.
func TestCPUGPURace(t *testing.T) {
	v := cpugpuView(CPUGPURace, 0)
	v.Time = v.GPU.TotalS
	got := strings.Join(labels(AppendCPUGPU(draw.List{}, v)), "\n")
	cpuPct := units.Percent(math.Floor(v.GPU.TotalS/v.CPU.TotalS*1000) / 1000)
	for _, want := range []string{"filled pct 100%", "race_done fast H100 SXM slow 64-core CPU ratio 9.33×",
		"done t 2.05 ms", "clock t 2.05 ms", "filled pct " + cpuPct} {
		if !strings.Contains(got, want) {
			t.Errorf("at the GPU's finish: no %q in\n%s", want, got)
		}
	}
	v.Time = v.GPU.TotalS / 2
	if got := strings.Join(labels(AppendCPUGPU(draw.List{}, v)), "\n"); strings.Contains(got, "race_done") {
		t.Errorf("the ratio before the GPU is done:\n%s", got)
	}
}

// One element: the CPU core's bar stops at its 1.17 µs while the CUDA
// core's runs on; then the headline says how many times as fast.
func TestCPUGPUElement(t *testing.T) {
	v := cpugpuView(CPUGPUElement, 0)
	v.Time = v.CPU.ElementS
	got := strings.Join(labels(AppendCPUGPU(draw.List{}, v)), "\n")
	if !strings.Contains(got, "element_done cpu 1.17 µs gpu 2.07 µs ratio 1.77×") || !strings.Contains(got, "madds done 4,096 n 4,096") {
		t.Errorf("at the CPU core's finish:\n%s", got)
	}
	v.Time = v.CPU.ElementS / 2
	if got := strings.Join(labels(AppendCPUGPU(draw.List{}, v)), "\n"); strings.Contains(got, "element_done") || !strings.Contains(got, "madds done 2,048 n 4,096") {
		t.Errorf("half-way:\n%s", got)
	}
}

// Every picture keeps its text at 13.5 px or more, inside the stage and
// clear of other text, on a desktop and a phone, in every phase.
func TestCPUGPUText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for ph := CPUGPUIndependent; ph <= CPUGPUTensor; ph++ {
			for _, tm := range []float64{0, 1e-3, -1} {
				v := cpugpuView(ph, tm)
				v.Stage, v.Width, v.Height = st, st.W, st.H
				checkText(t, AppendCPUGPU(draw.List{}, v), st, 13.5)
			}
		}
	}
}

// checkText fails on text under min px, off the stage, or over other text.
func checkText(t *testing.T, l draw.List, st draw.Rect, min float32) {
	t.Helper()
	var boxes []draw.Rect
	for _, it := range l.Items {
		if it.Kind != draw.Text {
			continue
		}
		b := it.Bounds()
		if it.Size < min {
			t.Errorf("%q is %.1f px", it.Text, it.Size)
		}
		if b.X < st.X-1 || b.Y < st.Y-1 || b.X+b.W > st.X+st.W+1 || b.Y+b.H > st.Y+st.H+1 {
			t.Errorf("%q at %v leaves %v", it.Text, b, st)
		}
		for _, o := range boxes {
			if b.X+b.W > o.X+1 && o.X+o.W > b.X+1 && b.Y+b.H > o.Y+1 && o.Y+o.H > b.Y+1 {
				t.Errorf("%q overlaps another label", it.Text)
				break
			}
		}
		boxes = append(boxes, b)
	}
}

func TestCPUGPUAllocs(t *testing.T) {
	v := cpugpuView(CPUGPURace, 1e-3)
	l := AppendCPUGPU(draw.List{}, v)
	if n := testing.AllocsPerRun(10, func() { l = AppendCPUGPU(l, v) }); n > 120 {
		t.Errorf("%v allocations a frame, want at most 120 (its labels)", n)
	}
}
