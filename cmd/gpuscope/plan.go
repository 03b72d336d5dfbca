package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/engine/budget"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

// planKnobs are gpuscope plan's valued flags. Model-shape flags override
// a preset's fields.
func planKnobs() []scenarios.Knob {
	n := func(name string, lo, hi int64, def string) scenarios.Knob {
		return scenarios.Knob{Name: name, Kind: scenarios.KnobInt, Min: lo, Max: hi, Default: def}
	}
	links := hw.LinkIDs()
	return append([]scenarios.Knob{
		{Name: "model", Kind: scenarios.KnobEnum, Values: model.PresetIDs()},
		n("layers", 1, 1000, ""), n("hidden", 1, 1<<20, ""), n("heads", 1, 1<<16, ""), n("kv-heads", 1, 1<<16, ""),
		n("seq", 1, 1<<24, ""), n("vocab", 1, 1<<24, ""), n("ffn", 1, 1<<22, ""),
		{Name: "ffn-kind", Kind: scenarios.KnobEnum, Values: ffnKinds()},
		n("head-dim", 0, 1<<14, ""), n("experts", 0, 1<<16, ""), n("top-k", 0, 1<<10, ""), n("expert-ffn", 0, 1<<22, ""),
		n("shared-ffn", 0, 1<<22, ""), n("dense-layers", 0, 1000, ""),
		n("kv-lora-rank", 0, 1<<16, ""), n("q-lora-rank", 0, 1<<16, ""), n("qk-nope-head-dim", 0, 1<<14, ""),
		n("qk-rope-head-dim", 0, 1<<14, ""), n("v-head-dim", 0, 1<<14, ""), n("mtp-layers", 0, 1000, ""),
		{Name: "params", Kind: scenarios.KnobFloat, FMin: 1, FMax: 1e16},
		n("gpus", 1, 1<<24, ""), n("tp", 1, 1<<16, "1"), n("pp", 1, 1<<16, "1"), n("dp", 1, 1<<24, ""),
		n("interleave", 1, 64, "1"), n("first-stage-layers", 0, 1000, ""), n("last-stage-layers", 0, 1000, ""), n("zero", 0, 3, "0"), n("micro-batch", 1, 1<<16, "1"), n("global-batch", 1, 1<<24, ""),
		n("flash-version", 2, 3, ""), n("gpus-per-node", 1, 256, "8"), n("nics-per-node", 1, 256, ""), n("top", 0, 1<<20, "50"),
		n("ep", 1, 1<<16, "1"), n("cp", 1, 1<<16, "1"),
		{Name: "cp-algo", Kind: scenarios.KnobEnum, Values: []string{string(parallel.CPAllGather), string(parallel.CPRing)}, Default: string(parallel.CPAllGather)},
		{Name: "capacity-factor", Kind: scenarios.KnobFloat, FMin: 1, FMax: 8, Default: "1"},
		{Name: "gpu-variation", Kind: scenarios.KnobFloat, FMin: 0, FMax: 0.1, Default: strconv.FormatFloat(parallel.FieldGPUVariation, 'g', -1, 64)},
		n("node-limit", 0, 1<<16, "0"),
		{Name: "dispatch-dtype", Kind: scenarios.KnobEnum, Values: []string{"bf16", "fp8"}, Default: "bf16"},
		n("comm-sms", 0, 1024, ""),
		{Name: "recompute", Kind: scenarios.KnobEnum, Values: []string{"none", "selective", "full", "op"}, Default: "selective"},
		{Name: "schedule", Kind: scenarios.KnobEnum, Values: parallel.ScheduleIDs()},
		{Name: "gpu", Kind: scenarios.KnobEnum, Values: hw.GPUIDs(), Default: "h100"},
		{Name: "intra", Kind: scenarios.KnobEnum, Values: links},
		{Name: "inter", Kind: scenarios.KnobEnum, Values: links},
		{Name: "bytes-per-param", Kind: scenarios.KnobEnum, Values: []string{"16", "18"}, Default: "16"},
		{Name: "optimizer-states", Kind: scenarios.KnobEnum, Values: []string{string(parallel.StatesFP32), string(parallel.StatesBF16), string(parallel.States8Bit)}, Default: string(parallel.StatesFP32)},
		{Name: "master-weights", Kind: scenarios.KnobEnum, Values: []string{string(parallel.MasterFP32), string(parallel.MasterRemainder), string(parallel.MasterNone)}, Default: string(parallel.MasterFP32)},
		{Name: "dtype", Kind: scenarios.KnobEnum, Values: []string{"bf16", "fp16", "fp8"}, Default: "bf16"},
		{Name: "software", Kind: scenarios.KnobEnum, Values: softwareEraNames(), Default: "current"},
		{Name: "dropout", Kind: scenarios.KnobEnum, Values: []string{"on", "off"}},
		{Name: "cross-entropy", Kind: scenarios.KnobEnum, Values: lossNames(), Default: string(parallel.LossMegatron)},
		{Name: "zero-fetch", Kind: scenarios.KnobEnum, Values: []string{string(parallel.FetchPrefetch), string(parallel.FetchBlocking)}, Default: string(parallel.FetchPrefetch)},
		{Name: "at", Kind: scenarios.KnobFloat, FMin: 0, FMax: 1e9}, n("rank", 0, 1<<24, "0"),
		{Name: "measured-step", Kind: scenarios.KnobFloat, FMin: 1e-6, FMax: 1e7},
		{Name: "measured-mfu", Kind: scenarios.KnobFloat, FMin: 1e-4, FMax: 1},
		{Name: "measured-memory", Kind: scenarios.KnobFloat, FMin: 1e-3, FMax: 1e5},
	}, runKnobs()...)
}

// ffnKinds are the --ffn-kind values, the engine's feed-forward kinds.
func ffnKinds() []string {
	var ks []string
	for _, k := range model.FFNKinds() {
		ks = append(ks, string(k))
	}
	return ks
}

// softwareEra is how a generation of training software ran a plan: the
// settings gpuscope plan --software sets, each still overridden by its own
// flag.
type softwareEra struct {
	name      string
	flash     bool               // FlashAttention
	sp        bool               // sequence parallelism when TP > 1
	overlap   bool               // the DP all-reduce behind the backward pass
	recompute parallel.Recompute // the recomputation default
	bpp       int                // model-state bytes a parameter
	what      string
}

// softwareEras are the eras by name, oldest first.
var softwareEras = []softwareEra{
	{"megatron-2021", false, false, false, parallel.RecomputeFull, 18,
		"Narayanan et al. 2021's Megatron-LM: standard attention, no sequence parallelism, the DP all-reduce after the backward pass, full recomputation, FP32 gradients (18 bytes a parameter)"},
	{"megatron-2022", false, true, true, parallel.RecomputeSelective, 18,
		"Korthikanti et al. 2022's Megatron-LM: sequence parallelism and selective recomputation, standard attention, FP32 gradients (18 bytes a parameter)"},
	{"current", true, true, true, parallel.RecomputeSelective, 16,
		"today's defaults: FlashAttention, sequence parallelism, DP overlap, selective recomputation, 16 bytes a parameter"},
}

func softwareEraNames() []string {
	var n []string
	for _, e := range softwareEras {
		n = append(n, e.name)
	}
	return n
}

func softwareEraByName(name string) softwareEra {
	for _, e := range softwareEras {
		if e.name == name {
			return e
		}
	}
	return softwareEras[len(softwareEras)-1]
}

