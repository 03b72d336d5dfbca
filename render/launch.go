package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// LaunchPhase is what the simt-launch picture shows.
type LaunchPhase uint8

// The simt-launch pictures.
const (
	// LaunchDeal: the grid's blocks dealt from the deck onto the SMs,
	// round-robin, until every SM's slots are full (one wave).
	LaunchDeal LaunchPhase = iota
	// LaunchOccupancy: one SM zoomed — its warp slots filled block by
	// block, and its registers, shared memory, threads and block slots as
	// meters, the one that runs out lit.
	LaunchOccupancy
	// LaunchWaves: wave after wave dealt and run; the last wave's tail.
	LaunchWaves
	// LaunchDivergence: one warp at a branch, its 32 lanes against the
	// issue slots, each path's lanes running while the others wait.
	LaunchDivergence
	// LaunchAll: the waves, the SM and the warp together (free play).
	LaunchAll
)

// LaunchView is what the simt-launch picture needs.
type LaunchView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Phase         LaunchPhase
	GPU           string
	// The SM: warp slots, block slots, 32-bit registers, shared memory
	// (bytes).
	SMs, MaxWarps, MaxBlocks, Registers, SharedMem int
	// The grid, and what one block takes as allocated.
	Blocks, ThreadsPerBlock, WarpsPerBlock int
	RegsPerBlock, SmemPerBlock             int
	BlocksPerSM                            int
	Limit                                  string // "registers", "shared-memory", "threads", "blocks"
	Waves                                  int
	// Wave is the wave on screen (1-based) and WaveFrac how far it has
	// got: dealt in its first part, then running.
	Wave     int
	WaveFrac float64
	// Taken lanes of 32 run path A (CostA instructions), the others path
	// B (CostB); the warp issues both when they disagree.
	Taken, CostA, CostB int
}

// launchDealShare is the part of a wave spent dealing its blocks.
const launchDealShare = 0.4

// launchColours are the blocks' colours (neighbours alternate), the
// limit's, and the branch paths'.
func launchColours(th draw.Theme) (blockA, blockB, limit, pathA, pathB draw.Color) {
	return draw.Palette[0], draw.Palette[4], th.Hot, th.Rim, draw.Palette[1]
}

