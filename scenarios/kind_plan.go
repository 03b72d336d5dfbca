package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The strategy lessons (issue 5) are of the kind plan: a step is a
// parallel plan evaluated by engine/parallel, and the picture a step shows
// is named by its show: line.

// Plan views: the picture of a strategy step.
const (
	ViewMemory    = "memory"    // stacked memory bars per pipeline stage against the GPU's capacity
	ViewTimeline  = "timeline"  // the step's pipeline schedule, block by block, with memory over time
	ViewSchedules = "schedules" // GPipe, 1F1B and interleaved for the same p and m
	ViewCluster   = "cluster"   // the GPUs in nodes, grouped by TP, PP or DP, collectives on links
	ViewTPMatrix  = "tp-matrix" // one MLP split over two GPUs with real small matrices
	ViewZeRO      = "zero"      // memory bars for ZeRO stages 0–3 side by side
	ViewRecompute = "recompute" // timelines and memory with no, selective and full recomputation
	ViewAccum     = "accumulation"
	ViewPlanner   = "planner" // the decision tree and the ranked plans
	ViewBudget    = "budget"  // the seed's step budget and Amdahl's law
	ViewSeed      = "seed-memory"
	// ViewEP compares a mixture of experts' plan without expert
	// parallelism, with it inside a node and with the step's EP: three
	// time lines on one axis and their memory on one scale.
	ViewEP = "ep"
	// The long-context lesson's: memory against sequence length, the
	// sequence dealt to a context-parallel group, and how its GPUs get
	// each other's keys and values.
	ViewSeqSweep   = "seq-sweep"
	ViewCPSplit    = "cp-split"
	ViewCPExchange = "cp-exchange"
)

var planViews = []string{ViewMemory, ViewTimeline, ViewSchedules, ViewCluster, ViewTPMatrix, ViewZeRO, ViewRecompute, ViewEP,
	ViewAccum, ViewPlanner, ViewBudget, ViewSeed, ViewSeqSweep, ViewCPSplit, ViewCPExchange, ViewScale}

// SweepFrom is where a seq-sweep step's sequences start: they double
// from it to the step's sequence, or to 131,072 tokens (Llama 3's long
// context) if that is longer.
const SweepFrom, SweepTo = 8192, 131072

// MaxDrawnBlocks is the most forward and backward blocks a time line step
// draws for a plan the reader sets: 2 × pp × micro-batches × v. At 8,192
// a frame stays within the page's 4 ms in headless Chromium (make bench:
// 16 stages of 256 micro-batches 3.1 ms, 64 of 64 2.9 ms, 128 of 32
// 2.6 ms; at 16,384 blocks, 64 stages, 5.3 ms); more blocks than pixel
// columns cannot be seen anyway.
const MaxDrawnBlocks = 8192

// ClusterModes are the colourings (and collectives) a cluster step may
// show: by TP group, pipeline stage or data-parallel replica.
var ClusterModes = []string{"tp", "pp", "dp"}

// TPMatrixParts are the halves of the MLP a tp-matrix step may show:
// X·A cut by columns, or Y·B cut by rows and the all-reduce.
var TPMatrixParts = []string{"columns", "rows"}

// PlannerParts narrow a planner step to one part: the decision tree.
var PlannerParts = []string{"tree"}

// PlanTimeline is one schedule drawn by a timeline step.
type PlanTimeline struct {
	Label    string
	Result   parallel.Result
	Timeline parallel.Timeline
	// ActBytes is what one chunk-micro-batch's activations take on a
	// stage (for the memory-over-time chart).
	ActBytes []float64
}

// PlanBar is one labelled memory bar, with its configuration's step time
// where the step compares configurations.
type PlanBar struct {
	Label  string
	Memory parallel.Memory
	Time   parallel.Time
}

// PlanRun is a strategy lesson step.
type PlanRun struct {
	Config    parallel.Config
	Result    parallel.Result
	View      string
	ColourBy  string // cluster view: tp, pp or dp
	Timelines []PlanTimeline
	Bars      []PlanBar
	Search    *parallel.SearchResult
	Rank      int // the planner lesson's rank knob (1-based), 0 elsewhere
	Budget    []parallel.Budget
	// Exchange is a cp-exchange step's layer: its K/V traffic and
	// attention on one GPU.
	Exchange parallel.CPLayer
	// Scale is a scale step's curve and published points (its Config and
	// Result are the curve's last plan).
	Scale *ScaleRun
	end   sim.Time
	// The zoom's activity, made on first use (Activity).
	zoomed bool
	act    *parallel.StepActivity
	actTL  parallel.Timeline
}

// End is the length of the step's picture: its longest time line's —
// the step time, the schedule with its all-reduce and update — else a
// second for the animation of collectives, the matrix phases or bytes
// filling memory.
func (r *PlanRun) End() sim.Time { return r.end }

// Mark knows start and end.
func (r *PlanRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.end) }

// PlanConfig turns a strategy lesson's knobs into an engine configuration.
// Knobs a lesson does not declare take these defaults: model seed-100b,
// gpu h100, tp = pp = 1, dp the rest of gpus, 1F1B (interleaved when
// interleave > 1), ZeRO 0, selective recomputation, micro-batch 1, as many
// micro-batches as 4·pp, sequence parallelism with TP, FlashAttention,
// overlap on, 16 bytes a parameter.
func PlanConfig(c Config) (parallel.Config, error) {
	pc, err := planConfig(c)
	if err != nil {
		return pc, err
	}
	return pc, pc.Validate()
}