var planHelp = cmdHelp{
	name: "gpuscope plan",
	usage: `(--model PRESET | --hf-config FILE | --layers L --hidden H --heads A --seq S --vocab V | --params N)
                     [--gpus N --tp T --pp P --dp D ...] [--search [--top K]]
                     [--tokens N [--price USD ...]] [--json]`,
	about: `A parallel plan's memory per GPU and step time: TP × PP × DP with sequence
parallelism, ZeRO, recomputation, FlashAttention, micro-batches and a
pipeline schedule, on DGX-style nodes; context parallelism (--cp) splits
each sequence, expert parallelism (--ep) a mixture's experts. The plan's
line is followed by every setting that changes the numbers, with those
left at their defaults marked.
--search instead ranks every valid plan that fits, fastest first, with the
branch of the seeds' decision tree. --params N alone prints model-state
memory only. --tokens N turns the plan's step into a training run of N
tokens: days with failures, GPU-hours, energy and (--price) cost, each
assumption named. Plans that do not add up (TP × CP × PP × DP ≠ GPUs, heads
not divisible by TP, layers by PP × v, the sequence by 2·CP, the batch by
DP × micro-batch) are refused with the constraint named; layers that do
not divide by PP take --first-stage-layers and --last-stage-layers.`,
	flags: map[string]flagDoc{
		"model":              {what: "a model preset", def: "none: give --model, --hf-config, the sizes or --params"},
		"hf-config":          {what: "a Hugging Face config.json naming the model", arg: "FILE", allowed: "a config.json file"},
		"trace":              {what: "also write the plan's step to FILE as Chrome Trace Event JSON, which Perfetto (ui.perfetto.dev), chrome://tracing and PyTorch's profiler read: a process a pipeline stage, its threads compute (forward, recomputation, backward, bubble, the exposed collective, the optimizer, the wait for the slowest GPU), communication (pipeline sends, the data-parallel collective hidden and exposed) and memory (a counter of model states and activations in flight), with the engine's durations (not with --search)", arg: "FILE", allowed: "a file to write"},
		"layers":             {what: "transformer layers (overrides the model's)", def: "the model's"},
		"hidden":             {what: "hidden size (overrides the model's)", def: "the model's"},
		"heads":              {what: "attention heads (overrides the model's)", def: "the model's"},
		"kv-heads":           {what: "key/value heads, for grouped-query attention", def: "the model's; --heads for a model from sizes"},
		"seq":                {what: "sequence length, tokens", def: "the model's (a config.json's max_position_embeddings)"},
		"vocab":              {what: "vocabulary size", def: "the model's"},
		"ffn":                {what: "the MLP's inner size", def: "the model's; 4 × --hidden for a model from sizes"},
		"ffn-kind":           {what: "the MLP: gelu or relu, two matrices (a model from sizes GPT-style as GPT-3 and OPT: biases, LayerNorm, learned positions, tied embeddings, dropout), swiglu, three (Llama style: no biases, RMSNorm, rotary positions, untied embeddings, no dropout), or relu2, squared ReLU in two matrices (Nemotron-4 style: no biases, rotary positions, untied embeddings, no dropout)", def: "the model's; gelu for a model from sizes"},
		"params":             {what: "parameters, for model-state memory alone (no model shape)"},
		"head-dim":           {what: "a head's width when it is not hidden ÷ heads (Qwen3's head_dim; 0: hidden ÷ heads)", def: "the model's"},
		"experts":            {what: "a mixture of experts' routed experts in each MoE layer (0: a dense model)", def: "the model's"},
		"top-k":              {what: "experts a token is routed to", def: "the model's"},
		"expert-ffn":         {what: "a routed expert's inner size (moe_intermediate_size)", def: "the model's"},
		"shared-ffn":         {what: "the shared experts' inner size, all together (DeepSeek's n_shared_experts × moe_intermediate_size)", def: "the model's"},
		"dense-layers":       {what: "the first layers that are dense, --ffn wide (DeepSeek's first_k_dense_replace)", def: "the model's"},
		"kv-lora-rank":       {what: "multi-head latent attention (DeepSeek-V2, V3): the width of the latent K and V come from (kv_lora_rank; 0: none, standard attention); needs --qk-nope-head-dim, --qk-rope-head-dim and --v-head-dim", def: "the model's; 0 for a model from sizes"},
		"q-lora-rank":        {what: "latent attention's query latent width (q_lora_rank; 0: Q straight from the hidden state, DeepSeek-V2-Lite's)", def: "the model's"},
		"qk-nope-head-dim":   {what: "latent attention: a head's query and key width without rotary positions (qk_nope_head_dim)", def: "the model's"},
		"qk-rope-head-dim":   {what: "latent attention: a head's rotary query width, and the rotary key's shared by the heads (qk_rope_head_dim)", def: "the model's"},
		"v-head-dim":         {what: "latent attention: a head's value width (v_head_dim)", def: "the model's"},
		"mtp-layers":         {what: "multi-token-prediction modules trained after the last layer, their parameters counted apart (DeepSeek-V3's num_nextn_predict_layers: 1); at most --layers", def: "the model's; 0 for a model from sizes"},
		"gpus":               {what: "GPUs in the cluster", def: "tp × pp × dp (tp × pp without --dp)"},
		"tp":                 {what: "tensor-parallel degree"},
		"pp":                 {what: "pipeline-parallel degree (stages)"},
		"dp":                 {what: "data-parallel degree", def: "gpus ÷ (tp × pp)"},
		"interleave":         {what: "model chunks per pipeline stage, v (the interleaved schedule)"},
		"first-stage-layers": {what: "the layers the first pipeline stage holds, the rest split evenly over the other stages (Megatron-Core's --decoder-first-pipeline-num-layers; BLOOM-176B's 70 layers on 12 stages: --first-stage-layers 5 --last-stage-layers 5, 6 on each of the others); with --interleave each stage's count must divide by v", def: "an even split (or, when the layers do not divide, Llama 3's: the first and last stages a layer short)"},
		"last-stage-layers":  {what: "the layers the last pipeline stage holds (Megatron-Core's --decoder-last-pipeline-num-layers; a multi-token-prediction module counts as one of them), the rest split as --first-stage-layers says", def: "an even split"},
		"zero":               {what: "ZeRO stage: 1 shards the optimizer states over DP, 2 the gradients too, 3 the weights too"},
		"micro-batch":        {what: "sequences per micro-batch"},
		"global-batch":       {what: "sequences per optimizer step", def: "the preset's batch when dp × micro-batch divides it, else dp × micro-batch × 4·pp (a bubble near a quarter); with --search the preset's batch, else --gpus"},
		"gpus-per-node":      {what: "GPUs per node (one NVLink domain, or a PCIe server's cards), joined by --intra", def: "8; 72 for gb200 and gb300 (a GB200 or GB300 NVL72 rack)"},
		"flash-version":      {what: "FlashAttention's generation (with --flash): 3 (FlashAttention-3, Hopper and later) or 2 (FlashAttention-2: on Hopper at its own, lower, measured rates — what stacks before July 2024 and PyTorch's own attention ran)", def: "the newest the GPU runs: 3 on Hopper and Blackwell, 2 on Ampere"},
		"gpu-variation":      {what: "the spread of the GPUs' sustained speeds, a standard deviation relative to the median GPU (0–0.1; 0: every GPU alike): the step waits for the slowest of --gpus, σ·z(N) slower than the median (z: the expected largest of N normal draws, 1.43 for 8 GPUs, 3.96 for 16,384), shown as straggler_s", def: "0.015, as measured in the field (Sinha et al., SC'22: 8% between the GPUs of a cluster, its whiskers ±2.7σ)"},
		"nics-per-node":      {what: "the --inter NICs a node has, shared by its GPUs (BLOOM's 8 A100s on 4 Omni-Path NICs: --inter opa-100 --nics-per-node 4); at most --gpus-per-node", def: "one a GPU"},
		"top":                {what: "plans --search lists (0: all)"},
		"recompute":          {what: "activation recomputation: none, selective (attention's softmax and dropout), full (each layer's forward again) or op (torchtitan's op-level selective checkpointing: the matrix products' outputs kept except every second one a layer, wk, wo and w3 of its Llama, and every elementwise operation run again; dense SwiGLU models)", def: "selective (--software megatron-2021: full)"},
		"schedule":           {what: "the pipeline schedule: gpipe, 1f1b, interleaved (with --interleave), dualpipe (DeepSeek-V3's bidirectional one, each rank holding two stages; pair it with --ep-overlap), or a zero-bubble one, the backward split into the input gradient and the weight gradient W, which fills the bubble: zb-h1 (Qi et al.'s ZB-H1: 1F1B's order and memory, its bubble 2(p−1)W shorter; micro-batches ≥ pp), zb-v (ZB-V: two chunks a rank in a V, rank 0 holding the first and the last, 1F1B's activations; layers divisible by 2·pp, micro-batches ≥ 2·pp), dualpipev (DualPipe cut in half, the same V; pair it with --ep-overlap); dualpipe and the zero-bubble ones are costed in closed form and draw no time line (--at and --trace refuse them)", def: "1f1b; interleaved when --interleave > 1"},
		"gpu":                {what: "the GPU"},
		"intra":              {what: "the link inside a node", def: "the GPU's: nvlink3 for a100-80gb and a100-40gb, nvlink3-a800 for a800, nvlink4 for h100, h200, h20 and gh200, nvlink4-h800 for h800, pcie5 for h100-pcie and h100-nvl (their NVLink bridges join pairs only), nvlink5 for b200, gb200, b300 and gb300"},
		"inter":              {what: "the network between nodes, one NIC per GPU", def: "ib-hdr for the Ampere GPUs (a100-80gb, a100-40gb, a800), ib-ndr for the others"},
		"bytes-per-param":    {what: "model-state bytes a parameter: 16 (BF16 weights and gradients, FP32 master weights and Adam moments) or 18 (FP32 gradients, Megatron-LM); --optimizer-states and --master-weights change the optimizer's part", def: "16 (--software megatron-2021 and megatron-2022: 18)"},
		"optimizer-states":   {what: "how Adam's two moments are stored: fp32 (4 bytes each), bf16 (2 each: Megatron-Core's precision-aware optimizer with --exp-avg-dtype and --exp-avg-sq-dtype bf16, NeMo's optim.dtype bf16) or 8bit (bitsandbytes' block-wise 8-bit Adam: a byte each and an FP32 maximum for every 256 values, 1.016 bytes); the Adam update reads and writes them"},
		"master-weights":     {what: "the optimizer's copy of the weights: fp32 (4 bytes), remainder (the FP32 value's low 16 bits beside the BF16 weight, 2 bytes: Megatron-Core's store_param_remainders with the precision-aware optimizer) or none (the BF16 weights updated in place: NeMo's distributed Adam when its state dtype is the model's)"},
		"dtype":              {what: "the number format of the matrix products"},
		"ep":                 {what: "expert parallelism, for a mixture of experts: each MoE layer's experts spread over EP of the DP ranks (dividing DP and the experts)"},
		"capacity-factor":    {what: "a mixture of experts' busiest GPU's tokens through its experts over the mean (1: balanced)"},
		"cp":                 {what: "context parallelism: each sequence split over CP ranks (next to the TP ranks), each holding s ÷ CP tokens as two of 2·CP chunks (the load-balanced causal split); --seq must divide by 2·CP, and gpus = tp × cp × pp × dp"},
		"cp-algo":            {what: "how a CP rank's queries see the other ranks' keys and values: allgather (K and V all-gathered every layer, their gradients reduce-scattered: Llama 3's, exposed) or ring (K/V blocks passed to the next rank, hidden behind each block's attention)"},
		"node-limit":         {what: "node-limited routing (DeepSeek-V3): a token's experts on at most N nodes, one copy a node over the network, forwarded over NVLink inside it (0: unlimited)"},
		"dispatch-dtype":     {what: "the dispatch all-to-all's number format: bf16, or fp8 (a byte a value and an FP32 scale for each 128; DeepSeek-V3); combine stays bf16"},
		"ep-overlap":         {what: "DualPipe's pairing: the forward and backward chunks of two micro-batches run together, each one's all-to-alls behind the other's compute (the part the compute cannot hide stays exposed)", def: "off"},
		"block-scaled":       {what: "DeepSeek-V3's FP8 recipe: products with fine-grained scaling (1×128 and 128×128 tiles), promoted to FP32 on the CUDA cores every 128 and each tile written out before the next; the output head and the router in BF16 (needs --dtype fp8)", def: "off"},
		"comm-sms":           {what: "SMs the overlapped all-to-alls take from the compute beside them, which slows by that share meanwhile (needs --ep-overlap)", def: "20 with --ep-overlap (DeepSeek-V3's 20 of the H800's 132), else 0"},
		"dropout":            {what: "dropout in training: its masks stored with the activations, its passes timed", def: "the model's: on for GPT-style models (GPT-3, Megatron's), off for Llama, Mixtral, DeepSeek-V3 and a config.json whose dropouts are 0 (a SwiGLU model's without any)"},
		"recompute-modules":  {arg: "LIST", allowed: "a comma-separated list of core_attn, layernorm, mla_up_proj, moe_act", what: "what --recompute selective runs again in the backward pass, a comma-separated list as Megatron-Core's --recompute-modules: core_attn (the attention core), layernorm (the norms, their outputs not kept), mla_up_proj (latent attention's Q, K and V from the latents), moe_act (the MLP's activation, the down projection's input not kept); DeepSeek-V3's: layernorm,mla_up_proj,moe_act", def: "core_attn"},
		"fp8-cache":          {what: "keep the products' inputs for the backward pass in FP8 with their 1×128 scales, the attention output in E5M6 (DeepSeek-V3's low-precision storage; needs --block-scaled)", def: "off"},
		"tp-overlap":         {what: "hide TP's all-gathers and reduce-scatters behind the matrix products they feed or come from, as Transformer Engine's userbuffers do (Megatron-Core's --tp-comm-overlap, NeMo's ub_tp_comm_overlap): ring exchange for the all-gathers (the product in TP chunks, each shard arriving while the last is multiplied), a pipeline of 4 splits on 16 SMs for the forward's reduce-scatters, the backward's beside the weight-gradient products; needs --tp 2 or more with sequence parallelism", def: "off: TP's collectives between the products, exposed"},
		"measured-step":      {what: "a measured step time of this plan, seconds: set beside the engine's, term by term — compute, exposed communication, bubble, optimizer, the wait for the slowest GPU — each with what it would have to be to close the gap alone (JSON measured; not with --search)", arg: "SECONDS"},
		"measured-mfu":       {what: "a measured MFU of this plan, a fraction of the same peak the engine's mfu is over (0.41 for 41%): the step it implies, set beside the engine's as --measured-step is (not with --search)", arg: "FRACTION"},
		"measured-memory":    {what: "a measured peak memory of this plan's fullest GPU, GB: set beside the engine's, part by part — weights, gradients, optimizer states, activations, buffers (not with --search)", arg: "GB"},
		"cross-entropy":      {what: "how the loss over the logits runs, its passes through HBM counted from each stack's code: megatron (Megatron's vocab-parallel cross-entropy, unfused: 38 bytes a logit forward, 14 backward), megatron-fused (--cross-entropy-loss-fusion, NeMo 2.0's default: 26 and 14), pytorch (F.cross_entropy on FP32 logits in eager mode, torchtitan's: 22 and 26) or fused (one kernel each way over the BF16 logits, flash-attn's as llm-foundry runs it: 2 and 4)", def: "megatron (Megatron-LM's and Megatron-Core's default)"},
		"zero-fetch":         {what: "how ZeRO-3 gathers the weights (needs --zero 3): prefetch (a layer's weights in one collective while the layer before computes, behind the compute as --overlap hides it: PyTorch FSDP, fairscale, DeepSpeed from late 2021) or blocking (DeepSpeed's ZeRO-3 of 2021: each parameter of 10⁵ elements or more gathered by its own call when its module starts, the GPU synchronised before the module runs, gathered again for a recomputed forward, each gradient reduce-scattered by its own call, torch.distributed copying every rank's share apart — none of it hidden; dense models)", def: "prefetch"},
		"eager":              {what: "run the elementwise work as PyTorch's eager mode does, each operation its own kernel through HBM: RMSNorm in seven (36 bytes an element, not 4), rotary positions in FP32 complex arithmetic (20 bytes an element of Q and K), grouped K and V copied to every head, SiLU and its product apart (10 bytes an element of f, not 6) — counted from torchtitan's Llama without torch.compile; dense models", def: "off: fused kernels, as Megatron-Core, Transformer Engine and torch.compile run them"},
		"te-linear":          {what: "run an FP8 plan's products as plain Transformer Engine te.Linear modules called without is_first_microbatch, as llm-foundry's fc_type te does under Composer's amp_fp8: no LayerNorm fused into a product (every input cast to FP8 and transposed: read 2 bytes, write 1 + 1), the weights cast and transposed every micro-batch, the amaxes updated module by module (TE 1.2) and all-reduced over all ranks; needs --dtype fp8", def: "off: Megatron-Core's modules (the norm fused into the QKV and up projections, the weights cast once a step, the amaxes all-reduced over TP × CP once a model chunk)"},
		"fused-swiglu":       {what: "run a SwiGLU feed-forward block as one fused kernel that keeps its gate and up outputs and writes their product (the down projection's input) again inside its backward instead of storing it, as xformers' swiglu op does (not recomputation: no product runs again); needs a SwiGLU model", def: "off: the product stored too, as Megatron-LM and Transformer Engine do"},
		"json":               jsonDoc,
		"tokens":             {what: "turn the plan's step into a whole training run of this many tokens: steps (tokens ÷ (global batch × sequence), rounded up), the ideal days, the goodput failures, checkpoints and restarts leave (engine/faults' model at Daly's checkpoint interval for the cluster's MTBF), the wall-clock days, GPU-hours, energy and, with --price, cost (JSON time_to_train; not with --search). A plain number or e notation: 15.6e12 for 15.6T, 366e9 for 366B (no suffixes)", arg: "N", def: "none: no run"},
		"price":              {what: "US dollars a GPU-hour: the run's cost, its wall-clock GPU-hours × this (needs --tokens)", arg: "USD", def: "none: no cost"},
		"pue":                {what: "the data centre's power usage effectiveness, its total power over its IT equipment's: the run's energy is the GPUs' and their nodes' × this (needs --tokens)", def: "1.1 (Meta's: LLaMA, arXiv 2302.13971 §6)"},
		"mtbf-gpu-hours":     {what: "mean time between failures of one GPU, hours: the cluster fails every this ÷ --gpus (needs --tokens)", def: "50677 (Llama 3's rate: 419 failures in 54 days on 16,384 GPUs)"},
		"checkpoint-cost-s":  {what: "seconds a checkpoint stalls training; the run checkpoints at Daly's interval for it (needs --tokens)", def: "60 (the fault-tolerance lesson's, assumed)"},
		"restart-cost-s":     {what: "seconds from a failure to training again (needs --tokens)", def: "600 (the fault-tolerance lesson's, assumed)"},
		"kernels":            {what: "also list one layer's kernels on one GPU for one micro-batch, forward and backward: each matrix product with its M × N × K, the attention core, the elementwise passes, recomputation, the collectives — the parts the time line's blocks add up to (a mixture of experts' MoE layer's, with the router, the routed experts' products and the all-to-alls; not with --search)", def: "off"},
		"at":                 {arg: "SECONDS", what: "also say what GPU --rank does that many seconds into the step, as the page's zoom shows it: its stage, the time line's block, the layer and the kernel, and the kernel's FLOPs and bytes through HBM and shared memory (not with --search)"},
		"rank":               {what: "the GPU --at follows, in Megatron's rank order (TP, CP, DP, PP)"},
		"search":             {what: "rank every valid plan that fits, fastest first, each with sequence parallelism when TP > 1 and DP overlap; the plan flags given (--tp, --cp, --cp-algo, --pp, --dp, --ep, --interleave, --schedule, --micro-batch, --zero, --recompute) fix that part of every plan searched; the flags no searched plan reads (--sp, --overlap, --capacity-factor, --node-limit, --dispatch-dtype, --ep-overlap, --comm-sms, --block-scaled, --fp8-cache, --tp-overlap, --recompute-modules, --first-stage-layers, --last-stage-layers, --kernels, --at, --rank) are refused"},
		"sp":                 {what: "sequence parallelism in the TP group (activations outside the matrix products split over TP)", def: "on when --tp > 1 (--software megatron-2021: off)"},
		"flash":              {what: "FlashAttention (off: standard attention, the N×N scores through HBM)", def: "on (--software megatron-2021 and megatron-2022: off)"},
		"overlap":            {what: "hide the DP all-reduce behind the backward pass, bucket by bucket (off: after it)", def: "on (--software megatron-2021: off)"},
		"software":           {what: "a software era's settings, so a paper's row is one flag away (each still overridden by its own flag): megatron-2021 (" + softwareEras[0].what + "); megatron-2022 (" + softwareEras[1].what + "); current (" + softwareEras[2].what + "); with --search only its FlashAttention and bytes a parameter (the search sets the rest)"},
	},
	extra: []string{"hf-config", "recompute-modules", "trace"},
}

