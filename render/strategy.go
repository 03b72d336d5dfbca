package render

import "github.com/gpuscope/gpuscope/render/draw"

// The strategy layer's pictures (issue 5). Each view is plain data — the
// lesson code fills it from engine/parallel — and each builder is a pure
// function to a display list, golden-tested like the others. Canvas text
// is short Latin only (numbers, ids such as "TP 8", "GPU 3"); narration
// in both languages lives in the HTML around the canvas.

// MemorySegment is one part of a stacked memory bar.
type MemorySegment struct {
	Key   string  // weights, gradients, optimizer, activations, buffers
	Bytes float64 // ≥ 0
}

// MemoryBar is one GPU's (or stage's, or configuration's) bytes.
type MemoryBar struct {
	Label    string // under the bar, e.g. "GPU 0", "stage 3", "ZeRO-2"
	Segments []MemorySegment
	Current  bool // drawn emphasised (the configuration on screen)
	// Seconds for the lower chart (the view's Lower), Hidden of them in
	// its light part: a step's communication and what of it hides, say.
	Seconds, Hidden float64
	// NoRun: the configuration does not fit its GPUs, so Seconds is a
	// time it never takes: the lower chart draws no column for it, but
	// says, in the hot colour, that it cannot run.
	NoRun bool
}

// LowerChart is a row of columns under memory bars, one a bar, on one
// time axis: its Title, and the legend's words for the solid and light
// parts of a column in Color.
type LowerChart struct {
	Title, Solid, Light string
	Color               draw.Color
}

// MemoryBarsView is stacked bars against the GPU's capacity.
type MemoryBarsView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Headline      string     // the step's point, over the picture
	Bars          []MemoryBar
	Capacity      float64 // HBM bytes: a solid line across the bars
	Usable        float64 // what a job can fill: a dashed line (0: none)
	// Scale of the bars' axis in bytes (0: the larger of the tallest bar
	// and Capacity, with headroom).
	Max float64
	// Zoom > 0: a second panel shows the bars from 0 to Zoom bytes.
	Zoom  float64
	Lower LowerChart // a chart of each bar's Seconds under the bars (no Title: none)
	// Axis names what the bars stand at, under their labels ("" none):
	// sequence lengths, say, doubling bar to bar.
	Axis string
}

// BlockKind of a pipeline timeline block.
type BlockKind uint8

// Timeline block kinds.
const (
	BlockForward   BlockKind = iota // a forward pass of one (chunk of a) micro-batch
	BlockBackward                   // its backward pass
	BlockRecompute                  // the part of a backward that recomputes the forward (hatched)
	BlockComm                       // communication on the critical path (TP, PP sends)
	BlockDPComm                     // a data-parallel all-reduce bucket, on its own lane under the stage
	BlockOptimizer                  // the optimizer step
)

// TimelineBlock is one interval on a stage's row.
type TimelineBlock struct {
	Stage      int
	Kind       BlockKind
	MicroBatch int // shown as its number inside the block when wide enough; −1 for none
	Chunk      int // interleaved chunk (shade of the colour), else 0
	Start, End float64
	Hidden     bool // a DPComm block overlapped by compute (drawn lighter) rather than exposed
}

// Timeline is one schedule's run: stages as rows.
type Timeline struct {
	Label  string // e.g. "1F1B · 4 stages · 8 micro-batches", drawn at the left above the rows
	Note   string // drawn at the right above the rows: its time, say
	Stages int
	Blocks []TimelineBlock
	Length float64 // seconds: the row's right end
	// Memory over time per stage (optional): activation bytes held after
	// each block, as (time, bytes) steps, drawn as a small area chart
	// under the rows (stage 0 the most prominent).
	Memory [][]MemoryPoint
	// Sums (optional): the share 0…1 of the step's gradient summed so far,
	// as steps over time — up a micro-batch's worth at each backward, back
	// to nothing once the update has used it — drawn as a strip under the
	// rows, SumsNote at its right.
	Sums     []MemoryPoint
	SumsNote string
	// Unfit, when set, says that the plan does not fit its GPUs' memory
	// and by how much: the time line is drawn as not running — veiled
	// and hatched whole, no playhead over it, no words in its blocks —
	// with Unfit in a box over its rows.
	Unfit string
}

// MemoryPoint is a value from time T on.
type MemoryPoint struct {
	T     float64
	Bytes float64
}

