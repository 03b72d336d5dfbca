package parallel

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A mixture of experts under a plan: its MoE layers' parameters, costs,
// all-to-alls and activations on one GPU (Evaluate puts them on the
// stages that hold them).

// moeLayer is one MoE layer of a mixture of experts on one GPU.
type moeLayer struct {
	params  float64 // its parameters on the GPU
	experts float64 // … of which its routed experts' (E ÷ EP of them)
	cost    costs   // compute and TP collectives, a micro-batch
	// Expert parallelism's all-to-alls, a micro-batch: dispatch and
	// combine forward (a2aFwd), again backward, again when the forward is
	// recomputed.
	a2a, a2aFwd  float64
	act, actFull float64 // stored activations; with full recomputation, the recomputed layer's
}

// moeLayerOn is an MoE layer of m under p: the attention as a dense
// layer's, with the shared experts as its feed-forward block (layerCost
// of a dense layer SharedFFN wide), the router (h × E, replicated), and
// the routed experts — E ÷ EP of them on the GPU, TP-sharded like a dense
// FFN — through which the busiest GPU sends its tokens' TopK copies times
// the capacity factor, each expert one product of its share of them.
// With EP > 1 each copy travels to its expert and back: an all-to-all of
// b·s·k·cf·h BF16 values (÷ TP: the TP ranks split the tokens), the part
// for ranks on other nodes at the inter-node link's rate. layerParams and
// denseFFN are a dense layer's parameters on a GPU and its FFN's part.
func moeLayerOn(m model.Transformer, p Plan, cl Cluster, layerParams, denseFFN float64) moeLayer {
	return moeLayerOf(m, p, cl, layerParams, denseFFN, nil)
}

