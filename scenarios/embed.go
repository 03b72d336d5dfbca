package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// Embed is how a page that embeds the simulator wants it to look and
// behave (issue 7). It travels in the URL fragment next to the lesson's
// state, so an embed snippet is a single URL, and the fragment keeps it as
// the reader plays. The zero value is the simulator's own defaults.
//
//	hide=title,narration,…   parts of the page not to show (HideParts)
//	theme=light|dark         colours; absent: follow the reader's system
//	motion=full|reduced      animation; absent: follow prefers-reduced-motion
//	autoplay=1               start playing once loaded
//	load=click|visible|auto  embed.html: load the wasm on a click (default),
//	                         when the frame scrolls into view, or at once
//	origins=https://a.example,https://b.example
//	                         the parent pages allowed to drive the frame by
//	                         postMessage (the API is off without it)
//	present=1                presentation mode, for a projector: large type,
//	                         thick lines, high contrast, the narration as
//	                         captions (issue 8)
//	steps=2-4 (or steps=3)   the steps the frame may show: the player, its
//	                         buttons and keys and the API stay inside them
//	                         (issue 41); checked against the lesson, so
//	                         ApplyFragment reads it, not set
type Embed struct {
	Hide     []string // in HideParts' order, no repeats
	Theme    string   // "", "light" or "dark"
	Motion   string   // "", "full" or "reduced"
	Autoplay bool
	Load     string   // "", "click", "visible" or "auto"; "" means click
	Origins  []string // canonical origins, in the order given, no repeats
	Present  bool
	Steps    StepRange // the zero value: every step of the lesson
}

// StepRange is an embed's range of steps, First to Last (1-based, both
// in); the zero value is the whole lesson.
type StepRange struct{ First, Last int }

// stepNumber reads a step's number: digits only (no sign), at most 6.
func stepNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// String is the range as the fragment writes it: "2-4", "3", or "" for
// the whole lesson.
func (r StepRange) String() string {
	switch {
	case r == StepRange{}:
		return ""
	case r.First == r.Last:
		return strconv.Itoa(r.First)
	}
	return strconv.Itoa(r.First) + "-" + strconv.Itoa(r.Last)
}

// Bounds are the first and last steps the range allows in a lesson of n
// steps: 1 and n for the zero value (or a range the lesson cannot hold).
func (r StepRange) Bounds(n int) (first, last int) {
	if r == (StepRange{}) || !r.fits(n) {
		return 1, n
	}
	return r.First, r.Last
}

// fits reports whether a lesson of n steps holds the range (the zero
// value fits every lesson).
func (r StepRange) fits(n int) bool {
	return r == (StepRange{}) || r.First >= 1 && r.First <= r.Last && r.Last <= n
}

// Clamp is step n moved into the range's bounds in a lesson of steps
// steps.
func (r StepRange) Clamp(n, steps int) int {
	first, last := r.Bounds(steps)
	return min(max(n, first), last)
}

// ParseStepRange reads a steps= value for a lesson of n steps: "2-4", "3"
// (one step), or "" (the whole lesson). Not whole numbers, a reversed
// range and a step the lesson lacks are errors naming the field steps and
// the lesson's steps (1–n).
func ParseStepRange(v string, n int) (StepRange, *InputError) {
	v = strings.TrimSpace(v)
	if v == "" {
		return StepRange{}, nil
	}
	a, b, isRange := strings.Cut(v, "-")
	if !isRange {
		b = a
	}
	first, ok1 := stepNumber(a)
	last, ok2 := stepNumber(b)
	if !ok1 || !ok2 || first < 1 || last < first || last > n {
		return StepRange{}, inputError("error.steps", "steps", v, "max", strconv.Itoa(n))
	}
	return StepRange{first, last}, nil
}

// HideParts are the parts of the page an embed may hide.
var HideParts = []string{"title", "narration", "buttons", "timeline", "speed", "lang", "knobs", "numbers", "share"}

// Themes, Motions and Loads are the allowed values of those keys.
var (
	Themes  = []string{"light", "dark"}
	Motions = []string{"full", "reduced"}
	Loads   = []string{"click", "visible", "auto"}
)

// MaxOrigins is the most origins an allow-list may name.
const MaxOrigins = 8

// embedKeys are the fragment keys Embed owns, in the order EncodeFragment
// writes them.
var embedKeys = []string{"hide", "theme", "motion", "autoplay", "load", "origins", "present", "steps"}

// Equal reports whether e and f are the same options.
func (e Embed) Equal(f Embed) bool {
	return slices.Equal(e.Hide, f.Hide) && e.Theme == f.Theme && e.Motion == f.Motion &&
		e.Autoplay == f.Autoplay && e.Load == f.Load && slices.Equal(e.Origins, f.Origins) && e.Present == f.Present &&
		e.Steps == f.Steps
}