// AppendLaunch draws the step's picture (see LaunchPhase).
func AppendLaunch(dst draw.List, v LaunchView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	if st.W <= 0 || st.H <= 0 || v.SMs < 1 || v.MaxWarps < 1 || v.BlocksPerSM < 1 || v.WarpsPerBlock < 1 {
		return l
	}
	p := draw.NewPlacer(&l, st)
	fs, big := draw.TextSizes(st, sc)
	pad := fs
	w := v.Words
	bA, bB, limC, pA, pB := launchColours(th)
	wave := min(max(v.Wave, 1), max(v.Waves, 1))
	slots := v.SMs * v.BlocksPerSM
	inWave := min(slots, v.Blocks-(wave-1)*slots)
	occ := float64(v.BlocksPerSM*v.WarpsPerBlock) / float64(v.MaxWarps)

	var head string
	switch v.Phase {
	case LaunchDeal:
		head = w.Say("canvas.launch.deal", "blocks", units.Count(int64(v.Blocks)), "warps", units.Count(int64(v.WarpsPerBlock)), "sms", units.Count(int64(v.SMs)))
	case LaunchOccupancy:
		head = w.Say("canvas.launch.occupancy", "n", units.Count(int64(v.BlocksPerSM)), "limit", w.Say("canvas.launch.limit."+v.Limit),
			"warps", units.Count(int64(v.BlocksPerSM*v.WarpsPerBlock)), "max", units.Count(int64(v.MaxWarps)), "occ", units.Percent(occ))
	case LaunchDivergence:
		head = w.Say("canvas.launch.divergence", "slots", units.Count(int64(launchSlots(v))), "idle", units.Percent(launchIdle(v)))
	default:
		head = w.Say("canvas.launch.wave", "wave", units.Count(int64(wave)), "waves", units.Count(int64(v.Waves)),
			"n", units.Count(int64(inWave)), "slots", units.Count(int64(slots)))
		if wave == v.Waves && v.Waves > 1 && inWave < slots {
			head = w.Say("canvas.launch.tail", "n", units.Count(int64(inWave)), "util", units.Percent(float64(inWave)/float64(slots)))
		}
	}
	y := draw.PlacerHeadline(&p, th, st, big, th.Text, head)

	var legend [7]draw.LegendEntry
	ne := 0
	switch v.Phase {
	case LaunchDivergence:
		legend[0] = draw.LegendEntry{Color: pA, Hatch: false, Label: w.Say("canvas.launch.path_if")}
		legend[1] = draw.LegendEntry{Color: pB, Hatch: false, Label: w.Say("canvas.launch.path_else")}
		legend[2] = draw.LegendEntry{Color: th.Empty, Hatch: false, Label: w.Say("canvas.launch.masked")}
		ne = 3
	default:
		legend[0] = draw.LegendEntry{Color: bA, Hatch: false, Label: w.Say("canvas.launch.block_warps")}
		legend[1] = draw.LegendEntry{Color: bB, Hatch: false, Label: w.Say("canvas.launch.next_block")}
		legend[2] = draw.LegendEntry{Color: th.Empty, Hatch: false, Label: w.Say("canvas.launch.free")}
		ne = 3
		switch v.Phase {
		case LaunchOccupancy:
			legend[3] = draw.LegendEntry{Color: limC, Hatch: false, Label: w.Say("canvas.launch.runs_out")}
			legend[4] = draw.LegendEntry{Color: limC, Hatch: true, Label: w.Say("canvas.launch.one_more")}
			ne = 5
		case LaunchAll:
			legend[3] = draw.LegendEntry{Color: limC, Hatch: false, Label: w.Say("canvas.launch.runs_out")}
			legend[4] = draw.LegendEntry{Color: limC, Hatch: true, Label: w.Say("canvas.launch.one_more")}
			legend[5] = draw.LegendEntry{Color: pA, Hatch: false, Label: w.Say("canvas.launch.path_if")}
			legend[6] = draw.LegendEntry{Color: pB, Hatch: false, Label: w.Say("canvas.launch.path_else")}
			ne = 7
		case LaunchWaves:
			legend[3] = draw.LegendEntry{Color: limC, Hatch: false, Label: w.Say("canvas.launch.part_wave")}
			ne = 4
		}
	}
	lh := draw.PlacerLegend(&p, th, draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - y}, fs, sc, legend[:ne]...)
	area := draw.Rect{X: st.X + pad, Y: y, W: st.W - 2*pad, H: st.Y + st.H - pad - lh - fs*0.3 - y}
	wide := area.W > area.H*1.25

	// Where the wave stands: blocks dealt so far, and the card in flight.
	dealt, flight := float64(inWave), -1.0
	frac := draw.Frac(v.WaveFrac)
	if v.Wave > v.Waves {
		frac = 1
	}
	if v.Phase == LaunchDeal || v.Phase == LaunchWaves || v.Phase == LaunchAll {
		d := draw.Frac(frac/launchDealShare) * float64(inWave)
		dealt = math.Floor(d)
		if d < float64(inWave) {
			flight = d - dealt
		}
	}
	left := v.Blocks - (wave-1)*slots - int(dealt)

	switch v.Phase {
	case LaunchDeal, LaunchWaves:
		deckW := draw.Clamp(area.W*0.2, 5*fs, 12*fs)
		deck := draw.Rect{X: area.X, Y: area.Y, W: deckW, H: area.H}
		grid := draw.Rect{X: area.X + deckW + pad, Y: area.Y, W: area.W - deckW - pad, H: area.H}
		if v.Phase == LaunchWaves {
			strip := fs * draw.LineHeight * 3.2
			grid.H -= strip
			launchWaveStrip(&p, v, sc, fs, draw.Rect{X: grid.X, Y: grid.Y + grid.H + fs*0.3, W: grid.W, H: strip - fs*0.3}, wave, frac)
		}
		g := launchGrid(&p, v, sc, fs, grid, wave, int(dealt), -1)
		tx, ty := launchDeck(&p, v, sc, fs, deck, left, wave)
		if flight >= 0 && int(dealt) < inWave && g.cols > 0 {
			// The card in flight: from the deck to its SM.
			c := g.at(int(dealt) % v.SMs)
			f := float32(flight)
			cw := draw.Minf(c.W, fs*1.6)
			x := tx + (c.X+c.W/2-cw/2-tx)*f
			yy := ty + (c.Y+c.H/2-cw/2-ty)*f
			col := bA
			if (int(dealt)/v.SMs)%2 == 1 {
				col = bB
			}
			p.L.Rect(x, yy, cw, cw*0.7, col)
			p.L.Frame(x, yy, cw, cw*0.7, 1*sc, th.Text)
		}
	case LaunchOccupancy:
		gw := area.W * 0.36
		if !wide {
			gw = area.W
		}
		var zoom draw.Rect
		if wide {
			zoom = draw.Rect{X: area.X + gw + 2*pad, Y: area.Y, W: area.W - gw - 2*pad, H: area.H}
			launchGrid(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: gw, H: area.H}, wave, inWave, 0)
		} else {
			gh := area.H * 0.3
			launchGrid(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: area.W, H: gh}, wave, inWave, 0)
			zoom = draw.Rect{X: area.X, Y: area.Y + gh + fs*0.5, W: area.W, H: area.H - gh - fs*0.5}
		}
		launchSM(&p, v, sc, fs, zoom)
	case LaunchDivergence:
		// The SMs without their blocks, SM 0 marked: one of its warps.
		gh := draw.Clamp(area.H*0.2, fs*3, area.H*0.3)
		g := launchGrid(&p, v, sc, fs, draw.Rect{X: area.X, Y: area.Y, W: area.W, H: gh}, 1, 0, 0)
		wr := draw.Rect{X: area.X, Y: area.Y + gh + fs*0.6, W: area.W, H: area.H - gh - fs*0.6}
		if g.cols > 0 {
			c := g.at(0)
			p.L.Segment(c.X+c.W/2, c.Y+c.H+2*sc, wr.X+fs*2, wr.Y, 1.5*sc, th.Text)
		}
		launchWarp(&p, v, sc, fs, wr)
	default: // all
		top := draw.Rect{X: area.X, Y: area.Y, W: area.W, H: area.H * 0.62}
		if wide {
			gw := top.W * 0.5
			launchGrid(&p, v, sc, fs, draw.Rect{X: top.X, Y: top.Y, W: gw, H: top.H}, wave, int(dealt), 0)
			launchSM(&p, v, sc, fs, draw.Rect{X: top.X + gw + pad, Y: top.Y, W: top.W - gw - pad, H: top.H})
		} else {
			launchGrid(&p, v, sc, fs, top, wave, int(dealt), -1)
		}
		launchWarp(&p, v, sc, fs, draw.Rect{X: area.X, Y: top.Y + top.H + fs*0.5, W: area.W, H: area.H - top.H - fs*0.5})
	}
	return l
}

