package scene

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The silicon layer's pictures: one GPU, its cores, memories and kernels.

func buildCPUGPU(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.CPUGPURun)
	t, _ := m.window()
	v := render.CPUGPUView{
		Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		N: run.N, Time: t,
		CPU: render.CPUGPUSide{Name: f.words().Say("canvas.cpugpu.cpu_name", "cores", strconv.Itoa(run.CPU.Cores)), Units: run.CPU.Cores, LanesPerUnit: int(run.CPU.FLOPPerCycle / 2),
			ClockHz: run.CPU.ClockHz, ElementS: run.CPUElementS, TotalS: run.CPUTotalS},
		GPU: render.CPUGPUSide{Name: run.GPU.Name, Units: run.GPU.SMs, LanesPerUnit: run.GPU.CUDACores / max(run.GPU.SMs, 1),
			ClockHz: run.GPU.VectorClockHz, ElementS: run.GPUElementS, TotalS: run.GPUTotalS},
	}
	switch m.StepRun().Step.ID {
	case "independent":
		v.Phase = render.CPUGPUIndependent
	case "latency":
		v.Phase = render.CPUGPUElement
	case "tensor":
		v.Phase, v.TensorS = render.CPUGPUTensor, run.TensorTotalS
	case "throughput":
		v.Phase = render.CPUGPURace
	default: // try: the race with the tensor cores' lane too
		v.Phase, v.TensorS = render.CPUGPURace, run.TensorTotalS
	}
	return render.AppendCPUGPU(dst, v)
}

func buildLaunch(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.LaunchRun)
	l := run.Launch
	g := l.Config.GPU
	v := render.LaunchView{
		Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		GPU: g.Name, SMs: g.SMs, MaxWarps: g.MaxWarpsPerSM, MaxBlocks: g.MaxBlocksPerSM, Registers: g.RegistersPerSM, SharedMem: g.SharedMemPerSM,
		Blocks: l.Config.Blocks, ThreadsPerBlock: l.Config.ThreadsPerBlock, WarpsPerBlock: l.WarpsPerBlock,
		RegsPerBlock: l.RegistersPerBlock, SmemPerBlock: l.SharedMemPerBlock, BlocksPerSM: l.BlocksPerSM, Limit: l.Limit, Waves: l.Waves,
		Taken: run.Divergence.Taken, CostA: run.Divergence.CostA, CostB: run.Divergence.CostB,
	}
	sr := m.StepRun()
	still := sr.From == sr.To
	wave, frac := 1, 1.0 // a still step: the first wave, dealt
	if !still {
		wave = run.WaveAt(m.Time)
		frac = float64(m.Time%scenarios.WaveTime) / float64(scenarios.WaveTime)
	}
	switch sr.Step.ID {
	case "grid":
		v.Phase = render.LaunchDeal
		wave, frac = 1, 1.0
		if !still {
			frac = math.Min(1, float64(m.Time)/float64(scenarios.WaveTime))
		}
	case "occupancy", "registers":
		v.Phase = render.LaunchOccupancy
	case "tail":
		v.Phase = render.LaunchWaves
	case "divergence":
		v.Phase = render.LaunchDivergence
	default:
		v.Phase = render.LaunchAll
	}
	if wave > l.Waves { // the end of the last wave
		wave, frac = l.Waves, 1
	}
	v.Wave, v.WaveFrac = wave, frac
	return render.AppendLaunch(dst, v)
}

// memwallTiles are the tile edges the memory-wall kernels stage.
var memwallTiles = map[string]int{"naive": 0, "smem16": 16, "smem32": 32, "tensor": 128}

func buildMemwall(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.MemwallRun)
	w := f.words()
	cur := run.Current()
	g := cur.Config.GPU
	v := render.MemwallView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Steps: scenarios.MemwallKSteps, PeakTFLOPS: cur.Peak / 1e12,
		HBMName: units.Bytes(float64(g.HBMDatasheet)) + " · " + units.Rate(g.HBMBandwidth)}
	sr := m.StepRun()
	shownUpTo := len(scenarios.MemwallKernels)
	if sr.Step.ID != "try" {
		shownUpTo = slices.Index(scenarios.MemwallKernels, run.Kernel) + 1
	}
	for i, k := range scenarios.MemwallKernels {
		km := run.Results[k].Metrics()
		v.Kernels = append(v.Kernels, render.MemwallKernel{
			Name: w.Say("canvas.memwall.k." + k), Tile: memwallTiles[k], Bytes: km.HBMBytes, FLOPs: km.FLOPs,
			TFLOPS: km.TFLOPS, Utilization: km.Utilization, Bound: km.Bound, Current: k == run.Kernel, Shown: i < shownUpTo,
			Seconds: km.TimeS,
		})
	}
	v.Progress = 1
	if sr.To > sr.From && m.Time < sr.To {
		v.Progress = float64(m.Time-sr.From) / float64(sr.To-sr.From)
	}
	return render.AppendMemwall(dst, v)
}

