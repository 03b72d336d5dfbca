package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/topo"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The rack-scale-nvlink lesson (issue 20) is of the kind fabric, with two
// views of its own: 72 GPUs as one GB200 NVL72 rack (one NVLink 5 domain)
// against nine 8-GPU H100 nodes on InfiniBand, one operation raced on both;
// and the tensor-parallel all-reduce's time against the TP degree on each,
// where the group leaves the NVLink domain. The knob domain (8 or 72) is the
// NVLink 5 system's domain: 72 is the NVL72 rack, 8 nine HGX B200 nodes.

// Rack views.
const (
	ViewRack    = "rack"    // the two systems of 72 GPUs, one operation raced
	ViewCeiling = "ceiling" // TP all-reduce time against the TP degree
)

// RackGPUs is the lesson's 72 GPUs: one NVL72 rack, or nine nodes of 8.
const RackGPUs = topo.NVL72GPUs

// Rack operations: what the op knob names.
const (
	RackSend      = "send" // GPU 0 to GPU 71, one transfer
	RackAllReduce = "allreduce"
	RackAllToAll  = "alltoall"
)

// RackTP are the TP degrees the ceiling compares.
var RackTP = []int{2, 4, 8, 16, 32, 64}

// RackSystem is one of the two systems: its GPU, how many GPUs share an
// NVLink domain, its links, and the step's operation on it.
type RackSystem struct {
	GPU          hw.GPU
	Domain       int
	Intra, Inter hw.Link
	Seconds      float64
	// NVLinkBytes and NICBytes are what one GPU sends on each (GPU 0's
	// share of the operation).
	NVLinkBytes, NICBytes float64
	Command               string
	TPSeconds             []float64 // the ceiling: one TP all-reduce, by RackTP
}

// RackRun is a rack or ceiling step: the NVLink 5 system (0) and the
// nine H100 nodes (1).
type RackRun struct {
	Op      string
	Systems [2]RackSystem
}

// Speedup is how many times as long the operation takes on the H100 nodes.
func (r *RackRun) Speedup() float64 {
	if r.Systems[0].Seconds <= 0 {
		return 0
	}
	return r.Systems[1].Seconds / r.Systems[0].Seconds
}

// rackCache holds the flow runs (an all-to-all is 5,112 flows) by op,
// bytes, domain and link.
var rackCache sync.Map

type rackKey struct {
	op     string
	bytes  float64
	domain int
	inter  string
}

func rackRun(r *FabricRun, c Config) (*FabricRun, error) {
	op := c["op"]
	if op == "" {
		op = RackAllReduce
	}
	domain := RackGPUs
	if v := c["domain"]; v != "" {
		domain, _ = strconv.Atoi(v)
	}
	if domain != 8 && domain != RackGPUs {
		return nil, fmt.Errorf("domain: %d; allowed 8, 72", domain)
	}
	key := rackKey{op, r.Bytes, domain, r.Inter.ID}
	if v, ok := rackCache.Load(key); ok {
		r.Rack = v.(*RackRun)
	} else {
		rr, err := rackSystems(op, r.Bytes, domain, r.Inter)
		if err != nil {
			return nil, err
		}
		rackCache.Store(key, rr)
		r.Rack = rr
	}
	r.Ranks, r.GPUsPerNode = RackGPUs, domain
	r.Intra = r.Rack.Systems[0].Intra
	if r.View == ViewCeiling {
		r.end = sim.Second
		return r, nil
	}
	r.end = sim.FromSeconds(max(r.Rack.Systems[0].Seconds, r.Rack.Systems[1].Seconds))
	return r, nil
}

