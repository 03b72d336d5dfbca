package course

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Error is a problem in a course source file, reported as file:line.
type Error struct {
	File string
	Line int // 0 when it concerns the whole file
	Msg  string
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// blockKind is what a piece of a source file is.
type blockKind int

const (
	blockProse   blockKind = iota // Markdown
	blockHeading                  // a "## " line: a new section starts
	blockShow                     // ::: show
	blockFormula                  // ::: formula
	blockNumbers                  // ::: numbers
	blockTeacher                  // ::: teacher
)

// block is one piece of a source file: a run of Markdown lines, a level-2
// heading, or a directive with its arguments and lines.
type block struct {
	kind blockKind
	name string // the directive's name
	line int    // the first line: the directive's own, or the prose's
	args map[string]string
	// lines are the prose, the heading line, or a directive's lines
	// between its opening and closing ":::"; lines[0] is on bodyLine.
	lines    []string
	bodyLine int
}

// text is the block's lines joined, ending in a newline.
func (b *block) text() string {
	if len(b.lines) == 0 {
		return ""
	}
	return strings.Join(b.lines, "\n") + "\n"
}

// directive describes a directive: its keys and what lines it takes.
type directive struct {
	kind     blockKind
	required []string
	optional []string
	// maxLines limits the non-blank lines (-1: any); minLines is the
	// least.
	minLines, maxLines int
	what               string // what its lines are, for messages
}

var directives = map[string]directive{
	"show":    {kind: blockShow, required: []string{"step"}, optional: []string{"set"}, maxLines: 1, what: "one optional line, the button's label"},
	"formula": {kind: blockFormula, required: []string{"source"}, optional: []string{"href"}, minLines: 1, maxLines: -1, what: "the formula, one or more lines"},
	"numbers": {kind: blockNumbers, required: []string{"step"}, maxLines: 0, what: "no lines"},
	"teacher": {kind: blockTeacher, maxLines: -1, what: "Markdown"},
}

func directiveNames() string {
	names := make([]string, 0, len(directives))
	for n := range directives {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

var (
	// directiveLine is an opening "::: name args" line.
	directiveLine = regexp.MustCompile(`^:::[ \t]*(\S*)[ \t]*(.*)$`)
	// h2Line is an ATX level-2 heading (CommonMark: up to three spaces of
	// indentation, then "##" and a space or the end of the line).
	h2Line = regexp.MustCompile(`^ {0,3}##(?:[ \t]|$)`)
	h1Line = regexp.MustCompile(`^ {0,3}#(?:[ \t]|$)`)
	// fenceLine opens or closes a fenced code block.
	fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
)

// parseSource splits a source file into prose, level-2 headings and
// directive blocks, checking each directive's name, keys and lines. It
// does not know the lesson: checkLesson checks steps and knobs.
func parseSource(file string, src []byte) ([]block, []error) {
	text := strings.TrimPrefix(string(src), "\uFEFF")
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var (
		blocks []block
		errs   []error
		prose  *block
		open   *block // the directive being read
		fence  string // the open code fence's marker, "" outside one
	)
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	flush := func() {
		if prose != nil {
			blocks = append(blocks, *prose)
			prose = nil
		}
	}
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(raw, "\r")
		if open != nil {
			trimmed := strings.TrimSpace(line)
			switch {
			case trimmed == ":::":
				if open.name != "" {
					finishDirective(file, open, &errs)
					blocks = append(blocks, *open)
				}
				open = nil
			case strings.HasPrefix(trimmed, ":::"):
				fail(n, "%q inside the ::: %s block opened at line %d: close that block with a line \":::\" first", trimmed, open.name, open.line)
			default:
				if len(open.lines) == 0 {
					open.bodyLine = n
				}
				open.lines = append(open.lines, line)
			}
			continue
		}
		if fence != "" {
			if m := fenceLine.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[strings.Index(line, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			addProse(&prose, n, line)
			continue
		}
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			fence = m[1]
			addProse(&prose, n, line)
			continue
		}
		if strings.HasPrefix(line, ":::") {
			m := directiveLine.FindStringSubmatch(line)
			name := m[1]
			if name == "" {
				fail(n, "a closing \":::\" without an open block (a block starts with a line such as \"::: show step=2\")")
				continue
			}
			d, ok := directives[name]
			if !ok {
				fail(n, "unknown directive ::: %s (known: %s)", name, directiveNames())
				// Read its lines all the same, so that its closing
				// ":::" does not count as a stray one.
			}
			args, err := parseArgs(m[2])
			if err != nil {
				fail(n, "::: %s: %v", name, err)
			}
			flush()
			open = &block{kind: d.kind, name: name, line: n, args: args}
			if ok && err == nil {
				checkKeys(file, n, name, d, args, &errs)
			}
			if !ok {
				open.name = "" // finishDirective skips it
			}
			continue
		}
		if h1Line.MatchString(line) {
			fail(n, "a level-1 heading: the page's title comes from the lesson catalogue; start sections at ##")
		}
		if h2Line.MatchString(line) {
			flush()
			blocks = append(blocks, block{kind: blockHeading, line: n, lines: []string{line}, bodyLine: n})
			continue
		}
		addProse(&prose, n, line)
	}
	if open != nil {
		name := open.name
		if name == "" {
			name = "block"
		}
		fail(open.line, "::: %s is never closed: end it with a line \":::\"", name)
	}
	flush()
	return blocks, errs
}

func addProse(prose **block, n int, line string) {
	if *prose == nil {
		*prose = &block{kind: blockProse, line: n, bodyLine: n}
	}
	(*prose).lines = append((*prose).lines, line)
}

// finishDirective checks a closed directive's lines.
func finishDirective(file string, b *block, errs *[]error) {
	if b.name == "" {
		return
	}
	d := directives[b.name]
	var content []string
	for _, l := range b.lines {
		if strings.TrimSpace(l) != "" {
			content = append(content, l)
		}
	}
	if len(content) < d.minLines || (d.maxLines >= 0 && len(content) > d.maxLines) {
		*errs = append(*errs, &Error{File: file, Line: b.line, Msg: fmt.Sprintf("::: %s takes %s; it has %d line(s)", b.name, d.what, len(content))})
	}
	if b.kind != blockTeacher {
		b.lines = content
	}
}

// checkKeys reports missing and unknown keys of a directive.
func checkKeys(file string, line int, name string, d directive, args map[string]string, errs *[]error) {
	for _, k := range d.required {
		if _, ok := args[k]; !ok {
			*errs = append(*errs, &Error{File: file, Line: line, Msg: fmt.Sprintf("::: %s needs %s=", name, k)})
		}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(d.required, k) && !slices.Contains(d.optional, k) {
			allowed := append(append([]string(nil), d.required...), d.optional...)
			*errs = append(*errs, &Error{File: file, Line: line, Msg: fmt.Sprintf("::: %s has no key %q (it takes: %s)", name, k, strings.Join(allowed, ", "))})
		}
	}
}

// parseArgs reads `key=value key="a value with spaces"` pairs.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	s = strings.TrimSpace(s)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		sp := strings.IndexAny(s, " \t")
		if eq <= 0 || (sp >= 0 && sp < eq) {
			word := s
			if sp >= 0 {
				word = s[:sp]
			}
			return args, fmt.Errorf("%q is not key=value", word)
		}
		key := s[:eq]
		if !isKey(key) {
			return args, fmt.Errorf("%q is not a key (letters, digits, '_' and '-')", key)
		}
		rest := s[eq+1:]
		var value string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return args, fmt.Errorf("the value of %s has no closing quote", key)
			}
			value = rest[1 : 1+end]
			rest = rest[2+end:]
			if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				return args, fmt.Errorf("the value of %s: a space must follow the closing quote", key)
			}
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			value = rest[:end]
			if strings.Contains(value, `"`) {
				return args, fmt.Errorf("the value of %s: quote the whole value (%s=\"…\")", key, key)
			}
			rest = rest[end:]
		}
		if _, dup := args[key]; dup {
			return args, fmt.Errorf("%s is given twice", key)
		}
		args[key] = value
		s = strings.TrimSpace(rest)
	}
	return args, nil
}

func isKey(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// stepArg reads a directive's step=N, 1 ≤ N ≤ steps.
func stepArg(b *block, steps int) (int, error) {
	v := b.args["step"]
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("::: %s step=%s: want a step number from 1", b.name, v)
	}
	if n > steps {
		return 0, fmt.Errorf("::: %s step=%d is out of range: the lesson has %d steps", b.name, n, steps)
	}
	return n, nil
}

// headingText is the text of a "## " heading line, without the closing
// #s CommonMark allows.
func headingText(line string) string {
	t := strings.TrimSpace(line)
	t = strings.TrimSpace(strings.TrimPrefix(t, "##"))
	if strings.HasSuffix(t, "#") {
		s := strings.TrimRight(t, "#")
		if s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t") {
			t = strings.TrimSpace(s)
		}
	}
	return t
}
