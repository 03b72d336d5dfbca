package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/units"
)

// helpCommands are the command lines whose help the tests ask for.
var helpCommands = [][]string{
	{"collective"}, {"numfmt"}, {"attention"}, {"faults"}, {"gemm"}, {"plan"}, {"quantize"}, {"roofline"}, {"route"}, {"validate"},
	{"scenario"}, {"scenario", "list"}, {"scenario", "run"}, {"scenario", "run", "ring-allreduce"},
	{"scenario", "run", "3d-parallel"}, {"serve"}, {"site"}, {"version"},
}

// `gpuscope CMD --help`, `CMD -h` and `gpuscope help CMD` print the same
// usage on stdout and exit 0, with nothing on stderr — even after other
// flags.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range helpCommands {
		name := strings.Join(cmd, " ")
		want, errOut, code := runCLI(append(slices.Clone(cmd), "--help")...)
		if code != 0 || errOut != "" || !strings.HasPrefix(want, "usage: gpuscope "+cmd[0]) {
			t.Errorf("%s --help: exit %d, stderr %q, stdout %q; want 0, nothing and the usage", name, code, errOut, want)
			continue
		}
		for _, args := range [][]string{
			append(slices.Clone(cmd), "-h"),
			append([]string{"help"}, cmd...),
		} {
			got, errOut, code := runCLI(args...)
			if code != 0 || errOut != "" || got != want {
				t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant 0 and the same as %s --help:\n%s", args, code, errOut, got, name, want)
			}
		}
	}
	for _, args := range [][]string{
		{"collective", "--ranks", "16", "--help"}, {"plan", "--model", "gpt3-xl", "-h"}, {"gemm", "--tile", "16", "--help"},
		{"scenario", "run", "ring-allreduce", "--gpus", "16", "-h"},
	} {
		if out, errOut, code := runCLI(args...); code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: ") {
			t.Errorf("%q: exit %d, stderr %q; want the usage and 0", args, code, errOut)
		}
	}
	// The command list.
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		out, errOut, code := runCLI(args...)
		if code != 0 || errOut != "" || out != usage+"\n" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want 0 and the command list", args, code, errOut, out)
		}
	}
	for _, c := range []string{"help [CMD]", "version", "CMD --help"} {
		if !strings.Contains(usage, "gpuscope "+c) {
			t.Errorf("the usage does not mention gpuscope %s", c)
		}
	}
}

// Help for what does not exist, or an unknown flag, is refused as before:
// one line, exit 2.
func TestHelpRefusals(t *testing.T) {
	checkRefusals(t, []refusal{
		{[]string{"help", "warp"}, []string{"warp", "allowed", "collective"}},
		{[]string{"help", "scenario", "fly"}, []string{"fly", "list, run"}},
		{[]string{"help", "scenario", "run", "nope"}, []string{"nope", "ring-allreduce"}},
		{[]string{"collective", "--help=yes"}, []string{"--help=yes", "unknown flag"}},
		{[]string{"version", "--short"}, []string{"--short", "no arguments"}},
	})
}

// helpFlagLines reads a --help into each flag's description (its
// continuation lines joined), by flag name without dashes.
func helpFlagLines(t *testing.T, help string) map[string]string {
	t.Helper()
	out := map[string]string{}
	name := ""
	head := regexp.MustCompile(`^  (?:-h, )?--([a-z0-9-]+)`)
	for _, l := range strings.Split(help, "\n") {
		if m := head.FindStringSubmatch(l); m != nil {
			name = m[1]
			out[name] = ""
			continue
		}
		if name != "" && strings.HasPrefix(l, "        ") {
			out[name] = strings.TrimSpace(out[name] + " " + strings.TrimSpace(l))
			continue
		}
		name = ""
	}
	return out
}

// acceptedFlags are the flags a command's parser takes, as its unknown-flag
// error lists them.
func acceptedFlags(t *testing.T, cmd []string) []string {
	t.Helper()
	_, errOut, code := runCLI(append(slices.Clone(cmd), "--no-such-flag")...)
	_, list, ok := strings.Cut(errOut, "unknown flag; allowed: ")
	if code != 2 || !ok {
		t.Fatalf("%v --no-such-flag: exit %d, %q; want the allowed flags", cmd, code, errOut)
	}
	var names []string
	for _, f := range strings.Split(strings.TrimSpace(list), ", ") {
		names = append(names, strings.TrimPrefix(f, "--"))
	}
	if slices.Equal(cmd, []string{"plan"}) {
		names = append(names, "hf-config") // read before the flag parser
	}
	return names
}

