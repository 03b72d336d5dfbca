package parallel

import (
	"math"
	"slices"
	"sync"

	"github.com/gpuscope/gpuscope/engine/collective"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Evaluate computes a plan's parameters, FLOPs, memory per GPU and step
// time. It returns Validate's error for an inconsistent plan.
//
// The step-time model is built from mechanisms, not fitted to any row:
//
//   - compute: every matrix product of a layer, forward and backward
//     (dX = dY·Wᵀ and dW = Xᵀ·dY), timed by the silicon layer's tiled
//     tensor-core GEMM model (kernel.GEMM: waves, tails and HBM traffic by
//     shape); the attention core by kernel.Attention (standard or flash);
//     LayerNorms, activations, dropout and residual adds as HBM traffic at
//     MemoryEfficiency of the bandwidth;
//   - tensor parallelism: 2 all-reduces forward and 2 backward per layer
//     and micro-batch (all-gather + reduce-scatter with sequence
//     parallelism, the same bytes), 2 more with full recomputation, on
//     NVLink inside a node or hierarchically when TP spans nodes; on the
//     critical path, as in Megatron-LM;
//   - pipeline: the schedule run block by block (BuildTimeline, the time
//     line a lesson draws), each stage at its own forward and backward
//     times: the bubble is what it takes beyond the critical stage's
//     work, the sends on the critical path what one send of b·s·h/t
//     activations per boundary (Megatron's scatter/gather) adds to it —
//     for equal stages the bubble is (p−1)/(v·m) of the ideal time;
//     DualPipe and the zero-bubble schedules (zerobubble.go), which hold
//     the weight gradients back to fill it, in closed form;
//   - data parallelism: ring all-reduce (reduce-scatter + all-gather with
//     ZeRO), hierarchical over NVLink and one NIC per GPU, bucketed behind
//     the last micro-batch's backward when Overlap is on (all but the last
//     bucket can hide); ZeRO-3 gathers weights for every micro-batch;
//   - the optimizer: Adam over the GPU's shard as HBM traffic.
//
// Collective times are α-β closed forms with each link's Efficiency.
func Evaluate(c Config) (Result, error) { return evaluate(c, nil) }

// searching is what a search keeps between the plans it evaluates: the
// cluster's GPU at its sustained clock, scratch for the per-stage numbers
// of plans it discards, and the last pipeline schedules run (a plan's
// ZeRO stages share one, and come three recomputation choices apart).
type searching struct {
	gpu      hw.GPU
	haveGPU  bool
	stage    []float64 // a discarded plan's per-stage numbers
	fwd, bwd []float64 // the stage times being looked up
	runs     [3]scheduleRun
	orders   orderCache         // the orders of the schedules it runs
	gemms    gemmMemo           // its GEMM times by shape
	layers   map[Plan]layerMemo // a plan's layer costs, by the plan at ZeRO 0
	next     int                // the run to replace
	mode     searchMode         // what the search asks of a plan
}

// searchMode is what a search asks Evaluate for.
type searchMode int

const (
	// searchFull: the plan's step, as Evaluate gives it; a plan that does
	// not fit is returned without its time.
	searchFull searchMode = iota
	// searchLower: the step without the pipeline's bubble and sends
	// (Time.Step, a lower bound on the plan's: the step only grows with
	// them), the schedule not run; a plan that does not fit is returned
	// without its time.
	searchLower
	// searchBound: only a bound on the step, the critical stage's compute
	// and TP, EP and CP communication times the micro-batches (Time.Step;
	// fitting or not).
	searchBound
)

// layerMemo is a plan's dense and MoE layer costs (evaluate).
type layerMemo struct {
	cost costs
	moe  moeLayer
}

// scheduleRun is one pipeline schedule run: its shape, its stage times
// and what it gave.
type scheduleRun struct {
	s             Schedule
	p, m, v       int
	fwd, bwd      []float64
	p2p           float64
	bubble, sends float64
}

// evaluate is Evaluate; with a search's state, it returns a plan that
// does not fit without its time, keeps no per-stage memory (the search
// lists plans without it) and reuses schedules already run.
func evaluate(c Config, se *searching) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{Config: c}, err
	}
	m, p, cl := c.Model, c.Plan, c.Cluster.perGPU()
	r := Result{Config: c, Params: m.Params(), ActiveParams: m.ActiveParams()}
	if se == nil {
		cl.GPU = sustained(cl.GPU)
	} else {
		if !se.haveGPU {
			se.gpu, se.haveGPU = sustained(cl.GPU), true
		}
		cl.GPU = se.gpu // a search's cluster does not change
		if se.gemms.times == nil {
			se.gemms.times = map[uint64]float64{}
		}
		cl.gemms = &se.gemms
	}
	mbs := p.microBatches()
	r.MicroBatches = mbs
	tokens := float64(p.GlobalBatch) * float64(m.Seq)
	r.ModelFLOPs, r.HardwareFLOPs = StepFLOPs(m, p.GlobalBatch, p.Recompute)

	t, pp, v, dp, cp := p.TP, p.PP, p.Interleave, p.DP, p.cp()
	chunks := p.chunks() // model chunks a stage: v interleaved, 2 in a V
	// The stage that holds the output head (and the multi-token-
	// prediction modules after the last layer): the last, but in a V the
	// first, which holds the last chunk.
	headStage := pp - 1
	if p.Schedule.vShape() {
		headStage = 0
	}
	local := m.Seq / cp // the tokens of a sequence on one GPU
	split, _ := p.layerSplit(m)
	stageLayerCount := split.stage // each stage's layers: its own count
	g := cl.GPU
	states := p.States()
	gradBytes := states.Gradients

	// One layer's parameters on one GPU: matrices split over TP (K and V
	// replicated when there are fewer KV heads than TP ranks), norms and
	// the row-parallel biases replicated.
	h, f := float64(m.Hidden), float64(m.FFNSize)
	d := float64(m.HeadDim())
	T := float64(t)
	kvGPU := math.Max(float64(m.KVHeads)/T, 1) * d
	qw := float64(m.Heads) * d // Q's and the projection's width: h, but for wide heads (Qwen3)
	layerParams := 2*h*qw/T + 2*h*kvGPU
	if m.MLA() {
		layerParams = m.LatentAttentionParams(T)
	}
	ffnMats := 2.0
	if m.FFN.Gated() {
		ffnMats = 3
	}
	layerParams += ffnMats * h * f / T
	switch {
	case m.Biases:
		layerParams += qw/T + 2*kvGPU + f/T + 2*h + 4*h
	case m.QKVBias:
		layerParams += qw/T + 2*kvGPU + 2*h
	default:
		layerParams += 2 * h
	}
	if m.QKNorm {
		layerParams += 2 * d
	}
	embedParams := float64(m.Vocab) * h / T // vocabulary-parallel
	if m.LearnedPositions {
		embedParams += float64(m.Seq) * h
	}

	// A layer's costs do not depend on the ZeRO stage: a search, which
	// tries the stages of each plan in turn, keeps them (layers).
	var cost costs
	var moe moeLayer
	var layerKey Plan
	kept := false
	if se != nil {
		layerKey = p
		layerKey.ZeRO, layerKey.ZeROFetch = 0, ""
		var l layerMemo
		if l, kept = se.layers[layerKey]; kept {
			cost, moe = l.cost, l.moe
		}
	}
	if !kept {
		cost = layerCost(m, p, cl)
	}
	var mtp costs // a multi-token-prediction module's projection, a micro-batch
	if m.MTPLayers > 0 {
		mtp.fwd, mtp.bwd, mtp.wgrad = mtpProjection(m, p, cl)
	}
	// A mixture of experts' MoE layers (model.MoELayer):
	// their parameters on one GPU, the part of them that is experts
	// (sharded over EP, their gradients reduced over DP ÷ EP), their
	// costs and activations.
	if m.MoE() && !kept {
		moe = moeLayerOn(m, p, cl, layerParams, ffnMats*h*f/T)
	}
	if se != nil && !kept {
		if se.layers == nil || len(se.layers) >= 1024 {
			se.layers = map[Plan]layerMemo{} // the plans tried lately
		}
		se.layers[layerKey] = layerMemo{cost, moe}
	}
	stageDense := func(st int) int { return denseOnStage(m, split, st) }

	// The last stage's output layer: logits GEMM (and its backward), the
	// cross-entropy over b·s × V/t FP32 logits (b·s/CP with context
	// parallelism).
	n := float64(p.MicroBatch) * float64(local)
	hd := headOf(m, p, cl)
	headFwd, headBwd := hd.gemmF+hd.lossF, hd.gemmB+hd.lossB

	// The seven per-stage lists share one array: in a search, scratch
	// until the plan turns out to fit. It is allocated 8·pp long: with
	// 7·pp, Evaluate of the 405B plan measured 34 µs instead of 20, all of
	// it in the schedule run's loads (the same run timed alone: 16 µs) —
	// an effect of where the allocator then places the arrays, not of the
	// work, measured on this machine's Xeon and kept out of the way.
	var stage []float64
	if se == nil {
		stage = make([]float64, 8*pp)
		r.StageMemory = make([]Memory, pp)
	} else {
		se.stage = grow(se.stage, 8*pp)
		stage = se.stage
		clear(stage)
	}
	r.setStageLists(stage, pp)
	// What every stage's activations are made of.
	act := layerActivations(m, local, m.Seq, p.MicroBatch, p)
	var actFull float64 // the layer being recomputed holds its full activations
	switch p.Recompute {
	case RecomputeFull:
		actFull = layerActivations(m, local, m.Seq, p.MicroBatch, p.without())
	case RecomputeOp:
		// What the layer being recomputed makes again, beside what it kept.
		actFull = layerActivations(m, local, m.Seq, p.MicroBatch, p.without()) - act
	}
	// Context parallelism's K/V in transit for the layer at work: the
	// whole sequence's K and V and, backward, their gradients
	// (all-gather); two blocks of each double-buffered (ring).
	var cpBuffers float64
	if cp > 1 {
		kvw := 2 * math.Max(float64(m.KVHeads)/T, 1) * d
		if m.MLA() {
			kvw = float64(m.Heads) / T * float64(m.QKNope+m.QKRope+m.VHead)
		}
		full := float64(p.MicroBatch) * float64(m.Seq) * kvw * 2
		cpBuffers = 2 * full
		if p.CPAlgo == CPRing {
			cpBuffers = 4 * full / float64(cp)
		}
	}
	worst := -1
	expertOnStage := func(int) float64 { return 0 }
	if m.MoE() {
		expertOnStage = func(st int) float64 { return float64(stageLayerCount(st)-stageDense(st)) * moe.experts }
	}
	var epHidden []float64 // each stage's all-to-alls hidden by EPOverlap
	if p.EPOverlap && m.MoE() {
		epHidden = make([]float64, pp)
	}
	var stageW []float64 // each stage's weight gradients a micro-batch, the W of DualPipe and the zero-bubble schedules
	if p.Schedule.splitsW() {
		stageW = make([]float64, pp)
	}
	for st := 0; st < pp; st++ {
		layers := stageLayerCount(st)
		params := float64(layers) * layerParams
		L := float64(layers)
		fwd, bwd, tp := L*cost.fwd, L*cost.bwd, L*(cost.tpFwd+cost.tpBwd)
		tpFwd, rec, epc, epFwd := L*cost.tpFwd, L*cost.recompute, 0.0, 0.0
		wg := L * cost.wgrad
		memBound := L * cost.memBound
		// Context parallelism's exposed K/V traffic (the same attention
		// in an MoE layer): it holds up the layer, as TP's all-reduces do.
		cpc := L * (cost.cpFwd + cost.cpBwd)
		stageAct := act
		if m.MoE() {
			// Its MoE layers in place of dense ones.
			d := float64(stageDense(st))
			k := L - d
			params = d*layerParams + k*moe.params
			fwd, bwd = d*cost.fwd+k*moe.cost.fwd, d*cost.bwd+k*moe.cost.bwd
			wg = d*cost.wgrad + k*moe.cost.wgrad
			tp = d*(cost.tpFwd+cost.tpBwd) + k*(moe.cost.tpFwd+moe.cost.tpBwd)
			tpFwd, rec = d*cost.tpFwd+k*moe.cost.tpFwd, d*cost.recompute+k*moe.cost.recompute
			epc, epFwd = k*moe.a2a, k*moe.a2aFwd
			memBound = d*cost.memBound + k*moe.cost.memBound
			if L > 0 {
				stageAct = (d*act + k*moe.act) / L
			}
		}
		tp += cpc
		tpFwd += L * cost.cpFwd
		if st == 0 {
			params += embedParams
		}
		if st == headStage && m.MTPLayers > 0 {
			// The multi-token-prediction modules after the last layer
			// (counted among its layers): each also projects the joined
			// hidden state and embedding (2h → h) and runs the output
			// head again.
			k := float64(m.MTPLayers)
			params += k * (2*h*h/T + 3*h)
			fwd += k * (mtp.fwd + headFwd)
			bwd += k * (mtp.bwd + headBwd)
			wg += k * (mtp.wgrad + hd.gemmW)
		}
		if st == headStage {
			params += h // final norm
			if !m.Tied || headStage > 0 {
				// Untied output layer, or the tied embedding's copy on the
				// last stage (Megatron-LM keeps one and syncs its gradient;
				// a V holds both on rank 0).
				params += float64(m.Vocab) * h / T
			}
			fwd += headFwd
			bwd += headBwd
			wg += hd.gemmW
		}
		if epc > 0 {
			if p.EPOverlap {
				// DualPipe's pairing: the part of the all-to-alls the
				// paired chunk's computation does not hide (moe.go).
				compute, exposed, hidden := overlapEP(p, g, epc, fwd+bwd, memBound)
				slower := compute / (fwd + bwd)
				fwd, bwd, rec, wg = fwd*slower, bwd*slower, rec*slower, wg*slower
				epc, epFwd, epHidden[st] = exposed, epFwd*exposed/epc, hidden
			}
			tp += epc // the all-to-alls hold up the layer, as TP's all-reduces do
			tpFwd += epFwd
		}
		r.StageParams[st] = params
		r.StageForward[st], r.StageBackward[st], r.StageTP[st] = fwd, bwd, tp
		r.StageTPForward[st], r.StageRecompute[st] = tpFwd, rec
		if stageW != nil {
			stageW[st] = wg
		}
		r.StageEP[st] = epc
		r.StageCP[st] = cpc

		mem := Memory{Stage: st, Layers: layers, Capacity: float64(g.HBMBytes)}
		// ZeRO partitions over the DP ranks that hold the same weights:
		// all of them for the dense part, DP ÷ EP for the experts; and
		// over the CP ranks, which hold the same weights too.
		D := float64(dp * cp)
		opt := states.Optimizer() // master weights and Adam's moments (12 in the ZeRO paper's count)
		mem.Weights, mem.Gradients, mem.Optimizer = states.Weights*params, gradBytes*params, opt*params
		if ex := expertOnStage(st); ex > 0 {
			// The expert part over DP ÷ EP.
			shard := func(n int, bytes float64) float64 {
				if p.ZeRO < n {
					return bytes * params
				}
				return bytes * ((params-ex)/D + ex/(D/float64(p.ep())))
			}
			mem.Weights, mem.Gradients, mem.Optimizer = shard(3, states.Weights), shard(2, gradBytes), shard(1, opt)
		} else {
			if p.ZeRO >= 1 {
				mem.Optimizer /= D
			}
			if p.ZeRO >= 2 {
				mem.Gradients /= D
			}
			if p.ZeRO >= 3 {
				mem.Weights /= D
			}
		}
		mem.InFlight = InFlight(p.Schedule, pp, mbs, chunks, st)
		layersPerChunk := float64(layers) / float64(chunks)
		mem.Activations = float64(mem.InFlight) * layersPerChunk * stageAct
		if p.Recompute == RecomputeOp {
			mem.Activations += actFull
		}
		if p.Recompute == RecomputeFull {
			mem.Activations += actFull
			if m.MoE() && stageDense(st) < layers {
				mem.Activations += moe.actFull - actFull
			}
		}
		if st == headStage {
			// FP32 logits for the cross-entropy of the micro-batch in
			// flight (Korthikanti et al., 4·s·b·V/t).
			mem.Activations += 4 * n * float64(m.Vocab) / T
		}
		// Buffers: the all-gathered input of a TP layer with sequence
		// parallelism (and its gradient); ZeRO-3 prefetches the next
		// layer's full weights while one is in use.
		if t > 1 {
			mem.Buffers += 2 * n * h * 2
		}
		if p.ZeRO == 3 {
			mem.Buffers += 2 * 2 * math.Max(layerParams, moe.params)
		}
		mem.Buffers += cpBuffers
		mem.Total = mem.Weights + mem.Gradients + mem.Optimizer + mem.Activations + mem.Buffers
		mem.Check()
		if r.StageMemory != nil {
			r.StageMemory[st] = mem
		}
		if worst < 0 || mem.Total > r.Memory.Total {
			worst, r.Memory = st, mem
		}
	}
	if p.Schedule == DualPipe {
		// Each rank holds two stages (dualpipe.go).
		r.foldDualPipe(epHidden, stageW)
		perStage := expertOnStage
		expertOnStage = func(st int) float64 { return perStage(st) + perStage(pp-1-st) }
	}
	r.StageW = stageW
	if se != nil && se.mode != searchBound {
		if !r.Memory.Fits {
			return r, nil // a search keeps only the plans that fit
		}
		if se.mode == searchFull {
			r.setStageLists(slices.Clone(stage), pp) // kept: its own array
		}
	}

	// The critical stage sets the pace of the steady state.
	var crit int
	var slot float64
	M := float64(mbs)
	tm := &r.Time
	pace := func() {
		crit = 0
		for st := range pp {
			if r.StageForward[st]+r.StageBackward[st]+r.StageTP[st] > r.StageForward[crit]+r.StageBackward[crit]+r.StageTP[crit] {
				crit = st
			}
		}
		slot = r.StageForward[crit] + r.StageBackward[crit] + r.StageTP[crit]
		tm.Compute = M * (r.StageForward[crit] + r.StageBackward[crit])
		tm.TPComm = M * (r.StageTP[crit] - r.StageEP[crit] - r.StageCP[crit])
		tm.EPComm = M * r.StageEP[crit]
		tm.CPComm = M * r.StageCP[crit]
		if epHidden != nil {
			tm.EPHidden = M * epHidden[crit]
		}
	}
	pace()
	if se != nil && se.mode == searchBound {
		tm.Step = M * slot
		return r, nil
	}
	// Data parallelism over the stage with the most parameters; a
	// mixture of experts' expert weights over the DP ÷ EP ranks that hold
	// the same experts, the rest over all DP ranks (one collective each,
	// one after the other).
	maxParams, maxExpert, maxStage := 0.0, 0.0, 0
	for st, sp := range r.StageParams {
		if sp > maxParams {
			maxParams, maxExpert, maxStage = sp, expertOnStage(st), st
		}
	}
	// With context parallelism the gradients are reduced over DP × CP
	// ranks (the CP ranks hold the same weights).
	var perStep, perMicro float64
	nicShare := 0.0 // of DP's time, the part on the NICs
	if dc := dp * cp; dc > 1 {
		k := gradPerNode(p, cl)
		nicShare = dpNICShare(maxParams*gradBytes, dc, k, cl)
		// Each collective as NCCL's model costs it (its latency grows
		// with the nodes the group spans), issued calls at a time over
		// the stage's parameters: a gradient bucket each (all but ZeRO-3),
		// a layer each (ZeRO-3's gathers and reduce-scatters).
		coll := func(op collective.Op, bytes, calls float64) float64 {
			if !m.MoE() {
				return calls * ncclTime(op, bytes/calls, dc, k, cl)
			}
			ep := p.ep()
			de, ke := dc/ep, max(1, k/ep)
			dense, expert := bytes*(1-maxExpert/maxParams), bytes*maxExpert/maxParams
			return calls * (ncclTime(op, dense/calls, dc, k, cl) + ncclTime(op, expert/calls, de, ke, cl))
		}
		buckets := Buckets(maxParams, dc, p.Overlap)
		layers := float64(max(1, stageLayerCount(maxStage)))
		grads, weights := maxParams*gradBytes, maxParams*2
		switch p.ZeRO {
		case 0:
			perStep = coll(collective.AllReduce, grads, buckets)
		case 1: // reduce-scatter gradients, all-gather weights
			perStep = coll(collective.ReduceScatter, grads, buckets) + coll(collective.AllGather, weights, buckets)
		case 2:
			perMicro = coll(collective.ReduceScatter, grads, buckets)
			perStep = coll(collective.AllGather, weights, buckets)
		case 3: // gather a layer's weights forward and backward, reduce-scatter its gradients
			perMicro = 2*coll(collective.AllGather, weights, layers) + coll(collective.ReduceScatter, grads, layers)
			if p.blocking() {
				perMicro = blockingZeRO3(m, p, cl, dc, k, stageLayerCount(maxStage), maxParams, gradBytes)
			}
		}
	}
	tm.DPComm = perStep + M*perMicro
	hide := func() {
		if !p.Overlap {
			return
		}
		buckets := Buckets(maxParams, dp*cp, true)
		bwdLast := r.StageBackward[crit]
		tm.DPHidden = math.Min(perStep*(1-1/buckets), bwdLast)
		if perMicro > 0 && !p.blocking() {
			layers := float64(max(1, stageLayerCount(crit)))
			window := r.StageForward[crit] + r.StageBackward[crit]
			tm.DPHidden += M * math.Min(perMicro*(1-1/layers), window)
		}
	}
	hide()
	// NIC sharing (issue 19): the DP collective's part across the nodes
	// runs on each GPU's NIC behind the compute, for the share u of the
	// compute window; pipeline sends and the TP all-reduces of a group
	// that spans nodes leave through the same NIC. Two flows share it
	// half and half: a send or an all-reduce that meets DP's traffic (u
	// of them) takes twice its bandwidth term — on the critical path
	// (Time.NICShared, below) — and DP's collective, which loses the NIC
	// for as long, finishes that much later: seen in the step once it no
	// longer fits behind the compute.
	u := 0.0
	if tm.Compute > 0 {
		u = math.Min(1, tm.DPHidden*nicShare/tm.Compute)
	}
	r.NICSharing = u
	var tpLeave float64 // seconds a step's TP all-reduces spend across nodes
	if u > 0 {
		var leave float64 // seconds a GPU's NIC carries sends and TP a step
		if pp > 1 && PipelineLink(p, cl) == cl.Inter {
			// Each chunk of each micro-batch: its activations out
			// forward, their gradients back.
			bw := n * h * 2 / T / (cl.Inter.Bandwidth * cl.Inter.Efficiency)
			sent := chunks
			if p.Schedule == DualPipe {
				sent = 2 // a rank holds two stages
			}
			leave += 2 * M * float64(sent) * bw
		}
		if p.TP > tpPerNode(p, cl) {
			per := 4.0 // two TP all-reduces forward, two backward a layer
			if p.Recompute == RecomputeFull {
				per = 6
			}
			tpLeave = M * float64(stageLayerCount(crit)) * per * tpAcross(n*h*2, p, cl)
			leave += tpLeave
		}
		if perMicro > 0 {
			perMicro += u * leave / M
		} else {
			perStep += u * leave
		}
		tm.DPComm = perStep + M*perMicro
		hide()
	}
	r.BubbleFraction = BubbleFraction(pp, mbs, v)
	if pp > 1 {
		// One pipeline send: b·s·h/t activations (Megatron's
		// scatter/gather).
		link := PipelineLink(p, cl)
		bytes := n * h * 2 / T
		r.P2P = link.Latency.Seconds() + bytes/(link.Bandwidth*link.Efficiency)
		// The bubble and the sends on the critical path, from the
		// schedule run block by block (the one Timeline draws).
		switch {
		case p.Schedule == DualPipe:
			tm.Bubble, tm.PPComm = dualPipeIdle(r, crit, stageW[crit])
			r.BubbleFraction = tm.Bubble / (M * slot)
		case se != nil && se.mode == searchLower:
			// No bubble and no sends: a bound (Time.Step grows with both).
		case p.Schedule.closedForm():
			tm.Bubble, tm.PPComm = zeroBubbleIdle(r, crit, stageW[crit], M*slot, slot, se)
			r.BubbleFraction = tm.Bubble / (M * slot)
		default:
			tm.Bubble, tm.PPComm = pipelineIdle(r, p.Schedule, M*slot, slot, se)
		}
	}

	if u > 0 {
		// The sends and TP all-reduces on the critical path that leave
		// the node, slowed by DP's share of their NIC: u times their
		// bandwidth term (PPComm ÷ P2P sends lie on the path).
		if pp > 1 && r.P2P > 0 && PipelineLink(p, cl) == cl.Inter {
			bw := n * h * 2 / T / (cl.Inter.Bandwidth * cl.Inter.Efficiency)
			tm.NICShared += u * tm.PPComm / r.P2P * bw
		}
		tm.NICShared += u * tpLeave
	}
	tm.Exposed = tm.TPComm + tm.EPComm + tm.CPComm + tm.PPComm + tm.DPComm - tm.DPHidden + tm.NICShared

	// Adam: read the master weights, momentum, variance and the
	// gradient; write the three and the 16-bit weights (StateBytes.
	// AdamTraffic: 28 bytes a parameter with FP32 states, 30 with FP32
	// gradients).
	shard := maxParams
	if p.ZeRO >= 1 {
		shard = (maxParams-maxExpert)/float64(dp*cp) + maxExpert/float64(dp*cp/p.ep())
	}
	tm.Optimizer = shard * states.AdamTraffic() / (g.HBMBandwidth * MemoryEfficiency)
	// Every GPU waits for the slowest at the step's synchronisations:
	// the compute, and the bubble that is other stages' compute, run at
	// its pace.
	tm.Straggler = (tm.Compute + tm.Bubble) * StragglerFactor(cl.GPUs, cl.GPUVariation)
	tm.Step = tm.Compute + tm.Bubble + tm.Exposed + tm.Optimizer + tm.Straggler

	// Utilisation is quoted against the datasheet's dense peak in the
	// products' number format: BF16 (FP16 for FP16 plans), and FP8's for
	// FP8 plans — against the 16-bit peak an FP8 run could read above 1.
	r.MFUPeakDtype = hw.BF16
	if p.Dtype == hw.FP16 || p.Dtype == hw.FP8 {
		r.MFUPeakDtype = p.Dtype
	}
	peak, _ := c.Cluster.GPU.PeakFLOPS(r.MFUPeakDtype)
	r.MFUPeak = peak
	gpus := float64(cl.GPUs)
	r.TokensPerS = tokens / tm.Step
	r.TFLOPSPerGPU = r.HardwareFLOPs / tm.Step / gpus / 1e12
	r.ModelTFLOPSPerGPU = r.ModelFLOPs / tm.Step / gpus / 1e12
	r.MFU = r.ModelFLOPs / tm.Step / gpus / peak
	r.HFU = r.HardwareFLOPs / tm.Step / gpus / peak
	return r, nil
}