// PipelineView is one or more timelines on one time axis (so GPipe, 1F1B
// and interleaved compare at a glance). Gaps on a row between 0 and the
// row's last block are bubbles: filled grey.
type PipelineView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Headline      string     // the step's point, over the picture
	Timelines     []Timeline
	// Replicas ≥ 2: a one-stage time line is drawn once a data-parallel
	// replica (up to maxReplicaRows rows, the last the last replica),
	// its all-reduce joining them.
	Replicas int
	// Phases: the first row's blocks say what they are (forward,
	// backward, update) and the all-reduce lane its name.
	Phases bool
	// Time is the playhead in seconds: blocks after it are drawn faint;
	// negative draws everything as done.
	Time float64
	// Span is the time axis' length (0: the longest timeline's Length).
	Span float64
	// Ref > 0: a dashed line across the rows at Ref seconds — another
	// configuration's step, to compare with (a time line's Note names it).
	Ref float64
	// ExpertComm: the communication bars hold a mixture of experts'
	// all-to-alls too (their key says TP / PP / EP).
	ExpertComm bool
	// ContextComm: they hold context parallelism's K/V traffic too.
	ContextComm bool
	// Cache, when set, keeps what is derived from Timelines between the
	// frames that draw them (nil: derived every call).
	Cache *PipelineCache
	// StageGPUs > 0: a click on a stage's row picks that stage's first
	// GPU (stage × StageGPUs, the zoom's way in); a replica's row picks
	// replica × ReplicaGPUs.
	StageGPUs, ReplicaGPUs int
}

// ClusterView is the cluster's GPUs in nodes and what each belongs to.
type ClusterView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Nodes         int        // nodes of GPUsPerNode GPUs
	GPUsPerNode   int
	TP, PP, DP    int // rank r: tp = r % TP, dp = (r / TP) % DP, pp = r / (TP·DP) (Megatron's order)
	// CP, context parallelism, between TP and DP in the order: its ranks
	// are drawn as DP's (gradients are reduced over DP × CP), the title
	// says it. 0 or 1: none.
	CP int
	// Colour GPUs by "tp" (their TP group), "pp" (their stage) or "dp"
	// (their replica).
	ColourBy string
	// Active collective, drawn on the links it uses: "tp" (inside each TP
	// group, on NVLink when the group is in one node), "pp" (stage to
	// stage), "dp" (across replicas), "" none. Progress 0…1 moves packets.
	Active   string
	Progress float64
	// The links, for the legend ("NVLink 4 450 GB/s") and the widths of
	// the lines: names, and bandwidths in bytes/s each way (0: unknown).
	IntraName, InterName string
	IntraBW, InterBW     float64
	// Headline says the active collective's link and times (made by the
	// caller from the engine's result), or, with Unfit, that the plan
	// cannot run (drawn in the hot colour); Time is the playhead on it,
	// seconds (negative: done), shown as the clock.
	Headline string
	Time     float64
	// The step the collective is part of: its time and its parts
	// (compute, tp, pp, dp, bubble, optimizer) as a bar, the active
	// collective's part outlined. None: no bar.
	Step  float64
	Parts []TimePart
	// Pending: the step asks about the collective's time, so the bar
	// waits for the answer.
	Pending bool
	// Unfit, when set, says that the plan does not fit its GPUs' memory
	// and by how much: the GPUs are drawn as not running — veiled and
	// hatched, no lit links, no packets, no clock, no step bar — with
	// Unfit in a box over them.
	Unfit string
}

// TPMatrixView is tensor parallelism inside one MLP: X·A split by columns
// into X·A1 | X·A2, GeLU, then by rows Y1·B1 + Y2·B2 = Z, joined by an
// all-reduce. Matrices are small with readable numbers.
type TPMatrixView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words  // its words in the reader's language (canvas.* keys)
	X             [][]float64 // b×h
	A1, A2        [][]float64 // h×(f/2) each: A split by columns
	Y1, Y2        [][]float64 // b×(f/2): GeLU(X·Ai)
	B1, B2        [][]float64 // (f/2)×h: B split by rows
	Z1, Z2, Z     [][]float64 // b×h: partial products and their sum
	// Phase 0…4: 0 the split, 1 the column-parallel products, 2 GeLU, 3
	// the row-parallel products, 4 the all-reduce Z = Z1 + Z2.
	Phase int
	// Part: 0 the whole MLP, 1 its first half (X·A cut by columns, GeLU),
	// 2 its second (Y·B cut by rows, the all-reduce).
	Part int
	// Headline is the step's point, over the matrices (made by the caller).
	Headline string
}

