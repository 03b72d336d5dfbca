// Command benchcheck reads what `make bench` measured — the output of
// `go test -bench` (ns/op, B/op, allocs/op and the custom units of
// b.ReportMetric), out/bench-page.txt from the page benchmark, and the
// wasm sizes — and compares each figure with bench/baseline.json.
//
//	benchcheck [-baseline bench/baseline.json] [-md BENCHMARKS.md]
//	           [-wasm site/dist/main.wasm] [-bare site/dist/bare/bare.wasm]
//	           [-gzip-budget 3500000] [-tolerance 0.10] [-update] FILE...
//
// It prints the wasm sizes (raw, gzip, and brotli when the brotli command
// is installed), the issues' budgets with pass or fail, and a table of
// every figure against the baseline. A figure more than the tolerance
// (10%) worse than recorded is a REGRESSION: one line each, and exit
// status 1 — unless BENCH_WARN_ONLY=1, which only warns. Figures from
// go test -count runs are compared by their median.
//
// With -update (or BENCH_UPDATE=1; make bench-baseline sets it) it
// instead records this run: it rewrites baseline.json and the section of
// BENCHMARKS.md between the benchcheck markers (date, machine, Go and
// Chromium versions, budgets, sizes, every figure), and exits 0.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Size is one wasm file's size, raw and compressed (0: not measured).
type Size struct {
	File               string
	Raw, Gzip, Brotli  int64
	BrotliNotInstalled bool
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("benchcheck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	basePath := fl.String("baseline", "bench/baseline.json", "the recorded figures")
	mdPath := fl.String("md", "BENCHMARKS.md", "the record that -update rewrites (between its markers)")
	wasm := fl.String("wasm", "", "main.wasm, whose sizes are figures (raw, gzip, brotli)")
	bare := fl.String("bare", "", "the bare Ebiten program's wasm: its sizes are shown, not tracked")
	gzipBudget := fl.Float64("gzip-budget", 3.5e6, "main.wasm's gzip budget in bytes")
	tol := fl.Float64("tolerance", 0.10, "how much worse than recorded a figure may get, as a fraction")
	update := fl.Bool("update", os.Getenv("BENCH_UPDATE") == "1", "record this run as the baseline (BENCH_UPDATE=1)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	warnOnly := os.Getenv("BENCH_WARN_ONLY") == "1"

	var samples []Sample
	config := map[string]string{}
	for _, path := range fl.Args() {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		p, err := Parse(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "benchcheck: %s: %v\n", path, err)
			return 2
		}
		samples = append(samples, p.Samples...)
		for k, v := range p.Config {
			config[k] = v
		}
	}

	var sizes []Size
	for _, file := range []string{*wasm, *bare} {
		if file == "" {
			continue
		}
		s, err := measureSize(file)
		if err != nil {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		sizes = append(sizes, s)
	}
	if *wasm != "" {
		s := sizes[0]
		name := "size/" + s.File
		samples = append(samples, Sample{name, "bytes", float64(s.Raw)}, Sample{name, "gzip-bytes", float64(s.Gzip)})
		if s.Brotli > 0 {
			samples = append(samples, Sample{name, "brotli-bytes", float64(s.Brotli)})
		}
	}
	if len(samples) == 0 {
		fmt.Fprintln(stderr, "benchcheck: no figures: give it go test -bench output, out/bench-page.txt or -wasm")
		return 2
	}
	figs := Figures(samples)

	fmt.Fprintln(stdout, "==> wasm sizes")
	printSizes(stdout, sizes, *gzipBudget)

	fmt.Fprintln(stdout, "\n==> budgets")
	brs := CheckBudgets(budgets(*gzipBudget), figs)
	printBudgets(stdout, brs)

	base, err := loadBaseline(*basePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stdout, "\n(no %s yet: make bench-baseline records one)\n", *basePath)
	case err != nil:
		fmt.Fprintln(stderr, "benchcheck:", err)
		return 2
	}
	if base.Tolerance > 0 && !isSet(fl, "tolerance") {
		*tol = base.Tolerance
	}
	fmt.Fprintf(stdout, "\n==> against %s (recorded %s on %s; a figure more than %.0f%% worse is a regression)\n",
		*basePath, orDash(base.Recorded.Date), orDash(base.Recorded.CPU), 100**tol)
	rows := Compare(base, figs, *tol)
	printComparison(stdout, rows, *tol)
	regs := Regressions(rows)

	if *update {
		m := machine(config)
		nb := NewBaseline(figs, m, *tol)
		if err := os.MkdirAll(filepath.Dir(*basePath), 0o755); err != nil {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		if err := nb.write(*basePath); err != nil {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		doc, err := os.ReadFile(*mdPath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		out := ReplaceSection(string(doc), Markdown(m, sizes, brs, figs))
		if err := os.WriteFile(*mdPath, []byte(out), 0o644); err != nil {
			fmt.Fprintln(stderr, "benchcheck:", err)
			return 2
		}
		fmt.Fprintf(stdout, "\nbenchcheck: recorded %d figures in %s and %s\n", len(figs), *basePath, *mdPath)
		return 0
	}
	fails := 0
	for _, r := range brs {
		if r.Measured && !r.Pass {
			fails++
		}
	}
	if fails > 0 {
		fmt.Fprintf(stdout, "\nbenchcheck: %d budget(s) not met (see above)\n", fails)
	}
	if len(regs) > 0 {
		if warnOnly {
			fmt.Fprintf(stdout, "benchcheck: %d regression(s) beyond %.0f%% (BENCH_WARN_ONLY=1: warning only)\n", len(regs), 100**tol)
			return 0
		}
		fmt.Fprintf(stdout, "benchcheck: %d regression(s) beyond %.0f%% against %s (BENCH_WARN_ONLY=1 to only warn; make bench-baseline to record this run)\n",
			len(regs), 100**tol, *basePath)
		return 1
	}
	fmt.Fprintf(stdout, "benchcheck: no regression beyond %.0f%% (%d figures)\n", 100**tol, len(figs))
	return 0
}

func isSet(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// measureSize reads a wasm file's size, its gzip size (FILE.gz, as make
// build writes it with gzip -9, else compressed here) and its brotli size
// (FILE.br, as make build writes it with brotli -q 11, else compressed
// here when the brotli command is installed).
func measureSize(path string) (Size, error) {
	s := Size{File: filepath.Base(path)}
	st, err := os.Stat(path)
	if err != nil {
		return s, err
	}
	s.Raw = st.Size()
	if gz, err := os.Stat(path + ".gz"); err == nil && !gz.ModTime().Before(st.ModTime()) {
		s.Gzip = gz.Size()
	} else {
		data, err := os.ReadFile(path)
		if err != nil {
			return s, err
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(data)
		zw.Close()
		s.Gzip = int64(buf.Len())
	}
	if br, err := os.Stat(path + ".br"); err == nil && !br.ModTime().Before(st.ModTime()) {
		s.Brotli = br.Size()
		return s, nil
	}
	bin, err := exec.LookPath("brotli")
	if err != nil {
		s.BrotliNotInstalled = true
		return s, nil
	}
	out, err := exec.Command(bin, "-c", "-q", "11", path).Output()
	if err != nil {
		return s, fmt.Errorf("brotli %s: %v", path, err)
	}
	s.Brotli = int64(len(out))
	return s, nil
}

func printSizes(w io.Writer, sizes []Size, gzipBudget float64) {
	for i, s := range sizes {
		fmt.Fprintf(w, "%s: %d bytes raw, %d bytes gzip (%.2f MB)", s.File, s.Raw, s.Gzip, float64(s.Gzip)/1e6)
		switch {
		case s.Brotli > 0:
			fmt.Fprintf(w, ", %d bytes brotli (%.2f MB)", s.Brotli, float64(s.Brotli)/1e6)
		case s.BrotliNotInstalled:
			fmt.Fprint(w, ", brotli: not installed (apt-get install brotli)")
		}
		if i == 0 {
			fmt.Fprintf(w, " — gzip is %.0f%% of the %.2f MB budget", 100*float64(s.Gzip)/gzipBudget, gzipBudget/1e6)
			if float64(s.Gzip) > gzipBudget {
				fmt.Fprint(w, "  OVER BUDGET")
			}
		}
		fmt.Fprintln(w)
	}
}

// machine describes this machine and toolchain for the record.
func machine(config map[string]string) Machine {
	m := Machine{Date: time.Now().UTC().Format("2006-01-02"), Go: runtime.Version(), Chromium: config["chromium"]}
	m.CPU, m.Cores = cpuInfo()
	if m.CPU == "" {
		m.CPU = config["cpu"]
	}
	if m.Cores == 0 {
		m.Cores = runtime.NumCPU()
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		m.Node = strings.TrimSpace(string(out))
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			m.LoadWhenWritten = strings.Join(f[:3], " ")
		}
	}
	return m
}

// cpuInfo is the CPU model and the number of processors in /proc/cpuinfo.
func cpuInfo() (model string, cores int) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "", 0
	}
	defer f.Close()
	return parseCPUInfo(f)
}

func parseCPUInfo(r io.Reader) (model string, cores int) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			if _, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				cores++
			}
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	return model, cores
}
