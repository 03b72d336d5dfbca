package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom in the ring lesson: a collective's moment from one node (its
// GPUs and the chunks on their links), one GPU (the round under way among
// the collective's rounds; what its SMs do with the chunk that arrives —
// a reduction, far left on the roofline, or a copy) and its SMs. The
// lesson names no GPU: an H100's, whose NVLink 4 and InfiniBand NDR it
// uses.

// ringGPU is the GPU the ring lesson's zoom draws.
var ringGPU, _ = hw.GPUByID("h100")

func (p *Picture) buildRingZoom(dst render.List, m Moment, f Frame, r *collective.Result) (render.List, bool) {
	a, ok := scenarios.CollectiveActivity(r)
	if !ok {
		return dst, false
	}
	g := min(max(m.Zoom.GPU, 0), r.Config.Ranks-1)
	switch m.Zoom.Level {
	case scenarios.ZoomNode:
		return render.AppendZoomNode(dst, ringNodeView(a, r, g, m, f)), true
	case scenarios.ZoomGPU:
		return render.AppendZoomGPU(dst, ringGPUView(a, r, g, m, f)), true
	case scenarios.ZoomSM:
		w := f.words()
		return render.AppendZoomSM(dst, render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
			Crumbs: zoomCrumbs(w, scenarios.ZoomSM, g/ringPerNode(r), g), SMs: ringGPU.SMs, SmemPerSM: ringGPU.SharedMemPerSM,
			Title: w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g)), Note: w.Say("canvas.zoom.s.sm_comm"),
			Pass: smOnLinks(w, ringGPU, 0, 0)}), true
	}
	return dst, false
}

// ringPerNode is how many of the ring's GPUs share a node.
func ringPerNode(r *collective.Result) int {
	if r.Config.Nodes > 1 {
		return max(1, r.Config.Ranks/r.Config.Nodes)
	}
	return r.Config.Ranks
}

// ringDoing is what a rank's SMs do then, in a few words.
func ringDoing(w render.Words, k string) string {
	if k == "" {
		return zsay(w, "canvas.zoom.s.doing_", "wait")
	}
	return kernelName(w, k)
}

func ringNodeView(a *collective.Activity, r *collective.Result, g int, m Moment, f Frame) render.ZoomNodeView {
	w := f.words()
	G := ringPerNode(r)
	node, nodes := g/G, max(1, r.Config.Nodes)
	v := render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w, KeyShown: true,
		Crumbs:    zoomCrumbs(w, scenarios.ZoomNode, node, g),
		Title:     w.Say("canvas.zoom.s.node_title_ring", "node", strconv.Itoa(node), "nodes", strconv.Itoa(nodes), "g", strconv.Itoa(G)),
		Clock:     clock(w, m.Time.Seconds()),
		IntraName: r.Config.Link.Name, IntraBW: r.Config.Link.Bandwidth,
	}
	if r.Config.Nodes > 1 {
		v.InterName, v.InterBW = r.Config.Inter.Name, r.Config.Inter.Bandwidth
	}
	first, last := node*G, min(node*G+G, r.Config.Ranks)
	v.Focus = g - first
	for k := first; k < last; k++ {
		rm, err := a.At(k, m.Time)
		if err != nil {
			continue
		}
		kern := scenarios.CollectiveKernel(rm)
		ng := render.ZoomNodeGPU{GPU: k, Label: zsay(w, "canvas.zoom.s.", "gpu", "gpu", strconv.Itoa(k)), Doing: ringDoing(w, kern)}
		if kern != "" {
			ng.Role = zsay(w, "canvas.zoom.s.ring_", rm.Phase.String())
			ng.Activity = render.ZoomComm
		}
		if len(rm.Recvs) > 0 {
			ng.Progress = progress(m.Time.Seconds(), rm.Recvs[0].Start.Seconds(), rm.Recvs[0].Arrive.Seconds())
		}
		v.GPUs = append(v.GPUs, ng)
		for _, s := range rm.Sends {
			to := int(s.Dst) - first
			if int(s.Dst) < first || int(s.Dst) >= last {
				to = -1
			}
			v.Flows = append(v.Flows, render.ZoomFlow{From: k - first, To: to, Kind: "ring", Progress: progress(m.Time.Seconds(), s.Start.Seconds(), s.Arrive.Seconds())})
		}
	}
	return v
}

