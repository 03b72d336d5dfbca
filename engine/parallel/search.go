package parallel

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// SearchOptions fix what a search does not vary: the model, the cluster,
// the global batch and the byte accounting.
type SearchOptions struct {
	Model         model.Transformer
	Cluster       Cluster
	GlobalBatch   int
	BytesPerParam int
	// OptimizerStates and MasterWeights are every plan's (Plan's; "":
	// FP32).
	OptimizerStates OptimizerStates
	MasterWeights   MasterWeights
	Dtype           hw.Dtype
	Flash           bool
	// MaxMicroBatch bounds the micro-batch sizes tried (0: 16).
	MaxMicroBatch int
	// Top keeps the fastest Top plans, ranked exactly as among all (0:
	// every plan that fits, ranked): the others' schedules are not run
	// once a bound shows they cannot be among them.
	Top int
	// CP searches context parallelism too: every CP dividing the GPUs
	// left by TP with the sequence divisible by 2·CP, both algorithms,
	// each shape pruned by a bound (gpuscope plan --search; the planner
	// lesson does not, yet: its knobs hold no CP).
	CP bool
	// FusedSwiGLU runs every plan's SwiGLU fused (Plan.FusedSwiGLU).
	FusedSwiGLU bool
	// Eager runs every plan's elementwise work as PyTorch's eager mode
	// does (Plan.Eager).
	Eager bool
	// Loss is every plan's cross-entropy (Plan.Loss).
	Loss Loss
	// ZeroBubble tries the zero-bubble schedules ZB-H1 and ZB-V beside
	// 1F1B on every pipeline of one chunk a stage (zerobubble.go): off by
	// default, for the planner lesson draws its plans' time lines, which
	// these schedules, costed in closed form, have none of. Fixed.Schedule
	// zb-h1 or zb-v searches that schedule alone.
	ZeroBubble bool
	// Fixed are the parts of a plan the caller has chosen: only plans
	// with them are searched (gpuscope plan --search --tp 8).
	Fixed SearchConstraints
}

// SearchConstraints fix parts of every plan a search tries; a zero value
// leaves that part free. ZeRO is fixed when ZeROSet is true (stage 0 is a
// choice too).
type SearchConstraints struct {
	TP, CP, PP, DP, EP, Interleave, MicroBatch int
	ZeRO                                       int
	ZeROSet                                    bool
	Recompute                                  Recompute
	Schedule                                   Schedule
	CPAlgo                                     CPAlgo
}

// free reports whether a fixed integer part x allows the value v.
func free(x, v int) bool { return x == 0 || x == v }

// String lists the fixed parts as gpuscope plan's flags ("--tp 8 --zero 1"),
// or "" when nothing is fixed.
func (f SearchConstraints) String() string {
	var parts []string
	for _, x := range []struct {
		name string
		v    int
	}{{"tp", f.TP}, {"cp", f.CP}, {"pp", f.PP}, {"dp", f.DP}, {"ep", f.EP}, {"interleave", f.Interleave}, {"micro-batch", f.MicroBatch}} {
		if x.v != 0 {
			parts = append(parts, fmt.Sprintf("--%s %d", x.name, x.v))
		}
	}
	if f.ZeROSet {
		parts = append(parts, fmt.Sprintf("--zero %d", f.ZeRO))
	}
	for _, x := range []struct{ name, v string }{{"recompute", string(f.Recompute)}, {"schedule", string(f.Schedule)}, {"cp-algo", string(f.CPAlgo)}} {
		if x.v != "" {
			parts = append(parts, "--"+x.name+" "+x.v)
		}
	}
	return strings.Join(parts, " ")
}

