package scenarios

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// MaxFragment is the longest URL fragment ApplyFragment reads, in bytes
// (after the leading '#', before percent-decoding).
const MaxFragment = 2048

// State is everything a reader can set and share in a URL: the lesson, the
// step (1-based), the language and the knobs.
type State struct {
	Scenario string
	Step     int
	Lang     string
	Config   Config
	// Embed is how an embedding page wants the simulator shown; it
	// outlives a change of lesson.
	Embed Embed
	// Zoom is the zoom's level and GPU (zoom.go); a change of lesson
	// starts at the cluster.
	Zoom Zoom
}

// DefaultState is the first lesson at step 1 in English with its defaults.
func DefaultState() State {
	if len(embedded) == 0 {
		return State{Step: 1, Lang: i18n.Fallback, Config: Config{}}
	}
	s := embedded[0]
	return State{Scenario: s.ID, Step: 1, Lang: i18n.Fallback, Config: s.Defaults()}
}

// Valid reports whether st names an embedded scenario, a step of it, a
// known language and a canonical value for each of its knobs (and nothing
// else).
func (st State) Valid() bool {
	s, ok := Get(st.Scenario)
	if !ok || st.Step < 1 || st.Step > len(s.Steps) || !i18n.Known(st.Lang) || len(st.Config) != len(s.Knobs) {
		return false
	}
	if r := st.Embed.Steps; !r.fits(len(s.Steps)) || r != (StepRange{}) && (st.Step < r.First || st.Step > r.Last) {
		return false
	}
	for _, k := range s.Knobs {
		if v, err := k.Parse(st.Config[k.Name]); err != nil || v != st.Config[k.Name] {
			return false
		}
	}
	if st.Zoom != (Zoom{}) && (!s.Zooms() || st.Zoom.GPU < 0 || st.Zoom.GPU >= st.zoomGPUs(s) ||
		st.Zoom.Level != "" && st.Zoom.Level != ZoomNode && st.Zoom.Level != ZoomGPU && st.Zoom.Level != ZoomSM) {
		return false
	}
	return true
}

// repair returns a valid state as close to st as possible: an unknown
// scenario becomes the default state, a bad step 1, a bad language English
// and a bad knob value its default.
func (st State) repair() State {
	s, ok := Get(st.Scenario)
	if !ok {
		return DefaultState()
	}
	out := State{Scenario: s.ID, Step: st.Step, Lang: st.Lang, Config: s.repair(st.Config), Embed: st.Embed, Zoom: st.Zoom}
	if z := out.Zoom.Level; z != "" && z != ZoomNode && z != ZoomGPU && z != ZoomSM || out.Zoom.GPU < 0 {
		out.Zoom = Zoom{}
	}
	out.fitZoom(s)
	if out.Step < 1 || out.Step > len(s.Steps) {
		out.Step = 1
	}
	if !out.Embed.Steps.fits(len(s.Steps)) {
		out.Embed.Steps = StepRange{}
	}
	out.Step = out.Embed.Steps.Clamp(out.Step, len(s.Steps))
	if !i18n.Known(out.Lang) {
		out.Lang = i18n.Fallback
	}
	return out
}