// statesOnly is gpuscope plan --params N: model-state memory alone.
type statesOnly struct {
	Params        float64 `json:"params"`
	GPU           string  `json:"gpu"`
	TP            int     `json:"tp"`
	PP            int     `json:"pp"`
	DP            int     `json:"dp"`
	ZeRO          int     `json:"zero"`
	BytesPerParam int     `json:"bytes_per_param"`
	// OptimizerStates, MasterWeights and StateBytesPerParam are plan
	// --json's fields of those names.
	OptimizerStates    string              `json:"optimizer_states"`
	MasterWeights      string              `json:"master_weights"`
	StateBytesPerParam parallel.StateBytes `json:"state_bytes_per_param"`
	Memory             parallel.Memory     `json:"memory"`
}

// modelLabel is how the text output names m: a preset's id, or for a
// config.json the name the reader knows it by (its _name_or_path, else
// its class).
func modelLabel(m model.Transformer) string {
	if m.ID == "hf-config" {
		return "config.json's " + m.Name
	}
	return m.ID
}

// readHFConfig reads the config.json at path, refusing it past
// model.MaxHFConfigBytes without reading the rest: a 100 MB file (or
// /dev/zero) costs a megabyte, not its size.
func readHFConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, model.MaxHFConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > model.MaxHFConfigBytes {
		size := "more than " + strconv.Itoa(model.MaxHFConfigBytes) + " bytes"
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = strconv.FormatInt(st.Size(), 10) + " bytes"
		}
		return nil, fmt.Errorf("config.json: %s is %s; allowed at most %d (a config.json is a few KB)", path, size, model.MaxHFConfigBytes)
	}
	return data, nil
}

