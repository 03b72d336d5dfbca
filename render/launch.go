package render

import (
	"math"
	"strconv"
)

// LaunchView is what the simt-launch picture needs.
type LaunchView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	GPU           string
	SMs           int
	MaxWarps      int // per SM
	Blocks        int
	BlocksPerSM   int
	WarpsPerBlock int
	Wave, Waves   int // the wave on screen (1-based)
	// Taken lanes of 32 run path A (CostA instructions), the others path
	// B; the warp issues both when they disagree.
	Taken, CostA, CostB int
}

// AppendLaunch draws the GPU's SMs as a grid of squares: in each, the
// blocks of the current wave placed on it round-robin, each as its warps
// (one bar a warp, a colour a block), the free warp slots empty; and under
// it one warp of 32 lanes at a branch — the lanes of each path lit, the
// others masked — with the issue slots it costs.
func AppendLaunch(dst List, v LaunchView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || v.SMs < 1 || v.MaxWarps < 1 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	pad := fs
	l.Label(st.X+pad, st.Y+pad*0.6, fs, AlignLeft, th.Text, v.GPU+" · "+strconv.Itoa(v.SMs)+" SMs · "+strconv.Itoa(v.Blocks)+" blocks")
	wave := v.Wave
	if wave > v.Waves {
		wave = v.Waves
	}
	l.Label(st.X+st.W-pad, st.Y+pad*0.6, fs, AlignRight, th.Dim, "wave "+strconv.Itoa(wave)+"/"+strconv.Itoa(v.Waves))

	// The SM grid in the top 70%.
	gridTop := st.Y + pad*2.2
	gridH := (st.H - pad*3.2) * 0.7
	gridW := st.W - 2*pad
	cols := int(math.Ceil(math.Sqrt(float64(v.SMs) * float64(gridW/gridH))))
	cols = max(1, min(cols, v.SMs))
	rows := (v.SMs + cols - 1) / cols
	cell := minf(gridW/float32(cols), gridH/float32(rows))
	box := cell * 0.88
	slots := v.SMs * v.BlocksPerSM
	first := (wave - 1) * slots
	for i := 0; i < v.SMs; i++ {
		x := st.X + pad + float32(i%cols)*cell
		y := gridTop + float32(i/cols)*cell
		l.Rect(x, y, box, box, th.GPU)
		// Warp slots: MaxWarps bars across the box. Where a bar would be
		// under two pixels wide a block's warps are drawn as one bar
		// (the same area; 8× fewer items for the busiest view).
		bw := box / float32(v.MaxWarps)
		perWarp := bw >= 2*sc
		warp := 0
		for j := 0; j < v.BlocksPerSM; j++ {
			b := first + j*v.SMs + i
			n := min(v.WarpsPerBlock, v.MaxWarps-warp)
			if n <= 0 {
				break
			}
			if b < v.Blocks && v.Wave <= v.Waves {
				col := Chunk(j, max(v.BlocksPerSM, 2))
				if perWarp {
					for k := 0; k < n; k++ {
						l.Rect(x+float32(warp+k)*bw, y+box*0.1, bw-0.5*sc, box*0.8, col)
					}
				} else {
					l.Rect(x+float32(warp)*bw, y+box*0.1, float32(n)*bw-0.5*sc, box*0.8, col)
				}
			}
			warp += n
		}
		l.Frame(x, y, box, box, 1*sc, th.Rim)
	}

	// One warp at a branch, in the bottom 30%.
	top := gridTop + gridH + pad
	h := st.Y + st.H - pad - top
	if h < 4*fs {
		return l
	}
	lane := minf((st.W-2*pad-fs*6)/32, h/4)
	x0 := st.X + pad + fs*6
	rowY := []float32{top + lane*0.3, top + lane*1.6}
	names := []string{"if ×" + strconv.Itoa(v.CostA), "else ×" + strconv.Itoa(v.CostB)}
	cols2 := []Color{th.LinkActive, th.Hot}
	for r := 0; r < 2; r++ {
		l.Label(st.X+pad, rowY[r]+lane*0.1, minf(fs, lane*0.8), AlignLeft, th.Dim, names[r])
		for k := 0; k < 32; k++ {
			on := (k < v.Taken) == (r == 0)
			c := th.Empty
			if on {
				c = cols2[r]
			}
			l.Rect(x0+float32(k)*lane, rowY[r], lane*0.9, lane, c)
		}
	}
	// The issue slots: the paths the warp runs, one after the other.
	slotsA, slotsB := 0, 0
	if v.Taken > 0 {
		slotsA = v.CostA
	}
	if v.Taken < 32 {
		slotsB = v.CostB
	}
	total := float32(max(v.CostA+v.CostB, 1))
	by := top + lane*2.9
	bw := 32 * lane
	l.Rect(x0, by, bw*float32(slotsA)/total, lane*0.6, th.LinkActive)
	l.Rect(x0+bw*float32(slotsA)/total, by, bw*float32(slotsB)/total, lane*0.6, th.Hot)
	l.Label(x0+bw, by+lane*0.7, minf(fs, lane), AlignRight, th.Dim, strconv.Itoa(slotsA+slotsB)+" issue slots")
	return l
}
