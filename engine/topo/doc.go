// Package topo models the fabric that joins GPUs — NVSwitch inside a node, a
// rail-optimised InfiniBand fat tree between nodes, or a PCIe host — and runs
// sets of flows on it with link contention (flow-level, max-min fair).
//
// Units: bytes; bandwidth in bytes per second per direction (GB = 10^9
// bytes); link latency as sim.Time (integer picoseconds); results in seconds
// (float64).
//
// # Links
//
// Every cable is two links, one per direction, each with its own capacity
// (the hw.Link's Bandwidth) and latency (the hw.Link's Latency). A LinkID
// names one direction. "Up" means towards the switch (GPU → NVSwitch, GPU's
// NIC → leaf, leaf → spine), "down" the way back.
//
// # Topologies
//
//   - SingleNode: GPUs on one NVSwitch. Each GPU has an up and a down NVLink
//     port to the switch; the switch itself never limits.
//   - FatTree (DGX SuperPOD style): nodes of GPUs on an NVSwitch as above.
//     Every GPU also has its own NIC. GPU k of each node is on rail k: its
//     NIC goes to a leaf switch of rail k. A rail of more than NodesPerLeaf
//     (32) nodes has several leaves, nodes 0–31 on the first, 32–63 on the
//     second and so on. When a rail has more than one leaf, every leaf has
//     Uplinks (8) uplinks, one to each of 8 spine planes; each uplink
//     carries (leaf downlink bandwidth) / oversubscription / 8 each way,
//     where the leaf's downlink bandwidth is its number of nodes times the
//     NIC bandwidth. Oversubscription 1 is non-blocking, 2 means 2:1. With a
//     single leaf per rail there are no spines and oversubscription has no
//     effect. Switches have no limit of their own: only links do.
//   - NVL72: GB200 NVL72 racks, a fat tree whose nodes are racks of 72 GPUs:
//     the rack's NVLink Switch trays are one non-blocking switch (NVLink 5,
//     18 links a GPU), the racks joined by one NIC a GPU as above.
//   - PCIeNode: GPUs without NVLink, each with an up and a down PCIe link to
//     the host, and one shared host link that every GPU-to-GPU transfer
//     crosses (a bounce through the root complex), so all traffic shares it.
//
// # Routing
//
// Path(src, dst, flow) is fixed by the topology; nothing adapts to load.
//
//   - Same node: src's NVLink up, dst's NVLink down. Never a NIC.
//   - Different nodes, same rail: src's NIC up, then, if the two nodes sit
//     on different leaves, leaf → spine → leaf through the spine plane that
//     ECMP picks, then dst's NIC down.
//   - Different nodes, different rails (PXN): first over NVLink to the GPU of
//     dst's rail in src's node, then that GPU's NIC on dst's rail as above.
//     Traffic therefore never changes rail inside the network, and spines
//     carry only flows between leaves of one rail.
//   - ECMP: the spine plane is SplitMix64(flow) mod Uplinks. The flow id
//     stands in for a packet's 5-tuple (a queue pair): give distinct flows
//     distinct ids, and the same id always takes the same spine. Hash
//     collisions, two big flows on one uplink, are real and show up.
//
// # Latency
//
// The hw catalog's latency is a per-message figure for a kind of link (about
// 1 µs through NVLink, 5 µs across InfiniBand), not a per-hop one. So a flow
// pays each medium it crosses once: NVLink's latency if its path touches the
// NVSwitch, the network's if it touches a NIC, PCIe's if it touches PCIe.
// A same-rail flow between nodes pays 5 µs, a PXN flow 1 + 5 µs. Latency
// does not hold back bandwidth: bytes flow from time 0 and a flow completes
// at (its last byte leaves) + (its path latency), the alpha-beta model.
//
// # Contention
//
// Simulate starts all flows at time 0 and shares every link among the flows
// crossing it by max-min fairness (progressive filling): the link with the
// smallest fair share fixes the rate of all its flows, their rates are taken
// off the other links they cross, and so on. When flows finish the rates of
// the rest are computed again (event-driven), so a flow speeds up when its
// bottleneck clears. Flows on the same path always share the same rate and
// are handled as one group.
//
// Steps runs steps one after the other with a barrier between them, the way
// a collective's rounds run, and reuses the result of a step it has already
// simulated (same paths, same sizes).
//
// # Determinism
//
// Results depend only on the inputs: no map is iterated, ties are broken by
// index, and products are forced with explicit float64 conversions so that
// amd64 and WebAssembly give the same bits. Bad input returns an *Error that
// names the field and the allowed range; nothing panics.
package topo
