package render

import "strconv"

// CPUGPUView is what the cpu-vs-gpu picture needs.
type CPUGPUView struct {
	Width, Height    float32
	Stage            Rect
	Scale            float32
	Theme            Theme
	Words            Words // its words in the reader's language (canvas.* keys)
	CPUName, GPUName string
	CPUCores, GPUSMs int
	GPUCores         int
	CPUDone, GPUDone float64 // share of C finished
	Highlight        bool    // mark C[0][0] and C[0][1]
}

// cGrid is the side of the grid that stands for C.
const cGrid = 24

// AppendCPUGPU draws the CPU and the GPU side by side, each with its
// workers — 64 cores as squares; the GPU's SMs as columns of lanes — and
// its copy of C filling up as the work is done.
func AppendCPUGPU(dst List, v CPUGPUView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/36, 10*sc, 18*sc)
	pad := fs
	wide := st.W >= st.H
	var panels [2]Rect
	if wide {
		w := (st.W - 3*pad) / 2
		panels = [2]Rect{{st.X + pad, st.Y + pad, w, st.H - 2*pad}, {st.X + 2*pad + w, st.Y + pad, w, st.H - 2*pad}}
	} else {
		h := (st.H - 3*pad) / 2
		panels = [2]Rect{{st.X + pad, st.Y + pad, st.W - 2*pad, h}, {st.X + pad, st.Y + 2*pad + h, st.W - 2*pad, h}}
	}
	for i, p := range panels {
		name, done, col := v.CPUName+" · "+strconv.Itoa(v.CPUCores)+" cores", v.CPUDone, th.Hot
		if i == 1 {
			name, done, col = v.GPUName+" · "+strconv.Itoa(v.GPUCores)+" cores", v.GPUDone, th.Rim
		}
		l.Label(p.X, p.Y, fs, AlignLeft, th.Text, name)
		// Workers in a strip under the title.
		wy, wh := p.Y+fs*1.6, fs*2.2
		if i == 0 {
			cw := p.W / float32(max(v.CPUCores, 1))
			for k := 0; k < v.CPUCores; k++ {
				l.Rect(p.X+float32(k)*cw, wy, maxf(cw-1*sc, 1), wh, col)
			}
		} else {
			cw := p.W / float32(max(v.GPUSMs, 1))
			for k := 0; k < v.GPUSMs; k++ {
				l.Rect(p.X+float32(k)*cw, wy, maxf(cw*0.8, 0.5*sc), wh, col)
			}
		}
		// C, filling row by row.
		gy := wy + wh + fs
		side := minf(p.W, p.Y+p.H-gy-fs*1.5)
		if side <= 0 {
			continue
		}
		cell := side / cGrid
		filled := int(done * cGrid * cGrid)
		gx := p.X + (p.W-side)/2
		for k := 0; k < cGrid*cGrid; k++ {
			c := th.Empty
			if k < filled {
				c = col
			}
			l.Rect(gx+float32(k%cGrid)*cell, gy+float32(k/cGrid)*cell, cell-0.5*sc, cell-0.5*sc, c)
		}
		if v.Highlight {
			l.Frame(gx, gy, cell, cell, 2*sc, th.LinkActive)
			l.Frame(gx+cell, gy, cell, cell, 2*sc, th.LinkActive)
			l.Label(gx, gy-fs*1.2, fs*0.85, AlignLeft, th.LinkActive, "C[0][0] C[0][1]")
		}
		l.Label(gx+side, gy+side+fs*0.2, fs, AlignRight, th.Dim, "C "+strconv.Itoa(int(done*100))+"%")
	}
	return l
}
