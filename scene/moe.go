package scene

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/moe"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The mixture-of-experts pictures: the router's fan, and the experts on
// the cluster with a dispatch in flight.

// routeTokenChips is the most tokens the fan draws one by one; a larger
// batch is drawn by GPU.
const routeTokenChips = 64

// routeSourceGPUs is the most GPUs the fan draws as sources.
const routeSourceGPUs = 8

// moeCache is what the mixture-of-experts pictures make once a run: the
// fan's sources, lines and loads, the placement's shades and bytes, and
// their words in the language they were made for.
type moeCache struct {
	run     *scenarios.RouteRun
	router  render.RouterView
	place   render.PlacementView
	lang    string
	scratch render.List
}

func buildMoE(p *Picture, dst render.List, m Moment, f Frame) render.List {
	run := m.StepRun().Run.(*scenarios.RouteRun)
	c := &p.moe
	w := f.words()
	if c.run != run {
		*c = moeCache{run: run, scratch: c.scratch, router: routerView(run), place: placementView(run)}
	}
	if c.lang != w.Lang {
		c.lang = w.Lang
		routerWords(&c.router, run, w)
		placementWords(&c.place, run, w)
	}
	t, frac := m.window()
	if run.View == scenarios.ViewPlacement {
		v := c.place
		v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.Width, f.Height, f.Stage, f.Scale, f.Theme, w
		v.Time = t
		return render.AppendPlacement(dst, v, &c.scratch)
	}
	v := c.router
	v.Width, v.Height, v.Stage, v.Scale, v.Theme, v.Words = f.Width, f.Height, f.Stage, f.Scale, f.Theme, w
	v.Frac = frac
	v.Pending = m.Pending
	if t >= 0 {
		v.Clock = w.Say("canvas.clock", "t", units.Duration(t))
	}
	return render.AppendRouter(dst, v)
}

// routerView is a run's fan: its tokens (a small batch) or GPUs, the
// lines from them to the experts, and the experts' loads.
func routerView(run *scenarios.RouteRun) render.RouterView {
	r := &run.Result
	E, k := r.Experts, r.TopK
	all := r.Tokens * r.EP
	v := render.RouterView{Load: r.Load, Kept: r.KeptLoad, ExpertCapacity: r.ExpertCapacity(), Mean: r.MeanLoad(),
		ActiveShare: run.Model.ActiveParams() / run.Model.Params(), Buffers: r.EP}
	if r.EP > 1 && E <= 64 {
		v.ExpertGPU = make([]int, E)
		for e := range E {
			v.ExpertGPU[e] = r.GPUOf(e)
		}
	}
	if all <= routeTokenChips {
		v.Tokens = true
		v.Sources = make([]render.RouterSource, all)
		for t := range all {
			v.Sources[t].Group = r.SourceOf(t)
		}
		for t := range all {
			for j := range k {
				i := t*k + j
				v.Copies = append(v.Copies, render.RouterCopy{Source: t, Expert: int(r.Routes[i]), Count: 1, Dropped: !r.Kept[i], At: float64(t+1) / float64(all)})
			}
		}
		return v
	}
	v.KeptBy, v.DroppedBy = arrivals(r)
	gpus := min(r.EP, routeSourceGPUs)
	if E > 32 {
		gpus = 1 // a line per expert from one GPU; more would be a blur
	}
	v.Sources = make([]render.RouterSource, gpus)
	for g := range gpus {
		counts := make([]int, E)
		dropped := make([]int, E)
		for i := g * r.Tokens * k; i < (g+1)*r.Tokens*k; i++ {
			counts[r.Routes[i]]++
			if !r.Kept[i] {
				dropped[r.Routes[i]]++
			}
		}
		for e, n := range counts {
			if n > 0 {
				v.Copies = append(v.Copies, render.RouterCopy{Source: g, Expert: e, Count: n * r.EP, Dropped: dropped[e]*2 > n, At: 1})
			}
		}
	}
	return v
}

// arrivalSamples is how many shares of a dispatch the fan's bars are
// sampled at (and linear between).
const arrivalSamples = 128

