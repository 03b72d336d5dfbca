package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// splitView deals a 64K-token sequence to 4 GPUs.
func splitView(progress float64) CPSplitView {
	v := CPSplitView{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, CP: 4,
		Headline: "CP 4", Sequence: "one sequence: 65,536 tokens, 8 chunks", First: "token 0", Last: "65,536",
		Each: "16,384 tokens each", Work: "bar: attention work", Progress: progress}
	for g := range 4 {
		v.GPUs = append(v.GPUs, "GPU "+strconv.Itoa(g))
		v.Short = append(v.Short, strconv.Itoa(g))
	}
	return v
}

func TestCPSplitGolden(t *testing.T) {
	golden.Check(t, "cpsplit_mid.golden", AppendCPSplit(draw.List{}, splitView(0.5)).String())
}

// GPU i gets chunks i and 2·CP−1−i: once dealt, each GPU's box holds two
// rects of its colour, and its work bar's two shares add up to the same
// width on every GPU.
func TestCPSplitDeals(t *testing.T) {
	if got := []int{cpOwner(0, 4), cpOwner(3, 4), cpOwner(4, 4), cpOwner(7, 4)}; got[0] != 0 || got[1] != 3 || got[2] != 3 || got[3] != 0 {
		t.Errorf("owners %v, want 0 3 3 0", got)
	}
	l := AppendCPSplit(draw.List{}, splitView(1))
	for g := range 4 {
		c := draw.Chunk(g, 4)
		solid, work := 0, float32(0)
		for _, it := range l.Items {
			if it.Kind != draw.FillRect || it.Color.R != c.R || it.Color.G != c.G || it.Color.B != c.B {
				continue
			}
			switch it.Color.A {
			case 255:
				solid++
			case 200, 120:
				work += it.W
			}
		}
		if solid != 2 {
			t.Errorf("GPU %d: %d chunks dealt, want 2", g, solid)
		}
		if work <= 0 {
			t.Errorf("GPU %d: no work bar", g)
		}
	}
	// Mid-flight the chunks are between the sequence and the boxes: the
	// picture changes as it plays.
	if AppendCPSplit(draw.List{}, splitView(0)).String() == l.String() {
		t.Error("the chunks do not move")
	}
}

// exchangeView races an all-gather (1 ms, then 4 ms of attention) against
// a ring of 4 steps whose sends (0.5 ms) hide behind each block's 1 ms.
func exchangeView(t float64) CPExchangeView {
	ag := CPExchangeLane{Name: "all-gather", End: 5e-3, Note: "5 ms"}
	for k := range 3 {
		ag.Sends = append(ag.Sends, Interval{float64(k) / 3e3, float64(k+1) / 3e3})
		ag.SendSrc = append(ag.SendSrc, k+1)
	}
	ring := CPExchangeLane{Name: "ring", End: 4e-3, Note: "4 ms"}
	for k := range 4 {
		ag.Computes = append(ag.Computes, Interval{1e-3 + float64(k)*1e-3, 2e-3 + float64(k)*1e-3})
		ag.CompSrc = append(ag.CompSrc, k)
		ring.Computes = append(ring.Computes, Interval{float64(k) * 1e-3, float64(k+1) * 1e-3})
		ring.CompSrc = append(ring.CompSrc, (4-k)%4)
		if k > 0 {
			ring.Sends = append(ring.Sends, Interval{float64(k-1) * 1e-3, float64(k-1)*1e-3 + 0.5e-3})
			ring.SendSrc = append(ring.SendSrc, (4-k)%4)
		}
	}
	return CPExchangeView{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: testWords, CP: 4,
		Headline: "CP 4", Lanes: []CPExchangeLane{ag, ring}, Span: 5e-3, SpanLabel: "5 ms", Time: t,
		LinkRow: "link", GPURow: "GPU 0", Transfer: "K/V", Compute: "attention", Waiting: "waiting", Axis: "one layer", Note: "GQA"}
}

func TestCPExchangeGolden(t *testing.T) {
	golden.Check(t, "cpexchange_done.golden", AppendCPExchange(draw.List{}, exchangeView(-1)).String())
}

// On one axis: finished, the all-gather lane's last attention block ends
// 5/4 as far right as the ring's; the GPU waits (Hot veil) only in the
// all-gather lane; before the clock reaches a block it is not drawn.
func TestCPExchangeOneAxis(t *testing.T) {
	v := exchangeView(-1)
	l := AppendCPExchange(draw.List{}, v)
	ends := map[float32]bool{}
	waits := 0
	var right []float32
	for _, it := range l.Items {
		if it.Kind != draw.FillRect {
			continue
		}
		if it.Color == draw.WithAlpha(v.Theme.Hot, overVeil) && it.W > 0 && it.H < 100 {
			waits++
		}
		ends[it.X+it.W] = true
	}
	for x := range ends {
		right = append(right, x)
	}
	if waits != 2 { // the legend's swatch and the all-gather's wait
		t.Errorf("%d waiting marks, want the legend's and the all-gather's", waits)
	}
	// The lanes' end marks: two vertical segments at the ends.
	var marks []float32
	for _, it := range l.Items {
		if it.Kind == draw.Line && it.X2 == it.X && it.Color == v.Theme.Text {
			marks = append(marks, it.X)
		}
	}
	if len(marks) != 2 {
		t.Fatalf("end marks %v", marks)
	}
	x0 := marks[0] - (marks[0]-marks[1])*5 // the axis' origin from the two ends (5 ms and 4 ms)
	if r := float64((marks[0] - x0) / (marks[1] - x0)); math.Abs(r-1.25) > 0.01 {
		t.Errorf("ends at %v (origin %v): ratio %.3f, want 1.25", marks, x0, r)
	}
	early := AppendCPExchange(draw.List{}, exchangeView(0.5e-3))
	if len(early.Items) >= len(l.Items) {
		t.Errorf("at 0.5 ms %d items, finished %d: the blocks should grow with the clock", len(early.Items), len(l.Items))
	}
}