// Every flag a command's parser accepts is in its help, described, with
// its allowed values (switches: true or false) and its default; and each
// default the help states as a value is the command's: giving it changes
// nothing.
func TestHelpEveryFlag(t *testing.T) {
	tests := []struct {
		cmd  []string
		base []string // arguments the command needs to run
		// flags whose stated default is checked from base; nil: all
		check []string
		// what the help must say of some flags
		says map[string][]string
	}{
		{cmd: []string{"collective"}, base: []string{"--nodes", "1"}, check: []string{"op", "algo", "ranks", "bytes", "link", "inter", "json"},
			says: map[string][]string{"bytes": {"default 256MiB"}, "algo": {"allowed ring, tree, hierarchical, star, nvls"}}},
		// The fabric's flags from a fabric run: any of them selects it.
		{cmd: []string{"collective"}, base: []string{"--topology", "fat-tree"}, check: []string{"gpus-per-node", "intra", "inter", "link", "oversubscription"},
			says: map[string][]string{"oversubscription": {"allowed 1–64", "default 1"}}},
		{cmd: []string{"numfmt"}, base: []string{"--value", "70000"}, says: map[string][]string{"value": {"default none: required"}}},
		{cmd: []string{"attention"}, says: map[string][]string{"impl": {"allowed standard, flash", "default flash"}}},
		{cmd: []string{"faults"}, base: []string{"--days", "1"}, says: map[string][]string{"days": {"default 30"}, "mtbf-gpu-hours": {"default 50680"}}},
		{cmd: []string{"gemm"}, base: []string{"--m", "1024", "--n", "1024", "--k", "1024"},
			says: map[string][]string{"tile": {"default 16 for smem-tiled, 128x128x64 for tensor-tiled"}}},
		{cmd: []string{"plan"}, base: []string{"--model", "gpt3-xl", "--gpus", "8", "--tp", "2"},
			says: map[string][]string{
				"sp": {"default on when --tp > 1"}, "flash": {"default on"}, "overlap": {"default on"},
				"recompute": {"allowed none, selective, full, op", "default selective"}, "dp": {"default gpus ÷ (tp × pp)"},
			}},
		{cmd: []string{"quantize"}, base: []string{"--values", "4096"},
			says: map[string][]string{"recipe": {"allowed tensor, block128, mxfp8, nvfp4", "default tensor"}, "values": {"allowed 1–16777216"}}},
		{cmd: []string{"roofline"}},
		{cmd: []string{"scenario", "list"}},
		{cmd: []string{"scenario", "run", "ring-allreduce"}, says: map[string][]string{"gpus": {"allowed 2–64; default 8"}, "nodes": {"allowed 1, 2, 4, 8; default 1"}}},
		{cmd: []string{"scenario", "run", "number-formats"}},
	}
	for _, tt := range tests {
		name := strings.Join(tt.cmd, " ")
		help, _, _ := runCLI(append(slices.Clone(tt.cmd), "--help")...)
		lines := helpFlagLines(t, help)
		base, _, code := runCLI(append(append(slices.Clone(tt.cmd), tt.base...), "--json")...)
		if code != 0 {
			t.Fatalf("%s %q --json: exit %d", name, tt.base, code)
		}
		for _, f := range acceptedFlags(t, tt.cmd) {
			d, ok := lines[f]
			if !ok {
				t.Errorf("%s --help does not list --%s:\n%s", name, f, help)
				continue
			}
			isBool := strings.Contains(help, "  --"+f+"[=true|false]\n") // a switch: its values are on its line
			if strings.Contains(d, "(undocumented)") || !strings.Contains(d, "; default ") || !isBool && !strings.Contains(d, "allowed ") {
				t.Errorf("%s --help: --%s is %q; want what it sets, its allowed values and its default", name, f, d)
			}
			for _, w := range tt.says[f] {
				if !strings.Contains(d, w) {
					t.Errorf("%s --help: --%s is %q; want it to say %q", name, f, d, w)
				}
			}
			if tt.check != nil && !slices.Contains(tt.check, f) {
				continue
			}
			// A default stated as one value: giving it changes nothing.
			def := d[strings.LastIndex(d, "; default ")+len("; default "):]
			if strings.ContainsAny(def, " ;") || def == "none" || slices.Contains(tt.base, "--"+f) {
				continue
			}
			arg := []string{"--" + f, def}
			if isBool {
				arg = []string{"--" + f + "=" + map[string]string{"on": "true", "off": "false"}[def]}
			}
			got, errOut, code := runCLI(append(append(append(slices.Clone(tt.cmd), tt.base...), arg...), "--json")...)
			if code != 0 || !sameOutput(t, got, base) {
				t.Errorf("%s: the help's default for --%s is %q, but %q changes the output (exit %d, %s)", name, f, def, arg, code, errOut)
			}
		}
	}
}

