package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom in the mixture-of-experts lesson: the routed layer's moment
// (scenarios.MoELayer) from one node — its GPUs labelled with their
// experts and the copies they got, the dispatch's flows on NVLink and out
// of the NICs while they are in flight, the hot GPU last to finish — one
// GPU (the layer's kernels, the experts' GEMM under the roofline: a thin
// memory-bound product with a few tokens, near the roof with thousands)
// and one SM inside the expert's product running then.

func buildMoEZoom(dst render.List, m Moment, f Frame, r *scenarios.RouteRun) (render.List, bool) {
	l := r.ZoomLayer()
	g := min(max(m.Zoom.GPU, 0), len(l.GPUs)-1)
	t := r.ZoomTime(m.StepRun(), m.Time)
	switch m.Zoom.Level {
	case scenarios.ZoomNode:
		return render.AppendZoomNode(dst, moeNodeView(r, l, g, t, f)), true
	case scenarios.ZoomGPU:
		return render.AppendZoomGPU(dst, moeGPUView(r, l, g, t, f)), true
	case scenarios.ZoomSM:
		return render.AppendZoomSM(dst, moeSMView(r, l, g, t, f)), true
	}
	return dst, false
}

// moeHot is the EP GPU whose experts the router sent the most copies
// (the first of equals), its copies and the mean a GPU.
func moeHot(r *scenarios.RouteRun, l *scenarios.MoELayer) (hot, most int, mean float64) {
	all := 0
	for i, x := range l.GPUs {
		n, _ := moeCopies(r, x)
		if n > most || i == 0 {
			hot, most = i, n
		}
		all += n
	}
	return hot, most, float64(all) / float64(len(l.GPUs))
}

// moeCopies is the token copies the router sent a GPU's experts, and
// those they keep (all, without a capacity).
func moeCopies(r *scenarios.RouteRun, x scenarios.MoEGPU) (routed, kept int) {
	for j := range x.Rows {
		routed += r.Result.Load[x.First+j]
		kept += r.Result.KeptLoad[x.First+j]
	}
	return routed, kept
}

// moeRole is a GPU's copies: "10,197 copies", or where a capacity drops
// some "10,240 kept of 13,011".
func moeRole(w render.Words, r *scenarios.RouteRun, x scenarios.MoEGPU) string {
	n, kept := moeCopies(r, x)
	if kept < n {
		return w.Say("canvas.zoom.s.moe_role_cap", "kept", units.Count(int64(kept)), "n", units.Count(int64(n)))
	}
	return w.Say("canvas.zoom.s.moe_role", "n", units.Count(int64(n)))
}

// moeExperts names a GPU's experts: "expert 5", "experts 8–11".
func moeExperts(w render.Words, x scenarios.MoEGPU) string {
	if len(x.Rows) == 1 {
		return zsay(w, "canvas.zoom.s.moe_expert", "", "e", strconv.Itoa(x.First))
	}
	return zsay(w, "canvas.zoom.s.moe_experts", "", "a", strconv.Itoa(x.First), "b", strconv.Itoa(x.First+len(x.Rows)-1))
}

// moeActivity is the colour of span s at t for GPU x: an all-to-all while
// its own part is in flight (then it waits for the slowest), a kernel, or
// a wait.
func moeActivity(x scenarios.MoEGPU, s scenarios.MoESpan, t float64) (render.ZoomActivity, float64) {
	switch {
	case s.Name == "":
		return render.ZoomIdle, 0
	case s.Counts.Comm:
		own := max(x.IntraS, x.InterS)
		if t-s.Start < own {
			return render.ZoomComm, progress(t-s.Start, 0, own)
		}
		return render.ZoomIdle, 1
	}
	return render.ZoomForward, progress(t, s.Start, s.End)
}

