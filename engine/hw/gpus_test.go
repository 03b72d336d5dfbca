package hw

import (
	"math"
	"testing"
)

func TestGPUCatalog(t *testing.T) {
	tests := []struct {
		id        string
		sms       int
		bf16, hbm float64
		l2        int64
		smem      int
	}{
		// ../shared/reference/published-figures.md, Hardware table.
		{"a100-80gb", 108, 312e12, 2.039e12, 40e6, 164 << 10},
		{"h100", 132, 989.4e12, 3.35e12, 50e6, 228 << 10},
		{"h200", 132, 989.4e12, 4.8e12, 50e6, 228 << 10},
		// Blackwell table: 2.25 and 2.5 PFLOP/s dense, 8 TB/s.
		{"b200", 148, 2.25e15, 8e12, 126e6, 228 << 10},
		{"gb200", 148, 2.5e15, 8e12, 126e6, 228 << 10},
	}
	for _, tt := range tests {
		g, ok := GPUByID(tt.id)
		if !ok {
			t.Fatalf("GPUByID(%q) not found", tt.id)
		}
		bf16, _ := g.PeakFLOPS(BF16)
		if g.SMs != tt.sms || bf16 != tt.bf16 || g.HBMBandwidth != tt.hbm || g.L2Bytes != tt.l2 || g.SharedMemPerSM != tt.smem {
			t.Errorf("%s = %d SMs, %g BF16, %g B/s, L2 %d, smem %d; want %d, %g, %g, %d, %d",
				tt.id, g.SMs, bf16, g.HBMBandwidth, g.L2Bytes, g.SharedMemPerSM, tt.sms, tt.bf16, tt.hbm, tt.l2, tt.smem)
		}
		if g.Source == "" {
			t.Errorf("%s has no source", tt.id)
		}
		// HBM latency: several hundred cycles at the boost clock.
		if cycles := g.HBMLatency * g.BoostClockHz; cycles < 300 || cycles > 1500 {
			t.Errorf("%s HBM latency %g s = %.0f cycles, want several hundred", tt.id, g.HBMLatency, cycles)
		}
		if _, ok := LinkByID(g.Link); !ok {
			t.Errorf("%s: NVLink %q not in the link catalog", tt.id, g.Link)
		}
	}
	// The peak check: H100's 528 tensor cores × 1024 FLOP/clock × 1.83 GHz.
	h, _ := GPUByID("h100")
	if got := float64(h.TensorCores) * 1024 * h.BoostClockHz; math.Abs(got-989.4e12)/989.4e12 > 1e-3 {
		t.Errorf("528 × 1024 × 1.83 GHz = %g, want 989.4e12", got)
	}
	// The CUDA cores' FP32 peak is every lane's FMA (2 FLOP) a clock at
	// the vector clock: 16,896 × 2 × 1.98 GHz = 66.9 TFLOP/s on an H100
	// SXM, 6,912 × 2 × 1.41 GHz = 19.5 on an A100. One clock for both the
	// peak and a single lane's time (the cpu-vs-gpu lesson uses both).
	for _, g := range gpus {
		fp32, _ := g.PeakFLOPS(FP32)
		if got := float64(g.CUDACores) * 2 * g.VectorClockHz; math.Abs(got-fp32)/fp32 > 1e-3 {
			t.Errorf("%s: %d lanes × 2 × %g Hz = %g, want its FP32 peak %g", g.ID, g.CUDACores, g.VectorClockHz, got, fp32)
		}
	}
	if h.VectorClockHz != 1.98e9 {
		t.Errorf("H100 SXM vector clock %g, want 1.98 GHz", h.VectorClockHz)
	}
	if _, ok := h.PeakFLOPS(FP8); !ok {
		t.Error("H100 has no FP8 rate")
	}
	a, _ := GPUByID("a100") // alias
	if _, ok := a.PeakFLOPS(FP8); ok || a.ID != "a100-80gb" {
		t.Errorf("a100: id %q, FP8 present %v; want a100-80gb without FP8", a.ID, ok)
	}
	// The dtypes a refusal offers: Ampere without FP8, Blackwell with FP4.
	for id, want := range map[string]string{"a100-80gb": "fp32, tf32, fp16, bf16", "h100": "fp32, tf32, fp16, bf16, fp8", "b200": "fp32, tf32, fp16, bf16, fp8, fp4"} {
		if g := MustGPU(id); g.DtypeList() != want {
			t.Errorf("%s: dtypes %q, want %q", id, g.DtypeList(), want)
		}
	}
	if _, ok := GPUByID("b300"); ok {
		t.Error("GPUByID(b300) found something")
	}
}