func runPlan(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gpuscope plan: "+format+"\n", a...)
		return 2
	}
	// --hf-config takes a file name and --recompute-modules a list: read
	// them before the knob parser.
	var hfPath, modules, tracePath string
	var traceGiven bool
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--hf-config" || a == "-hf-config":
			if i+1 >= len(args) {
				return fail("--hf-config: missing value; allowed: a config.json file")
			}
			hfPath = args[i+1]
			i++
		case strings.HasPrefix(a, "--hf-config="):
			hfPath = strings.TrimPrefix(a, "--hf-config=")
		case a == "--recompute-modules" || a == "-recompute-modules":
			if i+1 >= len(args) {
				return fail("--recompute-modules: missing value; allowed: a comma-separated list of %s", strings.Join(parallel.ModuleNames(), ", "))
			}
			modules = args[i+1]
			i++
		case strings.HasPrefix(a, "--recompute-modules="):
			modules = strings.TrimPrefix(a, "--recompute-modules=")
		case a == "--trace" || a == "-trace":
			if i+1 >= len(args) {
				return fail("--trace: missing value; allowed: a file to write")
			}
			tracePath, traceGiven = args[i+1], true
			i++
		case strings.HasPrefix(a, "--trace="):
			tracePath, traceGiven = strings.TrimPrefix(a, "--trace="), true
		default:
			rest = append(rest, a)
		}
	}
	fs := newFlagSet(planKnobs(), "json", "search", "sp", "flash", "overlap", "ep-overlap", "block-scaled", "fp8-cache", "fused-swiglu", "tp-overlap", "eager", "te-linear", "kernels")
	fs.help = planHelp
	if err := fs.parse(rest); err != nil {
		return fs.stop(tokensHint(err), stdout, stderr)
	}
	if len(fs.args) > 0 {
		return fail("unexpected argument %q; allowed flags: %s", fs.args[0], fs.allowed())
	}
	// The flags on the command line, switches included (--sp, --sp=false),
	// read once: given is asked for every setting the plan lists.
	named := map[string]bool{}
	for _, a := range rest {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			named[name] = true
		}
	}
	given := func(name string) bool {
		_, ok := fs.vals[name]
		return ok || named[name]
	}
	atoi := func(name string) int { v, _ := strconv.Atoi(fs.value(name)); return v }
	boolOr := func(name string, def bool) bool {
		if given(name) {
			return fs.bools[name]
		}
		return def
	}
	g, _ := hw.GPUByID(fs.value("gpu"))
	tp, pp, cp := atoi("tp"), atoi("pp"), atoi("cp")

	// The model: a preset, a config.json or sizes; or --params alone.
	var m model.Transformer
	haveModel := false
	switch {
	case given("model") && hfPath != "":
		return fail("--model and --hf-config: give one")
	case given("model"):
		m, _ = model.Preset(fs.value("model"))
		haveModel = true
	case hfPath != "":
		data, err := readHFConfig(hfPath)
		if err != nil {
			return fail("--hf-config: %v", err)
		}
		seq := 0
		if given("seq") {
			seq = atoi("seq")
		}
		if m, err = model.FromHFConfig(data, seq); err != nil {
			return fail("--hf-config: %v", err)
		}
		haveModel = true
	case given("layers") || given("hidden") || given("heads"):
		for _, f := range []string{"layers", "hidden", "heads", "seq", "vocab"} {
			if !given(f) {
				return fail("--%s: missing; a model from sizes needs --layers, --hidden, --heads, --seq and --vocab (or --model PRESET)", f)
			}
		}
		m = model.Transformer{ID: "custom", Name: "custom", FFN: model.GeLU, Biases: true, LearnedPositions: true, Tied: true}
		m.FFNSize = 4 * atoi("hidden")
		haveModel = true
	}
	if haveModel {
		set := func(name string, dst *int) {
			if given(name) {
				*dst = atoi(name)
			}
		}
		set("layers", &m.Layers)
		set("hidden", &m.Hidden)
		set("heads", &m.Heads)
		set("seq", &m.Seq)
		set("vocab", &m.Vocab)
		set("ffn", &m.FFNSize)
		if given("heads") && !given("kv-heads") && m.ID == "custom" {
			m.KVHeads = m.Heads
		}
		set("kv-heads", &m.KVHeads)
		set("head-dim", &m.HeadSize)
		set("experts", &m.Experts)
		set("top-k", &m.TopK)
		set("expert-ffn", &m.ExpertFFN)
		set("shared-ffn", &m.SharedFFN)
		set("dense-layers", &m.DenseLayers)
		set("q-lora-rank", &m.QLoRA)
		set("kv-lora-rank", &m.KVLoRA)
		set("qk-nope-head-dim", &m.QKNope)
		set("qk-rope-head-dim", &m.QKRope)
		set("v-head-dim", &m.VHead)
		set("mtp-layers", &m.MTPLayers)
		if given("ffn-kind") {
			// A model from sizes is built as its FFN's family was: GPT
			// style (biases, learned positions, tied embeddings, dropout)
			// with GeLU or ReLU (GPT-3, OPT); without them with SwiGLU or
			// squared ReLU (Llama, Nemotron-4).
			m.FFN = model.FFN(fs.value("ffn-kind"))
			if m.ID == "custom" {
				gpt := m.FFN.GPTStyle()
				m.Biases, m.LearnedPositions, m.Tied, m.NoDropout = gpt, gpt, gpt, !gpt
			}
		}
		if given("dropout") {
			m.NoDropout = fs.value("dropout") == "off"
		}
		if err := m.Validate(); err != nil {
			return fail("--%v", err)
		}
	}

	gpus := 0
	switch {
	case given("gpus"):
		gpus = atoi("gpus")
	case given("dp"):
		gpus = tp * cp * pp * atoi("dp")
	default:
		gpus = tp * cp * pp
	}
	dp := 0
	switch {
	case given("dp"):
		dp = atoi("dp")
	case gpus%(tp*cp*pp) == 0:
		dp = gpus / (tp * cp * pp)
	case cp > 1:
		return fail("--gpus: %d not divisible by tp × cp × pp = %d × %d × %d", gpus, tp, cp, pp)
	default:
		return fail("--gpus: %d not divisible by tp × pp = %d × %d", gpus, tp, pp)
	}
	era := softwareEraByName(fs.value("software"))
	bpp := atoi("bytes-per-param")
	if !given("bytes-per-param") {
		bpp = era.bpp
	}
	optStates, master := parallel.OptimizerStates(fs.value("optimizer-states")), parallel.MasterWeights(fs.value("master-weights"))
	states, err := parallel.NewStateBytes(bpp, optStates, master)
	if err != nil {
		return fail("--%v", err)
	}

	if !haveModel {
		if !given("params") {
			return fail("missing model; allowed: --model %s, --hf-config FILE, --layers/--hidden/--heads/--seq/--vocab, or --params N", strings.Join(model.PresetIDs(), "|"))
		}
		if fs.bools["search"] {
			return fail("--search: needs a model shape (--model, --hf-config or sizes), not --params alone")
		}
		if given("tokens") {
			return fail("--tokens: needs a plan's step, from a model shape (--model, --hf-config or sizes), not --params alone")
		}
		if cp > 1 && tp*cp*pp*dp != gpus {
			return fail("tp × cp × pp × dp: %d × %d × %d × %d = %d; must equal gpus %d", tp, cp, pp, dp, tp*cp*pp*dp, gpus)
		}
		if tp*cp*pp*dp != gpus {
			return fail("tp × pp × dp: %d × %d × %d = %d; must equal gpus %d", tp, pp, dp, tp*pp*dp, gpus)
		}
		psi, _ := strconv.ParseFloat(fs.value("params"), 64)
		// The CP ranks hold the same weights: ZeRO shards over DP × CP.
		st, err := states.ZeRO(psi/float64(tp*pp), dp*cp, atoi("zero"))
		if err != nil {
			return fail("--%v", err)
		}
		mem := parallel.Memory{Weights: st.Weights, Gradients: st.Gradients, Optimizer: st.Optimizer, Total: st.Total(), Capacity: float64(g.HBMBytes)}
		mem.Check()
		out := statesOnly{Params: psi, GPU: g.ID, TP: tp, PP: pp, DP: dp, ZeRO: atoi("zero"), BytesPerParam: bpp,
			OptimizerStates: string(optStates), MasterWeights: string(master), StateBytesPerParam: states, Memory: mem}
		if fs.bools["json"] {
			return writeJSON(stdout, stderr, out)
		}
		across := fmt.Sprintf("DP %d", dp)
		if cp > 1 {
			across = fmt.Sprintf("DP %d × CP %d", dp, cp)
		}
		each := strings.Replace(states.String(), " a parameter", " bytes each", 1)
		fmt.Fprintf(stdout, "%s parameters, %s, over TP %d × PP %d, ZeRO-%d across %s, on %s:\n", units.Params(psi), each, tp, pp, out.ZeRO, across, g.Name)
		writeMemory(stdout, mem)
		return 0
	}

	cl := parallel.DefaultCluster(g, gpus)
	if given("gpus-per-node") {
		cl.GPUsPerNode = atoi("gpus-per-node")
	}
	if given("intra") {
		cl.Intra, _ = hw.LinkByID(fs.value("intra"))
	}
	if given("inter") {
		cl.Inter, _ = hw.LinkByID(fs.value("inter"))
	}
	if given("nics-per-node") {
		cl.NICsPerNode = atoi("nics-per-node")
	}
	cl.GPUVariation, _ = strconv.ParseFloat(fs.value("gpu-variation"), 64)
	mb := atoi("micro-batch")
	gb := 0
	gbDefault := "" // how gb was chosen, when not given
	switch {
	case given("global-batch"):
		gb = atoi("global-batch")
	case fs.bools["search"] && m.Batch > 0:
		gb, gbDefault = m.Batch, m.ID+"'s batch"
	case fs.bools["search"]:
		gb, gbDefault = gpus, "one sequence a GPU"
	default:
		// Enough micro-batches to keep a pipeline's bubble near a quarter.
		gb, gbDefault = dp*mb*max(1, 4*pp), "DP × micro-batch × 4·PP"
		if m.Batch > 0 && m.Batch%(dp*mb) == 0 {
			gb, gbDefault = m.Batch, m.ID+"'s batch"
		}
	}
	dtype := hw.Dtype(fs.value("dtype"))
	flash := boolOr("flash", era.flash)

	fused := boolOr("fused-swiglu", false)
	eager := boolOr("eager", false)
	loss := parallel.Loss(fs.value("cross-entropy"))
	if traceGiven && tracePath == "" {
		return fail("--trace: empty; allowed: a file to write")
	}
	if fs.bools["search"] {
		for _, f := range []string{"measured-step", "measured-mfu", "measured-memory"} {
			if given(f) {
				return fail("--%s: compares one plan; not with --search", f)
			}
		}
	}
	if err := runFlagsNeedTokens(given); err != nil {
		return fail("%v", err)
	}
	if fs.bools["search"] && given("tokens") {
		return fail("--tokens: turns one plan's step into a run; not with --search (pick a plan from the search and give it without --search)")
	}
	if fs.bools["search"] && traceGiven {
		return fail("--trace: writes one plan's step; not with --search")
	}
	if fs.bools["search"] && fs.bools["kernels"] {
		return fail("--kernels: lists one plan's kernels; not with --search")
	}
	if fs.bools["search"] && given("at") {
		return fail("--at: follows one plan's GPU; not with --search")
	}
	if fs.bools["search"] {
		// Every plan searched has SP and DP overlap and none of
		// DeepSeek-V3's mechanisms: a flag the search would not read is
		// refused by name rather than ignored.
		for _, f := range searchUnread {
			if given(f.flag) || f.flag == "recompute-modules" && modules != "" {
				return fail("--%s: not with --search (%s)", f.flag, f.why)
			}
		}
		fixed := searchConstraints(given, atoi, fs.value)
		sr, err := parallel.Search(parallel.SearchOptions{Model: m, Cluster: cl, GlobalBatch: gb, BytesPerParam: bpp, OptimizerStates: optStates, MasterWeights: master,
			Dtype: dtype, Flash: flash, CP: true, Top: atoi("top"), FusedSwiGLU: fused, Eager: eager, Loss: loss, Fixed: fixed})
		if err != nil {
			return fail("--%v", err)
		}
		out := sr.Metrics(atoi("top"))
		out.Fixed = fixed.String()
		if fs.bools["json"] {
			return writeJSON(stdout, stderr, out)
		}
		fmt.Fprintf(stdout, "%s on %d × %s, global batch %d: %d plans evaluated, %d fit\n", modelLabel(m), gpus, g.Name, gb, sr.Evaluated, sr.Fitting)
		if out.Fixed != "" {
			fmt.Fprintf(stdout, "only plans with %s (given; the rest searched)\n", out.Fixed)
		}
		base := parallel.Plan{Flash: flash, GlobalBatch: gb, BytesPerParam: bpp, OptimizerStates: optStates, MasterWeights: master, Dtype: dtype, FusedSwiGLU: fused, Eager: eager, Loss: loss}
		set := planSettings(given, m, hfPath != "", base, cl, gbDefault, true, era)
		set.fix(fixed)
		set.write(stdout)
		fmt.Fprintf(stdout, "decision: %s — %s\n", sr.Decision.Branch, sr.Decision.Advice)
		for _, s := range sr.Decision.Steps {
			fmt.Fprintf(stdout, "  %-55s %-3s %s\n", s.Question, map[bool]string{true: "yes", false: "no"}[s.Answer], s.Detail)
		}
		writeSearchTable(stdout, out.Plans, m.MoE())
		return 0
	}

	v := atoi("interleave")
	sched := parallel.OneFOneB
	if v > 1 {
		sched = parallel.Interleaved
	}
	if given("schedule") {
		sched = parallel.Schedule(fs.value("schedule"))
	}
	rc := era.recompute
	if given("recompute") {
		rc = parallel.Recompute(fs.value("recompute"))
	}
	plan := parallel.Plan{TP: tp, PP: pp, DP: dp, Interleave: v, SP: boolOr("sp", era.sp && tp > 1), ZeRO: atoi("zero"),
		Recompute: rc, Flash: flash, MicroBatch: mb, GlobalBatch: gb,
		Schedule: sched, BytesPerParam: bpp, OptimizerStates: optStates, MasterWeights: master, Dtype: dtype, Overlap: boolOr("overlap", era.overlap), EP: atoi("ep"),
		CP: cp, CPAlgo: parallel.CPAlgo(fs.value("cp-algo"))}
	plan.CapacityFactor, _ = strconv.ParseFloat(fs.value("capacity-factor"), 64)
	plan.NodeLimit, plan.EPOverlap, plan.BlockScaled = atoi("node-limit"), boolOr("ep-overlap", false), boolOr("block-scaled", false)
	if d := hw.Dtype(fs.value("dispatch-dtype")); d == hw.FP8 {
		plan.DispatchDtype = d
	}
	if modules != "" {
		var err error
		if plan.RecomputeModules, err = parallel.ParseModules(modules); err != nil {
			return fail("--%v", err)
		}
	}
	plan.FP8Cache, plan.FusedSwiGLU = boolOr("fp8-cache", false), fused
	plan.TPOverlap = boolOr("tp-overlap", false)
	plan.Eager, plan.Loss = eager, loss
	plan.TELinear = boolOr("te-linear", false)
	plan.ZeROFetch = parallel.ZeROFetch(fs.value("zero-fetch"))
	plan.FirstStageLayers, plan.LastStageLayers = atoi("first-stage-layers"), atoi("last-stage-layers")
	if given("flash-version") {
		plan.FlashVersion = atoi("flash-version")
	}
	if plan.EPOverlap {
		plan.CommSMs = 20
	}
	if given("comm-sms") {
		plan.CommSMs = atoi("comm-sms")
	}
	r, err := parallel.Evaluate(parallel.Config{Model: m, Plan: plan, Cluster: cl})
	if err != nil {
		return fail("--%v", err)
	}
	set := planSettings(given, m, hfPath != "", plan, cl, gbDefault, false, era)
	var ks []parallel.Kernel
	if fs.bools["kernels"] {
		if ks, err = parallel.LayerKernels(parallel.Config{Model: m, Plan: plan, Cluster: cl}); err != nil {
			return fail("--%v", err)
		}
	}
	out := planOutput{Metrics: r.Metrics(), Overlap: plan.Overlap, TPOverlap: plan.TPOverlap, Seq: m.Seq, Dropout: !m.NoDropout, Defaulted: set.defaulted(), Kernels: ks}
	if given("at") {
		at, _ := strconv.ParseFloat(fs.value("at"), 64)
		tl, err := r.Timeline()
		if err != nil {
			return fail("--at: %v", err)
		}
		sa, err := parallel.NewStepActivity(r, tl)
		if err != nil {
			return fail("--at: %v", err)
		}
		act, err := sa.At(atoi("rank"), at)
		if err != nil {
			return fail("--rank: %v", strings.TrimPrefix(err.Error(), "gpu: "))
		}
		out.Activity = &act
		if c, ok := sa.Counts(act); ok {
			out.KernelCounts = &c
		}
	}
	for _, f := range []string{"measured-step", "measured-mfu", "measured-memory"} {
		if !given(f) {
			continue
		}
		v, _ := strconv.ParseFloat(fs.value(f), 64)
		var g parallel.Gap
		switch f {
		case "measured-step":
			g, err = r.StepGap(v)
		case "measured-mfu":
			g, err = r.MFUGap(v)
		default:
			g, err = r.MemoryGap(v * 1e9)
		}
		if err != nil {
			return fail("--%v", err)
		}
		out.Measured = append(out.Measured, g)
	}
	if given("tokens") {
		run, err := trainingRun(r, given, fs.value)
		if err != nil {
			return fail("--%v", err)
		}
		out.TimeToTrain = &run
	}
	if traceGiven {
		n, err := writeTrace(tracePath, r, args)
		if err != nil {
			return fail("--trace: %v", err)
		}
		if !fs.bools["json"] {
			defer fmt.Fprintf(stdout, "trace: %s, %d events (open it in ui.perfetto.dev or chrome://tracing)\n", tracePath, n)
		}
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, out)
	}
	defer writeGaps(stdout, out.Measured)
	defer writeActivity(stdout, out.Activity, out.KernelCounts)
	defer writeKernels(stdout, ks)
	defer writeTimeToTrain(stdout, out.TimeToTrain, r.Memory.Fits)
	split := fmt.Sprintf("TP %d × PP %d × DP %d", tp, pp, dp)
	if cp > 1 {
		split = fmt.Sprintf("TP %d × CP %d × PP %d × DP %d", tp, cp, pp, dp)
	}
	if !r.Memory.Fits {
		fmt.Fprintf(stdout, "DOES NOT FIT: the fullest GPU needs %s, %s over the %s usable of %s (%.2f×); the times below are what it would take if it fit, and no speed or MFU is given (gpuscope plan --search lists plans that fit)\n",
			units.Bytes(r.Memory.Total), units.Bytes(r.Memory.Over), units.Bytes(r.Memory.Usable), units.Bytes(r.Memory.Capacity), r.Memory.Total/r.Memory.Usable)
	}
	fmt.Fprintf(stdout, "%s (%s parameters) on %d × %s: %s, %s schedule, %d micro-batches of %d\n",
		modelLabel(m), units.Params(r.Params), gpus, g.Name, split, sched, r.MicroBatches, mb)
	set.write(stdout)
	fmt.Fprintf(stdout, "memory per GPU (stage %d of %d, the fullest):\n", r.Memory.Stage+1, pp)
	writeMemory(stdout, r.Memory)
	tm := r.Time
	fmt.Fprintf(stdout, "time per step:\n")
	for _, row := range []struct {
		name string
		v    float64
	}{{"step_s", tm.Step}, {"compute_s", tm.Compute}, {"tp_comm_s", tm.TPComm}, {"ep_comm_s", tm.EPComm}, {"ep_hidden_s", tm.EPHidden}, {"cp_comm_s", tm.CPComm}, {"pp_comm_s", tm.PPComm}, {"dp_comm_s", tm.DPComm},
		{"dp_hidden_s", tm.DPHidden}, {"nic_shared_s", tm.NICShared}, {"bubble_s", tm.Bubble}, {"exposed_comm_s", tm.Exposed}, {"optimizer_s", tm.Optimizer}, {"straggler_s", tm.Straggler}} {
		if row.name == "ep_hidden_s" && !plan.EPOverlap {
			continue
		}
		fmt.Fprintf(stdout, "  %-16s %.4f\n", row.name, row.v)
	}
	bubbleForm := "(p−1)/(v·m)"
	switch plan.Schedule {
	case parallel.DualPipe:
		bubbleForm = "(p/2−1)(F&B+B−3W) of the ideal"
	case parallel.ZBH1:
		bubbleForm = "1F1B's less 2(p−1)W, of the ideal"
	case parallel.ZBV:
		bubbleForm = "(p−1)(F+B−2W)/2 of the ideal, B the input gradient"
	case parallel.DualPipeV:
		bubbleForm = "(p−1)(F&B+B−3W)/2 of the ideal"
	}
	fmt.Fprintf(stdout, "  %-16s %.4f   %s\n", "bubble_fraction", r.BubbleFraction, bubbleForm)
	if !r.Memory.Fits {
		fmt.Fprintf(stdout, "  %-16s none: the plan does not fit\n", "tflops_per_gpu")
		return 0
	}
	peak := fmt.Sprintf("of the %s's dense %s peak, %.1f TFLOP/s", g.Name, strings.ToUpper(string(r.MFUPeakDtype)), r.MFUPeak/1e12)
	fmt.Fprintf(stdout, "  %-16s %.1f   hardware FLOPs a second a GPU (recomputation counted)\n", "tflops_per_gpu", r.TFLOPSPerGPU)
	fmt.Fprintf(stdout, "  %-16s %.1f   model FLOPs a second a GPU (recomputation not counted)\n", "model_tflops", r.ModelTFLOPSPerGPU)
	fmt.Fprintf(stdout, "  %-16s %.3f   model FLOPs %s\n", "mfu", r.MFU, peak)
	fmt.Fprintf(stdout, "  %-16s %.3f   hardware FLOPs %s\n", "hfu", r.HFU, peak)
	return 0
}