func moeNodeView(r *scenarios.RouteRun, l *scenarios.MoELayer, g int, t float64, f Frame) render.ZoomNodeView {
	w := f.words()
	res := &r.Result
	G := res.GPUsPerNode
	node, nodes := g/G, (res.EP+G-1)/G
	hot, most, mean := moeHot(r, l)
	v := render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w, KeyShown: true,
		Crumbs: zoomCrumbs(w, scenarios.ZoomNode, node, g),
		Title: w.Say("canvas.zoom.s.node_title_moe", "node", strconv.Itoa(node), "nodes", strconv.Itoa(nodes), "g", strconv.Itoa(min(G, res.EP)),
			"gpu", l.GPU.Name, "per", strconv.Itoa(len(l.GPUs[0].Rows)), "experts", strconv.Itoa(res.Experts), "hot", strconv.Itoa(hot),
			"ratio", units.Ratio(w.Lang, float64(most)/max(1, mean))),
		Clock:     clock(w, t),
		IntraName: res.Intra.Name, IntraBW: res.Intra.Bandwidth,
	}
	if res.EP > G {
		v.InterName, v.InterBW = res.Inter.Name, res.Inter.Bandwidth
	}
	first, last := node*G, min(node*G+G, res.EP)
	v.Focus = g - first
	for i := first; i < last; i++ {
		x := l.GPUs[i]
		s, _ := l.At(i, t)
		act, pr := moeActivity(x, s, t)
		ng := render.ZoomNodeGPU{GPU: i, Label: w.Say("canvas.zoom.s.moe_gpu", "gpu", strconv.Itoa(i), "experts", moeExperts(w, x)),
			Role: moeRole(w, r, x), Activity: act, Progress: pr}
		switch {
		case act == render.ZoomIdle:
			ng.Doing = zsay(w, "canvas.zoom.s.doing_", "wait")
		default:
			ng.Doing = kernelName(w, s.Name)
		}
		v.GPUs = append(v.GPUs, ng)
		if act != render.ZoomComm {
			continue
		}
		// Its copies on the links while its parts are in flight: to
		// (the combine: back from) each GPU of the node, and out of its
		// NIC to the other nodes.
		back := s.Name == parallel.KernelCombine
		if d := t - s.Start; d < x.IntraS {
			for _, j := range x.Peers {
				fl := render.ZoomFlow{From: i - first, To: j - first, Kind: "ep", Progress: d / x.IntraS}
				if back {
					fl.From, fl.To = fl.To, fl.From
				}
				v.Flows = append(v.Flows, fl)
			}
		}
		if d := t - s.Start; d < x.InterS && res.SendInter[i] > 0 {
			v.Flows = append(v.Flows, render.ZoomFlow{From: i - first, To: -1, Kind: "ep", Progress: d / x.InterS})
		}
	}
	return v
}

func moeGPUView(r *scenarios.RouteRun, l *scenarios.MoELayer, g int, t float64, f Frame) render.ZoomGPUView {
	w := f.words()
	res := &r.Result
	x := l.GPUs[g]
	s, cur := l.At(g, t)
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, g/res.GPUsPerNode, g),
		Title: w.Say("canvas.zoom.s.gpu_title_moe", "gpu", strconv.Itoa(g), "name", l.GPU.Name, "experts", moeExperts(w, x),
			"all", strconv.Itoa(res.Experts), "ep", strconv.Itoa(res.EP), "n", moeRole(w, r, x)),
		Time: t, Current: cur, GPU: l.GPU.Name,
	}
	what := zsay(w, "canvas.zoom.s.doing_", "wait")
	if s.Name != "" {
		what = kernelName(w, s.Name)
	}
	v.Doing = w.Say("canvas.zoom.s.doing_at", "what", what, "t", units.LocalDuration(w.Lang, t))
	for _, sp := range x.Spans {
		z := render.ZoomSpan{Label: what, Start: sp.Start, End: sp.End, Activity: render.ZoomForward, Comm: sp.Counts.Comm}
		switch {
		case sp.Name == "":
			z.Label, z.Activity = zsay(w, "canvas.zoom.s.doing_", "wait"), render.ZoomIdle
		case z.Comm:
			z.Label, z.Activity = kernelName(w, sp.Name), render.ZoomComm
		default:
			z.Label = kernelName(w, sp.Name)
		}
		v.Strip = append(v.Strip, z)
	}
	c := s.Counts
	switch {
	case s.Name == "":
		hot, most, _ := moeHot(r, l)
		mine, _ := moeCopies(r, x)
		v.Note = w.Say("canvas.zoom.s.note_moe_wait", "hot", strconv.Itoa(hot), "n", units.Count(int64(most)), "mine", units.Count(int64(mine)))
		return v
	case c.Comm:
		v.Kernel = kernelName(w, s.Name)
		key := "canvas.zoom.s.note_moe_a2a"
		if res.SendInter[g]+res.RecvInter[g] == 0 {
			key += "_node"
		}
		dir := "canvas.zoom.s.moe_to"
		if s.Name == parallel.KernelCombine {
			dir = "canvas.zoom.s.moe_back"
		}
		v.Note = w.Say(key, "what", kernelName(w, s.Name), "dir", w.Say(dir), "intra", units.Bytes(res.SendIntra[g]), "ilink", res.Intra.Name,
			"inter", units.Bytes(res.SendInter[g]), "elink", res.Inter.Name, "in", units.Bytes(res.RecvIntra[g]+res.RecvInter[g]),
			"time", units.LocalDuration(w.Lang, s.End-s.Start), "own", units.LocalDuration(w.Lang, max(x.IntraS, x.InterS)))
		return v
	}
	v.Kernel = kernelName(w, s.Name)
	if gm := c.GEMM; gm != nil {
		v.Kernel = w.Say("canvas.zoom.s.kernel_gemm", "name", kernelName(w, s.Name), "m", units.Count(int64(gm.Config.M)),
			"n", units.Count(int64(gm.Config.N)), "k", units.Count(int64(gm.Config.K)))
		if e, _ := l.Expert(g, s.Name, t); e >= 0 {
			gm = moeProducts(x, s.Name)[e].GEMM
			key := "canvas.zoom.s.kernel_expert"
			switch {
			case res.Capacity > 0:
				key += "_cap"
			case c.Products == 1:
				key += "_one"
			}
			v.Kernel = w.Say(key, "name", kernelName(w, s.Name), "m", units.Count(int64(gm.Config.M)),
				"n", units.Count(int64(gm.Config.N)), "k", units.Count(int64(gm.Config.K)), "e", strconv.Itoa(x.First+e),
				"count", strconv.Itoa(c.Products))
		}
	}
	v.Dtype, v.Peak, v.BW = "BF16", c.Peak, c.BW
	v.HBMBytes, v.SmemBytes, v.FLOPs, v.KernelTime, v.Bound = c.HBMBytes, c.SmemBytes, c.FLOPs, c.TimeS, c.Bound
	if c.FLOPs > 0 && c.HBMBytes > 0 && c.TimeS > 0 {
		v.Intensity, v.Attained = c.FLOPs/c.HBMBytes, c.FLOPs/c.TimeS
	}
	return v
}