// PlanRow is one ranked plan of the search.
type PlanRow struct {
	Label    string  // "TP 8 PP 16 DP 128 v4 Z1 full b1"
	Step     float64 // seconds
	Parts    []TimePart
	Memory   float64 // bytes on the fullest GPU
	Selected bool
}

// TimePart is a slice of a step: compute, tp, pp, dp, bubble, optimizer.
type TimePart struct {
	Key     string
	Seconds float64
}

// DecisionNode is one question of the decision tree.
type DecisionNode struct {
	Question string // the question in the reader's language, with its numbers
	Answer   bool
	Taken    bool // on the path the model takes
}

// PlannerView is the decision tree with its branch lit and the ranked
// plans with their step-time breakdown and memory.
type PlannerView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Tree          []DecisionNode
	Branch        string // dp, tp-dp, tp-pp-dp: the leaf lit
	// Chosen is the leaf the search's chosen plan belongs to (by its TP
	// and PP; "": none), ringed and keyed with ChosenKey, so that a tree
	// lighting TP + PP + DP beside a best plan with no pipeline says so.
	Chosen, ChosenKey string
	Plans             []PlanRow
	Usable            float64 // bytes, for the memory column's scale
	// Note explains the plans' codes, under the table ("": none).
	Note string
}

// CardsView is a model's bytes poured into GPUs: a row a configuration,
// each a strip of cards of Card bytes (an 80 GB H100, say) filled in
// turn with the row's segments, and how many cards it takes.
type CardsView struct {
	Width, Height float32
	Stage         draw.Rect
	Scale         float32
	Theme         draw.Theme
	Words         draw.Words // its words in the reader's language (canvas.* keys)
	Headline      string     // the step's point, over the picture
	Card          float64
	// Slots: how many cards the scale holds (0: as many as the fullest
	// row needs) — the same in every step of a lesson, so a row's growth
	// shows.
	Slots int
	Rows  []CardsRow
	// Progress 0…1: how much of each row's pouring segments (from Pour
	// on) has arrived; the cards count what has.
	Progress float64
}

// CardsRow is one configuration's bytes.
type CardsRow struct {
	Label    string // over the strip
	Segments []MemorySegment
	Pour     int // the first segment still being poured (len(Segments): none)
	// An estimate rather than a sum: Bytes as a solid range, up to High
	// hatched ("800 GB – 1.2 TB"); Segments then unused.
	Bytes, High float64
	Estimate    string // its legend words
	// Hidden: the row's count is a question's answer, not given yet; its
	// cards stay empty under a "?".
	Hidden bool
}

// Segment colours of the memory bars: the Okabe–Ito palette (told apart
// with the common colour-vision deficiencies), its vermilion left out as
// it is too close to the themes' Hot, which marks bytes over the line.
var memoryKeys = [...]struct {
	key string
	col draw.Color
	say string // its catalogue key
}{
	{"weights", draw.Color{R: 0x56, G: 0xb4, B: 0xe9, A: 255}, "canvas.mem.weights"},         // sky blue
	{"gradients", draw.Color{R: 0x00, G: 0x9e, B: 0x73, A: 255}, "canvas.mem.gradients"},     // bluish green
	{"optimizer", draw.Color{R: 0xe6, G: 0x9f, B: 0x00, A: 255}, "canvas.mem.optimizer"},     // orange
	{"activations", draw.Color{R: 0xcc, G: 0x79, B: 0xa7, A: 255}, "canvas.mem.activations"}, // reddish purple
	{"buffers", draw.Color{R: 0x00, G: 0x72, B: 0xb2, A: 255}, "canvas.mem.buffers"},         // blue
}

// memoryColour is the fill of a memory segment by its Key; an unknown key
// is the theme's Dim.
func memoryColour(key string, th draw.Theme) draw.Color {
	for _, k := range memoryKeys {
		if k.key == key {
			return k.col
		}
	}
	return th.Dim
}

// overVeil is the alpha of the Hot veil over bytes above the line.
const overVeil = 110
