package course

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Entry is one glossary entry.
type Entry struct {
	ID     string
	Term   map[string]string // by language
	Def    map[string]string // Markdown, by language
	Lesson string            // "" or a lesson id
	See    []string          // related entry ids
	Line   int
	// seeLine is where the see: line is, for its errors.
	seeLine, lessonLine int
}

var entryID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// parseGlossary reads glossary.txt (FORMAT.md): entries that start with
// "## ID", then "key: value" lines. lessons are the known lesson ids.
func parseGlossary(file string, src []byte, lessons []string) ([]*Entry, []error) {
	var (
		entries []*Entry
		errs    []error
		cur     *Entry
		seen    = map[string]int{}
	)
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	finish := func() {
		if cur == nil {
			return
		}
		for _, k := range []string{"en", "zh"} {
			if cur.Term[k] == "" {
				fail(cur.Line, "glossary entry %s has no %s: line (the term in that language)", cur.ID, k)
			}
			if cur.Def[k] == "" {
				fail(cur.Line, "glossary entry %s has no def.%s: line (the definition in that language)", cur.ID, k)
			}
		}
		entries = append(entries, cur)
		cur = nil
	}
	text := strings.TrimPrefix(string(src), "\uFEFF")
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(strings.TrimRight(raw, "\r"))
		if line == "" {
			continue
		}
		if id, ok := strings.CutPrefix(line, "## "); ok {
			finish()
			id = strings.TrimSpace(id)
			if !entryID.MatchString(id) {
				fail(n, "glossary id %q: use lower-case letters, digits and '-'", id)
			}
			if prev, dup := seen[id]; dup {
				fail(n, "glossary entry %s is defined twice (first at line %d)", id, prev)
			}
			seen[id] = n
			cur = &Entry{ID: id, Term: map[string]string{}, Def: map[string]string{}, Line: n}
			continue
		}
		if cur == nil {
			fail(n, "a line before the first entry: each entry starts with \"## ID\"")
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			fail(n, "glossary entry %s: %q is not a \"key: value\" line", cur.ID, line)
			continue
		}
		dup := false
		switch key {
		case "en", "zh":
			dup = cur.Term[key] != ""
			cur.Term[key] = value
		case "def.en", "def.zh":
			lang := strings.TrimPrefix(key, "def.")
			dup = cur.Def[lang] != ""
			cur.Def[lang] = value
		case "lesson":
			dup = cur.Lesson != ""
			cur.Lesson, cur.lessonLine = value, n
			if !slices.Contains(lessons, value) {
				fail(n, "glossary entry %s: lesson %q is not a lesson id (scenarios/data/curriculum.txt)", cur.ID, value)
			}
		case "see":
			dup = cur.See != nil
			cur.seeLine = n
			cur.See = []string{}
			for _, s := range strings.Split(value, ",") {
				if s = strings.TrimSpace(s); s != "" {
					cur.See = append(cur.See, s)
				}
			}
		default:
			fail(n, "glossary entry %s: unknown key %q (keys: en, zh, def.en, def.zh, lesson, see)", cur.ID, key)
			continue
		}
		if dup {
			fail(n, "glossary entry %s: %s is given twice", cur.ID, key)
		}
	}
	finish()
	for _, e := range entries {
		for _, s := range e.See {
			if _, ok := seen[s]; !ok {
				fail(e.seeLine, "glossary entry %s: see %q, which is not an entry", e.ID, s)
			} else if s == e.ID {
				fail(e.seeLine, "glossary entry %s: sees itself", e.ID)
			}
		}
	}
	return entries, errs
}