// planConfig is PlanConfig without the plan's own checks: the planner
// needs only its model, cluster and global batch (global_batch), and
// takes its plan from the search.
func planConfig(c Config) (parallel.Config, error) {
	str := func(name, def string) string {
		if v, ok := c[name]; ok && v != "" {
			return v
		}
		return def
	}
	num := func(name string, def int) int {
		if _, ok := c[name]; ok {
			return c.IntOf(name)
		}
		return def
	}
	var m model.Transformer
	if id := str("model", "seed-100b"); id == "custom" {
		if num("seq", 4096) == 0 {
			c = c.Clone()
			c["seq"] = "4096" // a model of one's own trains on 4,096 tokens unless told
		}
		m = model.Transformer{ID: "custom", Name: "custom", Layers: num("layers", 32), Hidden: num("hidden", 4096),
			Heads: num("heads", 32), KVHeads: num("kv_heads", num("heads", 32)), Seq: max(1, num("seq", 4096)), Vocab: num("vocab", 32000),
			FFNSize: num("ffn", 11008), FFN: model.FFN(str("ffn_kind", "swiglu")),
			HeadSize: num("head_dim", 0), Experts: num("experts", 0), TopK: num("top_k", 0), ExpertFFN: num("expert_ffn", 0),
			SharedFFN: num("shared_ffn", 0), DenseLayers: num("dense_layers", 0)}
		m.KVLoRA, m.QLoRA, m.QKNope, m.QKRope, m.VHead, m.MTPLayers = num("kv_lora_rank", 0), num("q_lora_rank", 0),
			num("qk_nope_head_dim", 0), num("qk_rope_head_dim", 0), num("v_head_dim", 0), num("mtp_layers", 0)
		if m.Experts == 0 {
			// A dense model: the experts' sizes mean nothing.
			m.TopK, m.ExpertFFN, m.SharedFFN, m.DenseLayers = 0, 0, 0, 0
		}
		// Latent sizes without a kv_lora_rank: the engine refuses them.
		gpt := m.FFN.GPTStyle() // GPT style (GeLU, ReLU): biases, learned positions, tied embeddings
		m.Biases, m.LearnedPositions, m.Tied, m.NoDropout = gpt, gpt, gpt, !gpt
	} else {
		p, ok := model.Preset(id)
		if !ok {
			return parallel.Config{}, fmt.Errorf("model: %q; allowed %s, custom", id, strings.Join(model.PresetIDs(), ", "))
		}
		m = p
		if s := num("seq", 0); s > 0 { // 0: the preset's own
			m.Seq = s
		}
	}
	g, ok := hw.GPUByID(str("gpu", "h100"))
	if !ok {
		return parallel.Config{}, fmt.Errorf("gpu: %q; allowed %s", c["gpu"], strings.Join(hw.GPUIDs(), ", "))
	}
	tp, pp, cp := num("tp", 1), num("pp", 1), num("cp", 1)
	if cp < 1 {
		return parallel.Config{}, fmt.Errorf("cp: %d; at least 1", cp)
	}
	// A lesson may give DP instead of the GPUs: they follow.
	gpus := num("gpus", tp*cp*pp*max(1, num("dp", 1)))
	if tp < 1 || pp < 1 || gpus < 1 {
		return parallel.Config{}, fmt.Errorf("tp, pp, gpus: %d, %d, %d; each at least 1", tp, pp, gpus)
	}
	if _, planner := c["rank"]; !planner && gpus%(tp*pp) != 0 {
		return parallel.Config{}, errs.F("gpus_tp_pp", "gpus: %d not divisible by tp × pp = %d × %d", "gpus tp pp", gpus, tp, pp)
	}
	dp := max(1, gpus/(tp*cp*pp))
	cl := parallel.DefaultCluster(g, gpus)
	if v := num("gpus_per_node", 0); v > 0 {
		cl.GPUsPerNode = v
	}
	if id := str("inter", ""); id != "" {
		if l, ok := hw.LinkByID(id); ok {
			cl.Inter = l
		}
	}
	v := num("interleave", 1)
	sched := parallel.OneFOneB
	if v > 1 {
		sched = parallel.Interleaved
	}
	if s := str("schedule", ""); s != "" {
		sched = parallel.Schedule(s)
	}
	mb := num("micro_batch", 1)
	mbs := num("micro_batches", max(1, 4*pp))
	on := func(name string, def bool) bool {
		switch str(name, "") {
		case "on":
			return true
		case "off":
			return false
		}
		return def
	}
	plan := parallel.Plan{TP: tp, PP: pp, DP: dp, Interleave: v, SP: on("sp", tp > 1), ZeRO: num("zero", 0),
		Recompute: parallel.Recompute(str("recompute", "selective")), Flash: on("flash", true), MicroBatch: mb,
		GlobalBatch: mb * dp * mbs, Schedule: sched, BytesPerParam: num("bytes_per_param", 16), Dtype: hw.BF16,
		Overlap: on("overlap", true), CP: cp, CPAlgo: parallel.CPAlgo(str("cp_algo", ""))}
	if gb := num("global_batch", 0); gb > 0 {
		plan.GlobalBatch = gb
	}
	// A mixture of experts' expert parallelism and DeepSeek-V3's
	// mechanisms for it (the expert-parallel lesson's knobs).
	plan.EP = num("ep", 0)
	if d := str("dtype", ""); d != "" {
		plan.Dtype = hw.Dtype(d)
	}
	plan.NodeLimit = num("node_limit", 0)
	if d := str("dispatch_dtype", ""); d != "" {
		plan.DispatchDtype = hw.Dtype(d)
	}
	plan.BlockScaled = on("block_scaled", false)
	if on("ep_overlap", false) {
		plan.EPOverlap, plan.CommSMs = true, 20 // DeepSeek-V3's 20 of the H800's 132 SMs
	}
	return parallel.Config{Model: m, Plan: plan, Cluster: cl}, nil
}

// planView is the step's picture: the first plan view its show: line
// names, else the timeline.
func planView(st Step) string {
	for _, v := range st.Show {
		if slices.Contains(planViews, v) {
			return v
		}
	}
	return ViewTimeline
}

func planColour(st Step) string {
	for _, v := range st.Show {
		if slices.Contains(ClusterModes, v) {
			return v
		}
	}
	return "tp"
}

// timelineOf runs a result's schedule and records a chunk-micro-batch's
// activation bytes per stage.
func timelineOf(label string, r parallel.Result) (PlanTimeline, error) {
	tl, err := r.Timeline()
	if err != nil {
		return PlanTimeline{}, err
	}
	pt := PlanTimeline{Label: label, Result: r, Timeline: tl}
	for _, m := range r.StageMemory {
		per := 0.0
		if m.InFlight > 0 {
			per = m.Activations / float64(m.InFlight)
		}
		pt.ActBytes = append(pt.ActBytes, per)
	}
	return pt, nil
}

