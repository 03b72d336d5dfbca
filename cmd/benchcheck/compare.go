package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
)

// Baseline is bench/baseline.json: the recorded figures a run is compared
// with, and where and when they were recorded.
type Baseline struct {
	Recorded Machine `json:"recorded"`
	// Tolerance is how much worse than recorded a figure may get before
	// it is a regression, as a fraction (0.10: 10%).
	Tolerance float64          `json:"tolerance"`
	Figures   map[string]Entry `json:"figures"`
}

// Entry is one recorded figure, keyed in Baseline.Figures by "NAME UNIT".
type Entry struct {
	Value         float64 `json:"value"`
	Unit          string  `json:"unit"`
	LowerIsBetter bool    `json:"lower_is_better"`
	// Runs and Spread say how many samples the median came from and
	// how far apart they were ((max − min) ÷ median): the noise.
	Runs   int     `json:"runs,omitempty"`
	Spread float64 `json:"spread,omitempty"`
}

// Machine is where and when figures were recorded.
type Machine struct {
	Date     string `json:"date"`
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	Go       string `json:"go"`
	Chromium string `json:"chromium,omitempty"`
	Node     string `json:"node,omitempty"`
	// LoadWhenWritten is /proc/loadavg as the baseline was written (after
	// the benchmarks, so only a hint of how busy the machine was).
	LoadWhenWritten string `json:"load_when_written,omitempty"`
}

func loadBaseline(path string) (Baseline, error) {
	var b Baseline
	data, err := os.ReadFile(path)
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%s: %v", path, err)
	}
	return b, nil
}

func (b Baseline) write(path string) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// NewBaseline records figs as measured on m: exactly this run's figures
// (one it did not measure, brotli's without the brotli command, drops out
// and later runs show it as new).
func NewBaseline(figs []Figure, m Machine, tol float64) Baseline {
	b := Baseline{Recorded: m, Tolerance: tol, Figures: map[string]Entry{}}
	for _, f := range figs {
		b.Figures[f.Key()] = Entry{Value: roundSig(f.Value, 6), Unit: f.Unit, LowerIsBetter: LowerIsBetter(f.Unit), Runs: len(f.Samples), Spread: round(f.Spread(), 3)}
	}
	return b
}

// Status is how a figure compares with the baseline.
type Status string

const (
	OK         Status = "ok"
	Better     Status = "better"     // improved by more than the tolerance
	Regression Status = "REGRESSION" // worse by more than the tolerance
	New        Status = "new"        // not in the baseline
	Missing    Status = "missing"    // in the baseline, not measured now
	NoBase     Status = "no base"    // the recorded value is 0: no ratio
)

// Row is one figure's comparison.
type Row struct {
	Key           string
	Unit          string
	Base, Now     float64
	HasBase       bool
	HasNow        bool
	Change        float64 // (now − base) ÷ base
	LowerIsBetter bool
	Status        Status
	Spread        float64 // of this run's samples
}

// Compare sets each figure of the run against the baseline. A figure is a
// regression when it is worse than recorded by more than tol: above
// base × (1 + tol) for a lower-is-better figure, below base × (1 − tol)
// for a higher-is-better one. Exactly tol worse is still ok. Rows come in
// the run's order, then the baseline's figures the run did not measure.
// Changes under 64 B/op or one allocation per op never count (minDelta).
func Compare(base Baseline, figs []Figure, tol float64) []Row {
	var rows []Row
	seen := map[string]bool{}
	for _, f := range figs {
		k := f.Key()
		seen[k] = true
		r := Row{Key: k, Unit: f.Unit, Now: f.Value, HasNow: true, LowerIsBetter: LowerIsBetter(f.Unit), Spread: f.Spread()}
		e, ok := base.Figures[k]
		switch {
		case !ok:
			r.Status = New
		case e.Value == 0:
			r.Base, r.HasBase, r.Status = 0, true, NoBase
		default:
			r.Base, r.HasBase, r.LowerIsBetter = e.Value, true, e.LowerIsBetter
			r.Change = (f.Value - e.Value) / e.Value
			r.Status = judge(e.Value, f.Value, e.LowerIsBetter, tol)
			if math.Abs(f.Value-e.Value) < minDelta(f.Unit) {
				r.Status = OK
			}
		}
		rows = append(rows, r)
	}
	var missing []string
	for k := range base.Figures {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		e := base.Figures[k]
		rows = append(rows, Row{Key: k, Unit: e.Unit, Base: e.Value, HasBase: true, LowerIsBetter: e.LowerIsBetter, Status: Missing})
	}
	return rows
}

// minDelta is the smallest change of a unit that counts at all: a few
// bytes or less than one allocation per op are the amortised growth of a
// slice or map from one -count run to the next (8 → 9 B/op is +12.5%).
func minDelta(unit string) float64 {
	switch unit {
	case "B/op":
		return 64
	case "allocs/op":
		return 1
	}
	return 0
}

func judge(base, now float64, lowerIsBetter bool, tol float64) Status {
	// eps keeps a change of exactly tol ok despite rounding (100 × 1.1
	// is 110.00000000000001, 0.7 × 1.1 might fall just short of 0.77).
	const eps = 1e-9
	hi, lo := base*(1+tol+eps), base*(1-tol-eps)
	if base < 0 {
		hi, lo = lo, hi
	}
	switch {
	case lowerIsBetter && now > hi, !lowerIsBetter && now < lo:
		return Regression
	case lowerIsBetter && now < lo, !lowerIsBetter && now > hi:
		return Better
	}
	return OK
}

// Regressions are the rows that got worse beyond the tolerance.
func Regressions(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r.Status == Regression {
			out = append(out, r)
		}
	}
	return out
}