// StepFLOPs are a step's model FLOPs (forward and backward, 3× the
// forward's matrix products) and hardware FLOPs (plus the forward passes
// recomputation repeats). Per token and layer the forward does 2 FLOPs
// per weight of every matrix and 4·s·h in the attention products; the
// output layer 2·h·V. For GPT shapes this is exactly Korthikanti et al.'s
// 72·B·L·s·h²·(1 + s/(6h) + V/(12·h·L)) and, with full recomputation,
// Megatron's 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)).
func StepFLOPs(m model.Transformer, batch int, rc Recompute) (modelFLOPs, hardwareFLOPs float64) {
	h, f, s := float64(m.Hidden), float64(m.FFNSize), float64(m.Seq)
	kv := float64(m.KVHeads * m.HeadDim())
	qw := float64(m.Heads * m.HeadDim())
	ffn := 2 * h * f
	if m.FFN.Gated() {
		ffn = 3 * h * f
	}
	mats := 2*h*qw + 2*h*kv + ffn
	tokens := float64(batch) * s
	L := float64(m.Layers)
	core := 4 * s * h // the attention products, QKᵀ and ×V
	if m.MLA() {
		// Latent attention: its projections; the products with heads
		// qk wide for QKᵀ and v wide for ×V.
		mats = m.AttentionParams() + ffn
		core = 2 * s * float64(m.Heads) * float64(m.QKNope+m.QKRope+m.VHead)
	}
	layerFwd := 2*mats + core
	allFwd := L * layerFwd
	if m.MoE() {
		// A token's MoE layers: its TopK experts, the shared ones and
		// the router's scores in place of the dense block.
		moeMats := mats - ffn + float64(m.TopK)*3*h*float64(m.ExpertFFN) + 3*h*float64(m.SharedFFN) + h*float64(m.Experts)
		d := float64(m.Layers - m.MoELayers()) // the dense ones
		moeFwd := 2*moeMats + core
		allFwd = d*layerFwd + (L-d)*moeFwd
		// Multi-token prediction: a layer like the last, the projection
		// of 2h to h and the output head, again, for every token.
		last := layerFwd
		if m.MoELayer(m.Layers) {
			last = moeFwd
		}
		allFwd += float64(m.MTPLayers) * (last + 2*2*h*h + 2*h*float64(m.Vocab))
	}
	modelFLOPs = 3 * tokens * (allFwd + 2*h*float64(m.Vocab))
	hardwareFLOPs = modelFLOPs
	switch {
	case rc == RecomputeFull && m.MoE():
		hardwareFLOPs += tokens * allFwd
	case rc == RecomputeFull:
		hardwareFLOPs += tokens * L * layerFwd
	case rc == RecomputeSelective:
		hardwareFLOPs += tokens * L * 4 * s * h
	case rc == RecomputeOp:
		kv, q := float64(m.KVHeads*m.HeadDim()), float64(m.Heads*m.HeadDim())
		hardwareFLOPs += tokens * L * 2 * h * (kv + q + float64(m.FFNSize))
	}
	return modelFLOPs, hardwareFLOPs
}