func planRun(st Step, c Config, search func(parallel.Config, bool) (*parallel.SearchResult, error)) (*PlanRun, error) {
	// The planner searches context parallelism too when asked (search_cp).
	cp := c["search_cp"] == "on"
	view := planView(st)
	var pc parallel.Config
	var err error
	if _, planner := c["rank"]; planner {
		// The planner: every view shows the plan the reader ranks.
		if pc, err = planConfig(c); err != nil {
			return nil, err
		}
		sr, err := search(pc, cp)
		if err != nil {
			return nil, err
		}
		if len(sr.Plans) == 0 {
			return nil, errs.F("no_plan", "gpus: no plan for %s fits %d × %s with a global batch of %d; add GPUs or pick a smaller model", "model gpus gpu batch", pc.Model.Name, pc.Cluster.GPUs, pc.Cluster.GPU.Name, pc.Plan.GlobalBatch)
		}
		pc = sr.Plans[min(max(0, c.IntOf("rank")-1), len(sr.Plans)-1)].Config
	} else if pc, err = PlanConfig(c); err != nil {
		return nil, err
	}
	res, err := parallel.Evaluate(pc)
	if err != nil {
		return nil, err
	}
	r := &PlanRun{Config: pc, Result: res, View: view, ColourBy: planColour(st), end: sim.Second, Rank: c.IntOf("rank")}
	if v := c["colour"]; slices.Contains(ClusterModes, v) {
		r.ColourBy = v // the sandbox's choice of colouring (and collective)
	}
	p := pc.Plan
	switch r.View {
	case ViewTimeline:
		if _, planner := c["rank"]; !planner {
			// A plan the reader sets (the sandbox's knobs are free) may
			// run a million blocks: more than the picture can show or a
			// frame can draw.
			if n := 2 * p.PP * res.MicroBatches * max(1, p.Interleave); n > MaxDrawnBlocks {
				return nil, inputError("error.timeline_blocks", "global_batch", c["global_batch"], "blocks", strconv.Itoa(n),
					"max", strconv.Itoa(MaxDrawnBlocks), "pp", strconv.Itoa(p.PP), "m", strconv.Itoa(res.MicroBatches), "v", strconv.Itoa(max(1, p.Interleave)))
			}
		}
		t, err := timelineOf(string(p.Schedule), res)
		if err != nil {
			return nil, err
		}
		r.Timelines = []PlanTimeline{t}
	case ViewSchedules:
		for _, s := range []struct {
			sched parallel.Schedule
			v     int
		}{{parallel.GPipe, 1}, {parallel.OneFOneB, 1}, {parallel.Interleaved, max(2, p.Interleave)}} {
			q := pc
			q.Plan.Schedule, q.Plan.Interleave = s.sched, s.v
			rr, err := parallel.Evaluate(q)
			if err != nil {
				continue // interleaving may not divide this model's layers or m: shown without it
			}
			label := string(s.sched)
			if s.v > 1 {
				label += " v=" + strconv.Itoa(s.v)
			}
			t, err := timelineOf(label, rr)
			if err != nil {
				continue
			}
			r.Timelines = append(r.Timelines, t)
		}
	case ViewRecompute:
		for _, rc := range []parallel.Recompute{parallel.RecomputeNone, parallel.RecomputeSelective, parallel.RecomputeFull} {
			q := pc
			q.Plan.Recompute = rc
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			t, err := timelineOf(string(rc), rr)
			if err != nil {
				return nil, err
			}
			r.Timelines = append(r.Timelines, t)
			r.Bars = append(r.Bars, PlanBar{Label: string(rc), Memory: rr.Memory, Time: rr.Time})
		}
	case ViewEP:
		eps := []int{1, min(pc.Cluster.GPUsPerNode, p.DP), max(p.EP, 1)}
		if !pc.Model.MoE() {
			eps = eps[:1] // a dense model: one plan, EP 1
		}
		for i, ep := range eps {
			if i > 0 && (ep <= eps[i-1] || p.DP%ep != 0 || pc.Model.Experts%ep != 0) {
				continue // the node's EP is the step's, or does not divide
			}
			q := pc
			q.Plan.EP = ep
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			label := "EP " + strconv.Itoa(ep)
			t, err := timelineOf(label, rr)
			if err != nil {
				return nil, err
			}
			r.Timelines = append(r.Timelines, t)
			r.Bars = append(r.Bars, PlanBar{Label: label, Memory: rr.Memory, Time: rr.Time})
		}
	case ViewZeRO:
		for z := 0; z <= 3; z++ {
			q := pc
			q.Plan.ZeRO = z
			rr, err := parallel.Evaluate(q)
			if err != nil {
				continue // ZeRO 2 and 3 with a pipeline are refused
			}
			r.Bars = append(r.Bars, PlanBar{Label: "ZeRO-" + strconv.Itoa(z), Memory: rr.Memory, Time: rr.Time})
		}
	case ViewAccum:
		for _, m := range []int{1, 2, 4, 8} {
			q := pc
			q.Plan.GlobalBatch = p.MicroBatch * p.DP * m
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			r.Bars = append(r.Bars, PlanBar{Label: "m=" + strconv.Itoa(m), Memory: rr.Memory, Time: rr.Time})
		}
		t, err := timelineOf("m="+strconv.Itoa(res.MicroBatches), res)
		if err != nil {
			return nil, err
		}
		r.Timelines = []PlanTimeline{t}
	case ViewMemory:
		for i, m := range res.StageMemory {
			r.Bars = append(r.Bars, PlanBar{Label: "stage " + strconv.Itoa(i), Memory: m})
		}
	case ViewSeed:
		psi := pc.Model.Params()
		w, opt := parallel.SeedStateBytes(psi)
		act := res.Memory.Activations * float64(p.TP*p.PP) // what the activations would be on one GPU
		bar := func(label string, weights, grads, optim, acts float64) PlanBar {
			m := parallel.Memory{Weights: weights, Gradients: grads, Optimizer: optim, Activations: acts, Capacity: float64(pc.Cluster.GPU.HBMBytes)}
			m.Total = weights + grads + optim + acts
			m.Check()
			return PlanBar{Label: label, Memory: m}
		}
		states, _ := parallel.ZeROStates(psi, 1, 0, p.BytesPerParam)
		r.Bars = []PlanBar{
			bar("fp32", 4*psi, 0, 0, 0),
			bar("bf16", w, 0, 0, 0),
			bar("+Adam", w, 0, opt, 0),
			bar("+act", w, 0, opt, act),
			bar("mixed", states.Weights, states.Gradients, states.Optimizer, act),
		}
	case ViewSeqSweep:
		// The same plan at doubling sequence lengths: model states stay,
		// activations grow.
		for seq := SweepFrom; seq <= max(SweepTo, pc.Model.Seq); seq *= 2 {
			q := pc
			q.Model.Seq = seq
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			r.Bars = append(r.Bars, PlanBar{Label: strconv.Itoa(seq), Memory: rr.Memory, Time: rr.Time})
		}
	case ViewCPSplit:
		// The same sequence over 1, 2, 4 … CP GPUs (the GPUs CP times
		// those without): activations ÷ CP.
		for cp := 1; cp <= max(1, p.CP); cp *= 2 {
			q := pc
			q.Plan.CP = cp
			q.Cluster.GPUs = p.TP * p.PP * p.DP * cp
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			r.Bars = append(r.Bars, PlanBar{Label: strconv.Itoa(cp), Memory: rr.Memory, Time: rr.Time})
		}
	case ViewCPExchange:
		// The step's plan with each K/V exchange, and one layer's forward
		// of each as the picture draws it.
		for _, a := range []parallel.CPAlgo{parallel.CPAllGather, parallel.CPRing} {
			q := pc
			q.Plan.CPAlgo = a
			rr, err := parallel.Evaluate(q)
			if err != nil {
				return nil, err
			}
			r.Bars = append(r.Bars, PlanBar{Label: string(a), Memory: rr.Memory, Time: rr.Time})
		}
		r.Exchange = parallel.CPLayerForward(pc)
	case ViewPlanner:
		sr, err := search(pc, cp)
		if err != nil {
			return nil, err
		}
		r.Search = sr
	case ViewBudget:
		b := parallel.SeedBudget(0.05)
		r.Budget = []parallel.Budget{b, b.Faster(1.2)}
	case ViewScale:
		s, err := Scale()
		if err != nil {
			return nil, err
		}
		r.Scale = &s
		last := s.Last()
		r.Config, r.Result = last.Result.Config, last.Result
	}
	// A cluster step plays one of its collective, a matrix step one layer's
	// forward on a GPU: their real times, from the engine's result.
	switch r.View {
	case ViewCluster:
		each, _, _ := r.ClusterCollective()
		r.end = sim.FromSeconds(each)
	case ViewTPMatrix:
		c, comm := r.LayerForward()
		r.end = sim.FromSeconds(c + comm)
	case ViewCPExchange:
		// One layer's forward on a GPU, the slower of the two ways.
		if l := r.Exchange; l.CP > 1 {
			r.end = sim.FromSeconds(max(l.AllGather, l.ExposedRing) + l.Attention)
		}
	}
	if len(r.Timelines) > 0 {
		longest := 0.0
		for _, t := range r.Timelines {
			longest = max(longest, t.Timeline.Length)
		}
		r.end = sim.FromSeconds(longest)
	}
	return r, nil
}

