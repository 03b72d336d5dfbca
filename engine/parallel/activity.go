package parallel

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
)

// What one GPU does at one moment of a step, for the zoom (issue 21):
// its pipeline stage by Megatron's rank order (TP fastest, then CP, DP,
// PP), the time line's block on that stage at the moment, and inside a
// forward or a backward the layer and the kernel by the cumulative time
// of the block's kernels in the order they run.

// Span is one kernel of a block as run: its name and kind (Kernel's) and
// its times on the step's clock.
type Span struct {
	Name  string  `json:"name"`
	Kind  string  `json:"kind"`
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
}

// Activity is one GPU at one moment.
type Activity struct {
	GPU    int     `json:"gpu"`
	Stage  int     `json:"stage"`
	TPRank int     `json:"tp_rank"`
	CPRank int     `json:"cp_rank"`
	DPRank int     `json:"dp_rank"`
	Time   float64 `json:"time_s"`
	// Kind is the stage's block at the moment: forward, backward, an
	// exposed all-reduce, the optimizer; "" when the GPU waits (the
	// pipeline's bubble, or the step is over).
	Kind       BlockKind `json:"kind"`
	MicroBatch int       `json:"micro_batch"`
	Chunk      int       `json:"chunk"`
	BlockStart float64   `json:"block_start_s"`
	BlockEnd   float64   `json:"block_end_s"`
	// Layer is the model's layer (0-based) whose kernel runs, −1 outside
	// a layer (the output head, a collective of the step, waiting);
	// Layers the model's layers (its MTP modules' included).
	Layer  int `json:"layer"`
	Layers int `json:"layers"`
	// Kernel is the kernel at the moment (Name "" where none runs or
	// where the model's kernels are not listed: Detail says why), from
	// KernelStart to KernelEnd; Spans are the kernels of the same layer
	// (or of the output head) in the order this block runs them.
	Kernel      Kernel  `json:"kernel"`
	KernelStart float64 `json:"kernel_start_s"`
	KernelEnd   float64 `json:"kernel_end_s"`
	Spans       []Span  `json:"spans,omitempty"`
	// HiddenAllReduce: a data-parallel bucket is on the network under
	// this compute; Sending: the stage's pipeline send in flight.
	HiddenAllReduce bool      `json:"hidden_all_reduce,omitempty"`
	Sending         BlockKind `json:"sending,omitempty"`
	// The send's and the hidden all-reduce's blocks, when in flight.
	SendStart, SendEnd           float64 `json:"-"`
	AllReduceStart, AllReduceEnd float64 `json:"-"`
	Detail                       string  `json:"detail,omitempty"`
}

// Kernel names outside a transformer layer.
const (
	KernelHead    = "head"     // the output layer's logits product
	KernelLoss    = "loss"     // the cross-entropy over the logits
	KernelMTPProj = "mtp_proj" // a multi-token-prediction module's projection
)

// StepActivity answers Activity for a plan's step: the time line's
// blocks by stage and one layer's kernels, worked out once.
type StepActivity struct {
	r       Result
	tl      Timeline
	fwd     []Kernel // one dense layer's kernels in forward order, halves where a kernel runs twice a layer
	bwd     []Kernel // … in backward order
	moeF    []Kernel // a mixture of experts' MoE layer's, forward (its dense layers run fwd)
	moeB    []Kernel
	head    []Kernel // the last chunk's output head (and MTP modules), forward
	headB   []Kernel
	detail  string // why the layer's kernels are not listed
	byStage [][]Block
	aux     [][]Block  // sends and all-reduces, by stage
	split   layerSplit // the stages' layers
}

