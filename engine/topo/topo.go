package topo

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// Limits on a topology, so that a run stays within a browser tab's memory.
const (
	MaxGPUs         = 1 << 17 // 131,072 GPUs in all
	MaxGPUsPerNode  = 1024    // an NVLink domain (NVL72 has 72)
	MaxUplinks      = 64
	MaxNodesPerLeaf = 1024
	MaxOversub      = 64
)

// Defaults of FatTree.
const (
	NodesPerLeaf = 32 // nodes on one leaf switch of a rail
	Uplinks      = 8  // uplinks per leaf, one to each spine plane
)

// LinkID names one direction of one link of a Topology: 0 to NumLinks()-1.
type LinkID int32

// Kind is what a link is, for labels and colours.
type Kind string

// Kinds of links.
const (
	KindNVLink    Kind = "nvlink"     // GPU ↔ NVSwitch
	KindNIC       Kind = "nic"        // GPU's NIC ↔ its rail's leaf switch
	KindLeafSpine Kind = "leaf-spine" // leaf ↔ spine plane
	KindPCIe      Kind = "pcie"       // GPU ↔ PCIe host
	KindHost      Kind = "pcie-host"  // the host's shared path between GPUs
)

// medium groups kinds that share one per-message latency (see doc.go).
type medium uint8

const (
	mediumNVLink medium = iota + 1
	mediumNet
	mediumPCIe
)

func (k Kind) medium() medium {
	switch k {
	case KindNVLink:
		return mediumNVLink
	case KindNIC, KindLeafSpine:
		return mediumNet
	}
	return mediumPCIe
}

// LinkInfo describes one direction of a link. Fields that do not apply to a
// kind are -1 (Spine of an NVLink, GPU of a leaf-spine link).
type LinkInfo struct {
	ID        LinkID
	Kind      Kind
	Name      string // short Latin label, e.g. "n3.g5>nvs3"
	Up        bool   // towards the switch (GPU → switch, leaf → spine)
	Node      int    // node of the GPU or NVSwitch
	GPU       int    // global GPU index
	Rail      int    // rail of a NIC or leaf
	Leaf      int    // global leaf index (rail·LeavesPerRail + group)
	Spine     int    // spine plane
	Bandwidth float64
	Latency   sim.Time
}

type shape uint8

const (
	shapeSingle shape = iota + 1
	shapeFatTree
	shapePCIe
)

// link is the compact form kept per direction; names are made on demand.
type link struct {
	kind  Kind
	up    bool
	gpu   int32 // -1 for leaf-spine
	leaf  int32 // -1 unless nic or leaf-spine
	spine int32 // -1 unless leaf-spine
	bw    float64
	lat   sim.Time
}

// Topology is a fabric of GPUs, switches and directed links. It is immutable
// once built and safe to share.
type Topology struct {
	shape            shape
	gpus, gpn, nodes int
	nodesPerLeaf     int
	leavesPerRail    int
	uplinks          int // spine planes; 0 when there is one leaf per rail
	oversub          float64
	perGPU           int    // links per GPU, laid out first
	host             LinkID // PCIe host link
	spineBase        LinkID // first leaf-spine link
	links            []link
	bw               []float64 // bandwidth by LinkID, for the solver
}

// Error names the input that is out of range.
type Error struct {
	Field, Value, Allowed string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s; allowed %s", e.Field, e.Value, e.Allowed)
}

func intErr(field string, v int, lo, hi int) *Error {
	return &Error{field, strconv.Itoa(v), fmt.Sprintf("%d–%d", lo, hi)}
}

func checkLink(field string, l hw.Link) error {
	if !(l.Bandwidth > 0) || math.IsInf(l.Bandwidth, 0) {
		return &Error{field + ".bandwidth", strconv.FormatFloat(l.Bandwidth, 'g', -1, 64), "a finite number of bytes/s above 0"}
	}
	if l.Latency < 0 || l.Latency > sim.Second {
		return &Error{field + ".latency", l.Latency.String(), "0–1 s"}
	}
	return nil
}