// attentionImpl is the plan's attention kernel.
func (p Plan) attentionImpl() kernel.AttentionImpl {
	if p.Flash {
		return kernel.FlashAttention
	}
	return kernel.StandardAttention
}

// attentionConfig is the attention core of m's layer on one GPU as the
// plan runs it: its heads over TP, the whole sequence's keys; with
// context parallelism, the calls Transformer Engine makes of it
// (cpAttention). Unmasked: a decoder's causal mask
// (kernel.AttentionConfig.Causal) halves FlashAttention's work, but with
// it alone every FlashAttention row of gpuscope validate turns
// optimistic (Llama 3's 131K row +39%; DeepSeek's own profile of its
// chunk −13%) — the engine undercharges as much elsewhere (that profile
// shows the weight-gradient products at 0.63 of the forward's rate and
// the FP8 casts at 3.9 ms a layer): the two are to be modelled together.
func (p Plan) attentionConfig(m model.Transformer, g hw.GPU, dt hw.Dtype) kernel.AttentionConfig {
	c := kernel.AttentionConfig{Batch: p.MicroBatch, Heads: m.Heads / p.TP, Seq: m.Seq,
		HeadDim: attentionHeadDim(m), Dtype: attDtype(dt), GPU: g, Impl: p.attentionImpl(), FlashVersion: p.FlashVersion}
	if cp := p.cp(); cp > 1 {
		// Every call's queries are a chunk of the load-balanced causal
		// split, s/2CP (the backward's loop); its keys (the forward's),
		// a ring step's other half chunk, s/2CP, or, all-gathered, the
		// sequence up to the chunk's end: about half of it for the
		// ranks that hold the middle chunks, the slowest (cpAttention).
		c.CallQueries, c.CallKeys = m.Seq/(2*cp), m.Seq/2
		if p.CPAlgo == CPRing {
			c.CallKeys = m.Seq / (2 * cp)
		}
	}
	return c
}

