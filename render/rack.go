package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"strconv"
)

// The rack-scale-nvlink pictures: the same 72 GPUs as one GB200 NVL72 rack
// (one NVLink domain) and as nine 8-GPU nodes on InfiniBand, an operation's
// bytes moving in both and raced below on one time axis; and the TP
// all-reduce's time against the TP degree on both, where it leaves the
// NVLink domain.

// RackGPUsPerRow is a row of the picture: two compute trays of four GPUs
// beside one NVSwitch tray (an NVL72 has 18 such trays and 9 switch trays;
// an HGX node is one row, its NVSwitch in the middle).
const RackGPUsPerRow = 8

// RackPanel is one of the two systems of 72 GPUs.
type RackPanel struct {
	Name, Links string // header lines (wrapped to the panel)
	Domain      int    // GPUs a domain: a multiple of RackGPUsPerRow
	// Which links carry the step's bytes.
	NVLink, NIC bool
	Lane        RaceLane // the operation on it: its time and latency
	Note        string   // under the panel: where the bytes go
}

// RackView is the two systems and their race.
type RackView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words
	Title         string
	GPUs          int // 72
	Panels        [2]RackPanel
	Send          bool // only GPU 0 sends, to the last GPU
	// Keys: NVLink, InfiniBand, NVSwitch, bytes arrived; IBSwitch labels
	// the network's column.
	Keys      [4]string
	IBSwitch  string
	RaceTitle string
	Time      float64 // the playhead, seconds; negative: the end
}

// rack colours: NVLink and InfiniBand as the race's lanes 0 and 1 (the
// rack all NVLink, the nodes bound by their NICs); arrived bytes green.
var rackNVLink, rackIB, rackFill = draw.Palette[0], draw.Palette[1], draw.Palette[2]

