package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func numfmtView(phase NumfmtPhase) NumfmtView {
	return NumfmtView{
		Width: 845, Height: 800, Stage: draw.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: draw.Dark, Words: shortWords,
		Phase: phase, Value: "70000", X: 70000, FP16Max: 65504,
		Rows: []FormatRow{
			{Name: "FP32", ExpBits: 8, MantBits: 23, Bits: "0 10001111 00010001011100000000000", Stored: "70000", Max: 3.4e38},
			{Name: "FP16", ExpBits: 5, MantBits: 10, Bits: "0 11111 0000000000", Stored: "+Inf", Special: true, Max: 65504, Current: true},
			{Name: "BF16", ExpBits: 8, MantBits: 7, Bits: "0 10001111 0001001", Stored: "70144", RelErr: 144.0 / 70000, Max: 3.39e38},
		},
		Weights: []WeightBar{{"FP32", 700e9}, {"BF16", 350e9}, {"FP8", 175e9}}, Params: "175B", HBMBytes: 80e9,
	}
}

// trainView is a toy run of 200 steps, the spike at 100: FP16's gradient
// overflows there and its loss turns NaN; BF16's carries on.
func trainView(upto int) NumfmtView {
	v := numfmtView(NumTraining)
	v.Steps, v.Spike, v.Upto = 200, 100, upto
	for i, name := range []string{"FP16", "BF16"} {
		c := LossCurve{Name: name, Colour: i, Current: i == 0}
		for s := 0; s < 200; s++ {
			loss, g, st := math.Exp(-float64(s)/50)+0.001, 1+math.Sin(float64(s)), 1+math.Sin(float64(s))
			if s == 100 {
				g, st = -3e5, -2.99e5
				if i == 0 {
					st = math.Inf(-1)
				}
			}
			if i == 0 && s > 100 {
				loss, g, st = math.NaN(), math.NaN(), math.NaN()
			}
			c.Loss, c.Grad, c.Stored, c.Skipped = append(c.Loss, loss), append(c.Grad, g), append(c.Stored, st), append(c.Skipped, false)
		}
		v.Curves = append(v.Curves, c)
	}
	v.GradRows = v.Rows[1:]
	v.Grad = "-300000"
	v.GradStep = min(upto, 100) // the current run, FP16's, died at the spike
	return v
}

// Bits are boxes coloured by field, filled where the bit is 1: FP16's
// +Inf is a 0 sign, five 1s of exponent (framed: all ones) and ten 0s.
func TestNumfmtBits(t *testing.T) {
	l := AppendNumfmt(draw.List{}, numfmtView(NumLayouts))
	golden.Check(t, "numfmt_bits.golden", l.String())
	count := map[draw.Color]int{}
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.W == it.H-1 {
			count[it.Color]++
		}
	}
	// Set bits: FP32 70000 = 0 10001111 00010001011100000000000 (5 + 5),
	// FP16 +Inf (5 exponent), BF16 70144 = 0 10001111 0001001 (5 + 2).
	if count[expOn] != 5+5+5 || count[mantOn] != 5+0+2 || count[signOn] != 0 {
		t.Errorf("set bits: exponent %d, mantissa %d, sign %d; want 15, 7, 0", count[expOn], count[mantOn], count[signOn])
	}
	got := strings.Join(labels(l), "\n")
	for _, want := range []string{"sign", "exponent", "mantissa", "= +Inf", "head_layouts"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	framed := false
	for _, it := range l.Items {
		if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Hot {
			framed = true
		}
	}
	if !framed {
		t.Error("FP16's all-ones exponent is not framed")
	}
}

// Each step's layer: the ranges with FP16's too small, the errors, the
// weights against one GPU.
func TestNumfmtLayers(t *testing.T) {
	got := strings.Join(labels(AppendNumfmt(draw.List{}, numfmtView(NumOverflow))), "\n")
	if !strings.Contains(got, "head_overflow_inf v 70000 max 65,504") || !strings.Contains(got, "max name FP16 max 65,504") {
		t.Errorf("overflow:\n%s", got)
	}
	got = strings.Join(labels(AppendNumfmt(draw.List{}, numfmtView(NumPrecision))), "\n")
	if !strings.Contains(got, "error name BF16 err 0.206%") {
		t.Errorf("precision:\n%s", got)
	}
	got = strings.Join(labels(AppendNumfmt(draw.List{}, numfmtView(NumMemory))), "\n")
	if !strings.Contains(got, "700 GB") || !strings.Contains(got, "one_gpu bytes 80 GB") {
		t.Errorf("memory:\n%s", got)
	}
}

// The training picture: before the spike the headline waits for it;
// after, FP16 is dead, its gradient marked as stored Inf over FP16's
// largest number and its loss ending in NaN; its rows keep the gradient
// that killed it, the spike's.
func TestNumfmtTraining(t *testing.T) {
	got := strings.Join(labels(AppendNumfmt(draw.List{}, trainView(90))), "\n")
	if !strings.Contains(got, "head_before name FP16 k 90 spike 100") || strings.Contains(got, "NaN") {
		t.Errorf("before the spike:\n%s", got)
	}
	got = strings.Join(labels(AppendNumfmt(draw.List{}, trainView(150))), "\n")
	for _, want := range []string{"head_dead name FP16 max 65,504", "\ninf\n", "NaN", "fp16_max max 65,504", "grad_last k 100"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q after the spike:\n%s", want, got)
		}
	}
}

func TestNumfmtText(t *testing.T) {
	for _, st := range []draw.Rect{{X: 0, Y: 0, W: 845, H: 800}, {X: 0, Y: 0, W: 390, H: 420}, {X: 0, Y: 0, W: 640, H: 300}} {
		for ph := NumLayouts; ph <= NumMemory; ph++ {
			v := numfmtView(ph)
			if ph == NumTraining {
				v = trainView(120)
			}
			v.Stage, v.Width, v.Height = st, st.W, st.H
			checkText(t, AppendNumfmt(draw.List{}, v), st, 13.5)
		}
	}
}