// check refuses constraints no plan of this model and cluster can meet,
// naming the flag, as Evaluate would refuse them in a single plan.
func (f SearchConstraints) check(m model.Transformer, cl Cluster) error {
	n := cl.GPUs
	for _, x := range []struct {
		name string
		v    int
	}{{"tp", f.TP}, {"cp", f.CP}, {"pp", f.PP}, {"dp", f.DP}} {
		if x.v < 0 || x.v > n {
			return errs.Range(x.name, x.v, 1, n, " (the GPUs)")
		}
		if x.v > 0 && n%x.v != 0 {
			return fmt.Errorf("%s: %d does not divide the %d GPUs", x.name, x.v, n)
		}
	}
	if f.TP > 0 && m.Heads%f.TP != 0 {
		return fmt.Errorf("tp: %d does not divide the %d heads", f.TP, m.Heads)
	}
	if f.CP > 0 && m.Seq%(2*f.CP) != 0 {
		return fmt.Errorf("cp: %d; the sequence (%d tokens) must divide by 2·CP", f.CP, m.Seq)
	}
	if f.EP > 1 && !m.MoE() {
		return errs.F("ep_dense", "ep: %d with a dense model; allowed 1 (expert parallelism spreads a mixture of experts' experts)", "ep", f.EP)
	}
	if f.EP > 1 && m.Experts%f.EP != 0 {
		return errs.F("ep_experts", "ep: %d does not divide the %d experts", "ep experts", f.EP, m.Experts)
	}
	if f.CPAlgo != "" && f.CP == 1 {
		return fmt.Errorf("cp-algo: %s needs context parallelism; cp is 1", f.CPAlgo)
	}
	switch {
	case f.Schedule != "" && !f.Schedule.known():
		return fmt.Errorf("schedule: %q; allowed %s", f.Schedule, strings.Join(ScheduleIDs(), ", "))
	case f.ZeROSet && (f.ZeRO < 0 || f.ZeRO > 3):
		return errs.Range("zero", f.ZeRO, 0, 3, "")
	case f.ZeROSet && f.ZeRO == 3 && f.PP > 1:
		return errs.F("zero_pp", "zero: %d with pp %d; the search pairs ZeRO-3 with no pipeline (allowed 0–2 with PP)", "zero pp", 3, f.PP)
	case f.Interleave > 1 && f.Schedule != "" && f.Schedule != Interleaved:
		return errs.F("interleave_schedule", "interleave: %d needs --schedule interleaved (schedule is %s)", "v schedule_id", f.Interleave, f.Schedule)
	case f.Interleave > 1 && f.PP == 1:
		return fmt.Errorf("interleave: %d needs a pipeline; pp is 1", f.Interleave)
	case f.Schedule == Interleaved && f.PP == 1:
		return fmt.Errorf("schedule: interleaved needs a pipeline; pp is 1")
	case f.Schedule == DualPipe || f.Schedule == DualPipeV:
		return fmt.Errorf("schedule: %s is not searched (it pairs with DeepSeek-V3's overlap settings); allowed gpipe, 1f1b, interleaved, zb-h1, zb-v", f.Schedule)
	case (f.Schedule == ZBH1 || f.Schedule == ZBV) && f.PP == 1:
		return fmt.Errorf("schedule: %s needs a pipeline; pp is 1", f.Schedule)
	}
	return nil
}

// SearchResult lists the plans that fit, fastest first (with
// SearchOptions.Top, the fastest Top of them).
type SearchResult struct {
	Plans     []Result
	Evaluated int // plans evaluated (all valid)
	Fitting   int // of those, the plans that fit
	// Scheduled are the fitting plans whose pipeline schedule was run
	// (all of them with Top 0).
	Scheduled int
	// Bounded are the shapes with context parallelism (TP, CP, PP,
	// micro-batch, algorithm, recomputation, EP) whose bound was
	// computed; Pruned those skipped by it.
	Bounded, Pruned int
	Decision        Decision
}

