package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goBench = `goos: linux
goarch: amd64
pkg: github.com/gpuscope/gpuscope/engine/collective
cpu: Intel(R) Xeon(R) Processor
BenchmarkRing1024/totals-2         	       2	 560000000 ns/op	   2095104 transfers/op	 1234 B/op	      12 allocs/op
BenchmarkRing1024/totals-2         	       2	 580000000 ns/op	   2095104 transfers/op	 1234 B/op	      12 allocs/op
BenchmarkRing1024/totals-2         	       2	 600000000 ns/op	   2095104 transfers/op	 1234 B/op	      12 allocs/op
--- BENCH: BenchmarkRing1024/totals-2
    bench_test.go:20: some log line: 3 things
PASS
ok  	github.com/gpuscope/gpuscope/engine/collective	12.3s
goos: linux
goarch: amd64
pkg: github.com/gpuscope/gpuscope/bench
BenchmarkQueueHold1024-2   	 9000000	       122.3 ns/op	   8179810 events/s
BenchmarkQueueHold1024-2   	 9000000	       130.1 ns/op	   7686395 events/s
BenchmarkPlanSearch405B-2  	       6	  35340556 ns/op	      2550 plans/op	     72155 plans/s
BenchmarkBroken-2
ok  	github.com/gpuscope/gpuscope/bench	1.575s
`

const wasmBench = `goos: js
goarch: wasm
pkg: github.com/gpuscope/gpuscope/engine/parallel
BenchmarkSearch405B 	       3	 480000000 ns/op
`

const pageBench = `first frame (navigation → first frame drawn, median of 5): gpuscope 778 ms, bare Ebiten 673 ms, ratio 1.16 (budget ≤ 1.50)
per frame, roofline (step=7): update 0.20 ms + draw 0.50 ms = 0.70 ms (budget ≤ 4 ms); 7 fps in SwiftShader

# The figures above for cmd/benchcheck (Go benchmark format).
chromium: HeadlessChrome/156.0.8078.114
BenchmarkPage/first-frame 1 778 ms 1.156 ratio
BenchmarkPage/frame/roofline 1 0.7 ms/frame
BenchmarkPage/frame/ring-allreduce-64gpus 1 1.35 ms/frame
BenchmarkPage/frame/ring-allreduce 1 4.2 ms/frame
BenchmarkPage/search405B 1 94 ms 2550 plans/op
BenchmarkPage/embed-before-load 1 61234 bytes
`

