package scene

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom (issue 21): a strategy lesson's moment from one node, one
// GPU or one SM of it, in place of the step's picture, at the moment
// PlanRun.ZoomTime says.

// buildZoom draws the zoomed picture of a strategy step; false where the
// step's plan cannot be zoomed into (the step's own picture then).
func (p *Picture) buildZoom(dst render.List, m Moment, f Frame) (render.List, bool) {
	switch r := m.StepRun().Run.(type) {
	case *collective.Result:
		return p.buildRingZoom(dst, m, f, r)
	case *scenarios.RouteRun:
		return buildMoEZoom(dst, m, f, r)
	case *scenarios.FaultRun:
		return p.buildFaultZoom(dst, m, f, r)
	}
	if r, ok := m.StepRun().Run.(*scenarios.FabricRun); ok {
		return p.buildFabricZoom(dst, m, f, r)
	}
	run, ok := m.StepRun().Run.(*scenarios.PlanRun)
	if !ok {
		return dst, false
	}
	a, _, ok := run.Activity()
	if !ok {
		return dst, false
	}
	g := min(max(m.Zoom.GPU, 0), a.GPUs()-1)
	t := run.ZoomTime(m.StepRun(), m.Time)
	// A plan that does not fit runs nothing, at any level: each is drawn
	// stopped, with how far over, as the step's own picture is.
	u := unfit(f.words(), run.Result.Memory)
	switch m.Zoom.Level {
	case scenarios.ZoomNode:
		v := zoomNodeView(a, run, g, t, f)
		if u != "" {
			v = unfitNode(v, u)
		}
		return render.AppendZoomNode(dst, v), true
	case scenarios.ZoomGPU:
		if u != "" {
			return render.AppendZoomGPU(dst, unfitGPUView(a, run, g, t, f, u)), true
		}
		return render.AppendZoomGPU(dst, zoomGPUView(a, run, g, t, f)), true
	case scenarios.ZoomSM:
		if u != "" {
			return render.AppendZoomSM(dst, unfitSMView(run, g, f, u)), true
		}
		return render.AppendZoomSM(dst, zoomSMView(a, run, g, t, f)), true
	}
	return dst, false
}

// unfitNode is node view v of a plan that does not fit (unfit its
// words): every GPU idle, no traffic, no clock.
func unfitNode(v render.ZoomNodeView, unfit string) render.ZoomNodeView {
	v.Unfit, v.Clock, v.Flows = unfit, "", nil
	for i := range v.GPUs {
		v.GPUs[i].Activity, v.GPUs[i].Progress, v.GPUs[i].Doing = render.ZoomIdle, 0, ""
	}
	return v
}

// unfitGPUView is GPU g of a plan that does not fit (unfit its words):
// its title, and that it cannot run.
func unfitGPUView(a *parallel.StepActivity, run *scenarios.PlanRun, g int, t float64, f Frame, unfit string) render.ZoomGPUView {
	v := zoomGPUView(a, run, g, t, f)
	return render.ZoomGPUView{Width: v.Width, Height: v.Height, Stage: v.Stage, Scale: v.Scale, Theme: v.Theme, Words: v.Words,
		Crumbs: v.Crumbs, Title: v.Title, Current: -1, GPU: v.GPU, Unfit: unfit}
}

// unfitSMView is the SMs of GPU g of a plan that does not fit (unfit its
// words): all idle, nothing moving.
func unfitSMView(run *scenarios.PlanRun, g int, f Frame, unfit string) render.ZoomSMView {
	w := f.words()
	cl := run.Config.Cluster
	G := max(1, cl.GPUsPerNode)
	return render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomSM, g/G, g), SMs: cl.GPU.SMs, SmemPerSM: cl.GPU.SharedMemPerSM,
		Title: w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g)), Pass: smWaiting(w, cl.GPU), Unfit: unfit}
}

