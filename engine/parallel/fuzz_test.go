package parallel

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// fuzzModel is a preset by index, or (past the last preset) a custom
// shape from the fuzzed sizes.
func fuzzModel(idx uint8, layers, hidden, heads, kv, seq, vocab, ffn int, gelu bool) model.Transformer {
	ids := model.PresetIDs()
	if int(idx)%(len(ids)+1) < len(ids) {
		m, _ := model.Preset(ids[int(idx)%(len(ids)+1)])
		return m
	}
	m := model.Transformer{ID: "custom", Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv, Seq: seq,
		Vocab: vocab, FFNSize: ffn, FFN: model.SwiGLU}
	if gelu {
		m.FFN, m.Biases, m.LearnedPositions, m.Tied = model.GeLU, true, true, true
	}
	return m
}

// pick is s[i mod (len(s)+1)], or bad past the end: the fuzzer reaches
// every listed value and one that Validate must refuse.
func pick[T any](s []T, i uint8, bad T) T {
	if j := int(i) % (len(s) + 1); j < len(s) {
		return s[j]
	}
	return bad
}

// checkResult fails t unless every number in r is finite and
// non-negative, and the totals are the sums of their parts.
func checkResult(t *testing.T, r Result) {
	t.Helper()
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Float64:
			if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				t.Errorf("%s = %g, want finite and ≥ 0", path, f)
			}
		case reflect.Int:
			if v.Int() < 0 {
				t.Errorf("%s = %d, want ≥ 0", path, v.Int())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
			}
		}
	}
	rv := reflect.ValueOf(r)
	for i := range rv.NumField() {
		if f := rv.Type().Field(i); f.Name != "Config" { // the input
			walk(f.Name, rv.Field(i))
		}
	}
	checkSums(t, r)
}

// relEq compares a total with the sum of its parts within 1e-9 relative
// (absolute for totals near 0).
func relEq(total, sum float64) bool {
	return math.Abs(total-sum) <= 1e-9*math.Max(math.Abs(total), math.Abs(sum))+1e-300
}

// checkSums checks the identities Evaluate's types document: a GPU's
// bytes are weights + gradients + optimizer + activations + buffers (and
// Over is what passes the usable bytes); the step is compute + bubble +
// exposed communication + optimizer, the exposed communication TP + EP +
// PP + DP − the hidden part, which never exceeds DP; the reported GPU is the
// stage with the most bytes.
func checkSums(t *testing.T, r Result) {
	t.Helper()
	mems := append([]Memory{r.Memory}, r.StageMemory...)
	for i, m := range mems {
		if s := m.Weights + m.Gradients + m.Optimizer + m.Activations + m.Buffers; !relEq(m.Total, s) {
			t.Errorf("memory %d: total %g, parts sum to %g", i, m.Total, s)
		}
		if m.Fits != (m.Total <= m.Usable) || (!m.Fits && !relEq(m.Over, m.Total-m.Usable)) || (m.Fits && m.Over != 0) {
			t.Errorf("memory %d: total %g, usable %g, fits %v, over %g", i, m.Total, m.Usable, m.Fits, m.Over)
		}
		if r.Memory.Total < m.Total {
			t.Errorf("memory: the reported GPU holds %g, stage %d holds %g", r.Memory.Total, m.Stage, m.Total)
		}
	}
	tm := r.Time
	if s := tm.Compute + tm.Bubble + tm.Exposed + tm.Optimizer; !relEq(tm.Step, s) {
		t.Errorf("step %g s, parts sum to %g", tm.Step, s)
	}
	if s := tm.TPComm + tm.EPComm + tm.CPComm + tm.PPComm + tm.DPComm - tm.DPHidden + tm.NICShared; !relEq(tm.Exposed, s) {
		t.Errorf("exposed communication %g s, TP + EP + CP + PP + DP − hidden + NIC sharing = %g", tm.Exposed, s)
	}
	if tm.NICShared < 0 || r.NICSharing < 0 || r.NICSharing > 1 || (tm.NICShared > 0) != (r.NICSharing > 0 && tm.NICShared > 0) {
		t.Errorf("NIC sharing %g, %g s", r.NICSharing, tm.NICShared)
	}
	if tm.DPHidden > tm.DPComm*(1+1e-12) {
		t.Errorf("%g s of DP communication hidden, of %g", tm.DPHidden, tm.DPComm)
	}
	if r.MFU > r.HFU*(1+1e-12) || r.ModelFLOPs > r.HardwareFLOPs*(1+1e-12) {
		t.Errorf("MFU %g above HFU %g (model FLOPs %g, hardware %g)", r.MFU, r.HFU, r.ModelFLOPs, r.HardwareFLOPs)
	}
}

