package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/moe"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The mixture-of-experts lesson (issue 18) is of the kind moe: a step is
// one MoE layer routing one batch (engine/moe), drawn as the router's fan
// of tokens into experts or as the experts placed on the GPUs of nodes
// with the dispatch all-to-all in flight.

// MoE views: the router's fan is the kind's picture; placement shows the
// experts on the cluster's GPUs and the dispatch on NVLink and InfiniBand.
const ViewPlacement = "placement"

// MoEModels are the mixtures of experts the lesson routes (engine/model
// presets).
var MoEModels = []string{"mixtral-8x7b", "deepseek-v3"}

// MoEGPUs are the GPUs the lesson's nodes hold: the NVLink inside a node
// is theirs; InfiniBand NDR joins the nodes.
var MoEGPUs = map[string]string{"h100": "nvlink4", "h800": "nvlink4-h800"}

// MoEGPUsPerNode is the GPUs a node holds (an HGX board).
const MoEGPUsPerNode = 8

// MoEInter is the network between the nodes.
const MoEInter = "ib-ndr"

// RouteRun is a moe step: the routed batch and the model it belongs to.
type RouteRun struct {
	View    string // "" (the router's fan) or ViewPlacement
	ModelID string
	GPU     string
	Model   model.Transformer
	Result  moe.Result
	end     sim.Time
	layer   *MoELayer // the zoom's (ZoomLayer)
}

// End is the dispatch's time: the step plays the copies travelling.
func (r *RouteRun) End() sim.Time { return r.end }

// Mark knows start and end.
func (r *RouteRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.end) }

