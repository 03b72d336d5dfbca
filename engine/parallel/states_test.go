package parallel

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// A parameter's model-state bytes by part, by hand: the ZeRO paper's 16
// (2 + 2 + 4 + 4 + 4) and Adam's 28 bytes of HBM traffic (reads master,
// moments and gradient, 4 + 4 + 4 + 2; writes master, moments and the
// BF16 weights, 4 + 4 + 4 + 2); Megatron-LM's 18 and 30; BF16 moments 12
// and 20; BF16 moments without a master copy 8, and 14 (the update then
// reads the BF16 weights, 2 + 2 + 2 + 2, and writes them with the
// moments, 2 + 2 + 2); the master as remainders 2 bytes (10 and 20:
// read 2 + 2 + 2 + 2 + 2, write 2 + 2 + 2 + 2); 8-bit Adam's moments
// 1 + 4/256 bytes each (bitsandbytes' FP32 maximum for every 256 values):
// 10.03125 a parameter, and 2·(4 + 2·1.015625) + 2 + 2 = 16.0625 moved.
func TestStateBytesByHand(t *testing.T) {
	for _, c := range []struct {
		bpp                    int
		states                 OptimizerStates
		master                 MasterWeights
		total, optimizer, adam float64
		text                   string
	}{
		{16, "", "", 16, 12, 28, "16 a parameter"},
		{18, StatesFP32, MasterFP32, 18, 12, 30, "18 a parameter"},
		{16, StatesBF16, "", 12, 8, 20, "12 a parameter: weights 2, gradients 2, master 4, moments 2 + 2"},
		{16, StatesBF16, MasterNone, 8, 4, 14, "8 a parameter: weights 2, gradients 2, master 0, moments 2 + 2"},
		{18, StatesBF16, MasterRemainder, 12, 6, 20, "12 a parameter: weights 2, gradients 4, master 2, moments 2 + 2"},
		{16, States8Bit, "", 10.03125, 6.03125, 2*(4+2*1.015625) + 2 + 2, "10.03 a parameter: weights 2, gradients 2, master 4, moments 1.015625 + 1.015625"},
	} {
		s, err := NewStateBytes(c.bpp, c.states, c.master)
		if err != nil {
			t.Fatalf("%d %q %q: %v", c.bpp, c.states, c.master, err)
		}
		if s.Total() != c.total || s.Optimizer() != c.optimizer || s.AdamTraffic() != c.adam || s.String() != c.text {
			t.Errorf("%d %q %q: %g bytes (optimizer %g), Adam moves %g, %q; by hand %g (%g), %g, %q",
				c.bpp, c.states, c.master, s.Total(), s.Optimizer(), s.AdamTraffic(), s.String(), c.total, c.optimizer, c.adam, c.text)
		}
	}
	for _, c := range []struct {
		bpp    int
		states OptimizerStates
		master MasterWeights
		want   string
	}{
		{12, "", "", "bytes-per-param: 12; allowed 16, 18"},
		{16, "fp16", "", `optimizer-states: "fp16"; allowed fp32, bf16, 8bit`},
		{16, "", "bf16", `master-weights: "bf16"; allowed fp32, remainder, none`},
	} {
		if _, err := NewStateBytes(c.bpp, c.states, c.master); err == nil || err.Error() != c.want {
			t.Errorf("%d %q %q: %v, want %q", c.bpp, c.states, c.master, err, c.want)
		}
	}
	// ZeRO-1 over 64 ranks with BF16 moments: the optimizer's 8Ψ ÷ 64.
	s, _ := NewStateBytes(16, StatesBF16, "")
	if m, _ := s.ZeRO(7.5e9, 64, 1); m.Weights != 15e9 || m.Gradients != 15e9 || m.Optimizer != 8*7.5e9/64 {
		t.Errorf("ZeRO-1 of 7.5B with BF16 moments: %+v", m)
	}
}