// launchSlots and launchIdle are the branch's issue slots and the share
// of lane-slots idle (kernel.Divergence's, for the picture).
func launchSlots(v LaunchView) int {
	switch {
	case v.Taken <= 0:
		return v.CostB
	case v.Taken >= 32:
		return v.CostA
	}
	return v.CostA + v.CostB
}

func launchIdle(v LaunchView) float64 {
	s := launchSlots(v) * 32
	if s == 0 {
		return 0
	}
	t := min(max(v.Taken, 0), 32)
	return 1 - float64(t*v.CostA+(32-t)*v.CostB)/float64(s)
}

// launchGeom is where a grid of SMs lies: SM i's square.
type launchGeom struct {
	x, y, cell, box float32
	cols            int
}

func (g launchGeom) at(i int) draw.Rect {
	return draw.Rect{X: g.x + float32(i%g.cols)*g.cell, Y: g.y + float32(i/g.cols)*g.cell, W: g.box, H: g.box}
}

// launchGrid draws the SMs in r as squares, each with its warp slots
// filled by the wave's first dealt blocks (block b = j·SMs + i sits in
// slot j of SM i), and returns where they are. SM mark (≥ 0) is framed
// as the one zoomed.
func launchGrid(p *draw.Placer, v LaunchView, sc, fs float32, r draw.Rect, wave, dealt, mark int) launchGeom {
	th := v.Theme
	bA, bB, _, _, _ := launchColours(th)
	label := fs * draw.LineHeight * 1.1
	gr := draw.Rect{X: r.X, Y: r.Y + label, W: r.W, H: r.H - label}
	if gr.W <= 0 || gr.H <= 0 {
		return launchGeom{}
	}
	sms := v.Words.Say("canvas.launch.sms", "gpu", v.GPU, "n", units.Count(int64(v.SMs)))
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Dim, sms, r.W)
	p.L.Key(th.Rim, sms) // the squares, named over them
	cols := int(math.Ceil(math.Sqrt(float64(v.SMs) * float64(gr.W/gr.H))))
	cols = max(1, min(cols, v.SMs))
	rows := (v.SMs + cols - 1) / cols
	cell := draw.Minf(gr.W/float32(cols), gr.H/float32(rows))
	box := cell * 0.86
	gx := gr.X + (gr.W-cell*float32(cols))/2
	// Warp slots inside a box: a square of slots when they are big
	// enough to see, else a bar a block.
	sq := int(math.Ceil(math.Sqrt(float64(v.MaxWarps))))
	slot := box / float32(sq)
	first := (wave - 1) * v.SMs * v.BlocksPerSM
	for i := 0; i < v.SMs; i++ {
		x := gx + float32(i%cols)*cell
		y := gr.Y + float32(i/cols)*cell
		p.L.Rect(x, y, box, box, th.Empty)
		warp := 0
		for j := 0; j < v.BlocksPerSM; j++ {
			b := j*v.SMs + i // its place in the wave
			n := min(v.WarpsPerBlock, v.MaxWarps-warp)
			if n <= 0 || b >= dealt || first+b >= v.Blocks {
				break
			}
			col := bA
			if j%2 == 1 {
				col = bB
			}
			if slot >= 3*sc {
				launchSlotsRun(p.L, x, y, slot, sq, warp, n, sc, col)
			} else {
				bw := box / float32(v.MaxWarps)
				p.L.Rect(x+float32(warp)*bw, y, float32(n)*bw, box, col)
			}
			warp += n
		}
		p.L.Frame(x, y, box, box, 1*sc, th.Rim)
		if i == mark {
			p.L.Frame(x-2*sc, y-2*sc, box+4*sc, box+4*sc, 2*sc, th.Text)
		}
	}
	return launchGeom{gx, gr.Y, cell, box, cols}
}

