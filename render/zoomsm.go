package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// The zoom's deepest level (issue 21): one SM inside the GPU's running
// matrix product, the tensor-core tiled GEMM of engine/kernel. On one
// side C's output tiles, dealt to the SMs in waves — done, running,
// waiting — the tiles of the SM followed (SM 0) outlined; on the other
// that SM: its resident blocks, each a box of warps on its BM×BN tile;
// its shared memory holding every block's double-buffered slabs of A
// (BM×BK) and B (BK×BN); and the K loop, the slab in shared memory now
// lit. The tiling lesson: one slab of A and one of B come to the desk
// and the warps use them many times.
//
// Tiles are numbered in the grouped order the engine's L2 model assumes
// (kernel.GEMM: a wave covers a rows × cols patch of C): down columns of
// a group of ⌈√resident⌉ tile rows, group after group. Tile i goes to SM
// i mod SMs, SMs × BlocksPerSM a wave, so a wave's tiles are a patch.

// zoomSMCap is the most tile rows or columns drawn; a larger grid is
// drawn in part, round the running wave, and says so.
const zoomSMCap = 32

// zoomSMMaxBlocks is the most resident blocks drawn as boxes.
const zoomSMMaxBlocks = 8

// zoomSMColours are the running work's colour (tiles and warps), the
// done one, A's and B's slabs and the outline of the SM followed.
func zoomSMColours(th draw.Theme) (run, done, colA, colB, mine draw.Color) {
	return th.LinkActive, draw.Mix(th.Dim, th.Panel, 0.45), draw.Palette[3], th.Rim, th.Hot
}

// smTiles is C's tile grid in dealing order: tm × tn tiles numbered in
// groups of group tile rows, down the columns of each group.
type smTiles struct {
	tm, tn, group int
}

// index is tile (r, c)'s place in the dealing order.
func (g smTiles) index(r, c int) int {
	r0 := r / g.group * g.group
	gr := min(g.group, g.tm-r0)
	return r0*g.tn + c*gr + (r - r0)
}

// at is the row and column of tile i.
func (g smTiles) at(i int) (r, c int) {
	gi := min(i/(g.group*g.tn), (g.tm-1)/g.group)
	r0 := gi * g.group
	gr := min(g.group, g.tm-r0)
	k := i - r0*g.tn
	return r0 + k%gr, k / gr
}

// zoomSMWave is where the kernel stands: its tiles, the slots a wave
// fills, the first tile of the running wave and the end of it.
type zoomSMWave struct {
	g                   smTiles
	total, slots        int
	first, end          int // the running wave's tiles: [first, end)
	sms, bps, wave, sm0 int // sm0: this SM's tiles in the running wave
	waves               int // the kernel's (the view's, else counted)
}

func zoomSMState(v ZoomSMView) zoomSMWave {
	tm, tn := min(max(v.TilesM, 0), 1<<24), min(max(v.TilesN, 0), 1<<24)
	s := zoomSMWave{sms: min(max(v.SMs, 1), 1<<20), bps: min(max(v.BlocksPerSM, 1), 1<<10)}
	s.total, s.slots = tm*tn, s.sms*s.bps
	if s.total == 0 {
		return s
	}
	s.waves = v.Waves
	if s.waves <= 0 {
		s.waves = (s.total + s.slots - 1) / s.slots
	}
	s.wave = min(max(v.Wave, 1), s.total/s.slots+2)
	s.first = min((s.wave-1)*s.slots, s.total)
	s.end = min(s.first+s.slots, s.total)
	group := int(math.Ceil(math.Sqrt(float64(min(s.slots, s.total)))))
	s.g = smTiles{tm, tn, max(1, min(tm, group))}
	for j := 0; j < s.bps; j++ {
		if s.first+j*s.sms < s.end {
			s.sm0++
		}
	}
	return s
}

