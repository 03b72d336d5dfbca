package scenarios

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

// propertyTrials is how many random knob settings each lesson is prepared
// at (after its defaults). The lessons that run a plan search, a fabric at
// 16,384 GPUs or weeks of failures take 50–400 ms a setting, so they get
// fewer, to keep the test fast natively and under Node.js.
var propertyTrials = map[string]int{
	"strategy-planner": 2, "collectives-at-scale": 2, "fault-tolerance": 6, "ring-allreduce": 10,
}

// Engine invariants on every lesson, at its defaults and at random valid
// settings of its knobs (fixed seed): each step's metrics encode as JSON
// (NaN and Inf cannot; the number-formats lesson writes them as the
// strings "NaN", "Inf" and "-Inf" by design, and no other lesson may);
// every number under a name that says bytes, memory or time is ≥ 0;
// memory totals and step times equal the sums of their parts; the step's
// window lies on its run's time line (0 ≤ From ≤ To ≤ End); the table,
// the live line and the narration are produced without a panic.
func TestLessonInvariantsAtRandomSettings(t *testing.T) {
	rng := sim.NewRNG(2025)
	for _, s := range All() {
		trials, ok := propertyTrials[s.ID]
		if !ok {
			trials = 20
		}
		if runtime.GOARCH == "wasm" { // make test runs it under Node.js too, ~20× slower
			trials = max(1, trials/4)
		}
		prepared := 0
		for trial := range trials + 1 {
			// A setting the lesson refuses (nodes that do not divide the
			// GPUs, no plan that fits) is drawn again, up to 10 times.
			for range 10 {
				cfg := s.Defaults()
				switch {
				case trial > 0 && s.ID == "sandbox":
					nudge(s, cfg, rng)
				case trial > 0:
					for _, k := range s.Knobs {
						cfg[k.Name] = someValue(k, rng)
					}
				}
				les, err := Prepare(s, cfg)
				if err != nil {
					if trial == 0 {
						t.Errorf("%s at its defaults: %v", s.ID, err)
						break
					}
					continue
				}
				prepared++
				name := s.ID + " " + EncodeFragment(State{Scenario: s.ID, Step: 1, Lang: "en", Config: cfg})
				checkLessonInvariants(t, name, les)
				break
			}
		}
		if prepared < 1+trials/2 {
			t.Errorf("%s: only %d of %d settings prepared", s.ID, prepared, trials+1)
		}
	}
}

// nudge moves three of the sandbox's knobs from its defaults: an enum to
// any of its values, a number to its default times or over 2 or 4 (the
// sandbox's knobs are free over ranges where a uniform draw of all of them
// is almost never a plan that adds up).
func nudge(s *Scenario, cfg Config, rng *sim.RNG) {
	for range 3 {
		k := s.Knobs[int(rng.Uint64()%uint64(len(s.Knobs)))]
		if k.Kind != KnobInt {
			cfg[k.Name] = someValue(k, rng)
			continue
		}
		v := max(cfg.Int(k.Name), 1)
		switch rng.Uint64() % 4 {
		case 0:
			v /= 4
		case 1:
			v /= 2
		case 2:
			v *= 2
		case 3:
			v *= 4
		}
		cfg[k.Name] = strconv.FormatInt(min(max(v, k.Min), k.Max), 10)
	}
}

