package parallel

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Schedule is a pipeline schedule.
type Schedule string

// Pipeline schedules (Huang et al. 2019; Narayanan et al. 2021).
const (
	GPipe       Schedule = "gpipe"       // all forwards, then all backwards
	OneFOneB    Schedule = "1f1b"        // one forward, one backward in the steady state
	Interleaved Schedule = "interleaved" // 1F1B over v model chunks per stage
)

// Cluster is where a plan runs: a GPU type, how many, how many share a
// node (on NVLink), and the link between nodes (one NIC per GPU).
type Cluster struct {
	GPU         hw.GPU
	GPUs        int
	GPUsPerNode int
	Intra       hw.Link // inside a node
	Inter       hw.Link // between nodes: a NIC
	// NICsPerNode is how many Inter NICs a node has (0: one a GPU, as on
	// a DGX): with fewer, the node's GPUs share them, each GPU's share of
	// the network NICsPerNode ÷ GPUsPerNode of a NIC (BLOOM's nodes: 8
	// A100s on 4 × 100 Gb/s Omni-Path).
	NICsPerNode int
	// GPUVariation is the spread of the GPUs' sustained speeds, a
	// standard deviation relative to the median (FieldGPUVariation, as
	// measured in the field; 0: every GPU alike). The step waits for the
	// slowest of them (Time.Straggler).
	GPUVariation float64
	// gemms, in a search's own copy of its cluster, keeps its GEMM
	// times by shape (nil otherwise).
	gemms *gemmMemo
}

// perGPU is the cluster as its collectives see it: with fewer NICs than
// GPUs in a node, each GPU's link to the network carries its share of
// them (all the node's GPUs talk across nodes at once in the
// data-parallel and pipeline traffic the step is made of).
func (cl Cluster) perGPU() Cluster {
	if n := cl.NICsPerNode; n > 0 && n < cl.GPUsPerNode {
		cl.Inter.Bandwidth *= float64(n) / float64(cl.GPUsPerNode)
		cl.NICsPerNode = 0
	}
	return cl
}

// DefaultCluster is the default for a GPU type: the GPU's own
// link inside nodes of its NVLinkGPUs, and one NIC a GPU between them —
// InfiniBand HDR 200G for the Ampere parts, whose servers carried
// ConnectX-6 (A100 80GB and 40GB on NVLink 3, DGX A100; A800 on its
// NVLink cut to 400 GB/s two-way), NDR 400G for Hopper and Blackwell
// (ConnectX-7): H100, H200 and GH200 on NVLink 4 (DGX H100); H800 on its
// NVLink (400 GB/s two-way), as DeepSeek-V3 was trained; H20 on NVLink 4
// (HGX H20); the H100 PCIe and H100 NVL 8 a server on PCIe 5 (their
// bridged pairs not modelled); B200 on NVLink 5 in nodes of 8 (DGX
// B200: eight ConnectX-7 400 Gb/s); GB200 a GB200 NVL72 rack as one node
// of 72 GPUs on NVLink 5 (its NVLink Switch trays), racks joined by NDR
// (DGX GB200: a ConnectX-7 400 Gb/s port a GPU; XDR's 800 Gb/s comes
// with GB300's ConnectX-8).
func DefaultCluster(g hw.GPU, gpus int) Cluster {
	intra, _ := hw.LinkByID(g.Link)
	inter, _ := hw.LinkByID("ib-ndr")
	if strings.HasPrefix(g.Link, "nvlink3") { // NVLink 3 is Ampere's: A100, A800
		inter, _ = hw.LinkByID("ib-hdr")
	}
	perNode := g.NVLinkGPUs
	if perNode < 1 {
		perNode = 8
	}
	return Cluster{GPU: g, GPUs: gpus, GPUsPerNode: perNode, Intra: intra, Inter: inter}
}

