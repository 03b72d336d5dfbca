package render

import (
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// racePackets is how many times a lane's packets cross its track during
// its own transfer: the faster lane's stream moves faster on screen by
// the ratio of the bandwidths.
const racePackets = 6

// AppendRace races one transfer of v.Bytes on each lane: a track per lane
// (its label at the left) filling left to right with the bytes arrived —
// none before the lane's latency, then linearly until its Seconds — a
// stream of packets along the track while it runs (denser and faster on
// the faster lane), the finish time at the end of each lane that is done,
// and the ratio of the finish times between neighbouring lanes once both
// are done. A clock under the tracks spans the slowest lane's time, each
// lane's finish marked and the playhead on it. A negative Time is the end
// of the race.
func AppendRace(dst List, v RaceView) List {
	th := v.Theme
	l, sc := canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.Lanes)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	fs := clamp(minf(st.W, st.H)/40, 10*sc, 18*sc)
	pad := fs

	// The clock's span and the fastest lane's bandwidth.
	tmax, bmax := 0.0, 0.0
	for _, ln := range v.Lanes {
		if ln.Seconds > tmax && !math.IsInf(ln.Seconds, 0) {
			tmax = ln.Seconds
		}
		bmax = math.Max(bmax, ln.Bandwidth)
	}
	if !(tmax > 0) {
		return l
	}
	t := v.Time
	if t < 0 || math.IsNaN(t) {
		t = tmax
	}

	// Header: the transfer and the clock.
	if v.Bytes > 0 {
		l.Label(st.X+pad, st.Y+pad*0.5, fs, AlignLeft, th.Text, "transfer "+units.Bytes(v.Bytes))
	}
	l.Label(st.X+st.W-pad, st.Y+pad*0.5, fs, AlignRight, th.Text, "t = "+units.Duration(math.Min(t, tmax)))

	// Columns: lane labels, tracks, finish times.
	labW := float32(0)
	for _, ln := range v.Lanes {
		labW = maxf(labW, textWidth(raceLabel(ln), fs))
	}
	labW = minf(labW, st.W*0.4)
	tx := st.X + pad + labW + fs
	tw := st.X + st.W - pad - fs*4.5 - tx
	top := st.Y + pad*0.5 + fs*2.5
	bottom := st.Y + st.H - pad - fs*3
	if tw <= 0 || bottom <= top {
		return l
	}
	pitch := (bottom - top) / float32(n)
	rowH := minf(pitch*0.45, fs*3.5)

	for i, ln := range v.Lanes {
		col := sizePalette[i%len(sizePalette)]
		cy := top + pitch*(float32(i)+0.5)
		y := cy - rowH/2
		l.Label(st.X+pad, cy-fs*0.6, fs, AlignLeft, th.Text, raceLabel(ln))
		l.Rect(tx, y, tw, rowH, th.Panel)
		f := raceDone(ln, t)
		if f > 0 {
			l.Rect(tx, y, tw*float32(f), rowH, col)
		}
		// The packet stream along the whole track, at a speed and density
		// that grow with the bandwidth.
		if t >= 0 && t < ln.Seconds && ln.Bandwidth > 0 && bmax > 0 {
			r := ln.Bandwidth / bmax
			speed := float64(tw) * racePackets / tmax * r // px a second
			gap := rowH * 0.8 / float32(math.Sqrt(r))
			gap = maxf(gap, tw/80)
			pr := clamp(rowH*0.14, 1.5*sc, 6*sc)
			phase := float32(math.Mod(speed*t, float64(gap)))
			pc := th.Text
			pc.A = 200
			for x := tx + phase; x <= tx+tw; x += gap {
				l.Circle(x, cy, pr, pc)
			}
		}
		l.Frame(tx, y, tw, rowH, 1*sc, th.Link)
		if f >= 1 {
			l.Label(tx+tw+fs*0.5, cy-fs*0.6, fs, AlignLeft, col, units.Duration(ln.Seconds))
		}
	}
	// Ratios between neighbouring lanes, once both are done.
	for i := 0; i+1 < n; i++ {
		a, b := v.Lanes[i], v.Lanes[i+1]
		if raceDone(a, t) < 1 || raceDone(b, t) < 1 {
			continue
		}
		lo, hi := math.Min(a.Seconds, b.Seconds), math.Max(a.Seconds, b.Seconds)
		if !(lo > 0) {
			continue
		}
		cy := top + pitch*float32(i+1)
		l.Label(tx+tw+fs*0.5, cy-fs*0.6, fs, AlignLeft, th.Text, units.Ratio("en", hi/lo))
	}

	// The clock: 0 … the slowest lane, each lane's finish, the playhead.
	ay := bottom + fs*1.2
	at := func(s float64) float32 { return tx + tw*float32(math.Min(math.Max(s/tmax, 0), 1)) }
	l.Segment(tx, ay, tx+tw, ay, 1*sc, th.Dim)
	l.Label(tx-fs*0.5, ay-fs*0.6, fs*0.85, AlignRight, th.Dim, "time")
	step := niceStep(tmax / 5)
	for k := 0; float64(k)*step <= tmax*1.0001 && k < 50; k++ {
		x := at(float64(k) * step)
		l.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		l.Label(x, ay+fs*0.4, fs*0.85, AlignCenter, th.Dim, units.Duration(float64(k)*step))
	}
	for i, ln := range v.Lanes {
		if ln.Seconds > 0 {
			x := at(ln.Seconds)
			l.Segment(x, ay-fs*0.6, x, ay, 2*sc, sizePalette[i%len(sizePalette)])
		}
	}
	if v.Time >= 0 {
		x := at(t)
		l.Segment(x, ay-fs*0.9, x, ay+fs*0.3, 2*sc, th.Text)
	}
	return l
}

// raceDone is the share of the bytes a lane has delivered at t: none
// before its latency, then linearly to all at its Seconds.
func raceDone(ln RaceLane, t float64) float64 {
	switch {
	case t >= ln.Seconds:
		return 1
	case t <= ln.Latency || ln.Seconds <= ln.Latency:
		return 0
	}
	return (t - ln.Latency) / (ln.Seconds - ln.Latency)
}

// raceLabel is a lane's name, with its bandwidth when Rated.
func raceLabel(ln RaceLane) string {
	if !ln.Rated || ln.Bandwidth <= 0 {
		return ln.Name
	}
	return linkLabels.get(linkKey{ln.Name + " ", ln.Bandwidth}, func() string { return ln.Name + "  " + units.Rate(ln.Bandwidth) })
}
