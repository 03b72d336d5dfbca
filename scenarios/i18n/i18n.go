package i18n

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Fallback is the language used when a requested one is not known.
const Fallback = "en"

// langs lists the languages in the order a language picker shows them.
var langs = []string{"en", "zh"}

// entry is one key = value line of a catalogue.
type entry struct {
	value string
	line  int
}

// catalogue is one parsed language file.
type catalogue struct {
	file    string
	entries map[string]entry
}

// parseError is a problem in a catalogue file, reported as file:line.
type parseError struct {
	file string
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// catalogues maps a language to its catalogue. loadErrs holds the problems
// found while parsing the embedded files; the tests fail on any of them. A
// malformed line is skipped, so the rest of the catalogue still works.
// Without the i18nfetch tag every language is embedded; with it only
// English is, and the others are added by Load or through the source
// (SetSource) when first asked for. mu guards catalogues, source and
// failed.
var (
	mu                   sync.RWMutex
	catalogues, loadErrs = loadAll()
	source               func(lang string) (string, error)
	failed               = map[string]bool{} // languages the source could not supply
)

func loadAll() (map[string]*catalogue, []error) {
	cats := make(map[string]*catalogue, len(langs))
	var errs []error
	for _, lang := range langs {
		name := lang + ".txt"
		src, err := fs.ReadFile(files, name)
		if err != nil {
			if !fetched {
				errs = append(errs, err)
				cats[lang] = &catalogue{file: name, entries: map[string]entry{}}
			}
			continue // fetched: Load or the source adds it
		}
		c, perrs := parse(name, string(src))
		cats[lang] = c
		errs = append(errs, perrs...)
	}
	return cats, errs
}

// Load installs lang's catalogue from its text (the format of en.txt), in
// place of any it had. A malformed line is skipped, as in the embedded
// files, and reported in the error, which names lang.txt and the line;
// the rest of the catalogue is installed all the same. lang must be one
// of Langs.
func Load(lang, text string) error {
	if !Known(lang) {
		return fmt.Errorf("i18n: unknown language %q (want one of %s)", lang, strings.Join(langs, ", "))
	}
	c, errs := parse(lang+".txt", text)
	mu.Lock()
	catalogues[lang] = c
	delete(failed, lang)
	mu.Unlock()
	return errors.Join(errs...)
}

// SetSource sets where a catalogue that is not embedded comes from: the
// first time a language of Langs without a catalogue is asked for, src
// is called (once) for its text. If src fails, or there is no source,
// that language falls back to English. The browser build (-tags
// i18nfetch) sets one that reads what the page fetched.
func SetSource(src func(lang string) (string, error)) {
	mu.Lock()
	source = src
	mu.Unlock()
}

// Loaded reports whether lang has a catalogue, embedded or loaded.
func Loaded(lang string) bool {
	mu.RLock()
	defer mu.RUnlock()
	_, ok := catalogues[lang]
	return ok
}

// parse reads one catalogue. It returns every entry it could read and an
// error for each malformed line or duplicate key.
func parse(file, src string) (*catalogue, []error) {
	c := &catalogue{file: file, entries: map[string]entry{}}
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &parseError{file: file, line: line, msg: fmt.Sprintf(format, args...)})
	}
	for i, raw := range strings.Split(src, "\n") {
		n := i + 1
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			fail(n, "missing '=' (want key = value)")
			continue
		}
		key := strings.TrimSpace(k)
		if !validKey(key) {
			fail(n, "bad key %q (letters, digits, '.', '_', '-')", key)
			continue
		}
		value, err := unescape(strings.TrimSpace(v))
		if err != nil {
			fail(n, "%s: %v", key, err)
			continue
		}
		if value == "" {
			fail(n, "%s: empty value", key)
			continue
		}
		if prev, dup := c.entries[key]; dup {
			fail(n, "duplicate key %s (first on line %d)", key, prev.line)
			continue
		}
		if err := checkBraces(value); err != nil {
			fail(n, "%s: %v", key, err)
			continue
		}
		c.entries[key] = entry{value: value, line: n}
	}
	return c, errs
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// unescape turns \n, \s and \\ into a newline, a space and a backslash.
func unescape(v string) (string, error) {
	if !strings.Contains(v, `\`) {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			b.WriteByte(v[i])
			continue
		}
		if i+1 == len(v) {
			return "", fmt.Errorf(`lone '\' at end of value`)
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 's':
			b.WriteByte(' ')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf(`unknown escape \%c (allowed \n, \s, \\)`, v[i])
		}
	}
	return b.String(), nil
}

// checkBraces makes sure every '{' opens a well-formed placeholder and no
// '}' stands alone.
func checkBraces(v string) error {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '{':
			j := strings.IndexByte(v[i:], '}')
			if j < 0 || !validName(v[i+1:i+j]) {
				return fmt.Errorf("bad placeholder at byte %d (want {name}, name in a-z 0-9 _)", i)
			}
			i += j
		case '}':
			return fmt.Errorf("'}' without '{' at byte %d", i)
		}
	}
	return nil
}

