package parallel

import (
	"fmt"
	"math"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
)

// ZeROFetch is how ZeRO-3 brings a layer's weights in before they are
// used.
type ZeROFetch string

const (
	// FetchPrefetch gathers a layer's weights, one collective a layer,
	// while the layer before computes: PyTorch FSDP, fairscale, and
	// DeepSpeed from its coalesced gathers of late 2021 on. "" is this.
	FetchPrefetch ZeROFetch = "prefetch"
	// FetchBlocking is DeepSpeed's ZeRO-3 of 2021 (stage3.py and
	// partition_parameters.py, v0.3.13 to v0.5.x): each parameter is
	// gathered by its own call when its sub-module starts, the GPU
	// synchronised before the sub-module runs, and gathered again for
	// the recomputed forward (blockingZeRO3).
	FetchBlocking ZeROFetch = "blocking"
)

// ParseZeROFetch reads --zero-fetch.
func ParseZeROFetch(s string) (ZeROFetch, error) {
	switch ZeROFetch(s) {
	case "", FetchPrefetch:
		return FetchPrefetch, nil
	case FetchBlocking:
		return FetchBlocking, nil
	}
	return "", fmt.Errorf("zero-fetch: %q; allowed prefetch, blocking", s)
}

// blocking is whether p fetches ZeRO-3's weights as DeepSpeed did in 2021.
func (p Plan) blocking() bool { return p.ZeRO == 3 && p.ZeROFetch == FetchBlocking }

// DeepSpeed's ZeRO-3 defaults of 2021 (deepspeed/runtime/zero/constants.py,
// v0.3.13, 12a53b4, 16 March 2021), in elements.
const (
	// DSPersistenceThreshold: stage3_param_persistence_threshold. A
	// parameter smaller than this is gathered once after the optimizer
	// step and kept ("avoid tons of latency bound communication"):
	// biases and norms.
	DSPersistenceThreshold = 1e5
	// DSMaxReuseDistance: stage3_max_reuse_distance. A gathered parameter
	// is kept rather than released when the parameters the sub-modules
	// run before its next use hold fewer elements than this
	// (PartitionedParameterCoordinator.release_sub_module, _keep_for_later).
	DSMaxReuseDistance = 1e9
)

// ZeROTensor is one parameter tensor as DeepSpeed's ZeRO-3 of 2021 moves
// it each micro-batch: elements on one GPU before sharding over DP, and
// how many times it is gathered.
type ZeROTensor struct {
	Elements float64
	Gathers  int
}

// blockingTensors are the tensors of one layer that DeepSpeed's ZeRO-3
// gathers (those of DSPersistenceThreshold elements or more, TP's share):
// a dense layer's four matrices in Megatron's modules (query-key-value,
// the projection, the first feed-forward matrix with its gate, the
// second) and any bias of that size. Each is gathered when its
// sub-module's forward starts and when its backward starts (the pre-
// forward and pre-backward hooks, fetch_sub_module), and, with full
// recomputation, again when the recomputed forward runs it — unless the
// parameters run between that recomputed forward and its backward (the
// later tensors of the layer, forward then backward: twice their
// elements) number fewer than DSMaxReuseDistance, when it is kept: the
// layer's last matrix always, the others only in small models.
func blockingTensors(m model.Transformer, p Plan) []ZeROTensor {
	h, f := float64(m.Hidden), float64(m.FFNSize)
	T := float64(p.TP)
	d := float64(m.HeadDim())
	kv := math.Max(float64(m.KVHeads)/T, 1) * d
	qw := float64(m.Heads) * d
	ffnOut := 1.0
	if m.FFN.Gated() {
		ffnOut = 2
	}
	// Each matrix followed by its bias (Megatron's: the column-parallel
	// ones split over TP, the row-parallel ones whole).
	els := []float64{h * (qw/T + 2*kv), h * qw / T, ffnOut * h * f / T, h * f / T}
	if m.Biases {
		els = []float64{els[0], qw/T + 2*kv, els[1], h, els[2], ffnOut * f / T, els[3], h}
	}
	var ts []ZeROTensor
	for _, e := range els {
		if e >= DSPersistenceThreshold {
			ts = append(ts, ZeROTensor{Elements: e, Gathers: 2})
		}
	}
	if p.Recompute == RecomputeFull {
		for i := range ts {
			later := 0.0
			for _, t := range ts[i+1:] {
				later += t.Elements
			}
			if 2*later >= DSMaxReuseDistance {
				ts[i].Gathers = 3
			}
		}
	}
	return ts
}