// rackSystems runs op on both systems, and the ceiling's TP all-reduces of
// bytes.
func rackSystems(op string, bytes float64, domain int, inter hw.Link) (*RackRun, error) {
	rr := &RackRun{Op: op}
	gpus := [2]string{"gb200", "h100"}
	if domain == 8 {
		gpus[0] = "b200"
	}
	for i, id := range gpus {
		g, _ := hw.GPUByID(id)
		cl := parallel.DefaultCluster(g, RackGPUs)
		s := RackSystem{GPU: g, Domain: cl.GPUsPerNode, Intra: cl.Intra, Inter: inter}
		k := s.Domain
		topology := "fat-tree"
		where := fmt.Sprintf("--gpus-per-node %d --topology fat-tree --intra %s", k, s.Intra.ID)
		if k == RackGPUs {
			topology, where = "nvl72", "--topology nvl72"
		}
		var cop collective.Op
		algo := collective.Ring
		n := RackGPUs
		switch op {
		case RackSend:
			// GPU 0 to GPU 71: one NVLink hop in the rack, a NIC each end
			// across nodes.
			cop, n = collective.Broadcast, 2
			if k < RackGPUs {
				k, where = 1, "--gpus-per-node 1 --topology fat-tree"
				s.NICBytes = bytes
			} else {
				s.NVLinkBytes = bytes
			}
		case RackAllReduce:
			cop = collective.AllReduce
			N := float64(RackGPUs)
			if k < RackGPUs {
				algo = collective.Hierarchical
				nodes := float64(RackGPUs / k)
				s.NVLinkBytes = 2 * float64(k-1) / float64(k) * bytes
				s.NICBytes = 2 * (nodes - 1) / nodes * bytes / float64(k)
			} else {
				s.NVLinkBytes = 2 * (N - 1) / N * bytes
			}
		case RackAllToAll:
			cop = collective.AllToAll
			s.NVLinkBytes = float64(k-1) / RackGPUs * bytes
			s.NICBytes = float64(RackGPUs-k) / RackGPUs * bytes
		default:
			return nil, fmt.Errorf("op: %q; allowed send, allreduce, alltoall", op)
		}
		f, err := collective.ClosedForm(cop, algo, n, k, bytes, s.Intra, inter)
		if err != nil {
			return nil, err
		}
		s.Seconds = f.Seconds
		// As gpuscope collective does: on the topology, the flows.
		if tp, err := collective.FabricTopology(topology, n, k, s.Intra, inter, 1); err == nil {
			if run, err := collective.RunOnFabric(tp, cop, algo, n, bytes); err == nil && run.Seconds > 0 {
				s.Seconds = run.Seconds
			}
		}
		s.Command = fmt.Sprintf("gpuscope collective --op %s --algo %s --ranks %d %s --inter %s --bytes %.0f --json", cop, algo, n, where, inter.ID, bytes)
		for _, t := range RackTP {
			f, err := collective.ClosedForm(collective.AllReduce, collective.Hierarchical, t, s.Domain, bytes, s.Intra, inter)
			if err != nil {
				return nil, err
			}
			s.TPSeconds = append(s.TPSeconds, f.Seconds)
		}
		rr.Systems[i] = s
	}
	return rr, nil
}

// RackMetrics are a rack step's numbers.
type RackMetrics struct {
	Op            string    `json:"op"`
	Domain        int       `json:"nvlink_domain"`
	RackGPU       string    `json:"nvlink5_gpu"`
	RackTimeS     float64   `json:"nvlink5_time_s"`
	NodesTimeS    float64   `json:"h100_nodes_time_s"`
	Speedup       float64   `json:"speedup"`
	NICShare      float64   `json:"h100_nic_share"` // of a GPU's bytes, on the nine nodes
	RackTPTimesS  []float64 `json:"nvlink5_tp_time_s,omitempty"`
	NodesTPTimesS []float64 `json:"h100_tp_time_s,omitempty"`
	TPDegrees     []int     `json:"tp_degrees,omitempty"`
	CommandNodes  string    `json:"command_h100"`
}

func rackMetrics(r *FabricRun, m *FabricMetrics) {
	rr := r.Rack
	a, b := rr.Systems[0], rr.Systems[1]
	rm := &RackMetrics{Op: rr.Op, Domain: a.Domain, RackGPU: a.GPU.ID, RackTimeS: a.Seconds, NodesTimeS: b.Seconds, Speedup: rr.Speedup(),
		CommandNodes: b.Command}
	if t := b.NVLinkBytes + b.NICBytes; t > 0 {
		rm.NICShare = b.NICBytes / t
	}
	if r.View == ViewCeiling {
		rm.TPDegrees, rm.RackTPTimesS, rm.NodesTPTimesS = RackTP, a.TPSeconds, b.TPSeconds
	}
	m.RackMetrics = rm
	m.Intra, m.IntraTimeS, m.InterTimeS, m.Slowdown = a.Intra.ID, 0, 0, 0
	m.Command = a.Command
}