// NewStepActivity prepares the activity of r's step as tl draws it
// (r.Timeline()).
func NewStepActivity(r Result, tl Timeline) (*StepActivity, error) {
	c := r.Config
	p := c.Plan
	if tl.Stages != p.PP || len(tl.Blocks) == 0 {
		return nil, fmt.Errorf("activity: the time line has %d stages and %d blocks, the plan %d stages", tl.Stages, len(tl.Blocks), p.PP)
	}
	a := &StepActivity{r: r, tl: tl, byStage: make([][]Block, p.PP), aux: make([][]Block, p.PP)}
	var err error
	a.split, err = p.layerSplit(c.Model)
	if err != nil {
		return nil, err
	}
	for _, b := range tl.Blocks {
		if b.Stage < 0 || b.Stage >= p.PP {
			continue
		}
		if b.Kind == Forward || b.Kind == Backward || (b.Kind == AllReduce && !b.Hidden) || b.Kind == Optimizer {
			a.byStage[b.Stage] = append(a.byStage[b.Stage], b)
		} else {
			a.aux[b.Stage] = append(a.aux[b.Stage], b)
		}
	}
	for _, bs := range a.byStage {
		// In start order (a stage's blocks come nearly so: insertion).
		for i := 1; i < len(bs); i++ {
			for j := i; j > 0 && bs[j].Start < bs[j-1].Start; j-- {
				bs[j], bs[j-1] = bs[j-1], bs[j]
			}
		}
	}
	ks, err := denseKernels(c)
	if err != nil {
		a.detail = err.Error()
	} else {
		a.fwd, a.bwd = runOrder(ks)
	}
	if c.Model.MoE() {
		if ks, err = MoELayerKernels(c); err != nil {
			a.detail = err.Error()
		} else {
			a.moeF, a.moeB = runOrder(ks)
		}
	}
	cl := c.Cluster.perGPU()
	cl.GPU = sustained(cl.GPU)
	hd := headOf(c.Model, p, cl)
	k := float64(c.Model.MTPLayers)
	if k > 0 {
		f, b, _ := mtpProjection(c.Model, p, cl)
		a.head = append(a.head, Kernel{Name: KernelMTPProj, Kind: KernelGEMM, M: hd.n, N: float64(c.Model.Hidden) / float64(p.TP), K: 2 * float64(c.Model.Hidden), ForwardS: k * f, BackwardS: k * b})
	}
	a.head = append(a.head,
		Kernel{Name: KernelHead, Kind: KernelGEMM, M: hd.n, N: hd.v, K: hd.h, ForwardS: (k + 1) * hd.gemmF, BackwardS: (k + 1) * hd.gemmB},
		Kernel{Name: KernelLoss, Kind: KernelMemory, ForwardS: (k + 1) * hd.lossF, BackwardS: (k + 1) * hd.lossB})
	for i := len(a.head) - 1; i >= 0; i-- {
		a.headB = append(a.headB, a.head[i])
	}
	return a, nil
}