// searchUnread are the flags a search does not read, with why: given with
// --search, each is refused by name.
var searchUnread = []struct{ flag, why string }{
	{"sp", "every plan searched has sequence parallelism when TP > 1"},
	{"overlap", "every plan searched hides the DP all-reduce behind the backward pass"},
	{"capacity-factor", "the search routes evenly"},
	{"node-limit", "DeepSeek-V3's routing is not searched; give the plan without --search"},
	{"dispatch-dtype", "DeepSeek-V3's FP8 dispatch is not searched; give the plan without --search"},
	{"ep-overlap", "DualPipe's pairing is not searched; give the plan without --search"},
	{"comm-sms", "DualPipe's pairing is not searched; give the plan without --search"},
	{"block-scaled", "DeepSeek-V3's FP8 recipe is not searched; give the plan without --search"},
	{"fp8-cache", "DeepSeek-V3's FP8 activations are not searched; give the plan without --search"},
	{"recompute-modules", "the search tries none, selective (the attention core) and full recomputation; fix one with --recompute"},
	{"tp-overlap", "every plan searched runs TP's collectives between the products; give the plan without --search"},
	{"zero-fetch", "every plan searched prefetches ZeRO-3's gathers; give the plan without --search"},
	{"te-linear", "every plan searched runs FP8 through Megatron-Core's Transformer Engine modules; give the plan without --search"},
	{"first-stage-layers", "every plan searched splits the layers evenly (or the first and last stages a layer short, Llama 3's); give the plan without --search"},
	{"last-stage-layers", "every plan searched splits the layers evenly (or the first and last stages a layer short, Llama 3's); give the plan without --search"},
	{"kernels", "lists one plan's kernels"},
	{"at", "follows one plan's GPU"},
	{"rank", "follows one plan's GPU"},
}