// Hidden reports whether part is hidden.
func (e Embed) Hidden(part string) bool { return slices.Contains(e.Hide, part) }

// setEmbed applies one embed key; it reports whether k is one.
func (e *Embed) set(k, v string) (bool, *InputError) {
	v = strings.TrimSpace(v)
	enum := func(allowed []string) (string, *InputError) {
		l := strings.ToLower(v)
		if l == "" || l == "auto" && k != "load" {
			return "", nil
		}
		if !slices.Contains(allowed, l) {
			extra := allowed
			if k != "load" {
				extra = append([]string{"auto"}, allowed...)
			}
			return "", inputError("error.enum", k, v, "allowed", listArg(extra))
		}
		return l, nil
	}
	var err *InputError
	switch k {
	case "hide":
		var hide []string
		for p := range strings.SplitSeq(v, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			if !slices.Contains(HideParts, p) {
				return true, inputError("error.enum", "hide", p, "allowed", listArg(HideParts))
			}
			hide = append(hide, p)
		}
		e.Hide = nil
		for _, p := range HideParts { // canonical order, no repeats
			if slices.Contains(hide, p) {
				e.Hide = append(e.Hide, p)
			}
		}
	case "theme":
		var t string
		if t, err = enum(Themes); err == nil {
			e.Theme = t
		}
	case "motion":
		var m string
		if m, err = enum(Motions); err == nil {
			e.Motion = m
		}
	case "load":
		var l string
		if l, err = enum(Loads); err == nil {
			e.Load = l
		}
	case "autoplay", "present":
		var on bool
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			on = true
		case "0", "false", "no", "off", "":
		default:
			return true, inputError("error.enum", k, v, "allowed", listArg([]string{"1", "0"}))
		}
		if k == "present" {
			e.Present = on
		} else {
			e.Autoplay = on
		}
	case "origins":
		var list []string
		for o := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(o) == "" {
				continue
			}
			c, ok := CanonicalOrigin(o)
			if !ok {
				return true, inputError("error.origin", "origins", o, "max", strconv.Itoa(MaxOrigins))
			}
			if !slices.Contains(list, c) {
				list = append(list, c)
			}
		}
		if len(list) > MaxOrigins {
			return true, inputError("error.origin", "origins", v, "max", strconv.Itoa(MaxOrigins))
		}
		e.Origins = list
	default:
		return false, nil
	}
	return true, err
}

// encode appends the non-default options to add, in embedKeys' order.
func (e Embed) encode(add func(k, v string)) {
	if len(e.Hide) > 0 {
		add("hide", strings.Join(e.Hide, ","))
	}
	if e.Theme != "" {
		add("theme", e.Theme)
	}
	if e.Motion != "" {
		add("motion", e.Motion)
	}
	if e.Autoplay {
		add("autoplay", "1")
	}
	if e.Load != "" {
		add("load", e.Load)
	}
	if len(e.Origins) > 0 {
		add("origins", strings.Join(e.Origins, ","))
	}
	if e.Present {
		add("present", "1")
	}
	if e.Steps != (StepRange{}) {
		add("steps", e.Steps.String())
	}
}

// CanonicalOrigin returns o as a browser writes an origin
// ("https://example.com", "http://localhost:8080"): http or https, a host,
// an optional port, nothing else (no path beyond "/", query, fragment or
// user). The scheme and host are lower-cased and a default port dropped.
func CanonicalOrigin(o string) (string, bool) {
	// Parsed by hand: net/url's Parse would add 16 kB (gzip) to main.wasm.
	o = strings.TrimSpace(o)
	if len(o) > 200 {
		return "", false
	}
	scheme, rest, ok := strings.Cut(o, "://")
	scheme = strings.ToLower(scheme)
	if !ok || scheme != "http" && scheme != "https" {
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	host, port := rest, ""
	if strings.HasPrefix(rest, "[") { // IPv6
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", false
		}
		host, port = rest[:end+1], rest[end+1:]
		if strings.Trim(host[1:end], "0123456789abcdefABCDEF:.") != "" || end == 1 {
			return "", false
		}
		if port != "" {
			if port[0] != ':' {
				return "", false
			}
			port = port[1:]
		}
	} else if h, p, found := strings.Cut(rest, ":"); found {
		host, port = h, p
	}
	host = strings.ToLower(host)
	if host == "" || host[0] != '[' && strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != "" {
		return "", false
	}
	if port != "" || strings.HasSuffix(rest, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '+' {
			return "", false
		}
		if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
			port = ""
		} else {
			port = strconv.Itoa(n)
		}
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, true
	}
	return scheme + "://" + host, true
}

