package scenarios

import (
	"strconv"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// Every lesson's state survives the trip through its URL fragment: state →
// fragment → state is the identity, at the defaults and at other valid
// values of every knob, in both languages and at every step (issue 7's
// round-trip test; the address bar is the share link).
func TestFragmentRoundTripEveryLesson(t *testing.T) {
	rng := sim.NewRNG(7)
	for _, s := range All() {
		for trial := range 6 {
			st := State{Scenario: s.ID, Step: 1 + trial%len(s.Steps), Lang: []string{"en", "zh"}[trial%2], Config: s.Defaults()}
			if trial > 0 {
				for _, k := range s.Knobs {
					st.Config[k.Name] = someValue(k, rng)
				}
			}
			frag := EncodeFragment(st)
			back, errs := ApplyFragment(State{Scenario: "ring-allreduce", Step: 1, Lang: "en", Config: DefaultState().Config}, frag)
			if len(errs) > 0 {
				t.Errorf("%s: %q: %v", s.ID, frag, errs[0])
				continue
			}
			if back.Scenario != st.Scenario || back.Step != st.Step || back.Lang != st.Lang || !back.Config.Equal(st.Config) {
				t.Errorf("%s: %q came back as %+v, want %+v", s.ID, frag, back, st)
			}
			if again := EncodeFragment(back); again != frag {
				t.Errorf("%s: fragment %q re-encodes as %q", s.ID, frag, again)
			}
		}
	}
}

// someValue is a valid value of k other than the default where there is
// one, in its canonical form.
func someValue(k Knob, rng *sim.RNG) string {
	switch k.Kind {
	case KnobEnum:
		return k.Values[int(rng.Uint64()%uint64(len(k.Values)))]
	case KnobInt, KnobBytes:
		v := k.Min + int64(rng.Uint64()%uint64(k.Max-k.Min+1))
		return strconv.FormatInt(v, 10)
	case KnobFloat:
		v := k.FMin + (k.FMax-k.FMin)*rng.Float64()
		c, err := k.Parse(strconv.FormatFloat(v, 'g', 6, 64))
		if err != nil {
			return k.Default
		}
		return c
	}
	return k.Default
}