// BubbleShare is the share of a step's time line its stages stand idle
// in the pipeline's bubble (the canvas and the narration quote it).
func BubbleShare(r parallel.Result) float64 {
	if r.Time.Step <= 0 {
		return 0
	}
	return r.Time.Bubble / r.Time.Step
}

// ClusterCollective is a cluster step's collective (its ColourBy: tp,
// pp or dp) as the engine costs it: one instance on the critical stage
// (a TP all-reduce of a layer's activations, a pipeline send, the step's
// data-parallel all-reduce), its total in the step (on the critical path
// for TP and PP, all of it for DP) and, for DP, the part hidden behind
// the backward. Zeros when the plan has no such collective.
func (r *PlanRun) ClusterCollective() (each, perStep, hidden float64) {
	res, p := r.Result, r.Config.Plan
	tm := res.Time
	switch r.ColourBy {
	case "pp":
		if p.PP > 1 {
			return res.P2P, tm.PPComm, 0
		}
	case "dp":
		if p.DP > 1 {
			return tm.DPComm, tm.DPComm, tm.DPHidden
		}
	default:
		// Two all-reduces a layer forward (Evaluate's tpFwd): a stage's
		// forward share over twice its layers.
		if p.TP > 1 && len(res.StageTPForward) > 0 && len(res.StageMemory) > 0 && res.StageMemory[0].Layers > 0 {
			return res.StageTPForward[0] / float64(2*res.StageMemory[0].Layers), tm.TPComm, 0
		}
	}
	return 0, 0, 0
}

// LayerForward is one transformer layer's forward on a GPU of the first
// stage, for one micro-batch: its compute and its tensor-parallel
// all-reduces (two), seconds — the engine's stage figures over the
// stage's layers.
func (r *PlanRun) LayerForward() (compute, comm float64) {
	res := r.Result
	if len(res.StageForward) == 0 || len(res.StageMemory) == 0 || res.StageMemory[0].Layers == 0 {
		return 0, 0
	}
	L := float64(res.StageMemory[0].Layers)
	return res.StageForward[0] / L, res.StageTPForward[0] / L
}

// Selected is the planner's chosen plan among Search.Plans, 0-based: the
// rank knob, kept in range.
func (r *PlanRun) Selected() int {
	if r.Search == nil {
		return 0
	}
	return min(max(0, r.Rank-1), max(0, len(r.Search.Plans)-1))
}

// PlanLesson is the strategy lessons' engine part.
type PlanLesson struct{}

func preparePlan(s *Scenario, cfg Config) (*Lesson, error) {
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: PlanLesson{}}
	// A search is the slow part (a fraction of a second in the browser):
	// run it once per model, cluster and batch.
	searches := map[string]*parallel.SearchResult{}
	// The plans the page ranks: as many as the rank knob reaches (and
	// the 20 state() reports); the rest are counted, not ranked.
	top := 20
	if k, ok := s.Knob("rank"); ok {
		top = max(top, int(k.Max))
	}
	search := func(pc parallel.Config, cp bool) (*parallel.SearchResult, error) {
		key := fmt.Sprintf("%+v|%s|%d|%d|%d|%d|%v", pc.Model, pc.Cluster.GPU.ID, pc.Cluster.GPUs, pc.Plan.GlobalBatch, pc.Plan.BytesPerParam, pc.Cluster.GPUsPerNode, cp)
		if sr, ok := searches[key]; ok {
			return sr, nil
		}
		sr, err := parallel.Search(parallel.SearchOptions{Model: pc.Model, Cluster: pc.Cluster, GlobalBatch: pc.Plan.GlobalBatch,
			BytesPerParam: pc.Plan.BytesPerParam, Dtype: pc.Plan.Dtype, Flash: pc.Plan.Flash, CP: cp, Top: top})
		if err != nil {
			return nil, err
		}
		searches[key] = &sr
		return &sr, nil
	}
	if err := les.stepWindowsOf(func(st Step, c Config) (Run, error) { return planRun(st, c, search) }); err != nil {
		return nil, err
	}
	return les, nil
}