// moeProducts are GPU x's experts' products of the kernel name.
func moeProducts(x scenarios.MoEGPU, name string) []parallel.Counts {
	if name == parallel.KernelExpertsDown {
		return x.Layer.Down
	}
	return x.Layer.Up
}

func moeSMView(r *scenarios.RouteRun, l *scenarios.MoELayer, g int, t float64, f Frame) render.ZoomSMView {
	w := f.words()
	x := l.GPUs[g]
	s, _ := l.At(g, t)
	v := render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomSM, g/r.Result.GPUsPerNode, g), SMs: l.GPU.SMs, SmemPerSM: l.GPU.SharedMemPerSM,
		Title: w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g))}
	gm, pr := s.Counts.GEMM, progress(t, s.Start, s.End)
	switch {
	case s.Counts.Comm:
		v.Note = w.Say("canvas.zoom.s.sm_moe_a2a")
		v.Pass = smOnLinks(w, l.GPU, s.End-s.Start, pr)
		return v
	case s.Name == parallel.KernelExpertsUp || s.Name == parallel.KernelExpertsDown:
		e, p := l.Expert(g, s.Name, t)
		if e < 0 {
			break
		}
		gm, pr = moeProducts(x, s.Name)[e].GEMM, p
		if gm == nil {
			break
		}
		// A tile's rows against the copies: a thin product leaves most
		// of each tile's rows empty.
		bm, _, _ := kernel.TensorTile(l.GPU)
		key := "canvas.zoom.s.sm_title_" + s.Name
		if gm.Config.M < bm {
			key += "_thin"
		}
		v.Title = w.Say(key, "sms", strconv.Itoa(l.GPU.SMs), "e", strconv.Itoa(x.First+e), "m", units.Count(int64(gm.Config.M)),
			"tm", units.Count(int64((gm.Config.M+bm-1)/bm)), "bm", strconv.Itoa(bm))
	case gm != nil:
		v.Title = w.Say("canvas.zoom.s.sm_title", "sms", strconv.Itoa(l.GPU.SMs), "what", kernelName(w, s.Name))
	}
	if gm == nil {
		v.Title = w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g))
		v.Note = w.Say("canvas.zoom.s.sm_idle")
		v.Pass = smWaiting(w, l.GPU) // waiting for the slowest GPU
		if s.Counts.Bound == "memory" {
			v.Note = w.Say("canvas.zoom.s.sm_memory")
			c := s.Counts
			c.TimeS = s.End - s.Start
			v.Pass = smStreaming(w, l.GPU, render.ZoomForward, c, pr)
		}
		return v
	}
	smTiles(&v, l.GPU, gm, s.Counts.Dtype, pr)
	return v
}