// Plan is how a model is split over a cluster and trained.
type Plan struct {
	TP, PP, DP int
	Interleave int  // v, model chunks per pipeline stage (1 unless Schedule is interleaved)
	SP         bool // sequence parallelism in the TP group (Korthikanti et al.)
	ZeRO       int  // 0–3
	Recompute  Recompute
	Flash      bool
	MicroBatch int // b, sequences per micro-batch
	// GlobalBatch is the sequences per optimizer step: micro-batch × DP ×
	// micro-batches.
	GlobalBatch   int
	Schedule      Schedule
	BytesPerParam int      // 16 or 18 (FP32 gradients, Megatron-LM)
	Dtype         hw.Dtype // bf16, fp16 or fp8 for the matrix products
	// OptimizerStates is how Adam's moments are stored ("": FP32) and
	// MasterWeights the optimizer's copy of the weights ("": FP32):
	// with BytesPerParam's gradients, the model-state bytes a parameter
	// (States).
	OptimizerStates OptimizerStates
	MasterWeights   MasterWeights
	// Overlap hides data-parallel communication behind the backward pass
	// (bucketed, as PyTorch DDP and Megatron-LM do).
	Overlap bool
	// ZeROFetch is how ZeRO-3 gathers the weights ("": prefetch, a layer
	// gathered while the one before computes; blocking: DeepSpeed's
	// ZeRO-3 of 2021, zerofetch.go). ZeRO 3 only.
	ZeROFetch ZeROFetch
	// EP is expert parallelism, for a mixture of experts: each MoE layer's
	// routed experts spread over EP ranks carved out of the DP ranks (0
	// or 1: every GPU holds every expert). CapacityFactor is the busiest
	// GPU's tokens through its experts over the mean (the router's
	// imbalance; 0 is 1, balanced).
	EP             int
	CapacityFactor float64
	// CP is context parallelism: every sequence split over CP ranks (the
	// neighbours of the TP ranks: order TP, CP, DP, PP), each holding s/CP
	// of its tokens as two of 2·CP chunks (the load-balanced causal
	// split: chunks i and 2·CP−1−i, so every rank does 1/CP of the
	// attention work); weights are replicated over CP, so gradients are
	// reduced and ZeRO shards over DP×CP ranks (0 or 1: no split). CPAlgo
	// is how a rank's queries see the other ranks' keys and values.
	CP     int
	CPAlgo CPAlgo
	// DeepSeek-V3's expert-parallel mechanisms (arXiv 2412.19437 §3.2,
	// §3.3; moe.go): NodeLimit sends each token to experts on at most
	// that many nodes, one copy a node over the network (0: unlimited);
	// DispatchDtype is the dispatch all-to-all's number format (bf16 when
	// empty; fp8: a byte a value and its scales), combine staying BF16;
	// EPOverlap pairs the forward and backward chunks of two micro-batches
	// (DualPipe) so that each one's all-to-alls run while the other
	// computes, on CommSMs SMs taken from the computation meanwhile.
	NodeLimit     int
	DispatchDtype hw.Dtype
	EPOverlap     bool
	CommSMs       int
	// RecomputeModules is what selective recomputation runs again
	// (recompute.go; 0: the attention core, Megatron-LM's).
	RecomputeModules Modules
	// FP8Cache keeps the products' inputs for the backward pass in FP8
	// with their scales, and the attention output in E5M6 (DeepSeek-V3
	// §3.3.3); needs BlockScaled.
	FP8Cache bool
	// BlockScaled runs FP8 products with DeepSeek-V3's fine-grained
	// scaling (kernel.GEMMConfig.BlockScaled: FP32 promotion every 128 on
	// the CUDA cores), the output head and the router in BF16, as its
	// recipe keeps them; Dtype must be fp8.
	BlockScaled bool
	// FusedSwiGLU runs a SwiGLU feed-forward block as one fused kernel
	// that keeps its gate and up outputs and writes their product (the
	// down projection's input) again inside its backward instead of
	// storing it: xformers' swiglu op (SwiGLUFusedOp saves x, x1, x2;
	// silu_bw_fused returns x4, "checkpointing"). An unfused SwiGLU, as
	// Megatron-LM's and Transformer Engine's, stores the product too.
	// Not recomputation: no product is run again. Needs a SwiGLU model.
	FusedSwiGLU bool
	// TPOverlap hides tensor parallelism's all-gathers and
	// reduce-scatters behind the matrix products they feed or come
	// from, as Transformer Engine's userbuffers do (Megatron-Core's
	// --tp-comm-overlap, NeMo's ub_tp_comm_overlap; tpOverlapped says
	// how). Needs TP > 1 with sequence parallelism.
	TPOverlap bool
	// Eager runs the layer's elementwise work as PyTorch's eager mode
	// does, each operation its own kernel through HBM (RMSNorm in seven,
	// rotary positions in FP32 complex arithmetic, SiLU and its product
	// apart: eagerElementwise counts them, from torchtitan's Llama
	// without torch.compile); otherwise fused kernels, as Megatron-Core,
	// Transformer Engine and torch.compile run them. Dense models only.
	Eager bool
	// FirstStageLayers and LastStageLayers are the layers the first and
	// the last pipeline stage hold, the rest split evenly over the other
	// stages (0: an even split, or Llama 3's balancing): Megatron-Core's
	// uneven pipeline (--decoder-first-pipeline-num-layers,
	// --decoder-last-pipeline-num-layers), BLOOM-176B's 70 layers on 12
	// stages as 5, 6 … 6, 5 (its Megatron-DeepSpeed split counted the
	// two embeddings as layers: 72 ÷ 12). Layers are the model's and its
	// multi-token-prediction modules, which follow its last layer.
	FirstStageLayers, LastStageLayers int
	// FlashVersion is FlashAttention's generation (with Flash): 0 the
	// newest the GPU runs (FlashAttention-3 on Hopper, 2 on Ampere), 2
	// FlashAttention-2 — what stacks before FlashAttention-3 (July 2024)
	// and PyTorch's own attention ran on Hopper — or 3 (not on Ampere).
	FlashVersion int
	// Loss is how the cross-entropy over the logits runs (loss.go; "":
	// Megatron's vocab-parallel cross-entropy, unfused).
	Loss Loss
	// TELinear runs an FP8 plan's products as plain Transformer Engine
	// te.Linear modules called without is_first_microbatch, under one
	// fp8_autocast over the whole model — llm-foundry's fc_type te under
	// Composer's amp_fp8: no norm fused into a product (each input cast
	// and transposed), the weights cast and transposed every
	// micro-batch, the amaxes updated module by module (TE 1.2) and
	// all-reduced over all ranks. Otherwise Megatron-Core's (te.go).
	TELinear bool
}

// CPAlgo is how context parallelism brings a rank the keys and values of
// the rest of the sequence.
type CPAlgo string

// Context-parallel attention algorithms.
const (
	// CPAllGather all-gathers K and V over the CP group before each
	// layer's attention and reduce-scatters their gradients after its
	// backward, as Llama 3 did (arXiv 2407.21783 §3.3.2: document masks,
	// and GQA's few KV heads make K and V small); exposed. "" is this.
	CPAllGather CPAlgo = "allgather"
	// CPRing passes K and V blocks round the CP ranks in CP−1 steps, each
	// hidden behind the attention on the block in hand (ring attention,
	// Liu et al. 2023); the backward passes dK and dV with them.
	CPRing CPAlgo = "ring"
)

// microBatches is how many micro-batches a DP rank runs a step (DP and
// MicroBatch positive: Validate's).
func (p Plan) microBatches() int { return p.GlobalBatch / (p.DP * p.MicroBatch) }