// zoomCrumbs is the way back from level to the cluster ("›" is not in
// the canvas font: ">").
func zoomCrumbs(w render.Words, level string, node, g int) string {
	return zsay(w, "canvas.zoom.s.crumbs_", level, "node", strconv.Itoa(node), "gpu", strconv.Itoa(g))
}

// kernelName is a kernel's name in the reader's words.
func kernelName(w render.Words, name string) string {
	return zsay(w, "canvas.zoom.k.", name)
}

// zsay is w.Say(prefix+name, kv...) for at most two placeholders, kept
// for the next frames: the zoom's labels change with the moment, among a
// few values each.
func zsay(w render.Words, prefix, name string, kv ...string) string {
	var k sayKey
	k.lang, k.prefix, k.name = w.Lang, prefix, name
	copy(k.kv[:], kv)
	said.mu.Lock()
	defer said.mu.Unlock()
	if v, ok := said.m[k]; ok {
		return v
	}
	if said.m == nil || len(said.m) >= 512 {
		said.m = make(map[sayKey]string)
	}
	v := w.Say(prefix+name, kv...)
	said.m[k] = v
	return v
}

type sayKey struct {
	lang, prefix, name string
	kv                 [4]string
}

var said struct {
	mu sync.Mutex
	m  map[sayKey]string
}

// doing is what a GPU does at the moment, in a few words.
func doing(w render.Words, act parallel.Activity) string {
	switch {
	case act.Kernel.Name != "":
		return kernelName(w, act.Kernel.Name)
	case act.Kind == parallel.Forward || act.Kind == parallel.Backward:
		return zsay(w, "canvas.zoom.s.doing_", string(act.Kind))
	case act.Kind == parallel.AllReduce:
		return zsay(w, "canvas.zoom.s.doing_", "allreduce")
	case act.Kind == parallel.Optimizer:
		return zsay(w, "canvas.zoom.s.doing_", "optimizer")
	}
	return zsay(w, "canvas.zoom.s.doing_", "wait")
}

// activityOf is the colour family of act.
func activityOf(act parallel.Activity) render.ZoomActivity {
	switch {
	case act.Kernel.Kind == parallel.KernelCollective || act.Kind == parallel.AllReduce:
		return render.ZoomComm
	case act.Kind == parallel.Forward:
		return render.ZoomForward
	case act.Kind == parallel.Backward:
		return render.ZoomBackward
	case act.Kind == parallel.Optimizer:
		return render.ZoomOptimizer
	}
	return render.ZoomIdle
}

// progress is how far t is from a to b (0–1).
func progress(t, a, b float64) float64 {
	if b <= a {
		return 0
	}
	return math.Min(1, math.Max(0, (t-a)/(b-a)))
}

// clock is the moment's clock label.
func clock(w render.Words, t float64) string {
	return w.Say("canvas.clock", "t", units.LocalDuration(w.Lang, t))
}

