// Package parallel is the strategy layer: what a parallel training plan
// (TP × PP × DP, interleaving, sequence parallelism, ZeRO 0–3,
// recomputation, FlashAttention, micro- and global batch) costs each GPU
// in memory and time on a cluster.
//
// Memory: ZeRO's model states per device (Rajbhandari et al., arXiv
// 1910.02054) with 16 or 18 bytes a parameter, and Korthikanti et al.'s
// activation bytes per layer (arXiv 2205.05198), held for as many
// micro-batches as the pipeline schedule keeps in flight. Time: Evaluate
// builds a step from the silicon layer's GEMM and attention models and
// α-β collectives on the cluster's links; BuildTimeline runs the GPipe,
// 1F1B and interleaved schedules block by block (Narayanan et al., arXiv
// 2104.04473); Search ranks every valid plan and Decide walks the seeds'
// decision tree. Mixtures of experts add expert parallelism's
// all-to-alls and, as DeepSeek-V3 trained (arXiv 2412.19437; moe.go,
// dualpipe.go), node-limited routing, FP8 dispatch, DualPipe's pairing
// and bidirectional schedule (costed in closed form) and block-scaled FP8
// products, each a Plan field off by default. The zero-bubble schedules
// (zerobubble.go: ZB-H1, ZB-V, DualPipeV; Qi et al., arXiv 2401.10241
// and 2405.15362) hold the weight gradients back to fill the bubble,
// costed in closed form too and searched only when asked. Each
// assumption is a named constant with its source.
//
// Units: bytes (GB = 10^9), parameter counts as float64.
package parallel
