package scene

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// heaviest are the time-line lessons at the page benchmark's heaviest
// configurations (site/browsertest/bench_test.go's heaviest map).
var heaviest = []struct{ id, frag string }{
	{"pipeline-parallel", "step=4&pp=8&micro_batches=32&schedule=interleaved&interleave=4&recompute=full"},
	{"activation-checkpointing", "step=3&model=gpt3-175b&pp=16&gpus=128&micro_batches=32&recompute=full&flash=on"},
	{"long-context", "step=4&micro_batches=16&interleave=4&recompute=full"},
}

// framed are the lessons whose frames BenchmarkHeaviestFrame times (make
// bench): the time lines, and the other lessons heaviest in the page at
// their heaviest configurations.
var framed = append(heaviest[:len(heaviest):len(heaviest)], []struct{ id, frag string }{
	{"fault-tolerance", "step=4&gpus=32768&days=54&checkpoint_min=1&mtbf_gpu_hours=1000"},
	{"3d-parallel", "step=1&model=megatron-1t&gpus=1024&tp=8&pp=16&micro_batches=64&zero=1"},
	{"ring-allreduce", "step=6&gpus=64&bytes=4GiB&nodes=8"},
	{"tensor-parallel", "step=5&model=gpt3-175b&tp=32&pp=8&gpus=256"},
	{"mixture-of-experts", "step=4&model=deepseek-v3&gpu=h800&tokens=4096&ep=64&skew=1&capacity_factor=1.25"},
	{"mixture-of-experts", "step=2"},
	{"fp8-training", "step=6&recipe=nvfp4&outlier=100000&dist=lognormal"},
	{"fp8-training", "step=5"},
	{"expert-parallel", "step=3&recompute=none&global_batch=15360"},
	{"rack-scale-nvlink", "step=5&op=alltoall&bytes=16GB&domain=72&inter=ib-hdr"},
	{"sandbox", "step=1&model=megatron-1t&gpus=512&tp=8&pp=64&global_batch=64"},
	{"sandbox", "step=1&model=megatron-1t&gpus=128&tp=8&pp=16&global_batch=256"},
	{"sandbox", "step=2&model=megatron-1t&gpus=8192&tp=8&pp=16&global_batch=2048"},
}...)

// playing is a player at id's heaviest configuration, playing.
func playing(tb testing.TB, id, frag string) *scenarios.Player {
	tb.Helper()
	p, errs, err := scenarios.NewPlayerAt("scenario=" + id + "&" + frag)
	if err != nil || len(errs) > 0 {
		tb.Fatalf("%s: %v %v", id, err, errs)
	}
	p.Play()
	return p
}

// BenchmarkHeaviestFrame builds the picture of a lesson at its heaviest
// (framed), playing, frame after frame as the page does (a 60th of a
// second of playback each, at a quarter speed): the Go time of Update's
// picture step, its allocations, with the display items that Draw then
// paints.
func BenchmarkHeaviestFrame(b *testing.B) {
	for _, h := range framed {
		b.Run(h.id, func(b *testing.B) {
			p := playing(b, h.id, h.frag)
			p.Command([]byte(`{"type":"set","speed":0.25}`))
			var pic Picture
			var l render.List
			for range 3 { // warm: the run's views built once
				p.Advance(1.0 / 60)
				l = pic.Build(l, At(p), desktop)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if p.Advance(1.0 / 60); !p.Playing() {
					p.Play()
				}
				l = pic.Build(l, At(p), desktop)
			}
			b.ReportMetric(float64(len(l.Items)), "items")
		})
	}
}

// At their heaviest, playing, the time-line lessons build each frame's
// picture without allocating (the run's views, bubbles and words are
// made once), and with the display items their detail needs: marks
// under a pixel are merged (before: 12,188 and 16,978 items).
//
// The other heavy lessons allocate only the words that change as they
// play: fault-tolerance's headline counts failures, 13 of them a frame at
// 32,768 GPUs, and its clock; 3d-parallel's, ring-allreduce's and tensor-parallel's
// clocks and counters; mixture-of-experts' clock, and its race's clock,
// meters and finish times (15–18); rack-scale-nvlink's race the same.
func TestHeaviestFrames(t *testing.T) {
	maxItems := map[string]int{"pipeline-parallel": 8000, "activation-checkpointing": 12500}
	maxAllocs := map[string]float64{"fault-tolerance": 12, "3d-parallel": 5, "ring-allreduce": 6, "tensor-parallel": 5, "mixture-of-experts": 20, "rack-scale-nvlink": 16}
	for _, h := range framed {
		p := playing(t, h.id, h.frag)
		var pic Picture
		var l render.List
		for range 60 {
			p.Advance(1.0 / 60)
			l = pic.Build(l, At(p), desktop)
		}
		allocs := testing.AllocsPerRun(30, func() {
			p.Advance(1.0 / 60)
			l = pic.Build(l, At(p), desktop)
		})
		if allocs > maxAllocs[h.id] {
			t.Errorf("%s: %.1f allocations a frame, want at most %g", h.id, allocs, maxAllocs[h.id])
		}
		if n := len(l.Items); maxItems[h.id] > 0 && n > maxItems[h.id] {
			t.Errorf("%s: %d display items, want at most %d", h.id, n, maxItems[h.id])
		}
	}
}