func zoomNodeView(a *parallel.StepActivity, run *scenarios.PlanRun, g int, t float64, f Frame) render.ZoomNodeView {
	w := f.words()
	cl := run.Config.Cluster
	p := run.Config.Plan
	G := max(1, cl.GPUsPerNode)
	node := g / G
	nodes := (a.GPUs() + G - 1) / G
	v := render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomNode, node, g),
		Title: w.Say("canvas.zoom.s.node_title", "node", strconv.Itoa(node), "nodes", strconv.Itoa(nodes), "g", strconv.Itoa(G),
			"gpu", cl.GPU.Name),
		Clock:     clock(w, t),
		IntraName: cl.Intra.Name, IntraBW: cl.Intra.Bandwidth, InterName: cl.Inter.Name, InterBW: cl.Inter.Bandwidth,
	}
	first := node * G
	last := min(first+G, a.GPUs())
	v.Focus = g - first
	cp := max(p.CP, 1)
	in := func(r int) int {
		if r >= first && r < last {
			return r - first
		}
		return -1
	}
	for r := first; r < last; r++ {
		act, err := a.At(r, t)
		if err != nil {
			continue
		}
		ng := render.ZoomNodeGPU{
			GPU:      r,
			Label:    zsay(w, "canvas.zoom.s.", "gpu", "gpu", strconv.Itoa(r)),
			Role:     zsay(w, "canvas.zoom.s.", "role", "tp", strconv.Itoa(act.TPRank), "stage", strconv.Itoa(act.Stage)),
			Doing:    doing(w, act),
			Activity: activityOf(act),
			Progress: progress(t, act.KernelStart, act.KernelEnd),
		}
		if act.Kernel.Name == "" {
			ng.Progress = progress(t, act.BlockStart, act.BlockEnd)
		}
		v.GPUs = append(v.GPUs, ng)
		i := r - first
		// The traffic at the moment: a ring's next hop of each collective.
		switch act.Kernel.Name {
		case "tp_allreduce":
			next := r - act.TPRank + (act.TPRank+1)%p.TP
			v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(next), Kind: "tp", Progress: progress(t, act.KernelStart, act.KernelEnd)})
		case "cp_kv":
			next := r + ((act.CPRank+1)%cp-act.CPRank)*p.TP
			v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(next), Kind: "cp", Progress: progress(t, act.KernelStart, act.KernelEnd)})
		case parallel.KernelDispatch, parallel.KernelCombine:
			// An all-to-all among the EP group's ranks (neighbours in DP):
			// drawn as its hop to the next.
			ep := max(p.EP, 1)
			next := r + ((act.DPRank/ep)*ep+(act.DPRank%ep+1)%ep-act.DPRank)*p.TP*cp
			v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(next), Kind: "ep", Progress: progress(t, act.KernelStart, act.KernelEnd)})
		}
		if act.Sending != "" {
			next := r + p.TP*cp*p.DP
			if act.Sending == parallel.SendB {
				next = r - p.TP*cp*p.DP
			}
			v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(next), Kind: "pp", Progress: progress(t, act.SendStart, act.SendEnd)})
		}
		if (act.HiddenAllReduce || act.Kind == parallel.AllReduce) && p.DP > 1 {
			next := r + ((act.DPRank+1)%p.DP-act.DPRank)*p.TP*cp
			a0, a1 := act.AllReduceStart, act.AllReduceEnd
			if act.Kind == parallel.AllReduce {
				a0, a1 = act.BlockStart, act.BlockEnd
			}
			v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(next), Kind: "dp", Progress: progress(t, a0, a1)})
		}
	}
	return v
}