// ApplyFragment applies a URL fragment such as
// "#scenario=ring-allreduce&gpus=8&lang=zh&step=3" to prev and returns the
// new state with one error per bad part. The leading '#' is optional; keys
// and values are percent-decoded ('+' is a space); for a key given twice
// the last value counts.
//
// The state is kept field by field: a bad value leaves that field as in
// prev. A scenario different from prev's starts from its step 1 and its
// defaults before the other keys apply. An unknown key is an error naming
// the allowed ones. A fragment longer than MaxFragment is ignored whole
// (one error.fragment_too_long). The result is always a valid state (prev
// is repaired first if it is not); it never panics.
func ApplyFragment(prev State, frag string) (State, []*InputError) {
	st := prev.repair()
	frag = strings.TrimPrefix(frag, "#")
	if len(frag) > MaxFragment {
		return st, []*InputError{inputError("error.fragment_too_long", "fragment", frag,
			"length", strconv.Itoa(len(frag)), "max", strconv.Itoa(MaxFragment))}
	}
	// Decode into key order of first appearance, last value wins.
	var keys []string
	values := map[string]string{}
	for part := range strings.SplitSeq(frag, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, v = unescape(k), unescape(v)
		if k == "gpu" && isIndex(v) {
			k = zoomGPUKey // the zoom's GPU, beside a gpu knob's model
		}
		if _, seen := values[k]; !seen {
			keys = append(keys, k)
		}
		values[k] = v
	}
	var errs []*InputError
	if v, ok := values["scenario"]; ok {
		if s, found := Get(strings.TrimSpace(v)); !found {
			errs = append(errs, inputError("error.scenario", "scenario", v, "allowed", listArg(IDs())))
		} else if s.ID != st.Scenario {
			// A range of steps names one lesson's steps: another lesson
			// starts with all of its own (unless steps= comes too).
			st = State{Scenario: s.ID, Step: 1, Lang: st.Lang, Config: s.Defaults(), Embed: st.Embed}
			st.Embed.Steps = StepRange{}
		}
	}
	s, _ := Get(st.Scenario)
	// The range before step=, which must fall inside it.
	if v, ok := values["steps"]; ok {
		if r, err := ParseStepRange(v, len(s.Steps)); err != nil {
			errs = append(errs, err)
		} else {
			st.Embed.Steps = r
			st.Step = r.Clamp(st.Step, len(s.Steps))
		}
	}
	first, last := st.Embed.Steps.Bounds(len(s.Steps))
	zoomGPU, hasZoomGPU := "", false
	for _, k := range keys {
		v := values[k]
		switch k {
		case zoomGPUKey:
			if _, isKnob := s.Knob("gpu"); isKnob && !s.Zooms() {
				// A lesson whose gpu knob is a model and has no zoom:
				// the knob says what it allows.
				if cfg, err := s.Set(st.Config, "gpu", v); err != nil {
					errs = append(errs, err)
				} else {
					st.Config = cfg
				}
				continue
			}
			zoomGPU, hasZoomGPU = v, true
		case "zoom":
			if err := st.setZoomLevel(s, v); err != nil {
				errs = append(errs, err)
			}
		case "scenario", "steps":
		case "step":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 || n > len(s.Steps) {
				errs = append(errs, inputError("error.step", "step", v, "max", strconv.Itoa(len(s.Steps))))
				continue
			}
			if n < first || n > last {
				errs = append(errs, stepRangeError(v, first, last))
				continue
			}
			st.Step = n
		case "lang":
			l := strings.ToLower(strings.TrimSpace(v))
			if !i18n.Known(l) {
				errs = append(errs, inputError("error.lang", "lang", v))
				continue
			}
			st.Lang = l
		default:
			if isEmbed, err := st.Embed.set(k, v); isEmbed {
				if err != nil {
					errs = append(errs, err)
				}
				continue
			}
			if _, ok := s.Knob(k); !ok {
				allowed := slices.Clone(reserved)
				if !s.Zooms() {
					allowed = slices.DeleteFunc(allowed, func(k string) bool { return k == "zoom" })
				} else if _, ok := s.Knob("gpu"); !ok {
					allowed = append(allowed, "gpu")
				}
				allowed = append(allowed, s.knobNames()...)
				errs = append(errs, inputError("error.unknown_key", shown(k), v, "allowed", listArg(allowed)))
				continue
			}
			cfg, err := s.Set(st.Config, k, v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			st.Config = cfg
		}
	}
	// The zoom's GPU against the plan the knobs now make.
	if hasZoomGPU {
		if err := st.checkZoomGPU(s, zoomGPU); err != nil {
			errs = append(errs, err)
		}
	}
	st.fitZoom(s)
	return st, errs
}

// stepRangeError is a step of the lesson outside the embed's range.
func stepRangeError(v string, first, last int) *InputError {
	return inputError("error.step_range", "step", v, "min", strconv.Itoa(first), "max", strconv.Itoa(last))
}

// unescape percent-decodes s as a form value; text that does not decode is
// kept as it is (the value check then reports it).
func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// EncodeFragment writes st as "scenario=..&step=..&lang=..&" followed by
// the knobs in the scenario's order and then the embed options that are
// not at their defaults (no leading '#'). Values are percent-encoded where
// needed. Knobs not in the scenario are left out.
func EncodeFragment(st State) string {
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(k))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(v))
	}
	add("scenario", st.Scenario)
	add("step", strconv.Itoa(st.Step))
	add("lang", st.Lang)
	if s, ok := Get(st.Scenario); ok {
		for _, k := range s.Knobs {
			if v, ok := st.Config[k.Name]; ok {
				add(k.Name, v)
			}
		}
	}
	if st.Zoom != (Zoom{}) {
		add("zoom", st.Zoom.At())
		add("gpu", strconv.Itoa(st.Zoom.GPU))
	}
	st.Embed.encode(add)
	return b.String()
}
