// Package bench holds what `make bench` tracks beyond each package's own
// benchmarks: baseline.json, the recorded figures that cmd/benchcheck
// compares a run against, and throughput benchmarks that report rates
// (events, transfers and plans per second) across the engine packages.
//
// The package has no code of its own; its benchmarks are in
// throughput_test.go.
package bench
