package page

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
	"github.com/gpuscope/gpuscope/scenarios"
)

func TestWindow(t *testing.T) {
	var w Window
	if w.Mean() != 0 || w.Frames() != 0 {
		t.Fatalf("an empty window: mean %g over %d", w.Mean(), w.Frames())
	}
	for i := range 10 {
		w.Add(float64(i)) // 0 … 9
	}
	if w.Mean() != 4.5 || w.Frames() != 10 {
		t.Errorf("ten samples: mean %g over %d, want 4.5 over 10", w.Mean(), w.Frames())
	}
	for range 2 * WindowFrames {
		w.Add(2)
	}
	if w.Mean() != 2 || w.Frames() != WindowFrames {
		t.Errorf("a full window: mean %g over %d, want 2 over %d", w.Mean(), w.Frames(), WindowFrames)
	}
	// Start-up's slow ticks leave with a reset, not after 120 more.
	w.Reset()
	w.Add(40)
	w.Reset()
	w.Add(1)
	w.Add(3)
	if w.Mean() != 2 || w.Frames() != 2 {
		t.Errorf("after a reset: mean %g over %d, want 2 over 2", w.Mean(), w.Frames())
	}
}

// state() as the page writes it (tinyjson) is what encoding/json writes,
// for every lesson; its perf keeps the names scripts read, and says
// over how many frames.
func TestStateJSON(t *testing.T) {
	for _, id := range scenarios.IDs() {
		p, _, err := scenarios.NewPlayerAt("scenario=" + id)
		if err != nil {
			t.Fatal(err)
		}
		st := State{PlayerState: p.Report(), Ready: true, Perf: Perf{UpdateMS: 0.125, DrawMS: 1.5, FPS: 59.5, UpdateFrames: 120, DrawFrames: 37, HeapBytes: 1 << 24}}
		got, err := tinyjson.Marshal(st)
		want, _ := json.Marshal(st)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s: tinyjson %s, %v; encoding/json %s", id, got, err, want)
		}
		for _, name := range []string{`"scenario":`, `"ready":true`, `"perf":{"update_ms":0.125,"draw_ms":1.5,"fps":59.5,"main_ms":0,"init_ms":0,"first_frame_ms":0,"first_update_ms":0,"first_draw_ms":0,"heap_bytes":16777216,"js_heap_bytes":0,"update_frames":120,"draw_frames":37,"layer_items":0}`} {
			if !strings.Contains(string(got), name) {
				t.Errorf("%s: state() lacks %s: %s", id, name, got)
			}
		}
	}
}
