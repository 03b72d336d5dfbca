package topo

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

func catalog(t testing.TB, id string) hw.Link {
	t.Helper()
	l, ok := hw.LinkByID(id)
	if !ok {
		t.Fatalf("no link %q in the catalog", id)
	}
	return l
}

func fatTree(t testing.TB, nodes, gpn int, oversub float64) *Topology {
	t.Helper()
	top, err := FatTree(nodes, gpn, catalog(t, "nvlink4"), catalog(t, "ib-ndr"), oversub)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

func kinds(top *Topology, path []LinkID) []Kind {
	out := make([]Kind, len(path))
	for i, id := range path {
		info, _ := top.Link(id)
		out[i] = info.Kind
	}
	return out
}

func TestFatTreeShape(t *testing.T) {
	tests := []struct {
		nodes, gpn                       int
		oversub                          float64
		leavesPerRail, spines            int
		links                            int
		uplinkBW                         float64 // of the first leaf
		lastLeafUplinkBW                 float64
		wantString                       string
		gpus, leaves                     int
		nodeOfLast                       int
		firstLeafSpineKind, lastLinkKind Kind
	}{
		{nodes: 1, gpn: 8, oversub: 1, leavesPerRail: 1, spines: 0, links: 32, gpus: 8, leaves: 8,
			wantString: "fat tree 1×8, 1 leaves/rail, 0 spines, 1:1", nodeOfLast: 0, lastLinkKind: KindNIC},
		{nodes: 32, gpn: 8, oversub: 2, leavesPerRail: 1, spines: 0, links: 4 * 256, gpus: 256, leaves: 8,
			wantString: "fat tree 32×8, 1 leaves/rail, 0 spines, 2:1", nodeOfLast: 31, lastLinkKind: KindNIC},
		// 64 nodes: two leaves of 32 per rail, 8 spines, each uplink
		// 32 × 50 GB/s / 2 / 8 = 100 GB/s.
		{nodes: 64, gpn: 8, oversub: 2, leavesPerRail: 2, spines: 8, links: 4*512 + 16*8*2, gpus: 512, leaves: 16,
			uplinkBW: 100e9, lastLeafUplinkBW: 100e9,
			wantString: "fat tree 64×8, 2 leaves/rail, 8 spines, 2:1", nodeOfLast: 63, lastLinkKind: KindLeafSpine},
		// 40 nodes: a full leaf of 32 and one of 8 per rail; non-blocking
		// uplinks 32 × 50 / 8 = 200 GB/s and 8 × 50 / 8 = 50 GB/s.
		{nodes: 40, gpn: 4, oversub: 1, leavesPerRail: 2, spines: 8, links: 4*160 + 8*8*2, gpus: 160, leaves: 8,
			uplinkBW: 200e9, lastLeafUplinkBW: 50e9,
			wantString: "fat tree 40×4, 2 leaves/rail, 8 spines, 1:1", nodeOfLast: 39, lastLinkKind: KindLeafSpine},
	}
	for _, tc := range tests {
		top := fatTree(t, tc.nodes, tc.gpn, tc.oversub)
		if got := top.String(); got != tc.wantString {
			t.Errorf("String() = %q, want %q", got, tc.wantString)
		}
		if top.GPUs() != tc.gpus || top.Nodes() != tc.nodes || top.GPUsPerNode() != tc.gpn ||
			top.Leaves() != tc.leaves || top.LeavesPerRail() != tc.leavesPerRail || top.Spines() != tc.spines || top.NumLinks() != tc.links {
			t.Errorf("%s: GPUs, Nodes, GPUsPerNode, Leaves, LeavesPerRail, Spines, NumLinks = %d %d %d %d %d %d %d, want %d %d %d %d %d %d %d",
				top, top.GPUs(), top.Nodes(), top.GPUsPerNode(), top.Leaves(), top.LeavesPerRail(), top.Spines(), top.NumLinks(),
				tc.gpus, tc.nodes, tc.gpn, tc.leaves, tc.leavesPerRail, tc.spines, tc.links)
		}
		if got := top.Node(tc.gpus - 1); got != tc.nodeOfLast {
			t.Errorf("%s: Node(%d) = %d, want %d", top, tc.gpus-1, got, tc.nodeOfLast)
		}
		links := top.Links()
		if len(links) != tc.links {
			t.Fatalf("%s: len(Links()) = %d, want %d", top, len(links), tc.links)
		}
		if got := links[len(links)-1].Kind; got != tc.lastLinkKind {
			t.Errorf("%s: last link kind %q, want %q", top, got, tc.lastLinkKind)
		}
		names := map[string]bool{}
		for i, l := range links {
			if l.ID != LinkID(i) {
				t.Fatalf("%s: Links()[%d].ID = %d", top, i, l.ID)
			}
			if names[l.Name] {
				t.Errorf("%s: duplicate link name %q", top, l.Name)
			}
			names[l.Name] = true
			switch l.Kind {
			case KindNVLink:
				if l.Bandwidth != 450e9 || l.Latency != sim.Microsecond {
					t.Errorf("%s: %s = %g B/s, %v", top, l.Name, l.Bandwidth, l.Latency)
				}
			case KindNIC:
				if l.Bandwidth != 50e9 || l.Latency != 5*sim.Microsecond || l.Rail != l.GPU%tc.gpn {
					t.Errorf("%s: %s = %g B/s, %v, rail %d", top, l.Name, l.Bandwidth, l.Latency, l.Rail)
				}
			case KindLeafSpine:
				want := tc.uplinkBW
				if l.Leaf%tc.leavesPerRail == tc.leavesPerRail-1 {
					want = tc.lastLeafUplinkBW
				}
				if math.Abs(l.Bandwidth-want) > 1e-6*want {
					t.Errorf("%s: %s = %g B/s, want %g", top, l.Name, l.Bandwidth, want)
				}
			default:
				t.Errorf("%s: unexpected kind %q", top, l.Kind)
			}
		}
	}
}

func TestLinkNames(t *testing.T) {
	top := fatTree(t, 64, 8, 1)
	tests := []struct {
		id   LinkID
		name string
		kind Kind
		up   bool
	}{
		{0, "n0.g0>nvs0", KindNVLink, true},
		{1, "nvs0>n0.g0", KindNVLink, false},
		{2, "n0.nic0>leaf0.0", KindNIC, true},
		{3, "leaf0.0>n0.nic0", KindNIC, false},
		{LinkID(4*(33*8+5) + 2), "n33.nic5>leaf5.1", KindNIC, true},
		{LinkID(4 * 512), "leaf0.0>spine0", KindLeafSpine, true},
		{LinkID(4*512 + 1), "spine0>leaf0.0", KindLeafSpine, false},
		{LinkID(4*512 + 16*8*2 - 1), "spine7>leaf7.1", KindLeafSpine, false},
	}
	for _, tc := range tests {
		info, ok := top.Link(tc.id)
		if !ok || info.Name != tc.name || info.Kind != tc.kind || info.Up != tc.up {
			t.Errorf("Link(%d) = %+v, %v, want name %q kind %q up %v", tc.id, info, ok, tc.name, tc.kind, tc.up)
		}
	}
	for _, info := range top.Links() {
		if b := top.Bandwidth(info.ID); b != info.Bandwidth {
			t.Errorf("Bandwidth(%d) = %g, Link says %g", info.ID, b, info.Bandwidth)
		}
	}
	if b := top.Bandwidth(LinkID(top.NumLinks())); b != 0 {
		t.Errorf("Bandwidth(%d) = %g for an unknown id, want 0", top.NumLinks(), b)
	}
	if _, ok := top.Link(LinkID(top.NumLinks())); ok {
		t.Errorf("Link(%d) ok for an unknown id", top.NumLinks())
	}
	if _, ok := top.Link(-1); ok {
		t.Error("Link(-1) ok")
	}
}

func pathNames(top *Topology, path []LinkID) string {
	var b strings.Builder
	for i, id := range path {
		info, _ := top.Link(id)
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(info.Name)
	}
	return b.String()
}

func TestPathRules(t *testing.T) {
	top := fatTree(t, 64, 8, 2) // two leaves per rail
	g := func(node, local int) int { return node*8 + local }
	tests := []struct {
		name     string
		src, dst int
		want     string // with the spine plane as S
		latency  sim.Time
	}{
		{"same node", g(3, 1), g(3, 6), "n3.g1>nvs3 nvs3>n3.g6", sim.Microsecond},
		{"same rail, same leaf", g(3, 2), g(9, 2), "n3.nic2>leaf2.0 leaf2.0>n9.nic2", 5 * sim.Microsecond},
		{"same rail, across leaves", g(3, 2), g(40, 2), "n3.nic2>leaf2.0 leaf2.0>spineS spineS>leaf2.1 leaf2.1>n40.nic2", 5 * sim.Microsecond},
		{"PXN, same leaf", g(3, 1), g(9, 6), "n3.g1>nvs3 nvs3>n3.g6 n3.nic6>leaf6.0 leaf6.0>n9.nic6", 6 * sim.Microsecond},
		{"PXN, across leaves", g(63, 7), g(0, 0), "n63.g7>nvs63 nvs63>n63.g0 n63.nic0>leaf0.1 leaf0.1>spineS spineS>leaf0.0 leaf0.0>n0.nic0", 6 * sim.Microsecond},
	}
	for _, tc := range tests {
		for flow := uint64(0); flow < 16; flow++ {
			path := top.Path(tc.src, tc.dst, flow)
			got := pathNames(top, path)
			want := tc.want
			for _, id := range path {
				if info, _ := top.Link(id); info.Kind == KindLeafSpine {
					want = strings.ReplaceAll(tc.want, "spineS", "spine"+strconv.Itoa(info.Spine))
				}
			}
			if got != want {
				t.Errorf("%s: Path(%d, %d, %d) = %q, want %q", tc.name, tc.src, tc.dst, flow, got, tc.want)
			}
			if lat := top.PathLatency(tc.src, tc.dst, flow); lat != tc.latency {
				t.Errorf("%s: PathLatency = %v, want %v", tc.name, lat, tc.latency)
			}
		}
	}
}

// Every path is a chain of links from src to dst; inside a node it never
// touches a NIC; across nodes it crosses exactly one NIC pair, on dst's rail.
func TestPathsAreConnected(t *testing.T) {
	top, err := NewFatTree(FatTreeConfig{Nodes: 10, GPUsPerNode: 4, Intra: catalog(t, "nvlink4"), Inter: catalog(t, "ib-ndr"),
		Oversubscription: 2, NodesPerLeaf: 3, Uplinks: 4})
	if err != nil {
		t.Fatal(err)
	}
	vertex := func(s string) string { return strings.Replace(s, ".nic", ".g", 1) } // a GPU and its NIC
	gpuName := func(g int) string { return "n" + strconv.Itoa(g/4) + ".g" + strconv.Itoa(g%4) }
	for src := 0; src < top.GPUs(); src++ {
		for dst := 0; dst < top.GPUs(); dst++ {
			flow := uint64(src*131 + dst)
			path := top.Path(src, dst, flow)
			if src == dst {
				if path != nil {
					t.Errorf("Path(%d, %d) = %v, want nil", src, dst, path)
				}
				continue
			}
			at := gpuName(src)
			nics := 0
			for _, id := range path {
				info, _ := top.Link(id)
				from, to, _ := strings.Cut(info.Name, ">")
				if vertex(from) != at {
					t.Fatalf("Path(%d, %d) = %s: %s does not start at %s", src, dst, pathNames(top, path), info.Name, at)
				}
				at = vertex(to)
				if info.Kind == KindNIC {
					nics++
					if info.Rail != dst%4 {
						t.Errorf("Path(%d, %d) uses rail %d's NIC, want rail %d", src, dst, info.Rail, dst%4)
					}
				}
			}
			if at != gpuName(dst) {
				t.Errorf("Path(%d, %d) = %s ends at %s", src, dst, pathNames(top, path), at)
			}
			sameNode := src/4 == dst/4
			if sameNode && nics != 0 || !sameNode && nics != 2 {
				t.Errorf("Path(%d, %d) = %s crosses %d NIC links", src, dst, pathNames(top, path), nics)
			}
		}
	}
}

// ECMP spreads flows between two leaves over every spine, and a flow id
// always takes the same one.
func TestECMP(t *testing.T) {
	top := fatTree(t, 64, 8, 1)
	used := map[string]int{}
	for flow := uint64(0); flow < 256; flow++ {
		p := top.Path(0, 40*8, flow)
		if len(p) != 4 {
			t.Fatalf("path %s, want 4 hops", pathNames(top, p))
		}
		info, _ := top.Link(p[1])
		used[info.Name]++
		if again := top.Path(0, 40*8, flow); pathNames(top, again) != pathNames(top, p) {
			t.Errorf("flow %d: %s then %s", flow, pathNames(top, p), pathNames(top, again))
		}
	}
	if len(used) != 8 {
		t.Errorf("256 flows used %d spines (%v), want all 8", len(used), used)
	}
	for name, n := range used {
		if n < 16 || n > 48 {
			t.Errorf("%s carries %d of 256 flows; ECMP hash badly skewed", name, n)
		}
	}
}

func TestSingleNodeAndPCIe(t *testing.T) {
	nv, err := SingleNode(8, catalog(t, "nvlink4"))
	if err != nil {
		t.Fatal(err)
	}
	if got := pathNames(nv, nv.Path(2, 5, 0)); got != "n0.g2>nvs0 nvs0>n0.g5" {
		t.Errorf("SingleNode Path(2, 5) = %q", got)
	}
	if nv.NumLinks() != 16 || nv.Leaves() != 0 || nv.Spines() != 0 || nv.Nodes() != 1 {
		t.Errorf("SingleNode(8): %d links, %d leaves, %d spines, %d nodes", nv.NumLinks(), nv.Leaves(), nv.Spines(), nv.Nodes())
	}
	pcie := hw.Link{ID: "pcie5", Name: "PCIe 5 x16", Bandwidth: 64e9, Latency: 2 * sim.Microsecond}
	pc, err := PCIeNode(4, pcie)
	if err != nil {
		t.Fatal(err)
	}
	if got := pathNames(pc, pc.Path(3, 0, 0)); got != "n0.g3>host host host>n0.g0" {
		t.Errorf("PCIeNode Path(3, 0) = %q", got)
	}
	if got := pc.PathLatency(3, 0, 0); got != 2*sim.Microsecond {
		t.Errorf("PCIeNode PathLatency = %v, want 2 µs", got)
	}
	if got := kinds(pc, pc.Path(0, 1, 0)); len(got) != 3 || got[1] != KindHost {
		t.Errorf("PCIe path kinds %v", got)
	}
}

func TestBadTopology(t *testing.T) {
	nv, ib := catalog(t, "nvlink4"), catalog(t, "ib-ndr")
	slow := nv
	slow.Bandwidth = 0
	neg := ib
	neg.Latency = -1
	inf := ib
	inf.Bandwidth = math.Inf(1)
	tests := []struct {
		name  string
		build func() (*Topology, error)
		field string
	}{
		{"no GPUs", func() (*Topology, error) { return SingleNode(0, nv) }, "gpus"},
		{"too many GPUs", func() (*Topology, error) { return SingleNode(MaxGPUsPerNode+1, nv) }, "gpus"},
		{"no bandwidth", func() (*Topology, error) { return SingleNode(8, slow) }, "nvlink.bandwidth"},
		{"pcie no GPUs", func() (*Topology, error) { return PCIeNode(-3, nv) }, "gpus"},
		{"pcie no bandwidth", func() (*Topology, error) { return PCIeNode(2, slow) }, "pcie.bandwidth"},
		{"no nodes", func() (*Topology, error) { return FatTree(0, 8, nv, ib, 1) }, "nodes"},
		{"too many nodes", func() (*Topology, error) { return FatTree(MaxGPUs/8+1, 8, nv, ib, 1) }, "nodes"},
		{"no GPUs per node", func() (*Topology, error) { return FatTree(4, 0, nv, ib, 1) }, "gpus-per-node"},
		{"intra", func() (*Topology, error) { return FatTree(4, 8, slow, ib, 1) }, "intra.bandwidth"},
		{"inter latency", func() (*Topology, error) { return FatTree(4, 8, nv, neg, 1) }, "inter.latency"},
		{"inter infinite", func() (*Topology, error) { return FatTree(4, 8, nv, inf, 1) }, "inter.bandwidth"},
		{"oversubscription below 1", func() (*Topology, error) { return FatTree(4, 8, nv, ib, 0.5) }, "oversubscription"},
		{"oversubscription NaN", func() (*Topology, error) { return FatTree(4, 8, nv, ib, math.NaN()) }, "oversubscription"},
		{"nodes per leaf", func() (*Topology, error) {
			return NewFatTree(FatTreeConfig{Nodes: 4, GPUsPerNode: 8, Intra: nv, Inter: ib, Oversubscription: 1, Uplinks: 8})
		}, "nodes-per-leaf"},
		{"uplinks", func() (*Topology, error) {
			return NewFatTree(FatTreeConfig{Nodes: 4, GPUsPerNode: 8, Intra: nv, Inter: ib, Oversubscription: 1, NodesPerLeaf: 2})
		}, "uplinks"},
	}
	for _, tc := range tests {
		top, err := tc.build()
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field || top != nil {
			t.Errorf("%s: got %v, %v; want an *Error for field %q", tc.name, top, err, tc.field)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), "allowed") {
			t.Errorf("%s: message %q should name %q and the allowed range", tc.name, err, tc.field)
		}
	}
	top := fatTree(t, 2, 2, 1)
	for _, p := range [][2]int{{0, 0}, {-1, 2}, {0, 4}, {4, 0}} {
		if got := top.Path(p[0], p[1], 0); got != nil {
			t.Errorf("Path(%d, %d) = %v, want nil", p[0], p[1], got)
		}
		if got := top.PathLatency(p[0], p[1], 0); got != 0 {
			t.Errorf("PathLatency(%d, %d) = %v, want 0", p[0], p[1], got)
		}
	}
}