// searchConstraints are the plan flags given with --search: the parts of
// every plan searched that the reader has chosen.
func searchConstraints(given func(string) bool, atoi func(string) int, value func(string) string) parallel.SearchConstraints {
	var f parallel.SearchConstraints
	for _, x := range []struct {
		flag string
		dst  *int
	}{{"tp", &f.TP}, {"cp", &f.CP}, {"pp", &f.PP}, {"dp", &f.DP}, {"ep", &f.EP}, {"interleave", &f.Interleave}, {"micro-batch", &f.MicroBatch}} {
		if given(x.flag) {
			*x.dst = atoi(x.flag)
		}
	}
	if given("zero") {
		f.ZeRO, f.ZeROSet = atoi("zero"), true
	}
	if given("recompute") {
		f.Recompute = parallel.Recompute(value("recompute"))
	}
	if given("schedule") {
		f.Schedule = parallel.Schedule(value("schedule"))
	}
	if given("cp-algo") {
		f.CPAlgo = parallel.CPAlgo(value("cp-algo"))
	}
	return f
}

// writeSearchTable is --search's ranking, a plan a line; a mixture of
// experts' plans differ by EP too.
func writeSearchTable(w io.Writer, plans []parallel.Metrics, moe bool) {
	ep := func(p parallel.Metrics) string {
		if !moe {
			return ""
		}
		return fmt.Sprintf(" %4d", p.EP)
	}
	head := ""
	if moe {
		head = fmt.Sprintf(" %4s", "ep")
	}
	fmt.Fprintf(w, "%4s %4s %4s %-9s %4s %5s%s %3s %-11s %4s %-9s %3s %9s %9s %6s %6s\n", "rank", "tp", "cp", "cp_algo", "pp", "dp", head, "v", "schedule", "zero", "recompute", "mb", "step_s", "mem_GB", "mfu", "bubble")
	for i, p := range plans {
		algo := "-"
		if p.CP > 1 {
			algo = p.CPAlgo
		}
		fmt.Fprintf(w, "%4d %4d %4d %-9s %4d %5d%s %3d %-11s %4d %-9s %3d %9.3f %9.1f %6.3f %6.3f\n", i+1, p.TP, p.CP, algo, p.PP, p.DP, ep(p), p.Interleave, p.Schedule, p.ZeRO, p.Recompute, p.MicroBatch, p.Time.Step, p.Memory.Total/1e9, p.MFU, p.BubbleFraction)
	}
}