func checkLessonInvariants(t *testing.T, name string, les *Lesson) {
	t.Helper()
	for i, st := range les.Steps {
		step := i + 1
		at := fmt.Sprintf("%s step %d (%s)", name, step, st.Step.ID)
		if end := st.Run.End(); !(0 <= st.From && st.From <= st.To && st.To <= end) {
			t.Errorf("%s: window %v..%v on a run of %v", at, st.From, st.To, end)
		}
		raw, err := json.Marshal(les.Metrics(step))
		if err != nil {
			t.Errorf("%s: metrics do not encode: %v", at, err)
			continue
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		walkMetrics(t.Errorf, at, "", v, false, les.Scenario.Kind == KindNumfmt)
		_ = les.Table(step, "en")
		_ = les.Live(step, st.From+(st.To-st.From)/2, "en")
		_ = les.StepNarrationArgs(step, "en")
	}
}

// nonNegativeName says a metric's name promises a quantity that cannot be
// negative: bytes, memory or time.
func nonNegativeName(key string) bool {
	k := strings.ToLower(key)
	return strings.HasSuffix(k, "_s") || strings.Contains(k, "bytes") || strings.Contains(k, "memory") ||
		strings.Contains(k, "seconds") || strings.Contains(k, "time")
}

// walkMetrics checks every value under path; nonNeg is set below a name
// that promises a non-negative quantity.
func walkMetrics(errorf func(string, ...any), at, path string, v any, nonNeg, specials bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			errorf("%s: %s = %s, not a finite number", at, path, x)
		} else if nonNeg && f < 0 {
			errorf("%s: %s = %g, want ≥ 0", at, path, f)
		}
	case string:
		switch x {
		case "NaN", "Inf", "+Inf", "-Inf", "−Inf", "Infinity", "-Infinity":
			if !specials {
				errorf("%s: %s = %q: a NaN or an infinity", at, path, x)
			}
		}
	case []any:
		for i, e := range x {
			walkMetrics(errorf, at, fmt.Sprintf("%s[%d]", path, i), e, nonNeg, specials)
		}
	case map[string]any:
		for k, e := range x {
			walkMetrics(errorf, at, path+"."+k, e, nonNeg || nonNegativeName(k), specials)
		}
		checkParts(errorf, at, path, x)
	}
}

// sums are the totals the plan engine reports with their parts (see
// parallel.Memory and parallel.Time): total = Σ parts (− minus).
var sums = []struct {
	total        string
	parts, minus []string
}{
	{"total_bytes", []string{"weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "buffers_bytes"}, nil},
	{"step_s", []string{"compute_s", "bubble_s", "exposed_comm_s", "optimizer_s", "straggler_s"}, nil},
	{"exposed_comm_s", []string{"tp_comm_s", "ep_comm_s", "cp_comm_s", "pp_comm_s", "dp_comm_s", "nic_shared_s"}, []string{"dp_hidden_s"}},
}

// checkParts checks, in an object that has a total and all its parts,
// that the total is their sum within 1e-9 relative.
func checkParts(errorf func(string, ...any), at, path string, obj map[string]any) {
	num := func(k string) (float64, bool) {
		n, ok := obj[k].(json.Number)
		if !ok {
			return 0, false
		}
		f, err := n.Float64()
		return f, err == nil
	}
	for _, s := range sums {
		total, ok := num(s.total)
		if !ok {
			continue
		}
		sum, all := 0.0, true
		for _, p := range s.parts {
			f, ok := num(p)
			all = all && ok
			sum += f
		}
		for _, p := range s.minus {
			f, ok := num(p)
			all = all && ok
			sum -= f
		}
		if all && math.Abs(total-sum) > 1e-9*math.Max(math.Abs(total), math.Abs(sum)) {
			errorf("%s: %s.%s = %g, its parts sum to %g", at, path, s.total, total, sum)
		}
	}
}

// The checks themselves catch what they look for.
func TestMetricsCheckerCatches(t *testing.T) {
	const src = `{"a_bytes": -1, "value": -5, "memory": {"x": -2, "total_bytes": 10, "weights_bytes": 1,
	  "gradients_bytes": 1, "optimizer_bytes": 1, "activations_bytes": 1, "buffers_bytes": 1},
	  "time": {"step_s": 3, "compute_s": 1, "bubble_s": 1, "exposed_comm_s": 0.5, "optimizer_s": 0.5,
	  "tp_comm_s": 0.25, "pp_comm_s": 0.25, "dp_comm_s": 1, "dp_hidden_s": 1}, "loss": "NaN"}`
	var v any
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var got []string
	errorf := func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }
	walkMetrics(errorf, "x", "", v, false, false)
	// a_bytes, memory.x, the memory total (10 ≠ 5), the NaN string; the
	// step (3 = 1 + 1 + 0.5 + 0.5) and exposed time (0.25 + 0.25 + 1 − 1)
	// add up, and value may be negative.
	if len(got) != 4 {
		t.Errorf("%d findings, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}
	got = nil
	walkMetrics(errorf, "x", "", map[string]any{"loss": "NaN", "w": "-Inf"}, false, true)
	if len(got) != 0 {
		t.Errorf("the number-formats lesson's NaN and Inf strings refused: %v", got)
	}
}