// SingleNode is gpus GPUs on one NVSwitch: each GPU has an up and a down
// port to the switch at nvlink.Bandwidth each.
func SingleNode(gpus int, nvlink hw.Link) (*Topology, error) {
	if gpus < 1 || gpus > MaxGPUsPerNode {
		return nil, intErr("gpus", gpus, 1, MaxGPUsPerNode)
	}
	if err := checkLink("nvlink", nvlink); err != nil {
		return nil, err
	}
	t := &Topology{shape: shapeSingle, gpus: gpus, gpn: gpus, nodes: 1, perGPU: 2}
	t.links = make([]link, 0, 2*gpus)
	for g := 0; g < gpus; g++ {
		t.addGPULinks(g, KindNVLink, nvlink)
	}
	t.finish()
	return t, nil
}

// PCIeNode is gpus GPUs behind one PCIe host: each GPU has an up and a down
// PCIe link, and every transfer between two GPUs also crosses the one shared
// host link (pcie.Bandwidth each way in all).
func PCIeNode(gpus int, pcie hw.Link) (*Topology, error) {
	if gpus < 1 || gpus > MaxGPUsPerNode {
		return nil, intErr("gpus", gpus, 1, MaxGPUsPerNode)
	}
	if err := checkLink("pcie", pcie); err != nil {
		return nil, err
	}
	t := &Topology{shape: shapePCIe, gpus: gpus, gpn: gpus, nodes: 1, perGPU: 2}
	t.links = make([]link, 0, 2*gpus+1)
	for g := 0; g < gpus; g++ {
		t.addGPULinks(g, KindPCIe, pcie)
	}
	t.host = LinkID(len(t.links))
	t.links = append(t.links, link{kind: KindHost, gpu: -1, leaf: -1, spine: -1, bw: pcie.Bandwidth, lat: pcie.Latency})
	t.finish()
	return t, nil
}

// FatTreeConfig describes a rail-optimised fat tree. FatTree fills
// NodesPerLeaf and Uplinks with the package defaults.
type FatTreeConfig struct {
	Nodes, GPUsPerNode int
	Intra, Inter       hw.Link // NVLink inside a node; NIC and network
	Oversubscription   float64 // leaf downlink : uplink bandwidth, ≥ 1
	NodesPerLeaf       int     // nodes per leaf switch of a rail
	Uplinks            int     // uplinks per leaf = spine planes
}

// FatTree is a DGX-style cluster of nodes × gpusPerNode GPUs: NVSwitch
// inside each node (intra), one NIC per GPU (inter) on its rail's leaf, 32
// nodes per leaf, and, when a rail needs more than one leaf, 8 spine planes
// with oversubscription (1 = non-blocking, 2 = 2:1) between leaves and
// spines. See the package documentation for the routing rules.
func FatTree(nodes, gpusPerNode int, intra, inter hw.Link, oversubscription float64) (*Topology, error) {
	return NewFatTree(FatTreeConfig{
		Nodes: nodes, GPUsPerNode: gpusPerNode, Intra: intra, Inter: inter,
		Oversubscription: oversubscription, NodesPerLeaf: NodesPerLeaf, Uplinks: Uplinks,
	})
}

// NVL72GPUs is the GPUs of one GB200 NVL72 rack, one NVLink domain.
const NVL72GPUs = 72

// NVL72 is racks GB200 NVL72 racks. In a rack each GPU's 18 NVLink 5
// links run to the 9 NVLink Switch trays; the model makes them one
// non-blocking switch of 72 ports at the GPU's NVLink bandwidth, as
// SingleNode does a node's NVSwitch, only 72 wide. Between racks each GPU
// has its NIC on a rail-optimised fat tree: FatTree with nodes of 72.
func NVL72(racks int, nvlink, inter hw.Link, oversubscription float64) (*Topology, error) {
	return FatTree(racks, NVL72GPUs, nvlink, inter, oversubscription)
}

