package parallel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// A measured run against the engine by hand: the step's terms sum to
// Time.Step, each term's Needed is itself plus measured − engine (so
// closing the gap with it alone gives the measured step), an MFU implies
// the step engine × MFU ÷ measured, memory's parts sum to the total; bad
// figures are refused naming the flag.
func TestGapsByHand(t *testing.T) {
	m, _ := model.Preset("gpt3-175b")
	p := Plan{TP: 8, PP: 8, DP: 8, Interleave: 1, SP: true, ZeRO: 1, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1, GlobalBatch: 256, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	r, err := Evaluate(Config{Model: m, Plan: p, Cluster: DefaultCluster(gpu(t, "h100"), 512)})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range r.Time.terms() {
		sum += v
	}
	if !within(sum, r.Time.Step, 1e-9) {
		t.Fatalf("the step's terms sum to %.9g s, the step is %.9g s", sum, r.Time.Step)
	}
	measured := r.Time.Step * 1.2
	g, err := r.StepGap(measured)
	if err != nil {
		t.Fatal(err)
	}
	if !within(g.Diff, 0.2*r.Time.Step, 1e-12) || !within(g.Rel, 0.2, 1e-12) || len(g.Terms) != len(StepTerms) {
		t.Fatalf("gap %+v", g)
	}
	for i, term := range g.Terms {
		closed := 0.0
		for j, v := range r.Time.terms() {
			if j == i {
				v = term.Needed
			}
			closed += v
		}
		if !within(closed, measured, 1e-9) {
			t.Errorf("%s at %.6g s: the step would be %.6g s, not the measured %.6g", term.Name, term.Needed, closed, measured)
		}
		if term.Engine > 0 && !within(term.Factor, term.Needed/term.Engine, 1e-12) {
			t.Errorf("%s: factor %g", term.Name, term.Factor)
		}
	}
	// A run faster than the engine by more than the optimizer's time: the
	// optimizer alone cannot close it.
	fast, _ := r.StepGap(r.Time.Step * 0.9)
	if opt := fast.Terms[3]; opt.Name != "optimizer" || opt.Needed >= 0 {
		t.Errorf("10%% faster: the optimizer would have to be %g s; want negative (cannot)", opt.Needed)
	}
	mg, err := r.MFUGap(r.MFU / 2)
	if err != nil || !within(mg.Measured, 2*r.Time.Step, 1e-12) || mg.From != "mfu" {
		t.Errorf("half the MFU: %+v, %v; want the step twice the engine's", mg, err)
	}
	mem, err := r.MemoryGap(r.Memory.Total + 5e9)
	if err != nil || !within(mem.Diff, 5e9, 1e-9) || mem.Terms[3].Name != "activations" || !within(mem.Terms[3].Needed, r.Memory.Activations+5e9, 1e-12) {
		t.Errorf("memory +5 GB: %+v, %v", mem, err)
	}
	parts := 0.0
	for _, term := range mem.Terms {
		parts += term.Engine
	}
	if math.Abs(parts-r.Memory.Total) > 1e-6*r.Memory.Total {
		t.Errorf("memory parts sum to %g, the total is %g", parts, r.Memory.Total)
	}
	for _, bad := range []func() error{
		func() error { _, err := r.StepGap(0); return err },
		func() error { _, err := r.MFUGap(1.5); return err },
		func() error { _, err := r.MemoryGap(-1); return err },
	} {
		if bad() == nil {
			t.Error("a bad measured figure was taken")
		}
	}
}
