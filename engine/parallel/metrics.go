package parallel

import "cmp"

// Metrics are a plan's numbers under the names of gpuscope plan --json
// (the page's state().metrics uses the same).
type Metrics struct {
	// Fits is whether the fullest GPU's memory fits (memory.fits), first:
	// when false the time, speed and utilisation below are what the plan
	// would do if it fit, not what it can do.
	Fits                 bool    `json:"fits"`
	Model                string  `json:"model"`
	Params               float64 `json:"params"`
	ActiveParams         float64 `json:"active_params"` // a token's (a mixture of experts': its top-k experts); params for a dense model
	ModelFLOPsPerStep    float64 `json:"model_flops_per_step"`
	HardwareFLOPsPerStep float64 `json:"hardware_flops_per_step"`
	GPU                  string  `json:"gpu"`
	GPUs                 int     `json:"gpus"`
	GPUsPerNode          int     `json:"gpus_per_node"`
	Intra                string  `json:"intra"`
	Inter                string  `json:"inter"`
	TP                   int     `json:"tp"`
	PP                   int     `json:"pp"`
	DP                   int     `json:"dp"`
	EP                   int     `json:"ep"`              // expert parallelism, 1 for a dense model
	CapacityFactor       float64 `json:"capacity_factor"` // 1: balanced
	CP                   int     `json:"cp"`              // context parallelism, 1: none
	CPAlgo               string  `json:"cp_algo"`         // allgather or ring
	Interleave           int     `json:"interleave"`
	SP                   bool    `json:"sp"`
	ZeRO                 int     `json:"zero"`
	Recompute            string  `json:"recompute"`
	Flash                bool    `json:"flash"`
	MicroBatch           int     `json:"micro_batch"`
	GlobalBatch          int     `json:"global_batch"`
	MicroBatches         int     `json:"micro_batches"`
	GradAccumSteps       int     `json:"grad_accum_steps"`
	Schedule             string  `json:"schedule"`
	BytesPerParam        int     `json:"bytes_per_param"`
	Dtype                string  `json:"dtype"`
	// OptimizerStates is how Adam's moments are stored (fp32, bf16,
	// 8bit) and MasterWeights the optimizer's copy of the weights (fp32,
	// remainder, none); StateBytesPerParam what they and
	// bytes_per_param's gradients come to, a parameter, by part, with
	// OptimizerStateBytesPerParam (master weights and moments) and
	// ModelStateBytesPerParam (all of it) their sums.
	OptimizerStates             string     `json:"optimizer_states"`
	MasterWeights               string     `json:"master_weights"`
	StateBytesPerParam          StateBytes `json:"state_bytes_per_param"`
	OptimizerStateBytesPerParam float64    `json:"optimizer_state_bytes_per_param"`
	ModelStateBytesPerParam     float64    `json:"model_state_bytes_per_param"`
	Memory                      Memory     `json:"memory"`
	MemoryPerStage              []Memory   `json:"memory_per_stage,omitempty"`
	Time                        Time       `json:"time"`
	// TimePerStage is one micro-batch through each pipeline stage.
	TimePerStage   []StageTime `json:"time_per_stage,omitempty"`
	BubbleFraction float64     `json:"bubble_fraction"`
	TokensPerS     float64     `json:"tokens_per_s"`
	TFLOPSPerGPU   float64     `json:"tflops_per_gpu"` // hardware FLOPs (with recomputation), as Megatron-LM reports
	// ModelTFLOPSPerGPU counts the model's FLOPs alone (no recomputation).
	ModelTFLOPSPerGPU float64 `json:"model_tflops_per_gpu"`
	MFU               float64 `json:"mfu"` // model FLOPs over the peak in mfu_peak_dtype
	HFU               float64 `json:"hfu"` // hardware FLOPs over the same peak
	// MFUPeakDtype names the peak mfu and hfu divide by: the GPU's dense
	// peak in the products' format (bf16, fp16 or fp8), MFUPeakTFLOPS.
	MFUPeakDtype  string  `json:"mfu_peak_dtype"`
	MFUPeakTFLOPS float64 `json:"mfu_peak_tflops"`

	// DeepSeek-V3's expert-parallel mechanisms and FP8 recipe, when a
	// plan has them.
	NodeLimit     int    `json:"node_limit,omitempty"`     // nodes a token's experts span at most (0: unlimited)
	DispatchDtype string `json:"dispatch_dtype,omitempty"` // the dispatch all-to-all's format (bf16 when absent)
	EPOverlap     bool   `json:"ep_overlap,omitempty"`     // DualPipe's pairing hides the all-to-alls behind compute
	CommSMs       int    `json:"comm_sms,omitempty"`       // SMs the overlapped all-to-alls take
	BlockScaled   bool   `json:"block_scaled,omitempty"`   // FP8 products with fine-grained scaling
	// RecomputeModules is what selective recomputation runs again, when
	// not Megatron-LM's attention core alone ("layernorm,mla_up_proj,…").
	RecomputeModules string `json:"recompute_modules,omitempty"`
	FP8Cache         bool   `json:"fp8_cache,omitempty"` // the products' inputs kept in FP8
	// FusedSwiGLU: SwiGLU as one fused kernel, its product written again
	// in the backward rather than kept.
	FusedSwiGLU bool `json:"fused_swiglu,omitempty"`
	// Eager: the elementwise work as PyTorch's eager mode runs it, an
	// operation a kernel (Plan.Eager).
	Eager bool `json:"eager,omitempty"`
	// TELinear: FP8 through plain te.Linear modules, weights cast every
	// micro-batch (Plan.TELinear).
	TELinear bool `json:"te_linear,omitempty"`
	// ZeROFetch is how ZeRO-3 gathers the weights when not prefetched
	// (Plan.ZeROFetch: blocking, DeepSpeed's of 2021).
	ZeROFetch string `json:"zero_fetch,omitempty"`
	// FirstStageLayers and LastStageLayers are the first and last
	// pipeline stages' layers when the plan sets them (an uneven split;
	// memory_per_stage's layers lists every stage's).
	FirstStageLayers int `json:"first_stage_layers,omitempty"`
	LastStageLayers  int `json:"last_stage_layers,omitempty"`
	// FlashVersion is FlashAttention's generation when one was chosen (2
	// or 3; absent: the newest the GPU runs).
	FlashVersion int `json:"flash_version,omitempty"`
	// CrossEntropy is how the loss over the logits runs (Plan.Loss:
	// megatron, megatron-fused, pytorch or fused).
	CrossEntropy string `json:"cross_entropy"`
}

