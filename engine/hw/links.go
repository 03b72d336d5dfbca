package hw

import (
	"sort"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Link is one GPU's connection to the fabric: a port with a bandwidth per
// direction and a one-way latency (alpha in the alpha-beta model).
type Link struct {
	ID        string   // stable id used in URLs and CLI flags
	Name      string   // short Latin name for labels
	Bandwidth float64  // bytes per second, each direction
	Latency   sim.Time // one-way latency of a message (alpha)
	Source    string   // where the figures come from
}

var links = []Link{
	{
		ID:        "nvlink3",
		Name:      "NVLink 3",
		Bandwidth: 300e9,
		Latency:   1 * sim.Microsecond,
		// A100 SXM4: 12 NVLink 3 links, 600 GB/s bidirectional per GPU
		// (NVIDIA A100 datasheet), so 300 GB/s each way.
		Source: "NVIDIA A100 datasheet: 600 GB/s bidirectional per GPU; ~1 µs per message",
	},
	{
		ID:        "nvlink4",
		Name:      "NVLink 4",
		Bandwidth: 450e9,
		Latency:   1 * sim.Microsecond,
		// H100 SXM5: 18 NVLink 4 links, 900 GB/s bidirectional per GPU
		// (NVIDIA H100 datasheet), so 450 GB/s each way through the
		// NVSwitch. Latency ~1 µs as the seed article teaches; NCCL's
		// per-step base latency over NVLink is of that order.
		Source: "NVIDIA H100 datasheet: 900 GB/s bidirectional per GPU; ~1 µs per message",
	},
	{
		ID:        "ib-ndr",
		Name:      "IB NDR 400G",
		Bandwidth: 50e9,
		Latency:   5 * sim.Microsecond,
		// InfiniBand NDR: 400 Gb/s per port = 50 GB/s each way, one NIC
		// per GPU (NVIDIA ConnectX-7 / Quantum-2). End-to-end message
		// latency ~5 µs as the seed article teaches (switch hops are
		// sub-microsecond; software and the NIC add the rest).
		Source: "NVIDIA ConnectX-7 NDR: 400 Gb/s = 50 GB/s per port each way; ~5 µs per message",
	},
}

// LinkByID returns the catalog entry with the given id.
func LinkByID(id string) (Link, bool) {
	for _, l := range links {
		if l.ID == id {
			return l, true
		}
	}
	return Link{}, false
}

// LinkIDs lists the catalog's link ids, sorted.
func LinkIDs() []string {
	ids := make([]string, len(links))
	for i, l := range links {
		ids[i] = l.ID
	}
	sort.Strings(ids)
	return ids
}