// NewFatTree builds the fat tree that c describes; small leaves make a
// spine visible in a classroom-sized cluster.
func NewFatTree(c FatTreeConfig) (*Topology, error) {
	if c.GPUsPerNode < 1 || c.GPUsPerNode > MaxGPUsPerNode {
		return nil, intErr("gpus-per-node", c.GPUsPerNode, 1, MaxGPUsPerNode)
	}
	if c.Nodes < 1 || c.Nodes > MaxGPUs/c.GPUsPerNode {
		return nil, &Error{"nodes", strconv.Itoa(c.Nodes), fmt.Sprintf("1–%d with %d GPUs per node (at most %d GPUs)", MaxGPUs/c.GPUsPerNode, c.GPUsPerNode, MaxGPUs)}
	}
	if err := checkLink("intra", c.Intra); err != nil {
		return nil, err
	}
	if err := checkLink("inter", c.Inter); err != nil {
		return nil, err
	}
	if !(c.Oversubscription >= 1 && c.Oversubscription <= MaxOversub) {
		return nil, &Error{"oversubscription", strconv.FormatFloat(c.Oversubscription, 'g', -1, 64), fmt.Sprintf("1–%d (1 = non-blocking, 2 = 2:1)", MaxOversub)}
	}
	if c.NodesPerLeaf < 1 || c.NodesPerLeaf > MaxNodesPerLeaf {
		return nil, intErr("nodes-per-leaf", c.NodesPerLeaf, 1, MaxNodesPerLeaf)
	}
	if c.Uplinks < 1 || c.Uplinks > MaxUplinks {
		return nil, intErr("uplinks", c.Uplinks, 1, MaxUplinks)
	}
	gpus := c.Nodes * c.GPUsPerNode
	t := &Topology{
		shape: shapeFatTree, gpus: gpus, gpn: c.GPUsPerNode, nodes: c.Nodes,
		nodesPerLeaf:  c.NodesPerLeaf,
		leavesPerRail: (c.Nodes + c.NodesPerLeaf - 1) / c.NodesPerLeaf,
		oversub:       c.Oversubscription,
		perGPU:        4,
	}
	if t.leavesPerRail > 1 {
		t.uplinks = c.Uplinks
	}
	leaves := t.leavesPerRail * c.GPUsPerNode
	t.links = make([]link, 0, 4*gpus+2*leaves*t.uplinks)
	for g := 0; g < gpus; g++ {
		t.addGPULinks(g, KindNVLink, c.Intra)
		leaf := int32(t.leafOf(g%t.gpn, g/t.gpn))
		for _, up := range []bool{true, false} {
			t.links = append(t.links, link{kind: KindNIC, up: up, gpu: int32(g), leaf: leaf, spine: -1, bw: c.Inter.Bandwidth, lat: c.Inter.Latency})
		}
	}
	t.spineBase = LinkID(len(t.links))
	for leaf := 0; t.uplinks > 0 && leaf < leaves; leaf++ {
		group := leaf % t.leavesPerRail
		n := min(c.NodesPerLeaf, c.Nodes-group*c.NodesPerLeaf) // nodes on this leaf
		down := float64(float64(n) * c.Inter.Bandwidth)
		bw := down / c.Oversubscription / float64(t.uplinks)
		for s := 0; s < t.uplinks; s++ {
			for _, up := range []bool{true, false} {
				t.links = append(t.links, link{kind: KindLeafSpine, up: up, gpu: -1, leaf: int32(leaf), spine: int32(s), bw: bw, lat: c.Inter.Latency})
			}
		}
	}
	t.finish()
	return t, nil
}

func (t *Topology) addGPULinks(g int, k Kind, l hw.Link) {
	for _, up := range []bool{true, false} {
		t.links = append(t.links, link{kind: k, up: up, gpu: int32(g), leaf: -1, spine: -1, bw: l.Bandwidth, lat: l.Latency})
	}
}

func (t *Topology) finish() {
	t.bw = make([]float64, len(t.links))
	for i, l := range t.links {
		t.bw[i] = l.bw
	}
}