// launchSlotsRun fills n warp slots from slot k of a square of sq×sq.
func launchSlotsRun(l *draw.List, x, y, slot float32, sq, k, n int, sc float32, col draw.Color) {
	for s := k; s < k+n; s++ {
		l.Rect(x+float32(s%sq)*slot+0.5*sc, y+float32(s/sq)*slot+0.5*sc, draw.Maxf(slot-1*sc, 1*sc), draw.Maxf(slot-1*sc, 1*sc), col)
	}
}

// launchDeck draws the blocks not yet dealt as a deck of cards in r and
// returns where its top card is.
func launchDeck(p *draw.Placer, v LaunchView, sc, fs float32, r draw.Rect, left, wave int) (float32, float32) {
	th, w := v.Theme, v.Words
	bA, _, _, _, _ := launchColours(th)
	cw := draw.Minf(r.W*0.8, fs*6)
	ch := cw * 0.66
	x := r.X + (r.W-cw)/2
	y := r.Y + fs*draw.LineHeight*2.4
	cards := 0
	if left > 0 {
		cards = min(8, 1+left/64)
	}
	for k := cards - 1; k >= 0; k-- {
		dx := float32(k) * 2.5 * sc
		p.L.Rect(x+dx, y+dx, cw, ch, th.Panel)
		p.L.Frame(x+dx, y+dx, cw, ch, 1*sc, bA)
	}
	p.Wrap(r.X, r.Y, fs, draw.AlignLeft, th.Text, w.Say("canvas.launch.deck", "n", units.Count(int64(left))), r.W, 2)
	ty := y + ch + float32(cards)*2.5*sc + fs*0.4
	ty += p.Wrap(r.X, ty, fs, draw.AlignLeft, th.Dim, w.Say("canvas.launch.block", "threads", units.Count(int64(v.ThreadsPerBlock)), "warps", units.Count(int64(v.WarpsPerBlock))), r.W, 3)
	if cards > 0 {
		p.Fit(x+cw/2, y+ch/2-fs*0.6, fs, draw.AlignCenter, th.Text, units.Count(int64(left)), cw)
	}
	return x, y
}

