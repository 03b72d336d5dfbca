package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/scenarios"
)

// cliPrefixes are the command lines FuzzCLI puts in front of its fuzzed
// arguments: every calculator, `scenario list`, `scenario run ID` for the
// lessons quick enough to run per input, and nothing (the fuzzed text
// names the command). site (writes files) and serve (listens) are
// excluded. strategy-planner and collectives-at-scale are left out: at
// their defaults alone they take 0.4–0.9 s (a plan search, a fabric run at
// 16,384 GPUs), past the per-input budget; their knobs are covered by the
// property tests in scenarios. fault-tolerance runs one day: its own
// --days would be overridden by the fuzzed text, so inputs naming days
// are skipped for it.
func cliPrefixes() [][]string {
	p := [][]string{
		{"collective"}, {"numfmt"}, {"attention"}, {"faults"}, {"gemm"}, {"plan"}, {"roofline"}, {"route"}, {"validate"},
		{"scenario", "list"}, {"scenario"}, {},
	}
	for _, id := range scenarios.IDs() {
		switch id {
		case "strategy-planner", "collectives-at-scale":
		case "fault-tolerance":
			p = append(p, []string{"scenario", "run", id, "--days", "1"})
		default:
			p = append(p, []string{"scenario", "run", id})
		}
	}
	return p
}

// cliNumber reads a flag value the way the CLI's parsers may: a float (or
// an integer), or a byte size with a suffix. ok is false for anything the
// CLI would refuse as a number.
func cliNumber(v string) (float64, bool) {
	t := strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(t, 64); err == nil || strings.Contains(err.Error(), "range") {
		return f, true
	}
	k := scenarios.Knob{Name: "n", Kind: scenarios.KnobBytes, Min: 0, Max: math.MaxInt64}
	if c, err := k.Parse(t); err == nil {
		n, _ := strconv.ParseInt(c, 10, 64)
		return float64(n), true
	}
	return 0, false
}

// cliFlags collects every value each flag name might take in args: a
// "-name=value" token, or "-name" and the token after it (whatever the
// CLI makes of it). Names lose their dashes, as the CLI's parser does.
func cliFlags(args []string) map[string][]string {
	out := map[string][]string{}
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name := strings.TrimLeft(a, "-")
		if k, v, ok := strings.Cut(name, "="); ok {
			out[k] = append(out[k], v)
			continue
		}
		if i+1 < len(args) {
			out[name] = append(out[name], args[i+1])
		} else {
			out[name] = append(out[name], "")
		}
	}
	return out
}