// rackSystemName is a system's name in lang: one GB200 NVL72 rack, or
// nine nodes of a GPU.
func rackSystemName(lang string, s RackSystem) string {
	if s.Domain >= RackGPUs {
		return i18n.T(lang, "rack.system.nvl72")
	}
	return i18n.T(lang, "rack.system.nodes", "nodes", strconv.Itoa(RackGPUs/s.Domain), "k", strconv.Itoa(s.Domain), "gpu", s.GPU.Name)
}

func rackNarration(r *FabricRun, lang string, out []string) []string {
	rr := r.Rack
	a, b := rr.Systems[0], rr.Systems[1]
	dur := localDuration(lang)
	share := 0.0
	if t := b.NVLinkBytes + b.NICBytes; t > 0 {
		share = b.NICBytes / t
	}
	out = append(out, "system_a", rackSystemName(lang, a), "system_b", rackSystemName(lang, b),
		"domain", strconv.Itoa(a.Domain), "a_intra", linkName(lang, a.Intra), "a_bw", units.Rate(a.Intra.Bandwidth), "a_bw2", units.Rate(2*a.Intra.Bandwidth),
		"b_intra", linkName(lang, b.Intra), "b_bw", units.Rate(b.Intra.Bandwidth),
		"time_a", dur(a.Seconds), "time_b", dur(b.Seconds), "speedup", units.Ratio(lang, rr.Speedup()), "nic_share", units.Percent(share),
		"gpus", strconv.Itoa(RackGPUs))
	for i, t := range RackTP {
		out = append(out, "tp_a_"+strconv.Itoa(t), dur(a.TPSeconds[i]), "tp_b_"+strconv.Itoa(t), dur(b.TPSeconds[i]))
	}
	return out
}

func rackTable(r *FabricRun, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	rr := r.Rack
	a, b := rr.Systems[0], rr.Systems[1]
	dur := localDuration(lang)
	tb := Table{Columns: []string{t("ui.metric"), rackSystemName(lang, a), rackSystemName(lang, b)}, ColumnKeys: []string{"nvlink5", "h100"}, Current: "nvlink5"}
	row := func(key string, cells ...string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: cells}
	}
	if r.View == ViewCeiling {
		tb.Rows = append(tb.Rows, row("nvlink_domain", strconv.Itoa(a.Domain), strconv.Itoa(b.Domain)))
		for i, d := range RackTP {
			tb.Rows = append(tb.Rows, TableRow{Key: "tp_time_s", Label: i18n.T(lang, "metric.tp_allreduce", "tp", strconv.Itoa(d)), Cells: []string{dur(a.TPSeconds[i]), dur(b.TPSeconds[i])}})
		}
		return tb
	}
	tb.Rows = []TableRow{
		row("nvlink_domain", strconv.Itoa(a.Domain), strconv.Itoa(b.Domain)),
		row("bandwidth_each_way", units.Rate(a.Intra.Bandwidth), units.Rate(b.Intra.Bandwidth)),
		row("nic_bytes", units.Bytes(a.NICBytes), units.Bytes(b.NICBytes)),
		row("time_s", dur(a.Seconds), dur(b.Seconds)),
	}
	return tb
}

// rackSpeedup asks how many times as long the nine nodes take.
var rackSpeedup = fabricQuestion(func(r *FabricRun, lang string, q *Question) {
	if r.Rack != nil {
		q.Choices, q.Answer = numberChoices(r.Rack.Speedup(), func(v float64) string { return units.Ratio(lang, v) })
	}
})

// RackShortName is a system's name on the canvas: "one NVL72 rack" or
// "nine B200 nodes".
func RackShortName(lang string, s RackSystem) string {
	if s.Domain >= RackGPUs {
		return i18n.T(lang, "canvas.rack.lane_rack")
	}
	return i18n.T(lang, "canvas.rack.lane_nodes", "nodes", strconv.Itoa(RackGPUs/s.Domain), "gpu", strings.Fields(s.GPU.Name)[0])
}

// LinkShort is a link's short name in lang ("NVLink 5", "IB NDR 400G").
func LinkShort(lang string, l hw.Link) string { return linkName(lang, l) }
