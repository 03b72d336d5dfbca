package scenarios

import (
	"slices"
	"strconv"
	"strings"
)

// MarkKind says what a Mark points at on an engine trace.
type MarkKind int

const (
	MarkStart  MarkKind = iota // the beginning of the run, t = 0
	MarkEnd                    // the end of the run
	MarkPhase                  // the start of a named phase
	MarkRound                  // the start of round K (1-based over all rounds)
	MarkLastRS                 // the start of the last reduce-scatter round
)

// Phases are the phase names a mark may use.
var Phases = []string{"reduce-scatter", "all-gather", "gather", "broadcast"}

// Mark is a parsed step boundary ("from:" or "to:" in a scenario file).
type Mark struct {
	Kind  MarkKind
	Phase string // for MarkPhase
	Round int    // for MarkRound, ≥ 1
}

// ParseMark reads start, end, phase:NAME, round:K or round:last-rs.
func ParseMark(s string) (Mark, bool) {
	switch s {
	case "start":
		return Mark{Kind: MarkStart}, true
	case "end":
		return Mark{Kind: MarkEnd}, true
	case "round:last-rs":
		return Mark{Kind: MarkLastRS}, true
	}
	if name, ok := strings.CutPrefix(s, "phase:"); ok && slices.Contains(Phases, name) {
		return Mark{Kind: MarkPhase, Phase: name}, true
	}
	if k, ok := strings.CutPrefix(s, "round:"); ok && allDigits(k) && k != "" && k[0] != '0' {
		if n, err := strconv.Atoi(k); err == nil && n >= 1 {
			return Mark{Kind: MarkRound, Round: n}, true
		}
	}
	return Mark{}, false
}

func (m Mark) String() string {
	switch m.Kind {
	case MarkStart:
		return "start"
	case MarkEnd:
		return "end"
	case MarkPhase:
		return "phase:" + m.Phase
	case MarkRound:
		return "round:" + strconv.Itoa(m.Round)
	case MarkLastRS:
		return "round:last-rs"
	}
	return "mark?"
}
