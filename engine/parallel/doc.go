// Package parallel is the strategy layer: what a parallel training plan
// costs each GPU in memory and time. So far it holds the published memory
// formulas — ZeRO's model states per device (Rajbhandari et al., arXiv
// 1910.02054) and Korthikanti et al.'s activation bytes per layer (arXiv
// 2205.05198) — and the pipeline bubble (Narayanan et al., arXiv
// 2104.04473).
//
// Units: bytes (GB = 10^9), parameter counts as float64.
package parallel