// cpAttention is a context-parallel rank's attention core, forward and
// backward, seconds, as Transformer Engine's CP runs it
// (transformer_engine/pytorch/attention.py, commit 838345eb of
// 2024-12-19): s/CP queries a rank, in two chunks of the load-balanced
// causal split (chunks i and 2·CP−1−i of 2·CP), 1/CP of the sequence's
// attention counted unmasked (attentionConfig), at the rates of the
// FlashAttention calls it makes (kernel.AttentionConfig.CallKeys):
//
//   - all-gather (AttnFuncWithCPAndKVAllGather, Llama 3's): one call a
//     chunk, its s/2CP queries against the gathered keys up to the
//     chunk's end, (i+1)·s/2CP; rank r's chunks r and 2·CP−1−r see
//     (r+1)·s/2CP and (2·CP−r)·s/2CP keys — the middle ranks about s/2
//     each, which run slowest (rates rise with length), the layer
//     waiting for them: forward at s/2 keys, backward at s/2CP queries;
//   - ring (AttnFuncWithCPAndKVP2P): CP steps, one call each, the same
//     causal work in every step: step 0 the rank's own chunks (s/CP
//     queries against s/CP keys, the diagonal), then, as the K and V of
//     rank r−i arrive, its s/CP queries against their first half chunk
//     (i ≤ r) or its second half chunk of queries against both of
//     theirs (i > r) — a forward loop of s/2CP keys or a backward loop
//     of s/2CP queries in every step but the first on one rank or
//     another, and each step waits for its neighbour's K and V: CP − 1
//     steps at s/2CP, one at s/CP.
func cpAttention(c kernel.AttentionConfig, p Plan) (fwd, bwd float64, err error) {
	cp := float64(p.cp())
	att, err := kernel.Attention(c)
	fwd, bwd = att.TimeS/cp, att.BackwardS/cp
	if err != nil || p.cp() < 2 || p.CPAlgo != CPRing {
		return fwd, bwd, err
	}
	diag := c
	diag.CallKeys, diag.CallQueries = c.Seq/p.cp(), c.Seq/p.cp()
	d, err := kernel.Attention(diag)
	fwd = (d.TimeS + (cp-1)*att.TimeS) / (cp * cp)
	bwd = (d.BackwardS + (cp-1)*att.BackwardS) / (cp * cp)
	return fwd, bwd, err
}

