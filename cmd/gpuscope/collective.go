package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/topo"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios"
)

func idsOf[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

var collectiveKnobs = []scenarios.Knob{
	{Name: "op", Kind: scenarios.KnobEnum, Values: idsOf(collective.Ops), Default: string(collective.AllReduce)},
	{Name: "algo", Kind: scenarios.KnobEnum, Values: idsOf(collective.Algos), Default: string(collective.Ring)},
	{Name: "ranks", Kind: scenarios.KnobInt, Min: collective.MinRanks, Max: 1 << 20, Default: "8"},
	{Name: "bytes", Kind: scenarios.KnobBytes, Min: collective.MinBytes, Max: collective.MaxBytes, Default: "268435456"},
	{Name: "link", Kind: scenarios.KnobEnum, Values: hw.LinkIDs(), Default: "nvlink4"},
	{Name: "gpus-per-node", Kind: scenarios.KnobInt, Min: 1, Max: 256, Default: "8"},
	{Name: "topology", Kind: scenarios.KnobEnum, Values: []string{"single-node", "fat-tree", "nvl72"}, Default: "fat-tree"},
	{Name: "intra", Kind: scenarios.KnobEnum, Values: []string{"nvlink3", "nvlink4", "nvlink5", "pcie5"}, Default: "nvlink4"},
	{Name: "inter", Kind: scenarios.KnobEnum, Values: []string{"ib-hdr", "ib-ndr", "ib-xdr", "roce-400"}, Default: "ib-ndr"},
	{Name: "nodes", Kind: scenarios.KnobInt, Min: 1, Max: collective.MaxRanks, Default: "1"},
}

// fabricFlags are the flags of issue 6's collective: any of them (or an
// operation or algorithm the packet engine does not run, or more ranks than
// it takes) selects the fabric model instead of the first lesson's
// packet-level run.
var fabricFlags = []string{"gpus-per-node", "topology", "oversubscription", "intra", "inter"}

var collectiveHelp = cmdHelp{
	name:  "gpuscope collective",
	usage: "[--op OP --algo A --ranks N --bytes B --link L | --nodes N ...] [--json]",
	about: `A collective's time and bandwidths: time_s, bytes_sent_per_rank, algbw_GBps,
busbw_GBps, max_link_utilization, with its α-β closed form beside them.
An all-reduce by ring or star on up to ` + units.Count(collective.MaxRanks) + ` ranks runs on the packet-level
engine (the ring lesson's) when no fabric flag is given: every rank on one
switch of --link, however many there are, or with --nodes that many nodes
of them joined by --inter. Any other operation or algorithm, more ranks, or
a fabric flag (--gpus-per-node, --topology, --oversubscription, --intra,
--inter) runs it as flows sharing the links of a cluster: by default nodes
of 8 GPUs on NVLink 4 joined by a fat tree of InfiniBand NDR. The text's
fabric line says which ran, on what, and why.
Link bandwidths are one way (each direction): NVLink 5 is 900 GB/s each
way, NVIDIA's "1.8 TB/s" two-way; InfiniBand NDR's 400 Gb/s is 50 GB/s.`,
	flags: map[string]flagDoc{
		"op":               {what: "the operation"},
		"algo":             {what: "the algorithm"},
		"ranks":            {what: "GPUs taking part"},
		"bytes":            {what: "the message: the vector each rank holds"},
		"link":             {what: "the packet-level run's link between neighbours (on a cluster, nvlink3 or nvlink4 stands for --intra)"},
		"gpus-per-node":    {what: "GPUs in a node (a cluster run)"},
		"topology":         {what: "the cluster: one NVSwitch node, nodes on a rail-optimised InfiniBand fat tree, or GB200 NVL72 racks (72 GPUs on one NVLink 5 domain, modelled as one non-blocking switch; racks joined by --inter on a fat tree)"},
		"intra":            {what: "the link inside a node", def: "nvlink4; nvlink5 with --topology nvl72"},
		"inter":            {what: "the network between nodes (a packet-level run with --nodes uses it too)"},
		"nodes":            {what: "the packet-level ring grown over this many nodes (the ranks split evenly)"},
		"oversubscription": {what: "the fat tree's oversubscription, 2 for 2:1 (with --topology fat-tree or nvl72: above the racks)", allowed: "1–64", def: "1 (non-blocking)"},
		"json":             jsonDoc,
	},
}

func runCollective(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(collectiveKnobs, "json")
	fs.float("oversubscription", "1")
	fs.help = collectiveHelp
	if err := fs.parse(args); err != nil {
		return fs.stop(err, stdout, stderr)
	}
	if len(fs.args) > 0 {
		fmt.Fprintf(stderr, "gpuscope collective: unexpected argument %q; allowed flags: %s\n", fs.args[0], fs.allowed())
		return 2
	}
	fabric := fs.value("op") != string(collective.AllReduce) || (fs.value("algo") != string(collective.Ring) && fs.value("algo") != string(collective.Star))
	if n, _ := strconv.Atoi(fs.value("ranks")); n > collective.MaxRanks {
		fabric = true
	}
	for _, f := range fabricFlags {
		if _, ok := fs.vals[f]; ok {
			fabric = true
		}
	}
	// --nodes is the ring lesson grown to several nodes: the packet-level
	// engine, --link inside a node and --inter between nodes.
	if _, ok := fs.vals["nodes"]; ok && onlyPacketFlags(fs) {
		fabric = false
	}
	if fabric {
		return runFabric(fs, stdout, stderr)
	}
	cfg := scenarios.Config{
		"algo":  fs.value("algo"),
		"gpus":  fs.value("ranks"),
		"bytes": fs.value("bytes"),
		"link":  fs.value("link"),
		"nodes": fs.value("nodes"),
		"inter": fs.value("inter"),
	}
	cc, err := scenarios.CollectiveConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope collective: %v\n", err)
		return 2
	}
	cc.Record = false
	res, err := collective.Run(cc)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope collective: %v\n", err)
		return 2
	}
	m := res.Metrics()
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	on := cc.Link.Name
	if cc.Nodes > 1 {
		on += fmt.Sprintf(" inside %d nodes, %s between them", cc.Nodes, cc.Inter.Name)
	}
	fmt.Fprintf(stdout, "%s %s: %d ranks × %s on %s\n", m.Algo, m.Op, m.Ranks, scenarios.FormatBytes(m.Bytes), on)
	fmt.Fprintf(stdout, "  fabric               %s\n", packetFabric(cc))
	fmt.Fprintf(stdout, "  time_s               %.6g  (%s; closed form %s)\n", m.TimeS, units.Duration(m.TimeS), units.Duration(m.ClosedFormTimeS))
	fmt.Fprintf(stdout, "  bytes_sent_per_rank  %d  (%s)\n", m.BytesSentPerRank, scenarios.BytesLabel(m.BytesSentPerRank))
	fmt.Fprintf(stdout, "  algbw_GBps           %.2f\n", m.AlgBWGBps)
	fmt.Fprintf(stdout, "  busbw_GBps           %.2f\n", m.BusBWGBps)
	fmt.Fprintf(stdout, "  rounds               %d\n", m.Rounds)
	return 0
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "gpuscope: %v\n", err)
		return 1
	}
	return 0
}

