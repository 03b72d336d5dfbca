package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"

	"github.com/gpuscope/gpuscope/engine/units"
)

// racePackets is how many packets a lane's stream holds across its track
// at the fastest lane's bandwidth: a slower lane's are sparser.
const racePackets = 48

// AppendRace races one transfer on each lane against one time axis
// (PICTURES.md: "a race on one time axis: NVLink finishes, InfiniBand is
// still an eighth of the way there"). Each lane is a track spanning the
// axis, 0 to the slowest lane's time; its bar grows with the clock — none
// before the lane's latency is counted as time on the bar too — and stops
// at the lane's finish, where its time is written: the bars' lengths are
// the transfers' times. Packets stream along the bar while it grows
// (denser on the faster link). At the right, a meter per lane says how
// much it has delivered; once the faster is done, a headline says how
// many times as long the slowest takes. The playhead crosses every lane. A negative Time
// is the end of the race.
func AppendRace(dst draw.List, v RaceView) draw.List {
	th := v.Theme
	l, sc := draw.Canvas(dst, v.Width, v.Height, v.Scale, th)
	st := v.Stage
	n := len(v.Lanes)
	if st.W <= 0 || st.H <= 0 || n == 0 {
		return l
	}
	fs := draw.Clamp(draw.Minf(st.W, st.H)/32, 14*sc, 22*sc)
	pad := fs

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
	if t < 0 || math.IsNaN(t) || t > tmax {
		t = tmax
	}

	// Header: what moves, and the clock.
	clock := v.Words.Say("canvas.clock", "t", units.Duration(t))
	cw := draw.TextWidth(clock, fs)
	l.Label(st.X+st.W-pad, st.Y+pad*0.5, fs, draw.AlignRight, th.Text, clock)
	if v.Title != "" {
		l.Label(st.X+pad, st.Y+pad*0.5, fs, draw.AlignLeft, th.Text, draw.Fit(v.Title, fs, st.W-3*pad-cw))
	}

	// Columns: the tracks, then the meters.
	meterW := draw.TextWidth("100%", fs*1.4) + fs
	tx := st.X + pad
	tw := st.X + st.W - pad - meterW - fs - tx
	headY := st.Y + pad*0.5 + fs*1.45 // the headline: how many times as long
	top := headY + fs*1.6
	bottom := st.Y + st.H - pad - fs*2.6
	if tw <= 0 || bottom <= top {
		return l
	}
	pitch := (bottom - top) / float32(n)
	rowH := draw.Clamp(pitch*0.32, fs*0.8, fs*3)
	// Room for the lane's name above its bar and its finish below.
	rowH = draw.Maxf(draw.Minf(rowH, pitch-fs*(draw.LineHeight*2.2+0.4)), fs*0.5)
	at := func(s float64) float32 { return tx + tw*float32(math.Min(math.Max(s/tmax, 0), 1)) }

	for i, ln := range v.Lanes {
		col := draw.Palette[i%len(draw.Palette)]
		l.Key(col, ln.Name)
		labY := top + pitch*float32(i) + (pitch-rowH-fs*draw.LineHeight*1.2)/2
		y := labY + fs*draw.LineHeight*1.2
		cy := y + rowH/2
		l.Label(tx, labY, fs, draw.AlignLeft, th.Text, draw.Fit(raceLabel(ln, v.Words), fs, tw))
		l.Rect(tx, y, tw, rowH, th.Panel)
		end := math.Min(t, ln.Seconds)
		x1 := at(end)
		if x1 > tx {
			c := col
			if t < ln.Seconds {
				c = draw.WithAlpha(col, 190) // still moving
			}
			l.Rect(tx, y, x1-tx, rowH, c)
		}
		// Packets along the bar while it grows: the fastest lane's
		// spacing at racePackets a track, sparser by the bandwidth ratio.
		if t < ln.Seconds && t > ln.Latency && ln.Bandwidth > 0 && bmax > 0 {
			gap := tw / racePackets * float32(bmax/ln.Bandwidth)
			gap = draw.Minf(draw.Maxf(gap, rowH*0.6), tw/2)
			pr := draw.Clamp(rowH*0.16, 1.5*sc, 6*sc)
			speed := float64(tw) / tmax * 4 // px a second: packets run ahead of the bar
			phase := float32(math.Mod(speed*t, float64(gap)))
			pc := th.Text
			pc.A = 210
			for x := tx + phase; x <= x1-pr; x += gap {
				l.Circle(x, cy, pr, pc)
			}
		}
		l.Frame(tx, y, tw, rowH, 1*sc, th.Link)
		if t >= ln.Seconds {
			// The finish: a flag at the bar's end and the lane's time.
			l.Segment(x1, y-fs*0.3, x1, y+rowH+fs*0.3, 2*sc, col)
			label := units.Duration(ln.Seconds)
			lw := draw.TextWidth(label, fs)
			lx, al := x1+fs*0.4, draw.AlignLeft
			if lx+lw > tx+tw {
				lx, al = x1-fs*0.4, draw.AlignRight
			}
			l.Label(lx, y+rowH+fs*0.35, fs, al, col, label)
		}
		// The meter: how much of the transfer has arrived.
		l.Label(st.X+st.W-pad, cy-fs*0.7, fs*1.4, draw.AlignRight, col, units.Percent(math.Floor(raceDone(ln, t)*1000)/1000))
	}
	// Once the fastest is done: how many times as long each other lane takes.
	fast := 0
	for i, ln := range v.Lanes {
		if ln.Seconds < v.Lanes[fast].Seconds {
			fast = i
		}
	}
	if f := v.Lanes[fast]; t >= f.Seconds && f.Seconds > 0 {
		slow := fast
		for i, ln := range v.Lanes {
			if ln.Seconds > v.Lanes[slow].Seconds {
				slow = i
			}
		}
		if s := v.Lanes[slow]; slow != fast {
			msg := v.Words.Say("canvas.race.ratio", "slow", s.Name, "ratio", units.Ratio(v.Words.Lang, s.Seconds/f.Seconds), "fast", f.Name)
			l.Label(tx, headY, fs, draw.AlignLeft, th.Hot, draw.Fit(msg, fs, st.W-2*pad))
		}
	}

	// The axis: 0 … the slowest lane, its ticks in units of time; the
	// playhead through every lane.
	ay := bottom + fs*0.6
	l.Segment(tx, ay, tx+tw, ay, 1*sc, th.Dim)
	step := draw.NiceStep(tmax / 5)
	for k := 0; float64(k)*step <= tmax*1.0001 && k < 50; k++ {
		x := at(float64(k) * step)
		l.Segment(x, ay, x, ay+fs*0.3, 1*sc, th.Dim)
		l.Label(x, ay+fs*0.4, fs, draw.AlignCenter, th.Dim, draw.DurationLabel(float64(k)*step))
	}
	if v.Time >= 0 && t < tmax {
		x := at(t)
		l.Segment(x, top, x, ay+fs*0.3, 1.5*sc, th.Text)
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

// raceLabel is a lane's name, with its bandwidth each way when Rated.
func raceLabel(ln RaceLane, w draw.Words) string {
	if !ln.Rated || ln.Bandwidth <= 0 {
		return ln.Name
	}
	return draw.LinkLabels.Get(draw.LinkKey{Name: w.Lang + "\x00" + ln.Name, BW: ln.Bandwidth}, func() string {
		return w.Say("canvas.race.lane", "name", ln.Name, "rate", units.Rate(ln.Bandwidth))
	})
}
