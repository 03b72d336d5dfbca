package render

import "github.com/gpuscope/gpuscope/render/draw"
import "testing"

// quantTestView is four values in two blocks of two: block 0 holds an
// outlier (1,000) whose window reaches down to 1, so its 0.01 is flushed
// and its 1.5 coarse; block 1's window sits on its values (0.5, 0.02).
func quantTestView(pending bool) QuantizeView {
	return QuantizeView{
		Width: 800, Height: 600, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 600}, Scale: 1, Theme: draw.Dark, Title: "strip",
		X: []float64{1000, 0.01, 0.5, 0.02}, Q: []float64{1000, 0, 0.5, 0.02}, Outlier: []bool{true, false, false, false},
		Block: 2, Windows: []QuantWindow{{Top: 1000, MinNormal: 2, Flush: 0.5}, {Top: 0.5, MinNormal: 0.001, Flush: 0.0001}},
		Rows:    []QuantRow{{Name: "A", Bytes: 1, Error: 0.1, Bits: "8", ErrText: "10%", Current: true}, {Name: "B", Bytes: 0.5, Error: 0.2, Bits: "4", ErrText: "20%"}},
		Pending: pending,
		Said:    QuantizeWords{YAxis: "y", XAxis: "x", Flushed: "flushed", OutlierLabel: "outlier", Hidden: "?"},
	}
}

// Each value is drawn by its fate: the outlier hot, the flushed one a
// hollow square, the block's values kept; while the question is open no
// value's fate, no window and not the current row's error show.
func TestQuantizeFates(t *testing.T) {
	_, kept, coarse := quantColours(draw.Dark)
	count := func(l draw.List, k draw.Kind, c draw.Color) int {
		n := 0
		for _, it := range l.Items {
			if it.Kind == k && it.Color == c {
				n++
			}
		}
		return n
	}
	l := AppendQuantize(draw.List{}, quantTestView(false))
	if got := count(l, draw.FillCircle, draw.Dark.Hot); got != 1 {
		t.Errorf("%d outlier dots, want 1", got)
	}
	if got := count(l, draw.FillCircle, kept); got != 2 {
		t.Errorf("%d kept dots, want 2", got)
	}
	if got := count(l, draw.FillCircle, coarse); got != 0 {
		t.Errorf("%d coarse dots, want 0", got)
	}
	if got := count(l, draw.StrokeRect, draw.Dark.Dim); got < 2 { // the flushed value and the plot's frame
		t.Errorf("%d dim frames, want the flushed value's and the plot's", got)
	}
	p := AppendQuantize(draw.List{}, quantTestView(true))
	if got := count(p, draw.FillCircle, kept); got != 0 {
		t.Errorf("pending: %d kept dots, want 0", got)
	}
	for _, it := range p.Items {
		if it.Kind == draw.Text && (it.Text == "10%" || it.Text == "flushed") {
			t.Errorf("pending: %q drawn", it.Text)
		}
	}
}