// Nemotron-4 340B as NVIDIA's recipe runs it on 128 H100s (TP 8, PP 8,
// v 12, micro-batch 1, SP, selective recomputation, the distributed
// optimizer: ZeRO-1 over DP 2; 32 sequences a step). Its first stage
// holds 12 layers of 2·18432²/8 + 2·18432·192 + 2·18432·73728/8 + 2·18432
// = 431,788,032 parameters a GPU and the input embedding 256000·18432/8
// = 589,824,000: 5,771,280,384. With FP32 Adam its optimizer states are
// 12 × that ÷ 2 = 34.6 GB and the GPU needs 85.6 GB, over the 79.2 usable
// of an H100's 85.5; with BF16 moments, 8 × that ÷ 2 = 23,085,121,536
// bytes and 74.0 GB: it fits. Without a master copy (NeMo's optim.dtype
// bf16) 4 × that ÷ 2; 8-bit Adam's 4 + 2·(1 + 4/256). The Adam update
// moves 20 bytes a parameter in place of 28, 14 without the master.
func TestNemotron4OptimizerStates(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	c := Config{Model: nemotron4(), Cluster: DefaultCluster(g, 128),
		Plan: Plan{TP: 8, PP: 8, DP: 2, Interleave: 12, SP: true, ZeRO: 1, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1,
			GlobalBatch: 32, Schedule: Interleaved, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}}
	const stage0 = 5771280384.0
	run := func(s OptimizerStates, m MasterWeights) Result {
		t.Helper()
		c := c
		c.Plan.OptimizerStates, c.Plan.MasterWeights = s, m
		r, err := Evaluate(c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fp32, bf16, none, eight := run("", ""), run(StatesBF16, ""), run(StatesBF16, MasterNone), run(States8Bit, "")
	if got := fp32.StageParams[0]; got != stage0 {
		t.Fatalf("the first stage holds %.0f parameters a GPU, by hand %.0f", got, stage0)
	}
	for _, x := range []struct {
		name string
		r    Result
		want float64
	}{{"fp32", fp32, 12 * stage0 / 2}, {"bf16", bf16, 8 * stage0 / 2}, {"bf16, no master", none, 4 * stage0 / 2},
		{"8bit", eight, (4 + 2*(1+4.0/256)) * stage0 / 2}} {
		if got := x.r.StageMemory[0].Optimizer; got != x.want {
			t.Errorf("%s: the first stage's optimizer states %.0f bytes, by hand %.0f", x.name, got, x.want)
		}
	}
	if fp32.Memory.Fits || !bf16.Memory.Fits {
		t.Errorf("fits with FP32 Adam %v (%.1f GB), with BF16 moments %v (%.1f GB); want no, then yes",
			fp32.Memory.Fits, fp32.Memory.Total/1e9, bf16.Memory.Fits, bf16.Memory.Total/1e9)
	}
	if got, want := fp32.Memory.Total-bf16.Memory.Total, 4*stage0/2; got != want {
		t.Errorf("BF16 moments save %.0f bytes on the fullest GPU, by hand %.0f", got, want)
	}
	if r := bf16.Time.Optimizer / fp32.Time.Optimizer; !within(r, 20.0/28, 1e-12) {
		t.Errorf("Adam's time with BF16 moments ×%.6f of FP32's, by hand 20/28", r)
	}
	if r := none.Time.Optimizer / fp32.Time.Optimizer; !within(r, 14.0/28, 1e-12) {
		t.Errorf("Adam's time without a master copy ×%.6f of FP32's, by hand 14/28", r)
	}
	m := bf16.Metrics()
	if m.OptimizerStates != "bf16" || m.MasterWeights != "fp32" || m.OptimizerStateBytesPerParam != 8 || m.ModelStateBytesPerParam != 12 || m.BytesPerParam != 16 {
		t.Errorf("metrics: %q %q, %g and %g bytes a parameter, bytes_per_param %d", m.OptimizerStates, m.MasterWeights,
			m.OptimizerStateBytesPerParam, m.ModelStateBytesPerParam, m.BytesPerParam)
	}
	// Refused by name.
	for _, bad := range []struct {
		p    func(*Plan)
		want string
	}{
		{func(p *Plan) { p.OptimizerStates = "4bit" }, `optimizer-states: "4bit"; allowed fp32, bf16, 8bit`},
		{func(p *Plan) { p.MasterWeights = "fp16" }, `master-weights: "fp16"; allowed fp32, remainder, none`},
		{func(p *Plan) { p.MasterWeights, p.Dtype = MasterRemainder, hw.FP16 }, "master-weights: remainder needs BF16 weights"},
	} {
		c := c
		bad.p(&c.Plan)
		if err := c.Validate(); err == nil || len(err.Error()) < len(bad.want) || err.Error()[:len(bad.want)] != bad.want {
			t.Errorf("refusal: %v, want %q", err, bad.want)
		}
	}
}
