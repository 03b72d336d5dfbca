package parallel

import "fmt"

// BlockKind is what a pipeline block does.
type BlockKind string

// Block kinds.
const (
	Forward  BlockKind = "forward"
	Backward BlockKind = "backward" // includes recomputation
	SendF    BlockKind = "send-forward"
	SendB    BlockKind = "send-backward"
)

// Block is one interval of the pipeline timeline.
type Block struct {
	Stage      int       `json:"stage"`
	Chunk      int       `json:"chunk"` // model chunk on the stage (interleaved), else 0
	MicroBatch int       `json:"micro_batch"`
	Kind       BlockKind `json:"kind"`
	Start      float64   `json:"start_s"`
	End        float64   `json:"end_s"`
}

// Timeline is a pipeline schedule run to completion.
type Timeline struct {
	Schedule Schedule `json:"schedule"`
	Stages   int      `json:"stages"`
	Micro    int      `json:"micro_batches"`
	Chunks   int      `json:"chunks"`
	Blocks   []Block  `json:"blocks"` // compute blocks in each stage's order, then sends
	Length   float64  `json:"length_s"`
	// Ideal is m·(f + b) on the slowest stage: the time without fill and
	// drain; Bubble is Length − Ideal.
	Ideal  float64 `json:"ideal_s"`
	Bubble float64 `json:"bubble_s"`
	// PeakInFlight is, per stage, the most chunk-micro-batches whose
	// forward has run and whose backward has not.
	PeakInFlight []int `json:"peak_in_flight"`
}

