package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/topo"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The infrastructure lessons on links and collectives at scale (issue 6)
// are of the kind fabric: a step is a transfer or a collective on a
// cluster, costed by engine/collective's closed forms.

// Fabric views.
const (
	ViewRace  = "race"  // one transfer on NVLink and on InfiniBand
	ViewSizes = "sizes" // time against message size for ring, tree, hierarchical
	// ViewContention races an all-to-all over ContentionGPUs GPUs, one a
	// node on four leaves, on a non-blocking fat tree and on a 2:1 one.
	ViewContention = "contention"
)

var fabricViews = []string{ViewRace, ViewSizes, ViewContention, ViewRack, ViewCeiling}

// contentionCache holds the contention step's runs by bytes and links.
var contentionCache sync.Map

type contentionKey struct {
	bytes        float64
	intra, inter string
}

// ContentionGPUs is the contention step's cluster: 128 nodes of one GPU,
// four leaves of 32, so three quarters of an all-to-all crosses the spine.
const ContentionGPUs = 128

// FabricAlgos are the all-reduce algorithms the size chart compares.
var FabricAlgos = []collective.Algo{collective.Ring, collective.Tree, collective.Hierarchical}

// SizePoint is one message size's times by algorithm.
type SizePoint struct {
	Bytes   float64            `json:"bytes"`
	Seconds map[string]float64 `json:"seconds"`
}

// FabricRun is a fabric step.
type FabricRun struct {
	View         string
	Bytes        float64
	Ranks        int
	GPUsPerNode  int
	Intra, Inter hw.Link
	// Race: the same transfer on each link, seconds.
	IntraS, InterS float64
	// Sizes: every algorithm at the step's size, and the sweep.
	Forms     map[collective.Algo]collective.Form
	Sweep     []SizePoint
	Crossover float64 // bytes where tree and ring take the same time (0: none)
	// Crossings are where two algorithms' curves cross inside the sweep,
	// found on the closed forms (the tree–ring one is Crossover): the
	// sizes the chart marks, the narration's numbers.
	Crossings []Crossing
	// Contention: the all-to-all's time and busiest link on a 1:1 and a
	// 2:1 fat tree, and each fat tree's links with their loads.
	Contention [2]collective.FabricResult
	Trees      [2]FatTreeLoads
	// Rack and ceiling: the rack-scale-nvlink lesson's runs.
	Rack *RackRun
	end  sim.Time
	zoom *FabricZoom // the zoom's collective, laid out on first use (zoom_fabric.go)
}

// Crossing is a message size at which algorithms A and B take the same
// time.
type Crossing struct {
	A, B  collective.Algo
	Bytes float64
}

// crossings are the sizes at which two of FabricAlgos' all-reduces take
// the same time, inside the sweep: each between the two samples where
// their order flips, by bisection on the closed forms; the tree–ring
// crossing is collective.Crossover's, the narration's {crossover}.
func crossings(r *FabricRun, n, k int) []Crossing {
	var out []Crossing
	for i, a := range FabricAlgos {
		for _, b := range FabricAlgos[i+1:] {
			diff := func(s float64) float64 {
				fa, err1 := collective.ClosedForm(collective.AllReduce, a, n, k, s, r.Intra, r.Inter)
				fb, err2 := collective.ClosedForm(collective.AllReduce, b, n, k, s, r.Intra, r.Inter)
				if err1 != nil || err2 != nil {
					return 0
				}
				return fa.Seconds - fb.Seconds
			}
			last, lastSign := 0.0, 0
			for _, p := range r.Sweep {
				d := p.Seconds[string(a)] - p.Seconds[string(b)]
				sign := 0
				if d > 0 {
					sign = 1
				} else if d < 0 {
					sign = -1
				}
				if sign == 0 {
					continue // equal here: no order to flip (coinciding curves stay so)
				}
				if lastSign != 0 && sign != lastSign {
					out = append(out, Crossing{A: a, B: b, Bytes: crossBetween(r, a, b, last, p.Bytes, diff)})
				}
				last, lastSign = p.Bytes, sign
			}
		}
	}
	return out
}