// placeholders returns the sorted, distinct names of the {name} placeholders
// in v.
func placeholders(v string) []string {
	var names []string
	for {
		i := strings.IndexByte(v, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			break
		}
		if name := v[i+1 : i+j]; validName(name) {
			names = append(names, name)
		}
		v = v[i+j+1:]
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Langs returns the catalogue languages, English first.
func Langs() []string { return slices.Clone(langs) }

// Known reports whether lang is one of Langs.
func Known(lang string) bool { return slices.Contains(langs, lang) }

func lookup(lang string) *catalogue {
	if c := get(lang); c != nil {
		return c
	}
	if c := get(Fallback); c != nil {
		return c
	}
	return none
}

// none is the catalogue of a page that could fetch not even English:
// every key reads ⟦key⟧.
var none = &catalogue{entries: map[string]entry{}}

// get is lang's catalogue, asked of the source the first time when it is
// not there; nil if lang is unknown or the source cannot supply it.
func get(lang string) *catalogue {
	mu.RLock()
	c, ok := catalogues[lang]
	try := !ok && source != nil && !failed[lang] && Known(lang)
	mu.RUnlock()
	switch {
	case ok:
		return c
	case try:
		return fetch(lang)
	}
	return nil
}

// fetch asks the source for lang's catalogue and installs it; nil if the
// source fails (lang is then English from now on).
func fetch(lang string) *catalogue {
	mu.Lock()
	defer mu.Unlock()
	if c, ok := catalogues[lang]; ok {
		return c // another caller got it first
	}
	if source == nil || failed[lang] {
		return nil
	}
	text, err := source(lang)
	if err != nil {
		failed[lang] = true
		return nil
	}
	c, _ := parse(lang+".txt", text) // a malformed line is skipped, as when embedded
	catalogues[lang] = c
	return c
}

// Has reports whether the catalogue of lang (English if lang is unknown)
// has key.
func Has(lang, key string) bool {
	_, ok := lookup(lang).entries[key]
	return ok
}

// Keys returns the keys of lang's catalogue (English if lang is unknown),
// sorted.
func Keys(lang string) []string {
	c := lookup(lang)
	keys := make([]string, 0, len(c.entries))
	for k := range c.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// T returns the text of key in lang with its placeholders filled. args are
// name/value pairs: T("en", "ui.step", "n", "3", "total", "6") gives
// "Step 3 / 6". A placeholder with no value is left as it is, a trailing
// unpaired arg is ignored, a name given twice takes its first value, and
// values are inserted verbatim (a value that looks like a placeholder is
// not filled again). An unknown lang falls back to English; an unknown key
// gives ⟦key⟧.
//
// In Chinese, a value that begins or ends with a Latin letter or a digit
// where the text around the placeholder is a Chinese character gets a
// space there, as the glossary's rule 3 asks: "{model}有" reads
// "GPT-3 175B 有" and "原文的 100B 模型有".
func T(lang, key string, args ...string) string {
	e, ok := lookup(lang).entries[key]
	if !ok {
		return "⟦" + key + "⟧"
	}
	if len(args) < 2 || !strings.Contains(e.value, "{") {
		return e.value
	}
	values := make(map[string]string, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		if _, dup := values[args[i]]; !dup {
			values[args[i]] = args[i+1]
		}
	}
	return fill(e.value, values, spacesLatin(lang))
}

// spacesLatin reports whether lang's text puts a space between its own
// characters and Latin letters or digits.
func spacesLatin(lang string) bool { return lang == "zh" }

// fill replaces the placeholders of v that have values.
func fill(v string, values map[string]string, space bool) string {
	var b strings.Builder
	n := len(v) + 4 // room for the spaces between scripts
	for _, val := range values {
		n += len(val)
	}
	b.Grow(n)     // one allocation, not one each time the text outgrows its buffer
	var last rune // the last rune written
	for i := 0; i < len(v); {
		if v[i] == '{' {
			if j := strings.IndexByte(v[i:], '}'); j > 0 {
				if val, ok := values[v[i+1:i+j]]; ok {
					if space && val != "" {
						first, _ := utf8.DecodeRuneInString(strings.TrimLeft(val, "+−-"))
						if isHan(last) && isLatin(first) {
							b.WriteByte(' ')
						}
						end, _ := utf8.DecodeLastRuneInString(val)
						after, _ := utf8.DecodeRuneInString(v[i+j+1:])
						b.WriteString(val)
						if isLatin(end) && isHan(after) {
							b.WriteByte(' ')
						}
						last = end
					} else {
						b.WriteString(val)
						if val != "" {
							last, _ = utf8.DecodeLastRuneInString(val)
						}
					}
					i += j + 1
					continue
				}
			}
		}
		r, n := utf8.DecodeRuneInString(v[i:])
		b.WriteRune(r)
		last = r
		i += n
	}
	return b.String()
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// isLatin reports whether r is a Latin letter, a digit or a percent sign
// (a figure: "37.5% 的通道").
func isLatin(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '%')
}