func ringGPUView(a *collective.Activity, r *collective.Result, g int, m Moment, f Frame) render.ZoomGPUView {
	w := f.words()
	t := m.Time.Seconds()
	rm, _ := a.At(g, m.Time)
	kern := scenarios.CollectiveKernel(rm)
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, g/ringPerNode(r), g),
		Title:  w.Say("canvas.zoom.s.gpu_title_ring", "gpu", strconv.Itoa(g), "name", ringGPU.Name, "n", strconv.Itoa(r.Config.Ranks), "algo", zsay(w, "canvas.zoom.s.algo_", string(r.Config.Algo))),
		Time:   t, Current: -1, GPU: ringGPU.Name,
	}
	// The strip: the collective's rounds, the one under way lit.
	rounds := a.Rounds()
	for i, ph := range rounds {
		end := r.Time
		if i+1 < len(r.RoundStart) {
			end = r.RoundStart[i+1]
		}
		v.Strip = append(v.Strip, render.ZoomSpan{Label: zsay(w, "canvas.zoom.s.round_", ph.String(), "n", strconv.Itoa(i+1)),
			Activity: render.ZoomComm, Comm: true, Start: r.RoundStart[i].Seconds(), End: end.Seconds()})
	}
	if rm.Round >= 1 && rm.Round <= len(rounds) && t < r.Time.Seconds() {
		v.Current = rm.Round - 1
		v.Doing = w.Say("canvas.zoom.s.doing_round", "t", units.LocalDuration(w.Lang, t), "phase", zsay(w, "canvas.zoom.s.ring_", rm.Phase.String()),
			"round", strconv.Itoa(rm.Round), "rounds", strconv.Itoa(len(rounds)))
	} else {
		v.Doing = w.Say("canvas.zoom.s.doing_at", "what", ringDoing(w, ""), "t", units.LocalDuration(w.Lang, t))
	}
	switch kern {
	case scenarios.KernelReduce:
		in := rm.Recvs[0]
		b := float64(in.Bytes)
		v.Kernel = w.Say("canvas.zoom.s.kernel_reduce", "bytes", units.BytesIEC(b), "from", strconv.Itoa(int(in.Src)))
		reduceCounts(&v, ringGPU, b)
	case scenarios.KernelCopy:
		in := rm.Recvs[0]
		v.Kernel = w.Say("canvas.zoom.s.kernel_copy", "bytes", units.BytesIEC(float64(in.Bytes)), "from", strconv.Itoa(int(in.Src)))
		v.Note = w.Say("canvas.zoom.s.note_copy")
	case scenarios.KernelSend:
		out := rm.Sends[0]
		v.Kernel = w.Say("canvas.zoom.s.kernel_send", "bytes", units.BytesIEC(float64(out.Bytes)), "to", strconv.Itoa(int(out.Dst)))
		v.Note = w.Say("canvas.zoom.s.note_send")
	default:
		v.Note = w.Say("canvas.zoom.s.note_wait_ring")
	}
	return v
}

// reduceCounts puts on v the reduction of a b-byte chunk on g: BF16
// values added in FP32 on the CUDA cores, one addition a value; its own
// chunk and the one that arrived read, the sum written.
func reduceCounts(v *render.ZoomGPUView, g hw.GPU, b float64) {
	if b <= 0 {
		return
	}
	v.Dtype, v.Peak, v.BW, v.GPU = "FP32", peakOr(g, hw.FP32), g.HBMBandwidth, g.Name
	v.FLOPs, v.HBMBytes = b/2, 3*b
	v.KernelTime = v.HBMBytes / (g.HBMBandwidth * parallel.MemoryEfficiency)
	v.Intensity, v.Attained, v.Bound = v.FLOPs/v.HBMBytes, v.FLOPs/v.KernelTime, "memory"
}

// peakOr is g's peak in d, 0 where it has none.
func peakOr(g hw.GPU, d hw.Dtype) float64 {
	p, _ := g.PeakFLOPS(d)
	return p
}