// moeLayerOf is moeLayerOn, each kernel's part also appended to ks when
// it is not nil (LayerKernels of an MoE layer).
func moeLayerOf(m model.Transformer, p Plan, cl Cluster, layerParams, denseFFN float64, ks *kernelList) moeLayer {
	g, dt := cl.GPU, p.matmul()
	h, T := float64(m.Hidden), float64(p.TP)
	ep, E, k, fe, cf := float64(p.ep()), float64(m.Experts), float64(m.TopK), float64(m.ExpertFFN), p.capacity()
	var l moeLayer
	l.experts = E / ep * 3 * h * fe / T
	router, shared := h*E, 3*h*float64(m.SharedFFN)/T
	if m.RouterBias {
		router += E
	}
	if m.SharedGate {
		shared += h
	}
	l.params = layerParams - denseFFN + router + shared + l.experts

	sm := m
	sm.FFNSize = m.SharedFFN // 0: no feed-forward products (layerCost skips them)
	l.cost = layerCostOf(sm, p, cl, ks)
	n := float64(p.MicroBatch) * float64(m.Seq/p.cp()) // the tokens on this GPU
	local := E / ep
	pairs := n * k * cf // token copies through this GPU's experts
	per := pairs / local
	var fwd, bwd float64
	var quant quantPasses
	// The gate and up products' input: each copy quantized where it
	// lands, or each token once before an FP8 dispatch.
	upRows := pairs
	if p.DispatchDtype == hw.FP8 {
		upRows = n / T
	}
	// The experts' and the router's weight gradients (DualPipe's W).
	var wgrad float64
	for i, x := range [...]struct{ n, k float64 }{{2 * fe / T, h}, {h, fe / T}} { // gate and up; down
		kw := local * cl.gemm(dt, x.k, x.n, per)
		kf, kb := local*cl.gemm(dt, per, x.n, x.k), local*cl.gemm(dt, per, x.k, x.n)+kw
		fwd += kf
		bwd += kb
		wgrad += kw
		if recordKernels {
			ks.add([...]string{KernelExpertsUp, KernelExpertsDown}[i], KernelGEMM, per, x.n, x.k, kf, kb) // one expert's product, × the GPU's experts
		}
		rows := pairs
		if i == 0 {
			rows = upRows
		}
		quant.add(dt, pairs, x.n, x.k, rows)
	}
	rt := p.headDtype()
	rw := cl.gemm(rt, h, E, n)
	rf, rb := cl.gemm(rt, n, E, h), cl.gemm(rt, n, h, E)+rw // the router's scores
	fwd += rf
	bwd += rb
	wgrad += rw
	elem := moePasses(pairs, fe, h, T)
	bw := g.HBMBandwidth * MemoryEfficiency
	fwd += (elem + quant.fwd) / bw
	bwd += (2*elem + quant.bwd) / bw
	if recordKernels {
		ks.add(KernelRouter, KernelGEMM, n, E, h, rf, rb)
		ks.add(KernelPermute, KernelMemory, 0, 0, 0, (elem+quant.fwd)/bw, (2*elem+quant.bwd)/bw)
	}
	l.cost.fwd += fwd
	l.cost.bwd += bwd
	l.cost.wgrad += wgrad
	l.cost.memBound += (3*elem + quant.fwd + quant.bwd) / bw
	var again float64 // the experts' part recomputed
	switch {
	case p.Recompute == RecomputeFull:
		again = fwd
		l.cost.memBound += (elem + quant.fwd) / bw
	case p.modules()&ModuleMoEAct != 0:
		// The experts' SwiGLU again, from the gate and up outputs kept.
		again = 3 * pairs * fe / T * 2 / bw
		l.cost.memBound += again
	case p.swigluRewrites():
		// The experts' fused SwiGLU writes the product again in its
		// backward (not recomputation: counted in the backward).
		w := pairs * fe / T * 2 / bw
		l.cost.bwd += w
		l.cost.memBound += w
	}
	l.cost.recompute += again
	l.cost.bwd += again
	if recordKernels {
		ks.add("recompute", KernelRecompute, 0, 0, 0, 0, again)
	}
	if p.ep() > 1 {
		// Dispatch forward and the gradients' dispatch backward (to the
		// experts, before their down projections) at the dispatch's bytes
		// a value; combine and its backward in BF16.
		tokens, perNode := n*cf/T, min(p.ep(), dpPerNode(p, cl))
		a2a := func(vb float64) float64 {
			return expertA2A(pairs*h*vb/T, tokens*h*vb, m.TopK, p.NodeLimit, p.ep(), perNode, cl.Intra, cl.Inter)
		}
		disp, comb := a2a(dispatchBytes(p.DispatchDtype)), a2a(2)
		l.a2aFwd = disp + comb
		l.a2a = 2 * (disp + comb)
		b := 1.0 // backward: the gradients' combine and dispatch
		if p.Recompute == RecomputeFull {
			l.a2a += disp + comb
			b = 2 // and the forward's again
		}
		if recordKernels {
			ks.add(KernelDispatch, KernelCollective, 0, 0, 0, disp, b*disp)
			ks.add(KernelCombine, KernelCollective, 0, 0, 0, comb, b*comb)
		}
	}
	// Activations: the MLP's as a dense layer's of the width a token
	// goes through (k·cf experts and the shared ones), and the copies
	// dispatched to the experts (their inputs, kept for the backward).
	am := m
	am.FFNSize = int(math.Round(k*cf*fe)) + m.SharedFFN
	disp := p.inputBytes() * pairs * h / T
	l.act = layerActivations(am, m.Seq/p.cp(), m.Seq, p.MicroBatch, p)
	if p.Recompute != RecomputeFull {
		l.act += disp
	}
	l.actFull = layerActivations(am, m.Seq/p.cp(), m.Seq, p.MicroBatch, p.without()) + disp
	return l
}

// dispatchBytes is the bytes a value of a dispatch all-to-all: BF16's 2,
// or FP8's 1 and one FP32 scale for each 1×128 tile of values
// (DeepSeek-V3, arXiv 2412.19437 §3.3.2: activations quantized before the
// dispatch, the scales travelling with them).
func dispatchBytes(d hw.Dtype) float64 {
	if d == hw.FP8 {
		return fp8Tile
	}
	return 2
}

// expertA2A is one dispatch (or combine) all-to-all of a GPU's tokens
// (tokens: their bytes, one copy each) to their k experts over ep ranks,
// perNode of them on a node (all: the bytes of the k copies). Unlimited
// (limit 0, or at least the nodes the EP group spans), every copy
// travels to its expert's rank: allToAll of all.
// Node-limited routing (DeepSeek-V3 §3.2.2: each token's experts on at
// most limit nodes) sends one copy to each chosen node over the network —
// the node's GPU on the sender's rail — which forwards it over NVLink to
// the GPUs there holding the token's experts: a token's limit nodes,
// chosen evenly among the G the group spans (its own among them with
// probability limit ÷ G), put limit·(G − 1)/G copies on the NIC; its k
// copies, each on the node's link unless its expert is on the GPU the
// copy lands on, put k·(perNode − 1)/perNode on NVLink (an upper bound:
// two experts of a token on one GPU are counted twice). Both links at
// once, as the forwarding is pipelined with the arrivals.
func expertA2A(all, tokens float64, k, limit, ep, perNode int, intra, inter hw.Link) float64 {
	perNode = min(max(perNode, 1), ep)
	G := ep / perNode
	if limit <= 0 || limit >= G {
		return allToAll(all, ep, perNode, intra, inter)
	}
	out := tokens * float64(limit) * float64(G-1) / float64(G)
	in := tokens * float64(k) * float64(perNode-1) / float64(perNode)
	t := inter.Latency.Seconds() + out/(inter.Bandwidth*inter.Efficiency)
	if in > 0 {
		t = math.Max(t, intra.Latency.Seconds()+in/(intra.Bandwidth*intra.Efficiency))
	}
	return t
}