// AppendZoomSM draws one SM at the moment inside its GPU's matrix
// product (see ZoomSMView): the way back and the title, the product's
// numbers, C's tiles by wave and the SM's blocks, shared memory and K
// loop; or, when the GPU runs no matrix product, its Note. What stays
// is drawn first, what moves with the wave and the K loop last, so that
// successive frames share a prefix.
func AppendZoomSM(dst draw.List, v ZoomSMView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	under := zoomCrumbs(&l, th, st, sc, v.Crumbs)
	p.Reserve(draw.Rect{X: st.X, Y: st.Y, W: st.W, H: under.Y - st.Y})
	fs, big := draw.TextSizes(st, sc)
	pad := fs * 0.8
	w := v.Words
	cnt := func(n int) string { return units.Count(int64(n)) }

	y := under.Y + fs*0.2
	if v.Title != "" {
		y += p.Wrap(st.X+pad, y, big, draw.AlignLeft, th.Text, v.Title, st.W-2*pad, 2) + fs*0.3
	}
	if v.Unfit != "" {
		// A plan that does not fit: what the SMs would show (idle),
		// veiled and hatched, how far over in a box on it, nothing
		// moving.
		if v.Pass != nil {
			ps := *v.Pass
			ps.Progress = 0
			v.Pass = &ps
			appendZoomSMPass(&p, v, sc, fs, y)
		}
		r := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}
		draw.UnfitVeil(&l, th, r, r, sc, fs, v.Unfit)
		return l
	}
	s := zoomSMState(v)
	if v.Pass != nil {
		appendZoomSMPass(&p, v, sc, fs, y)
		return l
	}
	if v.Note != "" || s.total == 0 {
		note := v.Note
		if note == "" {
			note = w.Say("canvas.zoom.sm.none")
		}
		zoomSMNote(&p, th, sc, big, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, note)
		return l
	}

	// The product's numbers, and C's tiles (for a grid drawn in part,
	// which part), over both panels.
	nums := w.Say("canvas.zoom.sm.numbers", "m", cnt(v.M), "n", cnt(v.N), "k", cnt(v.K),
		"bm", cnt(v.TileM), "bn", cnt(v.TileN), "bk", cnt(v.TileK), "dtype", v.Dtype)
	fw := st.W - 2*pad
	y += p.Wrap(st.X+pad, y, fs, draw.AlignLeft, th.Dim, nums, fw, 2) + fs*0.4
	lines := func(s string) float32 { return float32(len(draw.Lines(s, fs, fw, 2))) * fs * draw.LineHeight }
	tiles := func(dm, dn int) string {
		if dm >= s.g.tm && dn >= s.g.tn {
			return w.Say("canvas.zoom.sm.tiles", "tm", cnt(s.g.tm), "tn", cnt(s.g.tn), "bm", cnt(v.TileM), "bn", cnt(v.TileN), "sms", cnt(s.sms))
		}
		return w.Say("canvas.zoom.sm.tiles_part", "tm", cnt(s.g.tm), "tn", cnt(s.g.tn), "bm", cnt(v.TileM), "bn", cnt(v.TileN), "sms", cnt(s.sms),
			"dm", cnt(dm), "dn", cnt(dn))
	}
	tilesY := y
	y += draw.Maxf(lines(tiles(s.g.tm, s.g.tn)), lines(tiles(min(s.g.tm, zoomSMCap), min(s.g.tn, zoomSMCap)))) + fs*0.3

	// The legend: under the panels, drawn with the still parts.
	run, done, colA, colB, mine := zoomSMColours(th)
	legend := [...]draw.LegendEntry{
		{Color: done, Hatch: false, Label: w.Say("canvas.zoom.sm.key_done")},
		{Color: run, Hatch: false, Label: w.Say("canvas.zoom.sm.key_running")},
		{Color: th.Empty, Hatch: false, Label: w.Say("canvas.zoom.sm.key_waiting")},
		{Color: mine, Hatch: false, Label: w.Say("canvas.zoom.sm.key_this")},
		{Color: colA, Hatch: false, Label: w.Say("canvas.zoom.sm.key_a")},
		{Color: colB, Hatch: false, Label: w.Say("canvas.zoom.sm.key_b")},
		{Color: th.Text, Hatch: true, Label: w.Say("canvas.zoom.sm.key_next")},
	}
	bottom := st.Y + st.H - pad
	lh := draw.LegendHeight(fw, fs, legend[:]...)
	if lh > bottom-y {
		lh = 0
	}
	area := draw.Rect{X: st.X + pad, Y: y, W: fw, H: bottom - lh - fs*0.6 - y}
	if area.W < fs*8 || area.H < fs*6 {
		return l
	}

	// Tiles beside the SM, over it on a narrow stage.
	var tr, sr draw.Rect
	if area.W >= fs*24 {
		tw := draw.Clamp(area.H*0.95, area.W*0.36, area.W*0.45)
		tr = draw.Rect{X: area.X, Y: area.Y, W: tw, H: area.H}
		sr = draw.Rect{X: area.X + tw + pad*1.5, Y: area.Y, W: area.W - tw - pad*1.5, H: area.H}
	} else {
		h := draw.Clamp(area.W*0.6, area.H*0.3, area.H*0.45)
		tr = draw.Rect{X: area.X, Y: area.Y, W: area.W, H: h}
		sr = draw.Rect{X: area.X, Y: area.Y + h + fs*0.6, W: area.W, H: area.H - h - fs*0.6}
	}

	// The static parts: the tiles' line, the SM's boxes, bars and
	// strips. Under the tiles, the wave's lines (room for their
	// longest).
	tw := tr.W
	wave := func(i, n int) string {
		if n <= 0 { // past the last wave
			return w.Say("canvas.zoom.sm.finished", "waves", cnt(s.waves))
		}
		return w.Say("canvas.zoom.sm.wave", "wave", cnt(i), "waves", cnt(s.waves), "n", cnt(n))
	}
	progress := func(f float64) string { return w.Say("canvas.zoom.sm.progress", "pct", units.Percent(draw.Frac(f))) }
	tl := func(s string) float32 { return float32(len(draw.Lines(s, fs, tw, 2))) * fs * draw.LineHeight }
	waveH := draw.Maxf(tl(wave(s.waves, s.slots)), tl(wave(0, 0))) + tl(progress(0.555))
	tr.H -= waveH + fs*0.3
	grid := zoomSMGridLayout(v, s, sc, tr)
	waveY := grid.y + float32(grid.dm)*grid.ch + fs*0.3
	p.Wrap(st.X+pad, tilesY, fs, draw.AlignLeft, th.Text, tiles(grid.dm, grid.dn), fw, 2)
	sm := zoomSMPanel(&p, v, s, sc, fs, sr)
	if lh > 0 {
		ly := draw.Minf(draw.Maxf(waveY+waveH, sm.bottom)+fs*0.6, bottom-lh)
		draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: ly, W: fw, H: lh}, fs, sc, legend[:]...)
	}

	// What moves: the tiles and the warps by wave, shared memory and the
	// K loop by slab, and last the wave's line (with the kernel's
	// progress, it changes every frame).
	grid.draw(&p, v, s, sc)
	sm.draw(&p, v, s, sc, fs)
	waveY += p.Wrap(tr.X, waveY, fs, draw.AlignLeft, th.Text, wave(s.wave, s.end-s.first), tw, 2)
	p.Wrap(tr.X, waveY, fs, draw.AlignLeft, th.Dim, progress(v.Progress), tw, 2)
	return l
}