// cpMerges is what Transformer Engine's CP adds around a rank's
// FlashAttention calls in one layer, forward and backward, seconds: the
// kernels that split, join and merge the calls' inputs and results
// (transformer_engine/pytorch/attention.py, commit 838345eb), each a
// kernel.LaunchOverhead at least and the memory-bound ones their bytes
// at MemoryEfficiency of HBM's bandwidth — on the rank's one stream, in
// series with the calls (a layer without CP makes one call). q is the
// rank's queries' (and outputs') bytes, b·s/CP × its heads × d × 2; kv
// its own K and V, b·s/CP × 2 × its KV heads × d × 2 (latent
// attention: outputs v_head wide, K and V a head each, as cpBuffers
// counts them); K the gathered sequence's, CP·kv.
//
//   - ring (AttnFuncWithCPAndKVP2P), CP steps: forward, each step's
//     call, its softmax statistics merged into the rank's
//     (flash_attn_fwd_softmax_lse_correction: b·H·s/CP doubles, not
//     counted) and its output merged into the rank's
//     (flash_attn_fwd_out_correction: the step's read, the rank's read
//     and written, 3·q, the slowest rank's — its every step covers
//     all of its queries); backward, each step's call, dQ accumulated
//     (dq.add_: 3·q) and dK, dV (dkv.add_: 3·kv) — 3·CP kernels each
//     way, 3·CP·q and 3·CP·(q + kv) bytes;
//   - all-gather (AttnFuncWithCPAndKVAllGather): forward, the gathered
//     K and V put in chunk order (index_select, K and V: 2 kernels,
//     read and written, 2·K), and for each of the two chunks its queries
//     (q.select(…).contiguous(): q/2 read and written), its keys and
//     values up to the chunk's end (x[start:end] …contiguous(): chunk j
//     (j+1)/2CP of K), its call, and its output copied into the rank's
//     (out[:, i].copy_: q/2) — 12 kernels, 4·q + 2·K + 2·(2CP+1)/2CP·K
//     bytes (the slices of chunks r and 2CP−1−r add to (2CP+1)/2CP of
//     K); backward, dK and dV of the sequence zeroed (torch.zeros: 2
//     kernels, K written), the reordering again (2, 2·K), and for each
//     chunk its queries, keys and values and output gradient made
//     contiguous (4 kernels: q/2 and q/2 read and written, the K, V
//     slice), its call, dQ copied (q/2), dK and dV moved to sequence
//     order (2 kernels, the slice read and written) and added into the
//     sequence's (2 kernels: the slice and the sum read, the sum
//     written) — 24 kernels, 6·q + 3·K + 7·(2CP+1)/2CP·K bytes.
//
// Less the one call a layer without CP makes.
func cpMerges(m model.Transformer, p Plan, cl Cluster) (fwd, bwd float64) {
	cp := p.cp()
	if cp < 2 {
		return 0, 0
	}
	T := float64(p.TP)
	d := float64(m.HeadDim())
	tokens := float64(p.MicroBatch) * float64(m.Seq/cp)
	q := tokens * float64(m.Heads) / T * d * 2
	kv := tokens * 2 * math.Max(float64(m.KVHeads)/T, 1) * d * 2
	if m.MLA() {
		q = tokens * float64(m.Heads) / T * float64(m.VHead) * 2
		kv = tokens * float64(m.Heads) / T * float64(m.QKNope+m.QKRope+m.VHead) * 2
	}
	C := float64(cp)
	bw := cl.GPU.HBMBandwidth * MemoryEfficiency
	launch := kernel.LaunchOverhead
	if p.CPAlgo == CPRing {
		fwd = (3*C-1)*launch + 3*C*q/bw
		bwd = (3*C-1)*launch + 3*C*(q+kv)/bw
		return fwd, bwd
	}
	K, slices := C*kv, (2*C+1)/(2*C)
	fwd = 11*launch + (4*q+2*K+2*slices*K)/bw
	bwd = 23*launch + (6*q+3*K+7*slices*K)/bw
	return fwd, bwd
}

// attentionHeadDim is the head dimension m's attention is timed at: its
// heads', or latent attention's QKᵀ qk wide and ×V v wide at their mean,
// which costs the same.
func attentionHeadDim(m model.Transformer) int {
	if m.MLA() {
		return (m.QKNope + m.QKRope + m.VHead) / 2
	}
	return m.HeadDim()
}

// trainedLayers are the layers the pipeline stages hold: the model's and
// its multi-token-prediction modules (one layer each, after the last).
func trainedLayers(m model.Transformer) int { return m.Layers + m.MTPLayers }

// costs of one layer and one micro-batch on one GPU, seconds.
type costs struct {
	fwd, bwd     float64 // compute, backward including recomputation
	recompute    float64 // the part of bwd that repeats the forward
	tpFwd, tpBwd float64 // tensor-parallel collectives
	cpFwd, cpBwd float64 // context parallelism's exposed K/V traffic
	attn, kvFull float64 // the attention core's forward; K and V of the whole sequence, bytes (CPLayer)
	// memBound is the part of fwd + bwd that is memory-bound elementwise
	// work, which SMs taken for communication do not slow (overlapEP).
	memBound float64
	// wgrad is the part of bwd that computes weight gradients: each
	// product's dW (the attention core, the elementwise passes and
	// recomputation have none) — DualPipe's W.
	wgrad float64
}

// mm is one of a layer's products, N × K (its M the micro-batch's
// tokens on the GPU).
type mm struct{ n, k float64 }

func layerCost(m model.Transformer, p Plan, cl Cluster) costs { return layerCostOf(m, p, cl, nil) }