// tooCostly says whether args would make a command run past the per-input
// budget (well under 100 ms): long fault simulations, plan searches beyond
// a handful of GPUs, packet-level or flow-level collectives of many ranks.
// These limits bound the harness, not the CLI: each is a size the CLI
// accepts and runs correctly, only slowly.
func tooCostly(prefix, args []string) bool {
	all := append(append([]string(nil), prefix...), args...)
	flags := cliFlags(all)
	// largest is the largest magnitude a flag may take in args (values
	// that are no number count as 0: the CLI refuses them); def is used
	// when the flag is absent.
	largest := func(name string, def float64) float64 {
		vs, ok := flags[name]
		if !ok {
			return def
		}
		m := 0.0
		for _, v := range vs {
			if f, ok := cliNumber(v); ok {
				m = math.Max(m, math.Abs(f))
			}
		}
		return m
	}
	// span is the smallest and largest magnitude of a flag's numeric
	// candidate values ({def, def} when the flag is absent); ok is false
	// when none is a number.
	span := func(name string, def float64) ([2]float64, bool) {
		vs, ok := flags[name]
		if !ok {
			return [2]float64{def, def}, true
		}
		r, found := [2]float64{math.Inf(1), 0}, false
		for _, v := range vs {
			if f, ok := cliNumber(v); ok && !math.IsNaN(f) {
				r[0], r[1], found = math.Min(r[0], math.Abs(f)), math.Max(r[1], math.Abs(f)), true
			}
		}
		return r, found
	}
	line := strings.Join(all, " ")
	// --hf-config reads a file (FuzzFromHFConfig fuzzes the parser): only
	// its missing-value refusal is run here.
	if vs, ok := flags["hf-config"]; ok && (len(vs) != 1 || vs[0] != "") {
		return true
	}
	for name := range flags {
		if strings.HasPrefix(name, "hf-config=") {
			return true
		}
	}
	switch {
	case len(all) == 0:
		return false
	case all[0] == "collective":
		// Packet runs are O(n²) transfers, flow runs O(n) flows a step
		// (all-to-all O(n²)): 64 ranks run in milliseconds.
		return largest("ranks", 8) > 64 || largest("nodes", 1) > 64
	case all[0] == "faults":
		// The simulation steps once per checkpoint and once per failure;
		// faults.Validate refuses runs of more than faults.MaxEvents of
		// either (cheaply: those run). Each flag's candidate values give
		// the fewest and the most steps the command line may ask for.
		d, okD := span("days", 30)
		e, okE := span("checkpoint-every-s", 1800)
		c, okC := span("checkpoint-cost-s", 60)
		m, okM := span("mtbf-gpu-hours", 50680)
		g, okG := span("gpus", 16384)
		if !okD || !okE || !okC || !okM || !okG {
			return false // a value that is no number: refused
		}
		if d[1] > 60 {
			return true
		}
		most := math.Max(d[1]*86400/(e[0]+c[0]), d[1]*86400*g[1]/(m[0]*3600))
		least := math.Max(d[0]*86400/(e[1]+c[1]), d[0]*86400*g[0]/(m[1]*3600))
		return !(most <= 2e5) && !(least > 1.01*faults.MaxEvents)
	case all[0] == "plan":
		// A strategy search evaluates thousands of plans: only on a
		// handful of GPUs.
		if strings.Contains(line, "search") {
			for _, f := range []string{"gpus", "tp", "pp", "dp"} {
				if largest(f, 1) > 4 {
					return true
				}
			}
		}
		return false
	case len(all) >= 3 && all[0] == "scenario" && all[1] == "run":
		switch all[2] {
		case "strategy-planner", "collectives-at-scale":
			return true // named by the fuzzed text: see cliPrefixes
		case "fault-tolerance":
			// One day, from its prefix, and no other.
			return len(prefix) != 5 || strings.Contains(strings.Join(args, " "), "days")
		}
	}
	return false
}

// goTrace matches what a Go panic or fatal error prints.
var goTrace = regexp.MustCompile(`panic:|goroutine \d+ \[|runtime error|fatal error:|\.go:\d+`)

