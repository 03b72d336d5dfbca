// Package budget turns a plan's step into a whole training run: how many
// steps a number of tokens takes, the wall-clock days once failures,
// checkpoints and restarts have taken their share (engine/faults'
// model), the GPU-hours, the energy and, given a price, the cost.
//
// The formulas, each with its source where it has one (Estimate's
// comments give them in full):
//
//	steps          = ⌈tokens ÷ (global batch × sequence length)⌉
//	ideal wall     = steps × step time
//	goodput        = faults.ExpectedGoodput at Daly's checkpoint interval
//	                 for the cluster's MTBF (per-GPU MTBF ÷ GPUs)
//	wall           = ideal wall ÷ goodput
//	GPU-hours      = GPUs × wall ÷ 3,600 (ideal: GPUs × ideal wall ÷ 3,600)
//	GPU power      = TDP × (w + (1 − w) × busy), busy the share of the step
//	                 the GPUs compute, w = WaitPowerShare
//	facility power = GPUs × (GPU power + the node's share) × PUE
//	energy         = facility power × wall
//	cost           = price × GPU-hours
//
// Which of the inputs are assumptions — the failure rate, checkpoint and
// restart costs, the power a waiting GPU draws, the node's share, the PUE
// — a Run says (Run.Assumed), so that a reader sees them beside the
// numbers.
//
// Units: seconds, watts, GPU-hours, MWh (10^6 Wh), US dollars. Pure
// functions of plain values; no I/O.
package budget
