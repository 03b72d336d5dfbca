package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

func TestEmbeddedLoad(t *testing.T) {
	if loadErr != nil {
		t.Fatalf("embedded scenarios:\n%v", loadErr)
	}
	if got, want := IDs(), []string{"ring-allreduce", "cpu-vs-gpu", "simt-launch", "memory-wall", "roofline", "fused-kernels", "flash-attention", "number-formats", "fp8-training",
		"memory-budget", "data-parallel", "tensor-parallel", "pipeline-parallel", "3d-parallel", "zero-stages",
		"activation-checkpointing", "gradient-accumulation", "overlap", "mixture-of-experts", "expert-parallel", "long-context", "strategy-planner",
		"nvlink-vs-ib", "rack-scale-nvlink", "collectives-at-scale", "fault-tolerance", "sandbox"}; !slices.Equal(got, want) {
		t.Errorf("IDs() = %v, want %v", got, want)
	}
	for i, s := range All() {
		if s.ID != IDs()[i] {
			t.Errorf("All()[%d].ID = %s, want IDs()[%d] = %s", i, s.ID, i, IDs()[i])
		}
		if got, ok := Get(s.ID); !ok || got != s {
			t.Errorf("Get(%q) = %v, %v; want All()[%d]", s.ID, got, ok, i)
		}
	}
	if _, ok := Get("nope"); ok {
		t.Errorf("Get(nope) found a scenario")
	}
}

// TestRingAllReduceShape pins what the runner and the lesson text rely on.
func TestRingAllReduceShape(t *testing.T) {
	s, ok := Get("ring-allreduce")
	if !ok {
		t.Fatal("ring-allreduce is not embedded")
	}
	if got, want := s.Kind, "collective"; got != want {
		t.Errorf("Engine = %q, want %q", got, want)
	}
	var knobs []string
	for _, k := range s.Knobs {
		knobs = append(knobs, k.Name+"="+k.Default)
	}
	if want := []string{"gpus=8", "bytes=268435456", "link=nvlink4", "algo=ring", "nodes=1"}; !slices.Equal(knobs, want) {
		t.Errorf("knobs = %v, want %v", knobs, want)
	}
	gpus, _ := s.Knob("gpus")
	if gpus.Min != 2 || gpus.Max != 64 {
		t.Errorf("gpus range = %d–%d, want 2–64", gpus.Min, gpus.Max)
	}
	type row struct{ id, algo, from, to string }
	want := []row{
		{"star", "star", "start", "end"},
		{"ring", "ring", "start", "start"},
		{"rs-first", "ring", "round:1", "round:2"},
		{"reduce-scatter", "ring", "round:2", "phase:all-gather"},
		{"all-gather", "ring", "phase:all-gather", "end"},
		{"compare", "ring", "start", "end"},
	}
	var got []row
	for i, st := range s.Steps {
		cfg := s.StepConfig(s.Defaults(), i+1)
		got = append(got, row{st.ID, cfg["algo"], st.From, st.To})
		if wantKey := "step.ring-allreduce." + st.ID + ".title"; st.Title != wantKey {
			t.Errorf("step %s title = %s, want %s", st.ID, st.Title, wantKey)
		}
		if wantKey := "step.ring-allreduce." + st.ID + ".text"; st.Text != wantKey {
			t.Errorf("step %s text = %s, want %s", st.ID, st.Text, wantKey)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps =\n%v\nwant\n%v", got, want)
	}
}

// TestScenarioStringsTranslated checks that every key a scenario uses
// exists in every language (the loader checks English only).
func TestScenarioStringsTranslated(t *testing.T) {
	for _, s := range All() {
		keys := []string{s.Title, s.Summary}
		for _, k := range s.Knobs {
			keys = append(keys, k.Label)
			for _, v := range k.Values {
				if !NumericValue(v) {
					keys = append(keys, k.ValueLabel(v))
				}
			}
		}
		for _, st := range s.Steps {
			keys = append(keys, st.Title, st.Text)
			for _, m := range st.Checkpoints {
				keys = append(keys, "metric."+m)
			}
		}
		for _, lang := range i18n.Langs() {
			for _, k := range keys {
				if got := i18n.T(lang, k); strings.HasPrefix(got, "⟦") {
					t.Errorf("%s: %s: key %s is missing", s.File, lang, k)
				}
			}
		}
	}
}

func TestAllReturnsACopy(t *testing.T) {
	a := All()
	a[0] = nil
	if All()[0] == nil {
		t.Errorf("All() shares its slice with the package")
	}
}

// The browser build's bundle (make build writes every data file after a
// "=== data/NAME" line) loads the same scenarios as the embedded files;
// a bundle missing a lesson's file is reported, naming it.
func TestLoadBundle(t *testing.T) {
	saved, savedErr := embedded, loadErr
	t.Cleanup(func() { embedded, loadErr = saved, savedErr })
	var b strings.Builder
	names := []string{"data/curriculum.txt"}
	ents, _ := dataFS.ReadDir("data")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".scn") {
			names = append(names, "data/"+e.Name())
		}
	}
	for _, n := range names {
		d, err := dataFS.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(BundleMarker + n + "\n")
		b.Write(d)
	}
	if err := LoadBundle(b.String()); err != nil {
		t.Fatal(err)
	}
	if len(embedded) != len(saved) {
		t.Fatalf("%d scenarios from the bundle, %d embedded", len(embedded), len(saved))
	}
	for i, s := range embedded {
		if s.ID != saved[i].ID || len(s.Steps) != len(saved[i].Steps) || len(s.Knobs) != len(saved[i].Knobs) {
			t.Errorf("scenario %d: %s (%d steps, %d knobs) from the bundle, %s (%d, %d) embedded", i, s.ID, len(s.Steps), len(s.Knobs), saved[i].ID, len(saved[i].Steps), len(saved[i].Knobs))
		}
	}
	cut := strings.Replace(b.String(), BundleMarker+"data/roofline.scn", BundleMarker+"data/elsewhere.txt", 1)
	if err := LoadBundle(cut); err == nil || !strings.Contains(err.Error(), "roofline: no loadable file data/roofline.scn") {
		t.Errorf("a bundle without roofline.scn: %v", err)
	}
}
