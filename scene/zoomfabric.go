package scene

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The zoom in the fabric lessons (nvlink-vs-ib, collectives-at-scale,
// rack-scale-nvlink): a transfer's or a collective's moment from one node
// (its GPUs in the closed form's leg under way, the bytes on their NVLink
// and leaving by their NICs), one GPU (the legs or rounds as its strip,
// the one under way lit, a round's latency against its bytes; the
// reduction's point on the roofline) and its SMs. The moment and what
// each GPU does come from scenarios.FabricRun.ZoomAt, read from the
// closed form's legs (collective.Schedule).

func (p *Picture) buildFabricZoom(dst render.List, m Moment, f Frame, r *scenarios.FabricRun) (render.List, bool) {
	if m.Pending && r.View == scenarios.ViewSizes {
		return dst, false // the size chart keeps the question's answer, the fastest algorithm, hidden
	}
	z := r.Zoom()
	g := min(max(m.Zoom.GPU, 0), z.Ranks-1)
	t := r.ZoomTime(m.StepRun(), m.Time)
	switch m.Zoom.Level {
	case scenarios.ZoomNode:
		return render.AppendZoomNode(dst, fabricNodeView(r, z, g, t, f)), true
	case scenarios.ZoomGPU:
		return render.AppendZoomGPU(dst, fabricGPUView(r, z, g, t, f)), true
	case scenarios.ZoomSM:
		w := f.words()
		mo := r.ZoomAt(g, t)
		note := w.Say("canvas.zoom.s.sm_idle")
		pass := smWaiting(w, z.GPU)
		dma := func() {
			// The SMs free, the bytes on the links all the same.
			note = w.Say("canvas.zoom.s.sm_dma", "sms", strconv.Itoa(z.GPU.SMs))
			pass.Flow, pass.Share, pass.Bar, pass.WaitKey = render.FlowLink, 1, w.Say("canvas.zoom.sm.bar_dma"), w.Say("canvas.zoom.sm.key_sm_free")
		}
		switch {
		case mo.Kernel != "" && (r.View == scenarios.ViewRace || r.View == scenarios.ViewContention || r.Rack != nil && r.Rack.Op == scenarios.RackSend):
			dma()
		case mo.Block == "receive":
			dma()
		case mo.Kernel != "":
			note = w.Say("canvas.zoom.s.sm_comm")
			pass = smOnLinks(w, z.GPU, 0, 0)
		}
		return render.AppendZoomSM(dst, render.ZoomSMView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
			Crumbs: zoomCrumbs(w, scenarios.ZoomSM, g/z.PerNode, g), SMs: z.GPU.SMs, SmemPerSM: z.GPU.SharedMemPerSM,
			Title: w.Say("canvas.zoom.s.sm_title_none", "gpu", strconv.Itoa(g)), Note: note, Pass: pass}), true
	}
	return dst, false
}

// fabricP2P reports whether the step is a point-to-point transfer (the
// race, the rack's send), and its receivers with their links and times.
func fabricP2P(r *scenarios.FabricRun, z *scenarios.FabricZoom) (recv []int, links []string, lat, end []float64, ok bool) {
	switch {
	case r.View == scenarios.ViewRace:
		return []int{1, z.PerNode}, []string{r.Intra.Name, r.Inter.Name}, []float64{r.Intra.Latency.Seconds(), r.Inter.Latency.Seconds()},
			[]float64{r.IntraS, r.InterS}, true
	case r.View == scenarios.ViewRack && r.Rack.Op == scenarios.RackSend:
		l := z.Intra
		if z.PerNode < scenarios.RackGPUs {
			l = z.Inter
		}
		return []int{scenarios.RackGPUs - 1}, []string{l.Name}, []float64{l.Latency.Seconds()}, []float64{z.Seconds}, true
	}
	return nil, nil, nil, nil, false
}

// raceDone is how much of a transfer of latency lat ending at end has
// arrived at t, as the race picture draws it: nothing before the
// latency, then linearly.
func raceDone(t, lat, end float64) float64 {
	if t >= end {
		return 1
	}
	return progress(t, lat, end)
}