// RouteConfig reads a moe lesson's knobs (or gpuscope route's flags,
// under the same names): the model's experts, top-k and width, and the
// batch, router and placement.
func RouteConfig(c Config) (moe.Config, model.Transformer, error) {
	get := func(name, def string) string {
		if v, ok := c[name]; ok && v != "" {
			return v
		}
		return def
	}
	id := get("model", "mixtral-8x7b")
	m, ok := model.Preset(id)
	if !ok || m.Experts == 0 {
		return moe.Config{}, m, inputError("error.enum", "model", id, "allowed", listArg(MoEModels))
	}
	gpu := get("gpu", "h100")
	intraID, ok := MoEGPUs[gpu]
	if !ok {
		return moe.Config{}, m, inputError("error.enum", "gpu", gpu, "allowed", listArg([]string{"h100", "h800"}))
	}
	intra, _ := hw.LinkByID(intraID)
	inter, _ := hw.LinkByID(MoEInter)
	num := func(name, def string) float64 {
		v, err := strconv.ParseFloat(get(name, def), 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	ep, _ := strconv.Atoi(get("ep", "8"))
	if ep < 1 || m.Experts%ep != 0 {
		var div []string
		for d := 1; d <= m.Experts && d <= 1024; d++ {
			if m.Experts%d == 0 {
				div = append(div, strconv.Itoa(d))
			}
		}
		return moe.Config{}, m, inputError("error.enum", "ep", get("ep", "8"), "allowed", listArg(div))
	}
	if cf := num("capacity_factor", "0"); cf != 0 && !(cf >= 1 && cf <= 16) {
		return moe.Config{}, m, inputError("error.capacity_factor", "capacity_factor", get("capacity_factor", "0"))
	}
	tokens, _ := strconv.Atoi(get("tokens", "4096"))
	seed, _ := strconv.ParseUint(get("seed", "1"), 10, 64)
	mc := moe.Config{Experts: m.Experts, TopK: m.TopK, Tokens: tokens, Hidden: m.Hidden,
		Skew: num("skew", "0"), CapacityFactor: num("capacity_factor", "0"),
		EP: ep, GPUsPerNode: MoEGPUsPerNode, Intra: intra, Inter: inter, Seed: seed}
	return mc, m, mc.Validate()
}

// Route is gpuscope route: the batch c's knobs describe, routed.
func Route(c Config) (*RouteRun, error) { return routeRun(Step{}, c) }

func routeRun(st Step, c Config) (*RouteRun, error) {
	mc, m, err := RouteConfig(c)
	if err != nil {
		return nil, err
	}
	res, err := moe.Route(mc)
	if err != nil {
		return nil, err
	}
	r := &RouteRun{ModelID: c["model"], GPU: c["gpu"], Model: m, Result: res, end: sim.FromSeconds(res.DispatchS)}
	if r.ModelID == "" {
		r.ModelID = MoEModels[0]
	}
	if r.GPU == "" {
		r.GPU = "h100"
	}
	if slices.Contains(st.Show, ViewPlacement) {
		r.View = ViewPlacement
	}
	return r, nil
}

// RouteLesson is the moe lessons' engine part.
type RouteLesson struct{}

func prepareMoE(s *Scenario, cfg Config) (*Lesson, error) {
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: RouteLesson{}}
	if err := les.stepWindowsOf(func(st Step, c Config) (Run, error) { return routeRun(st, c) }); err != nil {
		return nil, err
	}
	return les, nil
}

// RouteMetrics are gpuscope route's numbers: the batch's routing and
// all-to-all (moe.Metrics) and the model's parameters.
type RouteMetrics struct {
	Model        string  `json:"model"`
	Params       float64 `json:"params"`
	ActiveParams float64 `json:"active_params"`
	moe.Metrics
	Command string `json:"command"`
}

// Metrics are the run's numbers under gpuscope route's names.
func (r *RouteRun) Metrics() RouteMetrics {
	c := r.Result.Config
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return RouteMetrics{Model: r.ModelID, Params: r.Model.Params(), ActiveParams: r.Model.ActiveParams(), Metrics: r.Result.Metrics(),
		Command: fmt.Sprintf("gpuscope route --model %s --gpu %s --tokens %d --ep %d --skew %s --capacity-factor %s --seed %d --json",
			r.ModelID, r.GPU, c.Tokens, c.EP, g(c.Skew), g(c.CapacityFactor), c.Seed)}
}

func (RouteLesson) metrics(les *Lesson, step int) any {
	return les.Steps[step-1].Run.(*RouteRun).Metrics()
}

func routeNarration(r *RouteRun, lang string) []string {
	m := r.Metrics()
	c := r.Result.Config
	dur := localDuration(lang)
	nodes := (c.EP + c.GPUsPerNode - 1) / c.GPUsPerNode
	return []string{
		"model", ModelName(lang, r.Model),
		"params", ParamCount(lang, m.Params), "active", ParamCount(lang, m.ActiveParams),
		"active_share", units.Percent(m.ActiveParams / m.Params),
		"experts", count(c.Experts), "top_k", count(c.TopK),
		"tokens", count(c.Tokens), "all_tokens", count(c.Tokens * c.EP), "copies", count(m.Copies),
		"ep", count(c.EP), "nodes", count(nodes), "per_gpu", count(c.Experts / c.EP),
		"mean_load", count(int(math.Round(m.MeanLoad))), "max_load", count(m.MaxLoad),
		"imbalance", units.Ratio(lang, m.Imbalance),
		"capacity_factor", strconv.FormatFloat(c.CapacityFactor, 'g', -1, 64),
		"capacity", count(m.Capacity), "expert_capacity", count(r.Result.ExpertCapacity()),
		"dropped", count(m.Dropped), "dropped_share", units.Percent(m.DroppedShare),
		"padded", count(m.Padded), "padded_share", units.Percent(m.PaddedShare),
		"bytes", units.Bytes(m.DispatchBytes), "inter_share", units.Percent(m.InterNodeShare),
		"intra", linkName(lang, c.Intra), "inter", linkName(lang, c.Inter),
		"intra_time", dur(m.IntraS), "inter_time", dur(m.InterS),
		"dispatch_time", dur(m.DispatchS), "layer_time", dur(m.LayerS),
	}
}

func (RouteLesson) narration(les *Lesson, step int, lang string) []string {
	return routeNarration(les.Steps[step-1].Run.(*RouteRun), lang)
}

func (RouteLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*RouteRun)
	m := r.Metrics()
	dur := localDuration(lang)
	row := func(key, v string) TableRow {
		src := ""
		if i18n.Has(i18n.Fallback, "source.moe."+key) {
			src = t("source.moe." + key)
		}
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{v}, Source: src}
	}
	rows := []TableRow{
		row("params", ParamCount(lang, m.Params)),
		row("active_params", ParamCount(lang, m.ActiveParams)),
		row("copies", count(m.Copies)),
		row("mean_load", count(int(math.Round(m.MeanLoad)))),
		row("max_load", count(m.MaxLoad)),
	}
	if m.Capacity > 0 {
		rows = append(rows, row("capacity", count(m.Capacity)),
			row("dropped", paren(lang, count(m.Dropped), units.Percent(m.DroppedShare))),
			row("padded", paren(lang, count(m.Padded), units.Percent(m.PaddedShare))))
	}
	if r.Result.EP > 1 {
		rows = append(rows, row("dispatch_bytes", units.Bytes(m.DispatchBytes)),
			row("inter_node_share", units.Percent(m.InterNodeShare)),
			row("intra_node_s", dur(m.IntraS)), row("inter_node_s", dur(m.InterS)),
			row("layer_s", dur(m.LayerS)))
	}
	return Table{Columns: []string{t("ui.metric"), t("ui.value")}, ColumnKeys: []string{"batch"}, Current: "batch", Rows: rows}
}

func (RouteLesson) live(*Lesson, int, sim.Time, string) string { return "" }