// Capacity is what the GPU reports (nvidia-smi's total, MiB): the
// datasheet's "80GB" and "141GB" are binary, a little under 80 and 141
// GiB once the driver's reserve is out — more bytes than the label's
// 10^9 ones, which the labels keep.
func TestHBMCapacityAsReported(t *testing.T) {
	for _, c := range []struct {
		id        string
		mib       int64
		datasheet int64
	}{{"a100-80gb", 81920, 80e9}, {"h100", 81559, 80e9}, {"h800", 81559, 80e9}, {"h200", 143771, 141e9}} {
		g, ok := GPUByID(c.id)
		if !ok {
			t.Fatalf("%s: no such GPU", c.id)
		}
		gib := float64(c.datasheet) / 1e9 * (1 << 30)
		if g.HBMBytes != c.mib<<20 || g.HBMDatasheet != c.datasheet || float64(g.HBMBytes) > gib || float64(g.HBMBytes) < 0.99*gib {
			t.Errorf("%s: %d bytes (%d MiB), datasheet %d; want %d MiB, within 1%% under %g GiB", c.id, g.HBMBytes, g.HBMBytes>>20, g.HBMDatasheet, c.mib, float64(c.datasheet)/1e9)
		}
	}
}

// Blackwell's figures are dense: NVIDIA's headlines with sparsity are
// twice them. HGX B200 (8 GPUs): BF16 36, FP8 72, FP4 144 PFLOP/s sparse;
// GB200 NVL72 (72 GPUs): 360, 720, 1,440. Each format halves the bits and
// doubles the rate. The datasheets' HBM is what HBMBytes holds: no
// nvidia-smi total in the references.
func TestBlackwellDense(t *testing.T) {
	for _, c := range []struct {
		id                string
		gpus              float64
		bf16, fp8, fp4    float64 // sparse, the whole system
		hbm               int64
		sms, tensor, lane int
	}{
		{"b200", 8, 36e15, 72e15, 144e15, 180e9, 2 * 74, 2 * 74 * 4, 2 * 74 * 128},
		{"gb200", 72, 360e15, 720e15, 1440e15, 186e9, 2 * 74, 2 * 74 * 4, 2 * 74 * 128},
	} {
		g, ok := GPUByID(c.id)
		if !ok {
			t.Fatalf("%s: no such GPU", c.id)
		}
		for _, d := range []struct {
			d      Dtype
			sparse float64
		}{{BF16, c.bf16}, {FP8, c.fp8}, {FP4, c.fp4}} {
			if got, want := g.Peak[d.d], d.sparse/c.gpus/2; math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %s = %g, want %g sparse ÷ %g GPUs ÷ 2 = %g", c.id, d.d, got, d.sparse, c.gpus, want)
			}
		}
		// The system's GPUs are one NVLink domain: an HGX board, an NVL72 rack.
		if g.NVLinkGPUs != int(c.gpus) {
			t.Errorf("%s: %d GPUs on one NVLink domain, want %g", c.id, g.NVLinkGPUs, c.gpus)
		}
		if g.HBMBytes != c.hbm || g.HBMDatasheet != c.hbm || g.SMs != c.sms || g.TensorCores != c.tensor || g.CUDACores != c.lane || g.Link != "nvlink5" {
			t.Errorf("%s: HBM %d (label %d), %d SMs, %d tensor cores, %d lanes, %s; want %d, %d, %d, %d, nvlink5", c.id, g.HBMBytes, g.HBMDatasheet, g.SMs, g.TensorCores, g.CUDACores, g.Link, c.hbm, c.sms, c.tensor, c.lane)
		}
		// The derived tensor clock gives back the peak at 2048 dense BF16
		// FLOP a tensor core a clock.
		if got := float64(g.TensorCores) * 2048 * g.BoostClockHz; math.Abs(got-g.Peak[BF16]) > 1e-6*got {
			t.Errorf("%s: %d × 2048 × %g Hz = %g, want its BF16 peak", c.id, g.TensorCores, g.BoostClockHz, got)
		}
	}
	if h, _ := GPUByID("h100"); h.Peak[FP4] != 0 {
		t.Errorf("H100 has an FP4 rate %g; Hopper has no FP4 unit", h.Peak[FP4])
	}
}