// planOutput is gpuscope plan --json: the plan's metrics, and the
// settings they leave out.
type planOutput struct {
	parallel.Metrics
	Overlap bool `json:"overlap"` // DP communication behind the backward pass
	// TPOverlap: TP's collectives behind the products (--tp-overlap).
	TPOverlap bool `json:"tp_overlap"`
	Seq       int  `json:"seq"` // the sequence length, tokens
	// Dropout: on, its masks are counted in the activations and its
	// passes in the time (the model's, or --dropout).
	Dropout bool `json:"dropout"`
	// Defaulted are the flags of the settings that change the numbers
	// and were not given, in the order the text output lists them.
	Defaulted []string `json:"defaulted"`
	// Kernels are one layer's kernels on one GPU for one micro-batch
	// (--kernels).
	Kernels []parallel.Kernel `json:"kernels,omitempty"`
	// Activity is what GPU --rank does --at seconds into the step, and
	// KernelCounts its kernel's work (the page's zoom).
	Activity     *parallel.Activity `json:"activity,omitempty"`
	KernelCounts *parallel.Counts   `json:"kernel_counts,omitempty"`
	// Measured are the figures of a measured run set beside the engine's
	// (--measured-step, --measured-mfu, --measured-memory).
	Measured []parallel.Gap `json:"measured,omitempty"`
	// TimeToTrain is the plan's step as a training run of --tokens
	// tokens: steps, days, GPU-hours, energy, cost and what they assume.
	TimeToTrain *budget.Run `json:"time_to_train,omitempty"`
}

// writeKernels is --kernels' table: one layer's kernels on one GPU for
// one micro-batch, a product's shape, forward and backward.
func writeKernels(w io.Writer, ks []parallel.Kernel) {
	if len(ks) == 0 {
		return
	}
	fmt.Fprintf(w, "one layer's kernels on one GPU, one micro-batch (seconds):\n  %-13s %-11s %-22s %-10s %s\n", "name", "kind", "M × N × K", "forward", "backward")
	for _, k := range ks {
		shape := ""
		if k.Kind == parallel.KernelGEMM {
			shape = fmt.Sprintf("%g × %g × %g", k.M, k.N, k.K)
		}
		fmt.Fprintf(w, "  %-13s %-11s %-22s %-10.6f %.6f\n", k.Name, k.Kind, shape, k.ForwardS, k.BackwardS)
	}
}

// planSetting is a setting that changes a plan's numbers, as gpuscope
// plan lists them under the plan: its value and where the value came
// from.
type planSetting struct {
	flag  string // "" for an assumption no flag changes
	name  string
	value string
	from  string // "given", "default…", or why it is assumed
}

type planSettingList []planSetting

// planSettings lists the settings behind a plan (for --search, the ones
// every plan searched shares), each marked given or default.
func planSettings(given func(string) bool, m model.Transformer, fromHF bool, p parallel.Plan, cl parallel.Cluster, gbDefault string, search bool, era softwareEra) planSettingList {
	onOff := map[bool]string{true: "on", false: "off"}
	var s planSettingList
	add := func(flag, name, value, def string) {
		from := def
		if flag != "" && given(flag) {
			from = "given"
		}
		s = append(s, planSetting{flag, name, value, from})
	}
	// What the era sets, when it was named: its settings' source.
	eraDef := func(def string) string {
		if given("software") {
			return "--software " + era.name
		}
		return def
	}
	add("software", "software era", era.name, "default")
	add("gpu", "GPU", cl.GPU.Name, "default")
	if search {
		s = append(s, planSetting{"", "sequence parallel", "on when TP > 1", "in every plan searched"},
			planSetting{"", "DP overlap", "on", "in every plan searched"},
			planSetting{"", "recomputation", "none, selective, full", "searched"},
			planSetting{"", "ZeRO stage", "0–3 without PP, 0–2 with", "searched"})
	} else {
		add("sp", "sequence parallel", onOff[p.SP], eraDef("default: on when TP > 1"))
		add("overlap", "DP overlap", onOff[p.Overlap], eraDef("default"))
	}
	add("flash", "FlashAttention", onOff[p.Flash], eraDef("default"))
	if p.FlashVersion != 0 {
		add("flash-version", "FlashAttention kernel", fmt.Sprintf("FlashAttention-%d", p.FlashVersion), "default")
	}
	if !search {
		add("recompute", "recomputation", string(p.Recompute), eraDef("default"))
		if p.Recompute == parallel.RecomputeSelective {
			s = append(s, planSetting{"", "recomputed modules", cmp.Or(p.RecomputeModules.String(), "core_attn"), "default: core_attn (--recompute-modules)"})
			if p.RecomputeModules != 0 {
				s[len(s)-1].from = "given"
			}
		}
		add("zero", "ZeRO stage", strconv.Itoa(p.ZeRO), "default")
		if p.TP > 1 || given("tp-overlap") {
			add("tp-overlap", "TP overlap", onOff[p.TPOverlap], "default")
		}
		add("micro-batch", "micro-batch", sequences(p.MicroBatch), "default")
		sched := string(p.Schedule)
		if p.Interleave > 1 {
			sched += fmt.Sprintf(", v = %d", p.Interleave)
		}
		add("schedule", "pipeline schedule", sched, "default: 1f1b, interleaved when --interleave > 1")
		if p.FirstStageLayers > 0 || p.LastStageLayers > 0 || given("first-stage-layers") || given("last-stage-layers") {
			s = append(s, planSetting{"first-stage-layers", "first stage's layers", firstLast(p.FirstStageLayers), "default"},
				planSetting{"last-stage-layers", "last stage's layers", firstLast(p.LastStageLayers), "default"})
			for i := len(s) - 2; i < len(s); i++ {
				if given(s[i].flag) {
					s[i].from = "given"
				}
			}
		}
	}
	add("global-batch", "global batch", sequences(p.GlobalBatch), "default: "+gbDefault)
	src := m.ID + "'s"
	if fromHF {
		src = "config.json's max_position_embeddings"
	}
	add("seq", "sequence length", fmt.Sprintf("%d tokens", m.Seq), "default: "+src)
	add("dtype", "matrix products in", string(p.Dtype), "default")
	if !search && (p.BlockScaled || given("block-scaled")) {
		add("block-scaled", "FP8 block scaling", onOff[p.BlockScaled], "default")
	}
	if !search && (p.FP8Cache || given("fp8-cache")) {
		add("fp8-cache", "FP8 activations", onOff[p.FP8Cache], "default")
	}
	add("bytes-per-param", "model-state bytes", p.States().String(), eraDef("default"))
	if p.OptimizerStates != "" && p.OptimizerStates != parallel.StatesFP32 || given("optimizer-states") {
		add("optimizer-states", "Adam's moments in", string(cmp.Or(p.OptimizerStates, parallel.StatesFP32)), "default")
	}
	if p.MasterWeights != "" && p.MasterWeights != parallel.MasterFP32 || given("master-weights") {
		add("master-weights", "master weights", string(cmp.Or(p.MasterWeights, parallel.MasterFP32)), "default")
	}
	if m.FFN == model.SwiGLU || given("fused-swiglu") {
		kept := map[bool]string{true: "fused: keeps gate and up", false: "unfused: keeps gate, up and their product"}
		add("fused-swiglu", "SwiGLU kernel", kept[p.FusedSwiGLU], "default")
	}
	if p.Eager || given("eager") {
		add("eager", "elementwise kernels", map[bool]string{true: "eager: an operation a kernel", false: "fused"}[p.Eager], "default")
	}
	if p.TELinear || given("te-linear") {
		add("te-linear", "FP8 modules", map[bool]string{true: "te.Linear: weights cast each micro-batch", false: "Megatron-Core's"}[p.TELinear], "default")
	}
	if p.Loss != "" && p.Loss != parallel.LossMegatron || given("cross-entropy") {
		add("cross-entropy", "cross-entropy", string(cmp.Or(p.Loss, parallel.LossMegatron)), "default: Megatron's, unfused")
	}
	if p.ZeRO == 3 && !search || given("zero-fetch") {
		add("zero-fetch", "ZeRO-3 gathers", string(cmp.Or(p.ZeROFetch, parallel.FetchPrefetch)), "default: prefetched")
	}
	if m.MoE() && !search {
		add("ep", "expert parallel", strconv.Itoa(max(p.EP, 1)), "default")
		add("capacity-factor", "capacity factor", strconv.FormatFloat(max(p.CapacityFactor, 1), 'g', -1, 64), "default: balanced")
		if p.NodeLimit > 0 || given("node-limit") {
			add("node-limit", "nodes a token", strconv.Itoa(p.NodeLimit), "default: unlimited")
		}
		if p.DispatchDtype != "" || given("dispatch-dtype") {
			add("dispatch-dtype", "dispatch in", cmp.Or(string(p.DispatchDtype), "bf16"), "default")
		}
		if p.EPOverlap || given("ep-overlap") {
			add("ep-overlap", "all-to-all overlap", onOff[p.EPOverlap], "default")
			add("comm-sms", "SMs for all-to-alls", strconv.Itoa(p.CommSMs), "default: 20 with --ep-overlap")
		}
	}
	if !search && (p.CP > 1 || given("cp") || given("cp-algo")) {
		add("cp", "context parallel", strconv.Itoa(max(p.CP, 1)), "default")
		add("cp-algo", "CP attention", string(p.CPAlgo), "default: allgather (Llama 3's)")
	}
	add("gpus-per-node", "GPUs a node", strconv.Itoa(cl.GPUsPerNode), "default for the "+cl.GPU.Name)
	add("intra", "inside a node", cl.Intra.Name, "default for the "+cl.GPU.Name)
	nics := "a NIC a GPU"
	if n := cl.NICsPerNode; n > 0 && n < cl.GPUsPerNode {
		nics = fmt.Sprintf("%d NICs a node of %d GPUs", n, cl.GPUsPerNode)
	}
	add("inter", "between nodes", cl.Inter.Name+", "+nics, "default for the "+cl.GPU.Name)
	if given("nics-per-node") {
		add("nics-per-node", "NICs a node", strconv.Itoa(max(cl.NICsPerNode, cl.GPUsPerNode)), "")
		s[len(s)-1].value = strconv.Itoa(cl.NICsPerNode)
	}
	add("dropout", "dropout", onOff[!m.NoDropout], "default: "+m.ID+"'s")
	add("gpu-variation", "GPU speed spread", strconv.FormatFloat(cl.GPUVariation, 'g', -1, 64)+" σ", "default: as measured in the field")
	return s
}