// FabricMetrics are gpuscope collective's numbers on a cluster's fabric
// (issue 6): the contract's time_s, algbw_GBps, busbw_GBps,
// bytes_sent_per_rank and max_link_utilization, with the configuration.
type FabricMetrics struct {
	Op                 string  `json:"op"`
	Algo               string  `json:"algo"`
	Ranks              int     `json:"ranks"`
	GPUsPerNode        int     `json:"gpus_per_node"`
	Nodes              int     `json:"nodes"`
	Bytes              int64   `json:"bytes"`
	Topology           string  `json:"topology"`
	Oversubscription   float64 `json:"oversubscription"`
	Intra              string  `json:"intra"`
	Inter              string  `json:"inter"`
	TimeS              float64 `json:"time_s"`
	AlgBWGBps          float64 `json:"algbw_GBps"`
	BusBWGBps          float64 `json:"busbw_GBps"`
	BytesSentPerRank   float64 `json:"bytes_sent_per_rank"`
	MaxLinkUtilization float64 `json:"max_link_utilization"`
	ClosedFormTimeS    float64 `json:"closed_form_time_s"`
	LatencyS           float64 `json:"latency_s"`   // the α part of the closed form
	BandwidthS         float64 `json:"bandwidth_s"` // the β part
	Model              string  `json:"model"`       // how time_s was found: "flow" (links shared, contention) or "closed-form"
}

// onlyPacketFlags: the flags given are the packet engine's (op, algo,
// ranks, bytes, link, nodes, inter) and the run fits it.
func onlyPacketFlags(fs *flagSet) bool {
	for name := range fs.vals {
		switch name {
		case "op", "algo", "ranks", "bytes", "link", "nodes", "inter":
		default:
			return false
		}
	}
	n, _ := strconv.Atoi(fs.value("ranks"))
	a := fs.value("algo")
	return fs.value("op") == string(collective.AllReduce) && (a == string(collective.Ring) || a == string(collective.Star)) && n <= collective.MaxRanks
}