// allToAll is one all-to-all in which each of n ranks, k of them on a
// node, sends bytes in all, an equal share to every rank (its own stays):
// what goes to the k − 1 on its node at the node's link rate, what leaves
// it at the inter-node link's, both at once.
func allToAll(bytes float64, n, k int, intra, inter hw.Link) float64 {
	if n <= 1 {
		return 0
	}
	k = min(max(k, 1), n)
	in := bytes * float64(k-1) / float64(n)
	out := bytes * float64(n-k) / float64(n)
	t := 0.0
	if in > 0 {
		t = intra.Latency.Seconds() + in/(intra.Bandwidth*intra.Efficiency)
	}
	if out > 0 {
		t = math.Max(t, inter.Latency.Seconds()+out/(inter.Bandwidth*inter.Efficiency))
	}
	return t
}

// denseOnStage is how many of a mixture of experts' dense layers (its
// first DenseLayers, and with MoEEvery those between its MoE layers)
// pipeline stage st holds: chunk c of the pp·v, in layer order, is stage
// c mod pp's (in a V, layerSplit.holder's), of split's size
// (layerSplit.chunk: L ÷ (pp·v) layers, the first and last a layer short
// under Llama 3's balancing, or each stage's own count ÷ v in an uneven
// split).
func denseOnStage(m model.Transformer, split layerSplit, st int) int {
	if m.DenseLayers == 0 && m.MoEEvery <= 1 {
		return 0
	}
	chunks := split.p * split.v
	n, start := 0, 0
	for c := range chunks {
		if m.MoEEvery <= 1 && start >= m.DenseLayers {
			break // the rest hold none
		}
		sz := split.chunk(c)
		if split.holder(c) == st {
			n += sz - m.MoELayersIn(start, start+sz)
		}
		start += sz
	}
	return n
}

// validateEP refuses DeepSeek-V3's expert-parallel settings out of range,
// naming the field.
func (p Plan) validateEP(cl Cluster) error {
	switch {
	case p.NodeLimit < 0 || p.NodeLimit > 1<<16:
		return errs.Range("node-limit", p.NodeLimit, 0, 1<<16, " (0: unlimited)")
	case p.DispatchDtype != "" && p.DispatchDtype != hw.BF16 && p.DispatchDtype != hw.FP8:
		return fmt.Errorf("dispatch-dtype: %q; allowed bf16, fp8", p.DispatchDtype)
	case p.CommSMs < 0 || (p.CommSMs > 0 && p.CommSMs >= cl.GPU.SMs):
		return errs.F("hf_range", "%s: %d; allowed %d–%d (fewer than the GPU's %d SMs)", "name n lo hi", "comm-sms", p.CommSMs, 0, max(cl.GPU.SMs-1, 0), cl.GPU.SMs)
	case p.CommSMs > 0 && !p.EPOverlap:
		return fmt.Errorf("comm-sms: %d needs --ep-overlap (SMs are reserved for all-to-alls that overlap computation)", p.CommSMs)
	case p.BlockScaled && p.Dtype != hw.FP8:
		return errs.F("block_scaled", "block-scaled: needs --dtype fp8 (dtype is %s)", "", p.Dtype)
	}
	return nil
}

// fp8Block stands, inside this package, for the matrix products of a
// BlockScaled plan: FP8 with fine-grained scaling (gemm hands the kernel
// FP8 and BlockScaled; attention and peaks read it as FP8).
const fp8Block hw.Dtype = "fp8-block"

