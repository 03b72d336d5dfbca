package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpuscope/gpuscope/engine/units"
)

// Budget is a speed or size budget an issue named, over one figure.
type Budget struct {
	What  string  // the budget as the issues word it
	Key   string  // the figure it reads ("NAME UNIT")
	Limit float64 // the figure must not exceed it
}

// frameLimitMS is issue 2's budget for Update + Draw per frame.
const frameLimitMS = 4

// budgets are the issues' budgets, each over a figure make bench
// measures. The gzip limit is make's WASM_GZ_BUDGET (the -gzip-budget
// flag).
func budgets(gzipLimit float64) []Budget {
	return []Budget{
		{"`main.wasm` gzip ≤ " + strconv.FormatFloat(gzipLimit/1e6, 'g', -1, 64) + " MB", "size/main.wasm gzip-bytes", gzipLimit},
		{"navigation → first frame ≤ 1.5× a bare Ebiten program", "Page/first-frame ratio", 1.5},
		{"Update + Draw ≤ 4 ms at 64 GPUs (ring-allreduce, gpus=64)", "Page/frame/ring-allreduce-64gpus ms/frame", frameLimitMS},
		{"Update + Draw ≤ 4 ms with 512 GPUs on screen (3d-parallel)", "Page/frame/3d-parallel-512gpus ms/frame", frameLimitMS},
		{"Update + Draw ≤ 4 ms in the busiest silicon view (simt-launch, 132 SMs)", "Page/frame/simt-launch ms/frame", frameLimitMS},
		{"ring all-reduce, 1,024 ranks × 1,024 chunks, natively ≤ 1 s", "engine/collective.Ring1024/totals ns/op", 1e9},
		{"`gpuscope gemm` 8192³ natively ≤ 10 ms", "engine/kernel.GEMM8192 ns/op", 1e7},
		{"ring all-reduce of 1 GB on 16,384 GPUs, aggregated flows, natively ≤ 100 ms (flat and hierarchical rings together)", "engine/collective.RingAllReduce16384Fabric ns/op", 1e8},
		{"30 simulated days of a 16,384-GPU job with failures ≤ 100 ms", "engine/faults.Run30Days16k ns/op", 1e8},
		{"one plan evaluated natively ≤ 50 µs", "engine/parallel.Evaluate ns/op", 5e4},
		{"`gpuscope plan --tokens`'s engine work (Llama 3 405B on 16,384 GPUs as a run of 15.6T tokens) natively ≤ 1 ms", "engine/budget.PlanTokens ns/op", 1e6},
		{"`gpuscope quantize` of 1M values natively ≤ 50 ms: tensor", "engine/numfmt.Quantize1M/tensor ns/op", 5e7},
		{"… block128", "engine/numfmt.Quantize1M/block128 ns/op", 5e7},
		{"… mxfp8", "engine/numfmt.Quantize1M/mxfp8 ns/op", 5e7},
		{"… nvfp4", "engine/numfmt.Quantize1M/nvfp4 ns/op", 5e7},
		{"plan search, Llama 3 405B on 16,384 GPUs, ≤ 1 s in the browser", "Page/search405B ms", 1000},
		{"… the same search as WebAssembly under Node.js ≤ 1 s", "engine/parallel.Search405B@wasm ns/op", 1e9},
		{"a knob change re-plans and redraws within a frame (≤ 16.7 ms)", "Page/replan ms", 16.7},
		{"an embed before \"Load simulation\" transfers ≤ 150 kB", "Page/embed-before-load bytes", 150_000},
	}
}

// BudgetRow is a budget checked against a run.
type BudgetRow struct {
	Budget
	Value    float64
	Measured bool
	Pass     bool
	Runs     int     // samples behind the median
	Spread   float64 // their (max − min) ÷ median
}

// CheckBudgets checks the named budgets, then every other lesson's frame
// time against the same 4 ms.
func CheckBudgets(bs []Budget, figs []Figure) []BudgetRow {
	by := map[string]Figure{}
	for _, f := range figs {
		by[f.Key()] = f
	}
	named := map[string]bool{}
	var rows []BudgetRow
	check := func(b Budget) {
		named[b.Key] = true
		r := BudgetRow{Budget: b}
		if f, ok := by[b.Key]; ok {
			r.Value, r.Measured, r.Pass = f.Value, true, f.Value <= b.Limit
			r.Runs, r.Spread = len(f.Samples), f.Spread()
		}
		rows = append(rows, r)
	}
	for _, b := range bs {
		check(b)
	}
	for _, f := range figs {
		if lesson, ok := strings.CutPrefix(f.Name, "Page/frame/"); ok && f.Unit == "ms/frame" && !named[f.Key()] {
			check(Budget{"Update + Draw ≤ 4 ms: " + lesson + " at its heaviest", f.Key(), frameLimitMS})
		}
	}
	return rows
}

func (r BudgetRow) verdict() string {
	switch {
	case !r.Measured:
		return "not measured"
	case r.Pass:
		return "pass"
	}
	return "FAIL"
}

func (r BudgetRow) measured() string {
	if !r.Measured {
		return "—"
	}
	_, unit, _ := strings.Cut(r.Key, " ")
	return fmtValue(r.Value, unit)
}