// zoomSMNote draws the note in a panel over r, in place of the tiles.
func zoomSMNote(p *draw.Placer, th draw.Theme, sc, fs float32, r draw.Rect, note string) {
	if r.W < fs*4 || r.H < fs*2 {
		return
	}
	p.L.Rect(r.X, r.Y, r.W, r.H, th.Panel)
	p.L.Frame(r.X, r.Y, r.W, r.H, 1*sc, th.Link)
	tw := r.W - 2*fs
	lines := draw.Lines(note, fs, tw, 4)
	h := float32(len(lines)) * fs * draw.LineHeight
	ty := draw.Maxf(r.Y+fs*0.5, r.Y+(r.H-h)/2)
	for i, ln := range lines {
		p.Fit(r.X+r.W/2, ty+float32(i)*fs*draw.LineHeight, fs, draw.AlignCenter, th.Text, ln, tw)
	}
}

// zoomSMGrid is where C's tiles are drawn: the window of dm × dn tiles
// from (r0, c0), cells cw × ch from (x, y).
type zoomSMGrid struct {
	x, y, cw, ch, gap float32
	r0, c0, dm, dn    int
}

// zoomSMGridLayout lays the tile grid out in r: at most zoomSMCap tiles
// a side, and no more than cells of 4 px fit, round the running wave.
func zoomSMGridLayout(v ZoomSMView, s zoomSMWave, sc float32, r draw.Rect) zoomSMGrid {
	tm, tn := s.g.tm, s.g.tn
	aspect := float32(1)
	if v.TileM > 0 && v.TileN > 0 {
		aspect = draw.Clamp(float32(v.TileM)/float32(v.TileN), 0.25, 4)
	}
	minCell := 4 * sc
	dm := max(1, min(tm, zoomSMCap, int(r.H/(minCell*aspect))))
	dn := max(1, min(tn, zoomSMCap, int(r.W/minCell)))
	u := draw.Maxf(0, draw.Minf(r.W/float32(dn), r.H/(float32(dm)*aspect)))
	g := zoomSMGrid{x: r.X, y: r.Y, cw: u, ch: u * aspect, dm: dm, dn: dn}
	if u >= 6*sc {
		g.gap = 1 * sc
	}
	// The window round the running wave's middle tile (the last tile
	// once every wave is done).
	mid := min(s.first+(s.end-s.first)/2, s.total-1)
	mr, mc := s.g.at(mid)
	g.r0 = min(max(mr-dm/2, 0), tm-dm)
	g.c0 = min(max(mc-dn/2, 0), tn-dn)
	return g
}

