package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The rack-scale-nvlink pictures: 72 GPUs as one NVL72 rack and as nine
// nodes, an operation raced on both; the TP ceiling.

// rackCache is a rack step's views, worded once a run and language.
type rackCache struct {
	run     *scenarios.RackRun
	view    scenarios.FabricRun
	lang    string
	rack    render.RackView
	ceiling render.CeilingView
}

func (p *Picture) buildRack(dst render.List, run *scenarios.FabricRun, f Frame, t float64) render.List {
	w := f.words()
	c := &p.rack
	if c.run != run.Rack || c.lang != w.Lang || c.view.View != run.View || c.view.Bytes != run.Bytes {
		*c = rackCache{run: run.Rack, view: *run, lang: w.Lang}
		rackWords(c, run, w)
	}
	if run.View == scenarios.ViewCeiling {
		v := c.ceiling
		v.Width, v.Height, v.Stage, v.Scale, v.Theme = f.Width, f.Height, f.Stage, f.Scale, f.Theme
		return render.AppendCeiling(dst, v)
	}
	v := c.rack
	v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.Width, f.Height, f.Stage, f.Scale, f.Theme, w
	v.Time = t
	return render.AppendRack(dst, v, &p.scratch)
}

// rackWords words a rack step's views in w.
func rackWords(c *rackCache, run *scenarios.FabricRun, w render.Words) {
	rr := run.Rack
	lang := w.Lang
	bytes := units.Bytes(run.Bytes)
	gpus := strconv.Itoa(scenarios.RackGPUs)
	var names [2]string
	for i, s := range rr.Systems {
		names[i] = scenarios.RackShortName(lang, s)
	}
	if run.View == scenarios.ViewCeiling {
		v := render.CeilingView{Title: w.Say("canvas.ceiling.title", "bytes", bytes), Degrees: scenarios.RackTP, Names: names,
			Crosses: w.Say("canvas.ceiling.crosses"), Axis: w.Say("canvas.ceiling.axis")}
		for i, s := range rr.Systems {
			v.Domains[i] = s.Domain
			v.Seconds[i] = s.TPSeconds
			v.Edges[i] = w.Say("canvas.ceiling.edge", "name", names[i], "k", strconv.Itoa(s.Domain))
		}
		c.ceiling = v
		return
	}
	v := render.RackView{GPUs: scenarios.RackGPUs, Send: rr.Op == scenarios.RackSend,
		Title:    w.Say("canvas.rack.title_"+rr.Op, "bytes", bytes, "gpus", gpus, "last", strconv.Itoa(scenarios.RackGPUs-1)),
		Keys:     [4]string{w.Say("canvas.rack.key_nvlink"), w.Say("canvas.rack.key_ib"), w.Say("canvas.rack.key_switch"), w.Say("canvas.rack.key_fill")},
		IBSwitch: w.Say("canvas.rack.ib_switch"), RaceTitle: w.Say("canvas.rack.race")}
	for i, s := range rr.Systems {
		pn := render.RackPanel{Domain: s.Domain, NVLink: s.NVLinkBytes > 0, NIC: s.NICBytes > 0,
			Lane: render.RaceLane{Name: names[i], Seconds: s.Seconds, Latency: s.Intra.Latency.Seconds()}}
		if s.NICBytes > 0 {
			pn.Lane.Latency = s.Inter.Latency.Seconds()
		}
		link := scenarios.LinkShort(lang, s.Intra)
		if s.Domain >= scenarios.RackGPUs {
			pn.Name = w.Say("canvas.rack.name_rack", "gpus", gpus)
			pn.Links = w.Say("canvas.rack.links_rack", "link", link, "bw", units.Rate(s.Intra.Bandwidth), "bw2", units.Rate(2*s.Intra.Bandwidth))
		} else {
			pn.Name = w.Say("canvas.rack.name_nodes", "nodes", strconv.Itoa(scenarios.RackGPUs/s.Domain), "k", strconv.Itoa(s.Domain), "gpu", s.GPU.Name)
			pn.Links = w.Say("canvas.rack.links_nodes", "link", link, "bw", units.Rate(s.Intra.Bandwidth), "ib", scenarios.LinkShort(lang, s.Inter), "ibw", units.Rate(s.Inter.Bandwidth))
		}
		switch tot := s.NVLinkBytes + s.NICBytes; {
		case s.NICBytes == 0:
			pn.Note = w.Say("canvas.rack.note_none")
		case tot > 0:
			pn.Note = w.Say("canvas.rack.note", "share", units.Percent(s.NICBytes/tot))
		}
		v.Panels[i] = pn
	}
	c.rack = v
}