// FuzzCLI runs the command line with fuzzed arguments after each
// subcommand: it must not panic, must exit 0, 1 or 2, and on 2 print one
// line naming a flag (or the usage), never a Go stack trace.
func FuzzCLI(f *testing.F) {
	prefixes := cliPrefixes()
	// Seeds: every prefix bare and with --json, then edge cases aimed at
	// one command each (by its first word).
	for i := range prefixes {
		f.Add(uint8(i), "")
		f.Add(uint8(i), "--json")
	}
	seeds := []struct{ cmd, text string }{
		{"", "--help"},
		{"", "help plan"},
		{"", "help scenario run ring-allreduce"},
		{"", "version"},
		{"collective", "--ranks 16 -h"},
		{"plan", "--model gpt3-xl --help"},
		{"", "warp -- - = --="},
		{"", "collective --ranks=-1"},
		{"collective", "--ranks 8 --bytes 256MiB --link nvlink4 --json"},
		{"collective", "--op alltoall --ranks 16 --bytes 1GB --topology fat-tree --oversubscription 2"},
		{"collective", "--algo nvls --ranks 16"},
		{"collective", "--gpus=65 --bytes=1KiB"},
		{"collective", "--ranks 8 --nodes 3"},
		{"collective", "--oversubscription nan --topology fat-tree"},
		{"numfmt", "--format fp8-e4m3 --value 1e39"},
		{"numfmt", "--value nan --format bf16 --json"},
		{"numfmt", "--value -inf --format fp8-e4m3 --json"},
		{"attention", "--seq 4096 --head-dim 128 --heads 32 --batch 8 --impl flash"},
		{"faults", "--gpus 1024 --mtbf-gpu-hours 1e-9 --days 1"},
		{"faults", "--checkpoint-every-s 1e-300 --days 0.001"},
		// These two never returned before faults.Validate bounded a run.
		{"faults", "--checkpoint-every-s 1e-300 --checkpoint-cost-s 0 --days 0.001"},
		{"faults", "--mtbf-gpu-hours 1e-12 --restart-cost-s 0 --days 1"},
		{"faults", "--days 0 --gpus 0"},
		{"faults", "--restart-cost-s inf --json"},
		{"gemm", "--m 4096 --n 4096 --k 4096 --tile 128x128x64 --kernel tensor-tiled"},
		{"gemm", "--tile 0x0"},
		{"gemm", "--tile"},
		{"plan", "--model gpt3-175b --gpus 512 --tp 8 --pp 8 --json"},
		{"plan", "--model llama3-405b --tp 8 --pp 16 --dp 1 --schedule interleaved --interleave 2"},
		{"plan", "--params 1e11 --gpus 64 --zero 3"},
		{"plan", "--layers 2 --hidden 64 --heads 4 --seq 8 --vocab 10 --search"},
		{"plan", "--hf-config"},
		{"plan", "--model gpt3-xl --gpus 7"},
		{"plan", "--model gpt3-xl --gpus 8 --tokens 1e9 --price 2 --pue 1.2"},
		{"plan", "--model gpt3-xl --gpus 8 --tokens 1e18 --mtbf-gpu-hours 0.002 --checkpoint-cost-s 0"},
		{"roofline", "--gpu h100 --dtype fp8"},
	}
	for _, s := range seeds {
		for i, p := range prefixes {
			if len(p) == 0 && s.cmd == "" || len(p) == 1 && p[0] == s.cmd {
				f.Add(uint8(i), s.text)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		prefix := prefixes[int(which)%len(prefixes)]
		var args []string
		if text != "" {
			args = strings.Split(text, " ")
		}
		if len(args) > 64 || tooCostly(prefix, args) {
			t.Skip()
		}
		argv := append(append([]string(nil), prefix...), args...)
		out, errOut, code := runCLI(argv...)
		if goTrace.MatchString(errOut) || goTrace.MatchString(out) {
			t.Fatalf("%q: a Go trace:\n%s%s", argv, out, errOut)
		}
		switch code {
		case 0:
		case 1:
			// Exit 1 is an output error; a metric that cannot be written
			// as JSON (NaN, Inf) is a bug in the engine.
			if strings.Contains(errOut, "unsupported value") {
				t.Fatalf("%q: exit 1: %s", argv, errOut)
			}
		case 2:
			msg := strings.TrimSpace(errOut)
			if msg == "" || out != "" {
				t.Fatalf("%q: exit 2 with stdout %q and stderr %q", argv, out, errOut)
			}
			// One line, unless the line breaks are the input's own,
			// echoed back in the message.
			if !strings.HasPrefix(msg, "usage") && strings.Contains(msg, "\n") && !strings.ContainsAny(text, "\n\r") {
				t.Fatalf("%q: exit 2 with %d lines of error: %q", argv, strings.Count(msg, "\n")+1, msg)
			}
			if !namesFlag(msg) {
				t.Fatalf("%q: exit 2, but the error names no flag: %q", argv, msg)
			}
		default:
			t.Fatalf("%q: exit %d, want 0, 1 or 2; stderr %q", argv, code, errOut)
		}
	})
}

// knobName is "name:" at the start of a message's detail, the form the
// engines' errors take (e.g. "gpus: no plan fits").
var knobName = regexp.MustCompile(`^gpuscope[a-z ]*: ([a-z0-9_ ×-]+|[a-z0-9_-]+ and --[a-z0-9_-]+):`)

// namesFlag: an exit-2 message names a flag (--name, or a knob's name
// followed by a colon), lists what is allowed, or is the usage.
func namesFlag(msg string) bool {
	return strings.HasPrefix(msg, "usage") || strings.Contains(msg, "--") ||
		strings.Contains(msg, "allowed") || knobName.MatchString(msg)
}