// Allowed reports whether a message from origin may drive the frame: the
// origin must be on the allow-list, exactly.
func (e Embed) Allowed(origin string) bool {
	return origin != "" && slices.Contains(e.Origins, origin)
}

// MessageVersion is the version of the postMessage protocol: messages to
// the frame must carry it, and every event the frame sends does.
const MessageVersion = 1

// MessageTypes are the commands a parent page may send. "state" asks for a
// state event; "load" starts loading a frame still showing its poster (the
// loader script answers it; a running frame ignores it).
var MessageTypes = []string{"play", "pause", "step", "goto", "set", "state", "load", "zoom"}

// ParseMessage checks a message a parent page posted (as JSON) and returns
// its command type and the command for Player.Command (the envelope's
// "version" and "source" fields removed). A malformed message, a missing or
// different version and an unknown type are errors to warn about and
// otherwise ignore. Types "state" and "load" are not player commands.
func ParseMessage(raw []byte) (typ string, cmd []byte, err error) {
	if len(raw) > 64<<10 {
		return "", nil, fmt.Errorf("message: %d bytes; at most 65536", len(raw))
	}
	m, err := parseObject(raw)
	if err != nil || m == nil {
		return "", nil, fmt.Errorf("message: not a JSON object such as {\"version\": 1, \"type\": \"play\"}")
	}
	v, ok := m["version"].(float64)
	if !ok || v != MessageVersion {
		return "", nil, fmt.Errorf("version: %v; this frame speaks version %d", m["version"], MessageVersion)
	}
	typ, _ = m["type"].(string)
	if !slices.Contains(MessageTypes, typ) {
		return "", nil, fmt.Errorf("type: %q; allowed %s", shown(fmt.Sprint(m["type"])), strings.Join(MessageTypes, ", "))
	}
	delete(m, "version")
	delete(m, "source")
	delete(m, "id")
	cmd, err = tinyjson.Marshal(m)
	return typ, cmd, err
}

// Event is a message the frame posts to its parent: ready, step,
// finished, resize, state, or error (a command the player refused); an
// answer is an AnswerEvent.
type Event struct {
	Source  string       `json:"source"` // always "gpuscope"
	Version int          `json:"version"`
	Type    string       `json:"type"`
	Step    int          `json:"step,omitempty"`
	Height  int          `json:"height,omitempty"` // resize: the CSS pixels the content wants
	State   *PlayerState `json:"state,omitempty"`
	Error   string       `json:"error,omitempty"` // error: why a message was refused
}

// AnswerEvent is the event a frame posts when its reader answers a
// step's prediction question (issue 41), for a teacher's page to tally:
//
//	{source: "gpuscope", version: 1, type: "answer", lesson, step,
//	 step_id, question, choice, correct, time}
//
// question is the question's id (a step's predict: line, one per lesson),
// choice the reader's (0-based), time when it was given in milliseconds
// since the Unix epoch (JavaScript's Date.now(); the page stamps it: the
// player keeps no clock). Its JSON names are a contract.
type AnswerEvent struct {
	Source   string `json:"source"` // "gpuscope"
	Version  int    `json:"version"`
	Type     string `json:"type"`     // "answer"
	Lesson   string `json:"lesson"`   // the scenario's id
	Step     int    `json:"step"`     // 1-based
	StepID   string `json:"step_id"`  // the step's id in the lesson
	Question string `json:"question"` // the question's id
	Choice   int    `json:"choice"`
	Correct  bool   `json:"correct"`
	Time     int64  `json:"time"` // ms since the Unix epoch
}

// NewEvent is an event of type typ.
func NewEvent(typ string) Event {
	return Event{Source: "gpuscope", Version: MessageVersion, Type: typ}
}

// Snippet is the iframe an author pastes into a page to embed the state
// st, with the page at base (such as "https://gpuscope.example/"; the
// frame loads base + "embed.html").
func Snippet(base string, st State) string {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	title := "gpuscope"
	if s, ok := Get(st.Scenario); ok {
		title += ": " + i18n.T(st.Lang, "lesson."+s.ID+".title")
	}
	src := base + "embed.html#" + EncodeFragment(st)
	return `<iframe src="` + attrEscape(src) + `"` + "\n" +
		`        title="` + attrEscape(title) + `" loading="lazy" allow="fullscreen"` + "\n" +
		`        style="width:100%; aspect-ratio:16/10; border:0"></iframe>`
}

// attrEscape escapes s for an HTML attribute in double quotes (the html
// package would add 22 kB gzip to main.wasm for its entity table).
var attrEscape = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;", "'", "&#39;").Replace