// minSharedPrefix is the share of its items that a time-line lesson's
// frame, at its heaviest and playing, begins with in common with the
// frame before: what does not move is drawn first, the veil after the
// playhead and the playhead last, so that the painter keeps the common
// beginning drawn on a layer (render/paint's prefix cache) and paints
// only the rest. Measured over 30 frames: pipeline-parallel 99.8% of
// 7,329 items, activation-checkpointing 98.9% of 11,989 (before the
// veil: 1.7% and 4.5%, the blocks' colours changing at the playhead).
const minSharedPrefix = 0.95

// sharedPrefix plays p at a quarter speed for frames frames and returns
// the last frame's list and the least share of its items a frame begins
// with in common with the frame before.
func sharedPrefix(p *scenarios.Player, frames int) (render.List, float64) {
	p.Command([]byte(`{"type":"set","speed":0.25}`))
	var pic Picture
	var l render.List
	var prev []render.Item
	worst := 1.0
	for i := range frames {
		p.Advance(1.0 / 60)
		l = pic.Build(l, At(p), desktop)
		if i > 0 {
			n := 0
			for n < min(len(prev), len(l.Items)) && prev[n] == l.Items[n] {
				n++
			}
			worst = min(worst, float64(n)/float64(len(l.Items)))
		}
		prev = append(prev[:0], l.Items...)
	}
	return l, worst
}

func TestHeaviestFramesShareAPrefix(t *testing.T) {
	for _, h := range heaviest {
		l, worst := sharedPrefix(playing(t, h.id, h.frag), 30)
		t.Logf("%s: %d items, the least shared prefix %.4f", h.id, len(l.Items), worst)
		if worst < minSharedPrefix {
			t.Errorf("%s: two successive frames share %.1f%% of their %d items at the least, want %.0f%% at least", h.id, 100*worst, len(l.Items), 100*minSharedPrefix)
		}
	}
}

// A cluster step (3d-parallel's 512 GPUs, TP coloured) allocates a frame
// only for its clock's words (the time changes every frame): its parts,
// headline and legend are made once a run and language (before: 26
// allocations a frame).
func TestClusterFrameNoAllocs(t *testing.T) {
	const clockAllocs = 5 // units.Duration and the catalogue's "t = {t}"
	p := playing(t, "3d-parallel", "step=1")
	var pic Picture
	var l render.List
	for range 10 {
		p.Advance(1.0 / 60)
		l = pic.Build(l, At(p), desktop)
	}
	if allocs := testing.AllocsPerRun(30, func() {
		p.Advance(1.0 / 60)
		l = pic.Build(l, At(p), desktop)
	}); allocs > clockAllocs {
		t.Errorf("3d-parallel step 1: %.1f allocations a frame, want at most the clock's %d", allocs, clockAllocs)
	}
}

// The cluster picture draws what moves — lit links, packets, the clock —
// after what stays, so that the painter keeps the nodes and GPUs on a
// layer: at the sandbox's 8,192 GPUs two successive frames share 99% of
// their items (before: none, the clock being the first), and GPUs a few
// pixels wide are drawn as runs of one colour (6,231 items, not 21,591).
func TestClusterAtScaleSharesAPrefix(t *testing.T) {
	l, worst := sharedPrefix(playing(t, "sandbox", "step=2&model=megatron-1t&gpus=8192&tp=8&pp=16&global_batch=2048"), 60)
	if worst < 0.99 || len(l.Items) > 8000 {
		t.Errorf("8,192 GPUs: %d items, successive frames share %.1f%% at the least; want ≤ 8,000 and ≥ 99%%", len(l.Items), 100*worst)
	}
	if last := l.Items[len(l.Items)-1]; last.Kind != render.Text || !strings.HasPrefix(last.Text, "t = ") {
		t.Errorf("the last item is %+v, want the clock", last)
	}
}