// States are the plan's model-state bytes a parameter: BytesPerParam's
// gradients, OptimizerStates' moments, MasterWeights' copy (a plan
// Validate refuses gets the ZeRO paper's 16).
func (p Plan) States() StateBytes {
	s, err := NewStateBytes(p.BytesPerParam, p.OptimizerStates, p.MasterWeights)
	if err != nil {
		s, _ = NewStateBytes(16, "", "")
	}
	return s
}

// cp is the plan's context parallelism, at least 1.
func (p Plan) cp() int { return max(p.CP, 1) }

// cpAlgo is the plan's context-parallel algorithm, allgather unless ring.
func (p Plan) cpAlgo() CPAlgo {
	if p.CPAlgo == CPRing {
		return CPRing
	}
	return CPAllGather
}

// ep is the plan's expert parallelism, at least 1.
func (p Plan) ep() int { return max(p.EP, 1) }

// capacity is the plan's capacity factor, at least 1.
func (p Plan) capacity() float64 {
	if p.CapacityFactor < 1 {
		return 1
	}
	return p.CapacityFactor
}

// Buckets is how many collectives a step's data-parallel gradients of
// params parameters are reduced in, over a group of dc ranks: a bucket of
// max(BucketParams, BucketParamsPerRank × dc) each when they overlap the
// backward pass, one call otherwise.
func Buckets(params float64, dc int, overlap bool) float64 {
	if !overlap {
		return 1
	}
	return math.Max(1, math.Ceil(params/math.Max(BucketParams, BucketParamsPerRank*float64(dc))))
}