// Metrics reports the plan. Memory is the fullest GPU's; MemoryPerStage
// lists every stage when the result kept them.
func (r Result) Metrics() Metrics {
	c := r.Config
	p := c.Plan
	sb := p.States()
	return Metrics{
		OptimizerStates: string(cmp.Or(p.OptimizerStates, StatesFP32)), MasterWeights: string(cmp.Or(p.MasterWeights, MasterFP32)),
		StateBytesPerParam: sb, OptimizerStateBytesPerParam: sb.Optimizer(), ModelStateBytesPerParam: sb.Total(),
		Model: c.Model.ID, Params: r.Params, ActiveParams: r.ActiveParams, EP: p.ep(), CapacityFactor: p.capacity(), CP: p.cp(), CPAlgo: string(p.cpAlgo()), ModelFLOPsPerStep: r.ModelFLOPs, HardwareFLOPsPerStep: r.HardwareFLOPs,
		GPU: c.Cluster.GPU.ID, GPUs: c.Cluster.GPUs, GPUsPerNode: c.Cluster.GPUsPerNode, Intra: c.Cluster.Intra.ID, Inter: c.Cluster.Inter.ID,
		TP: p.TP, PP: p.PP, DP: p.DP, Interleave: p.Interleave, SP: p.SP, ZeRO: p.ZeRO, Recompute: string(p.Recompute), Flash: p.Flash,
		MicroBatch: p.MicroBatch, GlobalBatch: p.GlobalBatch, MicroBatches: r.MicroBatches, GradAccumSteps: r.MicroBatches,
		Schedule: string(p.Schedule), BytesPerParam: p.BytesPerParam, Dtype: string(p.Dtype),
		NodeLimit: p.NodeLimit, DispatchDtype: string(p.DispatchDtype), EPOverlap: p.EPOverlap, CommSMs: p.CommSMs, BlockScaled: p.BlockScaled,
		RecomputeModules: p.RecomputeModules.String(), FP8Cache: p.FP8Cache, FusedSwiGLU: p.FusedSwiGLU, Eager: p.Eager, TELinear: p.TELinear, ZeROFetch: zeroFetchMetric(p), FlashVersion: p.FlashVersion, CrossEntropy: string(cmp.Or(p.Loss, LossMegatron)),
		FirstStageLayers: p.FirstStageLayers, LastStageLayers: p.LastStageLayers,
		Memory: r.Memory, MemoryPerStage: r.StageMemory, Time: r.Time, TimePerStage: r.perStageTimes(), BubbleFraction: r.BubbleFraction,
		TokensPerS: r.TokensPerS, TFLOPSPerGPU: r.TFLOPSPerGPU, ModelTFLOPSPerGPU: r.ModelTFLOPSPerGPU, MFU: r.MFU, HFU: r.HFU,
		MFUPeakDtype: string(r.MFUPeakDtype), MFUPeakTFLOPS: r.MFUPeak / 1e12, Fits: r.Memory.Fits,
	}
}