// crossBetween is where diff changes sign between lo and hi (bytes): the
// tree–ring crossover when it lies there, else by bisection.
func crossBetween(r *FabricRun, a, b collective.Algo, lo, hi float64, diff func(float64) float64) float64 {
	pair := [2]collective.Algo{a, b}
	if (pair == [2]collective.Algo{collective.Ring, collective.Tree} || pair == [2]collective.Algo{collective.Tree, collective.Ring}) &&
		r.Crossover >= lo && r.Crossover <= hi {
		return r.Crossover
	}
	below := diff(lo) < 0
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if (diff(mid) < 0) == below {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// FatTreeLoads is a fat tree's shape and how busy each of its network
// links was during a run.
type FatTreeLoads struct {
	Leaves, Spines, NodesPerLeaf int
	Oversubscription             float64
	Links                        []LinkLoad // NIC and leaf–spine links, both directions
}

// LinkLoad is one directed network link of a fat tree: a GPU's NIC to or
// from its leaf (Spine −1), or a leaf to or from a spine (GPU −1); its
// bandwidth in bytes/s and the share of the run it was busy.
type LinkLoad struct {
	Up               bool
	GPU, Leaf, Spine int
	Bandwidth, Busy  float64
}

// fatTreeLoads reads a run's link bytes on t as loads.
func fatTreeLoads(t *topo.Topology, res collective.FabricResult) FatTreeLoads {
	out := FatTreeLoads{Leaves: t.Leaves(), Spines: t.Spines(), Oversubscription: t.Oversubscription()}
	if lr := t.LeavesPerRail(); lr > 0 {
		out.NodesPerLeaf = (t.Nodes() + lr - 1) / lr
	}
	for _, l := range t.Links() {
		if l.Kind != topo.KindNIC && l.Kind != topo.KindLeafSpine {
			continue
		}
		busy := 0.0
		if int(l.ID) < len(res.LinkBytes) && res.Seconds > 0 && l.Bandwidth > 0 {
			busy = math.Min(1, res.LinkBytes[l.ID]/(l.Bandwidth*res.Seconds))
		}
		out.Links = append(out.Links, LinkLoad{Up: l.Up, GPU: l.GPU, Leaf: l.Leaf, Spine: l.Spine, Bandwidth: l.Bandwidth, Busy: busy})
	}
	return out
}

// End is the race's slowest lane, or a second.
func (r *FabricRun) End() sim.Time { return r.end }

// Mark knows start and end.
func (r *FabricRun) Mark(name string) (sim.Time, bool) { return startEnd(name, r.end) }

// Fastest is the algorithm with the least time at the step's size.
func (r *FabricRun) Fastest() collective.Algo {
	best := collective.Algo("")
	for _, a := range FabricAlgos {
		f, ok := r.Forms[a]
		if ok && (best == "" || f.Seconds < r.Forms[best].Seconds) {
			best = a
		}
	}
	return best
}

func fabricRun(st Step, c Config) (*FabricRun, error) {
	get := func(name, def string) string {
		if v, ok := c[name]; ok && v != "" {
			return v
		}
		return def
	}
	intra, ok := hw.LinkByID(get("intra", "nvlink4"))
	if !ok {
		return nil, fmt.Errorf("intra: %q; allowed %s", c["intra"], strings.Join(hw.LinkIDs(), ", "))
	}
	inter, ok := hw.LinkByID(get("inter", "ib-ndr"))
	if !ok {
		return nil, fmt.Errorf("inter: %q; allowed %s", c["inter"], strings.Join(hw.LinkIDs(), ", "))
	}
	n, _ := strconv.Atoi(get("ranks", "1024"))
	k, _ := strconv.Atoi(get("gpus_per_node", "8"))
	r := &FabricRun{View: ViewSizes, Bytes: float64(c.Int("bytes")), Ranks: n, GPUsPerNode: k, Intra: intra, Inter: inter,
		Forms: map[collective.Algo]collective.Form{}, end: sim.Second}
	for _, v := range st.Show {
		if slices.Contains(fabricViews, v) {
			r.View = v
			break
		}
	}
	if r.Bytes <= 0 {
		return nil, fmt.Errorf("bytes: %g; at least 1", r.Bytes)
	}
	// The race: a point-to-point transfer, α + S/B on each link at its
	// protocol efficiency (gpuscope collective's two-rank broadcast).
	for _, lane := range []struct {
		dst *float64
		k   int // 2 GPUs a node: NVLink; 1: InfiniBand
	}{{&r.IntraS, 2}, {&r.InterS, 1}} {
		f, err := collective.ClosedForm(collective.Broadcast, collective.Ring, 2, lane.k, r.Bytes, intra, inter)
		if err != nil {
			return nil, err
		}
		*lane.dst = f.Seconds
	}
	if r.View == ViewRack || r.View == ViewCeiling {
		return rackRun(r, c)
	}
	if r.View == ViewRace {
		r.end = sim.FromSeconds(max(r.IntraS, r.InterS))
		return r, nil
	}
	if r.View == ViewContention {
		// Two flow runs of 16,256 flows each: they depend on the bytes and
		// the links alone, so a change of any other knob reuses them.
		key := contentionKey{r.Bytes, intra.ID, inter.ID}
		type cached struct {
			res   [2]collective.FabricResult
			trees [2]FatTreeLoads
		}
		if c, ok := contentionCache.Load(key); ok {
			r.Contention, r.Trees = c.(cached).res, c.(cached).trees
			r.end = sim.FromSeconds(r.Contention[1].Seconds)
			return r, nil
		}
		defer func() {
			if r.Contention[1].Seconds > 0 {
				contentionCache.Store(key, cached{r.Contention, r.Trees})
			}
		}()
		for i, over := range []float64{1, 2} {
			tp, err := collective.FabricTopology("fat-tree", ContentionGPUs, 1, intra, inter, over)
			if err != nil {
				return nil, err
			}
			res, err := collective.RunOnFabric(tp, collective.AllToAll, collective.Ring, ContentionGPUs, r.Bytes)
			if err != nil {
				return nil, err
			}
			r.Contention[i] = res
			r.Trees[i] = fatTreeLoads(tp, res)
		}
		r.end = sim.FromSeconds(r.Contention[1].Seconds)
		return r, nil
	}
	for _, a := range FabricAlgos {
		f, err := collective.ClosedForm(collective.AllReduce, a, n, k, r.Bytes, intra, inter)
		if err != nil {
			return nil, err
		}
		r.Forms[a] = f
	}
	for e := 3.0; e <= 10.5; e += 0.25 { // 1 KB … 16 GB
		b := math.Pow(10, e)
		p := SizePoint{Bytes: b, Seconds: map[string]float64{}}
		for _, a := range FabricAlgos {
			f, _ := collective.ClosedForm(collective.AllReduce, a, n, k, b, intra, inter)
			p.Seconds[string(a)] = f.Seconds
		}
		r.Sweep = append(r.Sweep, p)
	}
	r.Crossover = collective.Crossover(n, k, intra, inter)
	r.Crossings = crossings(r, n, k)
	return r, nil
}

// FabricLesson is the fabric lessons' engine part.
type FabricLesson struct{}

var prepareFabric = func(s *Scenario, cfg Config) (*Lesson, error) {
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: FabricLesson{}}
	if err := les.stepWindowsOf(func(st Step, c Config) (Run, error) { return fabricRun(st, c) }); err != nil {
		return nil, err
	}
	return les, nil
}

// FabricMetrics are a fabric step's numbers: the race's two times and
// their ratio, or every algorithm's all-reduce at the step's size (under
// gpuscope collective's names) with the sweep and the crossover.
type FabricMetrics struct {
	Bytes       float64 `json:"bytes"`
	Ranks       int     `json:"ranks"`
	GPUsPerNode int     `json:"gpus_per_node"`
	Intra       string  `json:"intra"`
	Inter       string  `json:"inter"`
	// The race.
	IntraTimeS     float64 `json:"intra_time_s"`
	InterTimeS     float64 `json:"inter_time_s"`
	Slowdown       float64 `json:"slowdown"`        // inter ÷ intra for this transfer
	BandwidthRatio float64 `json:"bandwidth_ratio"` // NVLink both ways ÷ the NIC one way, the seed's 18×
	// Contention: an all-to-all on a non-blocking and a 2:1 fat tree.
	AllToAllNonBlockingS float64 `json:"alltoall_1to1_s,omitempty"`
	AllToAllOversubS     float64 `json:"alltoall_2to1_s,omitempty"`
	MaxLinkUtilization   float64 `json:"max_link_utilization,omitempty"`
	// Rack-scale NVLink: the NVLink 5 system against nine H100 nodes.
	*RackMetrics
	// The collectives.
	Algos      map[string]FabricAlgo `json:"algos,omitempty"`
	Fastest    string                `json:"fastest,omitempty"`
	CrossoverB float64               `json:"crossover_bytes,omitempty"`
	Sweep      []SizePoint           `json:"sweep,omitempty"`
	// Command prints the step's numbers natively (the race's network
	// lane); CommandIntra the race's NVLink lane.
	Command      string `json:"command"`
	CommandIntra string `json:"command_intra,omitempty"`
}

// FabricAlgo is one algorithm's all-reduce.
type FabricAlgo struct {
	TimeS            float64 `json:"time_s"`
	AlgBWGBps        float64 `json:"algbw_GBps"`
	BusBWGBps        float64 `json:"busbw_GBps"`
	BytesSentPerRank float64 `json:"bytes_sent_per_rank"`
}

func (FabricLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*FabricRun)
	m := FabricMetrics{Bytes: r.Bytes, Ranks: r.Ranks, GPUsPerNode: r.GPUsPerNode, Intra: r.Intra.ID, Inter: r.Inter.ID,
		IntraTimeS: r.IntraS, InterTimeS: r.InterS, BandwidthRatio: 2 * r.Intra.Bandwidth / r.Inter.Bandwidth}
	if r.IntraS > 0 {
		m.Slowdown = r.InterS / r.IntraS
	}
	if r.Rack != nil {
		rackMetrics(r, &m)
		return m
	}
	if r.View == ViewContention {
		m.AllToAllNonBlockingS, m.AllToAllOversubS = r.Contention[0].Seconds, r.Contention[1].Seconds
		m.MaxLinkUtilization = r.Contention[1].MaxUtilization
		m.Ranks, m.GPUsPerNode = ContentionGPUs, 1
		m.Command = fmt.Sprintf("gpuscope collective --op alltoall --ranks %d --gpus-per-node 1 --bytes %.0f --topology fat-tree --oversubscription 2 --inter %s --json", ContentionGPUs, r.Bytes, r.Inter.ID)
		return m
	}
	if r.View == ViewSizes {
		m.Algos = map[string]FabricAlgo{}
		for a, f := range r.Forms {
			fa := FabricAlgo{TimeS: f.Seconds, BytesSentPerRank: f.SentPerRank}
			if f.Seconds > 0 {
				fa.AlgBWGBps = r.Bytes / f.Seconds / 1e9
				fa.BusBWGBps = fa.AlgBWGBps * collective.BusFactor(collective.AllReduce, r.Ranks)
			}
			m.Algos[string(a)] = fa
		}
		m.Fastest = string(r.Fastest())
		m.CrossoverB = r.Crossover
		m.Sweep = r.Sweep
		m.Command = fmt.Sprintf("gpuscope collective --op allreduce --algo %s --ranks %d --gpus-per-node %d --bytes %.0f --intra %s --inter %s --json",
			m.Fastest, r.Ranks, r.GPUsPerNode, r.Bytes, r.Intra.ID, r.Inter.ID)
	} else {
		m.Command = fmt.Sprintf("gpuscope collective --op broadcast --algo ring --ranks 2 --gpus-per-node 1 --bytes %.0f --inter %s --json", r.Bytes, r.Inter.ID)
		m.CommandIntra = fmt.Sprintf("gpuscope collective --op broadcast --algo ring --ranks 2 --gpus-per-node 2 --bytes %.0f --intra %s --json", r.Bytes, r.Intra.ID)
	}
	return m
}

