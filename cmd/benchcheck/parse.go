package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// module is stripped from package paths in figure names.
const module = "github.com/gpuscope/gpuscope/"

// Sample is one value of one metric from one benchmark line.
type Sample struct {
	Name  string // e.g. engine/parallel.Search405B, Page/frame/roofline, size/main.wasm
	Unit  string // ns/op, B/op, allocs/op, events/s, ms/frame, gzip-bytes …
	Value float64
}

// Key names a figure: its benchmark and its unit.
func (s Sample) Key() string { return s.Name + " " + s.Unit }

// Parsed is what Parse read: the samples in order, and the configuration
// lines ("goos: linux", "chromium: HeadlessChrome/…") last seen.
type Parsed struct {
	Samples []Sample
	Config  map[string]string
}

var (
	configLine = regexp.MustCompile(`^([a-z][a-zA-Z0-9_-]*):\s*(.*)$`)
	procSuffix = regexp.MustCompile(`-\d+$`)
)

// Parse reads the output of `go test -bench` (or anything written in that
// format: out/bench-page.txt ends with such lines) and returns every
// metric of every benchmark line: ns/op, B/op, allocs/op and the custom
// units of b.ReportMetric. Other lines (PASS, ok, log output, prose) are
// skipped. A benchmark's name is its package path less the module
// ("engine/parallel.") and the GOMAXPROCS suffix ("-2"), with "@wasm"
// added when goarch is wasm; a benchmark line with no pkg: line before it
// keeps its bare name (Page/frame/roofline).
func Parse(r io.Reader) (Parsed, error) {
	p := Parsed{Config: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if m := configLine.FindStringSubmatch(text); m != nil {
			p.Config[m[1]] = strings.TrimSpace(m[2])
			continue
		}
		if !strings.HasPrefix(text, "Benchmark") {
			continue
		}
		f := strings.Fields(text)
		// Name, iterations, then value-unit pairs; a line of a benchmark
		// that failed or printed in between has no iteration count.
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		name := benchName(f[0], p.Config)
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return p, fmt.Errorf("line %d: %q is not a number (%s)", line, f[i], text)
			}
			p.Samples = append(p.Samples, Sample{Name: name, Unit: f[i+1], Value: v})
		}
	}
	return p, sc.Err()
}

func benchName(raw string, config map[string]string) string {
	name := strings.TrimPrefix(raw, "Benchmark")
	name = procSuffix.ReplaceAllString(name, "")
	if pkg := config["pkg"]; pkg != "" {
		name = strings.TrimPrefix(pkg, module) + "." + name
	}
	if config["goarch"] == "wasm" {
		name += "@wasm"
	}
	return name
}

// Figure is one tracked quantity of a run: the median of its samples.
type Figure struct {
	Name, Unit string
	Value      float64   // median
	Samples    []float64 // sorted
}

// Key is Name and Unit, the figure's name in baseline.json.
func (f Figure) Key() string { return f.Name + " " + f.Unit }

// Spread is (max − min) ÷ median of the samples: how noisy the figure was
// (0 with a single sample).
func (f Figure) Spread() float64 {
	if len(f.Samples) < 2 || f.Value == 0 {
		return 0
	}
	return (f.Samples[len(f.Samples)-1] - f.Samples[0]) / math.Abs(f.Value)
}

// Figures groups samples by key (several come from go test -count) and
// takes each one's median, in order of first appearance. Units that are
// not Tracked (counts of the workload) are left out.
func Figures(samples []Sample) []Figure {
	var order []string
	by := map[string]*Figure{}
	for _, s := range samples {
		if !Tracked(s.Unit) {
			continue
		}
		f, ok := by[s.Key()]
		if !ok {
			f = &Figure{Name: s.Name, Unit: s.Unit}
			by[s.Key()] = f
			order = append(order, s.Key())
		}
		f.Samples = append(f.Samples, s.Value)
	}
	out := make([]Figure, 0, len(order))
	for _, k := range order {
		f := by[k]
		sort.Float64s(f.Samples)
		f.Value = median(f.Samples)
		out = append(out, *f)
	}
	return out
}

// median of sorted xs: the middle one, or the mean of the middle two.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Tracked says whether a unit is a figure to compare: a time (ns/op,
// ms, ms/frame), a size (B/op, bytes, gzip-bytes …), allocations, a ratio
// or a rate (events/s). Anything else describes the workload, not its
// speed — a count per operation (transfers/op, plans/op) or of display
// items — and is left out.
func Tracked(unit string) bool {
	switch unit {
	case "ns/op", "B/op", "allocs/op", "ms", "ms/frame", "ratio":
		return true
	}
	return strings.HasSuffix(unit, "bytes") || strings.HasSuffix(unit, "/s")
}

// LowerIsBetter says which way a unit improves: rates (events/s, plans/s)
// are better higher; times, sizes, ratios and allocations lower.
func LowerIsBetter(unit string) bool {
	return !strings.HasSuffix(unit, "/s")
}