// PlanCommand is the gpuscope plan command line that prints a
// configuration's numbers natively.
func PlanCommand(pc parallel.Config) []string {
	m, p, cl := pc.Model, pc.Plan, pc.Cluster
	args := []string{"plan"}
	if m.ID == "custom" {
		args = append(args, "--layers", strconv.Itoa(m.Layers), "--hidden", strconv.Itoa(m.Hidden), "--heads", strconv.Itoa(m.Heads),
			"--kv-heads", strconv.Itoa(m.KVHeads), "--ffn", strconv.Itoa(m.FFNSize), "--ffn-kind", string(m.FFN),
			"--vocab", strconv.Itoa(m.Vocab), "--seq", strconv.Itoa(m.Seq))
		if m.HeadSize > 0 {
			args = append(args, "--head-dim", strconv.Itoa(m.HeadSize))
		}
		if m.MoE() {
			args = append(args, "--experts", strconv.Itoa(m.Experts), "--top-k", strconv.Itoa(m.TopK), "--expert-ffn", strconv.Itoa(m.ExpertFFN),
				"--shared-ffn", strconv.Itoa(m.SharedFFN), "--dense-layers", strconv.Itoa(m.DenseLayers))
		}
		if m.MLA() || m.MTPLayers > 0 {
			args = append(args, "--kv-lora-rank", strconv.Itoa(m.KVLoRA), "--q-lora-rank", strconv.Itoa(m.QLoRA), "--qk-nope-head-dim", strconv.Itoa(m.QKNope),
				"--qk-rope-head-dim", strconv.Itoa(m.QKRope), "--v-head-dim", strconv.Itoa(m.VHead), "--mtp-layers", strconv.Itoa(m.MTPLayers))
		}
	} else {
		args = append(args, "--model", m.ID)
		if pre, _ := model.Preset(m.ID); pre.Seq != m.Seq {
			args = append(args, "--seq", strconv.Itoa(m.Seq))
		}
	}
	b := strconv.FormatBool
	args = append(args, "--gpu", cl.GPU.ID, "--gpus", strconv.Itoa(cl.GPUs), "--gpus-per-node", strconv.Itoa(cl.GPUsPerNode),
		"--inter", cl.Inter.ID,
		"--tp", strconv.Itoa(p.TP), "--pp", strconv.Itoa(p.PP), "--interleave", strconv.Itoa(p.Interleave),
		"--schedule", string(p.Schedule), "--zero", strconv.Itoa(p.ZeRO), "--recompute", string(p.Recompute),
		"--micro-batch", strconv.Itoa(p.MicroBatch), "--global-batch", strconv.Itoa(p.GlobalBatch),
		"--sp="+b(p.SP), "--flash="+b(p.Flash), "--overlap="+b(p.Overlap), "--bytes-per-param", strconv.Itoa(p.BytesPerParam))
	if p.Dtype != "" && p.Dtype != hw.BF16 {
		args = append(args, "--dtype", string(p.Dtype))
	}
	if cl.GPUVariation != parallel.FieldGPUVariation {
		// The lessons take their GPUs alike (no wait for a slowest);
		// the CLI's default spreads them as measured in the field.
		args = append(args, "--gpu-variation", strconv.FormatFloat(cl.GPUVariation, 'g', -1, 64))
	}
	if p.BlockScaled {
		args = append(args, "--block-scaled")
	}
	if p.TPOverlap {
		args = append(args, "--tp-overlap")
	}
	if p.Eager {
		args = append(args, "--eager")
	}
	if p.Loss != "" && p.Loss != parallel.LossMegatron {
		args = append(args, "--cross-entropy", string(p.Loss))
	}
	if p.ZeROFetch == parallel.FetchBlocking {
		args = append(args, "--zero-fetch", string(p.ZeROFetch))
	}
	if p.CP > 1 {
		algo := p.CPAlgo
		if algo == "" {
			algo = parallel.CPAllGather
		}
		args = append(args, "--cp", strconv.Itoa(p.CP), "--cp-algo", string(algo))
	}
	if m.MoE() {
		args = append(args, "--ep", strconv.Itoa(max(p.EP, 1)))
		if p.CapacityFactor > 1 {
			args = append(args, "--capacity-factor", strconv.FormatFloat(p.CapacityFactor, 'g', -1, 64))
		}
		if p.NodeLimit > 0 {
			args = append(args, "--node-limit", strconv.Itoa(p.NodeLimit))
		}
		if p.DispatchDtype != "" && p.DispatchDtype != hw.BF16 {
			args = append(args, "--dispatch-dtype", string(p.DispatchDtype))
		}
		if p.EPOverlap {
			args = append(args, "--ep-overlap", "--comm-sms", strconv.Itoa(p.CommSMs))
		}
	}
	return args
}

// PlanMetrics are a step's numbers: gpuscope plan --json's for the step's
// configuration, and what the step's picture compares.
type PlanMetrics struct {
	parallel.Metrics
	Command string                  `json:"command"` // the CLI line that prints the same numbers
	Compare []PlanCompare           `json:"compare,omitempty"`
	Search  *parallel.SearchMetrics `json:"search,omitempty"`
	Budget  []BudgetMetrics         `json:"budget,omitempty"`
}

// PlanCompare is one of the configurations a step compares.
type PlanCompare struct {
	Label          string          `json:"label"`
	Memory         parallel.Memory `json:"memory"`
	StepS          float64         `json:"step_s,omitempty"`
	BubbleFraction float64         `json:"bubble_fraction,omitempty"`
	TimelineS      float64         `json:"timeline_s,omitempty"`
	CPCommS        float64         `json:"cp_comm_s,omitempty"` // a K/V exchange's exposed traffic (cp-exchange)
}