func fabricNarration(r *FabricRun, lang string) []string {
	x := func(v float64) string { return units.Ratio(lang, v) }
	dur := localDuration(lang)
	out := []string{
		"bytes", units.Bytes(r.Bytes),
		"intra", linkName(lang, r.Intra), "inter", linkName(lang, r.Inter),
		"intra_bw", units.Rate(r.Intra.Bandwidth),
		"intra_bw2", units.Rate(2 * r.Intra.Bandwidth),
		"inter_bw", units.Rate(r.Inter.Bandwidth),
		"intra_lat", dur(r.Intra.Latency.Seconds()), "inter_lat", dur(r.Inter.Latency.Seconds()),
		"intra_time", dur(r.IntraS), "inter_time", dur(r.InterS),
		"slowdown", x(r.InterS / r.IntraS), "ratio", x(2 * r.Intra.Bandwidth / r.Inter.Bandwidth),
		"ranks", units.Count(int64(r.Ranks)), "gpus_per_node", strconv.Itoa(r.GPUsPerNode),
		"nodes", count((r.Ranks + r.GPUsPerNode - 1) / r.GPUsPerNode),
		"crossover", units.Bytes(r.Crossover),
		"a2a_1", dur(r.Contention[0].Seconds), "a2a_2", dur(r.Contention[1].Seconds),
		"contention_gpus", strconv.Itoa(ContentionGPUs),
	}
	if r.Rack != nil {
		out = rackNarration(r, lang, out)
	}
	if r.Contention[0].Seconds > 0 {
		out = append(out, "a2a_ratio", x(r.Contention[1].Seconds/r.Contention[0].Seconds))
	}
	for _, a := range FabricAlgos {
		if f, ok := r.Forms[a]; ok {
			out = append(out, "t_"+string(a), dur(f.Seconds))
		}
	}
	if f := r.Fastest(); f != "" {
		out = append(out, "fastest", i18n.T(lang, "algo."+string(f)))
	}
	return out
}