func parse(t *testing.T, s string) Parsed {
	t.Helper()
	p, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func figureMap(figs []Figure) map[string]Figure {
	m := map[string]Figure{}
	for _, f := range figs {
		m[f.Key()] = f
	}
	return m
}

func TestParseGoBench(t *testing.T) {
	p := parse(t, goBench)
	if got := p.Config["cpu"]; got != "Intel(R) Xeon(R) Processor" {
		t.Errorf("cpu config %q", got)
	}
	figs := figureMap(Figures(p.Samples))
	want := map[string]float64{
		"engine/collective.Ring1024/totals ns/op":     580000000, // median of three
		"engine/collective.Ring1024/totals B/op":      1234,
		"engine/collective.Ring1024/totals allocs/op": 12,
		"bench.QueueHold1024 ns/op":                   (122.3 + 130.1) / 2, // median of two: their mean
		"bench.QueueHold1024 events/s":                (8179810 + 7686395) / 2.0,
		"bench.PlanSearch405B plans/s":                72155,
		"bench.PlanSearch405B ns/op":                  35340556,
	}
	for k, v := range want {
		f, ok := figs[k]
		if !ok {
			t.Errorf("no figure %q (have %v)", k, keys(figs))
			continue
		}
		if math.Abs(f.Value-v) > 1e-9*math.Abs(v) {
			t.Errorf("%s = %g, want %g", k, f.Value, v)
		}
	}
	if len(figs) != len(want) {
		t.Errorf("%d figures, want %d (per-op counts such as transfers/op and plans/op left out): %v", len(figs), len(want), keys(figs))
	}
	if f := figs["engine/collective.Ring1024/totals ns/op"]; len(f.Samples) != 3 || f.Spread() != (600e6-560e6)/580e6 {
		t.Errorf("Ring1024 samples %v spread %g", f.Samples, f.Spread())
	}
}

func keys(m map[string]Figure) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestParseWasmAndPage(t *testing.T) {
	w := Figures(parse(t, wasmBench).Samples)
	if len(w) != 1 || w[0].Key() != "engine/parallel.Search405B@wasm ns/op" || w[0].Value != 480e6 {
		t.Errorf("wasm figures %+v", w)
	}
	p := parse(t, pageBench)
	if p.Config["chromium"] != "HeadlessChrome/156.0.8078.114" {
		t.Errorf("chromium %q", p.Config["chromium"])
	}
	figs := figureMap(Figures(p.Samples))
	for k, v := range map[string]float64{
		"Page/first-frame ms":                       778,
		"Page/first-frame ratio":                    1.156,
		"Page/frame/roofline ms/frame":              0.7,
		"Page/search405B ms":                        94,
		"Page/embed-before-load bytes":              61234,
		"Page/frame/ring-allreduce-64gpus ms/frame": 1.35,
		"Page/frame/ring-allreduce ms/frame":        4.2,
	} {
		if figs[k].Value != v {
			t.Errorf("%s = %g, want %g", k, figs[k].Value, v)
		}
	}
	if _, ok := figs["Page/search405B plans/op"]; ok {
		t.Error("plans/op is a count of the workload, not a figure to track")
	}
}

func TestParseRejectsGarbageNumbers(t *testing.T) {
	if _, err := Parse(strings.NewReader("BenchmarkX-2 10 NaN ns/op\n")); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := Parse(strings.NewReader("BenchmarkX-2 10 12abc ns/op\n")); err == nil {
		t.Error("12abc accepted")
	}
}

func TestUnits(t *testing.T) {
	for unit, lower := range map[string]bool{"ns/op": true, "B/op": true, "allocs/op": true, "ms/frame": true, "ratio": true,
		"gzip-bytes": true, "bytes": true, "ms": true, "events/s": false, "plans/s": false, "collectives/s": false} {
		if LowerIsBetter(unit) != lower {
			t.Errorf("LowerIsBetter(%q) = %v", unit, !lower)
		}
		if !Tracked(unit) {
			t.Errorf("%s not tracked", unit)
		}
	}
	for _, unit := range []string{"transfers/op", "plans/op", "items"} {
		if Tracked(unit) {
			t.Errorf("%s tracked", unit)
		}
	}
}

func base(entries map[string]Entry) Baseline {
	return Baseline{Tolerance: 0.1, Figures: entries}
}

func TestCompareTenPercentBoundary(t *testing.T) {
	b := base(map[string]Entry{
		"a ns/op":    {Value: 100, Unit: "ns/op", LowerIsBetter: true},
		"b events/s": {Value: 100, Unit: "events/s", LowerIsBetter: false},
		"c ms":       {Value: 0.7, Unit: "ms", LowerIsBetter: true},
	})
	cases := []struct {
		key  string
		now  float64
		want Status
	}{
		{"a ns/op", 100, OK},
		{"a ns/op", 110, OK}, // exactly 10% slower: still ok
		{"a ns/op", 110.01, Regression},
		{"a ns/op", 150, Regression},
		{"a ns/op", 90, OK},
		{"a ns/op", 89.9, Better},
		{"b events/s", 90, OK}, // exactly 10% fewer: still ok
		{"b events/s", 89.99, Regression},
		{"b events/s", 110.5, Better},
		{"b events/s", 200, Better},
		{"c ms", 0.77, OK},
		{"c ms", 0.7701, Regression},
	}
	for _, c := range cases {
		name, unit, _ := strings.Cut(c.key, " ")
		rows := Compare(b, []Figure{{Name: name, Unit: unit, Value: c.now, Samples: []float64{c.now}}}, 0.1)
		if rows[0].Status != c.want {
			t.Errorf("%s: %g against %g: %s, want %s", c.key, c.now, b.Figures[c.key].Value, rows[0].Status, c.want)
		}
	}
}

func TestCompareIgnoresTinyAllocationChanges(t *testing.T) {
	b := base(map[string]Entry{
		"a B/op":      {Value: 8, Unit: "B/op", LowerIsBetter: true},
		"a allocs/op": {Value: 2, Unit: "allocs/op", LowerIsBetter: true},
		"b B/op":      {Value: 1000, Unit: "B/op", LowerIsBetter: true},
	})
	rows := Compare(b, []Figure{{Name: "a", Unit: "B/op", Value: 9}, {Name: "a", Unit: "allocs/op", Value: 2.9}, {Name: "b", Unit: "B/op", Value: 1200}}, 0.1)
	for _, r := range rows {
		want := OK
		if r.Key == "b B/op" {
			want = Regression
		}
		if r.Status != want {
			t.Errorf("%s: %g → %g: %s, want %s", r.Key, r.Base, r.Now, r.Status, want)
		}
	}
}

func TestCompareNewMissingZero(t *testing.T) {
	b := base(map[string]Entry{
		"gone ns/op": {Value: 5, Unit: "ns/op", LowerIsBetter: true},
		"zero ms":    {Value: 0, Unit: "ms", LowerIsBetter: true},
	})
	rows := Compare(b, []Figure{{Name: "fresh", Unit: "ns/op", Value: 1}, {Name: "zero", Unit: "ms", Value: 3}}, 0.1)
	got := map[string]Status{}
	for _, r := range rows {
		got[r.Key] = r.Status
	}
	want := map[string]Status{"fresh ns/op": New, "zero ms": NoBase, "gone ns/op": Missing}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if len(Regressions(rows)) != 0 {
		t.Error("new, missing or zero-based figures counted as regressions")
	}
}

func TestBudgets(t *testing.T) {
	figs := Figures(parse(t, pageBench).Samples)
	figs = append(figs, Figure{Name: "size/main.wasm", Unit: "gzip-bytes", Value: 3_600_000, Samples: []float64{3_600_000}})
	rows := CheckBudgets(budgets(3.5e6), figs)
	by := map[string]BudgetRow{}
	for _, r := range rows {
		by[r.Key] = r
	}
	if r := by["size/main.wasm gzip-bytes"]; !r.Measured || r.Pass || r.verdict() != "FAIL" {
		t.Errorf("gzip budget: %+v", r)
	}
	if r := by["Page/first-frame ratio"]; !r.Pass {
		t.Errorf("first-frame budget: %+v", r)
	}
	if r := by["Page/frame/roofline ms/frame"]; !r.Measured || !r.Pass || !strings.Contains(r.What, "roofline") {
		t.Errorf("every lesson gets the frame budget: %+v", r)
	}
	if r := by["engine/kernel.GEMM8192 ns/op"]; r.Measured || r.verdict() != "not measured" {
		t.Errorf("unmeasured budget: %+v", r)
	}
	if r := by["Page/frame/ring-allreduce-64gpus ms/frame"]; !strings.Contains(r.What, "64 GPUs") || !r.Pass {
		t.Errorf("the named 64-GPU budget: %+v", r)
	}
	if r := by["Page/frame/ring-allreduce ms/frame"]; r.Pass || !strings.Contains(r.What, "ring-allreduce at its heaviest") {
		t.Errorf("ring-allreduce at its heaviest, 4.2 ms: %+v", r)
	}
	n := 0
	for _, r := range rows {
		if strings.HasPrefix(r.Key, "Page/frame/ring-allreduce") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("ring-allreduce's frame budgets listed %d times, want 2", n)
	}
}

func TestReplaceSection(t *testing.T) {
	sec := mdBegin + "\nnew\n" + mdEnd + "\n"
	doc := "# B\n\nprose\n\n" + mdBegin + "\nold\n" + mdEnd + "\n\nafter\n"
	got := ReplaceSection(doc, sec)
	if want := "# B\n\nprose\n\n" + mdBegin + "\nnew\n" + mdEnd + "\n\nafter\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := ReplaceSection("# B", sec); got != "# B\n\n"+sec {
		t.Errorf("appended: %q", got)
	}
}

