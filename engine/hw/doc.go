// Package hw is the hardware catalog: the links (and, later, the GPUs) that
// the engine simulates, each figure with its source.
//
// Units: bandwidth in bytes per second per direction (GB = 10^9 bytes),
// latency as sim.Time (integer picoseconds). A link's Bandwidth is what one
// GPU can push one way; NVIDIA's "900 GB/s" for NVLink 4 counts both
// directions, so the catalog stores 450 GB/s.
package hw