// fabricWhat names the step's transfer or collective.
func fabricWhat(w render.Words, r *scenarios.FabricRun, z *scenarios.FabricZoom) string {
	b := units.Bytes(z.Bytes)
	switch {
	case r.View == scenarios.ViewRace:
		return w.Say("canvas.zoom.s.what_race", "bytes", b)
	case r.View == scenarios.ViewCeiling:
		return w.Say("canvas.zoom.s.what_tp", "bytes", b, "tp", strconv.Itoa(z.Group))
	case z.Op == collective.Broadcast:
		return w.Say("canvas.zoom.s.what_send", "bytes", b, "to", strconv.Itoa(scenarios.RackGPUs-1))
	case z.Op == collective.AllToAll:
		return w.Say("canvas.zoom.s.what_alltoall", "bytes", b, "ranks", units.Count(int64(z.Ranks)))
	}
	return w.Say("canvas.zoom.s.what_allreduce", "algo", zsay(w, "canvas.sizes.", string(z.Algo)), "bytes", b, "ranks", units.Count(int64(z.Ranks)))
}

// legLabel is a leg's name: its kind, and for hierarchical's legs in
// every node or across nodes.
// (short: the strip's word for it, for a GPU's box).
func legLabel(w render.Words, z *scenarios.FabricZoom, l collective.Leg, short bool) string {
	s := zsay(w, "canvas.zoom.s.leg_", string(l.Kind))
	if short {
		s = zsay(w, "canvas.zoom.s.span_", string(l.Kind))
	}
	switch {
	case l.Node:
		return zsay(w, "canvas.zoom.s.leg_in_node", "", "leg", s)
	case l.Across && z.Algo == collective.Hierarchical:
		return zsay(w, "canvas.zoom.s.leg_across", "", "leg", s)
	}
	return s
}

// legProgress is how far t (the closed form's seconds) is through the
// round of l under way.
func legProgress(l collective.Leg, t float64) float64 {
	d := l.Round()
	if d <= 0 {
		return 0
	}
	x := (t - l.Start) / d
	return math.Min(1, math.Max(0, x-math.Floor(x)))
}

// fabricDoing is what a GPU does then, in a few words.
func fabricDoing(w render.Words, mo scenarios.FabricMoment, done bool) string {
	switch {
	case mo.Kernel != "":
		return kernelName(w, mo.Kernel)
	case mo.Block != "":
		return zsay(w, "canvas.zoom.s.doing_", mo.Block)
	case done:
		return zsay(w, "canvas.zoom.s.doing_", "done")
	}
	return zsay(w, "canvas.zoom.s.doing_", "wait")
}

// nicBusy is GPU g's NIC to its leaf: its leaf, and how busy it was on
// each of the contention step's fat trees.
func nicBusy(r *scenarios.FabricRun, g int) (leaf int, busy [2]float64) {
	for i, tr := range r.Trees {
		for _, l := range tr.Links {
			if l.GPU == g && l.Spine < 0 && l.Up {
				leaf, busy[i] = l.Leaf, l.Busy
			}
		}
	}
	return leaf, busy
}

