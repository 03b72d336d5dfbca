package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/scenarios"
)

// flagSet is a small parser for --name value and --name=value flags whose
// values are checked by scenario knobs, so the CLI, the URL fragment and the
// page report a bad value in the same words. -h and --help ask for the
// command's help (help.go), written from the same knobs.
type flagSet struct {
	knobs      []scenarios.Knob
	bools      map[string]bool
	floats     map[string]bool // names of flags that take any real number
	vals       map[string]string
	args       []string // positional arguments
	help       cmdHelp
	boolNames  []string // in the order given, for the help
	floatNames []string // likewise
	floatDefs  map[string]string
}

func newFlagSet(knobs []scenarios.Knob, bools ...string) *flagSet {
	fs := &flagSet{knobs: knobs, bools: map[string]bool{}, floats: map[string]bool{}, vals: map[string]string{}}
	for _, b := range bools {
		fs.bools[b] = false
	}
	fs.boolNames = bools
	return fs
}

// float adds a flag that takes any real number, with its default ("" for
// none).
func (fs *flagSet) float(name, def string) {
	fs.floats[name] = true
	fs.floatNames = append(fs.floatNames, name)
	if fs.floatDefs == nil {
		fs.floatDefs = map[string]string{}
	}
	fs.floatDefs[name] = def
}

// number returns a float flag's value or its default.
func (fs *flagSet) number(name string) float64 {
	v, ok := fs.vals[name]
	if !ok {
		v = fs.floatDefs[name]
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// errHelp is parse's answer to -h or --help.
var errHelp = errors.New("help requested")

// isHelp reports whether a command-line word asks for help.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// stop ends a command whose flags did not parse: the help on stdout and
// status 0 for -h or --help, else the one-line error on stderr and status
// 2.
func (fs *flagSet) stop(err error, stdout, stderr io.Writer) int {
	if errors.Is(err, errHelp) {
		fs.writeHelp(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", fs.help.name, err)
	return 2
}

func (fs *flagSet) allowed() string {
	var names []string
	for _, k := range fs.knobs {
		names = append(names, "--"+k.Name)
	}
	for name := range fs.bools {
		names = append(names, "--"+name)
	}
	for name := range fs.floats {
		names = append(names, "--"+name)
	}
	return strings.Join(sortStrings(names), ", ")
}

// parse reads args; the error is one line naming the flag.
func (fs *flagSet) parse(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			fs.args = append(fs.args, a)
			continue
		}
		if isHelp(a) {
			return errHelp
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		if _, ok := fs.bools[name]; ok {
			if hasValue && value != "true" && value != "false" {
				return fmt.Errorf("--%s: %q is not allowed; allowed true, false", name, value)
			}
			// "--flash false" would set the switch and leave "false" an
			// argument of its own: say how to write it.
			if !hasValue && i+1 < len(args) {
				if v, ok := switchWord(args[i+1]); ok {
					return fmt.Errorf("--%s takes no separate value; write --%s=%s", name, name, v)
				}
			}
			fs.bools[name] = !hasValue || value == "true"
			continue
		}
		if fs.floats[name] {
			if !hasValue {
				if i+1 >= len(args) {
					return fmt.Errorf("--%s: missing value; allowed: a number such as 70000, 1e-8, -0.5, inf or nan", name)
				}
				i++
				value = args[i]
			}
			if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("--%s: %q is not a number; allowed: a number such as 70000, 1e-8, -0.5, inf or nan", name, value)
			}
			fs.vals[name] = strings.TrimSpace(value)
			continue
		}
		knob, ok := fs.knob(name)
		if !ok {
			return fmt.Errorf("%s: unknown flag; allowed: %s", a, fs.allowed())
		}
		if !hasValue {
			if i+1 >= len(args) {
				return fmt.Errorf("--%s: missing value; %s", name, describe(knob))
			}
			i++
			value = args[i]
		}
		canon, err := knob.Parse(value)
		if err != nil {
			return fmt.Errorf("--%s", err.Error())
		}
		fs.vals[name] = canon
	}
	return nil
}

// switchWord reads a word a user may have meant as a switch's value
// ("false", "on", "0"): true or false, and whether it is one.
func switchWord(w string) (string, bool) {
	switch strings.ToLower(w) {
	case "true", "t", "on", "yes", "1":
		return "true", true
	case "false", "f", "off", "no", "0":
		return "false", true
	}
	return "", false
}

func (fs *flagSet) knob(name string) (scenarios.Knob, bool) {
	for _, k := range fs.knobs {
		if k.Name == name {
			return k, true
		}
	}
	return scenarios.Knob{}, false
}

// value returns the flag's canonical value or its knob's default.
func (fs *flagSet) value(name string) string {
	if v, ok := fs.vals[name]; ok {
		return v
	}
	k, _ := fs.knob(name)
	return k.Default
}

func describe(k scenarios.Knob) string {
	switch k.Kind {
	case scenarios.KnobEnum:
		return "allowed " + strings.Join(k.Values, ", ")
	case scenarios.KnobBytes:
		return fmt.Sprintf("allowed %d–%d bytes (suffixes KB, MB, GB, KiB, MiB, GiB)", k.Min, k.Max)
	case scenarios.KnobFloat:
		return fmt.Sprintf("allowed %g–%g", k.FMin, k.FMax)
	}
	return fmt.Sprintf("allowed %d–%d", k.Min, k.Max)
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
