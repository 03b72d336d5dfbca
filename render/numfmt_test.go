package render

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func numfmtView() NumfmtView {
	return NumfmtView{
		Width: 800, Height: 600, Stage: Rect{0, 0, 800, 600}, Scale: 1, Theme: Dark,
		Rows: []FormatRow{
			{Name: "FP16", ExpBits: 5, Bits: "0 11111 0000000000", Stored: "+Inf", Current: true},
			{Name: "BF16", ExpBits: 8, Bits: "0 10001111 0001001", Stored: "70144"},
		},
	}
}

// Bits are boxes coloured by field, filled where the bit is 1.
func TestNumfmtBits(t *testing.T) {
	l := AppendNumfmt(List{}, numfmtView())
	golden.Check(t, "numfmt_bits.golden", l.String())
	count := map[Color]int{}
	for _, it := range l.Items {
		if it.Kind == FillRect {
			count[it.Color]++
		}
	}
	// FP16 +Inf: 0 sign, five 1s of exponent, ten 0s; BF16 70144: sign 0,
	// exponent 10001111 (five 1s), mantissa 0001001 (two 1s).
	if count[signOn] != 0 || count[expOn] != 10 || count[mantOn] != 2 || count[fieldBg] != (1+0+10)+(1+3+5) {
		t.Errorf("boxes: sign %d, exponent %d, mantissa %d set, %d clear; want 0, 10, 2, 20", count[signOn], count[expOn], count[mantOn], count[fieldBg])
	}
}

// The loss chart stops a dead run at its first NaN, marked.
func TestNumfmtLossChart(t *testing.T) {
	v := numfmtView()
	fp16 := make([]float64, 10)
	bf16 := make([]float64, 10)
	for i := range fp16 {
		fp16[i], bf16[i] = 1/float64(i+1), 1/float64(i+1)
	}
	fp16[6], fp16[7], fp16[8], fp16[9] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	v.Curves = []LossCurve{{Name: "FP16", Loss: fp16, Colour: 0}, {Name: "BF16", Loss: bf16, Colour: 1}}
	v.Steps, v.Upto, v.Spike = 10, 9, 5
	l := AppendNumfmt(List{}, v)
	segs := map[Color]int{}
	nan := false
	for _, it := range l.Items {
		if it.Kind == Line && it.Width == 2 {
			segs[it.Color]++
		}
		if it.Kind == Text && it.Text == "NaN" && it.Color == Dark.Hot {
			nan = true
		}
	}
	if segs[Dark.Hot] != 5 || segs[Dark.LinkActive] != 9 || !nan {
		t.Errorf("FP16 %d segments, BF16 %d, NaN label %v; want 5, 9, true", segs[Dark.Hot], segs[Dark.LinkActive], nan)
	}
}