// An NVL72 rack is one NVLink domain of 72 ports, the catalog's GB200
// system; racks beyond one talk over their NICs.
func TestNVL72(t *testing.T) {
	nv5, _ := hw.LinkByID("nvlink5")
	xdr, _ := hw.LinkByID("ib-xdr")
	tp, err := NVL72(3, nv5, xdr, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tp.GPUs() != 216 || tp.GPUsPerNode() != 72 || tp.Nodes() != 3 {
		t.Errorf("NVL72(3) = %d GPUs, %d a rack, %d racks; want 216, 72, 3", tp.GPUs(), tp.GPUsPerNode(), tp.Nodes())
	}
	// GPU 0 to GPU 71: its NVLink port up, 71's down, nothing else.
	if p := tp.Path(0, 71, 0); len(p) != 2 || tp.Bandwidth(p[0]) != 900e9 || tp.Bandwidth(p[1]) != 900e9 {
		t.Errorf("Path(0, 71) = %v, want two NVLink 5 ports of 900 GB/s each way", p)
	}
	// GPU 0 to GPU 72 (rack 1, rail 0): the two NICs, 100 GB/s each way.
	if p := tp.Path(0, 72, 0); len(p) != 2 || tp.Bandwidth(p[0]) != 100e9 {
		t.Errorf("Path(0, 72) = %v, want the two XDR NICs", p)
	}
	if g, _ := hw.GPUByID("gb200"); g.NVLinkGPUs != NVL72GPUs {
		t.Errorf("gb200's NVLink domain %d GPUs, want NVL72GPUs %d", g.NVLinkGPUs, NVL72GPUs)
	}
	if _, err := NVL72(0, nv5, xdr, 1); err == nil {
		t.Error("NVL72(0) built a topology")
	}
}