// Search enumerates every valid plan — TP dividing the heads, PP the
// layers (or layers + 2), DP the rest and the global batch; the 1F1B
// schedule (with ZeroBubble, ZB-H1 and ZB-V beside it), or interleaved
// with v chunks; ZeRO 0–3 without PP, 0–2 with;
// no, selective or full recomputation; micro-batches up to MaxMicroBatch;
// sequence parallelism whenever TP > 1; for a mixture of experts every
// EP dividing the DP ranks and the experts; with CP, context parallelism
// too, pruned by a bound — evaluates each, discards those
// that do not fit, and ranks the rest by step time (ties by smaller TP,
// then PP, then the order of enumeration). It also walks the seeds'
// decision tree.
func Search(o SearchOptions) (SearchResult, error) {
	var sr SearchResult
	m, cl := o.Model, o.Cluster
	if err := m.Validate(); err != nil {
		return sr, err
	}
	if o.GlobalBatch < 1 {
		return sr, fmt.Errorf("global-batch: %d; at least 1", o.GlobalBatch)
	}
	if err := o.Fixed.check(m, cl); err != nil {
		return sr, err
	}
	base := Plan{BytesPerParam: o.BytesPerParam, OptimizerStates: o.OptimizerStates, MasterWeights: o.MasterWeights,
		Dtype: o.Dtype, Flash: o.Flash, Overlap: true, GlobalBatch: o.GlobalBatch, FusedSwiGLU: o.FusedSwiGLU, Eager: o.Eager, Loss: o.Loss}
	// Validate the fixed parts once, with a plan that is otherwise sound.
	probe := base
	probe.TP, probe.PP, probe.DP, probe.Interleave, probe.MicroBatch, probe.Recompute, probe.Schedule = 1, 1, cl.GPUs, 1, 1, RecomputeNone, OneFOneB
	probe.GlobalBatch = cl.GPUs
	if err := (Config{Model: m, Plan: probe, Cluster: cl}).Validate(); err != nil {
		return sr, err
	}
	// Every plan without context parallelism evaluated without its
	// pipeline schedule: whether it fits, and its step less the bubble
	// and the sends — a bound, since the step only grows with them.
	type candidate struct {
		p     Plan
		bound float64
		index int // in enumeration order, for ties
		done  bool
	}
	var cands []candidate
	lower := searching{mode: searchLower}
	next := 0
	bounded := func(p Plan) (candidate, bool) {
		r, err := evaluate(Config{Model: m, Plan: p, Cluster: cl}, &lower)
		if err != nil {
			return candidate{}, false
		}
		sr.Evaluated++
		next++
		if !r.Memory.Fits {
			return candidate{}, false
		}
		sr.Fitting++
		return candidate{p: p, bound: r.Time.Step, index: next - 1}, true
	}
	o.plans(base, false, nil, func(p Plan) {
		if c, ok := bounded(p); ok {
			cands = append(cands, c)
		}
	})
	// Then their schedules run, the lowest bounds first, until the next
	// bound exceeds the Top-th fastest step found: every plan left waits
	// at least that long (with Top 0, every plan).
	type ranked struct {
		r     Result
		index int
	}
	var plans []ranked
	// The schedules' orders kept for the search: Llama 3 405B's on
	// 16,384 GPUs runs 75 shapes (344,484 blocks, 2.8 MB) 1,229 times.
	se := searching{orders: orderCache{max: 1 << 20}}
	best := math.Inf(1)   // the fastest step that fits so far
	var fastest []float64 // the Top fastest steps, ascending
	exact := func(c *candidate) {
		c.done = true
		sr.Scheduled++
		r, err := evaluate(Config{Model: m, Plan: c.p, Cluster: cl}, &se)
		if err != nil || !r.Memory.Fits { // evaluate keeps no per-stage memory for a search: the list is long; Evaluate the chosen plan again for it
			return
		}
		plans = append(plans, ranked{r, c.index})
		best = math.Min(best, r.Time.Step)
		if o.Top > 0 {
			i, _ := slices.BinarySearch(fastest, r.Time.Step)
			fastest = slices.Insert(fastest, i, r.Time.Step)
			if len(fastest) > o.Top {
				fastest = fastest[:o.Top]
			}
		}
	}
	finish := func() {
		order := make([]int, 0, len(cands))
		for i := range cands {
			if !cands[i].done {
				order = append(order, i)
			}
		}
		if o.Top > 0 {
			// Stable: equal bounds keep enumeration order (ZeRO stages
			// next to each other share a schedule run).
			sort.SliceStable(order, func(i, j int) bool { return cands[order[i]].bound < cands[order[j]].bound })
		}
		for _, i := range order {
			if o.Top > 0 && len(fastest) == o.Top && cands[i].bound > fastest[o.Top-1] {
				break
			}
			exact(&cands[i])
		}
	}
	finish()
	// Then the plans with context parallelism, each shape (TP, CP, PP,
	// micro-batch, algorithm, recomputation, EP) skipped when a bound on
	// its step time is no faster than the fastest plan found: the
	// critical stage's compute and its TP, EP and CP communication a
	// micro-batch, times the micro-batches, with one chunk a stage — the
	// step of every plan of that shape waits for at least that (more
	// chunks put as many layers or more on a stage; ZeRO changes none of
	// it; the bubble, the sends and DP's exposed time only add). A plan
	// not skipped whose own bound is under the fastest is run at once
	// (it may be faster, and prune more); the others wait with the rest.
	if o.CP && o.Fixed.CP != 1 {
		o.searchCP(base, &sr, &best, func(p Plan) {
			c, ok := bounded(p)
			if !ok {
				return
			}
			cands = append(cands, c)
			if c.bound < best {
				exact(&cands[len(cands)-1])
			}
		})
		finish()
	}

	// Ranked by step, ties by smaller TP, then PP, then enumeration —
	// through their indices, then copied out once each: a Result is a
	// kilobyte.
	rank := make([]int, len(plans))
	for i := range rank {
		rank[i] = i
	}
	sort.Slice(rank, func(i, j int) bool {
		a, b := &plans[rank[i]], &plans[rank[j]]
		if a.r.Time.Step != b.r.Time.Step {
			return a.r.Time.Step < b.r.Time.Step
		}
		if a.r.Config.Plan.TP != b.r.Config.Plan.TP {
			return a.r.Config.Plan.TP < b.r.Config.Plan.TP
		}
		if a.r.Config.Plan.PP != b.r.Config.Plan.PP {
			return a.r.Config.Plan.PP < b.r.Config.Plan.PP
		}
		return a.index < b.index
	})
	if o.Top > 0 && len(rank) > o.Top {
		rank = rank[:o.Top]
	}
	sr.Plans = make([]Result, len(rank))
	for i, k := range rank {
		sr.Plans[i] = plans[k].r
	}
	sr.Decision = decide(m, cl, base)
	return sr, nil
}