// BuildTimeline runs a schedule for p stages, m micro-batches and v
// chunks a stage (v = 1 except interleaved), where a whole micro-batch
// takes fwd[st] forward and bwd[st] backward on stage st (a chunk 1/v of
// it) and a send between stages takes p2p. Each stage runs its blocks in
// the schedule's order, a block starting when the stage is free and its
// input has arrived: a forward needs the previous virtual stage's forward
// of the same micro-batch, a backward the next one's backward.
func BuildTimeline(s Schedule, p, m, v int, fwd, bwd []float64, p2p float64) (Timeline, error) {
	tl := Timeline{Schedule: s, Stages: p, Micro: m, Chunks: v}
	switch {
	case p < 1 || m < 1 || v < 1:
		return tl, fmt.Errorf("pp, micro-batches, interleave: %d, %d, %d; each at least 1", p, m, v)
	case len(fwd) != p || len(bwd) != p:
		return tl, fmt.Errorf("stage times: %d and %d, want %d", len(fwd), len(bwd), p)
	case s == Interleaved && m%p != 0:
		return tl, fmt.Errorf("micro-batches: %d must be a multiple of pp %d for the interleaved schedule", m, p)
	case s != Interleaved && v != 1:
		return tl, fmt.Errorf("interleave: %d needs the interleaved schedule", v)
	case p*m*v > 1<<20:
		return tl, fmt.Errorf("pp × micro-batches × interleave: %d; at most 1048576 blocks", p*m*v)
	}
	type op struct {
		f         bool
		mb, chunk int
	}
	orders := make([][]op, p)
	for st := range p {
		var o []op
		switch s {
		case GPipe:
			for i := range m {
				o = append(o, op{true, i, 0})
			}
			for i := range m {
				o = append(o, op{false, i, 0})
			}
		case OneFOneB:
			w := min(p-st-1, m)
			for i := range w {
				o = append(o, op{true, i, 0})
			}
			for k := 0; k < m-w; k++ {
				o = append(o, op{true, w + k, 0}, op{false, k, 0})
			}
			for k := m - w; k < m; k++ {
				o = append(o, op{false, k, 0})
			}
		case Interleaved:
			// Megatron-LM's order: micro-step k runs micro-batch
			// (k ÷ pv)·p + k mod p on chunk (k ÷ p) mod v, backwards on the
			// chunks in reverse.
			total := m * v
			at := func(k int, forward bool) op {
				g, in := k/(p*v), k%(p*v)
				c := in / p
				if !forward {
					c = v - 1 - c
				}
				return op{forward, g*p + in%p, c}
			}
			w := min(2*(p-st-1)+(v-1)*p, total)
			for k := range w {
				o = append(o, at(k, true))
			}
			for k := 0; k < total-w; k++ {
				o = append(o, at(w+k, true), at(k, false))
			}
			for k := total - w; k < total; k++ {
				o = append(o, at(k, false))
			}
		default:
			return tl, fmt.Errorf("schedule: %q; allowed gpipe, 1f1b, interleaved", s)
		}
		orders[st] = o
	}
	// End times of forward and backward by (virtual stage, micro-batch);
	// −1 until run.
	pv := p * v
	fEnd := make([]float64, pv*m)
	bEnd := make([]float64, pv*m)
	for i := range fEnd {
		fEnd[i], bEnd[i] = -1, -1
	}
	next := make([]int, p)
	free := make([]float64, p)
	inFlight := make([]int, p)
	tl.PeakInFlight = make([]int, p)
	var sends []Block
	remaining := 0
	for _, o := range orders {
		remaining += len(o)
	}
	for remaining > 0 {
		progressed := false
		for st := range p {
			for next[st] < len(orders[st]) {
				o := orders[st][next[st]]
				vs := o.chunk*p + st
				ready := free[st]
				if o.f {
					if vs > 0 {
						e := fEnd[(vs-1)*m+o.mb]
						if e < 0 {
							break
						}
						ready = max(ready, e+p2p)
					}
				} else {
					if vs < pv-1 {
						e := bEnd[(vs+1)*m+o.mb]
						if e < 0 {
							break
						}
						ready = max(ready, e+p2p)
					}
					ready = max(ready, fEnd[vs*m+o.mb])
				}
				d := bwd[st] / float64(v)
				kind := Backward
				if o.f {
					d, kind = fwd[st]/float64(v), Forward
				}
				b := Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: kind, Start: ready, End: ready + d}
				tl.Blocks = append(tl.Blocks, b)
				free[st] = b.End
				if o.f {
					fEnd[vs*m+o.mb] = b.End
					inFlight[st]++
					tl.PeakInFlight[st] = max(tl.PeakInFlight[st], inFlight[st])
					if vs < pv-1 && p2p > 0 {
						sends = append(sends, Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: SendF, Start: b.End, End: b.End + p2p})
					}
				} else {
					bEnd[vs*m+o.mb] = b.End
					inFlight[st]--
					if vs > 0 && p2p > 0 {
						sends = append(sends, Block{Stage: st, Chunk: o.chunk, MicroBatch: o.mb, Kind: SendB, Start: b.End, End: b.End + p2p})
					}
				}
				tl.Length = max(tl.Length, b.End)
				next[st]++
				remaining--
				progressed = true
			}
		}
		if !progressed {
			return tl, fmt.Errorf("schedule: %s deadlocks for pp %d, micro-batches %d, interleave %d", s, p, m, v)
		}
	}
	tl.Blocks = append(tl.Blocks, sends...)
	slow := 0.0
	for st := range p {
		slow = max(slow, fwd[st]+bwd[st])
	}
	tl.Ideal = float64(m) * slow
	tl.Bubble = tl.Length - tl.Ideal
	return tl, nil
}

// Timeline is the plan's pipeline schedule with its stages' times per
// micro-batch (TP communication counted with the compute it interrupts).
func (r Result) Timeline() (Timeline, error) {
	p := r.Config.Plan
	fwd := make([]float64, len(r.StageForward))
	bwd := make([]float64, len(r.StageBackward))
	for i := range fwd {
		// Each block with its TP collectives (full recomputation's
		// forward all-reduces run with the backward).
		fwd[i] = r.StageForward[i] + r.StageTPForward[i]
		bwd[i] = r.StageBackward[i] + r.StageTP[i] - r.StageTPForward[i]
	}
	return BuildTimeline(p.Schedule, p.PP, r.MicroBatches, p.Interleave, fwd, bwd, r.P2P)
}