// arrivals are, for a batch drawn by GPU, each expert's copies kept and
// dropped by each sampled share of the dispatch, as the engine routed
// them: every GPU sends its tokens in order, all GPUs at once, and a copy
// is dropped only once its GPU's buffer for the expert is full (moe.Route
// keeps r.Kept in that order) — so an expert's bar turns red no sooner
// than a buffer fills, not in proportion from the start.
func arrivals(r *moe.Result) (kept, dropped [][]float64) {
	E, k, T := r.Experts, r.TopK, r.Tokens
	kept, dropped = make([][]float64, E), make([][]float64, E)
	for e := range E {
		kept[e], dropped[e] = make([]float64, arrivalSamples+1), make([]float64, arrivalSamples+1)
	}
	for i, e := range r.Routes {
		j := (i % (T * k)) / k // the token's place in its GPU's batch
		// It has arrived from the first sample at or after (j+1)/T.
		b := (arrivalSamples*(j+1) + T - 1) / T
		if r.Kept[i] {
			kept[e][b]++
		} else {
			dropped[e][b]++
		}
	}
	for e := range E {
		for b := 1; b <= arrivalSamples; b++ {
			kept[e][b] += kept[e][b-1]
			dropped[e][b] += dropped[e][b-1]
		}
	}
	return kept, dropped
}

func routerWords(v *render.RouterView, run *scenarios.RouteRun, w render.Words) {
	r := &run.Result
	lang := w.Lang
	name := scenarios.ModelName(lang, run.Model)
	all := r.Tokens * r.EP
	v.Title = w.Say("canvas.router.title", "model", name, "tokens", units.Count(int64(all)), "top_k", strconv.Itoa(r.TopK), "experts", strconv.Itoa(r.Experts))
	v.ParamsLabel = w.Say("canvas.router.params", "params", scenarios.ParamCount(lang, run.Model.Params()))
	v.ActiveLabel = w.Say("canvas.router.active", "active", scenarios.ParamCount(lang, run.Model.ActiveParams()), "share", units.Percent(v.ActiveShare))
	switch {
	case v.Tokens:
		v.SourceNote = w.Say("canvas.router.tokens")
	case len(v.Sources) < r.EP:
		v.SourceNote = w.Say("canvas.router.some_gpus", "n", strconv.Itoa(len(v.Sources)), "gpus", strconv.Itoa(r.EP))
	default:
		v.SourceNote = w.Say("canvas.router.gpus", "n", units.Count(int64(r.Tokens)))
	}
	v.Said = render.MakeRouterWords(*v, w)
	for i := range v.Sources {
		g := i
		if v.Tokens {
			g = v.Sources[i].Group
		}
		v.Sources[i].Label = w.Say("canvas.router.gpu", "n", strconv.Itoa(g))
	}
}

// placementView is a run's experts on its GPUs, shaded by load, and GPU
// 0's bytes to each GPU in one dispatch.
func placementView(run *scenarios.RouteRun) render.PlacementView {
	r := &run.Result
	v := render.PlacementView{GPUs: r.EP, GPUsPerNode: r.GPUsPerNode, Load: make([]float64, r.Experts), Bytes: make([]float64, r.EP),
		Shared: run.Model.SharedFFN > 0}
	mean := r.MeanLoad()
	for e, n := range r.KeptLoad {
		v.Load[e] = float64(n) / mean
	}
	r.SentFrom(0, v.Bytes)
	v.Bytes[0] = 0 // its own experts' copies stay
	lane := func(l float64, s float64, bw float64) render.RaceLane {
		return render.RaceLane{Rated: true, Bandwidth: bw, Latency: l, Seconds: s}
	}
	v.Lanes[0] = lane(r.Intra.Latency.Seconds(), r.IntraS, r.Intra.Bandwidth)
	v.Lanes[1] = lane(r.Inter.Latency.Seconds(), r.InterS, r.Inter.Bandwidth)
	v.Lanes[0].Name, v.Lanes[1].Name = r.Intra.Name, r.Inter.Name
	return v
}

func placementWords(v *render.PlacementView, run *scenarios.RouteRun, w render.Words) {
	r := &run.Result
	lang := w.Lang
	nodes := (r.EP + r.GPUsPerNode - 1) / r.GPUsPerNode
	v.Title = w.Say("canvas.placement.title", "model", scenarios.ModelName(lang, run.Model), "experts", strconv.Itoa(r.Experts),
		"gpus", strconv.Itoa(r.EP), "nodes", strconv.Itoa(nodes), "per", strconv.Itoa(r.Experts/r.EP))
	var in, out float64
	for g := range r.EP {
		in = max(in, r.SendIntra[g], r.RecvIntra[g])
		out = max(out, r.SendInter[g], r.RecvInter[g])
	}
	v.KeyLoad = w.Say("canvas.placement.key_load")
	if v.Shared {
		v.KeyShared = w.Say("canvas.placement.key_shared")
	}
	v.NodeNames = make([]string, nodes)
	for n := range nodes {
		v.NodeNames[n] = w.Say("canvas.placement.node", "n", strconv.Itoa(n))
	}
	v.RaceTitle = w.Say("canvas.placement.race", "intra", units.Bytes(in), "inter", units.Bytes(out))
}