func (t *Topology) leafOf(rail, node int) int { return rail*t.leavesPerRail + node/t.nodesPerLeaf }

// GPUs is the number of GPUs, numbered node by node: GPU g is local GPU
// g mod GPUsPerNode of node g / GPUsPerNode.
func (t *Topology) GPUs() int { return t.gpus }

// Nodes is the number of nodes (NVLink or PCIe domains).
func (t *Topology) Nodes() int { return t.nodes }

// GPUsPerNode is the number of GPUs in each node, which is also the number
// of rails of a fat tree.
func (t *Topology) GPUsPerNode() int { return t.gpn }

// Leaves is the number of leaf switches (0 without a network).
func (t *Topology) Leaves() int {
	if t.shape != shapeFatTree {
		return 0
	}
	return t.leavesPerRail * t.gpn
}

// LeavesPerRail is the number of leaf switches on each rail.
func (t *Topology) LeavesPerRail() int { return t.leavesPerRail }

// Spines is the number of spine planes (0 when every rail has one leaf).
func (t *Topology) Spines() int { return t.uplinks }

// Oversubscription is the fat tree's leaf downlink : uplink ratio (0 for
// other topologies).
func (t *Topology) Oversubscription() float64 { return t.oversub }

// NumLinks is the number of directed links; LinkIDs run from 0 to
// NumLinks()-1.
func (t *Topology) NumLinks() int { return len(t.links) }

// Node is the node that GPU g sits in.
func (t *Topology) Node(g int) int { return g / t.gpn }

// Links describes every directed link, in LinkID order: per GPU (in GPU
// order) its NVLink (or PCIe) up and down, then for a fat tree its NIC up
// and down; then the PCIe host link or the leaf-spine links (per leaf, per
// spine, up then down).
func (t *Topology) Links() []LinkInfo {
	out := make([]LinkInfo, len(t.links))
	for i := range t.links {
		out[i] = t.info(LinkID(i))
	}
	return out
}

// Link describes one directed link; ok is false for an unknown id.
func (t *Topology) Link(id LinkID) (info LinkInfo, ok bool) {
	if id < 0 || int(id) >= len(t.links) {
		return LinkInfo{}, false
	}
	return t.info(id), true
}

// Bandwidth is link id's bandwidth in bytes/s, Link(id).Bandwidth without
// building the rest of its description; 0 for an unknown id.
func (t *Topology) Bandwidth(id LinkID) float64 {
	if id < 0 || int(id) >= len(t.bw) {
		return 0
	}
	return t.bw[id]
}

func (t *Topology) info(id LinkID) LinkInfo {
	l := t.links[id]
	in := LinkInfo{ID: id, Kind: l.kind, Up: l.up, Node: -1, GPU: int(l.gpu), Rail: -1, Leaf: int(l.leaf), Spine: int(l.spine), Bandwidth: l.bw, Latency: l.lat}
	var a, b string
	switch l.kind {
	case KindNVLink, KindPCIe:
		in.Node = int(l.gpu) / t.gpn
		a = "n" + strconv.Itoa(in.Node) + ".g" + strconv.Itoa(int(l.gpu)%t.gpn)
		b = "nvs" + strconv.Itoa(in.Node)
		if l.kind == KindPCIe {
			b = "host"
		}
	case KindNIC:
		in.Node = int(l.gpu) / t.gpn
		in.Rail = int(l.gpu) % t.gpn
		a = "n" + strconv.Itoa(in.Node) + ".nic" + strconv.Itoa(in.Rail)
		b = t.leafName(int(l.leaf))
	case KindLeafSpine:
		in.Rail = int(l.leaf) / t.leavesPerRail
		a = t.leafName(int(l.leaf))
		b = "spine" + strconv.Itoa(int(l.spine))
	case KindHost:
		in.Node = 0
		in.Up = true
		in.Name = "host"
		return in
	}
	if l.up {
		in.Name = a + ">" + b
	} else {
		in.Name = b + ">" + a
	}
	return in
}