func fabricNodeView(r *scenarios.FabricRun, z *scenarios.FabricZoom, g int, t float64, f Frame) render.ZoomNodeView {
	w := f.words()
	G := z.PerNode
	node, nodes := g/G, (z.Ranks+G-1)/G
	first, last := node*G, min(node*G+G, z.Ranks)
	v := render.ZoomNodeView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w, KeyShown: true,
		Crumbs: zoomCrumbs(w, scenarios.ZoomNode, node, g), Clock: clock(w, t), Focus: g - first,
		IntraName: z.Intra.Name, IntraBW: z.Intra.Bandwidth}
	if nodes > 1 {
		v.InterName, v.InterBW = z.Inter.Name, z.Inter.Bandwidth
	}
	what := fabricWhat(w, r, z)
	switch {
	case r.View == scenarios.ViewContention:
		leaf, _ := nicBusy(r, g)
		v.Title = w.Say("canvas.zoom.s.node_title_contention", "node", strconv.Itoa(node), "nodes", strconv.Itoa(nodes), "leaf", strconv.Itoa(leaf), "what", what)
	case G >= scenarios.RackGPUs:
		v.Title = w.Say("canvas.zoom.s.node_title_nvl72", "g", strconv.Itoa(G), "gpu", z.GPU.Name, "what", what)
	default:
		v.Title = w.Say("canvas.zoom.s.node_title_fabric", "node", strconv.Itoa(node), "nodes", strconv.Itoa(nodes), "g", strconv.Itoa(last-first), "gpu", z.GPU.Name, "what", what)
	}
	in := func(k int) int {
		if k >= first && k < last {
			return k - first
		}
		return -1
	}
	ts := t / z.Stretch()
	li, round := collective.LegAt(z.Legs, ts)
	done := t >= z.Seconds
	recv, links, lat, end, p2p := fabricP2P(r, z)
	for k := first; k < last; k++ {
		mo := r.ZoomAt(k, t)
		i := k - first
		ng := render.ZoomNodeGPU{GPU: k, Label: zsay(w, "canvas.zoom.s.", "gpu", "gpu", strconv.Itoa(k)), Doing: fabricDoing(w, mo, done)}
		if mo.Block != "" {
			ng.Activity = render.ZoomComm
		}
		switch {
		case p2p:
			if k == 0 {
				ng.Role = zsay(w, "canvas.zoom.s.role_sender", "", "bytes", units.Bytes(z.Bytes))
			}
			for j, to := range recv {
				p := raceDone(t, lat[j], end[j])
				if k == to {
					ng.Role, ng.Progress = zsay(w, "canvas.zoom.s.role_receiver", "", "link", links[j]), p
					if t >= end[j] {
						ng.Doing = zsay(w, "canvas.zoom.s.doing_", "done")
					}
					if t < end[j] && in(0) < 0 { // its bytes come in through its NIC
						v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: -1, Kind: "p2p", Progress: 1 - p})
					}
				}
				if k == 0 && t < end[j] {
					v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: in(to), Kind: "p2p", Progress: p})
					ng.Progress = max(ng.Progress, p)
				}
			}
		case r.View == scenarios.ViewContention:
			_, busy := nicBusy(r, k)
			ng.Role = w.Say("canvas.zoom.s.role_nic", "a", units.Percent(busy[0]), "b", units.Percent(busy[1]))
			if mo.Kernel != "" {
				ng.Progress = progress(t, 0, z.Seconds)
				v.Flows = append(v.Flows, render.ZoomFlow{From: i, To: -1, Kind: "a2a", Progress: ng.Progress})
			}
		case !mo.Member:
			ng.Role = zsay(w, "canvas.zoom.s.role_outside", "", "tp", strconv.Itoa(z.Group))
		case mo.Kernel != "":
			l := z.Legs[li]
			ng.Role, ng.Progress = legLabel(w, z, l, true), legProgress(l, ts)
			v.Flows = legFlows(v.Flows, z, l, round, k, i, in, ng.Progress)
		}
		v.GPUs = append(v.GPUs, ng)
	}
	return v
}

// legFlows adds GPU k's traffic in round round of leg l (i its index in
// the node, in the index of a GPU there or −1): a ring's next GPU (its
// node's, in a node's leg), hierarchical's rail ring through the NIC,
// an all-to-all's partner of the round, a tree's parents on the way up
// and what comes down from them.
func legFlows(fl []render.ZoomFlow, z *scenarios.FabricZoom, l collective.Leg, round, k, i int, in func(int) int, p float64) []render.ZoomFlow {
	add := func(to int) { fl = append(fl, render.ZoomFlow{From: i, To: in(to), Kind: string(l.Kind), Progress: p}) }
	switch l.Kind {
	case collective.LegReduceScatter, collective.LegAllGather:
		switch {
		case l.Node:
			nf := k / z.PerNode * z.PerNode
			add(nf + (k-nf+1)%z.PerNode)
		case l.Across && z.Algo == collective.Hierarchical:
			fl = append(fl, render.ZoomFlow{From: i, To: -1, Kind: string(l.Kind), Progress: p})
		default:
			gf := k / z.Group * z.Group
			add(gf + (k-gf+1)%z.Group)
		}
	case collective.LegAllToAll:
		add((k + round) % z.Ranks)
	case collective.LegTreeUp, collective.LegTreeStream, collective.LegTreeDown:
		for _, second := range [2]bool{false, true} {
			par := collective.TreeParent(z.Ranks, k, second)
			if par < 0 {
				continue
			}
			if l.Kind != collective.LegTreeDown {
				add(par)
			}
			if l.Kind != collective.LegTreeUp {
				if j := in(par); j >= 0 {
					fl = append(fl, render.ZoomFlow{From: j, To: i, Kind: string(l.Kind), Progress: p})
				} else {
					fl = append(fl, render.ZoomFlow{From: i, To: -1, Kind: string(l.Kind), Progress: 1 - p})
				}
			}
		}
	}
	return fl
}