func buildRoofline(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.RooflineRun)
	cfg := m.StepRun().Config
	v := render.RooflineView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		Intensity: run.Intensity, Dtype: strings.ToUpper(cfg["dtype"])}
	if m.shows(scenarios.ViewSweep) {
		v.Intensity = scenarios.SweepIntensity(m.Time)
	}
	all := false
	switch m.StepRun().Step.ID {
	case "roof":
		v.Story = render.RoofTwo
	case "ridge":
		v.Story = render.RoofRidge
	case "gpus":
		v.Story, all = render.RoofGPUs, true
	case "fp8":
		v.Story = render.RoofRaised
	case "try":
		v.Story, all = render.RoofKernel, true
	default:
		v.Story = render.RoofKernel
	}
	if m.shows(scenarios.ViewSweep) && v.Story != render.RoofRidge {
		v.Story = render.RoofRidge
	}
	for i, id := range run.IDs {
		roof, ok := run.Roofs[id]
		if !ok || !(all || id == run.GPU) {
			continue
		}
		v.Roofs = append(v.Roofs, render.Roof{Name: roof.GPU.Name, Peak: roof.Peak, BW: roof.BW, Current: id == run.GPU, Colour: i})
	}
	// A faster dtype: the same GPU's BF16 roof, faint, under the new one.
	if v.Story == render.RoofRaised && cfg["dtype"] != string(hw.BF16) {
		if roof, err := kernel.NewRoofline(run.Current().GPU, hw.BF16); err == nil {
			v.Roofs = append(v.Roofs, render.Roof{Name: "BF16", Peak: roof.Peak, BW: roof.BW, Ghost: true})
		}
	}
	return render.AppendRoofline(dst, v)
}

func buildFused(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.FusedRun)
	v := render.FusedView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(), Time: m.Time.Seconds()}
	if sr := m.StepRun(); sr.From == sr.To {
		v.Time = -1 // a still step shows both runs whole
	}
	switch m.StepRun().Step.ID {
	case "unfused":
		v.Focus = render.FusedThree
	case "fused":
		v.Focus = render.FusedOne
	case "still-memory-bound":
		v.Focus = render.FusedBound
	default:
		v.Focus = render.FusedAll
	}
	blocks := func(ks []kernel.ElementwiseKernel, n float64) []render.KernelBlock {
		var out []render.KernelBlock
		for _, k := range ks {
			out = append(out, render.KernelBlock{Ops: k.Ops, Bytes: k.HBMBytes, TimeS: k.TimeS, Read: k.ReadBytes / n, Write: k.WriteBytes / n})
		}
		return out
	}
	v.Unfused = blocks(run.Unfused.Kernels, run.Unfused.Elements)
	v.Fused = blocks(run.Fused.Kernels, run.Fused.Elements)
	v.UnfusedIntensity = run.Unfused.FLOPs / run.Unfused.HBMBytes
	v.FusedIntensity = run.Fused.FLOPs / run.Fused.HBMBytes
	if roof, err := kernel.NewRoofline(run.GPU, hw.BF16); err == nil {
		v.Ridge = roof.Ridge()
	}
	return render.AppendFused(dst, v)
}

func buildAttention(_ *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.AttentionRun)
	c := run.Standard.Config
	v := render.AttentionView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: f.words(),
		Seq: c.Seq, HeadDim: c.HeadDim, Heads: c.Heads, Batch: c.Batch,
		ScoreBytes: run.Standard.ScoreBytes, StdBytes: run.Standard.HBMBytes, FlashBytes: run.Flash.HBMBytes,
		StdTimeS: run.Standard.TimeS, FlashTimeS: run.Flash.TimeS, L2Bytes: float64(c.GPU.L2Bytes)}
	if al, ok := m.Lesson.Attention(); ok {
		v.MaxDiff = al.MaxAbsDiff
	}
	switch m.StepRun().Step.ID {
	case "scores":
		v.Phase = render.AttScores
	case "speed":
		v.Phase = render.AttSpeed
	case "identical":
		v.Phase = render.AttSame
	default:
		v.Phase = render.AttAll
	}
	if m.shows(scenarios.ViewSweep) {
		v.Phase, v.Seq = render.AttTraffic, scenarios.SweepSeq(m.Time)
	}
	for _, p := range run.Sweep {
		v.Points = append(v.Points, render.AttentionPoint{Seq: p.Seq, Standard: p.StandardHBMBytes, Flash: p.FlashHBMBytes, KVReads: p.FlashKVReads})
	}
	return render.AppendAttention(dst, v)
}