// AppendRack draws the two systems side by side, each as rows of eight GPUs
// around an NVSwitch tray, a frame round each NVLink domain: the rack's one
// frame holds all 72, its switch trays joined by one spine; the nodes'
// nine frames each hold eight, their NICs running to an InfiniBand switch.
// While a system's operation runs, packets move on the links that carry it
// (as fast as the system finishes) and each GPU fills as its bytes arrive;
// below, the two raced on one axis (AppendRace).
func AppendRack(dst draw.List, v RackView, scratch *draw.List) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := v.GPUs
	if st.W <= 0 || st.H <= 0 || n < RackGPUsPerRow {
		return l
	}
	rows := n / RackGPUsPerRow
	fs, x0, x1, y := rackTitle(&l, th, st, sc, v.Title)
	y += fs * 0.4
	raceH := draw.Clamp(st.H*0.4, fs*14.5, fs*16)
	entries := [4]draw.LegendEntry{{Color: rackNVLink, Label: v.Keys[0]}, {Color: rackIB, Label: v.Keys[1]}, {Color: th.Dim, Label: v.Keys[2]}, {Color: rackFill, Label: v.Keys[3]}}
	lh := draw.LegendHeight(x1-x0, fs, entries[:]...)
	legendY := st.Y + st.H - raceH - lh
	if legendY-fs*draw.LineHeight*2 < y+float32(rows)*3*sc {
		// No room for the GPUs (a short embed): the race alone.
		return AppendRace(l, RaceView{Width: v.Width, Height: v.Height, Stage: st, Scale: v.Scale, Theme: th, Words: v.Words,
			Title: v.Title, Lanes: []RaceLane{v.Panels[0].Lane, v.Panels[1].Lane}, Time: v.Time})
	}
	draw.Legend(&l, th, x0, legendY, x1-x0, fs, sc, entries[:]...)
	bottom := legendY - fs*0.4
	gap := fs
	pw := (x1 - x0 - gap) / 2
	t := v.Time
	ibW := fs * 1.6
	noteLines := 0
	for _, pn := range v.Panels {
		if pn.Note != "" {
			_, b := draw.Wrap2(pn.Note, fs, pw-ibW*1.4)
			noteLines = max(noteLines, 1)
			if b != "" {
				noteLines = 2
			}
		}
	}
	if bottom-y-fs*draw.LineHeight*float32(noteLines+1) < float32(rows)*4*sc {
		noteLines = 0 // a short stage: the GPUs before the notes
	}
	for p, pn := range v.Panels {
		px := x0 + float32(p)*(pw+gap)
		// Both panels' rows end at one height, above the longer note.
		pb := bottom - fs*draw.LineHeight*float32(noteLines)
		var note [2]string
		if pn.Note != "" && noteLines > 0 {
			note[0], note[1] = draw.Wrap2(pn.Note, fs, pw-ibW*1.4)
		}
		// The header: the name and the links, wrapped; on a short stage
		// the name alone, then cut to a line, so the rows keep 6 px each.
		py := y
		head := [2]string{pn.Name, pn.Links}
		nameLines := max(1, len(draw.Lines(pn.Name, fs, pw, 0)))
		lines := nameLines + max(1, len(draw.Lines(pn.Links, fs, pw, 0)))
		switch {
		case pb-y-fs*draw.LineHeight*float32(lines) >= float32(rows)*fs*0.9:
		case pb-y-fs*draw.LineHeight*float32(nameLines) >= float32(rows)*fs*0.6:
			head[1] = ""
		case pb-y-fs*draw.LineHeight >= float32(rows)*4*sc:
			head = [2]string{draw.Fit(pn.Lane.Name, fs, pw), ""} // the race's short name
		default:
			head = [2]string{}
		}
		for i, s := range head {
			col := [2]draw.Color{th.Text, th.Dim}[i]
			for _, s := range draw.Lines(s, fs, pw, 0) {
				l.Label(px, py, fs, draw.AlignLeft, col, s)
				py += fs * draw.LineHeight
			}
		}
		py += fs * 0.3
		if pb-py < float32(rows)*4*sc {
			continue
		}
		// Geometry: a row is 4 GPUs, the switch (1.4 GPUs wide), 4 GPUs;
		// the network's column at the right.
		rw := pw - ibW - fs*0.6
		gw := rw / (RackGPUsPerRow + 1.4 + 0.4)
		rh := (pb - py) / float32(rows)
		cell := draw.Minf(gw*0.84, rh*0.62) // a GPU's height
		cw := draw.Minf(gw*0.84, cell*2.2)  // and width: wider when the rows are short
		rx := px + fs*0.3
		ibX := px + pw - ibW
		gpuX := func(slot int) float32 {
			x := rx + gw*float32(slot)
			if slot >= RackGPUsPerRow/2 {
				x += gw * 1.6
			}
			return x + (gw-cw)/2
		}
		swX, swW := rx+gw*4+gw*0.1, gw*1.4
		rowY := func(r int) float32 { return py + rh*float32(r) }
		busY := func(r int) float32 { return rowY(r) + rh*0.5 + cell*0.5 + (rh-cell)*0.22 }
		lane := pn.Lane
		running := t >= 0 && t < lane.Seconds && t > lane.Latency && lane.Seconds > 0
		done := raceDone(lane, t)
		if t < 0 {
			done = 1
		}
		dots := float32(0)
		if running {
			dots = float32(math.Mod(t/lane.Seconds*8, 1))
		}
		pr := draw.Clamp(rh*0.08, 1.5*sc, 3.5*sc)
		dom := max(pn.Domain/RackGPUsPerRow, 1)
		// The domains' frames.
		for r := 0; r < rows; r += dom {
			h := rh*float32(min(dom, rows-r)) - rh*0.08
			l.Frame(px, rowY(r)+rh*0.04, ibX-px-fs*0.2, h, 1.5*sc, draw.WithAlpha(rackNVLink, 200))
		}
		// The network's column, and each node's NICs to it.
		nodes := rows / dom
		if nodes > 1 {
			l.Rect(ibX+ibW*0.3, py, ibW*0.4, pb-py, th.Dim)
			for r := 0; r < rows; r += dom {
				ny := rowY(r) + rh*0.5
				c := draw.WithAlpha(rackIB, 130)
				if pn.NIC && (!v.Send || r == 0 || r+dom >= rows) {
					c = rackIB
				}
				l.Segment(ibX-fs*0.2, ny, ibX+ibW*0.3, ny, 2.5*sc, c)
				if running && pn.NIC && (!v.Send || r == 0 || r+dom >= rows) {
					f := dots
					if r > 0 && v.Send {
						f = 1 - f // back out to the last GPU
					}
					l.Circle(ibX-fs*0.2+(ibW*0.5+fs*0.2)*f, ny, pr*1.3, th.Text)
				}
			}
		}
		// The rows: GPUs filled by their bytes, the NVLink bus, the switch.
		for r := range rows {
			ry := rowY(r)
			by := busY(r)
			active := pn.NVLink && (!v.Send || r == 0 || r == rows-1)
			bc := draw.WithAlpha(rackNVLink, 110)
			if active {
				bc = rackNVLink
			}
			l.Segment(gpuX(0)+cw/2, by, gpuX(RackGPUsPerRow-1)+cw/2, by, 2*sc, bc)
			if nodes > 1 {
				l.Segment(gpuX(RackGPUsPerRow-1)+cw/2, by, ibX-fs*0.2, by, 2*sc, draw.WithAlpha(rackIB, 110))
			}
			cy := ry + (rh-cell)*0.3
			for s := range RackGPUsPerRow {
				gx := gpuX(s)
				l.Segment(gx+cw/2, cy+cell, gx+cw/2, by, 1*sc, bc)
				l.Rect(gx, cy, cw, cell, th.GPU)
				g := r*RackGPUsPerRow + s
				if f := float32(done); f > 0 && (!v.Send || g == n-1) {
					l.Rect(gx, cy+cell*(1-f), cw, cell*f, rackFill)
				}
				fr := th.Link
				if v.Send && (g == 0 || g == n-1) {
					fr = th.Text
				}
				l.Frame(gx, cy, cw, cell, 1*sc, fr)
			}
			l.Rect(swX, cy, swW, cell, th.Dim)
			if running && active {
				// Packets along the bus, to and from the switch.
				for s := range RackGPUsPerRow / 2 {
					a := gpuX(s) + cw/2
					b := gpuX(RackGPUsPerRow-1-s) + cw/2
					m := swX + swW/2
					l.Circle(a+(m-a)*dots, by, pr, th.Text)
					l.Circle(b+(m-b)*dots, by, pr, th.Text)
					if v.Send {
						break
					}
				}
			}
		}
		// One domain's switch trays joined: the NVLink spine.
		for r := 0; r < rows; r += dom {
			if dom < 2 {
				break
			}
			top := rowY(r) + (rh-cell)*0.3 + cell/2
			end := rowY(min(r+dom, rows)-1) + (rh-cell)*0.3 + cell/2
			l.Segment(swX+swW/2, top, swX+swW/2, end, 3*sc, rackNVLink)
			if running && pn.NVLink {
				for k := range 4 {
					f := (float32(k) + dots) / 4
					if v.Send {
						f = dots
					}
					l.Circle(swX+swW/2, top+(end-top)*f, pr*1.2, th.Text)
					if v.Send {
						break
					}
				}
			}
		}
		if swW > draw.TextWidth("NVSwitch", fs*0.7)+2 && rows == 1 {
			l.Label(swX+swW/2, rowY(0), fs*0.7, draw.AlignCenter, th.Text, "NVSwitch")
		}
		if nodes > 1 && v.IBSwitch != "" && noteLines > 0 {
			l.Label(ibX+ibW, pb+fs*0.2, fs, draw.AlignRight, th.Dim, draw.Fit(v.IBSwitch, fs, ibW*1.3))
		}
		if note[0] != "" {
			l.Label(px, pb+fs*0.2, fs, draw.AlignLeft, th.Text, note[0])
		}
		if note[1] != "" {
			l.Label(px, pb+fs*(0.2+draw.LineHeight), fs, draw.AlignLeft, th.Text, note[1])
		}
	}
	// The race of the two, below.
	if scratch != nil {
		lanes := [2]RaceLane{v.Panels[0].Lane, v.Panels[1].Lane}
		rs := draw.Rect{X: st.X, Y: st.Y + st.H - raceH, W: st.W, H: raceH}
		*scratch = AppendRace(*scratch, RaceView{Width: v.Width, Height: v.Height, Stage: rs, Scale: v.Scale, Theme: th, Words: v.Words, Title: v.RaceTitle, Lanes: lanes[:], Time: v.Time})
		l.Items = append(l.Items, scratch.Items...)
		l.Keys = append(l.Keys, scratch.Keys...)
	}
	return l
}