// FuzzEvaluate: any plan is refused by Validate or evaluated to finite,
// non-negative numbers whose totals add up; Evaluate never panics and
// refuses exactly what Validate refuses.
func FuzzEvaluate(f *testing.F) {
	// preset, gpu, perNode, intra, inter, tp, pp, dp, v, sp, zero, rc, flash, mb, gb, sched, bpp, dtype, overlap,
	// then a custom model's layers, hidden, heads, kv, seq, vocab, ffn, gelu.
	f.Add(uint8(0), uint8(1), 8, uint8(0), uint8(0), 8, 8, 8, 1, true, 1, uint8(1), true, 1, 512, uint8(1), 16, uint8(0), true, 2, 64, 4, 4, 8, 10, 256, false)
	f.Add(uint8(3), uint8(2), 8, uint8(1), uint8(3), 8, 16, 4, 2, true, 1, uint8(2), true, 1, 1024, uint8(2), 18, uint8(2), false, 126, 16384, 128, 8, 8192, 128256, 53248, false)
	f.Add(uint8(255), uint8(0), 1, uint8(9), uint8(9), 1, 2, 1, 1, false, 3, uint8(0), false, 2, 4, uint8(0), 16, uint8(1), true, 3, 8, 2, 1, 4, 3, 1, true)
	f.Add(uint8(255), uint8(1), 256, uint8(2), uint8(4), 1, 1, 1<<24, 1, false, 3, uint8(3), true, 1, 1<<24, uint8(1), 16, uint8(0), true, 1, 1, 1, 1, 1, 1, 1, true)
	f.Add(uint8(255), uint8(1), 8, uint8(0), uint8(0), 1, 1<<24, 1, 1<<40, false, 0, uint8(0), true, 1, 1, uint8(2), 16, uint8(0), true, 998, 64, 1, 1, 1, 1, 1, false)
	// GPT-3 XL's shape (24 layers) on PP 4 under ZB-H1, ZB-V and DualPipeV.
	for _, sched := range []uint8{4, 5, 6} {
		f.Add(uint8(255), uint8(1), 8, uint8(0), uint8(0), 1, 4, 2, 1, false, 1, uint8(1), true, 1, 32, sched, 16, uint8(0), true, 24, 2048, 16, 16, 2048, 50257, 8192, true)
	}
	gpus := hw.GPUIDs()
	links := hw.LinkIDs()
	f.Fuzz(func(t *testing.T, preset, gpuIdx uint8, perNode int, intraIdx, interIdx uint8, tp, pp, dp, v int, sp bool, zero int, rc uint8,
		flash bool, mb, gb int, sched uint8, bpp int, dtype uint8, overlap bool,
		layers, hidden, heads, kv, seq, vocab, ffn int, gelu bool) {
		m := fuzzModel(preset, layers, hidden, heads, kv, seq, vocab, ffn, gelu)
		g, _ := hw.GPUByID(pick(gpus, gpuIdx, "none"))
		intra, _ := hw.LinkByID(pick(links, intraIdx, "none"))
		inter, _ := hw.LinkByID(pick(links, interIdx, "none"))
		p := Plan{TP: tp, PP: pp, DP: dp, Interleave: v, SP: sp, ZeRO: zero,
			Recompute: pick([]Recompute{RecomputeNone, RecomputeSelective, RecomputeFull}, rc, "some"),
			Flash:     flash, MicroBatch: mb, GlobalBatch: gb, Schedule: pick([]Schedule{GPipe, OneFOneB, Interleaved, DualPipe, ZBH1, ZBV, DualPipeV}, sched, "zigzag"),
			BytesPerParam: bpp, Dtype: pick([]hw.Dtype{hw.BF16, hw.FP16, hw.FP8}, dtype, hw.FP32), Overlap: overlap}
		c := Config{Model: m, Plan: p, Cluster: Cluster{GPU: g, GPUs: tp * pp * dp, GPUsPerNode: perNode, Intra: intra, Inter: inter}}
		verr := c.Validate()
		r, err := Evaluate(c)
		if (verr == nil) != (err == nil) {
			t.Fatalf("Validate: %v; Evaluate: %v", verr, err)
		}
		if err != nil {
			return
		}
		checkResult(t, r)
	})
}