// headDtype is the format of the output head's and the router's
// products: the plan's, but BF16 in any FP8 plan. DeepSeek-V3's recipe
// (BlockScaled) keeps the embedding, the output head and the gating in
// their original precision (arXiv 2412.19437 §3.3.1); so does every
// per-tensor FP8 stack the engine runs, whose FP8 reaches only the
// modules it swaps: Megatron-Core's output layer is its own
// tensor_parallel.ColumnParallelLinear and its router a plain
// torch.nn.functional.linear, not Transformer Engine modules, so
// te.fp8_autocast leaves them in BF16 (megatron/core/models/gpt/
// gpt_model.py, megatron/core/transformer/moe/router.py, core_r0.8);
// llm-foundry's MPT computes its tied head through its embedding,
// F.linear over the embedding's weight (llmfoundry/models/mpt/
// modeling_mpt.py, llmfoundry/models/layers/custom_embedding.py at
// 5e85bd62d), outside fc_type te's modules; torchtitan converts every
// nn.Linear to torchao's Float8Linear but the one named "output"
// (module_filter_fn=lambda mod, fqn: fqn != "output").
func (p Plan) headDtype() hw.Dtype {
	if p.Dtype == hw.FP8 {
		return hw.BF16
	}
	return p.Dtype
}

// quantPasses is the HBM traffic of the quantization passes around
// block-scaled FP8 products, bytes forward and backward (arXiv 2412.19437
// §3.5.2: an input's BF16 values are read from HBM, quantized and the
// FP8 values and scales written back, only to be read again by the
// product; for the weight gradient a cached FP8 matrix is read,
// dequantized, transposed and re-quantized into 128×1 tiles, and stored).
type quantPasses struct{ fwd, bwd float64 }

// fp8Tile is the bytes an FP8 value takes with its share of a 1×128
// tile's FP32 scale.
const fp8Tile = 1 + 4.0/128

// add charges one M×N×K product of format d (nothing unless fp8Block):
// forward, fwdRows rows of its K-wide input quantized (read 2, write
// fp8Tile) — M, or fewer where another product, or a dispatch, already
// quantized them; backward, the M×N output gradient read once and
// written in both tilings (1×128 for dX, 128×1 for dW), and the cached
// FP8 M×K input transposed and re-quantized (read 1, write fp8Tile) for
// dW.
func (q *quantPasses) add(d hw.Dtype, M, N, K, fwdRows float64) {
	if d != fp8Block {
		return
	}
	q.addBlock(M, N, K, fwdRows)
}

func (q *quantPasses) addBlock(M, N, K, fwdRows float64) {
	q.fwd += fwdRows * K * (2 + fp8Tile)
	q.bwd += M*K*(1+fp8Tile) + M*N*(2+2*fp8Tile)
}

// matmul is the number format gemm is handed for the plan's products.
func (p Plan) matmul() hw.Dtype {
	if p.BlockScaled && p.Dtype == hw.FP8 {
		return fp8Block
	}
	return p.Dtype
}

// overlapEP is a stage's compute and the all-to-alls it exposes under
// DualPipe's pairing (EPOverlap), for one micro-batch's all-to-alls a
// seconds beside compute c, mem of it memory-bound: the all-to-alls run
// beside the paired chunk's computation on CommSMs SMs reserved for them,
// which the computation does without for the whole chunk — DeepSeek-V3
// allocates 20 of the H800's 132 SMs to communication, "which will limit
// the computational throughput" (arXiv 2412.19437 §3.5.1). The products
// run at r = (SMs − CommSMs) ÷ SMs of their speed, the memory-bound work
// as fast (the other SMs still fill HBM's bandwidth): compute
// (c − mem) ÷ r + mem; the all-to-alls exposed where they outlast it,
// the rest hidden. Without EPOverlap all of a is exposed, c unchanged.
// The warm-up and cool-down chunks, which have no partner, are not told
// apart.
func overlapEP(p Plan, g hw.GPU, a, c, mem float64) (compute, exposed, hidden float64) {
	if !p.EPOverlap || a <= 0 {
		return c, a, 0
	}
	compute = c
	if g.SMs > 0 && p.CommSMs > 0 {
		compute = (c-mem)*float64(g.SMs)/float64(g.SMs-p.CommSMs) + mem
	}
	exposed = math.Max(0, a-compute)
	return compute, exposed, a - exposed
}

// moePasses are the HBM bytes of an MoE layer's elementwise work for
// pairs token copies through a GPU's experts (FFN width fe, hidden h, TP
// t): the experts' SwiGLU, and the copies moved to their experts and
// back (permute, unpermute), in BF16.
func moePasses(pairs, fe, h, t float64) float64 {
	return 3*pairs*fe/t*2 + 2*2*pairs*h*2/t
}
