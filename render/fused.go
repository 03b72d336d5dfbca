package render

import (
	"strings"

	"github.com/gpuscope/gpuscope/engine/units"
)

// KernelBlock is one launched kernel: what it runs, its HBM bytes and its
// time.
type KernelBlock struct {
	Ops   []string
	Bytes float64
	TimeS float64
}

// FusedView is what the fused-kernels picture needs: the chain unfused
// and fused.
type FusedView struct {
	Width, Height  float32
	Stage          Rect
	Scale          float32
	Theme          Theme
	Words          Words // its words in the reader's language (canvas.* keys)
	Unfused, Fused []KernelBlock
	// Time is the playhead, seconds: what lies after it is drawn faint.
	// A negative Time draws everything as done.
	Time float64
}

// AppendFused draws both ways of running the chain on one time axis: a
// block per kernel, as long as its time, and under each block a bar as
// long as the bytes it moves through HBM (on one common scale), so the
// fused kernel is visibly shorter in both.
func AppendFused(dst List, v FusedView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || len(v.Unfused) == 0 || len(v.Fused) == 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/36, 10*sc, 18*sc)
	pad := fs * 1.5
	x0 := st.X + pad + fs*7
	w := st.X + st.W - pad - x0
	total := func(ks []KernelBlock) (t, b float64) {
		for _, k := range ks {
			t += k.TimeS
			b += k.Bytes
		}
		return
	}
	tu, bu := total(v.Unfused)
	tf, bf := total(v.Fused)
	tmax, bmax := max(tu, tf), max(bu, bf)
	if tmax <= 0 || bmax <= 0 || w <= 0 {
		return l
	}
	colours := []Color{th.LinkActive, th.Rim, th.Hot}
	rowH := (st.H - 2*pad) / 2
	for ri, row := range []struct {
		name string
		ks   []KernelBlock
		t, b float64
	}{{"3 kernels", v.Unfused, tu, bu}, {"fused", v.Fused, tf, bf}} {
		y := st.Y + pad + float32(ri)*rowH
		blockH := rowH * 0.32
		l.Label(st.X+pad, y+blockH/2-fs/2, fs, AlignLeft, th.Text, row.name)
		l.Label(st.X+pad, y+blockH*1.6, fs*0.85, AlignLeft, th.Dim, "HBM")
		x := x0
		bx := x0
		for ki, k := range row.ks {
			kw := w * float32(k.TimeS/tmax)
			col := colours[ki%len(colours)]
			if len(row.ks) == 1 {
				col = th.Rim
			}
			if v.Time >= 0 {
				// The part not yet run, faint; the part done, solid.
				playX := x0 + w*float32(min(v.Time, tmax)/tmax)
				l.Rect(x, y, kw-2*sc, blockH, withAlpha(col, 70))
				if done := minf(playX, x+kw-2*sc) - x; done > 0 {
					l.Rect(x, y, done, blockH, col)
				}
			} else {
				l.Rect(x, y, kw-2*sc, blockH, col)
			}
			name := strings.Join(k.Ops, "+")
			if len(k.Ops) > 1 {
				name = "LN+GeLU+Drop"
			}
			l.Label(x+kw/2, y+blockH/2-fs*0.5, fs*0.9, AlignCenter, th.Background, name)
			// The kernel's HBM traffic under it, on the bytes scale.
			bw := w * float32(k.Bytes/bmax)
			l.Rect(bx, y+blockH*1.5, bw-2*sc, blockH*0.5, withAlpha(col, 150))
			bx += bw
			x += kw
		}
		l.Label(x0+w, y+blockH*2.2, fs*0.85, AlignRight, th.Dim, units.Bytes(row.b)+" · "+units.Duration(row.t))
	}
	if v.Time >= 0 {
		px := x0 + w*float32(min(v.Time, tmax)/tmax)
		l.Segment(px, st.Y+pad*0.5, px, st.Y+st.H-pad*0.5, 1.5*sc, th.Text)
	}
	return l
}

func withAlpha(c Color, a uint8) Color { c.A = a; return c }