// draw fills the window's tiles by wave — done, running, waiting — and
// outlines this SM's.
func (g zoomSMGrid) draw(p *draw.Placer, v ZoomSMView, s zoomSMWave, sc float32) {
	th := v.Theme
	run, done, _, _, mine := zoomSMColours(th)
	for r := 0; r < g.dm; r++ {
		for c := 0; c < g.dn; c++ {
			i := s.g.index(g.r0+r, g.c0+c)
			col := th.Empty
			switch {
			case i < s.first:
				col = done
			case i < s.end:
				col = run
			}
			p.L.Rect(g.x+float32(c)*g.cw, g.y+float32(r)*g.ch, g.cw-g.gap, g.ch-g.gap, col)
		}
	}
	ow := draw.Clamp(draw.Minf(g.cw, g.ch)*0.16, 1*sc, 2.5*sc)
	for r := 0; r < g.dm; r++ {
		for c := 0; c < g.dn; c++ {
			if s.g.index(g.r0+r, g.c0+c)%s.sms != 0 {
				continue
			}
			p.L.Frame(g.x+float32(c)*g.cw+ow/2, g.y+float32(r)*g.ch+ow/2, g.cw-g.gap-ow, g.ch-g.gap-ow, ow, mine)
		}
	}
}

// zoomSMSM is where the SM's parts are: its block boxes, the shared
// memory bar and the K loop's strips.
type zoomSMSM struct {
	blocks           [zoomSMMaxBlocks]draw.Rect
	nb               int
	wr, wc           int // a block's warps: wr rows × wc columns
	barX, barY       float32
	barW, barH       float32
	perBlock         float32 // a block's share of the bar, pixels
	kLabelY, kLabelH float32
	kx, kw, stripH   float32
	stripY           [2]float32
	ks               int
	bottom           float32 // under its parts
	w                float32 // the panel's width
	x                float32
}

