package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpuscope/gpuscope/scenarios"
)

// cmdHelp is a command's --help: its usage line, what it does and what
// each flag sets. Allowed values and defaults come from the flag set's
// knobs, so that the help and the parser cannot disagree; flagDoc gives
// them only where a knob cannot (free text, defaults worked out from other
// flags).
type cmdHelp struct {
	name  string // "gpuscope attention"
	usage string // what follows the name on the usage line
	about string // a paragraph, wrapped by hand
	flags map[string]flagDoc
	// extra are flags read before the flag set sees them (plan's
	// --hf-config), listed after the knobs.
	extra []string
}

// flagDoc documents one flag.
type flagDoc struct {
	what    string // what it sets
	arg     string // the value's placeholder, when not the knob kind's
	allowed string // when the knob does not say (floats, free text)
	def     string // when the knob has no fixed default
}

// writeHelp writes the command's usage, what it does, and every flag with
// its allowed values and its default.
func (fs *flagSet) writeHelp(w io.Writer) {
	h := fs.help
	fmt.Fprintf(w, "usage: %s %s\n", h.name, h.usage)
	if h.about != "" {
		fmt.Fprintf(w, "\n%s\n", h.about)
	}
	fmt.Fprintf(w, "\nflags:\n")
	for _, f := range fs.helpFlags() {
		fmt.Fprintf(w, "  %s\n%s\n", f[0], wrap(f[1], "        ", 80))
	}
	fmt.Fprintf(w, "  -h, --help\n        print this help\n")
}

// helpFlags is each flag's first help line (name and value) and second
// (what it sets; allowed values; default), in the order knobs, then flags
// taking any number, then flags read beforehand, then switches.
func (fs *flagSet) helpFlags() [][2]string {
	var out [][2]string
	line := func(name, arg, what, allowed, def string) {
		head := "--" + name
		if arg != "" {
			head += " " + arg
		}
		if what == "" {
			what = "(undocumented)" // TestHelpEveryFlag fails on this
		}
		out = append(out, [2]string{head, what + "; " + allowed + "; default " + def})
	}
	for _, k := range fs.knobs {
		d := fs.help.flags[k.Name]
		arg := map[scenarios.KnobKind]string{scenarios.KnobInt: "N", scenarios.KnobBytes: "SIZE", scenarios.KnobFloat: "X", scenarios.KnobEnum: "NAME"}[k.Kind]
		allowed := describe(k)
		def := k.Default
		if n, err := strconv.ParseInt(def, 10, 64); k.Kind == scenarios.KnobBytes && err == nil {
			def = scenarios.FormatBytes(n) // as the reader may type it: 256MiB
		}
		if d.allowed != "" {
			allowed = "allowed " + d.allowed
		}
		if d.def != "" {
			def = d.def
		}
		if def == "" {
			def = "none"
		}
		if d.arg != "" {
			arg = d.arg
		}
		line(k.Name, arg, d.what, allowed, def)
	}
	for _, name := range fs.floatNames {
		d := fs.help.flags[name]
		allowed := "a number such as 70000, 1e-8, -0.5, inf or nan"
		if d.allowed != "" {
			allowed = d.allowed
		}
		def := fs.floatDefs[name]
		if d.def != "" {
			def = d.def
		}
		if def == "" {
			def = "none"
		}
		line(name, "X", d.what, "allowed "+allowed, def)
	}
	for _, name := range fs.help.extra {
		d := fs.help.flags[name]
		def := d.def
		if def == "" {
			def = "none"
		}
		line(name, d.arg, d.what, "allowed "+d.allowed, def)
	}
	for _, name := range fs.boolNames {
		d := fs.help.flags[name]
		def := "off"
		if d.def != "" {
			def = d.def
		}
		what := d.what
		if what == "" {
			what = "(undocumented)"
		}
		out = append(out, [2]string{"--" + name + "[=true|false]", what + "; default " + def})
	}
	return out
}

// wrap breaks text into lines of at most width columns (a word longer
// than that stays whole), each starting with indent.
func wrap(text, indent string, width int) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// jsonDoc is --json's help, the same for every calculator.
var jsonDoc = flagDoc{what: "print the numbers as JSON (the field names are a contract)"}

// runHelp is `gpuscope help [CMD …]`: the list of commands, or CMD's help.
// Help about help (`help help`, `help --help`, `--help -h`) is the list of
// commands too: it is never handed back to run as a command, which would
// ask runHelp again, without end.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "help" || isHelp(args[0])) {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "gpuscope help: unexpected argument %q after %s; usage: gpuscope help [CMD]\n", args[1], args[0])
			return 2
		}
		args = nil
	}
	if len(args) == 0 {
		fmt.Fprintln(stdout, usage)
		return 0
	}
	return run(append(append([]string(nil), args...), "--help"), stdout, stderr)
}

// runVersion is `gpuscope version`: the module version and the VCS
// revision the binary was built from.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if isHelp(args[0]) {
			fmt.Fprintln(stdout, "usage: gpuscope version\n\nThe module version (\"(devel)\" when built from a checkout) and the VCS revision\nthe binary was built from (\"unknown\" when the build did not record one, as with\ngo run or a build outside a git checkout).")
			return 0
		}
		fmt.Fprintf(stderr, "gpuscope version: unexpected argument %q; allowed: no arguments\n", args[0])
		return 2
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, ok))
	return 0
}

// versionText is what gpuscope version prints for a build's information:
// the module version, the VCS revision (and whether the tree had
// uncommitted changes), its commit time and the Go version. What the
// build did not record is said to be unknown.
func versionText(bi *debug.BuildInfo, ok bool) string {
	version, revision, when, modified, goVersion := "(devel)", "unknown", "", "", "unknown"
	if ok && bi != nil {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (with uncommitted changes)"
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gpuscope %s\n", version)
	fmt.Fprintf(&b, "  revision  %s%s\n", revision, modified)
	if when != "" {
		fmt.Fprintf(&b, "  committed %s\n", when)
	}
	fmt.Fprintf(&b, "  go        %s\n", goVersion)
	return b.String()
}