// searchCP tries the plans with context parallelism, skipping each
// shape whose bound is no faster than best (the fastest fitting step so
// far, which try lowers).
func (o SearchOptions) searchCP(base Plan, sr *SearchResult, best *float64, try func(Plan)) {
	bounds := searching{mode: searchBound}
	o.plans(base, true, func(p Plan) bool {
		p.ZeRO, p.Interleave = 0, 1
		if !p.Schedule.vShape() {
			p.Schedule = OneFOneB // a V's stages differ: its own
		}
		r, err := evaluate(Config{Model: o.Model, Plan: p, Cluster: o.Cluster}, &bounds)
		if err != nil {
			return true
		}
		sr.Bounded++
		if r.Time.Step >= *best {
			sr.Pruned++
			return true
		}
		return false
	}, try)
}

// plans calls try with every plan Search evaluates, in its order: base
// with TP, CP, PP, DP, the schedule and its chunks, micro-batch size,
// ZeRO stage and recomputation filled in — those without context
// parallelism, or (withCP) those with it, every CP dividing the GPUs
// left by TP with the sequence divisible by 2·CP, each algorithm, and
// skip asked first for each shape (TP, CP, PP, micro-batch, algorithm).
func (o SearchOptions) plans(base Plan, withCP bool, skip func(Plan) bool, try func(Plan)) {
	m, n := o.Model, o.Cluster.GPUs
	maxMB := o.MaxMicroBatch
	if maxMB == 0 {
		maxMB = 16
	}
	fx := o.Fixed
	for tp := 1; tp <= n; tp++ {
		if n%tp != 0 || m.Heads%tp != 0 || !free(fx.TP, tp) {
			continue
		}
		for cp := 1; cp <= n/tp; cp++ {
			if (cp > 1) != withCP {
				if !withCP {
					break
				}
				continue
			}
			if (n/tp)%cp != 0 || m.Seq%(2*cp) != 0 || !free(fx.CP, cp) {
				continue
			}
			algos := []CPAlgo{""}
			if cp > 1 {
				algos = []CPAlgo{CPAllGather, CPRing}
				if fx.CPAlgo != "" {
					algos = []CPAlgo{fx.CPAlgo}
				}
			}
			o.plansTCP(base, tp, cp, algos, maxMB, skip, try)
		}
	}
}