// DefaultPlan is a plain data-parallel plan over n GPUs.
func DefaultPlan(n int) Plan {
	return Plan{TP: 1, PP: 1, DP: n, Interleave: 1, Recompute: RecomputeNone, Flash: true, MicroBatch: 1,
		GlobalBatch: n, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
}

// Stated assumptions of the step-time model, each a constant with its
// source, so the page can show them.
const (
	// MemoryEfficiency is the share of HBM bandwidth an elementwise kernel
	// sustains: a device-to-device copy on an H200 moves 4.3 of 4.8 TB/s
	// (published-figures.md).
	MemoryEfficiency = 0.9
	// BucketParams is the data-parallel gradient bucket, in parameters
	// (Megatron-LM's default of 40M): communication of a bucket starts as
	// soon as its gradients are ready, so all but the last bucket can
	// hide behind the rest of the backward pass.
	BucketParams = 40e6
	// BucketParamsPerRank grows the bucket with the data-parallel group:
	// Megatron-Core's default is max(40M, 1M × DP size) parameters so
	// that "collectives do not become latency-bound" at large DP
	// (megatron/core/distributed/distributed_data_parallel.py, since
	// 2024-04: "Tune DDP bucket size to improve speed at large DP
	// counts"); without overlap it reduces all the gradients in one
	// call.
	BucketParamsPerRank = 1e6
	// SustainedClock is the clock a GPU holds through hours of training,
	// relative to the boost clock its peak assumes: every SM's tensor
	// cores busy at the board's power limit pull the clock down (A100 and
	// H100 settle near 85% of boost under such load), below what a short
	// GEMM measurement — the silicon layer's TensorEfficiency — sees. It
	// scales the tensor cores' and shared memory's rates, not HBM's.
	SustainedClock = 0.85
	// ContextBytes is HBM a training process holds besides its tensors:
	// the CUDA context, cuBLAS workspaces and NCCL's channel buffers
	// (1–3 GB in practice).
	ContextBytes = 2e9
	// AllocatorSlack is the share of HBM the caching allocator cannot
	// pack (fragmentation between blocks of different sizes).
	AllocatorSlack = 0.05
	// AttentionBackward is the backward pass of the attention core in
	// FLOPs of its forward: twice the products; FlashAttention also
	// recomputes the scores (2.5×, Dao et al.), at its own measured rate
	// (kernel.FlashEfficiency).
	AttentionBackward      = kernel.StandardBackwardFLOPs
	FlashAttentionBackward = kernel.FlashBackwardFLOPs
)

// Config is a model, a plan and a cluster.
type Config struct {
	Model   model.Transformer
	Plan    Plan
	Cluster Cluster
}

// Validate refuses an inconsistent plan with a message naming the
// constraint.
func (c Config) Validate() error {
	m, p, cl := c.Model, c.Plan, c.Cluster
	if err := m.Validate(); err != nil {
		return err
	}
	switch ep := p.ep(); {
	case p.EP < 0 || p.EP > 1<<16:
		return errs.Range("ep", p.EP, 1, 1<<16, "")
	case !m.MoE() && ep > 1:
		return errs.F("ep_dense", "ep: %d with a dense model; allowed 1 (expert parallelism spreads a mixture of experts' experts)", "ep", ep)
	case m.MoE() && m.Experts%ep != 0:
		return errs.F("ep_experts", "ep: %d does not divide the %d experts", "ep experts", ep, m.Experts)
	case p.DP%ep != 0:
		return errs.F("ep_dp", "ep: %d does not divide dp %d (expert parallelism is carved out of data parallelism)", "ep dp", ep, p.DP)
	case p.CapacityFactor != 0 && (p.CapacityFactor < 1 || p.CapacityFactor > 8 || p.CapacityFactor != p.CapacityFactor):
		return errs.RangeG("capacity-factor", p.CapacityFactor, 1, 8, " (1: balanced)")
	case p.CP < 0 || p.CP > 1<<16:
		return errs.Range("cp", p.CP, 1, 1<<16, "")
	case p.CPAlgo != "" && p.CPAlgo != CPAllGather && p.CPAlgo != CPRing:
		return fmt.Errorf("cp-algo: %q; allowed allgather, ring", p.CPAlgo)
	case p.cp() > 1 && m.Seq%(2*p.cp()) != 0:
		return errs.F("seq_cp", "seq: %d not divisible by 2·cp = %d (the load-balanced causal split gives each CP rank two chunks)", "seq two_cp", m.Seq, 2*p.cp())
	}
	if err := p.validateEP(cl); err != nil {
		return err
	}
	switch {
	case cl.GPUs < 1 || cl.GPUs > 1<<24:
		return errs.Range("gpus", cl.GPUs, 1, 1<<24, "")
	case cl.GPUsPerNode < 1 || cl.GPUsPerNode > 256:
		return errs.Range("gpus-per-node", cl.GPUsPerNode, 1, 256, "")
	case cl.NICsPerNode < 0 || cl.NICsPerNode > cl.GPUsPerNode:
		return errs.Range("nics-per-node", cl.NICsPerNode, 1, cl.GPUsPerNode, " (the GPUs a node; 0: one a GPU)")
	case !(cl.GPUVariation >= 0 && cl.GPUVariation <= 0.1):
		return errs.RangeG("gpu-variation", cl.GPUVariation, 0, 0.1, " (a standard deviation relative to the median GPU's speed; 0: every GPU alike)")
	case cl.GPU.SMs == 0:
		return fmt.Errorf("gpu: missing; allowed %v", hw.GPUIDs())
	case cl.Intra.Bandwidth <= 0 || cl.Inter.Bandwidth <= 0:
		return fmt.Errorf("link: missing; allowed %v", hw.LinkIDs())
	case p.TP < 1 || p.PP < 1 || p.DP < 1:
		return fmt.Errorf("tp, pp, dp: %d, %d, %d; each at least 1", p.TP, p.PP, p.DP)
	case p.cp() > 1 && p.TP*p.CP*p.PP*p.DP != cl.GPUs:
		return errs.F("gpus_product", "tp × cp × pp × dp: %d × %d × %d × %d = %d; must equal gpus %d", "tp cp pp dp n gpus", p.TP, p.CP, p.PP, p.DP, p.TP*p.CP*p.PP*p.DP, cl.GPUs)
	case p.cp() == 1 && p.TP*p.PP*p.DP != cl.GPUs:
		return errs.F("gpus_product3", "tp × pp × dp: %d × %d × %d = %d; must equal gpus %d", "tp pp dp n gpus", p.TP, p.PP, p.DP, p.TP*p.PP*p.DP, cl.GPUs)
	case m.Heads%p.TP != 0:
		return errs.F("tp_heads", "tp: %d does not divide heads %d", "tp heads", p.TP, m.Heads)
	case p.Interleave < 1:
		return fmt.Errorf("interleave: %d; at least 1", p.Interleave)
	case !p.Schedule.known():
		return fmt.Errorf("schedule: %q; allowed %s", p.Schedule, strings.Join(ScheduleIDs(), ", "))
	case p.Interleave > 1 && p.Schedule != Interleaved:
		return errs.F("interleave_schedule", "interleave: %d needs --schedule interleaved (schedule is %s)", "v schedule_id", p.Interleave, p.Schedule)
	case p.Schedule == Interleaved && (p.PP < 2 || p.Interleave < 2):
		return errs.F("interleaved_needs", "schedule: interleaved needs pp ≥ 2 and interleave ≥ 2 (pp %d, interleave %d)", "pp v", p.PP, p.Interleave)
	case p.ZeRO < 0 || p.ZeRO > 3:
		return fmt.Errorf("zero: %d; allowed 0, 1, 2, 3", p.ZeRO)
	case p.ZeRO == 3 && p.PP > 1:
		return errs.F("zero_pp", "zero: %d with pp %d; allowed 0–2 with pipeline parallelism (stage 3 would gather every stage's weights again for each micro-batch; Llama 3's FSDP kept them, sharding gradients and optimizer state: stage 2)",
			"zero pp", 3, p.PP)
	case p.Recompute != RecomputeNone && p.Recompute != RecomputeSelective && p.Recompute != RecomputeFull && p.Recompute != RecomputeOp:
		return fmt.Errorf("recompute: %q; allowed none, selective, full, op", p.Recompute)
	case p.BytesPerParam != 16 && p.BytesPerParam != 18:
		return fmt.Errorf("bytes-per-param: %d; allowed 16, 18", p.BytesPerParam)
	case p.OptimizerStates != "" && p.OptimizerStates != StatesFP32 && p.OptimizerStates != StatesBF16 && p.OptimizerStates != States8Bit:
		return fmt.Errorf("optimizer-states: %q; allowed fp32, bf16, 8bit", p.OptimizerStates)
	case p.MasterWeights != "" && p.MasterWeights != MasterFP32 && p.MasterWeights != MasterRemainder && p.MasterWeights != MasterNone:
		return fmt.Errorf("master-weights: %q; allowed fp32, remainder, none", p.MasterWeights)
	case p.MasterWeights == MasterRemainder && p.Dtype == hw.FP16:
		return fmt.Errorf("master-weights: remainder needs BF16 weights (an FP32 value's high 16 bits are its BF16 rounding down); dtype fp16 keeps FP16 weights (allowed fp32, none)")
	case p.MicroBatch < 1 || p.MicroBatch > 1<<16:
		return errs.Range("micro-batch", p.MicroBatch, 1, 1<<16, "")
	case p.GlobalBatch < 1 || p.GlobalBatch > 1<<24:
		return errs.Range("global-batch", p.GlobalBatch, 1, 1<<24, "")
	case p.GlobalBatch%(p.DP*p.MicroBatch) != 0:
		return errs.F("global_batch", "global-batch: %d not divisible by dp × micro-batch = %d × %d", "batch dp b", p.GlobalBatch, p.DP, p.MicroBatch)
	}
	if err := p.validateZeroBubble(); err != nil {
		return err
	}
	if p.FirstStageLayers < 0 || p.LastStageLayers < 0 {
		return fmt.Errorf("first-stage-layers, last-stage-layers: %d, %d; allowed 0 (an even split) or more", p.FirstStageLayers, p.LastStageLayers)
	}
	if _, err := p.layerSplit(m); err != nil {
		return err
	}
	if p.Schedule == Interleaved {
		if mb := p.microBatches(); mb%p.PP != 0 {
			return errs.F("micro_batches_pp", "micro-batches: %d must be a multiple of pp %d for the interleaved schedule (Megatron-LM's condition)", "m pp", mb, p.PP)
		}
	}
	if err := p.validateDualPipe(); err != nil {
		return err
	}
	if err := p.validateRecompute(m.MLA()); err != nil {
		return err
	}
	switch v := p.FlashVersion; {
	case v != 0 && v != 2 && v != 3:
		return fmt.Errorf("flash-version: %d; allowed 2, 3 (0: the newest the GPU runs)", v)
	case v != 0 && !p.Flash:
		return fmt.Errorf("flash-version: %d needs FlashAttention (flash is off)", v)
	case v == 3 && !kernel.Hopper(cl.GPU) && !cl.GPU.PairMMA:
		return fmt.Errorf("flash-version: 3 needs Hopper's tensor cores; %s runs FlashAttention-2 (allowed 2)", cl.GPU.Name)
	}
	if p.TPOverlap && (p.TP < 2 || !p.SP) {
		return fmt.Errorf("tp-overlap: needs --tp 2 or more with sequence parallelism (Transformer Engine's userbuffers overlap all-gathers and reduce-scatters); tp %d, sp %v", p.TP, p.SP)
	}
	if p.TPOverlap && m.MLA() {
		return fmt.Errorf("tp-overlap: not modelled for latent attention (%s)", m.ID)
	}
	if p.Recompute == RecomputeOp && (m.MoE() || m.MLA() || m.FFN != model.SwiGLU) {
		return fmt.Errorf("recompute: op is torchtitan's checkpointing of its Llama, modelled for dense SwiGLU models with standard attention; %s is not (allowed none, selective, full)", m.ID)
	}
	if p.Eager && (m.MoE() || m.MLA()) {
		return fmt.Errorf("eager: modelled for dense models with standard attention, as torchtitan's Llama; %s is not", m.ID)
	}
	if p.TELinear && (p.Dtype != hw.FP8 || p.BlockScaled) {
		return fmt.Errorf("te-linear: Transformer Engine's per-tensor FP8 modules; needs --dtype fp8 without --block-scaled")
	}
	if _, err := ParseLoss(string(p.Loss)); err != nil {
		return err
	}
	if _, err := ParseZeROFetch(string(p.ZeROFetch)); err != nil {
		return err
	}
	if p.ZeROFetch == FetchBlocking && (p.ZeRO != 3 || m.MoE() || m.MLA()) {
		return fmt.Errorf("zero-fetch: blocking is DeepSpeed's ZeRO-3 of 2021, modelled for dense models with standard attention at --zero 3; zero %d, %s", p.ZeRO, m.ID)
	}
	if p.Eager && p.FusedSwiGLU {
		return fmt.Errorf("eager: each operation its own kernel, which --fused-swiglu's one kernel is not; give one of them")
	}
	if p.FusedSwiGLU && m.FFN != model.SwiGLU {
		return fmt.Errorf("fused-swiglu: needs a SwiGLU feed-forward block; %s's is %s", m.ID, m.FFN)
	}
	switch p.Dtype {
	case hw.BF16, hw.FP16, hw.FP8:
		if _, ok := cl.GPU.PeakFLOPS(p.Dtype); !ok {
			return errs.F("dtype", "dtype: %s has no %s tensor cores; allowed bf16, fp16", "gpu dtype_up", cl.GPU.Name, p.Dtype)
		}
	default:
		return fmt.Errorf("dtype: %q; allowed bf16, fp16, fp8", p.Dtype)
	}
	return nil
}

// layerSplit is how a plan's pipeline stages hold the layers: the
// first stage's, a middle stage's and the last's, each stage's in v
// chunks of as many — but under Llama 3's balancing, whose first and
// last chunks (c = 0 and c = p·v − 1) are a layer short.
type layerSplit struct {
	p, v             int
	first, mid, last int
	balanced         bool
	// vee: two chunks a stage in a V (ZB-V, DualPipeV), chunk c on
	// stage c below p, on stage 2p − 1 − c from p on.
	vee bool
}

// holder is the stage that holds model chunk c.
func (s layerSplit) holder(c int) int {
	if s.vee && c >= s.p {
		return 2*s.p - 1 - c
	}
	return c % s.p
}

// stage is the layers stage st holds.
func (s layerSplit) stage(st int) int {
	switch {
	case st == 0:
		return s.first
	case st == s.p-1:
		return s.last
	}
	return s.mid
}

// chunk is the layers of model chunk c, 0 … p·v − 1 in layer order
// (stage c mod p's chunk c ÷ p: Megatron's interleaved assignment; in a
// V, stage holder(c)'s).
func (s layerSplit) chunk(c int) int {
	if s.balanced {
		n := s.mid / s.v
		if c == 0 || c == s.p*s.v-1 {
			n--
		}
		return n
	}
	return s.stage(s.holder(c)) / s.v
}

// stageLayers splits L layers over p stages of v chunks: L/(p·v) layers a
// chunk when it divides; otherwise, as Llama 3 did for 126 layers on 16
// stages (arXiv 2407.21783, §3.3.2), the embedding and the output layer
// each count as one layer, so the first and last stages hold one
// transformer layer fewer: (L + 2) must divide by p·v. It returns the
// layers on a middle stage and on the first (= last) stage.
func stageLayers(L, p, v int) (mid, ends int, err error) {
	pv := p * v
	switch {
	case p > L+2 || v > L+2:
		// No split; and p·v could overflow to 0, a division by zero
		// below (found by FuzzEvaluate: pp 2^24 × interleave 2^40).
	case L%pv == 0:
		return L / p, L / p, nil
	case p > 1 && (L+2)%pv == 0:
		return (L + 2) / p, (L+2)/p - 1, nil
	}
	return 0, 0, errs.F("layers_pp", "layers: %d not divisible by pp × interleave = %d × %d (nor is layers + 2, Llama 3's balancing that counts the embedding and output layers as one layer each; or give the first and last stages their own counts, first-stage-layers and last-stage-layers)", "layers pp v", L, p, v)
}

// splitLayers is how p stages of v chunks hold L layers: stageLayers'
// split, or with first or last set (above 0) Megatron-Core's uneven one
// (--decoder-first-pipeline-num-layers and
// --decoder-last-pipeline-num-layers; megatron/core/transformer/
// transformer_block.py, get_num_layers_to_build, and
// transformer_config.py's checks): the first stage holds first layers,
// the last last, and the stages left split the rest evenly; with v
// chunks a stage each stage's count must divide by v, its chunks holding
// as many each (transformer_layer.py, get_transformer_layer_offset).
func splitLayers(L, p, v, first, last int) (layerSplit, error) {
	if first == 0 && last == 0 {
		mid, ends, err := stageLayers(L, p, v)
		return layerSplit{p: p, v: v, first: ends, mid: mid, last: ends, balanced: ends != mid}, err
	}
	switch {
	case p < 2:
		return layerSplit{}, fmt.Errorf("first-stage-layers, last-stage-layers: %d, %d with pp %d; an uneven split needs pp ≥ 2", first, last, p)
	case first < 0 || first >= L:
		return layerSplit{}, errs.F("hf_range", "%s: %d; allowed %d–%d (fewer than the %d layers; 0: an even split)", "name n lo hi", "first-stage-layers", first, 1, L-1, L)
	case last < 0 || last >= L:
		return layerSplit{}, errs.F("hf_range", "%s: %d; allowed %d–%d (fewer than the %d layers; 0: an even split)", "name n lo hi", "last-stage-layers", last, 1, L-1, L)
	}
	rest, left := L, p
	if first > 0 {
		rest, left = rest-first, left-1
	}
	if last > 0 {
		rest, left = rest-last, left-1
	}
	switch {
	case left == 0 && rest != 0:
		return layerSplit{}, fmt.Errorf("first-stage-layers, last-stage-layers: %d + %d of %d layers on pp %d; with no other stage they must add up to the layers", first, last, L, p)
	case left > 0 && (rest < left || rest%left != 0):
		return layerSplit{}, fmt.Errorf("first-stage-layers, last-stage-layers: %d, %d leave %d of the %d layers for the %d other stages; must be a positive multiple of %d (the rest split evenly, as Megatron-Core's)", first, last, rest, L, left, left)
	}
	s := layerSplit{p: p, v: v, first: first, last: last}
	if left > 0 {
		s.mid = rest / left
	}
	if s.first == 0 {
		s.first = s.mid
	}
	if s.last == 0 {
		s.last = s.mid
	}
	for _, x := range []struct {
		name string
		n    int
	}{{"first stage's", s.first}, {"last stage's", s.last}, {"middle stages'", s.mid}} {
		if x.n%v != 0 && (x.name != "middle stages'" || left > 0) {
			return layerSplit{}, fmt.Errorf("interleave: %d does not divide the %s %d layers (each of a stage's chunks holds as many, as Megatron-Core's)", v, x.name, x.n)
		}
	}
	return s, nil
}

// layerSplit is the plan's split of m's layers (and multi-token-
// prediction modules, after the last) over its stages.
func (p Plan) layerSplit(m model.Transformer) (layerSplit, error) {
	if p.Schedule.vShape() {
		return vSplit(trainedLayers(m), p.PP, p.FirstStageLayers, p.LastStageLayers, p.Schedule)
	}
	return splitLayers(trainedLayers(m), p.PP, max(p.Interleave, 1), p.FirstStageLayers, p.LastStageLayers)
}

// vSplit is a V schedule's split of L layers over p ranks: 2p chunks of
// L/(2p) layers, rank i holding chunks i and 2p − 1 − i — an even number
// of layers a stage, as the zero-bubble repository's ZB-V asks ("the
// number of layers per pipeline to be an even number, so that each
// stage can be splited into two virtual stages evenly"), and no uneven
// first or last stage (rank 0 holds both ends).
func vSplit(L, p, first, last int, s Schedule) (layerSplit, error) {
	if first != 0 || last != 0 {
		return layerSplit{}, fmt.Errorf("first-stage-layers, last-stage-layers: %d, %d with the %s schedule; allowed 0 (its V gives every rank two chunks of as many layers, the first and the last chunk both on rank 0)", first, last, s)
	}
	if p < 1 || p > L || L%(2*p) != 0 {
		return layerSplit{}, fmt.Errorf("layers: %d not divisible by 2 × pp = 2 × %d for the %s schedule (its V gives every rank two chunks of as many layers: rank i the i-th and the (2·pp − 1 − i)-th)", L, p, s)
	}
	n := L / p
	return layerSplit{p: p, v: 2, first: n, mid: n, last: n, vee: true}, nil
}

// Usable is what a training job can fill of capacity bytes of HBM:
// capacity × (1 − AllocatorSlack) − ContextBytes (74 GB of an 80 GB H100).
func Usable(capacity float64) float64 {
	return max(0, capacity*(1-AllocatorSlack)-ContextBytes)
}

// Check sets Usable, Fits and Over from Total and Capacity.
func (m *Memory) Check() {
	m.Usable = Usable(m.Capacity)
	m.Fits = m.Total <= m.Usable
	m.Over = 0
	if !m.Fits {
		m.Over = m.Total - m.Usable
	}
}

// Memory is one GPU's bytes.
type Memory struct {
	Weights     float64 `json:"weights_bytes"`
	Gradients   float64 `json:"gradients_bytes"`
	Optimizer   float64 `json:"optimizer_bytes"`
	Activations float64 `json:"activations_bytes"`
	Buffers     float64 `json:"buffers_bytes"`
	Total       float64 `json:"total_bytes"`
	Capacity    float64 `json:"capacity_bytes"` // the GPU's HBM
	Usable      float64 `json:"usable_bytes"`   // what a training job can fill: Usable(Capacity)
	Fits        bool    `json:"fits"`           // Total ≤ Usable
	Over        float64 `json:"over_bytes"`     // Total − Usable when it does not fit, else 0
	Stage       int     `json:"stage"`          // the pipeline stage this GPU is in
	// InFlight is the micro-batches (chunk-micro-batches, interleaved)
	// whose activations the stage holds at its peak.
	InFlight int `json:"in_flight"`
	Layers   int `json:"layers"` // transformer layers on the stage
}

// Time is one optimizer step's time on the critical path.
// Step = Compute + Bubble + ExposedComm + Optimizer + Straggler.
type Time struct {
	Step      float64 `json:"step_s"`
	Compute   float64 `json:"compute_s"`      // forward, backward and recomputation of the slowest stage
	TPComm    float64 `json:"tp_comm_s"`      // tensor-parallel collectives (not overlapped)
	EPComm    float64 `json:"ep_comm_s"`      // expert parallelism's all-to-alls not hidden (all of them without EPOverlap)
	CPComm    float64 `json:"cp_comm_s"`      // context parallelism's K/V traffic not hidden behind attention
	PPComm    float64 `json:"pp_comm_s"`      // pipeline sends on the critical path
	DPComm    float64 `json:"dp_comm_s"`      // data-parallel / ZeRO collectives, hidden or not
	DPHidden  float64 `json:"dp_hidden_s"`    // the part of DPComm hidden behind compute
	Bubble    float64 `json:"bubble_s"`       // pipeline fill and drain
	Exposed   float64 `json:"exposed_comm_s"` // TPComm + EPComm + CPComm + PPComm + DPComm − DPHidden + NICShared
	Optimizer float64 `json:"optimizer_s"`    // the Adam update of this GPU's shard
	// Straggler is the wait for the slowest GPU: the step's compute and
	// bubble at the pace of the slowest of the plan's GPUs rather than
	// the median's (StragglerFactor of Cluster.GPUVariation; 0 when the
	// GPUs are taken alike).
	Straggler float64 `json:"straggler_s"`

	// EPHidden is the part of the all-to-alls EPOverlap hides behind the
	// paired chunk's compute (not in Exposed).
	EPHidden float64 `json:"ep_hidden_s,omitempty"`
	// NICShared is what the pipeline sends and TP all-reduces on the
	// critical path that leave the node lose to DP's collective on the
	// same NIC (Result.NICSharing; issue 19); the time line draws it
	// with DP's exposed part.
	NICShared float64 `json:"nic_shared_s"`
}

// Result is a plan's evaluation.
type Result struct {
	Config Config
	// Params is the model's parameter count; StageParams a GPU's share
	// on each stage (before ZeRO partitioning).
	Params      float64
	StageParams []float64
	// ModelFLOPs are the training FLOPs of a step without
	// recomputation; HardwareFLOPs add what recomputation repeats.
	ModelFLOPs, HardwareFLOPs float64
	MicroBatches              int
	Memory                    Memory   // the GPU with the most bytes
	StageMemory               []Memory // one per pipeline stage
	Time                      Time
	BubbleFraction            float64 // (p−1)/(v·m) of the ideal time; the bubble over the ideal for a schedule costed in closed form
	// Per micro-batch and stage: forward, backward (with recomputation)
	// and TP communication, seconds — the blocks of the pipeline
	// timeline. StageTPForward is the part of StageTP that runs with the
	// forward (the rest runs with the backward, with the recomputed
	// forward's own all-reduces under full recomputation);
	// StageRecompute the part of StageBackward that repeats the forward.
	// StageEP is the part of StageTP that is expert parallelism's
	// all-to-alls (a mixture of experts'; the communication a layer
	// waits for, like TP's; with EPOverlap, the part the paired chunk's
	// compute does not hide).
	StageForward, StageBackward, StageTP []float64
	StageTPForward, StageRecompute       []float64
	StageEP                              []float64
	// StageCP is the part of StageTP that is context parallelism's
	// exposed K/V traffic.
	StageCP []float64
	// StageW is the part of StageBackward that is the products' weight
	// gradients — the W DualPipe and the zero-bubble schedules hold back
	// to fill the bubble — kept for those plans only (nil otherwise).
	StageW []float64
	// ActiveParams are the parameters a token goes through (Params for a
	// dense model).
	ActiveParams float64
	P2P          float64 // one pipeline send, seconds
	// NICSharing is the share of the compute window each GPU's NIC
	// carries the DP collective (0–1): the pipeline sends and TP
	// all-reduces that leave the node meet it so often (Evaluate;
	// Time.NICShared).
	NICSharing float64
	TokensPerS float64
	// TFLOPSPerGPU counts hardware FLOPs (recomputation included, as
	// Megatron-LM reports), ModelTFLOPSPerGPU the model's alone; MFU and
	// HFU divide them by MFUPeak, the GPU's dense peak in MFUPeakDtype
	// (the products' format: bf16, fp16 or fp8).
	TFLOPSPerGPU, ModelTFLOPSPerGPU, MFU, HFU float64
	MFUPeakDtype                              hw.Dtype
	MFUPeak                                   float64 // FLOP/s
}

// layerShape is what one layer's costs are computed from.
type layerShape struct {
	n               float64 // tokens in a micro-batch, b·s
	h, f, kv        float64 // hidden, FFN size, K/V width (kv heads × head dim)
	s, a, t         float64
	swiglu          bool
	sp, flash       bool
	rc              Recompute
	heads, headsGPU int
}

// ActivationBytes is one layer's stored activations for a micro-batch,
// per GPU: Korthikanti et al.'s derivation (their §4.1) generalised to
// grouped-query attention and any FFN: attention 11·sbh (Q, K, V, the
// inputs of the two products, the projection input, a dropout mask) +
// 5·a·s²·b (softmax output, its dropout mask and output), MLP 19·sbh,
// two LayerNorms 4·sbh. With f = 4h, GeLU and K, V as wide as Q it is
// exactly their Table 2 (ActivationBytesPerLayer). FlashAttention keeps
// no s×s tensor (only the softmax statistics, 4·a·s·b bytes).
func ActivationBytes(m model.Transformer, s, b, t int, sp, flash bool, rc Recompute) float64 {
	return activationBytes(m, s, s, b, t, sp, flash, rc)
}

// ActivationBytesCP is one layer's stored activations per GPU under
// context parallelism over cp ranks: ActivationBytes of the s/cp tokens
// a rank holds (its queries, and the keys and values it computes; the
// others' are gathered again for the backward), standard attention's
// scores s/cp × s.
func ActivationBytesCP(m model.Transformer, s, b, t, cp int, sp, flash bool, rc Recompute) float64 {
	cp = max(cp, 1)
	return activationBytes(m, s/cp, s, b, t, sp, flash, rc)
}

// activationBytes is ActivationBytes for s queries against keys of kvSeq
// tokens.
func activationBytes(m model.Transformer, s, kvSeq, b, t int, sp, flash bool, rc Recompute) float64 {
	return layerActivations(m, s, kvSeq, b, Plan{TP: t, SP: sp, Flash: flash, Recompute: rc})
}

// layerActivations is one layer's stored activations for a micro-batch
// of b sequences on a GPU of plan p, s queries against keys of kvSeq
// tokens: what selective recomputation's modules leave out is not
// stored, and under FP8Cache the products' inputs are kept in FP8.
func layerActivations(m model.Transformer, s, kvSeq, b int, p Plan) float64 {
	S, B, H, T := float64(s), float64(b), float64(m.Hidden), float64(p.TP)
	A := float64(m.Heads)
	f := float64(m.FFNSize)
	sbh := S * B * H
	div := 1.0
	if p.SP {
		div = T
	}
	if p.Recompute == RecomputeFull {
		return 2 * sbh / div
	}
	if p.Recompute == RecomputeOp {
		return opActivations(m, S*B, float64(kvSeq), p)
	}
	mods := p.modules()
	in := p.inputBytes() // a product's input
	// Replicated across the TP group unless sequence parallel: the two
	// norms' inputs (2 + 2); their outputs, the inputs of attention's and
	// the MLP's first products (2 + 2), unless the norms are recomputed;
	// the two dropout masks (1 + 1; none in a model trained without
	// dropout).
	outside := 4.0
	if mods&ModuleLayerNorm == 0 {
		outside += 2 * in
	}
	if !m.NoDropout {
		outside += 2
	}
	bytes := outside * sbh / div
	// Split over the TP group: Q, K and V (attention's inputs), the
	// projection's input O; latent attention's Q and K qk wide a head, V
	// and O v wide, and its latents, the up projections' inputs,
	// replicated (Q, K and V not kept when the up projections are
	// recomputed from them).
	q := float64(m.Heads * m.HeadDim())
	k := float64(m.KVHeads * m.HeadDim())
	v, o := k, q
	if m.MLA() {
		q, v = float64(m.Heads*(m.QKNope+m.QKRope)), float64(m.Heads*m.VHead)
		k, o = q, v
		bytes += in * float64(m.KVLoRA+m.QKRope+m.QLoRA) / H * sbh
		if mods&ModuleMLAUpProj != 0 {
			q, k, v = 0, 0, 0
		}
	}
	oBytes := 2.0
	if p.FP8Cache {
		oBytes = 1.5 // DeepSeek-V3's E5M6 for the input of the product after attention
	}
	bytes += (2*(q+k+v) + oBytes*o) / H * sbh / T
	// The MLP: what its activation's backward reads (Korthikanti et al.
	// §4.1: GeLU's input, 2·f; SwiGLU's gate and up outputs, cached in
	// FP8 with the products' inputs; squared ReLU's relu(x), f values as
	// GeLU's, the derivative 2·relu(x) read from it; ReLU's own output,
	// which the down projection keeps anyway — PyTorch's relu saves its
	// result, threshold_backward(grad, result, 0) in
	// tools/autograd/derivatives.yaml — so nothing more) and the down
	// projection's input, unless the activation is recomputed.
	act := 2 * f
	switch m.FFN {
	case model.SwiGLU:
		act = 2 * f * in
	case model.ReLU:
		act = 0
	}
	down := f * in
	if mods&ModuleMoEAct != 0 || p.FusedSwiGLU {
		down = 0 // recomputed from the gate and up outputs, or written again by the fused kernel
		if m.FFN == model.ReLU {
			act = 2 * f // ReLU recomputed: its input kept in place of its output
		}
	}
	bytes += (act + down) / H * sbh / T
	// The attention core's scores (standard attention: the softmax's
	// output, its dropout mask and the dropout's output; without dropout
	// the softmax's output alone) or FlashAttention's softmax statistics,
	// unless it is recomputed.
	if mods&ModuleCoreAttn == 0 {
		if p.Flash {
			bytes += 4 * A * S * B / T
		} else {
			per := 5.0
			if m.NoDropout {
				per = 2
			}
			bytes += per * A * S * float64(kvSeq) * B / T
		}
	}
	return bytes
}