func runFabric(fs *flagSet, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gpuscope collective: "+format+"\n", a...)
		return 2
	}
	n, _ := strconv.Atoi(fs.value("ranks"))
	k, _ := strconv.Atoi(fs.value("gpus-per-node"))
	b, _ := strconv.ParseInt(fs.value("bytes"), 10, 64)
	topology := fs.value("topology")
	intra, _ := hw.LinkByID(fs.value("intra"))
	inter, _ := hw.LinkByID(fs.value("inter"))
	if _, ok := fs.vals["intra"]; !ok {
		if l, given := fs.vals["link"]; given && (l == "nvlink3" || l == "nvlink4") {
			intra, _ = hw.LinkByID(l) // the first lesson's --link shorthand
		}
	}
	over := 1.0
	if v, ok := fs.vals["oversubscription"]; ok {
		over, _ = strconv.ParseFloat(v, 64)
		if !(over >= 1 && over <= 64) {
			return fail("--oversubscription: %s; allowed 1–64 (1 = non-blocking, 2 = 2:1)", v)
		}
		if topology == "single-node" {
			return fail("--oversubscription: only with --topology fat-tree or nvl72")
		}
	}
	if topology == "nvl72" {
		// A GB200 NVL72 rack: 72 GPUs on NVLink 5, however many racks.
		if _, given := fs.vals["gpus-per-node"]; given && k != topo.NVL72GPUs {
			return fail("--gpus-per-node: %d with --topology nvl72; a rack holds %d GPUs on one NVLink domain", k, topo.NVL72GPUs)
		}
		k = topo.NVL72GPUs
		_, given := fs.vals["intra"]
		l := fs.vals["link"]
		if !given && l != "nvlink3" && l != "nvlink4" { // no --intra, nor --link's shorthand for it
			intra, _ = hw.LinkByID("nvlink5")
		}
		if intra.ID != "nvlink5" {
			return fail("--intra: %s with --topology nvl72; an NVL72 rack's GPUs are on nvlink5", intra.ID)
		}
	}
	if topology == "single-node" {
		if _, given := fs.vals["gpus-per-node"]; given && k < n {
			return fail("--gpus-per-node: %d with --topology single-node; one node holds all %d ranks", k, n)
		}
		k = n
	}
	op, algo := collective.Op(fs.value("op")), collective.Algo(fs.value("algo"))
	f, err := collective.ClosedForm(op, algo, n, k, float64(b), intra, inter)
	if err != nil {
		return fail("--%v", err)
	}
	m := FabricMetrics{
		Op: string(op), Algo: string(algo), Ranks: n, GPUsPerNode: k, Nodes: (n + k - 1) / k, Bytes: b,
		Topology: topology, Oversubscription: over, Intra: intra.ID, Inter: inter.ID,
		TimeS: f.Seconds, BytesSentPerRank: f.SentPerRank, ClosedFormTimeS: f.Seconds,
		LatencyS: f.Latency, BandwidthS: f.Bandwidth, Model: "closed-form",
	}
	if f.Seconds > 0 {
		m.AlgBWGBps = float64(b) / f.Seconds / 1e9
		m.BusBWGBps = m.AlgBWGBps * collective.BusFactor(op, n)
		// The busiest link sends for the bandwidth part of the time, at its
		// protocol efficiency.
		l := inter
		if m.Nodes == 1 {
			l = intra
		}
		e := l.Efficiency
		if algo == collective.NVLS {
			e *= collective.NVLSEfficiency // relative to a ring's on the link
		}
		m.MaxLinkUtilization = f.Bandwidth / f.Seconds * e
	}
	// On a topology, the algorithms with a flow schedule run as flows
	// sharing links, so contention counts; the others keep the closed form.
	if tp, err := collective.FabricTopology(topology, n, k, intra, inter, over); err == nil {
		if run, err := collective.RunOnFabric(tp, op, algo, n, float64(b)); err == nil && run.Seconds > 0 {
			m.TimeS, m.BytesSentPerRank, m.MaxLinkUtilization, m.Model = run.Seconds, run.SentPerRank, run.MaxUtilization, "flow"
			m.AlgBWGBps = float64(b) / run.Seconds / 1e9
			m.BusBWGBps = m.AlgBWGBps * collective.BusFactor(op, n)
		}
	}
	if fs.bools["json"] {
		return writeJSON(stdout, stderr, m)
	}
	where := fmt.Sprintf("%d nodes of %d", m.Nodes, k)
	switch {
	case topology == "nvl72" && m.Nodes == 1:
		where = "one NVL72 rack"
	case topology == "nvl72":
		where = fmt.Sprintf("%d NVL72 racks", m.Nodes)
	case m.Nodes == 1:
		where = "one node"
	}
	fmt.Fprintf(stdout, "%s %s: %d ranks on %s × %s, %s inside, %s across (%s)\n", m.Algo, m.Op, n, where,
		scenarios.FormatBytes(b), intra.Name, inter.Name, topology)
	fmt.Fprintf(stdout, "  fabric                %s\n", clusterFabric(fs, m, where))
	fmt.Fprintf(stdout, "  time_s                %.6g  (%s: α %s + β %s)\n", m.TimeS, units.Duration(m.TimeS), units.Duration(f.Latency), units.Duration(f.Bandwidth))
	fmt.Fprintf(stdout, "  algbw_GBps            %.2f\n", m.AlgBWGBps)
	fmt.Fprintf(stdout, "  busbw_GBps            %.2f\n", m.BusBWGBps)
	fmt.Fprintf(stdout, "  bytes_sent_per_rank   %.0f  (%s)\n", m.BytesSentPerRank, units.Bytes(m.BytesSentPerRank))
	fmt.Fprintf(stdout, "  max_link_utilization  %.3f\n", m.MaxLinkUtilization)
	fmt.Fprintf(stdout, "  model                 %s (closed form %s)\n", m.Model, units.Duration(m.ClosedFormTimeS))
	return 0
}

