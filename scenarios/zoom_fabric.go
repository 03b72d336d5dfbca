package scenarios

import (
	"slices"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// The zoom in the fabric lessons (issue 21). Their steps have no trace of
// their own: what a GPU does at a moment is read from the closed form's
// legs (collective.Schedule) of the collective the step costs — the
// race's two transfers, the fastest all-reduce at the step's size, the
// contention step's all-to-all, the rack's operation on the NVLink 5
// system, the ceiling's TP all-reduce.

// fabricZoomGPUs is the GPUs the step's view places under c: the race's
// two nodes, the all-reduce's ranks, the contention step's 128, the
// rack's 72 (a GPU past them is refused, named, as in every lesson).
func fabricZoomGPUs(s *Scenario, c Config, step int) int {
	if step < 1 || step > len(s.Steps) {
		return 0
	}
	r := &FabricRun{Ranks: int(c.Int("ranks")), GPUsPerNode: int(c.Int("gpus_per_node"))}
	if r.GPUsPerNode < 1 {
		r.GPUsPerNode = 8
	}
	r.View = ViewSizes
	for _, v := range s.Steps[step-1].Show {
		if slices.Contains(fabricViews, v) {
			r.View = v
			break
		}
	}
	return r.zoomRanks()
}

// zoomRanks is how many GPUs the step's zoom looks inside.
func (r *FabricRun) zoomRanks() int {
	switch r.View {
	case ViewRace:
		return 2 * max(1, r.GPUsPerNode)
	case ViewContention:
		return ContentionGPUs
	case ViewRack, ViewCeiling:
		return RackGPUs
	}
	return max(1, r.Ranks)
}

// FabricZoom is the collective a fabric step's zoom looks inside: op by
// algo over Ranks GPUs, PerNode of them a node (an NVLink domain), in
// groups of Group consecutive GPUs (the ceiling's TP groups; else all
// Ranks), its closed form's legs and the time it takes on the step's
// clock (Seconds: the flow run's where the step draws one, onto which the
// legs are stretched — they differ by the latencies the flows overlap).
type FabricZoom struct {
	Op             collective.Op
	Algo           collective.Algo
	Ranks, PerNode int
	Group          int
	Bytes          float64
	Intra, Inter   hw.Link
	GPU            hw.GPU
	Legs           []collective.Leg
	Form           collective.Form
	Seconds        float64
}

// Stretch is how many step seconds a second of the closed form takes.
func (z *FabricZoom) Stretch() float64 {
	if z.Form.Seconds > 0 && z.Seconds > 0 {
		return z.Seconds / z.Form.Seconds
	}
	return 1
}

// gpuOfLink is the GPU whose NVLink l is (an H100 when none).
func gpuOfLink(l hw.Link) hw.GPU {
	for _, id := range []string{"a100", "h100", "b200"} {
		if g, ok := hw.GPUByID(id); ok && g.Link == l.ID {
			return g
		}
	}
	g, _ := hw.GPUByID("h100")
	return g
}

// CeilingTP is the TP degree the ceiling's zoom draws: the first of
// RackTP that no longer fits the H100 nodes' NVLink domain.
func (r *FabricRun) CeilingTP() int {
	for _, d := range RackTP {
		if r.Rack != nil && d > r.Rack.Systems[1].Domain {
			return d
		}
	}
	return RackTP[len(RackTP)-1]
}

// Zoom is the collective the step's zoom looks inside, laid out once.
func (r *FabricRun) Zoom() *FabricZoom {
	if r.zoom != nil {
		return r.zoom
	}
	z := &FabricZoom{Op: collective.AllReduce, Algo: r.Fastest(), Ranks: r.zoomRanks(), PerNode: max(1, r.GPUsPerNode), Bytes: r.Bytes,
		Intra: r.Intra, Inter: r.Inter, GPU: gpuOfLink(r.Intra)}
	switch r.View {
	case ViewRace:
		z.Op, z.Algo, z.Seconds = collective.Broadcast, collective.Ring, max(r.IntraS, r.InterS)
	case ViewContention:
		z.Op, z.Algo, z.PerNode, z.Seconds = collective.AllToAll, collective.Ring, 1, r.Contention[1].Seconds
	case ViewRack, ViewCeiling:
		s := r.Rack.Systems[0]
		z.GPU, z.Intra, z.PerNode, z.Seconds = s.GPU, s.Intra, s.Domain, s.Seconds
		n, k := RackGPUs, s.Domain
		switch {
		case r.View == ViewCeiling:
			n, z.Algo = r.CeilingTP(), collective.Hierarchical
			z.Seconds = 0
		case r.Rack.Op == RackSend:
			z.Op, z.Algo, n = collective.Broadcast, collective.Ring, 2
			if k < RackGPUs {
				k = 1
			}
		case r.Rack.Op == RackAllToAll:
			z.Op, z.Algo = collective.AllToAll, collective.Ring
		case k < RackGPUs:
			z.Algo = collective.Hierarchical
		default:
			z.Algo = collective.Ring
		}
		z.Group = n
		z.Legs, z.Form, _ = collective.Schedule(z.Op, z.Algo, n, k, r.Bytes, z.Intra, r.Inter)
	default:
		z.Legs, z.Form, _ = collective.Schedule(z.Op, z.Algo, r.Ranks, z.PerNode, r.Bytes, r.Intra, r.Inter)
	}
	if z.Group == 0 {
		z.Group = z.Ranks
	}
	if z.Seconds == 0 {
		z.Seconds = z.Form.Seconds
	}
	r.zoom = z
	return z
}

// ZoomTime is the moment the zoom shows for the playhead t of step sr,
// seconds on the step's clock: the playhead itself where the step's
// picture plays the transfer (the race, the contention, the rack); the
// size chart's and the ceiling's still pictures a window of their own —
// the step's window mapped onto the collective's time, as PlanRun.ZoomTime
// maps it onto a time line. A still or finished step shows the middle of
// the zoomed transfer, or a quarter of the way into a collective of legs
// (its middle is where a ring's reduce-scatter turns into its all-gather):
// a ring's reduce-scatter under way, a tree's first chunk climbing.
func (r *FabricRun) ZoomTime(sr *StepRun, t sim.Time) float64 {
	d := r.Zoom().Seconds
	if !(sr.To > sr.From && t < sr.To) {
		if r.View == ViewSizes || r.View == ViewCeiling {
			return d / 4
		}
		return d / 2
	}
	if r.View == ViewSizes || r.View == ViewCeiling {
		return float64(t-sr.From) / float64(sr.To-sr.From) * d
	}
	return t.Seconds()
}

// FabricMoment is what one GPU of a fabric step does at a moment: the
// leg of the closed form under way (an index into FabricZoom.Legs: −1
// before the first, len after the last) and its round, whether the GPU
// takes part, and what its SMs run (a collective kernel, or "") with the
// leg's kind or "receive" as its block.
type FabricMoment struct {
	Leg, Round int
	Member     bool
	Kernel     string
	Block      string
}

// legKernel is what a rank's SMs run in a leg: a reduction where what
// arrives is added, a copy where it is kept, else a send.
func legKernel(k collective.LegKind) string {
	switch k {
	case collective.LegReduceScatter, collective.LegTreeUp, collective.LegTreeStream, collective.LegGather:
		return KernelReduce
	case collective.LegAllGather, collective.LegTreeDown, collective.LegBroadcast:
		return KernelCopy
	}
	return KernelSend
}

// ZoomAt is what GPU g does t seconds into the step's clock.
func (r *FabricRun) ZoomAt(g int, t float64) FabricMoment {
	z := r.Zoom()
	g = min(max(g, 0), z.Ranks-1)
	m := FabricMoment{Leg: -1}
	// Point-to-point: the race's GPU 0 to GPU 1 over NVLink and to the
	// next node's first GPU over the network; the rack's GPU 0 to 71.
	if r.View == ViewRace || r.Rack != nil && r.Rack.Op == RackSend && r.View == ViewRack {
		var ends [2]float64 // when each receiver's bytes have arrived
		recv := [2]int{1, z.PerNode}
		if r.View == ViewRace {
			ends = [2]float64{r.IntraS, r.InterS}
		} else {
			ends, recv = [2]float64{z.Seconds, 0}, [2]int{RackGPUs - 1, -1}
		}
		for i, e := range ends {
			if t < 0 || t >= e {
				continue
			}
			m.Leg = 0
			if g == 0 {
				m.Member, m.Kernel, m.Block = true, KernelSend, string(collective.LegSend)
			} else if g == recv[i] {
				m.Member, m.Block = true, "receive"
			}
		}
		return m
	}
	if r.View == ViewContention {
		if t >= 0 && t < z.Seconds {
			m.Leg, m.Member, m.Kernel, m.Block = 0, true, KernelSend, string(collective.LegAllToAll)
		}
		return m
	}
	m.Leg, m.Round = collective.LegAt(z.Legs, t/z.Stretch())
	m.Member = g < z.Ranks/z.Group*z.Group
	if m.Member && m.Leg >= 0 && m.Leg < len(z.Legs) {
		k := z.Legs[m.Leg].Kind
		m.Kernel, m.Block = legKernel(k), string(k)
	}
	return m
}

// zoomReport is what the zoom's GPU does at the moment.
func (r *FabricRun) zoomReport(z *ZoomState, sr *StepRun, at sim.Time) string {
	z.GPU = min(z.GPU, r.zoomRanks()-1)
	z.TimeS = r.ZoomTime(sr, at)
	m := r.ZoomAt(z.GPU, z.TimeS)
	z.Kernel, z.Block, z.Layer = m.Kernel, m.Block, -1
	return "ui.desc_zoomf_"
}
