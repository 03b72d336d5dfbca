package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// CollectiveLesson is what a collective lesson adds to its steps: the ring
// and star runs for the configuration, so both sets of numbers can be shown
// whatever the step, and both times over the range of GPU counts.
type CollectiveLesson struct {
	Compare map[collective.Algo]*collective.Result
	sweep   []SweepPoint
	swept   func() ([]SweepPoint, error)
}

// Sweep is both algorithms' time over the range of GPU counts, computed
// on first use (the lesson opens without it: it costs a dozen runs).
func (cl *CollectiveLesson) Sweep() []SweepPoint {
	if cl.sweep == nil && cl.swept != nil {
		cl.sweep, _ = cl.swept()
		cl.swept = nil
	}
	return cl.sweep
}

// Collective returns the collective part of a lesson; ok is false for a
// lesson of another engine.
func (les *Lesson) Collective() (*CollectiveLesson, bool) {
	c, ok := les.engine.(*CollectiveLesson)
	return c, ok
}

// SweepPoint is one GPU count of a lesson's sweep.
type SweepPoint struct {
	Ranks     int     `json:"ranks"`
	RingTimeS float64 `json:"ring_time_s"`
	StarTimeS float64 `json:"star_time_s"`
}

// CollectiveMetrics are the numbers a page shows for a step of a
// collective lesson: the step's own run under the CLI's JSON names, the
// ring and star runs side by side, and the sweep over GPU counts.
type CollectiveMetrics struct {
	collective.Metrics
	Ring  collective.Metrics `json:"ring"`
	Star  collective.Metrics `json:"star"`
	Sweep []SweepPoint       `json:"sweep"`
}

// CollectiveConfig maps a collective lesson's knobs onto the engine.
func CollectiveConfig(cfg Config) (collective.Config, error) {
	l, ok := hw.LinkByID(cfg["link"])
	if !ok {
		return collective.Config{}, fmt.Errorf("link: %q is not in the catalog", cfg["link"])
	}
	c := collective.Config{
		Op:     collective.AllReduce,
		Algo:   collective.Algo(cfg["algo"]),
		Ranks:  int(cfg.Int("gpus")),
		Bytes:  cfg.Int("bytes"),
		Link:   l,
		Record: true,
	}
	// Grown to several nodes: the link knob is inside a node, InfiniBand
	// NDR (or the inter knob) between them.
	if nodes := int(cfg.Int("nodes")); nodes > 1 {
		inter := cfg["inter"]
		if inter == "" {
			inter = "ib-ndr"
		}
		c.Nodes = nodes
		c.Inter, _ = hw.LinkByID(inter)
	}
	return c, c.Validate()
}

// prepareCollective runs a collective lesson: the ring and the star for
// the configuration, the sweep, and every step's run (runs that share a
// configuration are shared).
func prepareCollective(s *Scenario, cfg Config) (*Lesson, error) {
	cl := &CollectiveLesson{Compare: map[collective.Algo]*collective.Result{}}
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: cl}
	cache := map[collective.Config]*collective.Result{}
	run := func(c Config) (*collective.Result, error) {
		cc, err := CollectiveConfig(c)
		if err != nil {
			return nil, err
		}
		if r, ok := cache[cc]; ok {
			return r, nil
		}
		r, err := collective.Run(cc)
		if err != nil {
			return nil, err
		}
		cache[cc] = r
		return r, nil
	}
	for _, algo := range []collective.Algo{collective.Ring, collective.Star} {
		c := cfg.Clone()
		c["algo"] = string(algo)
		r, err := run(c)
		if err != nil {
			return nil, err
		}
		cl.Compare[algo] = r
	}
	cfgCopy := cfg.Clone()
	cl.swept = func() ([]SweepPoint, error) { return sweepRanks(s, cfgCopy) }
	if err := les.stepWindows(func(c Config) (Run, error) { return run(c) }); err != nil {
		return nil, err
	}
	return les, nil
}

func (cl *CollectiveLesson) metrics(les *Lesson, step int) any {
	return CollectiveMetrics{
		Metrics: les.Steps[step-1].Run.(*collective.Result).Metrics(),
		Ring:    cl.Compare[collective.Ring].Metrics(),
		Star:    cl.Compare[collective.Star].Metrics(),
		Sweep:   cl.Sweep(),
	}
}