// BudgetMetrics is the seed's step budget.
type BudgetMetrics struct {
	ComputeS float64 `json:"compute_s"`
	DPSyncS  float64 `json:"dp_sync_s"`
	TPCommS  float64 `json:"tp_comm_s"`
	BubbleS  float64 `json:"bubble_s"`
	StepS    float64 `json:"step_s"`
}

func (PlanLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*PlanRun)
	m := PlanMetrics{Metrics: r.Result.Metrics(), Command: "gpuscope " + strings.Join(PlanCommand(r.Config), " ")}
	for _, t := range r.Timelines {
		m.Compare = append(m.Compare, PlanCompare{Label: t.Label, Memory: t.Result.Memory, StepS: t.Result.Time.Step,
			BubbleFraction: t.Result.BubbleFraction, TimelineS: t.Timeline.Length})
	}
	if len(r.Timelines) == 0 {
		for _, b := range r.Bars {
			c := PlanCompare{Label: b.Label, Memory: b.Memory}
			if r.View == ViewCPExchange {
				c.StepS, c.CPCommS = b.Time.Step, b.Time.CPComm
			}
			m.Compare = append(m.Compare, c)
		}
	}
	if r.Search != nil {
		sm := r.Search.Metrics(20) // as many as the search ranked (preparePlan)
		m.Search = &sm
	}
	for _, b := range r.Budget {
		m.Budget = append(m.Budget, BudgetMetrics{ComputeS: b.Compute, DPSyncS: b.DPSync, TPCommS: b.TPComm, BubbleS: b.Bubble, StepS: b.Step()})
	}
	return m
}

func (PlanLesson) narration(les *Lesson, step int, lang string) []string {
	return planNarration(les.Steps[step-1].Run.(*PlanRun), lang)
}

// planNarration are the numbers a strategy step's text may quote, from the
// step's configuration (the knobs with the step's set: lines).
func planNarration(r *PlanRun, lang string) []string {
	res, pc := r.Result, r.Config
	p := pc.Plan
	psi := res.Params
	w, opt := parallel.SeedStateBytes(psi)
	st, _ := parallel.ZeROStates(psi, 1, 0, p.BytesPerParam)
	usable := parallel.Usable(float64(pc.Cluster.GPU.HBMBytes))
	dur := func(s float64) string { return units.LocalDuration(lang, s) }
	out := []string{
		"model", ModelName(lang, pc.Model),
		"params", ParamCount(lang, psi),
		"gpu", pc.Cluster.GPU.Name,
		"intra", linkName(lang, pc.Cluster.Intra), // the node's link: NVLink, or PCIe for the PCIe cards
		"hbm", units.Bytes(float64(pc.Cluster.GPU.HBMBytes)),
		"usable", units.Bytes(usable),
		"gpus", count(pc.Cluster.GPUs), "layers", strconv.Itoa(pc.Model.Layers),
		"tp", strconv.Itoa(p.TP), "pp", strconv.Itoa(p.PP), "dp", strconv.Itoa(p.DP),
		"split", PlanSplit(lang, res),
		"v", strconv.Itoa(p.Interleave),
		"m", strconv.Itoa(res.MicroBatches), "b", strconv.Itoa(p.MicroBatch),
		"global_batch", count(p.GlobalBatch),
		"zero", strconv.Itoa(p.ZeRO),
		"rank", strconv.Itoa(r.Rank),
		"fp32", units.Bytes(4 * psi), "bf16", units.Bytes(w), "adam", units.Bytes(opt), "seed_states", units.Bytes(w + opt),
		"states16", units.Bytes(st.Total()), "bpp", strconv.Itoa(p.BytesPerParam),
		"per_gpu", units.Bytes(res.Memory.Total), "activations", units.Bytes(res.Memory.Activations),
		"step", dur(res.Time.Step), "compute", dur(res.Time.Compute), "tp_comm", dur(res.Time.TPComm),
		"dp_comm", dur(res.Time.DPComm), "dp_hidden", dur(res.Time.DPHidden), "bubble", dur(res.Time.Bubble),
		"exposed", dur(res.Time.Exposed), "cp_comm", dur(res.Time.CPComm),
		"bubble_fraction", units.Percent(res.BubbleFraction),
		"bubble_share", units.Percent(BubbleShare(res)),
		"bubble_ratio", units.Ratio(lang, res.BubbleFraction),
		"mfu", units.Percent(res.MFU),
		"bf16_cards", strconv.Itoa(parallel.CardsNeeded(w, float64(pc.Cluster.GPU.HBMBytes))),
		"cards_low", strconv.Itoa(parallel.CardsNeeded(800e9, 80e9)), "cards_high", strconv.Itoa(parallel.CardsNeeded(1.2e12, 80e9)),
		"naive_sync", dur(parallel.NaiveSyncSeconds(2*psi, 900e9)),
		"grads", units.Bytes(2 * psi),
		"shard", units.Bytes(2 * psi / float64(p.TP*p.PP)), "shard16", units.Bytes(16 * psi / float64(p.TP*p.PP)),
	}
	out = append(out, longNarration(r, lang)...)
	if r.Scale != nil {
		out = append(out, scaleNarration(*r.Scale, lang)...)
	}
	fits := "fits"
	if !res.Memory.Fits {
		fits = "over"
	}
	out = append(out, "fits", fits, "over", units.Bytes(res.Memory.Over))
	if pc.Model.MoE() {
		// Expert parallelism: the plan's and each compared EP's numbers.
		tm := res.Time
		out = append(out, "ep", strconv.Itoa(max(p.EP, 1)), "active", ParamCount(lang, res.ActiveParams),
			"experts", strconv.Itoa(pc.Model.Experts), "ep_comm", dur(tm.EPComm), "ep_hidden", dur(tm.EPHidden),
			"ep_total", dur(tm.EPComm+tm.EPHidden),
			"nodes", strconv.Itoa((max(p.EP, 1)+pc.Cluster.GPUsPerNode-1)/pc.Cluster.GPUsPerNode),
			"tokens_per_s", largeCount(lang, float64(p.GlobalBatch)*float64(pc.Model.Seq)/tm.Step))
		if tm.Step > 0 {
			out = append(out, "ep_share", units.Percent(tm.EPComm/tm.Step))
		}
		for _, b := range r.Bars {
			if n, ok := strings.CutPrefix(b.Label, "EP "); ok {
				out = append(out, "mem_ep"+n, units.Bytes(b.Memory.Total), "step_ep"+n, dur(b.Time.Step), "a2a_ep"+n, dur(b.Time.EPComm))
				if b.Time.Step > 0 {
					out = append(out, "share_ep"+n, units.Percent(b.Time.EPComm/b.Time.Step))
				}
			}
		}
	}
	for _, b := range r.Bars {
		// zero-stages: each stage's DP traffic a step, as the lower chart
		// draws it.
		if n, ok := strings.CutPrefix(b.Label, "ZeRO-"); ok && r.View == ViewZeRO {
			out = append(out, "comm_z"+n, dur(b.Time.DPComm))
		}
	}
	if sr := r.Search; sr != nil && len(sr.Plans) > 0 {
		// The planner: the tree's branch against the chosen plan's.
		ch := sr.Plans[r.Selected()]
		branch := PlanBranch(ch.Config.Plan.TP, ch.Config.Plan.PP)
		leaf := i18n.T(lang, "canvas.plan.leaf_"+branch)
		key := "plan.tree_agrees"
		if branch != sr.Decision.Branch {
			key = "plan.tree_differs"
		}
		out = append(out, "tree_leaf", i18n.T(lang, "canvas.plan.leaf_"+sr.Decision.Branch), "chosen_leaf", leaf,
			"chosen_plan", ChosenPlan(lang, ch),
			"tree_vs_search", i18n.T(lang, key, "rank", strconv.Itoa(r.Selected()+1), "plan", ChosenPlan(lang, ch), "leaf", leaf))
	}
	z, _ := parallel.ZeROStates(psi, max(2, p.DP), 3, p.BytesPerParam)
	out = append(out, "zero3", units.Bytes(z.Total()))
	b := parallel.SeedBudget(0.05)
	out = append(out, "budget_step", dur(b.Step()), "budget_faster", dur(b.Faster(1.2).Step()),
		"amdahl", units.Percent(1-b.Faster(1.2).Step()/b.Step()))
	return out
}

