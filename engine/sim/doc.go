// Package sim is the discrete-event core of the gpuscope engine.
//
// Conventions:
//
//   - Simulated time is a Time: an integer count of picoseconds. It never comes
//     from the wall clock. One second is 10^12 Time units, so an int64 reaches
//     about 106 days of simulated time.
//
//   - Events are ordered by (time, sequence number): two events scheduled for
//     the same instant run in the order they were scheduled (first in, first
//     out). Nothing depends on map iteration order or on goroutines.
//
//   - Randomness comes from an RNG value seeded by the caller, never from a
//     global source, so the same configuration and seed give the same run,
//     natively and in WebAssembly.
//
//   - A Trace records a run's events with their times and keeps periodic
//     copies of the state, so the state at any instant can be shown again
//     without re-running (scrubbing back and forth).
//
// The package knows nothing of GPUs or screens: a model (a collective, a
// pipeline schedule) owns a Queue, pops events in order and reacts to them,
// in the manner of a state machine ticked by its caller.
package sim