// sameOutput compares two --json outputs, less plan's "defaulted" (the
// flags not given, which giving a default changes).
func sameOutput(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	for _, v := range []any{x, y} {
		if m, ok := v.(map[string]any); ok {
			delete(m, "defaulted")
		}
	}
	return reflect.DeepEqual(x, y)
}

// serve and site use Go's flag package: their help lists their flags too.
func TestHelpServeSite(t *testing.T) {
	for cmd, flags := range map[string][]string{"serve": {"--addr HOST:PORT", "--dir DIR"}, "site": {"--dist DIR", "--base URL", "--course DIR"}} {
		out, _, _ := runCLI(cmd, "--help")
		for _, f := range flags {
			if !strings.Contains(out, "  "+f) {
				t.Errorf("%s --help does not describe %s:\n%s", cmd, f, out)
			}
		}
		if strings.Count(out, "default") < len(flags) {
			t.Errorf("%s --help does not give every flag's default:\n%s", cmd, out)
		}
	}
}

func TestVersionText(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
	}{
		{"no build information", nil, false, []string{"gpuscope (devel)\n", "revision  unknown\n", "go        unknown\n"}},
		{"a checkout, not stamped", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, true,
			[]string{"gpuscope (devel)\n", "revision  unknown\n", "go        go1.26.8\n"}},
		{"go install …@v0.3.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "a421948f00d"}, {Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: "false"},
		}}, true, []string{"gpuscope v0.3.0\n", "revision  a421948f00d\n", "committed 2026-11-30T10:00:00Z\n"}},
		{"a dirty tree", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130100000-a421948f00d0+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "a421948f00d0"}, {Key: "vcs.modified", Value: "true"},
		}}, true, []string{"gpuscope v0.0.0-20261130100000-a421948f00d0+dirty\n", "revision  a421948f00d0 (with uncommitted changes)\n"}},
	}
	for _, tt := range tests {
		got := versionText(tt.bi, tt.ok)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: versionText = %q, want it to contain %q", tt.name, got, w)
			}
		}
	}
	out, errOut, code := runCLI("version")
	bi, ok := debug.ReadBuildInfo()
	if code != 0 || errOut != "" || out != versionText(bi, ok) {
		t.Errorf("gpuscope version: exit %d, stderr %q, stdout %q; want 0 and %q", code, errOut, out, versionText(bi, ok))
	}
	if out2, _, code := runCLI("--version"); code != 0 || out2 != out {
		t.Errorf("gpuscope --version: exit %d, %q; want the same as gpuscope version", code, out2)
	}
}

// faults --help's paragraph states the defaults the flags have (issue 36:
// it said Llama 3's 54 days while --days defaulted to 30), and a run with
// no flags is that run.
func TestFaultsHelpStatesItsDefaults(t *testing.T) {
	help, _, _ := runCLI("faults", "--help")
	flags := helpFlagLines(t, help)
	def := func(name string) string {
		m := regexp.MustCompile(`default (\S+)$`).FindStringSubmatch(flags[name])
		if m == nil {
			t.Fatalf("--%s's help %q names no default", name, flags[name])
		}
		return m[1]
	}
	days, gpus, mtbf := def("days"), def("gpus"), def("mtbf-gpu-hours")
	about, _, _ := strings.Cut(help, "\nflags:")
	_, defaults, ok := strings.Cut(strings.Join(strings.Fields(about), " "), "The defaults")
	if !ok {
		t.Fatalf("faults --help does not state its defaults:\n%s", about)
	}
	n := func(s string) string {
		v, _ := strconv.ParseInt(s, 10, 64)
		return units.Count(v)
	}
	for _, w := range []string{days + "-day job", "on " + n(gpus) + " GPUs", "MTBF of " + n(mtbf) + " h"} {
		if !strings.Contains(defaults, w) {
			t.Errorf("faults --help says %q of its defaults; want %q (the flags' defaults: --days %s, --gpus %s, --mtbf-gpu-hours %s)", defaults, w, days, gpus, mtbf)
		}
	}
	out, _, _ := runCLI("faults")
	if want := gpus + " GPUs for " + days + " days"; !strings.HasPrefix(out, want) {
		t.Errorf("faults with no flags: %q, want it to begin %q", strings.SplitN(out, "\n", 2)[0], want)
	}
}