// runPlaceholder is a number a step's text quotes of its plan as it
// runs: the step's time, its parts and shares, the throughput. (Not the
// numbers of the other configurations a step compares, bar by bar —
// zero-stages' comm_z0 … — which the picture draws beside it.)
var runPlaceholder = regexp.MustCompile(`\{(step|mfu|tflops|model_tflops|tokens_per_s|compute|bubble|bubble_share|exposed|dp_comm|dp_hidden|tp_comm|cp_comm|ep_comm|ep_hidden|ep_total|ep_share|ag_comm|ring_comm)\}`)

// unfitText is the text of a step (text, from key, filled with args)
// whose plan does not fit its GPUs: the catalogue's text for that case
// (key + "_unfit") where it has one; else, where the text quotes the
// plan's times as it runs, those times led by a sentence saying that the
// plan cannot run, how far over it is, and that they are what it would
// take if it fitted (plan.unfit_lead); else text.
func unfitText(lang, key, text string, args []string) string {
	if k := key + "_unfit"; i18n.Has(lang, k) || i18n.Has(i18n.Fallback, k) {
		return i18n.T(lang, k, args...)
	}
	if runPlaceholder.MatchString(i18n.T(i18n.Fallback, key)) {
		return i18n.T(lang, "plan.unfit_lead", append(args[:len(args):len(args)], "text", text)...)
	}
	return text
}

// PlanBranch is the branch of the seeds' decision tree (Decision.Branch)
// a plan of tp and pp belongs to: with a pipeline TP + PP + DP, with TP
// alone TP in the node + DP, with neither data parallel.
func PlanBranch(tp, pp int) string {
	switch {
	case pp > 1:
		return "tp-pp-dp"
	case tp > 1:
		return "tp-dp"
	}
	return "dp"
}

// ChosenPlan is a ranked plan as the planner's tree and narration name
// it: its split and ZeRO stage.
func ChosenPlan(lang string, res parallel.Result) string {
	return PlanSplit(lang, res) + i18n.T(lang, "plan.chosen_zero", "zero", strconv.Itoa(res.Config.Plan.ZeRO))
}

// PlanSplit is how a plan splits the GPUs, every dimension it uses:
// "TP 8 × PP 8 × DP 8", with CP when it splits the sequence, and the
// experts' EP in brackets for a mixture of experts (the numbers table's
// plan row, the sandbox's narration, the planner's tree).
func PlanSplit(lang string, res parallel.Result) string {
	q := res.Config.Plan
	plan := fmt.Sprintf("TP %d × PP %d × DP %d", q.TP, q.PP, q.DP)
	if q.CP > 1 {
		plan = fmt.Sprintf("TP %d × CP %d × PP %d × DP %d", q.TP, q.CP, q.PP, q.DP)
	}
	if res.Config.Model.MoE() {
		plan = paren(lang, plan, fmt.Sprintf("EP %d", max(q.EP, 1)))
	}
	return plan
}

