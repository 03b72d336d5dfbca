package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// tpmView is a consistent small MLP: b=2, h=4, f=4 (2 a GPU).
func tpmView(w, h float32, phase int) TPMatrixView {
	v := TPMatrixView{
		Width: w, Height: h, Stage: draw.Rect{X: 0, Y: 0, W: w, H: h}, Scale: 1, Theme: draw.Dark, Phase: phase,
		X:  [][]float64{{0.5, -1.0, 0.8, 0.2}, {1.2, 0.3, -0.4, 0.9}},
		A1: [][]float64{{0.3, -0.5}, {0.8, 0.1}, {-0.2, 0.6}, {0.4, 0.7}},
		A2: [][]float64{{-0.6, 0.2}, {0.5, -0.3}, {0.9, 0.4}, {-0.1, 0.8}},
		B1: [][]float64{{0.2, -0.4, 0.6, 0.1}, {0.7, 0.3, -0.5, 0.2}},
		B2: [][]float64{{-0.3, 0.5, 0.1, 0.8}, {0.4, -0.2, 0.9, -0.6}},
	}
	gelu := func(m [][]float64) [][]float64 {
		for _, row := range m {
			for j, x := range row {
				row[j] = 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
			}
		}
		return m
	}
	v.Y1, v.Y2 = gelu(tpmMul(v.X, v.A1)), gelu(tpmMul(v.X, v.A2))
	v.Z1, v.Z2 = tpmMul(v.Y1, v.B1), tpmMul(v.Y2, v.B2)
	v.Z = tpmAdd(v.Z1, v.Z2)
	return v
}

// numbers are the texts of the list's labels that are numbers, in order.
func numbers(l draw.List) []draw.Item {
	var out []draw.Item
	for _, it := range l.Items {
		if it.Kind != draw.Text {
			continue
		}
		if _, err := strconv.ParseFloat(it.Text, 64); err == nil {
			out = append(out, it)
		}
	}
	return out
}

func hasText(l draw.List, s string) bool {
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == s {
			return true
		}
	}
	return false
}

func TestTPMatrixGolden(t *testing.T) {
	golden.Check(t, "tpmatrix_phase4.golden", AppendTPMatrix(draw.List{}, tpmView(1280, 600, 4)).String())
}

// The phases reveal the computation step by step: the split first, then
// X·Ai, GELU, the partial products and last the all-reduced Z, whose
// numbers are Z1 + Z2.
func TestTPMatrixPhases(t *testing.T) {
	v := tpmView(1280, 600, 0)
	inputs := 2*4 + 2*(4*2) + 2*(2*4) // X, A1 A2, B1 B2
	want := []int{inputs, inputs + 2*4, inputs + 2*4, inputs + 2*4 + 2*8, inputs + 2*4 + 3*8}
	for phase, n := range want {
		v.Phase = phase
		l := AppendTPMatrix(draw.List{}, v)
		if got := len(numbers(l)); got != n {
			t.Errorf("phase %d: %d numbers, want %d", phase, got, n)
		}
		if z := hasText(l, "Z = Z1 + Z2"); z != (phase == 4) {
			t.Errorf("phase %d: Z shown %v", phase, z)
		}
		if ar := hasText(l, "canvas.tp.allreduce"); ar != (phase == 4) {
			t.Errorf("phase %d: all-reduce shown %v", phase, ar)
		}
		if gelu := hasText(l, "GELU"); gelu != (phase >= 2) {
			t.Errorf("phase %d: GELU shown %v", phase, gelu)
		}
	}
	// Phase 1 shows X·A1 before GELU.
	v.Phase = 1
	nums := numbers(AppendTPMatrix(draw.List{}, v))
	xa := tpmMul(v.X, v.A1)
	if got, want := nums[inputs-2*8].Text, tpmNum(xa[0][0]); got != want {
		t.Errorf("phase 1: first product cell %q, want X·A1 = %q", got, want)
	}
	// Phase 4: Z's cells, drawn last, are Z1 + Z2.
	v.Phase = 4
	nums = numbers(AppendTPMatrix(draw.List{}, v))
	zs := nums[len(nums)-8:]
	for i, it := range zs {
		r, c := i/4, i%4
		if want := tpmNum(v.Z1[r][c] + v.Z2[r][c]); it.Text != want {
			t.Errorf("Z[%d][%d] = %q, want Z1+Z2 = %q", r, c, it.Text, want)
		}
	}
	if tpmNum(-0.04) != "0.0" || tpmNum(-1.25) != "-1.2" || tpmNum(0.5) != "0.5" {
		t.Errorf("tpmNum: %q %q %q", tpmNum(-0.04), tpmNum(-1.25), tpmNum(0.5))
	}
}

// Numbers stay readable — at least 10 px × Scale — and the cells fit
// the stage, on a wide screen and on a phone (Scale 2).
func TestTPMatrixReadable(t *testing.T) {
	for _, v := range []TPMatrixView{tpmView(1280, 600, 4), tpmView(750, 1280, 4), tpmView(2560, 1200, 4)} {
		if v.Width == 750 || v.Width == 2560 {
			v.Scale = 2
		}
		l := AppendTPMatrix(draw.List{}, v)
		for _, it := range numbers(l) {
			if it.Size < 10*v.Scale {
				t.Fatalf("%v×%v: number %q at %.1f px, want ≥ %v", v.Width, v.Height, it.Text, it.Size, 10*v.Scale)
			}
		}
		for _, it := range l.Items {
			if it.Kind == draw.FillRect && (it.X < 0 || it.Y < 0 || it.X+it.W > v.Width || it.Y+it.H > v.Height) {
				t.Fatalf("%v×%v: cell outside the stage: %+v", v.Width, v.Height, it)
			}
		}
	}
}

// A columns step draws X·A cut by columns and GELU, no B and no
// all-reduce; a rows step Y·B cut by rows and the all-reduce, no A; both
// key the GPUs' colours and fit the stage.
func TestTPMatrixParts(t *testing.T) {
	v := tpmView(1280, 600, 2)
	v.Part, v.Headline = 1, "columns"
	l := AppendTPMatrix(draw.List{}, v)
	if !hasText(l, "A1") || hasText(l, "B1") || hasText(l, "canvas.tp.allreduce") || !hasText(l, "columns") {
		t.Errorf("columns: want A1 and the headline, no B1, no all-reduce")
	}
	v.Part, v.Phase, v.Headline = 2, 4, "rows"
	l = AppendTPMatrix(draw.List{}, v)
	if hasText(l, "A1") || !hasText(l, "B1") || !hasText(l, "canvas.tp.allreduce") || !hasText(l, "Y1") {
		t.Errorf("rows: want Y1, B1 and the all-reduce, no A1")
	}
	keyed := 0
	for _, k := range l.Keys {
		if k.Color == draw.Chunk(0, 2) || k.Color == draw.Chunk(1, 2) {
			keyed++
		}
	}
	if keyed != 2 {
		t.Errorf("rows: %d of the GPUs' 2 colours keyed", keyed)
	}
	for _, it := range l.Items {
		if it.Kind == draw.Text && (it.Y < 0 || it.Y+it.Size > 600) {
			t.Errorf("rows: %q at y %.1f leaves the stage", it.Text, it.Y)
		}
	}
}
