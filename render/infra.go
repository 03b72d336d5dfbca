package render

import "github.com/gpuscope/gpuscope/render/draw"

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
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Title         string     // what moves, e.g. "1 GB from one GPU to another"
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
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Series        []SizeSeries
	YLabel        string  // "s" (a time axis) or a plain axis
	Current       float64 // the message size on screen (0: none)
	Highlight     string  // the label of the fastest series at Current, drawn bold
	Title         string  // the headline over the chart
	// Parts split each series' time at Current into latency and
	// bandwidth (the α and β of its closed form).
	Parts []SizePart
	// Pending: the step asks which is fastest, so the curves and the
	// parts wait for the answer.
	Pending bool
	// Crossovers are where the engine found two series' values equal:
	// when set, the chart marks these sizes (on series A's line) instead
	// of crossings it finds between the samples.
	Crossovers []SizeCrossover
}

// SizeCrossover is a size at which series A and B (labels) meet.
type SizeCrossover struct {
	A, B  string
	Bytes float64
}

// SizePart is one algorithm's time at a size, by part, seconds.
type SizePart struct {
	Label              string // a series' label
	Latency, Bandwidth float64
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

// FaultsView is a job's days, in three panels. The whole job: a bar of
// the wall time so far stacked by what it became (training progress,
// work lost at failures, restarts, checkpoint writes) on a 0…Days axis,
// the failures as strikes over it and the magnified window bracketed.
// The window magnified: the work not yet in a checkpoint, a
// sawtooth that climbs while the job computes and drops to zero at every
// save — or, struck by a failure, is lost (the tooth filled red) and
// restarts (hatched). Goodput against the checkpoint interval on a log
// axis, this job's interval and Daly's optimum marked. With a playhead
// (Time ≥ 0) only what happened before it.
type FaultsView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Title         string     // the job, e.g. "16,384 GPUs · a failure every 3.09 h"
	Days          float64
	// Progress is the job's state at wall times, ascending in time: the
	// sawtooth's corners and where the time went.
	Progress []ProgressPoint
	Events   []FaultEvent
	Sweep    []GoodputPoint
	Chosen   float64 // the job's checkpoint interval, seconds
	// ChosenGoodput is the job's own goodput (the numbers' figure, not one
	// read off the sweep).
	ChosenGoodput float64
	Optimum       float64 // Daly's interval, seconds
	// MTBF is the cluster's mean time between failures, seconds: the
	// magnified window holds about two (faultZoom), 0 for none.
	MTBF float64
	// GoodputMain makes the goodput chart the main act (how often to
	// checkpoint), in place of the magnified window.
	GoodputMain bool
	// Pending: the step asks how many failures the job sees, so the
	// counts (and the strikes over the whole job) wait for the answer.
	Pending bool
	Time    float64 // the playhead in wall seconds; negative: all done
	// Cache, when set, keeps what is derived from Events between the
	// frames that draw them (nil: derived every call).
	Cache *FaultsCache
}

// ProgressPoint is the job at a wall time, seconds: its progress (Kept,
// of which Saved is in a checkpoint) and the wall time so far that was
// lost at failures, spent restarting and spent writing checkpoints.
type ProgressPoint struct {
	Wall, Kept                 float64
	Saved, Lost, Restart, Ckpt float64
}