// packetFabric says what a packet-level run ran on and why it was that
// run.
func packetFabric(c collective.Config) string {
	on := fmt.Sprintf("all %s ranks on one %s switch", units.Count(int64(c.Ranks)), c.Link.Name)
	if c.Nodes > 1 {
		on = fmt.Sprintf("%d nodes of %s ranks, each on one %s switch, joined by %s", c.Nodes,
			units.Count(int64(c.Ranks/c.Nodes)), c.Link.Name, c.Inter.Name)
	}
	s := fmt.Sprintf("%s, chunk by chunk — the packet-level run: an all-reduce by ring or star on at most %s ranks "+
		"with no fabric flag", on, units.Count(collective.MaxRanks))
	if c.Nodes <= 1 {
		s += "; --gpus-per-node or --topology for nodes on a network"
	}
	return s
}

// clusterFabric says what a run on a cluster ran on (where: its nodes)
// and why it did not run on the packet-level engine.
func clusterFabric(fs *flagSet, m FabricMetrics, where string) string {
	var why []string
	if m.Op != string(collective.AllReduce) {
		why = append(why, "--op "+m.Op+" (the packet-level run does allreduce only)")
	}
	if a := collective.Algo(m.Algo); a != collective.Ring && a != collective.Star {
		why = append(why, "--algo "+m.Algo+" (the packet-level run has ring and star only)")
	}
	if m.Ranks > collective.MaxRanks {
		why = append(why, fmt.Sprintf("%s ranks (the packet-level run takes at most %s)", units.Count(int64(m.Ranks)), units.Count(collective.MaxRanks)))
	}
	var given, defaulted []string
	for _, f := range fabricFlags {
		if _, ok := fs.vals[f]; ok {
			given = append(given, "--"+f)
		}
	}
	if len(given) > 0 {
		why = append(why, strings.Join(given, ", ")+" given")
	}
	if _, ok := fs.vals["topology"]; !ok {
		defaulted = append(defaulted, "--topology "+m.Topology)
	}
	if _, ok := fs.vals["gpus-per-node"]; !ok && m.Topology == "fat-tree" {
		defaulted = append(defaulted, fmt.Sprintf("--gpus-per-node %d", m.GPUsPerNode))
	}
	on := where
	switch {
	case m.Topology == "single-node":
		on += " (one NVSwitch)"
	case m.Nodes > 1:
		on += " joined by a fat tree"
	}
	run := "as flows sharing its links"
	if m.Model != "flow" {
		run = "by the closed form"
	}
	s := fmt.Sprintf("%s, %s — a cluster run, for %s", on, run, strings.Join(why, "; "))
	if len(defaulted) > 0 {
		s += "; " + strings.Join(defaulted, " and ") + " by default"
	}
	return s
}