// blockingCall is one collective of DeepSpeed's ZeRO-3 of 2021 over dc
// ranks, k of them a node, on bytes (the all-gather's output, the
// reduce-scatter's input): NCCL's time for it, and what torch.distributed
// adds around it. DeepSpeed passes both collectives a list of dc tensors,
// one a rank (_allgather_param, _reduce_scatter_gradient), and PyTorch's
// ProcessGroupNCCL of 2021 (torch/lib/c10d/ProcessGroupNCCL.cpp,
// allgather and reduce_scatter) copies between the list and one flat
// buffer tensor by tensor: after an all-gather into each of the dc
// outputs, before a reduce-scatter from each of the dc inputs — dc
// copies, each a kernel.LaunchOverhead at least, and the bytes read and
// written once. Before an all-gather DeepSpeed also zeroes the flat
// tensor it gathers into (torch.zeros), and before a reduce-scatter it
// divides the gradient by dc in place (average_tensor's div_): the bytes
// once more, and once more read and written.
func blockingCall(op collective.Op, bytes float64, dc, k int, cl Cluster) float64 {
	hbm := 2 * bytes // the copies: read and write
	if op == collective.AllGather {
		hbm += bytes // the zeroed flat tensor
	} else {
		hbm += 2 * bytes // the division
	}
	return ncclTime(op, bytes, dc, k, cl) + float64(dc)*kernel.LaunchOverhead + hbm/(cl.GPU.HBMBandwidth*MemoryEfficiency)
}

// blockingZeRO3 is the data-parallel time of one micro-batch under
// DeepSpeed's ZeRO-3 of 2021 (Plan.ZeROFetch blocking), over dc ranks, k
// a node, for a stage of layers layers and stageParams parameters on one
// GPU: every tensor of blockingTensors gathered as it says, each by its
// own call, and its gradient reduce-scattered by its own call
// (_reduce_scatter_gradients: one reduce_scatter a parameter, with
// contiguous_gradients as DeepSpeed's Megatron example sets it); the
// stage's other parameters (the embeddings) gathered forward and backward
// and reduced, one call each way. gradBytes is the bytes of a gradient
// element as reduced. None of it hides behind the compute: fetch_sub_module
// waits for the gathers and then synchronises the whole GPU
// (_synchronize_communication: torch.cuda.synchronize()) before the
// sub-module runs, which also waits for the reduce-scatters in flight;
// _allgather_param synchronises the GPU before every gather as well
// (DeepSpeed PR #1188, "the async version is not async at all"); the
// prefetch of the next parameter (stage3_prefetch_bucket_size, 5·10⁷
// elements: one matrix) was skipped from v0.3.14 (7 April 2021) by the
// trace's step id being one off (issue #1069, 27 May 2021) — before that,
// in v0.3.13, one parameter could be gathered while one sub-module ran,
// which this does not count.
func blockingZeRO3(m model.Transformer, p Plan, cl Cluster, dc, k, layers int, stageParams, gradBytes float64) float64 {
	ts := blockingTensors(m, p)
	var perLayer, layerEls float64
	for _, t := range ts {
		perLayer += float64(t.Gathers)*blockingCall(collective.AllGather, 2*t.Elements, dc, k, cl) +
			blockingCall(collective.ReduceScatter, gradBytes*t.Elements, dc, k, cl)
		layerEls += t.Elements
	}
	total := float64(layers) * perLayer
	if rest := stageParams - float64(layers)*layerEls; rest >= DSPersistenceThreshold {
		// The embeddings: what the stage holds beyond its layers' gathered
		// tensors (the layers' persistent biases and norms too, a few
		// elements in a thousand of it).
		total += 2*blockingCall(collective.AllGather, 2*rest, dc, k, cl) + blockingCall(collective.ReduceScatter, gradBytes*rest, dc, k, cl)
	}
	return total
}