// zoomSMPanel draws the SM's static parts in r — its header, block
// boxes, the shared memory bar with its labels, the K loop's empty
// strips and the reuse note — and returns where the moving parts go.
func zoomSMPanel(p *draw.Placer, v ZoomSMView, s zoomSMWave, sc, fs float32, r draw.Rect) zoomSMSM {
	th, w := v.Theme, v.Words
	L := fs * draw.LineHeight
	gap := fs * 0.35
	cnt := func(n int) string { return units.Count(int64(n)) }
	m := zoomSMSM{x: r.X, w: r.W}

	// The height each part takes; the notes only where there is room.
	m.stripH = fs
	m.barH = fs * 1.1
	m.ks = v.KSteps
	if m.ks <= 0 && v.TileK > 0 {
		m.ks = (v.K + v.TileK - 1) / v.TileK
	}
	kH := L + gap*0.3 + 2*m.stripH + gap
	if m.ks <= 0 {
		kH = 0
	}
	header := w.Say("canvas.zoom.sm.resident", "blocks", cnt(s.bps), "warps", cnt(v.WarpsPerBlock))
	lines := func(s string, n int) float32 { return float32(len(draw.Lines(s, fs, r.W, n))) * L }
	headH := lines(header, 2)
	if m.ks > 0 {
		// The K loop's line: room for its longest.
		m.kLabelH = lines(w.Say("canvas.zoom.sm.kloop", "i", cnt(m.ks), "n", cnt(m.ks), "bk", cnt(v.TileK), "k", cnt(v.K)), 2)
		kH += m.kLabelH - L
	}
	used := s.bps * max(v.SmemPerBlock, 0)
	smem := w.Say("canvas.zoom.sm.smem", "used", units.BytesIEC(float64(used)), "total", units.BytesIEC(float64(max(v.SmemPerSM, 0))))
	smemH := lines(smem, 2) + m.barH
	need := headH + gap + smemH + gap + kH
	avail := r.H
	blocksMin := 2.2*fs + L
	// The notes — a block's warps, its slabs, the reuse — each on one
	// line or two, where there is room.
	warps := min(max(v.WarpsPerBlock, 0), 64)
	m.wr = 1
	for d := 1; d*d <= warps; d++ {
		if warps%d == 0 {
			m.wr = d
		}
	}
	m.wc = max(1, (warps+m.wr-1)/m.wr)
	var notes [3]string
	if warps > 0 {
		notes[0] = w.Say("canvas.zoom.sm.warp_part", "warps", cnt(warps), "wm", cnt(v.TileM/m.wr), "wn", cnt(v.TileN/m.wc))
	}
	notes[1] = w.Say("canvas.zoom.sm.smem_block", "bm", cnt(v.TileM), "bn", cnt(v.TileN), "bk", cnt(v.TileK),
		"bytes", units.BytesIEC(float64(max(v.SmemPerBlock, 0))))
	if m.ks > 0 {
		notes[2] = w.Say("canvas.zoom.sm.reuse", "a", cnt(v.TileN), "b", cnt(v.TileM))
	}
	var noteH [3]float32
	for i, s := range notes {
		if s == "" {
			continue
		}
		h := lines(s, 3)
		if avail-need-h-gap >= blocksMin*1.4 {
			noteH[i] = h
			need += h + gap
		}
	}
	m.bottom = r.Y
	if avail-need < blocksMin*0.7 {
		m.ks = 0
		return m
	}

	y := r.Y
	p.Wrap(r.X, y, fs, draw.AlignLeft, th.Text, header, r.W, 2)
	y += headH + gap*0.5

	// The blocks: the arrangement (one row or two) with the largest
	// boxes, each as wide as its tile against as tall.
	m.nb = min(s.bps, zoomSMMaxBlocks)
	bh := draw.Minf(avail-need, r.W*0.75)
	aspect := float32(1)
	if v.TileM > 0 && v.TileN > 0 {
		aspect = draw.Clamp(float32(v.TileM)/float32(v.TileN), 0.25, 4)
	}
	more := s.bps > m.nb
	rowW := r.W
	if more {
		rowW -= fs * 3
	}
	best, rows := float32(0), 1
	for k := 1; k <= 2; k++ {
		cols := (m.nb + k - 1) / k
		side := draw.Minf((rowW-float32(cols-1)*gap)/float32(cols), ((bh-float32(k)*L-float32(k-1)*gap)/float32(k))/aspect)
		if side > best {
			best, rows = side, k
		}
	}
	cols := (m.nb + rows - 1) / rows
	side := draw.Minf(best, 9*fs)
	if side < 3*sc {
		m.nb = 0
	}
	// "block 3" over each box where the widest fits, else "3".
	named := m.nb > 0 && draw.TextWidth(w.Say("canvas.zoom.sm.block", "i", cnt(m.nb-1)), fs) <= side+gap*0.5
	for j := 0; j < m.nb; j++ {
		bx := r.X + float32(j%cols)*(side+gap)
		by := y + float32(j/cols)*(L+side*aspect+gap)
		m.blocks[j] = draw.Rect{X: bx, Y: by + L, W: side, H: side * aspect}
		lab := cnt(j)
		if named {
			lab = w.Say("canvas.zoom.sm.block", "i", cnt(j))
		}
		p.Text(bx, by, fs, draw.AlignLeft, th.Dim, lab)
		p.L.Rect(bx, by+L, side, side*aspect, th.GPU)
	}
	if more {
		x := r.X + float32(cols)*(side+gap)
		p.Fit(x, y+L+side*aspect/2-L/2, fs, draw.AlignLeft, th.Dim, "+"+cnt(s.bps-m.nb), r.X+r.W-x)
	}
	y += float32(rows)*(L+side*aspect) + float32(rows-1)*gap + gap
	if noteH[0] > 0 {
		p.Wrap(r.X, y, fs, draw.AlignLeft, th.Dim, notes[0], r.W, 3)
		y += noteH[0] + gap
	}

	// Shared memory: a bar of SmemPerSM, each block's share in it.
	y += p.Wrap(r.X, y, fs, draw.AlignLeft, th.Text, smem, r.W, 2)
	m.barX, m.barY, m.barW = r.X, y, r.W
	p.L.Rect(m.barX, m.barY, m.barW, m.barH, th.Empty)
	if total := max(v.SmemPerSM, used); total > 0 {
		m.perBlock = m.barW * float32(max(v.SmemPerBlock, 0)) / float32(total)
	}
	for j := 0; j < min(s.bps, 32) && m.perBlock >= 1; j++ {
		p.L.Frame(m.barX+float32(j)*m.perBlock, m.barY, m.perBlock, m.barH, 1*sc, th.Link)
	}
	y += m.barH + gap
	if noteH[1] > 0 {
		p.Wrap(r.X, y, fs, draw.AlignLeft, th.Dim, notes[1], r.W, 3)
		y += noteH[1] + gap
	}

	// The K loop: A's and B's strips of KSteps slabs.
	if m.ks > 0 {
		m.kLabelY = y
		y += m.kLabelH + gap*0.3
		la, lb := w.Say("canvas.zoom.sm.strip_a"), w.Say("canvas.zoom.sm.strip_b")
		lw := draw.Maxf(draw.TextWidth(la, fs), draw.TextWidth(lb, fs)) + fs*0.5
		m.kx, m.kw = r.X+lw, r.W-lw
		for i, lab := range [2]string{la, lb} {
			m.stripY[i] = y
			p.Text(r.X, y+(m.stripH-L)/2, fs, draw.AlignLeft, th.Text, lab)
			p.L.Rect(m.kx, y, m.kw, m.stripH, th.Empty)
			y += m.stripH + gap
		}
	}
	if noteH[2] > 0 {
		y += p.Wrap(r.X, y, fs, draw.AlignLeft, th.Dim, notes[2], r.W, 3)
	}
	m.bottom = y
	return m
}