// fix marks the settings a search's constraints fix as given, with the
// value they fix, in place of "searched".
func (s planSettingList) fix(f parallel.SearchConstraints) {
	for i := range s {
		switch {
		case s[i].name == "recomputation" && f.Recompute != "":
			s[i].value, s[i].from = string(f.Recompute), "given: in every plan searched"
		case s[i].name == "ZeRO stage" && f.ZeROSet:
			s[i].value, s[i].from = strconv.Itoa(f.ZeRO), "given: in every plan searched"
		}
	}
}

// defaulted are the flags of the settings that were not given.
func (s planSettingList) defaulted() []string {
	out := []string{}
	for _, x := range s {
		if x.flag != "" && x.from != "given" {
			out = append(out, x.flag)
		}
	}
	return out
}

func (s planSettingList) write(w io.Writer) {
	nw, vw := 0, 0
	for _, x := range s {
		nw, vw = max(nw, utf8.RuneCountInString(x.name)), max(vw, utf8.RuneCountInString(x.value))
	}
	fmt.Fprintln(w, "settings behind these numbers (default: not on the command line; gpuscope plan --help lists the flags):")
	for _, x := range s {
		fmt.Fprintf(w, "  %s  %s  %s\n", pad(x.name, nw), pad(x.value, vw), x.from)
	}
}

// firstLast is a first or last stage's layer count as the settings say
// it: 0 leaves the stage to the even split.
func firstLast(n int) string {
	if n == 0 {
		return "as the others"
	}
	return strconv.Itoa(n)
}

func sequences(n int) string {
	if n == 1 {
		return "1 sequence"
	}
	return strconv.Itoa(n) + " sequences"
}

// pad fills s with spaces to n runes.
func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

func writeMemory(w io.Writer, m parallel.Memory) {
	for _, row := range []struct {
		name string
		v    float64
	}{{"weights", m.Weights}, {"gradients", m.Gradients}, {"optimizer", m.Optimizer}, {"activations", m.Activations}, {"buffers", m.Buffers}, {"total", m.Total}} {
		fmt.Fprintf(w, "  %-16s %8.2f GB\n", row.name, row.v/1e9)
	}
	if m.Fits {
		fmt.Fprintf(w, "  fits: %s usable of %s\n", units.Bytes(m.Usable), units.Bytes(m.Capacity))
	} else {
		fmt.Fprintf(w, "  does NOT fit: %s over the %s usable of %s\n", units.Bytes(m.Over), units.Bytes(m.Usable), units.Bytes(m.Capacity))
	}
}

// writeActivity is --at's lines: what the GPU does at the moment.
func writeActivity(w io.Writer, a *parallel.Activity, c *parallel.Counts) {
	if a == nil {
		return
	}
	what := "waits (the pipeline's bubble, the slowest GPU — straggler_s — or the step is over)"
	switch {
	case a.Kernel.Name != "":
		what = fmt.Sprintf("runs %s (%s) in the %s of micro-batch %d", a.Kernel.Name, a.Kernel.Kind, a.Kind, a.MicroBatch+1)
		if a.Layer >= 0 {
			what += fmt.Sprintf(", layer %d of %d", a.Layer+1, a.Layers)
		}
	case a.Kind != "":
		what = "runs its " + string(a.Kind)
	}
	fmt.Fprintf(w, "GPU %d (stage %d, TP rank %d, CP rank %d, DP rank %d) at %.6g s %s\n", a.GPU, a.Stage, a.TPRank, a.CPRank, a.DPRank, a.Time, what)
	if a.Kernel.Name != "" {
		fmt.Fprintf(w, "  kernel_s         %.6g–%.6g\n", a.KernelStart, a.KernelEnd)
	}
	if c != nil && !c.Comm {
		fmt.Fprintf(w, "  flops            %.4g\n  hbm_bytes        %.4g\n  smem_bytes       %.4g\n  bound            %s\n", c.FLOPs, c.HBMBytes, c.SmemBytes, c.Bound)
	}
	if a.Detail != "" {
		fmt.Fprintf(w, "  %s\n", a.Detail)
	}
}

// lossNames are --cross-entropy's values.
func lossNames() []string {
	s := make([]string, len(parallel.Losses))
	for i, l := range parallel.Losses {
		s[i] = string(l)
	}
	return s
}

// writeTrace writes r's step to path as Chrome Trace Event JSON
// (parallel.Result.ChromeTrace), the command line without --trace in its
// otherData, and returns how many events it holds.
func writeTrace(path string, r parallel.Result, args []string) (int, error) {
	cmd := []string{"gpuscope", "plan"}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--trace" || a == "-trace":
			i++
		case strings.HasPrefix(a, "--trace="):
		default:
			cmd = append(cmd, a)
		}
	}
	tr, err := r.ChromeTrace(strings.Join(cmd, " "))
	if err != nil {
		return 0, err
	}
	b, err := tr.JSON()
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return 0, err
	}
	return len(tr.TraceEvents), nil
}

// writeGaps is the text of --measured-step, --measured-mfu and
// --measured-memory: the run against the engine, and for each term what
// it would have to be to close the difference alone.
func writeGaps(w io.Writer, gs []parallel.Gap) {
	for _, g := range gs {
		unit := func(v float64) string { return units.Duration(v) }
		what := "step"
		switch g.From {
		case "mfu":
			fmt.Fprintf(w, "measured MFU %.3g: a step of %s at the engine's model FLOPs\n", g.Given, unit(g.Measured))
		case "memory":
			unit = func(v float64) string { return units.Bytes(v) }
			what = "memory on the fullest GPU"
		}
		more := "slower"
		if g.From == "memory" {
			more = "more"
		}
		if g.Diff < 0 {
			more = map[bool]string{true: "less", false: "faster"}[g.From == "memory"]
		}
		fmt.Fprintf(w, "measured %s %s against the engine's %s: %s (%+.1f%%) %s\n", what, unit(g.Measured), unit(g.Engine), unit(math.Abs(g.Diff)), 100*g.Rel, more)
		fmt.Fprintf(w, "  to close it with one term alone, the others as the engine has them:\n")
		for _, t := range g.Terms {
			switch {
			case t.Needed < 0:
				fmt.Fprintf(w, "    %-14s %10s → cannot (the difference is more than all of it)\n", t.Name, unit(t.Engine))
			case t.Engine > 0:
				fmt.Fprintf(w, "    %-14s %10s → %-10s (×%.3g)\n", t.Name, unit(t.Engine), unit(t.Needed), t.Factor)
			default:
				fmt.Fprintf(w, "    %-14s %10s → %s\n", t.Name, unit(t.Engine), unit(t.Needed))
			}
		}
	}
}
