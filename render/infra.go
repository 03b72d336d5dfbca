package render

// The infrastructure layer's pictures (issue 6): the same transfer on
// NVLink and on InfiniBand, collectives' time against message size, and a
// job's days with failures and checkpoints. Plain data in, display list
// out, as the other builders.

// RaceLane is one way of moving the same bytes.
type RaceLane struct {
	Name string // "NVLink 4", "fat tree 2:1"
	// Rated: the label gives the bandwidth after the name ("NVLink 4
	// 450 GB/s"); a lane whose Bandwidth is only bytes over time is not.
	Rated     bool
	Bandwidth float64 // bytes/s each way
	Latency   float64 // seconds before the first byte arrives
	Seconds   float64 // the whole transfer: Latency + Bytes/Bandwidth
}

// RaceView races one transfer on each lane against one time axis, the
// slowest lane's: each lane's bar grows with the clock until that lane
// has delivered everything, so the faster finishes first and the bars'
// lengths are the transfers' times; a meter says how much each has
// delivered.
type RaceView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words  // its words in the reader's language (canvas.* keys)
	Title         string // what moves, e.g. "1 GB from one GPU to another"
	Lanes         []RaceLane
	Time          float64 // the playhead, seconds; negative: all done
}

// SizeSeries is one algorithm's curve against message size.
type SizeSeries struct {
	Label  string    // "ring", "tree", "hierarchical"
	Bytes  []float64 // message sizes, ascending
	Values []float64 // seconds (or GB/s) at each size
}

// SizeChartView is a log-log chart of time (or bus bandwidth) against
// message size for several algorithms, the crossovers marked where one
// curve passes another, and the current size as a vertical marker.
type SizeChartView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Series        []SizeSeries
	YLabel        string  // "s" or "GB/s busbw"
	Current       float64 // the message size on screen (0: none)
	Highlight     string  // the label of the fastest series at Current, drawn bold
}

// FaultEvent is one thing that happened to the job.
type FaultEvent struct {
	At   float64 // seconds of wall time
	Kind uint8   // FaultFailure, FaultCheckpoint
}

// Fault event kinds.
const (
	FaultFailure uint8 = iota
	FaultCheckpoint
)

// GoodputPoint is the goodput a checkpoint interval gives.
type GoodputPoint struct {
	Interval float64 // seconds between checkpoints
	Goodput  float64 // 0…1
}

// FaultsView is a job's days: at the top, kept progress against wall
// time (a sawtooth: it climbs, falls back to the last checkpoint at each
// failure, stays flat during restarts), failures as red ticks and
// checkpoints as small ticks (thinned when dense); below, goodput against
// the checkpoint interval on a log axis, the chosen interval and the
// optimum (Young/Daly) marked.
type FaultsView struct {
	Width, Height float32
	Stage         Rect
	Scale         float32
	Theme         Theme
	Words         Words // its words in the reader's language (canvas.* keys)
	Days          float64
	// Progress is kept progress (seconds) at wall times, ascending in
	// time: the sawtooth's corners.
	Progress []ProgressPoint
	Events   []FaultEvent
	Sweep    []GoodputPoint
	Chosen   float64 // the job's checkpoint interval, seconds
	Optimum  float64 // Daly's interval, seconds
	Time     float64 // the playhead in wall seconds; negative: all done
}

// ProgressPoint is the kept progress at a wall time.
type ProgressPoint struct {
	Wall, Kept float64 // seconds
}