// StageTime is one micro-batch through one pipeline stage, seconds: its
// forward, its backward (recomputation included, and of it the
// recomputation and, under DualPipe and the zero-bubble schedules, the
// products' weight gradients W) and the communication its layers wait
// for (TP's all-reduces, CP's K/V and the all-to-alls the paired chunk
// does not hide), and ForwardBackward, the three together: what DualPipe
// calls F&B, a forward chunk and a backward chunk run paired. Under
// DualPipe a rank holds two stages (i and PP − 1 − i) and each number is
// the mean of a micro-batch through either; under ZB-V and DualPipeV a
// rank's two chunks together.
type StageTime struct {
	Forward         float64 `json:"forward_s"`
	Backward        float64 `json:"backward_s"`
	Recompute       float64 `json:"recompute_s"`
	WGrad           float64 `json:"wgrad_s,omitempty"`
	Comm            float64 `json:"comm_s"`
	ForwardBackward float64 `json:"f_and_b_s"`
}

// perStageTimes lists StageTime for every stage (nil when the result kept
// no stage times).
func (r Result) perStageTimes() []StageTime {
	if len(r.StageForward) == 0 {
		return nil
	}
	out := make([]StageTime, len(r.StageForward))
	for i := range out {
		s := StageTime{Forward: r.StageForward[i], Backward: r.StageBackward[i], Comm: r.StageTP[i]}
		if r.StageRecompute != nil {
			s.Recompute = r.StageRecompute[i]
		}
		if r.StageW != nil {
			s.WGrad = r.StageW[i]
		}
		s.ForwardBackward = s.Forward + s.Backward + s.Comm
		out[i] = s
	}
	return out
}

// SearchMetrics are gpuscope plan --search --json: the fitting plans best
// first (at most top of them), the counts, and the decision tree.
type SearchMetrics struct {
	Plans     []Metrics `json:"plans"`
	Evaluated int       `json:"evaluated"`
	Fitting   int       `json:"fitting"`
	Decision  Decision  `json:"decision"`
	// Fixed are the plan flags every plan searched was held to ("--tp 8
	// --zero 1"; empty: none).
	Fixed string `json:"fixed,omitempty"`
}

// Metrics reports the search, the first top plans (all when top ≤ 0).
func (s SearchResult) Metrics(top int) SearchMetrics {
	n := len(s.Plans)
	if top > 0 && top < n {
		n = top
	}
	out := SearchMetrics{Plans: make([]Metrics, n), Evaluated: s.Evaluated, Fitting: s.Fitting, Decision: s.Decision}
	for i := range n {
		out.Plans[i] = s.Plans[i].Metrics()
		// A search keeps some plans' stage times and not others' (those
		// whose schedule it shared): it lists none, as it lists no
		// stage's memory; plan without --search gives them.
		out.Plans[i].TimePerStage = nil
	}
	return out
}

// zeroFetchMetric is Metrics.ZeROFetch: blocking, or empty when ZeRO-3's
// gathers are prefetched.
func zeroFetchMetric(p Plan) string {
	if p.blocking() {
		return string(FetchBlocking)
	}
	return ""
}