// layerCostOf is layerCost, each kernel's part also appended to ks when
// it is not nil (LayerKernels): the numbers the step is made of, named.
func layerCostOf(m model.Transformer, p Plan, cl Cluster, ks *kernelList) costs {
	g, dt := cl.GPU, p.matmul()
	h, f := float64(m.Hidden), float64(m.FFNSize)
	T := float64(p.TP)
	kvGPU := math.Max(float64(m.KVHeads)/T, 1) * float64(m.HeadDim()) // K, V replicated when fewer KV heads than ranks
	cp := p.cp()
	n := float64(p.MicroBatch) * float64(m.Seq/cp) // the tokens this GPU holds
	S := float64(m.Seq)                            // … whose queries see keys of the whole sequence
	mem := func(bytes float64) float64 { return bytes / (g.HBMBandwidth * MemoryEfficiency) }

	// The layer's products: M×N×K forward; backward dX (M×K, inner N) and
	// dW (K×N, inner M).
	ffnOut := 1.0
	if m.FFN.Gated() {
		ffnOut = 2 // gate and up in one product
	}
	qw := float64(m.Heads * m.HeadDim())
	var mats []mm
	var upProj float64 // latent attention's up projections, forward
	if m.MLA() {
		// Latent attention: the down projections (replicated), the up
		// projections and the output (split over TP).
		a, qk := float64(m.Heads), float64(m.QKNope+m.QKRope)
		kvr, rope := float64(m.KVLoRA), float64(m.QKRope)
		q := []mm{{a * qk / T, h}}
		if m.QLoRA > 0 {
			qr := float64(m.QLoRA)
			q = []mm{{qr, h}, {a * qk / T, qr}}
		}
		mats = append(q, mm{kvr + rope, h}, mm{a * float64(m.QKNope+m.VHead) / T, kvr}, mm{h, a * float64(m.VHead) / T},
			mm{ffnOut * f / T, h}, mm{h, f / T})
		// The up projections: Q's from its latent, K's and V's from theirs.
		upProj = cl.gemm(dt, n, a*float64(m.QKNope+m.VHead)/T, kvr)
		if m.QLoRA > 0 {
			upProj += cl.gemm(dt, n, a*qk/T, float64(m.QLoRA))
		}
	} else {
		mats = []mm{
			{qw/T + 2*kvGPU, h}, // Q, K, V (column parallel)
			{h, qw / T},         // output projection (row parallel)
			{ffnOut * f / T, h}, // up (and gate)
			{h, f / T},          // down
		}
	}
	var fwd, bwd, wgrad float64
	var quant quantPasses
	// Each product's forward, input-gradient and weight-gradient times,
	// for TP's overlap (the four of a dense layer: QKV, output, up, down).
	var gf, gd, gw [4]float64
	for i, x := range mats {
		if x.n <= 0 || x.k <= 0 {
			continue // no feed-forward block (an MoE layer without shared experts)
		}
		kf, kw := cl.gemm(dt, n, x.n, x.k), cl.gemm(dt, x.k, x.n, n)
		kb := cl.gemm(dt, n, x.k, x.n) + kw
		if i < len(gf) {
			gf[i], gd[i], gw[i] = kf, kb-kw, kw
		}
		fwd += kf
		bwd += kb
		wgrad += kw
		if recordKernels {
			ks.add(matName(m, i), KernelGEMM, n, x.n, x.k, kf, kb)
		}
		// Latent attention's KV down projection reads the same quantized
		// input as Q's (the third product, after Q's two).
		rows := n
		if m.MLA() && m.QLoRA > 0 && i == 2 {
			rows = 0
		}
		quant.add(dt, n, x.n, x.k, rows)
	}
	// Transformer Engine's FP8 work around the products (te.go): the
	// output projection reads the attention's BF16 output, the down
	// projection the activation's.
	var teF, teB float64
	if dt == hw.FP8 {
		teF, teB = teLayer(p, cl, trainedLayers(m), n, mats, len(mats)-3, len(mats)-1).seconds(g.HBMBandwidth * MemoryEfficiency)
	}
	// The attention core.
	// With context parallelism a rank's s/CP queries (two chunks of the
	// load-balanced causal split) against all s keys: 1/CP of the
	// sequence's attention.
	attn, attnBack, err := cpAttention(p.attentionConfig(m, g, dt), p)
	if err != nil {
		attn = 4 * n * S * h / T / (peakOf(g, dt) * kernel.TensorEfficiency)
		attnBack = AttentionBackward * attn
	}
	// … and what Transformer Engine's CP does around its calls.
	mergeF, mergeB := cpMerges(m, p, cl)
	attn += mergeF
	attnBack += mergeB
	fwd += attn
	bwd += attnBack
	if recordKernels {
		ks.add("attention", KernelAttention, 0, 0, 0, attn, attnBack)
	}
	// Memory-bound elementwise work: two LayerNorms (read, write), two
	// bias-dropout-residual adds (read two, write one, a mask), the FFN's
	// activation; standard attention's dropout on the scores. Backward
	// moves about twice the forward's bytes.
	local := n * h * 2
	if p.SP {
		local /= T
	}
	add := 3.5 // a residual add: read two, write one, a mask
	if m.NoDropout {
		add = 3
	}
	elem := 2*2*local + 2*add*local
	if m.FFN.Gated() {
		elem += 3 * n * f / T * 2
	} else {
		elem += 2 * n * f / T * 2
	}
	if p.Eager {
		elem = eagerElementwise(m, local/2, n*qw/T, n*kvGPU, n*f/T)
	}
	scoresDropout := !p.Flash && !m.NoDropout // standard attention's dropout pass over the scores
	if scoresDropout {
		elem += n * float64(m.Heads) / T * S * 5
	}
	fwd += mem(elem) + mem(quant.fwd) + teF
	bwd += 2*mem(elem) + mem(quant.bwd) + teB
	if recordKernels {
		ks.add("elementwise", KernelMemory, 0, 0, 0, mem(elem), 2*mem(elem))
		ks.add("quantize", KernelMemory, 0, 0, 0, mem(quant.fwd)+teF, mem(quant.bwd)+teB)
	}

	var c costs
	c.fwd = fwd
	c.bwd = bwd
	c.wgrad = wgrad
	c.memBound = 3*mem(elem) + mem(quant.fwd+quant.bwd) + teF + teB + mergeF + mergeB
	switch mods := p.modules(); {
	case p.Recompute == RecomputeOp:
		c.recompute = recomputeOp(m, p, cl, n, mem(elem))
		c.memBound += mem(elem)
	case p.Recompute == RecomputeFull:
		c.recompute = fwd
		c.memBound += mem(elem) + mem(quant.fwd) + teF
	case p.Recompute == RecomputeSelective:
		if mods&ModuleCoreAttn != 0 {
			// Korthikanti et al. 2022, §4.3: the attention core (QKᵀ,
			// softmax, dropout, ×V), with its scores.
			c.recompute += attn
			if scoresDropout {
				c.recompute += mem(n * float64(m.Heads) / T * S * 5)
				c.memBound += mem(n * float64(m.Heads) / T * S * 5)
			}
		}
		if mods&ModuleLayerNorm != 0 { // the two norms, read and written again
			norms := 2 * normBytes(m, p.Eager) * local / 2
			c.recompute += mem(norms)
			c.memBound += mem(norms)
		}
		if mods&ModuleMLAUpProj != 0 {
			c.recompute += upProj
		}
		if mods&ModuleMoEAct != 0 && f > 0 { // the MLP's activation, from its inputs
			a := 2 * n * f / T * 2
			if m.FFN.Gated() {
				a = 3 * n * f / T * 2
			}
			c.recompute += mem(a)
			c.memBound += mem(a)
		}
	}
	if p.swigluRewrites() && f > 0 {
		// The fused SwiGLU's backward writes the product again (the down
		// projection's weight gradient reads it): n·f/T values more.
		a := mem(n * f / T * 2)
		c.bwd += a
		c.memBound += a
	}
	c.bwd += c.recompute
	if p.TP > 1 {
		ar := hierAllReduce(n*h*2, p.TP, tpPerNode(p, cl), cl.Intra, cl.Inter)
		c.tpFwd = 2 * ar
		c.tpBwd = 2 * ar
		if p.TPOverlap && len(mats) == 4 {
			c.tpFwd, c.tpBwd = tpOverlapped(ar/2, p.TP, cl.GPU.SMs, gf, gd, gw)
		}
		if p.Recompute == RecomputeFull {
			c.tpBwd += c.tpFwd // the recomputed forward's own
		}
	}
	if cp > 1 {
		// K and V of the whole sequence on this GPU (its KV heads), BF16.
		kvw := 2 * kvGPU
		if m.MLA() {
			kvw = float64(m.Heads) / T * float64(m.QKNope+m.QKRope+m.VHead)
		}
		full := float64(p.MicroBatch) * S * kvw * 2
		c.cpFwd, c.cpBwd = cpComm(p, cl, full, attn, attnBack)
		c.kvFull = full
	}
	c.attn = attn
	if recordKernels {
		ks.add("recompute", KernelRecompute, 0, 0, 0, 0, c.recompute)
		ks.add("tp_allreduce", KernelCollective, 0, 0, 0, c.tpFwd, c.tpBwd)
		ks.add("cp_kv", KernelCollective, 0, 0, 0, c.cpFwd, c.cpBwd)
	}
	return c
}

// cpComm is context parallelism's exposed communication in one layer's
// forward and backward for a micro-batch, full the bytes of K and V of
// the whole sequence on a GPU, fwd and bwd the rank's attention times.
//
// All-gather (Llama 3): forward, K and V all-gathered over the CP ranks —
// each receives (CP−1)/CP of full; backward, gathered again (not kept:
// that would hold the whole sequence's K and V for every layer in
// flight) and their gradients reduce-scattered, the same bytes; with full
// recomputation the recomputed forward gathers once more. The attention
// waits for them: all exposed.
//
// Ring: CP−1 steps, each passing a block of K and V (full/CP) to the
// next rank while the attention of the block in hand (1/CP of the
// rank's) runs: each step exposes max(0, send − compute); backward the
// blocks travel with their dK and dV (twice the bytes).
//
// The CP ranks are TP ranks apart: on NVLink when TP·CP fits a node,
// else across nodes (the ring's slowest hop, and the all-gather's ring
// over nodes, at the NIC).
func cpComm(p Plan, cl Cluster, full, fwd, bwd float64) (cpFwd, cpBwd float64) {
	cp := p.cp()
	k := cpPerNode(p, cl)
	if p.CPAlgo == CPRing {
		link := cl.Intra
		if k < cp {
			link = cl.Inter
		}
		send := func(bytes float64) float64 {
			return link.Latency.Seconds() + bytes/(link.Bandwidth*link.Efficiency)
		}
		steps, block := float64(cp-1), full/float64(cp)
		cpFwd = steps * math.Max(0, send(block)-fwd/float64(cp))
		cpBwd = steps * math.Max(0, send(2*block)-bwd/float64(cp))
	} else {
		ag := collectiveTime(collective.AllGather, full, cp, k, cl)
		rs := collectiveTime(collective.ReduceScatter, full, cp, k, cl)
		cpFwd, cpBwd = ag, ag+rs
	}
	if p.Recompute == RecomputeFull {
		cpBwd += cpFwd
	}
	return cpFwd, cpBwd
}