func fabricGPUView(r *scenarios.FabricRun, z *scenarios.FabricZoom, g int, t float64, f Frame) render.ZoomGPUView {
	w := f.words()
	d := func(s float64) string { return units.LocalDuration(w.Lang, s) }
	mo := r.ZoomAt(g, t)
	done := t >= z.Seconds
	v := render.ZoomGPUView{Width: f.Width, Height: f.Height, Stage: f.Stage, Scale: f.Scale, Theme: f.Theme, Words: w,
		Crumbs: zoomCrumbs(w, scenarios.ZoomGPU, g/z.PerNode, g),
		Title:  w.Say("canvas.zoom.s.gpu_title_fabric", "gpu", strconv.Itoa(g), "name", z.GPU.Name, "what", fabricWhat(w, r, z)),
		Time:   t, Current: -1, GPU: z.GPU.Name, StripKey: "canvas.zoom.s.strip_fabric",
		Doing: w.Say("canvas.zoom.s.doing_at", "what", fabricDoing(w, mo, done), "t", d(t))}
	span := func(label string, a, b float64) {
		if b > a {
			if t >= a && t < b {
				v.Current = len(v.Strip)
			}
			v.Strip = append(v.Strip, render.ZoomSpan{Label: label, Activity: render.ZoomComm, Comm: true, Start: a, End: b})
		}
	}
	b := units.Bytes(z.Bytes)
	if recv, links, _, end, ok := fabricP2P(r, z); ok {
		if len(end) == 2 {
			lo, hi := min(end[0], end[1]), max(end[0], end[1])
			slow := links[0]
			if end[1] > end[0] {
				slow = links[1]
			}
			span(w.Say("canvas.zoom.s.span_race_both"), 0, lo)
			span(w.Say("canvas.zoom.s.span_race_alone", "link", slow), lo, hi)
		} else {
			span(zsay(w, "canvas.zoom.s.span_", "send"), 0, end[0])
		}
		switch {
		case g == 0 && len(recv) == 2:
			v.Kernel = w.Say("canvas.zoom.s.kernel_p2p_two", "bytes", b, "to", strconv.Itoa(recv[0]), "link", links[0], "t1", d(end[0]),
				"to2", strconv.Itoa(recv[1]), "link2", links[1], "t2", d(end[1]))
		case g == 0:
			v.Kernel = w.Say("canvas.zoom.s.kernel_p2p_one", "bytes", b, "to", strconv.Itoa(recv[0]), "link", links[0], "t1", d(end[0]))
		}
		for j, to := range recv {
			if g == to {
				v.Kernel = w.Say("canvas.zoom.s.kernel_p2p_recv", "bytes", b, "link", links[j], "t1", d(end[j]))
			}
		}
		v.Note = w.Say("canvas.zoom.s.note_dma")
		if v.Kernel == "" {
			v.Note = w.Say("canvas.zoom.s.note_idle_p2p", "to", strconv.Itoa(recv[len(recv)-1]))
		}
		return v
	}
	if r.View == scenarios.ViewContention {
		t1, t2 := r.Contention[0].Seconds, r.Contention[1].Seconds
		span(w.Say("canvas.zoom.s.span_a2a_1"), 0, t1)
		span(w.Say("canvas.zoom.s.span_a2a_2"), t1, t2)
		tr := r.Trees[1]
		n := scenarios.ContentionGPUs
		cross := float64(n-tr.NodesPerLeaf) / float64(n) * z.Bytes // to the GPUs under the other leaves
		v.Kernel = w.Say("canvas.zoom.s.kernel_a2a", "bytes", units.Bytes(float64(n-1)/float64(n)*z.Bytes), "n", strconv.Itoa(n-1), "cross", units.Bytes(cross))
		_, busy := nicBusy(r, g)
		v.Note = w.Say("canvas.zoom.s.note_a2a", "a", units.Percent(busy[0]), "t1", d(t1), "b", units.Percent(busy[1]), "t2", d(t2))
		return v
	}
	// The legs as the strip: a span a round where they are few, else a
	// span a leg; stretched onto the step's clock.
	s := z.Stretch()
	rounds := 0
	for _, l := range z.Legs {
		rounds += l.Rounds
	}
	for _, l := range z.Legs {
		lab := zsay(w, "canvas.zoom.s.span_", string(l.Kind))
		if rounds > 48 {
			span(lab, l.Start*s, l.End*s)
			continue
		}
		for j := range l.Rounds {
			a := l.Start + float64(j)*l.Round()
			span(lab, a*s, (a+l.Round())*s)
		}
	}
	if r.Rack != nil && r.View == scenarios.ViewRack {
		// The other system on the same axis: still at it.
		o := r.Rack.Systems[1]
		if o.Seconds > z.Seconds {
			v.Strip = append(v.Strip, render.ZoomSpan{Label: w.Say("canvas.zoom.s.span_other", "other", scenarios.RackShortName(w.Lang, o)),
				Start: z.Seconds, End: o.Seconds})
		}
	}
	li, round := collective.LegAt(z.Legs, t/s)
	switch {
	case !mo.Member:
		v.Note = w.Say("canvas.zoom.s.note_outside", "tp", strconv.Itoa(z.Group), "groups", strconv.Itoa(z.Ranks/z.Group), "last", strconv.Itoa(z.Ranks/z.Group*z.Group-1))
		return v
	case li < 0 || li >= len(z.Legs):
		v.Note = w.Say("canvas.zoom.s.note_wait_ring")
		if done {
			v.Note = w.Say("canvas.zoom.s.note_done", "t", d(z.Seconds))
			if r.Rack != nil {
				o := r.Rack.Systems[1]
				v.Note = w.Say("canvas.zoom.s.note_done_rack", "t", d(z.Seconds), "other", scenarios.RackShortName(w.Lang, o), "t2", d(o.Seconds))
			}
		}
		return v
	}
	l := z.Legs[li]
	v.Doing = w.Say("canvas.zoom.s.doing_round", "t", d(t), "phase", legLabel(w, z, l, false), "round", strconv.Itoa(round), "rounds", units.Count(int64(l.Rounds)))
	link := z.Intra.Name
	if l.Across {
		link = z.Inter.Name
	}
	if l.Bytes == 0 {
		v.Kernel = w.Say("canvas.zoom.s.kernel_fill", "link", link, "lat", d(l.Latency*s))
	} else {
		// Latency- or bandwidth-bound: the whole collective's α against
		// its β (a ring's every round in the same ratio).
		bound := "canvas.zoom.s.bound_bandwidth"
		if z.Form.Latency > z.Form.Bandwidth {
			bound = "canvas.zoom.s.bound_latency"
		}
		lat, key := l.Latency, "canvas.zoom.s.kernel_round"
		if l.Kind == collective.LegTreeStream {
			lat, key = z.Form.Latency, "canvas.zoom.s.kernel_stream"
		}
		v.Kernel = w.Say(key, "bytes", units.Bytes(l.Bytes), "link", link, "lat", d(lat*s), "bw", d(l.Bandwidth*s), "bound", w.Say(bound))
	}
	switch mo.Kernel {
	case scenarios.KernelReduce:
		reduceCounts(&v, z.GPU, l.Bytes)
		if l.Bytes == 0 {
			v.Note = w.Say("canvas.zoom.s.note_fill")
		}
	case scenarios.KernelCopy:
		v.Note = w.Say("canvas.zoom.s.note_copy")
		if l.Kind != collective.LegAllGather {
			v.Note = w.Say("canvas.zoom.s.note_tree_down")
		}
	default:
		v.Note = w.Say("canvas.zoom.s.note_a2a_round", "to", strconv.Itoa((g+round)%z.Ranks), "from", strconv.Itoa((g-round+z.Ranks)%z.Ranks))
	}
	return v
}
