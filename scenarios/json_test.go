package scenarios

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/tinyjson"
)

// sameJSON fails unless tinyjson writes v exactly as encoding/json does
// (the CLI's JSON, which the page's figures must equal).
func sameJSON(t *testing.T, what string, v any) {
	t.Helper()
	got, err := tinyjson.Marshal(v)
	want, stdErr := json.Marshal(v)
	if err != nil || stdErr != nil {
		t.Fatalf("%s: tinyjson error %v, encoding/json error %v", what, err, stdErr)
	}
	if string(got) != string(want) {
		t.Fatalf("%s: tinyjson writes\n%s\nencoding/json\n%s", what, got, want)
	}
}

// Every lesson's metrics at every step, at its defaults and at random
// settings, its state() report in both languages (before and after the
// step's question is answered, and with an input error), and the events
// an embed posts: tinyjson writes each byte for byte as encoding/json.
func TestJSONLikeEncodingJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares every lesson several times")
	}
	rng := sim.NewRNG(16)
	for _, s := range All() {
		t.Run(s.ID, func(t *testing.T) {
			shapes := 0
			for trial := range 3 {
				cfg := s.Defaults()
				if trial > 0 {
					for _, k := range s.Knobs {
						cfg[k.Name] = someValue(k, rng)
					}
				}
				les, err := Prepare(s, cfg)
				if err != nil {
					continue // a random setting the engine refuses
				}
				for step := 1; step <= len(les.Steps); step++ {
					sameJSON(t, s.ID+" metrics, step "+les.Steps[step-1].Step.ID, les.Metrics(step))
					shapes++
				}
			}
			if shapes < len(s.Steps) {
				t.Errorf("only %d metrics compared", shapes)
			}
			p, _, err := NewPlayerAt("scenario=" + s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, lang := range []string{"en", "zh"} {
				if err := p.Set("lang", lang); err != nil {
					t.Fatal(err)
				}
				for step := 1; step <= len(s.Steps); step++ {
					p.Goto(step)
					p.Advance(0.5)
					sameJSON(t, s.ID+" state, step "+strconv.Itoa(step)+" "+lang, p.Report())
					if q, ok := p.Question(); ok && !q.Answered {
						p.Answer(0)
						sameJSON(t, s.ID+" state, answered", p.Report())
					}
				}
				p.Set("step", "not-a-step") // an input error in the report
				sameJSON(t, s.ID+" state with an error", p.Report())
				st := p.Report()
				for _, e := range []Event{NewEvent("ready"), {Source: "gpuscope", Version: 1, Type: "step", Step: 2, State: &st},
					{Source: "gpuscope", Version: 1, Type: "resize", Height: 480}, {Source: "gpuscope", Version: 1, Type: "error", Error: `bad <"x">`}} {
					sameJSON(t, s.ID+" event "+e.Type, e)
				}
				// state() as the page writes it: the report, ready and perf.
				type perfOut struct {
					UpdateMS float64 `json:"update_ms"`
					Frames   int     `json:"update_frames"`
				}
				sameJSON(t, s.ID+" page state", struct {
					PlayerState
					Ready bool    `json:"ready"`
					Perf  perfOut `json:"perf"`
				}{p.Report(), true, perfOut{0.25, 120}})
			}
		})
	}
}

// parseObject reads commands and messages as encoding/json.Unmarshal
// into a map[string]any did: the same accepted, the same maps, written
// back (ParseMessage's command) the same.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{"type":"set","gpus":16,"lang":"zh"}`, `{"version":1,"type":"goto","step":3,"source":"blog","id":7}`,
		`null`, `[]`, `"play"`, `{"a":1e400}`, `{"type":"set","type":"play"}`, `{"k":[1,{"x":null}],"<":"&"}`,
		`{"json":"{\"hidden_size\": 4096}\n"}`, "{\"\\ud83d\\ude00\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := parseObject(raw)
		if tinyjson.TooDeep(err) {
			return // encoding/json reads on to 10,000 levels
		}
		var want map[string]any
		stdErr := json.Unmarshal(raw, &want)
		if (err == nil && got != nil) != (stdErr == nil && want != nil) {
			t.Fatalf("parseObject(%q) = %v, %v; encoding/json %v, %v", raw, got, err, want, stdErr)
		}
		if err != nil || got == nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseObject(%q) = %#v; encoding/json %#v", raw, got, want)
		}
		sameJSON(t, "the command", got)
	})
}
