package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Llama 3 405B's 131,072-token row (TP 8, CP 16, PP 16, DP 8 on 16,384
// H100s): one layer's K/V exchange as the lesson draws it, worked by
// hand, and the same as the step's costing.
func TestCPLayerForwardLlama3(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	m.Seq = 131072
	h100, _ := hw.GPUByID("h100")
	c := Config{Model: m, Cluster: DefaultCluster(h100, 16384), Plan: Plan{TP: 8, CP: 16, PP: 16, DP: 8, Interleave: 1, SP: true,
		ZeRO: 1, Recompute: RecomputeFull, Flash: true, MicroBatch: 1, GlobalBatch: 128, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}}
	l := CPLayerForward(c)
	// 8 KV heads over TP 8: one a GPU, 128 wide; K and V, 2 bytes, for
	// all 131,072 tokens.
	if want := 131072.0 * 2 * 128 * 2; l.KVBytes != want || l.CP != 16 {
		t.Errorf("K/V bytes %g (CP %d), want %g", l.KVBytes, l.CP, want)
	}
	if l.Attention <= 0 || l.AllGather <= 0 || l.Send <= 0 {
		t.Fatalf("%+v", l)
	}
	if l.ExposedAllGather != l.AllGather {
		t.Errorf("all-gather exposes %g of its %g", l.ExposedAllGather, l.AllGather)
	}
	if want := 15 * math.Max(0, l.Send-l.Attention/16); math.Abs(l.ExposedRing-want) > 1e-15 {
		t.Errorf("ring exposes %g, want %g", l.ExposedRing, want)
	}
	// TP 8 fills a node: the CP ranks are on 16 nodes, each block over
	// the NIC (50 GB/s at its efficiency, 5 µs).
	ib := c.Cluster.Inter
	if want := ib.Latency.Seconds() + l.KVBytes/16/(ib.Bandwidth*ib.Efficiency); math.Abs(l.Send-want) > 1e-15 {
		t.Errorf("send %g, want %g", l.Send, want)
	}
	// Without CP there is nothing to exchange.
	c.Plan.CP, c.Plan.DP = 1, 128
	if l := CPLayerForward(c); l.KVBytes != 0 || l.CP != 1 {
		t.Errorf("CP 1: %+v", l)
	}
	t.Logf("attention %.3g s, all-gather %.3g s, send %.3g s", l.Attention, l.AllGather, l.Send)
}
