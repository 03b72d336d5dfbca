package scenarios

import (
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// The zoom in the mixture-of-experts lesson: the routed layer's forward
// on each of the EP GPUs, on the step's clock — the router before it
// (ending at 0), the dispatch all-to-all the step plays (0 to
// Result.DispatchS: every GPU in it until the slowest is done), then each
// GPU's experts on the copies they got (engine/parallel's
// RoutedMoELayer: the hot GPU's take longest), a wait for the slowest,
// and the combine all-to-all, as long as the dispatch.

// moeZoomGPUs is the EP GPUs the experts are placed on.
func moeZoomGPUs(_ *Scenario, c Config, _ int) int {
	mc, _, err := RouteConfig(c)
	if err != nil {
		return 0
	}
	return mc.EP
}

// MoESpan is one part of a GPU's MoE layer on the step's clock: a kernel
// (a parallel.Kernel* name) or, Name "", a wait for the slowest GPU.
type MoESpan struct {
	Name       string
	Start, End float64
	Counts     parallel.Counts // the kernel's (its experts' together); Comm for an all-to-all
}

// MoEGPU is one EP GPU's MoE layer: its experts (First, and one a copy
// count in Rows: the copies each computes, padded slots included under a
// capacity), their costs, its parts of the dispatch and the spans in
// order.
type MoEGPU struct {
	First          int
	Rows           []int
	Layer          parallel.RoutedLayer
	IntraS, InterS float64 // its dispatch's parts on NVLink and on its NIC (moe.Result.LinkTimes)
	// Peers are the other GPUs of its node it sends copies to (the
	// node picture's NVLink flows), worked out once with the layer.
	Peers []int
	Spans []MoESpan
}

// MoELayer is the routed layer on every EP GPU, and the moment a still
// or finished step shows: the middle of the quickest GPU's experts'
// gate-and-up products, when every GPU with copies runs its own.
type MoELayer struct {
	GPUs  []MoEGPU
	GPU   hw.GPU
	Still float64
}

// ZoomLayer is the run's routed layer, worked out on first use and kept
// with the run.
func (r *RouteRun) ZoomLayer() *MoELayer {
	if r.layer != nil {
		return r.layer
	}
	res := &r.Result
	g, _ := hw.GPUByID(r.GPU)
	l := &MoELayer{GPU: g, GPUs: make([]MoEGPU, res.EP)}
	per := res.Experts / res.EP
	d := res.DispatchS
	done := d // when the slowest GPU's experts are done
	quick := -1.0
	sent := make([]float64, res.EP)
	for i := range l.GPUs {
		x := &l.GPUs[i]
		x.First, x.Rows = i*per, make([]int, per)
		for j := range per {
			x.Rows[j] = res.KeptLoad[x.First+j]
			if res.Capacity > 0 {
				x.Rows[j] = res.ExpertCapacity() // fixed shapes: every slot computed, full or not
			}
		}
		x.Layer = parallel.RoutedMoELayer(r.Model, g, res.Tokens, x.Rows)
		x.IntraS, x.InterS = res.LinkTimes(i)
		res.SentFrom(i, sent)
		for j, b := range sent {
			if j != i && b > 0 && res.SameNode(i, j) {
				x.Peers = append(x.Peers, j)
			}
		}
		t := -x.Layer.Router.TimeS
		add := func(name string, c parallel.Counts, dt float64) {
			if dt > 0 {
				x.Spans = append(x.Spans, MoESpan{Name: name, Start: t, End: t + dt, Counts: c})
				t += dt
			}
		}
		add(parallel.KernelRouter, x.Layer.Router, x.Layer.Router.TimeS)
		add(parallel.KernelDispatch, parallel.Counts{Comm: true, TimeS: d}, d)
		up, down := parallel.Sum(x.Layer.Up), parallel.Sum(x.Layer.Down)
		add(parallel.KernelExpertsUp, up, up.TimeS)
		add(parallel.KernelPermute, x.Layer.Permute, x.Layer.Permute.TimeS)
		add(parallel.KernelExpertsDown, down, down.TimeS)
		done = max(done, t)
		if up.TimeS > 0 && (quick < 0 || up.TimeS < quick) {
			quick = up.TimeS
		}
	}
	for i := range l.GPUs {
		x := &l.GPUs[i]
		t := x.Spans[len(x.Spans)-1].End
		if t < done {
			x.Spans = append(x.Spans, MoESpan{Start: t, End: done})
		}
		if d > 0 {
			x.Spans = append(x.Spans, MoESpan{Name: parallel.KernelCombine, Start: done, End: done + d, Counts: parallel.Counts{Comm: true, TimeS: d}})
		}
	}
	l.Still = d + max(quick, 0)/2
	r.layer = l
	return l
}

// At is the span GPU g's layer is in at t (clamped to its GPUs), its
// index; −1 before the router and after the combine.
func (l *MoELayer) At(g int, t float64) (MoESpan, int) {
	x := &l.GPUs[min(max(g, 0), len(l.GPUs)-1)]
	for i, s := range x.Spans {
		if t >= s.Start && t < s.End {
			return s, i
		}
	}
	return MoESpan{}, -1
}

// Expert is which of GPU g's experts' products of kind (experts_up or
// experts_down) runs at t — they run one after another within the
// span — and how far it has got (0–1); −1 outside that span.
func (l *MoELayer) Expert(g int, name string, t float64) (int, float64) {
	x := &l.GPUs[min(max(g, 0), len(l.GPUs)-1)]
	s, _ := l.At(g, t)
	if s.Name != name {
		return -1, 0
	}
	cs := x.Layer.Up
	if name == parallel.KernelExpertsDown {
		cs = x.Layer.Down
	}
	at, last := s.Start, -1
	for i, c := range cs {
		if c.TimeS <= 0 {
			continue
		}
		last = i
		if t < at+c.TimeS {
			return i, (t - at) / c.TimeS
		}
		at += c.TimeS
	}
	return last, 1
}

// ZoomTime is the moment the zoom shows for the playhead t of step sr,
// in seconds on the step's clock: the playhead itself while the dispatch
// plays; a still or finished step shows the experts at work
// (MoELayer.Still).
func (r *RouteRun) ZoomTime(sr *StepRun, t sim.Time) float64 {
	if sr.To > sr.From && t < sr.To {
		return t.Seconds()
	}
	return r.ZoomLayer().Still
}

// zoomReport is what EP GPU z.GPU runs at the zoom's moment: the
// dispatch, one of its experts' kernels, or a wait for the slowest GPU.
func (r *RouteRun) zoomReport(z *ZoomState, sr *StepRun, at sim.Time) string {
	l := r.ZoomLayer()
	t := r.ZoomTime(sr, at)
	s, _ := l.At(z.GPU, t)
	z.TimeS, z.Kernel, z.Layer = t, s.Name, -1
	if s.Name != "" {
		z.Block = string(parallel.Forward)
	}
	return "ui.desc_zoomm_"
}