func (FabricLesson) narration(les *Lesson, step int, lang string) []string {
	return fabricNarration(les.Steps[step-1].Run.(*FabricRun), lang)
}

func (FabricLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*FabricRun)
	dur := localDuration(lang)
	row := func(key string, cells ...string) TableRow {
		src := ""
		if i18n.Has(i18n.Fallback, "source.fabric."+key) {
			src = t("source.fabric." + key)
		}
		return TableRow{Key: key, Label: t("metric." + key), Cells: cells, Source: src}
	}
	if r.View == ViewRace {
		return Table{Columns: []string{t("ui.metric"), linkName(lang, r.Intra), linkName(lang, r.Inter)}, ColumnKeys: []string{"intra", "inter"}, Current: "intra",
			Rows: []TableRow{
				row("bandwidth_each_way", units.Rate(r.Intra.Bandwidth), units.Rate(r.Inter.Bandwidth)),
				row("latency", dur(r.Intra.Latency.Seconds()), dur(r.Inter.Latency.Seconds())),
				row("transfer_time", dur(r.IntraS), dur(r.InterS)),
			}}
	}
	if r.Rack != nil {
		return rackTable(r, lang)
	}
	if r.View == ViewContention {
		c := r.Contention
		return Table{Columns: []string{t("ui.metric"), "1:1", "2:1"}, ColumnKeys: []string{"1to1", "2to1"}, Current: "2to1",
			Rows: []TableRow{
				row("time_s", dur(c[0].Seconds), dur(c[1].Seconds)),
				row("max_link_utilization", units.Percent(c[0].MaxUtilization), units.Percent(c[1].MaxUtilization)),
			}}
	}
	tb := Table{Columns: []string{t("ui.metric")}, Current: string(r.Fastest())}
	var times, busbw, sent []string
	for _, a := range FabricAlgos {
		f := r.Forms[a]
		tb.Columns = append(tb.Columns, t("algo."+string(a)))
		tb.ColumnKeys = append(tb.ColumnKeys, string(a))
		times = append(times, dur(f.Seconds))
		bw := 0.0
		if f.Seconds > 0 {
			bw = r.Bytes / f.Seconds * collective.BusFactor(collective.AllReduce, r.Ranks)
		}
		busbw = append(busbw, units.Rate(bw))
		sent = append(sent, units.Bytes(f.SentPerRank))
	}
	tb.Rows = []TableRow{row("time_s", times...), row("busbw_GBps", busbw...), row("bytes_sent_per_rank", sent...)}
	return tb
}

func (FabricLesson) live(*Lesson, int, sim.Time, string) string { return "" }
