package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/sim"
)

// Lesson is a scenario prepared for one configuration: every step's engine
// run, recorded, with the step's window on the trace. It is what the page
// plays and what `gpuscope scenario run` prints.
type Lesson struct {
	Scenario *Scenario
	Config   Config
	Steps    []StepRun
	// Compare holds the ring and star runs for the configuration, so both
	// sets of numbers can be shown whatever the step.
	Compare map[collective.Algo]*collective.Result
	// Sweep is the time of both algorithms over the range of GPU counts
	// (powers of two, and the configured count), the same vector and link.
	Sweep []SweepPoint
}

// SweepPoint is one GPU count of a lesson's sweep.
type SweepPoint struct {
	Ranks     int     `json:"ranks"`
	RingTimeS float64 `json:"ring_time_s"`
	StarTimeS float64 `json:"star_time_s"`
}

// StepRun is one step of a prepared lesson.
type StepRun struct {
	Step     Step
	Config   Config // the lesson's configuration with the step's set: lines applied
	Result   *collective.Result
	From, To sim.Time // the window the step plays, on Result's time line
}

// Metrics are the numbers a page shows for a step: the step's own run under
// the CLI's JSON names, the ring and star runs side by side, and the sweep
// over GPU counts.
type Metrics struct {
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
	return c, c.Validate()
}

// Prepare runs the engine for every step of s under cfg. Runs that share a
// configuration are shared. It returns an error, not a panic, for a
// configuration the engine rejects.
func Prepare(s *Scenario, cfg Config) (*Lesson, error) {
	if s.Engine != "collective" {
		return nil, fmt.Errorf("scenario %s: engine %q has no runner", s.ID, s.Engine)
	}
	les := &Lesson{Scenario: s, Config: cfg.Clone(), Compare: map[collective.Algo]*collective.Result{}}
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
		les.Compare[algo] = r
	}
	sweep, err := sweepRanks(s, cfg)
	if err != nil {
		return nil, err
	}
	les.Sweep = sweep
	for i, st := range s.Steps {
		c := s.StepConfig(cfg, i+1)
		r, err := run(c)
		if err != nil {
			return nil, err
		}
		from, ok1 := r.Mark(st.From)
		to, ok2 := r.Mark(st.To)
		if !ok1 || !ok2 {
			// A mark this run lacks (say round:5 with 2 GPUs) clamps to
			// the whole run rather than failing the lesson.
			from, to = 0, r.Time
		}
		if to < from {
			to = from
		}
		les.Steps = append(les.Steps, StepRun{Step: st, Config: c, Result: r, From: from, To: to})
	}
	return les, nil
}

// Metrics returns the numbers shown during step (1-based).
func (les *Lesson) Metrics(step int) Metrics {
	if step < 1 || step > len(les.Steps) {
		step = 1
	}
	return Metrics{
		Metrics: les.Steps[step-1].Result.Metrics(),
		Ring:    les.Compare[collective.Ring].Metrics(),
		Star:    les.Compare[collective.Star].Metrics(),
		Sweep:   les.Sweep,
	}
}

// NarrationArgs are the numbers a step's narration may quote, by
// placeholder name, formatted for reading.
func (les *Lesson) NarrationArgs() []string {
	ring := les.Compare[collective.Ring].Metrics()
	star := les.Compare[collective.Star].Metrics()
	return []string{
		"gpus", strconv.Itoa(ring.Ranks),
		"bytes", HumanBytes(ring.Bytes),
		"chunks", strconv.Itoa(ring.Ranks),
		"rounds", strconv.Itoa(ring.Rounds),
		"time_ring", sim.FromSeconds(ring.TimeS).String(),
		"time_star", sim.FromSeconds(star.TimeS).String(),
		"sent_ring", HumanBytes(ring.BytesSentPerRank),
		"sent_star", HumanBytes(star.BytesSentPerRank),
		"busbw_ring", strconv.FormatFloat(ring.BusBWGBps, 'f', 1, 64) + " GB/s",
	}
}

// Equal reports whether two configurations hold the same values.
func (c Config) Equal(d Config) bool { return maps.Equal(c, d) }

// HumanBytes formats a size for reading, in binary units with three
// significant digits: "256 MiB", "1.75 GiB", "460 MiB", "12 KiB", "900 B".
func HumanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	u := 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	prec := 0
	switch {
	case u == 0 || v >= 100:
	case v >= 10:
		prec = 1
	default:
		prec = 2
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + " " + units[u]
}

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
	for _, n := range ns {
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