// CeilingView is the TP all-reduce's time against the TP degree on two
// systems.
type CeilingView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Title         string
	Degrees       []int
	// Names, Domains and Seconds are each system's: its name, its NVLink
	// domain, and one all-reduce's time at each degree.
	Names   [2]string
	Domains [2]int
	Seconds [2][]float64
	// Keys: a group that crosses InfiniBand (hatched); the axis's label;
	// each domain's edge, "{name}: NVLink domain of {k}" made by the caller.
	Crosses, Axis string
	Edges         [2]string
}

// AppendCeiling draws the two systems' all-reduce times as pairs of bars
// on one linear scale, a pair a TP degree; a bar whose group is larger than
// its system's NVLink domain is hatched (its all-reduce crosses
// InfiniBand), and each domain's edge is a dashed line between the degrees
// it separates (past the last degree when the domain holds them all).
func AppendCeiling(dst draw.List, v CeilingView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	nd := len(v.Degrees)
	if st.W <= 0 || st.H <= 0 || nd == 0 || len(v.Seconds[0]) != nd || len(v.Seconds[1]) != nd {
		return l
	}
	fs, x0, x1, y := rackTitle(&l, th, st, sc, v.Title)
	y += fs * 0.3
	entries := [3]draw.LegendEntry{{Color: rackNVLink, Label: v.Names[0]}, {Color: rackIB, Label: v.Names[1]}, {Color: th.Text, Hatch: true, Label: v.Crosses}}
	y += draw.Legend(&l, th, x0, y, x1-x0, fs, sc, entries[:]...) + fs*0.3
	for i, e := range v.Edges {
		col := [2]draw.Color{rackNVLink, rackIB}[i]
		for k := range 3 { // the dashed edge, as drawn on the chart
			yy := y + fs*(0.1+0.33*float32(k))
			l.Segment(x0+fs*0.3, yy, x0+fs*0.3, yy+fs*0.2, 2*sc, col)
		}
		l.Label(x0+fs, y, fs, draw.AlignLeft, th.Text, draw.Fit(e, fs, x1-x0-fs))
		y += fs * draw.LineHeight
	}
	tmax := 0.0
	for _, s := range v.Seconds {
		for _, x := range s {
			tmax = math.Max(tmax, x)
		}
	}
	if !(tmax > 0) {
		return l
	}
	step := draw.NiceStep(tmax / 4)
	top := y + fs*2.8 // room for two labels over the tallest bar
	axisL := x0 + draw.TextWidth(draw.DurationLabel(step*4), fs) + fs*0.6
	bottom := st.Y + st.H - fs - fs*2.6
	if bottom-top < fs*3 {
		return l
	}
	ymax := math.Ceil(tmax/step) * step
	at := func(s float64) float32 { return bottom - (bottom-top)*float32(s/ymax) }
	for k := 0; float64(k)*step <= ymax*1.0001 && k < 20; k++ {
		yy := at(float64(k) * step)
		l.Segment(axisL, yy, x1, yy, 1*sc, draw.WithAlpha(th.Dim, 60))
		l.Label(axisL-fs*0.3, yy-fs*0.55, fs, draw.AlignRight, th.Dim, draw.DurationLabel(float64(k)*step))
	}
	gw := (x1 - axisL) / float32(nd)
	bw := gw * 0.34
	// On a narrow chart only the pairs either side of the smaller
	// domain's edge, and the last, say their times.
	narrow := 2*draw.TextWidth("888 µs", fs) > gw
	edge := min(v.Domains[0], v.Domains[1])
	for i, d := range v.Degrees {
		gx := axisL + gw*float32(i)
		said := !narrow || i == nd-1 || d == edge || i > 0 && v.Degrees[i-1] == edge
		for s := range 2 {
			sec := v.Seconds[s][i]
			bx := gx + gw*0.14 + float32(s)*(bw+gw*0.04)
			by := at(sec)
			col := [2]draw.Color{rackNVLink, rackIB}[s]
			l.Rect(bx, by, bw, bottom-by, col)
			if d > v.Domains[s] {
				draw.Hatch(&l, bx, by, bw, bottom-by, fs*0.5, 1.5*sc, th.Text)
			}
			// The pair's labels lean apart, the second a line higher, so
			// neither covers the other's bar.
			lab := draw.DurationLabel(sec)
			lw := draw.TextWidth(lab, fs)
			if !said {
				continue
			}
			if s == 0 {
				l.Label(draw.Maxf(bx+bw, axisL+lw+fs*0.2), by-fs*draw.LineHeight, fs, draw.AlignRight, col, lab)
			} else {
				l.Label(draw.Minf(bx, x1-lw), by-fs*draw.LineHeight*2, fs, draw.AlignLeft, col, lab)
			}
		}
		l.Label(gx+gw/2, bottom+fs*0.4, fs, draw.AlignCenter, th.Text, strconv.Itoa(d))
	}
	// Each domain's edge: after the last degree it holds.
	for s := range 2 {
		k := 0
		for k < nd && v.Degrees[k] <= v.Domains[s] {
			k++
		}
		ex := axisL + gw*float32(k) - float32(s)*3*sc
		if k == nd {
			ex = x1 - float32(s)*3*sc
		}
		col := [2]draw.Color{rackNVLink, rackIB}[s]
		for yy := top; yy < bottom; yy += fs * 0.6 {
			l.Segment(ex, yy, ex, draw.Minf(yy+fs*0.35, bottom), 2*sc, col)
		}
	}
	l.Segment(axisL, bottom, x1, bottom, 1*sc, th.Dim)
	l.Label((axisL+x1)/2, bottom+fs*1.7, fs, draw.AlignCenter, th.Dim, draw.Fit(v.Axis, fs, x1-axisL))
	return l
}

// rackTitle writes a rack picture's title, wrapped, at the stage's top:
// the text size, the content's left and right edges and the y under it.
func rackTitle(l *draw.List, th draw.Theme, st draw.Rect, sc float32, title string) (fs, x0, x1, y float32) {
	fs = draw.Clamp(draw.Minf(st.W, st.H)/32, 14*sc, 20*sc)
	x0, x1 = st.X+fs, st.X+st.W-fs
	y = st.Y + fs*0.5
	for _, s := range draw.Lines(title, fs, x1-x0, 0) {
		l.Label(x0, y, fs, draw.AlignLeft, th.Text, s)
		y += fs * draw.LineHeight
	}
	return fs, x0, x1, y
}