func zoomGPUView(a *parallel.StepActivity, run *scenarios.PlanRun, g int, t float64, f Frame) render.ZoomGPUView {
	w := f.words()
	cl := run.Config.Cluster
	p := run.Config.Plan
	act, _ := a.At(g, t)
	G := max(1, cl.GPUsPerNode)
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, g/G, g),
		Title: w.Say("canvas.zoom.s.gpu_title", "gpu", strconv.Itoa(g), "name", cl.GPU.Name, "stage", strconv.Itoa(act.Stage),
			"pp", strconv.Itoa(p.PP), "tp", strconv.Itoa(act.TPRank), "tps", strconv.Itoa(p.TP)),
		Time: t, Current: -1, GPU: cl.GPU.Name,
	}
	switch {
	case act.Layer >= 0:
		v.Doing = w.Say("canvas.zoom.s.doing_layer_"+string(act.Kind), "mb", strconv.Itoa(act.MicroBatch+1), "layer", strconv.Itoa(act.Layer+1),
			"layers", strconv.Itoa(act.Layers), "t", units.LocalDuration(w.Lang, t))
	case act.Kind == parallel.Forward || act.Kind == parallel.Backward:
		v.Doing = w.Say("canvas.zoom.s.doing_head_"+string(act.Kind), "mb", strconv.Itoa(act.MicroBatch+1), "t", units.LocalDuration(w.Lang, t))
	default:
		v.Doing = w.Say("canvas.zoom.s.doing_at", "what", doing(w, act), "t", units.LocalDuration(w.Lang, t))
	}
	for i, s := range act.Spans {
		sp := render.ZoomSpan{Label: kernelName(w, s.Name), Start: s.Start, End: s.End, Comm: s.Kind == parallel.KernelCollective}
		sp.Activity = render.ZoomForward
		if act.Kind == parallel.Backward {
			sp.Activity = render.ZoomBackward
		}
		if sp.Comm {
			sp.Activity = render.ZoomComm
		}
		if s.Start == act.KernelStart && s.Name == act.Kernel.Name {
			v.Current = i
		}
		v.Strip = append(v.Strip, sp)
	}
	k := act.Kernel
	c, ok := a.Counts(act)
	switch {
	case !ok:
		v.Note = zoomNote(w, act, run)
	case c.Comm:
		v.Kernel = kernelName(w, k.Name)
		// The link its group's ranks span: TP's, or CP's and EP's (TP
		// ranks apart, and CP ranks apart) — a node's NVLink, or the
		// network once the group leaves the node.
		link := parallel.TPLink(p, cl)
		span := p.TP * max(p.CP, 1)
		if k.Name == parallel.KernelDispatch || k.Name == parallel.KernelCombine {
			span *= max(p.EP, 1)
		}
		if k.Name != "tp_allreduce" {
			link = cl.Intra
			if span > cl.GPUsPerNode {
				link = cl.Inter
			}
		}
		v.Note = w.Say("canvas.zoom.s.note_comm", "what", kernelName(w, k.Name), "link", link.Name,
			"time", units.LocalDuration(w.Lang, c.TimeS))
	default:
		v.Kernel = kernelName(w, k.Name)
		if k.Kind == parallel.KernelGEMM {
			key := "canvas.zoom.s.kernel_gemm"
			if act.Kind == parallel.Backward {
				key += "_bwd" // its two products, the counts' both
			}
			v.Kernel = w.Say(key, "name", kernelName(w, k.Name), "m", units.Count(int64(k.M)),
				"n", units.Count(int64(k.N)), "k", units.Count(int64(k.K)))
		}
		v.Dtype, v.Peak, v.BW = strings.ToUpper(string(c.Dtype)), c.Peak, c.BW
		v.HBMBytes, v.SmemBytes, v.FLOPs, v.KernelTime, v.Bound = c.HBMBytes, c.SmemBytes, c.FLOPs, c.TimeS, c.Bound
		if c.FLOPs > 0 && c.HBMBytes > 0 && c.TimeS > 0 {
			v.Intensity, v.Attained = c.FLOPs/c.HBMBytes, c.FLOPs/c.TimeS
		}
		if k.Kind == parallel.KernelRecompute {
			v.Note = w.Say("canvas.zoom.s.note_recompute")
		}
	}
	return v
}

// zoomNote says what a GPU without a kernel of its own does.
func zoomNote(w render.Words, act parallel.Activity, run *scenarios.PlanRun) string {
	switch {
	case act.Detail != "":
		return w.Say("canvas.zoom.s.note_moe")
	case act.Kind == parallel.AllReduce:
		return w.Say("canvas.zoom.s.note_allreduce", "link", parallel.DPLink(run.Config.Plan, run.Config.Cluster).Name)
	case act.Kind == parallel.Optimizer:
		return w.Say("canvas.zoom.s.note_optimizer")
	}
	return w.Say("canvas.zoom.s.note_wait")
}