// launchWaveStrip draws the waves as boxes along r: each as full as its
// blocks fill the GPU's slots, the current one growing.
func launchWaveStrip(p *draw.Placer, v LaunchView, sc, fs float32, r draw.Rect, wave int, frac float64) {
	th, w := v.Theme, v.Words
	bA, _, limC, _, _ := launchColours(th)
	n := max(v.Waves, 1)
	slots := v.SMs * v.BlocksPerSM
	gap := fs * 0.5
	bw := (r.W - gap*float32(n-1)) / float32(n)
	if bw < fs*2 || r.H < fs*2 {
		return
	}
	bh := r.H - fs*draw.LineHeight*1.1
	for k := 1; k <= n; k++ {
		x := r.X + float32(k-1)*(bw+gap)
		in := min(slots, v.Blocks-(k-1)*slots)
		util := float64(in) / float64(slots)
		p.L.Rect(x, r.Y, bw, bh, th.Empty)
		shown := 0.0
		switch {
		case k < wave:
			shown = 1
		case k == wave:
			shown = frac
		}
		col := bA
		if util < 1 {
			col = limC
		}
		if shown > 0 {
			p.L.Rect(x, r.Y, bw*float32(util)*float32(draw.Frac(shown/launchDealShare)), bh, col)
		}
		p.L.Frame(x, r.Y, bw, bh, 1*sc, th.Link)
		lab := w.Say("canvas.launch.wave_box", "k", units.Count(int64(k)), "util", units.Percent(util))
		p.Fit(x, r.Y+bh+fs*0.1, fs, draw.AlignLeft, th.Dim, lab, bw)
	}
}