func (PlanLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*PlanRun)
	res := r.Result
	tb := Table{Columns: []string{t("ui.metric"), t("ui.value")}, ColumnKeys: []string{"plan"}, Current: "plan"}
	row := func(key, v string) TableRow {
		src := ""
		if i18n.Has(lang, "source.plan."+key) || i18n.Has(i18n.Fallback, "source.plan."+key) {
			src = t("source.plan." + key)
		}
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{v}, Source: src}
	}
	mem := res.Memory
	fits := t("plan.fits")
	if !mem.Fits {
		fits = i18n.T(lang, "plan.over", "over", units.Bytes(mem.Over))
	}
	tm := res.Time
	dur := func(s float64) string { return units.LocalDuration(lang, s) }
	tb.Rows = []TableRow{
		row("params", ParamCount(lang, res.Params)),
		row("plan", PlanSplit(lang, res)),
		row("weights_bytes", units.Bytes(mem.Weights)),
		row("gradients_bytes", units.Bytes(mem.Gradients)),
		row("optimizer_bytes", units.Bytes(mem.Optimizer)),
		row("activations_bytes", units.Bytes(mem.Activations)),
		row("total_bytes", units.Bytes(mem.Total)+" / "+units.Bytes(mem.Usable)),
		row("fits", fits),
		row("step_s", dur(tm.Step)),
		row("compute_s", dur(tm.Compute)),
		row("tp_comm_s", dur(tm.TPComm)),
		row("pp_comm_s", dur(tm.PPComm)),
		row("dp_comm_s", paren(lang, dur(tm.DPComm), i18n.T(lang, "plan.hidden", "hidden", dur(tm.DPHidden)))),
		row("bubble_s", dur(tm.Bubble)),
		row("bubble_fraction", units.Percent(res.BubbleFraction)),
		row("mfu", units.Percent(res.MFU)),
		row("command", "gpuscope "+strings.Join(PlanCommand(r.Config), " ")),
	}
	if res.Config.Model.MoE() {
		// A mixture of experts: what a token goes through, and the
		// experts' all-to-alls beside TP's collectives.
		rows := slices.Insert(tb.Rows, 1, row("active_params", ParamCount(lang, res.ActiveParams)))
		for i := range rows {
			if rows[i].Key == "tp_comm_s" {
				rows = slices.Insert(rows, i+1, row("ep_comm_s", dur(tm.EPComm)))
				break
			}
		}
		tb.Rows = rows
	}
	if res.Config.Plan.CP > 1 {
		// Context parallelism's K/V traffic beside TP's collectives.
		for i := range tb.Rows {
			if tb.Rows[i].Key == "tp_comm_s" {
				tb.Rows = slices.Insert(tb.Rows, i+1, row("cp_comm_s", dur(tm.CPComm)))
				break
			}
		}
	}
	if r.View == ViewPlanner && r.Search != nil {
		// The ranked plans first, each a button that shows it.
		var ranked []TableRow
		for i, pl := range r.Search.Plans {
			if i >= 10 {
				break
			}
			q := pl.Config.Plan
			// A mixture of experts' plans differ by EP too, and plans
			// with context parallelism by CP (as on the canvas).
			more := ""
			if pl.Config.Model.MoE() {
				more += i18n.T(lang, "plan.rank_ep", "ep", strconv.Itoa(max(q.EP, 1)))
			}
			if q.CP > 1 {
				more += i18n.T(lang, "plan.rank_cp", "cp", strconv.Itoa(q.CP))
			}
			ranked = append(ranked, TableRow{
				Key: "rank_" + strconv.Itoa(i+1),
				Label: i18n.T(lang, "plan.rank_row", "rank", strconv.Itoa(i+1), "tp", strconv.Itoa(q.TP), "pp", strconv.Itoa(q.PP),
					"dp", strconv.Itoa(q.DP), "more", more, "v", strconv.Itoa(q.Interleave), "zero", strconv.Itoa(q.ZeRO),
					"recompute", i18n.T(lang, "recompute_short."+string(q.Recompute)), "b", strconv.Itoa(q.MicroBatch)),
				Cells:  []string{dur(pl.Time.Step) + " · " + units.Bytes(pl.Memory.Total)},
				Action: &Assignment{Knob: "rank", Value: strconv.Itoa(i + 1)},
			})
		}
		tb.Rows = append(ranked, tb.Rows...)
	}
	if r.View == ViewBudget && len(r.Budget) == 2 {
		tb.Rows = append(tb.Rows, row("budget_step_s", dur(r.Budget[0].Step())+" → "+dur(r.Budget[1].Step())))
	}
	return tb
}

// live is where the playhead is on a timeline step.
func (PlanLesson) live(les *Lesson, step int, at sim.Time, lang string) string {
	r := les.Steps[step-1].Run.(*PlanRun)
	if len(r.Timelines) == 0 || !r.Result.Memory.Fits {
		return "" // none, or a plan that does not fit: nothing runs
	}
	tl := r.Timelines[0].Timeline
	s := at.Seconds()
	done := 0
	for _, b := range tl.Blocks {
		if b.Kind == parallel.Backward && b.End <= s {
			done++
		}
	}
	total := tl.Micro * tl.Stages * tl.Chunks
	return i18n.T(lang, "ui.live_plan", "t", units.LocalDuration(lang, s), "done", count(done), "total", count(total))
}

// longNarration are the long-context lesson's numbers: the sequence and
// its split, and what the step's bars compare.
func longNarration(r *PlanRun, lang string) []string {
	res, pc := r.Result, r.Config
	seq, cp := pc.Model.Seq, max(1, pc.Plan.CP)
	mem := res.Memory
	out := []string{
		"seq", count(seq), "cp", strconv.Itoa(cp), "chunks", strconv.Itoa(2 * cp), "last_chunk", strconv.Itoa(2*cp - 1),
		"local_seq", count(seq / cp), "states_gpu", units.Bytes(mem.Weights + mem.Gradients + mem.Optimizer),
		"tflops", strconv.FormatFloat(res.TFLOPSPerGPU, 'f', 0, 64), "model_tflops", strconv.FormatFloat(ModelTFLOPS(res), 'f', 0, 64),
		"kv_heads", strconv.Itoa(pc.Model.KVHeads), "head_dim", strconv.Itoa(pc.Model.HeadDim()),
	}
	switch {
	case r.View == ViewCPSplit && len(r.Bars) > 0:
		out = append(out, "act_nocp", units.Bytes(r.Bars[0].Memory.Activations))
	case r.View == ViewCPExchange && len(r.Bars) == 2:
		out = append(out, "ag_comm", units.LocalDuration(lang, r.Bars[0].Time.CPComm), "ring_comm", units.LocalDuration(lang, r.Bars[1].Time.CPComm),
			"kv_bytes", units.Bytes(r.Exchange.KVBytes))
	}
	if r.View == ViewSeqSweep && len(r.Bars) > 0 {
		first := r.Bars[0].Memory.Activations
		ratio := 0.0
		if first > 0 {
			ratio = mem.Activations / first
		}
		n, _ := strconv.Atoi(r.Bars[0].Label) // a sweep's bars are labelled with their sequence length
		out = append(out, "seq_first", count(n), "act_first", units.Bytes(first), "ratio_first", units.Ratio(lang, ratio))
	}
	return out
}

// ModelTFLOPS is a step's model FLOPs a GPU a second, in TFLOP/s: the
// rate papers quote (Llama 3's 380), recomputation not counted — the
// engine's TFLOPSPerGPU counts it.
func ModelTFLOPS(r parallel.Result) float64 {
	if r.Time.Step <= 0 || r.Config.Cluster.GPUs <= 0 {
		return 0
	}
	return r.ModelFLOPs / r.Time.Step / float64(r.Config.Cluster.GPUs) / 1e12
}
