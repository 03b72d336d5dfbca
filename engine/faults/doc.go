// Package faults simulates a long training job on a large cluster that
// fails: GPUs fail at random (exponential times, a per-GPU mean time
// between failures, so a cluster's mean time between failures is that
// divided by its size), the job writes a checkpoint every so often, and a
// failure loses the work since the last checkpoint and costs a restart.
// It reports failures, lost work and goodput, and the optimal checkpoint
// interval of Young (1974) and Daly (2006).
//
// Units: seconds of wall time (float64); the simulation is deterministic
// for a seed.
package faults