func (cl *CollectiveLesson) narration(les *Lesson, _ int, lang string) []string {
	ring := cl.Compare[collective.Ring].Metrics()
	star := cl.Compare[collective.Star].Metrics()
	return []string{
		"gpus", count(ring.Ranks),
		"bytes", units.BytesIEC(float64(ring.Bytes)),
		"chunks", strconv.Itoa(ring.Ranks),
		"rounds", strconv.Itoa(ring.Rounds),
		"time_ring", units.LocalDuration(lang, ring.TimeS),
		"time_star", units.LocalDuration(lang, star.TimeS),
		"sent_ring", units.BytesIEC(float64(ring.BytesSentPerRank)),
		"sent_star", units.BytesIEC(float64(star.BytesSentPerRank)),
		"busbw_ring", units.Rate(ring.BusBWGBps * 1e9),
	}
}

// table is ring and star side by side, the step's algorithm marked, each
// quantity with where it comes from.
func (cl *CollectiveLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	ring := cl.Compare[collective.Ring].Metrics()
	star := cl.Compare[collective.Star].Metrics()
	secs := localDuration(lang)
	gb := func(v float64) string { return units.Rate(v * 1e9) }
	both := func(r, s string) string { return i18n.T(lang, "source.ring_star", "ring", r, "star", s) }
	row := func(key, r, s, src string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{r, s}, Source: src}
	}
	return Table{
		Columns:    []string{t("ui.metric"), t("metric.ring"), t("metric.star")},
		ColumnKeys: []string{string(collective.Ring), string(collective.Star)},
		Current:    string(les.Steps[step-1].Run.(*collective.Result).Config.Algo),
		Rows: []TableRow{
			row("time_s", secs(ring.TimeS), secs(star.TimeS), both(t("source.ring.time_s"), t("source.star.time_s"))),
			row("closed_form_time_s", secs(ring.ClosedFormTimeS), secs(star.ClosedFormTimeS), ""),
			row("bytes_sent_per_rank", units.BytesIEC(float64(ring.BytesSentPerRank)), units.BytesIEC(float64(star.BytesSentPerRank)), both(t("source.ring.bytes_sent_per_rank"), t("source.star.bytes_sent_per_rank"))),
			row("algbw_GBps", gb(ring.AlgBWGBps), gb(star.AlgBWGBps), t("source.algbw")),
			row("busbw_GBps", gb(ring.BusBWGBps), gb(star.BusBWGBps), t("source.busbw")),
			row("rounds", strconv.Itoa(ring.Rounds), strconv.Itoa(star.Rounds), ""),
		},
	}
}

// live is the elapsed time and the bytes the busiest GPU has sent so far.
func (cl *CollectiveLesson) live(les *Lesson, step int, t sim.Time, lang string) string {
	res := les.Steps[step-1].Run.(*collective.Result)
	var sent int64
	for _, b := range res.Snapshot(t).Sent {
		sent = max(sent, b)
	}
	return i18n.T(lang, "ui.live", "t", units.LocalDuration(lang, t.Seconds()), "sent", units.BytesIEC(float64(sent)))
}

// Equal reports whether two configurations hold the same values.
func (c Config) Equal(d Config) bool { return maps.Equal(c, d) }

// sweepRanks times ring and star for every power of two within the gpus
// knob's range, and for the configured count, on the engine (not the
// closed form), without recording traces.
func sweepRanks(s *Scenario, cfg Config) ([]SweepPoint, error) {
	k, ok := s.Knob("gpus")
	if !ok {
		return nil, nil
	}
	cur := int(cfg.Int("gpus"))
	var ns []int
	for n := 1; n <= int(k.Max); n *= 2 {
		if n >= int(k.Min) {
			ns = append(ns, n)
		}
	}
	if !slices.Contains(ns, cur) {
		ns = append(ns, cur)
		slices.Sort(ns)
	}
	var pts []SweepPoint
	nodes := max(1, int(cfg.Int("nodes")))
	for _, n := range ns {
		if n%nodes != 0 || n < 2*nodes && nodes > 1 {
			continue // a node count that does not split n GPUs evenly
		}
		p := SweepPoint{Ranks: n}
		for _, algo := range []collective.Algo{collective.Ring, collective.Star} {
			c := cfg.Clone()
			c["gpus"], c["algo"] = strconv.Itoa(n), string(algo)
			cc, err := CollectiveConfig(c)
			if err != nil {
				return nil, err
			}
			cc.Record = false
			res, err := collective.Run(cc)
			if err != nil {
				return nil, err
			}
			if algo == collective.Ring {
				p.RingTimeS = res.Time.Seconds()
			} else {
				p.StarTimeS = res.Time.Seconds()
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}