// runOrder is a layer's kernels (LayerKernels' list) in the order a
// forward runs them — the first norm, the attention's projections, CP's
// K/V exchange, the attention core, the output projection, TP's first
// all-reduce; the second norm, the MLP's products (an MoE layer's shared
// experts, then the router, the dispatch, the routed experts' products
// with the permutation and SwiGLU between them, the combine), TP's second
// all-reduce — and the order the backward runs them: recomputation
// first, then the forward's reversed. The elementwise passes, the FP8
// quantization passes and TP's all-reduces run twice a layer: each is
// listed as two halves.
func runOrder(ks []Kernel) (fwd, bwd []Kernel) {
	// The forward's order by name; "" stands for the attention's
	// products before the output projection (one to four of them), a
	// trailing '/' for a kernel that runs twice (a half each time).
	var order []Kernel
	for _, name := range [...]string{"elementwise/", "quantize/", "", "cp_kv", "attention", "out", "tp_allreduce/",
		"elementwise/", "quantize/", "up", "down", KernelRouter, KernelDispatch, KernelExpertsUp, KernelPermute, KernelExpertsDown,
		KernelCombine, "tp_allreduce/"} {
		half := strings.HasSuffix(name, "/")
		name = strings.TrimSuffix(name, "/")
		for _, k := range ks {
			proj := name == "" && strings.Contains(" qkv q q_down q_up kv_down kv_up ", " "+k.Name+" ")
			if k.Name != name && !proj {
				continue
			}
			if half {
				k.ForwardS, k.BackwardS = k.ForwardS/2, k.BackwardS/2
			}
			order = append(order, k)
		}
	}
	for _, k := range order {
		if k.ForwardS > 0 {
			fwd = append(fwd, k)
		}
	}
	for _, k := range ks {
		if k.Name == "recompute" {
			bwd = append(bwd, k)
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if order[i].BackwardS > 0 {
			bwd = append(bwd, order[i])
		}
	}
	return fwd, bwd
}

// GPUs is how many GPUs the plan places: TP × CP × DP × PP.
func (a *StepActivity) GPUs() int {
	p := a.r.Config.Plan
	return p.TP * p.cp() * p.DP * p.PP
}

// Ranks are GPU g's stage and its TP, CP and DP ranks (rank order TP,
// CP, DP, PP: g = ((stage·DP + dp)·CP + cp)·TP + tp).
func (a *StepActivity) Ranks(g int) (stage, tp, cp, dp int) {
	p := a.r.Config.Plan
	cpn := p.cp()
	return g / (p.TP * cpn * p.DP), g % p.TP, (g / p.TP) % cpn, (g / (p.TP * cpn)) % p.DP
}

// chunkLayers are the first model layer and the layer count of model
// chunk q (stage q mod PP, chunk q div PP): Megatron's interleaved
// assignment, the first and last chunks a layer short under Llama 3's
// (L+2)-layer split, each stage's chunks its own count ÷ v in an uneven
// split (layerSplit.chunk, as denseOnStage counts them).
func (a *StepActivity) chunkLayers(q int) (first, n int) {
	p := a.r.Config.Plan
	chunks := p.PP * max(p.Interleave, 1)
	for c := 0; c <= q && c < chunks; c++ {
		sz := a.split.chunk(c)
		if c == q {
			return first, sz
		}
		first += sz
	}
	return first, 0
}

// At is GPU g at time t (seconds on the step's clock). A GPU outside
// the plan is an error naming the allowed range.
func (a *StepActivity) At(g int, t float64) (Activity, error) {
	n := a.GPUs()
	if g < 0 || g >= n {
		return Activity{}, errs.F("hf_range", "%s: %d; allowed %d–%d (the plan's %d GPUs)", "name n lo hi", "gpu", g, 0, n-1, n)
	}
	m := a.r.Config.Model
	act := Activity{GPU: g, Time: t, Layer: -1, Layers: trainedLayers(m), MicroBatch: -1}
	act.Stage, act.TPRank, act.CPRank, act.DPRank = a.Ranks(g)
	blocks := a.byStage[act.Stage]
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].End > t })
	for _, b := range a.aux[act.Stage] {
		if b.Start <= t && t < b.End {
			switch b.Kind {
			case AllReduce:
				act.HiddenAllReduce = true
				act.AllReduceStart, act.AllReduceEnd = b.Start, b.End
			case SendF, SendB:
				act.Sending = b.Kind
				act.SendStart, act.SendEnd = b.Start, b.End
			}
		}
	}
	if i == len(blocks) || blocks[i].Start > t {
		return act, nil // waiting
	}
	b := blocks[i]
	act.Kind, act.MicroBatch, act.Chunk, act.BlockStart, act.BlockEnd = b.Kind, b.MicroBatch, b.Chunk, b.Start, b.End
	if b.Kind != Forward && b.Kind != Backward {
		return act, nil
	}
	if a.fwd == nil || a.r.Config.Model.MoE() && a.moeF == nil {
		act.Detail = a.detail
		return act, nil
	}
	w := a.walk(b)
	if w.total <= 0 || b.End <= b.Start {
		return act, nil
	}
	// The block's kernels scaled to the block: exact when its layers are
	// the stage's (one chunk a stage) and no all-to-all hides beside
	// them; with interleaving a chunk the first or last a layer short
	// still takes 1/v of the stage's time on the time line, and under
	// DeepSeek's overlap the products run slower beside the hidden
	// all-to-alls.
	scale := (b.End - b.Start) / w.total
	u := (t - b.Start) / scale
	// Forward: the chunk's layers, then the head; backward: the head,
	// then the layers from the last.
	list, from := w.head, 0.0
	if b.Kind == Forward {
		from = w.total - w.headS
	}
	if w.head == nil || b.Kind == Forward && u < w.total-w.headS || b.Kind == Backward && u >= w.headS {
		off := 0.0
		if b.Kind == Backward {
			off = w.headS
		}
		for j := 0; j < w.count; j++ {
			l := w.first + j
			if b.Kind == Backward {
				l = w.first + w.count - 1 - j
			}
			ks := a.layerList(l, b.Kind)
			d := sumOf(ks, b.Kind)
			if u < off+d || j == w.count-1 {
				list, from, act.Layer = ks, off, l
				break
			}
			off += d
		}
	}
	dur := func(k Kernel) float64 { return k.ForwardS }
	if b.Kind == Backward {
		dur = func(k Kernel) float64 { return k.BackwardS }
	}
	at := b.Start + from*scale
	act.Spans = make([]Span, 0, len(list))
	for _, k := range list {
		end := at + dur(k)*scale
		act.Spans = append(act.Spans, Span{Name: k.Name, Kind: k.Kind, Start: at, End: end})
		if act.Kernel.Name == "" && t < end {
			act.Kernel, act.KernelStart, act.KernelEnd = k, at, end
		}
		at = end
	}
	if act.Kernel.Name == "" && len(list) > 0 { // rounding at the block's end
		k := list[len(list)-1]
		s := act.Spans[len(act.Spans)-1]
		act.Kernel, act.KernelStart, act.KernelEnd = k, s.Start, s.End
	}
	return act, nil
}