// launchSM draws one SM zoomed in r: its warp slots filled by its blocks,
// and a meter for each resource a block takes, the one that runs out lit.
func launchSM(p *draw.Placer, v LaunchView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	bA, bB, limC, _, _ := launchColours(th)
	p.Fit(r.X, r.Y, fs, draw.AlignLeft, th.Text, w.Say("canvas.launch.one_sm", "warps", units.Count(int64(v.MaxWarps))), r.W)
	y := r.Y + fs*draw.LineHeight*1.2
	meters := [4]struct {
		key       string
		used, max int
		unit      func(int) string
	}{
		{"registers", v.BlocksPerSM * v.RegsPerBlock, v.Registers, func(n int) string { return units.Count(int64(n)) }},
		{"shared-memory", v.BlocksPerSM * v.SmemPerBlock, v.SharedMem, func(n int) string { return units.BytesIEC(float64(n)) }},
		{"threads", v.BlocksPerSM * v.WarpsPerBlock * 32, v.MaxWarps * 32, func(n int) string { return units.Count(int64(n)) }},
		{"blocks", v.BlocksPerSM, v.MaxBlocks, func(n int) string { return units.Count(int64(n)) }},
	}
	meterH := fs * draw.LineHeight * 2.2 * 4
	slotsH := r.H - (y - r.Y) - meterH - fs*0.5
	sq := int(math.Ceil(math.Sqrt(float64(v.MaxWarps))))
	if slotsH < fs*3 {
		slotsH = 0
	}
	if slotsH > 0 {
		// The warp slots: a row a few warps, coloured by block.
		side := draw.Minf(slotsH, r.W*0.9)
		slot := side / float32(sq)
		x := r.X
		p.L.Rect(x, y, side, side, th.GPU)
		for s := 0; s < sq*sq && s < v.MaxWarps; s++ {
			p.L.Rect(x+float32(s%sq)*slot+1*sc, y+float32(s/sq)*slot+1*sc, slot-2*sc, slot-2*sc, th.Empty)
		}
		warp := 0
		for j := 0; j < v.BlocksPerSM; j++ {
			n := min(v.WarpsPerBlock, v.MaxWarps-warp)
			if n <= 0 {
				break
			}
			col := bA
			if j%2 == 1 {
				col = bB
			}
			for s := warp; s < warp+n; s++ {
				p.L.Rect(x+float32(s%sq)*slot+1*sc, y+float32(s/sq)*slot+1*sc, slot-2*sc, slot-2*sc, col)
			}
			warp += n
		}
		p.L.Frame(x, y, side, side, 1.5*sc, th.Rim)
		// Occupancy beside the slots when there is room, else under them.
		occ := w.Say("canvas.launch.occ", "warps", units.Count(int64(warp)), "max", units.Count(int64(v.MaxWarps)),
			"occ", units.Percent(float64(warp)/float64(v.MaxWarps)))
		if r.W-side > fs*8 {
			p.Wrap(x+side+fs, y, fs, draw.AlignLeft, th.Text, occ, r.W-side-fs, 3)
		}
		y += side + fs*0.5
	}
	// The meters, with room past their end for one more block.
	mw := r.W * 0.8
	for i, m := range meters {
		my := y + float32(i)*fs*draw.LineHeight*2.2
		f := 0.0
		if m.max > 0 {
			f = draw.Frac(float64(m.used) / float64(m.max))
		}
		lit := m.key == v.Limit
		col, tc := bA, th.Dim
		if lit {
			col, tc = limC, limC
		}
		lab := w.Say("canvas.launch.meter", "what", w.Say("canvas.launch.limit."+m.key), "used", m.unit(m.used), "max", m.unit(m.max))
		if lit {
			lab = w.Say("canvas.launch.meter_full", "what", w.Say("canvas.launch.limit."+m.key), "used", m.unit(m.used), "max", m.unit(m.max))
		}
		p.Fit(r.X, my, fs, draw.AlignLeft, tc, lab, r.W)
		bh := fs * 0.8
		by := my + fs*draw.LineHeight
		p.L.Rect(r.X, by, mw, bh, th.Empty)
		p.L.Rect(r.X, by, mw*float32(f), bh, col)
		// One more block: where it would end, past the meter when it
		// does not fit.
		if lit && m.max > 0 {
			per := float64(m.used) / float64(max(v.BlocksPerSM, 1))
			x1 := r.X + mw*float32(math.Min(1.25, (float64(m.used)+per)/float64(m.max)))
			x0 := r.X + mw*float32(f)
			if x1 > x0 {
				draw.Hatch(p.L, x0, by, x1-x0, bh, bh*0.6, 1*sc, limC)
				p.L.Frame(x0, by, x1-x0, bh, 1*sc, limC)
			}
		}
		p.L.Frame(r.X, by, mw, bh, 1*sc, th.Link)
	}
}

