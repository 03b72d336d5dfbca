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
	// Efficiency is the share of Bandwidth a bandwidth-bound NCCL ring
	// sustains on this link (protocol headers and flags, synchronisation
	// between chunks). The packet-level lesson engine moves bytes at the
	// full Bandwidth; the strategy layer's step-time model multiplies by
	// Efficiency.
	Efficiency float64
	Source     string // where the figures come from
}

var links = []Link{
	{
		ID:        "nvlink3",
		Name:      "NVLink 3",
		Bandwidth: 300e9,
		Latency:   1 * sim.Microsecond,
		// No separate A100 measurement in our references: the H100
		// figure's protocol overhead (≈ 18%) is assumed.
		Efficiency: 0.82,
		// A100 SXM4: 12 NVLink 3 links, 600 GB/s two-way (both
		// directions added) per GPU (NVIDIA A100 datasheet), so 300 GB/s
		// each way.
		Source: "NVIDIA A100 datasheet: 600 GB/s two-way per GPU = 300 GB/s each way; ~1 µs per message",
	},
	{
		ID:        "nvlink4",
		Name:      "NVLink 4",
		Bandwidth: 450e9,
		Latency:   1 * sim.Microsecond,
		// nccl-tests on 8× H100: ring all-reduce busbw ≈ 370 GB/s of the
		// 450 GB/s each way (published-figures.md): 370/450 ≈ 0.82.
		Efficiency: 0.82,
		// H100 SXM5: 18 NVLink 4 links, 900 GB/s two-way per GPU (NVIDIA
		// H100 datasheet; the seeds' "900 GB/s"), so 450 GB/s each way through the
		// NVSwitch. Latency ~1 µs as the seed article teaches; NCCL's
		// per-step base latency over NVLink is of that order.
		Source: "NVIDIA H100 datasheet: 900 GB/s two-way per GPU = 450 GB/s each way; ~1 µs per message",
	},
	{
		ID:        "nvlink3-a800",
		Name:      "NVLink A800",
		Bandwidth: 200e9,
		Latency:   1 * sim.Microsecond,
		// No measurement in our references: NVLink 3's assumed
		// protocol overhead, as the A100's.
		Efficiency: 0.82,
		// A800 SXM4, the A100 sold under the October 2022 export rules:
		// 8 NVLink 3 links, not 12, 400 GB/s two-way per GPU (NVIDIA A800
		// datasheet), so 200 GB/s each way through the NVSwitch.
		Source: "NVIDIA A800 datasheet (SXM4): 400 GB/s two-way NVLink per GPU = 200 GB/s each way; ~1 µs per message",
	},
	{
		ID:        "nvlink4-h800",
		Name:      "NVLink H800",
		Bandwidth: 200e9,
		Latency:   1 * sim.Microsecond,
		// DeepSeek-V3's report (§3.2.2): "NVLink offers a bandwidth of
		// 160 GB/s, roughly 3.2 times that of IB (50 GB/s)": 160/200.
		Efficiency: 0.8,
		// H800 SXM5, the H100 sold under export rules: 8 NVLink 4 links,
		// 400 GB/s two-way per GPU (NVIDIA H800 datasheet), so 200 GB/s
		// each way.
		Source: "NVIDIA H800 SXM5 datasheet: 400 GB/s two-way NVLink per GPU = 200 GB/s each way; DeepSeek-V3 technical report (arXiv 2412.19437) §3.2.2: 160 GB/s achieved",
	},
	{
		ID:        "nvlink5",
		Name:      "NVLink 5",
		Bandwidth: 900e9,
		Latency:   1 * sim.Microsecond,
		// Assumed like NVLink 4's: no published nccl-tests figure in our
		// references.
		Efficiency: 0.82,
		// Blackwell (B200, GB200): 18 NVLink 5 links of 50 GB/s each
		// way, 1.8 TB/s two-way per GPU, so 900 GB/s each way — through
		// an HGX B200's NVSwitch chips or a GB200 NVL72's NVLink Switch
		// trays alike.
		Source: "NVIDIA Blackwell technical brief: 1.8 TB/s two-way NVLink per GPU = 900 GB/s each way; ~1 µs per message",
	},
	{
		ID:        "pcie5",
		Name:      "PCIe 5.0 x16",
		Bandwidth: 64e9,
		Latency:   2 * sim.Microsecond,
		// PCIe's transaction-layer headers and flow control leave about
		// 80% of the raw rate to data.
		Efficiency: 0.8,
		// 32 GT/s × 16 lanes × 128b/130b ≈ 63 GB/s each way; GPUs
		// without NVLink talk through the PCIe switch or the host.
		Source: "PCI-SIG PCIe 5.0: 32 GT/s per lane, x16 ≈ 64 GB/s each way",
	},
	{
		ID:        "ib-hdr",
		Name:      "IB HDR 200G",
		Bandwidth: 25e9,
		Latency:   5 * sim.Microsecond,
		// Large messages over InfiniBand reach about 90% of line rate in
		// nccl-tests across nodes (the NIC's encoding and headers).
		Efficiency: 0.9,
		// InfiniBand HDR: 200 Gb/s per port = 25 GB/s each way; DGX A100
		// has one ConnectX-6 HDR NIC per GPU.
		Source: "NVIDIA DGX A100: 8 ConnectX-6 HDR 200 Gb/s NICs, one per GPU = 25 GB/s each way; ~5 µs per message",
	},
	{
		ID:         "ib-ndr",
		Name:       "IB NDR 400G",
		Bandwidth:  50e9,
		Latency:    5 * sim.Microsecond,
		Efficiency: 0.9,
		// InfiniBand NDR: 400 Gb/s per port = 50 GB/s each way, one NIC
		// per GPU (NVIDIA ConnectX-7 / Quantum-2). End-to-end message
		// latency ~5 µs as the seed article teaches (switch hops are
		// sub-microsecond; software and the NIC add the rest).
		Source: "NVIDIA ConnectX-7 NDR: 400 Gb/s = 50 GB/s per port each way; ~5 µs per message",
	},
	{
		ID:         "ib-xdr",
		Name:       "IB XDR 800G",
		Bandwidth:  100e9,
		Latency:    5 * sim.Microsecond,
		Efficiency: 0.9,
		// InfiniBand XDR: 800 Gb/s per port = 100 GB/s each way
		// (ConnectX-8 / Quantum-X800).
		Source: "NVIDIA Quantum-X800 / ConnectX-8: 800 Gb/s = 100 GB/s per port each way; ~5 µs per message",
	},
	{
		ID:        "roce-400",
		Name:      "RoCE 400G",
		Bandwidth: 50e9,
		Latency:   7 * sim.Microsecond,
		// Ethernet with RDMA: the same 400 Gb/s as NDR; a little more
		// latency and header overhead through Ethernet switches.
		Efficiency: 0.85,
		Source:     "400 GbE RoCEv2 NIC (e.g. ConnectX-7 in Ethernet mode): 50 GB/s each way; ~7 µs per message",
	},
	{
		ID:        "ib-edr",
		Name:      "IB EDR 100G",
		Bandwidth: 12.5e9,
		Latency:   5 * sim.Microsecond,
		// As HDR's: large messages reach about 90% of line rate.
		Efficiency: 0.9,
		Source:     "InfiniBand EDR: 100 Gb/s per port = 12.5 GB/s each way (ConnectX-5); ~5 µs per message",
	},
	{
		ID:        "opa-100",
		Name:      "Omni-Path 100G",
		Bandwidth: 12.5e9,
		Latency:   5 * sim.Microsecond,
		// Assumed as InfiniBand EDR's: no published NCCL figure in our
		// references.
		Efficiency: 0.9,
		// BLOOM-176B's Jean Zay nodes: 8 A100s with 4 × 100 Gb/s Omni-Path
		// NICs a node (bigscience tr11-176B-ml README, "Hardware").
		Source: "Intel Omni-Path 100 Series: 100 Gb/s per port = 12.5 GB/s each way; BLOOM-176B's nodes had 4 a node for 8 GPUs",
	},
	{
		ID:        "roce-200",
		Name:      "RoCE 200G",
		Bandwidth: 25e9,
		Latency:   7 * sim.Microsecond,
		// As RoCE 400's: Ethernet's headers and switches.
		Efficiency: 0.85,
		// MegaScale (arXiv 2402.15627 §3.6): eight 200G NICs a server,
		// each to its own ToR switch (multi-rail).
		Source: "200 GbE RoCEv2 NIC: 25 GB/s each way; MegaScale's servers had eight, one a GPU (arXiv 2402.15627 §3.6); ~7 µs per message",
	},
	{
		ID:        "efa-100",
		Name:      "EFA 100G",
		Bandwidth: 12.5e9,
		Latency:   15 * sim.Microsecond,
		// AWS's Elastic Fabric Adapter over its SRD transport: assumed at
		// RoCE's share of line rate, and 15 µs a message, three times
		// InfiniBand's — an assumption, not a measurement in our
		// references (SRD runs through the host's Nitro card).
		Efficiency: 0.85,
		// p4d.24xlarge: 8 A100 40GB with 4 × 100 Gb/s EFA a node (AWS;
		// BloombergGPT, arXiv 2303.17564 §3.3: "400 Gbps" a node).
		Source: "AWS EFA on p4d.24xlarge: 4 × 100 Gb/s a node of 8 A100s = 12.5 GB/s a NIC each way",
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