// layerList is layer l's kernels in the order a block of kind runs them:
// a dense layer's, or a mixture's MoE layer's (model.MoELayer).
func (a *StepActivity) layerList(l int, kind BlockKind) []Kernel {
	moe := a.r.Config.Model.MoELayer(l)
	switch {
	case moe && kind == Backward:
		return a.moeB
	case moe:
		return a.moeF
	case kind == Backward:
		return a.bwd
	}
	return a.fwd
}

// sumOf is ks' time in a block of kind.
func sumOf(ks []Kernel, kind BlockKind) float64 {
	var s float64
	for _, k := range ks {
		if kind == Backward {
			s += k.BackwardS
		} else {
			s += k.ForwardS
		}
	}
	return s
}

// blockWalk is what a forward or backward block runs: its chunk's
// layers (first, count) and, on the model's last chunk, the head; their
// kernels' time in all, unscaled.
type blockWalk struct {
	first, count int
	head         []Kernel // nil but on the last chunk
	headS, total float64
}

func (a *StepActivity) walk(b Block) blockWalk {
	p := a.r.Config.Plan
	q := b.Chunk*p.PP + b.Stage
	var w blockWalk
	w.first, w.count = a.chunkLayers(q)
	if q == p.PP*max(p.Interleave, 1)-1 {
		w.head = a.head
		if b.Kind == Backward {
			w.head = a.headB
		}
		w.headS = sumOf(w.head, b.Kind)
	}
	w.total = w.headS
	for l := w.first; l < w.first+w.count; l++ {
		w.total += sumOf(a.layerList(l, b.Kind), b.Kind)
	}
	return w
}

// scale is how a forward or backward block's duration compares with its
// kernels' sum (1 where the block is its kernels exactly): for tests.
func (a *StepActivity) scale(b Block) float64 { return (b.End - b.Start) / a.walk(b).total }