func TestParseCPUInfo(t *testing.T) {
	model, cores := parseCPUInfo(strings.NewReader("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Processor\n"))
	if model != "Intel(R) Xeon(R) Processor" || cores != 2 {
		t.Errorf("%q, %d", model, cores)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{560e6, "ns/op", "560 ms"},
		{8000, "ns/op", "8 µs"},
		{1.2e9, "ns/op", "1.2 s"},
		{3486674, "gzip-bytes", "3.487 MB"},
		{61234, "bytes", "61.23 kB"},
		{8179810, "events/s", "8.18 M events/s"},
		{1.156, "ratio", "1.16×"},
		{1.35, "ms/frame", "1.35 ms"},
		{16.7, "ms", "16.7 ms"},
		{1000, "ms", "1 s"},
	} {
		if got := fmtValue(c.v, c.unit); got != c.want {
			t.Errorf("fmtValue(%g, %s) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestRoundSig(t *testing.T) {
	for _, c := range [][2]float64{{1025.699999999255, 1025.7}, {0.000123456789, 0.000123457}, {0, 0}, {580e6, 580e6}} {
		if got := roundSig(c[0], 6); got != c[1] {
			t.Errorf("roundSig(%g) = %g, want %g", c[0], got, c[1])
		}
	}
}

// The whole command: record a baseline, then a run 20% slower fails,
// unless BENCH_WARN_ONLY=1.
func TestRunRecordsThenReportsRegression(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	basePath, md := filepath.Join(dir, "bench", "baseline.json"), write("BENCHMARKS.md", "# Benchmarks\n\nhand-written notes\n")
	first := write("first.txt", goBench)
	pageFile := write("page.txt", pageBench)
	common := []string{"-baseline", basePath, "-md", md}

	var out, errs bytes.Buffer
	if code := run(append(common, "-update", first, pageFile), &out, &errs); code != 0 {
		t.Fatalf("-update: exit %d\n%s%s", code, out.String(), errs.String())
	}
	b, err := loadBaseline(basePath)
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Figures["engine/collective.Ring1024/totals ns/op"]; e.Value != 580e6 || !e.LowerIsBetter || e.Runs != 3 {
		t.Errorf("recorded %+v", e)
	}
	if e := b.Figures["bench.QueueHold1024 events/s"]; e.LowerIsBetter {
		t.Errorf("events/s recorded as lower-is-better")
	}
	doc, _ := os.ReadFile(md)
	for _, want := range []string{"hand-written notes", mdBegin, mdEnd, "HeadlessChrome/156.0.8078.114", "| engine/collective.Ring1024/totals | ns/op | 580 ms | 3 |", "pass"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", want, doc)
		}
	}

	// The same run again: no regression.
	out.Reset()
	if code := run(append(common, first, pageFile), &out, &errs); code != 0 {
		t.Fatalf("same run: exit %d\n%s", code, out.String())
	}

	// Ring1024 20% slower, the queue 20% fewer events/s.
	slow := strings.NewReplacer("560000000", "672000000", "580000000", "696000000", "600000000", "720000000",
		"8179810", "6543848", "7686395", "6149116").Replace(goBench)
	second := write("second.txt", slow)
	out.Reset()
	if code := run(append(common, second, pageFile), &out, &errs); code != 1 {
		t.Errorf("regressed run: exit %d, want 1\n%s", code, out.String())
	}
	for _, want := range []string{"REGRESSION engine/collective.Ring1024/totals ns/op", "REGRESSION bench.QueueHold1024 events/s", "+20.0%", "-20.0%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "REGRESSION Page/") {
		t.Errorf("unchanged page figures reported:\n%s", out.String())
	}

	t.Setenv("BENCH_WARN_ONLY", "1")
	out.Reset()
	if code := run(append(common, second, pageFile), &out, &errs); code != 0 {
		t.Errorf("BENCH_WARN_ONLY=1: exit %d, want 0", code)
	}
	if !strings.Contains(out.String(), "REGRESSION") {
		t.Errorf("BENCH_WARN_ONLY=1 hid the report:\n%s", out.String())
	}
}
