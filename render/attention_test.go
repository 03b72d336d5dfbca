package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// attentionView is 96 heads of d = 128 in BF16 on an H100 at N = 2,048,
// with the sweep from 256 to 65,536 (K and V leave L2 at the end: four
// reads).
func attentionView(phase AttentionPhase, seq int) AttentionView {
	var pts []AttentionPoint
	for n := 256; n <= 65536; n *= 2 {
		f, r := 96*4*float64(n)*128*2, 1
		if n == 65536 {
			f, r = 96*10*float64(n)*128*2, 4
		}
		pts = append(pts, AttentionPoint{Seq: n, Standard: 96 * (4*float64(n)*float64(n) + 4*float64(n)*128) * 2, Flash: f, KVReads: r})
	}
	return AttentionView{Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Phase: phase, Points: pts, Seq: seq, HeadDim: 128, Heads: 96, Batch: 1,
		ScoreBytes: 805306368, StdBytes: 3422552064, FlashBytes: 201326592, StdTimeS: 1.0217e-3, FlashTimeS: 2.541e-4,
		L2Bytes: 50e6, MaxDiff: 7.77e-16}
}

func TestAttentionGolden(t *testing.T) {
	golden.Check(t, "attention.golden", AppendAttention(draw.List{}, attentionView(AttTraffic, 2048)).String())
}

// On the chart standard attention's curve climbs twice as steeply as
// FlashAttention's (N² against N) until the L2 step, which is marked and
// explained.
func TestAttentionChart(t *testing.T) {
	stdC, flC, _, _, _ := attentionColours(draw.Dark)
	l := AppendAttention(draw.List{}, attentionView(AttTraffic, 2048))
	var std, fl []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.FillCircle && it.R == 3.5 {
			switch it.Color {
			case stdC:
				std = append(std, it)
			case flC:
				fl = append(fl, it)
			}
		}
	}
	if len(std) != 9 || len(fl) != 9 {
		t.Fatalf("%d standard and %d flash points, want 9 each", len(std), len(fl))
	}
	rise := func(p []draw.Item, a, b int) float32 { return p[a].Y - p[b].Y }
	if r := rise(std, 0, 7) / rise(fl, 0, 7); r < 1.9 || r > 2.1 {
		t.Errorf("up to 32k standard rises %.2f× as much as flash, want 2 (N² against N)", r)
	}
	got := strings.Join(labels(l), "\n")
	if !strings.Contains(got, "l2 ratio 5× reads 4") || !strings.Contains(got, "head_traffic n 2,048") {
		t.Errorf("labels:\n%s", got)
	}
}

// Standard attention's S and P are N × N, drawn N/d = 16 times as wide
// as Q; FlashAttention's HBM holds no S; the traffic bars are in
// proportion (17×).
func TestAttentionFlows(t *testing.T) {
	stdC, flC, qC, _, _ := attentionColours(draw.Dark)
	l := AppendAttention(draw.List{}, attentionView(AttSpeed, 2048))
	var q, s float32
	var bars []float32
	for _, it := range l.Items {
		if it.Kind != draw.FillRect {
			continue
		}
		switch {
		case it.Color == qC && it.H > it.W*4 && q == 0:
			q = it.W
		case it.Color == stdC && it.W == it.H && it.W > 40 && s == 0:
			s = it.W
		case (it.Color == stdC || it.Color == flC) && it.H < 14 && it.W > 0 && it.W != it.H:
			bars = append(bars, it.W)
		}
	}
	if q <= 0 || s/q < 15.5 || s/q > 16.5 {
		t.Errorf("S is %.1f px, Q %.1f px wide: want 16×", s, q)
	}
	if len(bars) < 4 || bars[0]/bars[1] < 16 || bars[0]/bars[1] > 18 {
		t.Errorf("traffic bars %v, want 3.42 GB against 201 MB", bars)
	}
	got := strings.Join(labels(l), "\n")
	if !strings.Contains(got, "head_speed ratio 4.02× bytes 17×") || !strings.Contains(got, "never") {
		t.Errorf("labels:\n%s", got)
	}
}

// The online softmax's tiled weights equal the direct ones bar for bar.
func TestAttentionSoftmax(t *testing.T) {
	stdC, _, qC, _, _ := attentionColours(draw.Dark)
	l := AppendAttention(draw.List{}, attentionView(AttSame, 2048))
	var d, tl []float32
	fs, _ := draw.TextSizes(draw.Rect{X: 0, Y: 0, W: 845, H: 800}, 1)
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.W < 30 && it.W != fs*0.9 { // not the legend's swatches
			switch it.Color {
			case stdC:
				d = append(d, it.H)
			case qC:
				tl = append(tl, it.H)
			}
		}
	}
	if len(d) != 16 || len(tl) != 16 {
		t.Fatalf("%d direct and %d tiled bars, want 16 each", len(d), len(tl))
	}
	for i := range d {
		if d[i]-tl[i] > 0.01 || tl[i]-d[i] > 0.01 {
			t.Errorf("bar %d: direct %.3f, tiled %.3f", i, d[i], tl[i])
		}
	}
	if got := strings.Join(labels(l), "\n"); !strings.Contains(got, "7.77e-16") {
		t.Errorf("labels:\n%s", got)
	}
}

func TestAttentionText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for ph := AttScores; ph <= AttAll; ph++ {
			v := attentionView(ph, 4096)
			v.Stage, v.Width, v.Height = st, st.W, st.H
			checkText(t, AppendAttention(draw.List{}, v), st, 13.5)
		}
	}
}