func (t *Topology) leafName(leaf int) string {
	return "leaf" + strconv.Itoa(leaf/t.leavesPerRail) + "." + strconv.Itoa(leaf%t.leavesPerRail)
}

// Links of GPU g.
func (t *Topology) up(g int) LinkID      { return LinkID(t.perGPU * g) }
func (t *Topology) down(g int) LinkID    { return LinkID(t.perGPU*g + 1) }
func (t *Topology) nicUp(g int) LinkID   { return LinkID(t.perGPU*g + 2) }
func (t *Topology) nicDown(g int) LinkID { return LinkID(t.perGPU*g + 3) }

func (t *Topology) spineLink(leaf, spine int, up bool) LinkID {
	id := t.spineBase + LinkID(2*(leaf*t.uplinks+spine))
	if !up {
		id++
	}
	return id
}

// maxHops is the longest path: NVLink up, down, NIC up, leaf→spine,
// spine→leaf, NIC down.
const maxHops = 6

// Path is the route of a flow from GPU src to GPU dst, as the directed links
// it crosses in order (see the package documentation for the rules). flow
// picks the spine plane under ECMP. It is nil when src or dst is not a GPU
// of t, or src == dst.
func (t *Topology) Path(src, dst int, flow uint64) []LinkID {
	if !t.valid(src, dst) {
		return nil
	}
	return t.appendPath(make([]LinkID, 0, maxHops), src, dst, flow)
}

// PathLatency is the latency a flow from src to dst pays once: the latency
// of each medium (NVLink, network, PCIe) its path crosses. It is 0 when
// Path is nil.
func (t *Topology) PathLatency(src, dst int, flow uint64) sim.Time {
	if !t.valid(src, dst) {
		return 0
	}
	var buf [maxHops]LinkID
	return t.latency(t.appendPath(buf[:0], src, dst, flow))
}

func (t *Topology) valid(src, dst int) bool {
	return src >= 0 && src < t.gpus && dst >= 0 && dst < t.gpus && src != dst
}

// latency sums the latency of each run of links of one medium.
func (t *Topology) latency(path []LinkID) sim.Time {
	var sum sim.Time
	var last medium
	for _, id := range path {
		l := &t.links[id]
		if m := l.kind.medium(); m != last {
			sum += l.lat
			last = m
		}
	}
	return sum
}

// appendPath appends the route from src to dst (valid, distinct GPUs).
func (t *Topology) appendPath(p []LinkID, src, dst int, flow uint64) []LinkID {
	switch t.shape {
	case shapeSingle:
		return append(p, t.up(src), t.down(dst))
	case shapePCIe:
		return append(p, t.up(src), t.host, t.down(dst))
	}
	sn, dn := src/t.gpn, dst/t.gpn
	if sn == dn {
		return append(p, t.up(src), t.down(dst))
	}
	rail := dst % t.gpn
	from := src
	if src%t.gpn != rail { // PXN: hop over NVLink onto dst's rail first
		from = sn*t.gpn + rail
		p = append(p, t.up(src), t.down(from))
	}
	p = append(p, t.nicUp(from))
	if sl, dl := t.leafOf(rail, sn), t.leafOf(rail, dn); sl != dl {
		s := int(splitMix64(flow) % uint64(t.uplinks))
		p = append(p, t.spineLink(sl, s, true), t.spineLink(dl, s, false))
	}
	return append(p, t.nicDown(dst))
}

// splitMix64 is the finaliser of SplitMix64: a fixed, well-mixed hash.
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// String is a one-line description, e.g. "fat tree 64×8, 2 leaves/rail, 8
// spines, 2:1".
func (t *Topology) String() string {
	switch t.shape {
	case shapeSingle:
		return "nvswitch " + strconv.Itoa(t.gpus) + " GPUs"
	case shapePCIe:
		return "pcie " + strconv.Itoa(t.gpus) + " GPUs"
	}
	return fmt.Sprintf("fat tree %d×%d, %d leaves/rail, %d spines, %g:1", t.nodes, t.gpn, t.leavesPerRail, t.uplinks, t.oversub)
}
