package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// passView is GPU 27's 132 SMs with pass ps running, on a desktop stage
// or a phone's.
func passView(ps ZoomSMPass, phone bool) ZoomSMView {
	v := ZoomSMView{Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Crumbs: "Cluster › Node 3 › GPU 27 › SM", Title: "The SMs of GPU 27", SMs: 132,
		Note: "A memory-bound pass: the SMs read and write each element once", Pass: &ps}
	if phone {
		v.Width, v.Height, v.Stage, v.Theme = 390, 844, draw.Rect{X: 0, Y: 0, W: 390, H: 420}, draw.Light
	}
	return v
}

// The pass's pieces in the list: the SM cells (squares in the busy or
// the empty colour), the pipe (the bar's colour, translucent) and the
// packets in it (the text colour, small squares).
func passParts(l draw.List, v ZoomSMView) (busy, idle int, pipe draw.Item, packets int) {
	th := v.Theme
	bc := zoomActColour(v.Pass.Activity, th)
	barY := float32(1e9) // the bar: the first item full-width in the bar's colours
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && (it.Color == th.Link || it.Color == th.Empty) && it.W > v.Stage.W*0.8 {
			barY = it.Y
			break
		}
	}
	for _, it := range l.Items {
		if it.Kind != draw.FillRect || it.Y >= barY {
			continue // the legend's swatches are under the bar
		}
		switch {
		case it.W == it.H && it.W > 4 && it.Color == bc && it.Color != th.Empty:
			busy++
		case it.W == it.H && it.W > 4 && it.Color == th.Empty:
			idle++
		case it.Color == draw.WithAlpha(th.Link, 120) || it.Color == draw.WithAlpha(th.Empty, 120):
			pipe = it
		case it.Color == th.Text && it.W == it.H && it.W <= 12:
			packets++
		}
	}
	return
}

// A memory pass lights every SM over a pipe nine tenths as wide as the
// bar, with packets moving up and down it; attention's pipe is a
// trickle with the words of what stays on chip; through a collective
// every SM waits while the bytes move on the links; a waiting GPU is
// all grey with no pipe.
func TestZoomSMPass(t *testing.T) {
	for _, phone := range []bool{false, true} {
		mem := passView(ZoomSMPass{Activity: ZoomForward, Busy: 132, Flow: FlowHBM, Share: 0.9, BusyKey: "streaming", Bar: "HBM: 3.35 TB/s", Progress: 0.4,
			Numbers: "reads and writes 49.8 MB in 16.5 µs"}, phone)
		l := AppendZoomSM(draw.List{}, mem)
		busy, idle, pipe, packets := passParts(l, mem)
		if busy != 132 || idle != 0 || packets < 4 {
			t.Errorf("phone %v, memory pass: %d busy, %d idle SMs, %d packets", phone, busy, idle, packets)
		}
		bar := draw.Item{}
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && it.Color == draw.Dark.Link || it.Kind == draw.FillRect && it.Color == draw.Light.Link && phone {
				bar = it
			}
		}
		if bar.W == 0 || pipe.W < bar.W*0.85 || pipe.W > bar.W*0.95 || pipe.Y+pipe.H > bar.Y+0.5 {
			t.Errorf("phone %v, memory pass: pipe %+v over bar %+v, want 90%% of its width, above it", phone, pipe, bar)
		}
		got := strings.Join(labels(l), "\n")
		for _, want := range []string{"HBM: 3.35 TB/s", "streaming", "reads and writes 49.8 MB in 16.5 µs", "A memory-bound pass"} {
			if !strings.Contains(got, want) {
				t.Errorf("phone %v, memory pass: no %q in\n%s", phone, want, got)
			}
		}
		if strings.Contains(got, "waiting") {
			t.Errorf("phone %v: every SM at work, yet a waiting key", phone)
		}

		att := passView(ZoomSMPass{Activity: ZoomBackward, Busy: 132, Flow: FlowOnChip, Share: 0.02, BusyKey: "attention's tiles", OnChip: "the scores stay in the SMs",
			Bar: "HBM: 3.35 TB/s", Progress: 0.4}, phone)
		l = AppendZoomSM(draw.List{}, att)
		_, _, apipe, _ := passParts(l, att)
		if apipe.W == 0 || apipe.W > pipe.W/10 {
			t.Errorf("phone %v: attention's pipe %g wide against the memory pass's %g", phone, apipe.W, pipe.W)
		}
		if !strings.Contains(strings.Join(labels(l), "\n"), "the scores stay in the SMs") {
			t.Errorf("phone %v: attention says nothing of what stays on chip", phone)
		}

		comm := passView(ZoomSMPass{Activity: ZoomComm, Busy: 0, Flow: FlowLink, Share: 1, WaitKey: "SMs waiting on the links", Bar: "the links", Progress: 0.5}, phone)
		l = AppendZoomSM(draw.List{}, comm)
		busy, idle, pipe, packets = passParts(l, comm)
		if busy != 0 || idle != 132 || pipe.W == 0 || packets == 0 || !strings.Contains(strings.Join(labels(l), "\n"), "SMs waiting on the links") {
			t.Errorf("phone %v, collective: %d busy, %d idle, pipe %+v, %d packets", phone, busy, idle, pipe, packets)
		}

		wait := passView(ZoomSMPass{Activity: ZoomIdle, Flow: FlowNone, Bar: "HBM: 3.35 TB/s"}, phone)
		l = AppendZoomSM(draw.List{}, wait)
		busy, idle, pipe, packets = passParts(l, wait)
		if busy != 0 || idle != 132 || pipe.W != 0 || packets != 0 {
			t.Errorf("phone %v, waiting: %d busy, %d idle, pipe %+v, %d packets", phone, busy, idle, pipe, packets)
		}
		checkKeyed(t, AppendZoomSM(draw.List{}, mem), mem.Theme)
	}
	golden.Check(t, "zoomsm_pass.golden", AppendZoomSM(draw.List{}, passView(ZoomSMPass{Activity: ZoomForward, Busy: 132, Flow: FlowHBM, Share: 0.9,
		BusyKey: "streaming", Bar: "HBM: 3.35 TB/s", Progress: 0.4}, false)).String())
}

// What moves (the packets) comes after what stays: two moments of a
// pass share every item but the packets.
func TestZoomSMPassStillFirst(t *testing.T) {
	ps := ZoomSMPass{Activity: ZoomForward, Busy: 132, Flow: FlowHBM, Share: 0.9, BusyKey: "streaming", Bar: "HBM", Progress: 0.2}
	a := AppendZoomSM(draw.List{}, passView(ps, false))
	ps.Progress = 0.55
	b := AppendZoomSM(draw.List{}, passView(ps, false))
	if len(a.Items) != len(b.Items) {
		t.Fatalf("%d items, then %d", len(a.Items), len(b.Items))
	}
	first := -1
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("nothing moved")
	}
	for _, it := range a.Items[first:] {
		if it.Color != draw.Dark.Text || it.Kind != draw.FillRect {
			t.Fatalf("item %+v moves, not a packet", it)
		}
	}
}