// draw lights the SM's moving parts: the warps of the blocks with a
// tile in the running wave, their slabs in shared memory (the stage the
// warps read solid, the next one loading hatched), and the K loop's
// slabs done, in shared memory now and loading.
func (m zoomSMSM) draw(p *draw.Placer, v ZoomSMView, s zoomSMWave, sc, fs float32) {
	th, w := v.Theme, v.Words
	run, done, colA, colB, mine := zoomSMColours(th)
	cnt := func(n int) string { return units.Count(int64(n)) }
	warps := min(max(v.WarpsPerBlock, 0), 64)
	kstep := min(max(v.KStep, 0), max(m.ks-1, 0))
	finished := s.sm0 == 0 // past the last wave: SM 0 has a tile in every other
	if finished {
		kstep = max(m.ks-1, 0)
	}
	loading := kstep+1 < m.ks && !finished

	// The blocks: warps lit where the block has a tile now.
	for j := 0; j < m.nb; j++ {
		b := m.blocks[j]
		active := j < s.sm0
		col := th.Empty
		if active {
			col = run
		}
		cw, ch := b.W/float32(m.wc), b.H/float32(m.wr)
		in := draw.Minf(1*sc, draw.Minf(cw, ch)*0.1)
		for k := 0; k < warps; k++ {
			p.L.Rect(b.X+float32(k%m.wc)*cw+in, b.Y+float32(k/m.wc)*ch+in, cw-2*in, ch-2*in, col)
		}
		if active {
			p.L.Frame(b.X, b.Y, b.W, b.H, 2*sc, mine)
		} else {
			p.L.Frame(b.X, b.Y, b.W, b.H, 1*sc, th.Link)
		}
	}

	// Shared memory: each active block's two stages of A and B.
	if m.perBlock >= 4*sc {
		a, bb := float64(max(v.TileM, 0)*max(v.TileK, 0)), float64(max(v.TileK, 0)*max(v.TileN, 0))
		fa := float32(0.5)
		if a+bb > 0 {
			fa = float32(a / (a + bb))
		}
		half := m.perBlock / 2
		for j := 0; j < min(s.sm0, 32); j++ {
			x0 := m.barX + float32(j)*m.perBlock
			for stage := 0; stage < 2; stage++ {
				x := x0 + float32(stage)*half
				wa := half * fa
				now := stage == kstep%2
				for part, pc := range [2]draw.Color{colA, colB} {
					px, pw := x, wa
					if part == 1 {
						px, pw = x+wa, half-wa
					}
					switch {
					case now:
						p.L.Rect(px, m.barY, pw, m.barH, pc)
					case loading:
						p.L.Rect(px, m.barY, pw, m.barH, th.Panel)
						draw.Hatch(p.L, px, m.barY, pw, m.barH, m.barH/3, 1*sc, th.Text)
						p.L.Frame(px, m.barY, pw, m.barH, 1*sc, pc)
					}
				}
			}
		}
	}

	// The K loop.
	if m.ks <= 0 || m.kw <= 0 {
		return
	}
	p.Wrap(m.x, m.kLabelY, fs, draw.AlignLeft, th.Text, w.Say("canvas.zoom.sm.kloop", "i", cnt(kstep+1), "n", cnt(m.ks),
		"bk", cnt(v.TileK), "k", cnt(v.K)), m.w, 2)
	cw := m.kw / float32(m.ks)
	lit := draw.Maxf(cw, 4*sc)
	for i, pc := range [2]draw.Color{colA, colB} {
		y := m.stripY[i]
		if finished {
			p.L.Rect(m.kx, y, m.kw, m.stripH, done)
			continue
		}
		if kstep > 0 {
			p.L.Rect(m.kx, y, cw*float32(kstep), m.stripH, done)
		}
		x := draw.Minf(m.kx+cw*float32(kstep), m.kx+m.kw-lit)
		p.L.Rect(x, y, lit, m.stripH, pc)
		if loading && cw >= 3*sc {
			nx := m.kx + cw*float32(kstep+1)
			draw.Hatch(p.L, nx, y, cw, m.stripH, m.stripH/3, 1*sc, th.Text)
		}
		// The slabs' edges, where they are wide enough to see.
		if cw >= 4*sc {
			for k := 1; k < m.ks; k++ {
				ex := m.kx + cw*float32(k)
				p.L.Segment(ex, y, ex, y+m.stripH, 1*sc, th.Panel)
			}
		}
	}
}