func zoomSMView(a *parallel.StepActivity, run *scenarios.PlanRun, g int, t float64, f Frame) render.ZoomSMView {
	w := f.words()
	cl := run.Config.Cluster
	act, _ := a.At(g, t)
	G := max(1, cl.GPUsPerNode)
	v := render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomSM, g/G, g), SMs: cl.GPU.SMs, SmemPerSM: cl.GPU.SharedMemPerSM}
	c, ok := a.Counts(act)
	if !ok || c.GEMM == nil {
		v.Title = w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g))
		v.Note = zoomSMNote(w, act, c, ok)
		v.Pass = smPass(w, act, c, ok, cl.GPU, progress(t, act.KernelStart, act.KernelEnd))
		return v
	}
	r := c.GEMM
	// The product's share of the kernel's time: backward, the input's
	// gradient first, then the weights'.
	pr := progress(t, act.KernelStart, act.KernelEnd)
	key := "canvas.zoom.s.sm_title"
	if act.Kind == parallel.Backward && c.WGrad != nil {
		key += "_bwd"
		share := r.TimeS / (r.TimeS + c.WGrad.TimeS)
		if pr < share {
			pr /= share
		} else {
			r, key, pr = c.WGrad, key+"_w", (pr-share)/(1-share)
		}
	}
	v.Title = w.Say(key, "sms", strconv.Itoa(cl.GPU.SMs), "what", kernelName(w, act.Kernel.Name))
	smTiles(&v, cl.GPU, r, c.Dtype, pr)
	return v
}

// smTiles puts product r on g in v: its tiles, waves and K loop, and the
// wave and slab running pr (0–1) through it.
func smTiles(v *render.ZoomSMView, g hw.GPU, r *kernel.GEMMResult, dt hw.Dtype, pr float64) {
	bm, bn, bk := kernel.TensorTile(g)
	v.M, v.N, v.K = r.Config.M, r.Config.N, r.Config.K
	v.TileM, v.TileN, v.TileK = bm, bn, bk
	v.TilesM, v.TilesN = (v.M+bm-1)/bm, (v.N+bn-1)/bn
	v.BlocksPerSM, v.Waves = r.BlocksPerSM, max(1, r.Waves)
	v.WarpsPerBlock = kernel.ThreadsPerBlock / kernel.WarpSize
	v.KSteps = (v.K + bk - 1) / bk
	v.SmemPerBlock = kernel.TensorStageBytes(g, r.Config.Dtype)
	v.Dtype = strings.ToUpper(string(dt))
	v.Progress = pr
	wave := min(int(pr*float64(v.Waves)), v.Waves-1)
	v.Wave = wave + 1
	v.KStep = min(int((pr*float64(v.Waves)-float64(wave))*float64(v.KSteps)), v.KSteps-1)
}

// smPass is what the SMs of GPU g do at act when it runs no matrix
// product, pr through its kernel: every SM streaming HBM in a memory
// pass (its bytes and time, from the engine's counts) or the optimizer,
// computing attention's tiles with a trickle of HBM, waiting on the links
// through a collective, or waiting; nil for recomputation (its kernels are
// the forward's, drawn there).
func smPass(w render.Words, act parallel.Activity, c parallel.Counts, ok bool, g hw.GPU, pr float64) *render.ZoomSMPass {
	switch {
	case ok && act.Kernel.Kind == parallel.KernelRecompute:
		return nil
	case ok && act.Kernel.Kind == parallel.KernelAttention:
		ps := smBusy(w, g, activityOf(act), pr, "canvas.zoom.sm.key_sm_attention")
		ps.Flow, ps.OnChip = render.FlowOnChip, w.Say("canvas.zoom.sm.onchip")
		if c.HBMBytes > 0 && c.TimeS > 0 {
			ps.Share = c.HBMBytes / c.TimeS / g.HBMBandwidth
			ps.Numbers = w.Say("canvas.zoom.sm.pass_attention", "flops", units.FLOP(c.FLOPs), "time", units.LocalDuration(w.Lang, c.TimeS),
				"rate", units.FLOPS(c.FLOPs/c.TimeS), "bytes", units.Bytes(c.HBMBytes), "intensity", units.Count(int64(math.Round(c.FLOPs/c.HBMBytes))))
		}
		return ps
	case ok && c.Comm, act.Kind == parallel.AllReduce:
		return smOnLinks(w, g, c.TimeS, pr)
	case ok && act.Kernel.Kind == parallel.KernelMemory:
		return smStreaming(w, g, activityOf(act), c, pr)
	case act.Kind == parallel.Optimizer:
		// Adam's update streams the weights, gradients and moments once
		// through, at a memory pass's share of HBM.
		ps := smBusy(w, g, render.ZoomOptimizer, pr, "canvas.zoom.sm.key_sm_optimizer")
		ps.Flow, ps.Share = render.FlowHBM, parallel.MemoryEfficiency
		return ps
	}
	return smWaiting(w, g)
}