// launchWarp draws one warp at a branch in r: its 32 lanes as rows, the
// issue slots as columns; path A's lanes run in its slots, path B's in
// theirs, each while the other's lanes are masked.
func launchWarp(p *draw.Placer, v LaunchView, sc, fs float32, r draw.Rect) {
	th, w := v.Theme, v.Words
	_, _, _, pA, pB := launchColours(th)
	slots := launchSlots(v)
	if slots <= 0 || r.H < fs*4 {
		return
	}
	taken := min(max(v.Taken, 0), 32)
	labW := draw.Clamp(r.W*0.22, fs*5, fs*11)
	top := r.Y + fs*draw.LineHeight*1.2
	gx := r.X + labW
	gw := r.W - labW
	gh := r.H - fs*draw.LineHeight*3.4
	lane := draw.Minf(gh/32, fs*0.9)
	if lane < 1*sc || gw < fs*4 {
		return
	}
	gh = lane * 32
	col := gw / float32(slots)
	aSlots, bSlots := 0, 0
	if taken > 0 {
		aSlots = v.CostA
	}
	if taken < 32 {
		bSlots = v.CostB
	}
	// The paths' headers over their columns.
	header := func(x, wd float32, c draw.Color, key string, n int) {
		full := w.Say(key, "n", units.Count(int64(n)))
		short := w.Say(key+"_short", "n", units.Count(int64(n)))
		if draw.TextWidth(full, fs) <= wd {
			p.Text(x, r.Y, fs, draw.AlignLeft, c, full)
		} else {
			p.Fit(x, r.Y, fs, draw.AlignLeft, c, short, wd)
		}
	}
	if aSlots > 0 {
		header(gx, col*float32(aSlots)-fs*0.3, pA, "canvas.launch.if", aSlots)
	}
	if bSlots > 0 {
		header(gx+col*float32(aSlots)+fs*0.3, col*float32(bSlots)-fs*0.3, pB, "canvas.launch.else", bSlots)
	}
	for k := 0; k < 32; k++ {
		y := top + float32(k)*lane
		inA := k < taken
		// Path A's slots, then path B's.
		if aSlots > 0 {
			c := th.Empty
			if inA {
				c = pA
			}
			p.L.Rect(gx, y, col*float32(aSlots)-1*sc, lane-0.5*sc, c)
		}
		if bSlots > 0 {
			c := th.Empty
			if !inA {
				c = pB
			}
			p.L.Rect(gx+col*float32(aSlots), y, col*float32(bSlots), lane-0.5*sc, c)
		}
	}
	p.L.Frame(gx, top, gw, gh, 1*sc, th.Dim)
	// Which lanes take which path.
	if taken > 0 {
		p.Fit(gx-fs*0.4, top+float32(taken)*lane/2-fs*0.6, fs, draw.AlignRight, pA, w.Say("canvas.launch.lanes", "a", "0", "b", units.Count(int64(taken-1))), labW-fs*0.4)
	}
	if taken < 32 {
		p.Fit(gx-fs*0.4, top+(float32(taken)+float32(32-taken)/2)*lane-fs*0.6, fs, draw.AlignRight, pB, w.Say("canvas.launch.lanes", "a", units.Count(int64(taken)), "b", "31"), labW-fs*0.4)
	}
	// The slots' axis and the idle count.
	ay := top + gh + fs*0.2
	p.Fit(gx, ay, fs, draw.AlignLeft, th.Dim, w.Say("canvas.launch.slots_axis", "n", units.Count(int64(slots))), gw*0.3)
	busy := taken*aSlots + (32-taken)*bSlots
	p.Fit(gx+gw, ay, fs, draw.AlignRight, th.Text, w.Say("canvas.launch.idle", "idle", units.Count(int64(32*slots-busy)), "all", units.Count(int64(32*slots)), "pct", units.Percent(launchIdle(v))), gw*0.68)
}