// numfmtRuns are the toy training run's variants, as the steps name them.
var numfmtRuns = map[string]string{"fp16-dies": "fp16", "bf16-lives": "bf16", "loss-scaling": "fp16-scaled"}

// buildNumfmt is the number-formats picture: the step's value in every
// format, and what the step adds — the formats' ranges, their rounding
// errors, the toy training run, or the weights' bytes.
func buildNumfmt(pic *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.TrainingRun)
	cfg := m.StepRun().Config
	w := f.words()
	x := cfg.Float("value")
	v := render.NumfmtView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		X: x, Value: scenarios.NumText(x), FP16Max: numfmt.FP16.Max()}
	row := func(nf numfmt.Format, x float64, current bool) render.FormatRow {
		stored := nf.Round(x)
		r := render.FormatRow{Name: nf.Name, ExpBits: nf.ExpBits, MantBits: nf.MantBits, Bits: nf.BitString(nf.Encode(x)),
			Stored: scenarios.NumText(stored), Special: math.IsInf(stored, 0) || math.IsNaN(stored), Max: nf.Max(), Current: current}
		if x != 0 && !r.Special {
			r.RelErr = math.Abs(stored-x) / math.Abs(x)
		}
		return r
	}
	for _, nf := range numfmt.Formats {
		v.Rows = append(v.Rows, row(nf, x, nf.ID == cfg["format"]))
	}
	switch m.StepRun().Step.ID {
	case "layouts":
		v.Phase = render.NumLayouts
	case "overflow":
		v.Phase = render.NumOverflow
	case "precision":
		v.Phase = render.NumPrecision
	default:
		v.Phase = render.NumMemory
		v.Params = units.Params(scenarios.GPT3Params)
		for _, nf := range numfmt.Formats {
			v.Weights = append(v.Weights, render.WeightBar{Name: nf.Name, Bytes: scenarios.GPT3Params * float64(nf.Bits()) / 8})
		}
		if g, ok := hw.GPUByID("h100"); ok {
			v.HBMBytes = float64(g.HBMDatasheet) // the part as named; the memory lessons fill HBMBytes
		}
	}
	if m.shows(scenarios.ViewTraining) {
		v.Phase = render.NumTraining
		cur := numfmtRuns[m.StepRun().Step.ID]
		if cur == "" {
			cur = "fp16"
		}
		v.Steps = len(run.Variants[0].Steps)
		v.Upto = run.StepAt(m.Time)
		v.Spike = scenarios.TrainingSpike
		v.Curves = pic.numfmt.get(run, w, cur)
		for i, tv := range run.Variants {
			if c := v.Curves[i]; c.Current {
				// A dead run has no gradient (its weight is NaN): the rows
				// keep the last one it had, the spike's that killed it,
				// which BF16 stores and FP16 cannot.
				k := v.Upto
				for k > 0 && math.IsNaN(tv.Steps[k].Exact) {
					k--
				}
				g := tv.Steps[k].Exact
				v.Grad, v.GradStep = scenarios.NumText(g), k
				v.GradRows = []render.FormatRow{row(numfmt.FP16, g, tv.Format.ID == "fp16"), row(numfmt.BF16, g, tv.Format.ID == "bf16")}
			}
		}
	}
	return render.AppendNumfmt(dst, v)
}

// numfmtCache keeps the toy run's curves, which a run determines once,
// for the language they were named in; only Current changes a frame.
type numfmtCache struct {
	run   *scenarios.TrainingRun
	lang  string
	lines []render.LossCurve
}

func (c *numfmtCache) get(run *scenarios.TrainingRun, w render.Words, cur string) []render.LossCurve {
	if c.run != run || c.lang != w.Lang {
		c.run, c.lang, c.lines = run, w.Lang, nil
		for i, tv := range run.Variants {
			lc := render.LossCurve{Name: w.Say("canvas.num.run." + tv.ID), Colour: i}
			for _, st := range tv.Steps {
				lc.Loss = append(lc.Loss, st.Loss)
				lc.Grad = append(lc.Grad, st.Exact)
				lc.Stored = append(lc.Stored, st.Grad)
				lc.Skipped = append(lc.Skipped, st.Skipped)
			}
			c.lines = append(c.lines, lc)
		}
	}
	for i := range c.lines {
		c.lines[i].Current = run.Variants[i].ID == cur
	}
	return c.lines
}