// Counts are the work of the kernel an Activity names, as the silicon
// layer counts it: its FLOPs, the bytes it moves through HBM and through
// shared memory, its time and what bounds it, and the GPU's roof in its
// dtype (at the sustained clock the step is timed at). A matrix
// product's tiling is GEMM (backward: the dX product's; the dW product
// is counted in the totals). Memory-bound passes have bytes and no
// FLOPs; a collective none of these (Comm).
type Counts struct {
	FLOPs     float64            `json:"flops"`
	HBMBytes  float64            `json:"hbm_bytes"`
	SmemBytes float64            `json:"smem_bytes"`
	TimeS     float64            `json:"time_s"`
	Bound     string             `json:"bound,omitempty"`
	Dtype     hw.Dtype           `json:"dtype"`
	Peak      float64            `json:"peak_flops"`
	BW        float64            `json:"hbm_bandwidth"`
	GEMM      *kernel.GEMMResult `json:"-"`
	WGrad     *kernel.GEMMResult `json:"-"` // backward: the weights' gradient's product, after GEMM's
	// Products is how many products of GEMM's shape the kernel runs: the
	// GPU's E ÷ EP experts for a routed expert's, the MTP modules' heads
	// and projections with the model's, else 1.
	Products int  `json:"products,omitempty"`
	Comm     bool `json:"comm,omitempty"`
}

// Counts are act's kernel's counts; false where none runs.
func (a *StepActivity) Counts(act Activity) (Counts, bool) {
	k := act.Kernel
	if k.Name == "" {
		return Counts{}, false
	}
	c := a.r.Config
	p := c.Plan
	g := sustained(c.Cluster.GPU)
	dt := p.matmul()
	if k.Name == KernelHead {
		dt = p.headDtype()
	}
	block := dt == fp8Block
	if block {
		dt = hw.FP8
	}
	out := Counts{Dtype: dt, BW: g.HBMBandwidth, TimeS: act.KernelEnd - act.KernelStart}
	out.Peak, _ = g.PeakFLOPS(dt)
	back := act.Kind == Backward
	switch k.Kind {
	case KernelGEMM:
		out.Products = 1
		switch k.Name {
		case KernelExpertsUp, KernelExpertsDown:
			out.Products = c.Model.Experts / p.ep()
		case KernelHead:
			out.Products = 1 + c.Model.MTPLayers // the model's output and each MTP module's
		case KernelMTPProj:
			out.Products = c.Model.MTPLayers
		}
		shapes := [][3]float64{{k.M, k.N, k.K}}
		if back {
			shapes = [][3]float64{{k.M, k.K, k.N}, {k.K, k.N, k.M}} // dX, dW
		}
		for i, s := range shapes {
			r, err := kernel.GEMM(kernel.GEMMConfig{M: max(1, int(math.Round(s[0]))), N: max(1, int(math.Round(s[1]))), K: max(1, int(math.Round(s[2]))),
				Dtype: dt, GPU: g, Kernel: kernel.TensorTiled, BlockScaled: block})
			if err != nil {
				return Counts{}, false
			}
			n := float64(out.Products)
			out.FLOPs += n * r.FLOPs
			out.HBMBytes += n * r.HBMBytes
			out.SmemBytes += n * r.SmemBytes
			rr := r
			if i == 0 {
				out.GEMM, out.Bound = &rr, r.Bound
			} else {
				out.WGrad = &rr
			}
		}
	case KernelAttention:
		m := c.Model
		impl := p.attentionImpl()
		r, err := kernel.Attention(p.attentionConfig(m, g, dt))
		if err != nil {
			return Counts{}, false
		}
		f := 1 / float64(p.cp())
		if back {
			f *= impl.BackwardFLOPs()
		}
		out.FLOPs, out.HBMBytes, out.Bound, out.Dtype = r.WorkFLOPs*f, r.HBMBytes*f, "compute", attDtype(dt)
		out.Peak, _ = g.PeakFLOPS(out.Dtype)
		if r.MemoryS > r.ComputeS {
			out.Bound = "memory"
		}
	case KernelMemory, KernelRecompute:
		if k.Kind == KernelRecompute {
			return out, true // the forward's kernels again: their counts are theirs
		}
		out.HBMBytes, out.Bound = out.TimeS*g.HBMBandwidth*MemoryEfficiency, "memory"
	case KernelCollective:
		out.Comm = true
	}
	return out, true
}
