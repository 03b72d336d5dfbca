// Package hw is the hardware catalog: the GPUs and links that the engine
// simulates, each figure with its source.
//
// Units: bandwidth in bytes per second per direction (GB = 10^9 bytes),
// latency as sim.Time (integer picoseconds), compute in FLOP per second,
// power in watts (GPU.Power: the GPU's TDP and its share of its server's
// maximum).
//
// One-way, never two-way: a link's Bandwidth is what one GPU can push one
// way while it receives as much the other way. NVIDIA's "900 GB/s" for
// NVLink 4 and "1.8 TB/s" for NVLink 5 count both directions, so the
// catalog stores 450 and 900 GB/s; InfiniBand's 400 Gb/s (NDR) is already
// one way, 50 GB/s.
//
// Dense, never sparse: a GPU's Peak is the tensor cores' rate on dense
// matrices. NVIDIA's Blackwell headlines are mostly with 2:4 structured
// sparsity, twice the dense rate; the catalog halves them.
package hw