// collectiveTime is op over n ranks, k of them a node, of bytes (the
// all-gather's output, the reduce-scatter's input), hierarchical: a ring
// on NVLink inside one node, across nodes at the NIC.
func collectiveTime(op collective.Op, bytes float64, n, k int, cl Cluster) float64 {
	if n < 2 {
		return 0
	}
	f, err := collective.ClosedForm(op, collective.Hierarchical, n, max(1, min(k, n)), bytes, cl.Intra, cl.Inter)
	if err != nil {
		return 0 // unreachable: n ≥ 2, k ≥ 1, bytes ≥ 0
	}
	return f.Seconds
}

// sustained is the GPU at SustainedClock: its tensor-core and CUDA-core
// peaks and its clock scaled, HBM unchanged.
func sustained(g hw.GPU) hw.GPU {
	s := g
	s.BoostClockHz *= SustainedClock
	s.Peak = make(map[hw.Dtype]float64, len(g.Peak))
	for d, v := range g.Peak {
		s.Peak[d] = v * SustainedClock
	}
	return s
}

func attDtype(d hw.Dtype) hw.Dtype {
	if d == hw.FP8 || d == fp8Block {
		return hw.BF16 // attention stays in 16 bits
	}
	return d
}

func peakOf(g hw.GPU, d hw.Dtype) float64 {
	if d == fp8Block {
		d = hw.FP8
	}
	p, _ := g.PeakFLOPS(d)
	return p
}

// gemm is the silicon layer's time for an M×N×K product on the
// cluster's GPU; a shape beyond its range falls back to the peak at
// kernel.TensorEfficiency. In a search the times are kept by shape
// (Cluster.gemms): the same products recur in every plan with the same
// TP, micro-batch and EP.
func (cl Cluster) gemm(d hw.Dtype, M, N, K float64) float64 {
	mi, ni, ki := max(int(math.Round(M)), 1), max(int(math.Round(N)), 1), max(int(math.Round(K)), 1)
	memo := cl.gemms
	var key uint64
	if memo != nil {
		if key = gemmKey(d, mi, ni, ki); key == 0 {
			memo = nil // a precision not numbered, or a shape too large: not kept
		}
	}
	if memo != nil {
		if t, ok := memo.times[key]; ok {
			return t
		}
	}
	g := cl.GPU
	block := d == fp8Block
	if block {
		d = hw.FP8
	}
	t := 2 * M * N * K / (peakOf(g, d) * kernel.TensorEfficiency)
	if r, err := kernel.GEMM(kernel.GEMMConfig{M: mi, N: ni, K: ki, Dtype: d, GPU: g, Kernel: kernel.TensorTiled, BlockScaled: block}); err == nil {
		t = r.TimeS
	}
	if memo != nil {
		memo.times[key] = t
	}
	return t
}

// gemmKey packs a product's precision (dtypeCode) and rounded shape
// into one integer, which a map hashes fastest: 0 when the precision is
// not numbered or a side is 2²⁰ or more.
func gemmKey(d hw.Dtype, m, n, k int) uint64 {
	c := dtypeCode(d)
	const side = 1 << 20
	if c == 0 || m >= side || n >= side || k >= side {
		return 0
	}
	return uint64(c)<<60 | uint64(m)<<40 | uint64(n)<<20 | uint64(k)
}

// dtypeCode numbers the precisions a product runs in (fp8Block apart
// from FP8); 0 for any other.
func dtypeCode(d hw.Dtype) int {
	for i, x := range [...]hw.Dtype{hw.FP32, hw.TF32, hw.FP16, hw.BF16, hw.FP8, hw.FP4, fp8Block} {
		if d == x {
			return i + 1
		}
	}
	return 0
}

// gemmMemo is a search's GEMM times by shape, for its one GPU.
type gemmMemo struct{ times map[uint64]float64 }

// head is the last stage's output layer for one micro-batch: the logits
// product (vocabulary-parallel, V/t wide) forward and its two backward,
// and the cross-entropy over b·s × V/t logits (b·s/CP with context
// parallelism) each way, as the plan's Loss runs it.
type head struct {
	n, v, h                    float64 // the product's shape: tokens × V/t × h
	gemmF, lossF, gemmB, lossB float64
	gemmW                      float64 // the part of gemmB that is the weights' gradient
}

func headOf(m model.Transformer, p Plan, cl Cluster) head {
	g := cl.GPU
	n := float64(p.MicroBatch) * float64(m.Seq/p.cp())
	v, h := float64(m.Vocab)/float64(p.TP), float64(m.Hidden)
	bf, bb := p.Loss.bytes()
	logits := n * float64(m.Vocab) / float64(p.TP) / (g.HBMBandwidth * MemoryEfficiency)
	w := cl.gemm(p.headDtype(), h, v, n)
	return head{n: n, v: v, h: h,
		gemmF: cl.gemm(p.headDtype(), n, v, h), lossF: bf * logits,
		gemmB: cl.gemm(p.headDtype(), n, h, v) + w, lossB: bb * logits, gemmW: w}
}

// mtpProjection is a multi-token-prediction module's projection of the
// joined hidden state and embedding (2h → h/t) for one micro-batch,
// forward and backward, and the backward's weight-gradient part.
func mtpProjection(m model.Transformer, p Plan, cl Cluster) (fwd, bwd, wgrad float64) {
	nt := float64(p.MicroBatch) * float64(m.Seq/p.cp())
	h, T := float64(m.Hidden), float64(p.TP)
	wgrad = cl.gemm(p.matmul(), 2*h, h/T, nt)
	return cl.gemm(p.matmul(), nt, h/T, 2*h), cl.gemm(p.matmul(), nt, 2*h, h/T) + wgrad, wgrad
}

// hierAllReduce all-reduces bytes over n ranks, k of them in each node,
// by the collective layer's closed form: reduce-scatter inside the node,
// all-reduce of each 1/k shard across nodes (every GPU on its own NIC at
// once), all-gather inside the node; a ring on NVLink within one node, a
// ring across nodes with k = 1; each link at its protocol efficiency.
// tpPerNode is how many of a TP group's ranks share a node (the group's
// ranks are neighbours).
func tpPerNode(p Plan, cl Cluster) int { return min(p.TP, cl.GPUsPerNode) }

// cpPerNode is how many of a CP group's ranks share a node: they are TP
// ranks apart (order TP, CP, DP, PP).
func cpPerNode(p Plan, cl Cluster) int {
	if p.TP < cl.GPUsPerNode {
		return min(p.cp(), cl.GPUsPerNode/p.TP)
	}
	return 1
}

// dpPerNode is how many of a DP group's ranks share a node: they are
// TP × CP ranks apart.
func dpPerNode(p Plan, cl Cluster) int {
	if tc := p.TP * p.cp(); tc < cl.GPUsPerNode {
		return min(p.DP, cl.GPUsPerNode/tc)
	}
	return 1
}

// gradPerNode is how many of the DP × CP ranks that hold the same weights
// (and reduce their gradients together) share a node: they are TP ranks
// apart.
func gradPerNode(p Plan, cl Cluster) int {
	if p.TP < cl.GPUsPerNode {
		return min(p.DP*p.cp(), cl.GPUsPerNode/p.TP)
	}
	return 1
}

// TPLink is the slowest link a TP group's all-reduce crosses, as
// Evaluate costs it: the node's own when the group fits one node, the
// network otherwise (a hierarchical all-reduce).
func TPLink(p Plan, cl Cluster) hw.Link {
	if tpPerNode(p, cl) >= p.TP {
		return cl.Intra
	}
	return cl.Inter
}

// DPLink is the slowest link a DP group's all-reduce crosses, as
// Evaluate costs it (over DP × CP ranks with context parallelism): the
// node's own when the whole group shares one node, the network
// otherwise.
func DPLink(p Plan, cl Cluster) hw.Link {
	if gradPerNode(p, cl) >= p.DP*p.cp() {
		return cl.Intra
	}
	return cl.Inter
}