// fmtValue writes a figure for people, as package units does (sizes to
// four digits); rates with an SI prefix.
func fmtValue(v float64, unit string) string {
	switch {
	case unit == "ns/op":
		return fmtDuration(v)
	case unit == "ms" || unit == "ms/frame":
		return units.Duration(v / 1e3)
	case unit == "ratio":
		return units.Ratio("en", v)
	case unit == "allocs/op":
		return fmt.Sprintf("%.0f allocs", v)
	case unit == "B/op" || strings.HasSuffix(unit, "bytes"):
		return fmtBytes(v)
	case strings.HasSuffix(unit, "/s"):
		return si(v) + unit
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}

// fmtDuration is a benchmark's time: ns/op read as a duration.
func fmtDuration(ns float64) string { return units.Duration(ns / 1e9) }

// fmtBytes is a size to the kilobyte, so that a wasm size reads against
// its budget (3.496 MB of 3.5).
func fmtBytes(b float64) string { return units.BytesDigits(b, 4) }

// si writes v with a k, M or G prefix (a word: 8.18 M events/s) and a
// trailing space.
func si(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return fmt.Sprintf("%.3g G ", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3g M ", v/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3g k ", v/1e3)
	}
	return fmt.Sprintf("%.3g ", v)
}

// roundSig rounds x to n significant digits (1025.699999999255 → 1025.7).
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return v
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

func fmtChange(r Row) string {
	if !r.HasBase || !r.HasNow || r.Status == NoBase {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", 100*r.Change)
}

func fmtSpread(s float64) string {
	if s == 0 {
		return ""
	}
	return fmt.Sprintf("±%.0f%%", 50*s)
}

// printBudgets writes the budgets as a plain table.
func printBudgets(w io.Writer, rows []BudgetRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "budget\tmeasured\tlimit\t")
	for _, r := range rows {
		_, unit, _ := strings.Cut(r.Key, " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", strings.ReplaceAll(r.What, "`", ""), r.measured(), fmtValue(r.Limit, unit), r.verdict())
	}
	tw.Flush()
}

// printComparison writes every figure against the baseline, then one
// REGRESSION line for each figure worse than the tolerance allows.
func printComparison(w io.Writer, rows []Row, tol float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tbaseline\tnow\tchange\tnoise\t")
	for _, r := range rows {
		name, unit, _ := strings.Cut(r.Key, " ")
		base, now := "—", "—"
		if r.HasBase {
			base = fmtValue(r.Base, unit)
		}
		if r.HasNow {
			now = fmtValue(r.Now, unit)
		}
		fmt.Fprintf(tw, "%s [%s]\t%s\t%s\t%s\t%s\t%s\n", name, unit, base, now, fmtChange(r), fmtSpread(r.Spread), r.Status)
	}
	tw.Flush()
	for _, r := range Regressions(rows) {
		_, unit, _ := strings.Cut(r.Key, " ")
		way := "higher"
		if !r.LowerIsBetter {
			way = "lower"
		}
		fmt.Fprintf(w, "REGRESSION %s: %s → %s (%s, %s is worse; the limit is %.0f%%)\n",
			r.Key, fmtValue(r.Base, unit), fmtValue(r.Now, unit), fmtChange(r), way, 100*tol)
	}
}

// Markers around the part of BENCHMARKS.md that make bench-baseline writes.
const (
	mdBegin = "<!-- benchcheck:begin — written by `make bench-baseline` (cmd/benchcheck); edit outside the markers -->"
	mdEnd   = "<!-- benchcheck:end -->"
)

// Markdown is the recorded section of BENCHMARKS.md: the machine, the
// budgets with pass or fail, the wasm sizes and every tracked figure.
func Markdown(m Machine, sizes []Size, brs []BudgetRow, figs []Figure) string {
	var b strings.Builder
	fmt.Fprintln(&b, mdBegin)
	fmt.Fprintf(&b, "Recorded %s on %s (%d cores); %s", m.Date, m.CPU, m.Cores, m.Go)
	if m.Chromium != "" {
		fmt.Fprintf(&b, "; %s (SwiftShader)", m.Chromium)
	}
	if m.Node != "" {
		fmt.Fprintf(&b, "; Node.js %s", m.Node)
	}
	fmt.Fprintln(&b, ".")
	goRuns, pageRuns := 0, 0
	for _, f := range figs {
		switch {
		case strings.HasPrefix(f.Name, "Page/"):
			pageRuns = max(pageRuns, len(f.Samples))
		case !strings.HasPrefix(f.Name, "size/"):
			goRuns = max(goRuns, len(f.Samples))
		}
	}
	fmt.Fprintf(&b, "Medians of up to %d runs of each Go benchmark and %d of the page benchmark (see the notes on noise).\n", goRuns, pageRuns)
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "#### Budgets")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| budget | measured | runs | noise | |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- | --- |")
	for _, r := range brs {
		runs := ""
		if r.Runs > 0 {
			runs = strconv.Itoa(r.Runs)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.What, r.measured(), runs, fmtSpread(r.Spread), r.verdict())
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "#### WebAssembly sizes")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| file | raw | gzip -9 | brotli -q 11 |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- |")
	for _, s := range sizes {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.File, mdBytes(s.Raw), mdBytes(s.Gzip), mdBytes(s.Brotli))
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "#### Every tracked figure")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "Medians of the runs; noise is ± half the spread (max − min) of those runs.")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| figure | unit | median | runs | noise | better |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- | --- | --- |")
	for _, f := range figs {
		better := "lower"
		if !LowerIsBetter(f.Unit) {
			better = "higher"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |\n", f.Name, f.Unit, fmtValue(f.Value, f.Unit), len(f.Samples), fmtSpread(f.Spread()), better)
	}
	fmt.Fprintln(&b, mdEnd)
	return b.String()
}

func mdBytes(n int64) string {
	if n <= 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%d)", fmtBytes(float64(n)), n)
}

// ReplaceSection puts section in doc in place of the text between the
// markers (markers included), or appends it when doc has none.
func ReplaceSection(doc, section string) string {
	i := strings.Index(doc, mdBegin)
	j := strings.Index(doc, mdEnd)
	if i < 0 || j < i {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n" + section
	}
	return doc[:i] + strings.TrimSuffix(section, "\n") + doc[j+len(mdEnd):]
}