// smBusy is every SM of g at work, in a's colour, over HBM.
func smBusy(w render.Words, g hw.GPU, a render.ZoomActivity, pr float64, key string) *render.ZoomSMPass {
	return &render.ZoomSMPass{Activity: a, Busy: g.SMs, Progress: pr, BusyKey: w.Say(key), Bar: w.Say("canvas.zoom.sm.bar_hbm", "bw", units.Rate(g.HBMBandwidth))}
}

// smStreaming is a memory-bound pass of counts c: every SM streaming its
// bytes through HBM at what they over its time make of the bandwidth.
func smStreaming(w render.Words, g hw.GPU, a render.ZoomActivity, c parallel.Counts, pr float64) *render.ZoomSMPass {
	ps := smBusy(w, g, a, pr, "canvas.zoom.sm.key_sm_memory")
	ps.Flow = render.FlowHBM
	if c.TimeS > 0 {
		rate := c.HBMBytes / c.TimeS
		ps.Share = rate / g.HBMBandwidth
		ps.Bar = w.Say("canvas.zoom.sm.bar_hbm_use", "bw", units.Rate(g.HBMBandwidth), "rate", units.Rate(rate))
		ps.Numbers = w.Say("canvas.zoom.sm.pass_memory", "bytes", units.Bytes(c.HBMBytes), "time", units.LocalDuration(w.Lang, c.TimeS),
			"rate", units.Rate(rate), "share", units.Percent(ps.Share), "bw", units.Rate(g.HBMBandwidth))
	}
	return ps
}

// smOnLinks is a collective of t seconds (0: not known): the bytes on
// the links while every SM waits on them — its own copies and sums run on
// a few SMs, which the engine does not count.
func smOnLinks(w render.Words, g hw.GPU, t, pr float64) *render.ZoomSMPass {
	ps := &render.ZoomSMPass{Activity: render.ZoomComm, Flow: render.FlowLink, Share: 1, Progress: pr,
		WaitKey: w.Say("canvas.zoom.sm.key_sm_comm_wait"), Bar: w.Say("canvas.zoom.sm.bar_links")}
	if t > 0 {
		ps.Numbers = w.Say("canvas.zoom.sm.pass_comm", "time", units.LocalDuration(w.Lang, t))
	}
	return ps
}

// smWaiting is every SM of g idle, nothing moving.
func smWaiting(w render.Words, g hw.GPU) *render.ZoomSMPass {
	return &render.ZoomSMPass{Activity: render.ZoomIdle, Flow: render.FlowNone, Bar: w.Say("canvas.zoom.sm.bar_hbm", "bw", units.Rate(g.HBMBandwidth))}
}

// zoomSMNote says what an SM does when its GPU runs no matrix product.
func zoomSMNote(w render.Words, act parallel.Activity, c parallel.Counts, ok bool) string {
	switch {
	case ok && act.Kernel.Kind == parallel.KernelAttention:
		return w.Say("canvas.zoom.s.sm_attention")
	case ok && c.Comm:
		return w.Say("canvas.zoom.s.sm_comm")
	case ok && act.Kernel.Kind == parallel.KernelMemory:
		return w.Say("canvas.zoom.s.sm_memory")
	case ok && act.Kernel.Kind == parallel.KernelRecompute:
		return w.Say("canvas.zoom.s.note_recompute")
	}
	return w.Say("canvas.zoom.s.sm_idle")
}