// PipelineLink is the link Evaluate costs every pipeline send over
// (Result.P2P): the node's own when a stage's TP×CP×DP GPUs leave room in
// the node for the next stage's, the network otherwise. It is one link
// for all the sends: where more stages than one node holds meet at a
// node's edge, those sends cross the network but are costed as the
// node's own.
func PipelineLink(p Plan, cl Cluster) hw.Link {
	if p.TP*p.cp()*p.DP < cl.GPUsPerNode {
		return cl.Intra // neighbouring stages share a node
	}
	return cl.Inter
}

// ncclTime is one collective op of bytes over n ranks, k of them a node,
// as NCCL's own model costs it (collective.NCCLTime).
func ncclTime(op collective.Op, bytes float64, n, k int, cl Cluster) float64 {
	if n < 2 {
		return 0
	}
	k = max(1, min(k, n))
	c, err := collective.NCCLTime(op, collective.NCCLGroup{Ranks: n, Nodes: (n + k - 1) / k, Intra: cl.Intra, Inter: cl.Inter}, bytes)
	if err != nil {
		return 0 // unreachable: n ≥ 2, bytes ≥ 0, the cluster's links
	}
	return c.Seconds
}

func hierAllReduce(bytes float64, n, k int, intra, inter hw.Link) float64 {
	if n < 2 {
		return 0
	}
	f, err := collective.ClosedForm(collective.AllReduce, collective.Hierarchical, n, max(1, min(k, n)), bytes, intra, inter)
	if err != nil {
		return 0 // unreachable: n ≥ 2, k ≥ 1, bytes ≥ 0
	}
	return f.Seconds
}

// tpAcross is the bandwidth term of a TP all-reduce of bytes across the
// nodes its group spans (the hierarchical algorithm's ring over nodes,
// each GPU's NIC carrying 1/k of the bytes): what NIC sharing slows.
func tpAcross(bytes float64, p Plan, cl Cluster) float64 {
	k := tpPerNode(p, cl)
	f, err := collective.ClosedForm(collective.AllReduce, collective.Ring, (p.TP+k-1)/k, 1, bytes/float64(k), cl.Intra, cl.Inter)
	if err != nil {
		return 0
	}
	return f.Bandwidth
}

// dpNICShare is the part of a DP all-reduce of bytes over n ranks, k a
// node, that crosses the nodes' NICs (the all-reduce across nodes of the
// hierarchical algorithm, over its time): 0 inside one node, 1 with a
// rank a node.
func dpNICShare(bytes float64, n, k int, cl Cluster) float64 {
	k = max(1, min(k, n))
	if n <= k {
		return 0
	}
	all := hierAllReduce(bytes, n, k, cl.Intra, cl.Inter)
	across, err := collective.ClosedForm(collective.AllReduce, collective.Ring, (n+k-1)/k, 1, bytes/float64(k), cl.Intra, cl.Inter)
	if err != nil || all <= 0 {
		return 0
	}
	return math.Min(1, across.Seconds/all)
}

// InFlight is how many micro-batches (chunk-micro-batches when
// interleaved or in a V) stage st holds activations for at its peak: all
// m for GPipe; p − st for 1F1B (its warm-up forwards plus one);
// Megatron-LM's interleaved warm-up 2·(p − st − 1) + (v − 1)·p, plus
// one. On the first stage the interleaved count is L·(1 + (p−1)/(p·v))
// layers' worth, the factor Korthikanti et al. give for the interleaved
// schedule. ZB-H1 counts 1F1B's: Qi et al. (§2.1) keep its peak, the
// first stage's, at 1F1B's; what a later stage keeps beyond 1F1B's for
// the weight gradients it defers — the products' inputs, less than a
// micro-batch's activations each — is not counted. ZB-V and DualPipeV
// count chunks (vInFlight: 2p and 2p + 1 on every rank).
func InFlight(s Schedule, p, m, v, st int) int {
	switch s {
	case GPipe:
		return m
	case Interleaved:
		return min(m*v, 2*(p-st-1)+(v-1)*p+1)
	case DualPipe:
		return min(m, dualPipeInFlight(p, st))
	case ZBV, DualPipeV:
		return vInFlight(s, p, m)
	}
	return min(m, p-st)
}

// PipelineSends is how many sends lie on a schedule's critical path when
// every stage takes the same time (a backward twice a forward): the
// difference BuildTimeline finds between a run with sends and one
// without, in units of one send. GPipe's fill and drain cross p−1
// boundaries each way (2·(p−1)); interleaved, 2·(p·v − 1); 1F1B's steady
// state alternates one forward and one backward, so a stage waits for its
// neighbour's send on nearly every micro-batch (≈ 2·(1 − 1/p)·m + 2·(p − 2),
// the form used beyond maxSendsBlocks). Counts are cached by schedule and
// shape.
func PipelineSends(s Schedule, p, m, v int) float64 {
	if p < 2 || m < 1 || v < 1 {
		return 0
	}
	key := sendsKey{s, p, m, v}
	if n, ok := sendsCache.Load(key); ok {
		return n.(float64)
	}
	if p*m*v > maxSendsBlocks {
		// Too long a schedule to run for a count: the closed forms the
		// short schedules follow.
		P, M := float64(p), float64(m)
		switch s {
		case GPipe:
			return 2 * (P - 1)
		case Interleaved:
			return 2 * (P*float64(v) - 1)
		}
		return math.Round(2*(1-1/P)*M + 2*(P-2))
	}
	f, b := make([]float64, p), make([]float64, p)
	for i := range f {
		f[i], b[i] = 1, 2
	}
	const unit = 1.0 / 1024 // exact in binary
	a, err1 := BuildTimeline(s, p, m, v, f, b, 0)
	c, err2 := BuildTimeline(s, p, m, v, f, b, unit)
	n := 0.0
	if err1 == nil && err2 == nil {
		n = math.Round((c.Length - a.Length) / unit)
	}
	sendsCache.Store(key, n)
	return n
}

var sendsCache sync.Map

// maxSendsBlocks bounds the schedules PipelineSends runs (p·m·v).
const maxSendsBlocks = 4096

type sendsKey struct {
	s       Schedule
	p, m, v int
}

// pipelineIdle is a pipeline's bubble and the time its sends add on the
// critical path, from schedule s run block by block (the plan's own, or
// 1F1B's for ZB-H1; scheduleLengths, the run BuildTimeline draws): the
// run without sends less busy (the critical stage's own work, m
// micro-batches of slot each), and the run with sends less the run
// without. Beyond maxScheduleBlocks blocks, the closed forms for equal
// stages: (p−1)/v slots, and PipelineSends sends.
func pipelineIdle(r Result, s Schedule, busy, slot float64, se *searching) (bubble, sends float64) {
	p := r.Config.Plan
	var fwd, bwd []float64
	if se == nil {
		fwd, bwd = r.stageTimes(nil, nil)
	} else {
		se.fwd, se.bwd = r.stageTimes(se.fwd, se.bwd)
		fwd, bwd = se.fwd, se.bwd
		for i := range se.runs {
			run := &se.runs[i]
			if run.s == s && run.p == p.PP && run.m == r.MicroBatches && run.v == p.Interleave && run.p2p == r.P2P &&
				slices.Equal(run.fwd, fwd) && slices.Equal(run.bwd, bwd) {
				return run.bubble, run.sends
			}
		}
	}
	kept := &keptOrders
	if se != nil {
		kept = &se.orders
	}
	with, idle, err := scheduleLengths(s, p.PP, r.MicroBatches, p.Interleave, fwd, bwd, r.P2P, kept)
	if err != nil {
		bubble = float64(p.PP-1) / float64(p.Interleave) * slot
		sends = PipelineSends(s, p.PP, r.MicroBatches, p.Interleave) * r.P2P
	} else {
		bubble, sends = max(0, idle-busy), max(0, with-idle)
	}
	if se != nil {
		run := &se.runs[se.next]
		se.next = (se.next + 1) % len(se.runs)
		*run = scheduleRun{s: s, p: p.PP, m: r.MicroBatches, v: p.Interleave,
			fwd: append(run.fwd[:0], fwd...), bwd: append(run.bwd[:0], bwd...), p2p: r.P2P, bubble: bubble, sends: sends}
	}
	return bubble, sends
}

// setStageLists points the eight per-stage lists at eight parts of stage
// (8·pp numbers).
func (r *Result) setStageLists(stage []float64, pp int) {
	for i, list := range [...]*[]float64{&r.StageParams, &r.StageForward, &r.StageBackward, &r.StageTP, &r.StageTPForward, &r.StageRecompute, &r.StageEP, &r.StageCP} {
		*list = stage[i*pp : (i+1)*pp : (i+1)*pp]
	}
}