// plansTCP is plans for one TP and CP.
func (o SearchOptions) plansTCP(base Plan, tp, cp int, algos []CPAlgo, maxMB int, skip func(Plan) bool, try func(Plan)) {
	m, n, fx := o.Model, o.Cluster.GPUs, o.Fixed
	type shape struct {
		pp, mb, ep int
		algo       CPAlgo
		rc         Recompute
		vee        bool // a V schedule: its head on rank 0, its own bound
	}
	skipped := map[shape]bool{} // skip's answers, asked once a shape
	// Megatron's three; torchtitan's op-level checkpointing only when
	// asked for (--recompute op).
	rcs := []Recompute{RecomputeNone, RecomputeSelective, RecomputeFull}
	if fx.Recompute == RecomputeOp {
		rcs = []Recompute{RecomputeOp}
	}
	{
		for pp := 1; pp <= n/(tp*cp) && pp <= trainedLayers(m); pp++ {
			if (n/(tp*cp))%pp != 0 || !free(fx.PP, pp) {
				continue
			}
			dp := n / (tp * cp * pp)
			if o.GlobalBatch%dp != 0 || !free(fx.DP, dp) {
				continue
			}
			// A mixture of experts: every EP dividing both the DP ranks
			// and the experts (a dense model: none).
			eps := []int{0}
			if m.MoE() {
				eps = eps[:0]
				for ep := 1; ep <= dp; ep++ {
					if dp%ep == 0 && m.Experts%ep == 0 && free(fx.EP, ep) {
						eps = append(eps, ep)
					}
				}
			}
			for v := 1; v <= 8; v++ {
				if v > 1 && pp == 1 {
					break
				}
				if !free(fx.Interleave, v) {
					continue
				}
				if _, _, err := stageLayers(trainedLayers(m), pp, v); err != nil {
					continue
				}
				scheds := []Schedule{OneFOneB}
				switch {
				case v > 1:
					scheds[0] = Interleaved
				case o.ZeroBubble && pp > 1:
					scheds = []Schedule{OneFOneB, ZBH1, ZBV}
				}
				switch {
				case fx.Schedule == "":
				case (fx.Schedule == Interleaved) != (v > 1):
					continue
				default:
					scheds = []Schedule{fx.Schedule}
				}
				perReplica := o.GlobalBatch / dp
				for _, sched := range scheds {
					for mb := 1; mb <= max(maxMB, fx.MicroBatch) && mb <= perReplica; mb++ {
						if perReplica%mb != 0 || !free(fx.MicroBatch, mb) {
							continue
						}
						if v > 1 && (perReplica/mb)%pp != 0 {
							continue
						}
						for _, algo := range algos {
							for zero := 0; zero <= 3; zero++ {
								if zero == 3 && pp > 1 {
									break
								}
								if zero > 0 && dp*cp == 1 && !fx.ZeROSet {
									break
								}
								if fx.ZeROSet && zero != fx.ZeRO {
									continue
								}
								for _, rc := range rcs {
									if fx.Recompute != "" && rc != fx.Recompute {
										continue
									}
									for _, ep := range eps {
										p := base
										p.TP, p.PP, p.DP, p.Interleave, p.Schedule = tp, pp, dp, v, sched
										p.SP = tp > 1
										p.ZeRO, p.Recompute, p.MicroBatch, p.EP = zero, rc, mb, ep
										if cp > 1 {
											p.CP, p.CPAlgo = cp, algo
										}
										if skip != nil {
											k := shape{pp, mb, ep, algo, rc, sched.vShape()}
											no, asked := skipped[k]
											if !asked && rc != RecomputeNone && skipped[shape{pp, mb, ep, algo, RecomputeNone, k.vee}] {
												// Recomputation only adds to a
												// shape's bound.
												no, asked = true, true
												skipped[k] = true
											}
											if !asked {
												no = skip(p)
												skipped[k] = no
											}
											if no {
												continue
											}
										}
										try(p)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// DecisionStep is one question of the decision tree, answered.
type DecisionStep struct {
	ID       string  `json:"id"` // fits-one-gpu, fits-one-node, fits-tp-pp
	Question string  `json:"question"`
	Answer   bool    `json:"answer"`
	Need     float64 `json:"need_bytes"` // bytes a GPU would hold on this branch
	Have     float64 `json:"have_bytes"` // what it can use (Usable)
	Detail   string  `json:"detail"`
}

// Decision is the branch of the seeds' decision tree a model and cluster
// take: fits one GPU → data parallel; fits one node → TP inside the node,
// DP across; else TP 4–8 inside + PP across + DP.
type Decision struct {
	Branch string         `json:"branch"` // dp, tp-dp, tp-pp-dp
	Advice string         `json:"advice"`
	Steps  []DecisionStep `json:"steps"`
	// TP and PP are the branch's advice in numbers (PP 0: no pipeline;
	// both 0 when nothing fits); TP × PP divides the GPUs whenever the
	// cluster has that many, so that DP over the rest is whole.
	TP int `json:"tp,omitempty"`
	PP int `json:"pp,omitempty"`
}

// Decide walks the seeds' decision tree (001: "模型能放进一张 GPU 吗？…")
// with this model's bytes: model states at bytesPerParam plus the
// activations of one sequence with full recomputation, on one GPU, on
// one node's TP group, and over TP inside a node and PP across.
func Decide(m model.Transformer, cl Cluster, bytesPerParam int) Decision {
	return decide(m, cl, Plan{BytesPerParam: bytesPerParam})
}

// decide is Decide with the model states of base (its BytesPerParam,
// OptimizerStates and MasterWeights).
func decide(m model.Transformer, cl Cluster, base Plan) Decision {
	var d Decision
	if base.BytesPerParam != 18 {
		base.BytesPerParam = 16
	}
	capacity := Usable(float64(cl.GPU.HBMBytes))
	need := func(tp, pp int) float64 {
		p := Plan{TP: tp, PP: pp, DP: 1, Interleave: 1, SP: tp > 1, Recompute: RecomputeFull, Flash: true, MicroBatch: 1,
			GlobalBatch: pp, Schedule: OneFOneB, BytesPerParam: base.BytesPerParam, OptimizerStates: base.OptimizerStates,
			MasterWeights: base.MasterWeights, Dtype: hw.BF16}
		c := cl
		c.GPUs = tp * pp
		r, err := Evaluate(Config{Model: m, Plan: p, Cluster: c})
		if err != nil {
			return -1
		}
		return r.Memory.Total
	}
	gb := func(b float64) string { return fmt.Sprintf("%.1f GB", b/1e9) }
	one := need(1, 1)
	step := DecisionStep{ID: "fits-one-gpu", Question: "Does the model fit one GPU?", Need: one, Have: capacity, Answer: one >= 0 && one <= capacity}
	step.Detail = fmt.Sprintf("%s bytes × %.3g parameters + activations = %s on one %s of %s", strconv.FormatFloat(base.States().Total(), 'g', 4, 64), m.Params(), gb(one), cl.GPU.Name, gb(capacity))
	d.Steps = append(d.Steps, step)
	if step.Answer {
		d.Branch, d.Advice = "dp", "Data parallel: every GPU holds the whole model; one all-reduce of the gradients a step."
		d.TP = 1
		return d
	}
	// One node: the largest TP that divides the heads and fits the node.
	tp := 1
	for t := 2; t <= cl.GPUsPerNode; t *= 2 {
		if m.Heads%t == 0 && (cl.GPUs < t || cl.GPUs%t == 0) {
			tp = t
		}
	}
	// The node's link: NVLink, or PCIe 5 on the PCIe cards (H100 PCIe, NVL).
	link := "NVLink"
	if !strings.HasPrefix(cl.Intra.ID, "nvlink") {
		link = cl.Intra.Name
	}
	node := need(tp, 1)
	step = DecisionStep{ID: "fits-one-node", Question: fmt.Sprintf("Does it fit one node (%d GPUs)?", cl.GPUsPerNode), Need: node, Have: capacity, Answer: node >= 0 && node <= capacity}
	step.Detail = fmt.Sprintf("split %d ways by tensor parallelism on %s: %s a GPU of %s", tp, link, gb(node), gb(capacity))
	d.Steps = append(d.Steps, step)
	if step.Answer {
		d.Branch, d.Advice = "tp-dp", fmt.Sprintf("Tensor parallel inside each node (TP %d on %s), data parallel across nodes.", tp, link)
		d.TP = tp
		return d
	}
	// TP inside, PP across: the fewest stages that fit and leave a whole
	// number of replicas (TP × PP dividing the GPUs), so that "DP over
	// the rest" can be carried out.
	pp, best := 0, 0.0
	for p := 2; p <= m.Layers && p*tp <= max(cl.GPUs, tp*2); p++ {
		if _, _, err := stageLayers(trainedLayers(m), p, 1); err != nil {
			continue
		}
		if cl.GPUs >= tp*p && cl.GPUs%(tp*p) != 0 {
			continue
		}
		if b := need(tp, p); b >= 0 && b <= capacity {
			pp, best = p, b
			break
		}
	}
	step = DecisionStep{ID: "fits-tp-pp", Question: "Tensor parallel inside a node, pipeline across nodes?", Need: best, Have: capacity, Answer: pp > 0}
	if pp > 0 {
		step.Detail = fmt.Sprintf("TP %d × PP %d: %s a GPU of %s; data parallel over the remaining GPUs", tp, pp, gb(best), gb(capacity))
		d.Advice = fmt.Sprintf("TP %d inside each node, PP %d across nodes, DP over the rest (3D parallelism); ZeRO-1 shards the optimizer states across DP.", tp, pp)
		d.TP, d.PP = tp, pp
	} else {
		step.Detail = fmt.Sprintf("no pipeline depth up to %d fits with TP %d on %d GPUs", m.Layers, tp, cl.GPUs)
		d.Advice = "Even TP inside the node and PP across every node do not fit: add GPUs, shard states with ZeRO-3, or use a smaller model."
	}
	d.Steps = append(d.Steps, step)
	d.Branch = "tp-pp-dp"
	return d
}
