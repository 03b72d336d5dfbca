package scenarios

import (
	"encoding/json"
	"strconv"
	"testing"
)

// state().config gives an int or float knob as a JSON number, as set
// takes it, and an enum or a byte size as its string (issue 17: it gave
// "gpus": "8" while set took {gpus: 16}). Every lesson, every knob.
func TestStateConfigTypes(t *testing.T) {
	for _, s := range All() {
		p := newPlayer(t, "scenario="+s.ID)
		cfg := p.Report().Config
		for _, k := range s.Knobs {
			v, ok := cfg[k.Name]
			if !ok {
				t.Errorf("%s: config lacks %s", s.ID, k.Name)
				continue
			}
			text := p.State().Config[k.Name]
			var want any = text
			switch k.Kind {
			case KnobInt:
				n, _ := strconv.ParseInt(text, 10, 64)
				want = n
			case KnobFloat:
				f, _ := strconv.ParseFloat(text, 64)
				want = f
			}
			if v != want {
				t.Errorf("%s: config[%q] = %#v (%s knob %q), want %#v", s.ID, k.Name, v, k.Kind, text, want)
			}
		}
	}
}

// In JSON: numbers unquoted, strings quoted.
func TestStateConfigJSON(t *testing.T) {
	tests := []struct {
		frag string
		want map[string]string // key → its JSON
	}{
		{"scenario=ring-allreduce&gpus=16&bytes=1MiB", map[string]string{"gpus": `16`, "bytes": `"1048576"`, "link": `"nvlink4"`, "nodes": `"1"`}},
		{"scenario=roofline&intensity=0.5", map[string]string{"intensity": `0.5`, "gpu": `"h100"`}},
		{"scenario=number-formats&value=1e-8", map[string]string{"value": `1e-8`, "format": `"fp16"`}},
		{"scenario=3d-parallel", map[string]string{"gpus": `"512"`}}, // an enum, though its choices are numbers
		{"scenario=fault-tolerance&seed=7", map[string]string{"seed": `7`, "mtbf_gpu_hours": `50680`}},
	}
	for _, tt := range tests {
		p := newPlayer(t, tt.frag)
		b, err := json.Marshal(p.Report())
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Config map[string]json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		for k, w := range tt.want {
			if got := string(st.Config[k]); got != w {
				t.Errorf("%s: config.%s is %s in JSON, want %s", tt.frag, k, got, w)
			}
		}
	}
}

// set takes what state().config gives, numbers or strings, and both
// spellings of a number: the configuration sent back unchanged changes
// nothing, for every lesson.
func TestStateConfigRoundTrips(t *testing.T) {
	for _, s := range All() {
		p := newPlayer(t, "scenario="+s.ID)
		before := p.State().Config.Clone()
		b, _ := json.Marshal(p.Report().Config)
		var cmd map[string]any
		json.Unmarshal(b, &cmd)
		cmd["type"] = "set"
		raw, _ := json.Marshal(cmd)
		if err := p.Command(raw); err != nil {
			t.Errorf("%s: set %s: %v", s.ID, raw, err.Localize("en"))
			continue
		}
		if after := p.State().Config; !after.Equal(before) {
			t.Errorf("%s: set with state().config changed the configuration: %v → %v", s.ID, before, after)
		}
	}
	p := newPlayer(t, "scenario=ring-allreduce")
	for _, cmd := range []string{`{"type":"set","gpus":16}`, `{"type":"set","gpus":"16"}`, `{"type":"set","key":"gpus","value":16}`} {
		p.Set("gpus", "8")
		if err := p.Command([]byte(cmd)); err != nil || p.Report().Config["gpus"] != int64(16) {
			t.Errorf("%s: error %v, config.gpus %#v; want 16", cmd, err, p.Report().Config["gpus"])
		}
	}
}
