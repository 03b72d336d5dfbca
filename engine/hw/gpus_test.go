package hw

import (
	"maps"
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
		// Blackwell Ultra: TestBlackwellUltra has its sources.
		{"b300", 148, 2.25e15, 8e12, 126e6, 228 << 10},
		{"gb300", 148, 2.5e15, 8e12, 126e6, 228 << 10},
		// The GPUs of published runs (TestPublishedRunGPUs has their
		// datasheet arithmetic).
		{"a100-40gb", 108, 312e12, 1.555e12, 40e6, 164 << 10},
		{"a800", 108, 312e12, 2.039e12, 40e6, 164 << 10},
		{"h100-pcie", 114, 756.4e12, 2.0e12, 50e6, 228 << 10},
		{"h100-nvl", 132, 835.5e12, 3.9e12, 50e6, 228 << 10},
		{"h20", 78, 148e12, 4.0e12, 60e6, 228 << 10},
		{"gh200", 132, 989.4e12, 4e12, 50e6, 228 << 10},
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
	if _, ok := GPUByID("b100"); ok {
		t.Error("GPUByID(b100) found something")
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
	}{{"a100-80gb", 81920, 80e9}, {"h100", 81559, 80e9}, {"h800", 81559, 80e9}, {"h200", 143771, 141e9},
		{"a100-40gb", 40960, 40e9}, {"a800", 81920, 80e9}, {"h100-pcie", 81559, 80e9}, {"h100-nvl", 95830, 94e9},
		{"h20", 97871, 96e9}, {"gh200", 97871, 96e9}} {
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

// The GPUs published training runs used beyond the first six, each held to
// its datasheet by hand: the dense tensor rate is the sparse figure NVIDIA
// prints ÷ 2 and, where the tensor clock is known or derived, tensor cores
// × dense FLOP a clock (512 on Ampere, 1024 on Hopper) × that clock; HBM
// is nvidia-smi's MiB, at the datasheet's bandwidth.
func TestPublishedRunGPUs(t *testing.T) {
	for _, c := range []struct {
		id         string
		sparseBF16 float64 // NVIDIA's figure with sparsity (0: printed dense)
		denseBF16  float64
		fp8        float64 // dense; 0: no FP8 unit
		perClock   float64 // dense BF16 FLOP a tensor core a clock; 0: not derivable
		mib        int64
		bandwidth  float64
		link       string
		perNode    int
	}{
		// A100 40GB: 432 × 512 × 1.41 GHz = 311.9 TFLOP/s, printed 312
		// (624 with sparsity); 40,960 MiB of HBM2 at 1,555 GB/s.
		{"a100-40gb", 624e12, 312e12, 0, 512, 40960, 1.555e12, "nvlink3", 8},
		// A800: the A100 80GB's compute and memory, its own NVLink.
		{"a800", 624e12, 312e12, 0, 512, 81920, 2.039e12, "nvlink3-a800", 8},
		// H100 PCIe: 1,513 sparse ÷ 2 = 756.5; 456 × 1024 × 1.62 GHz =
		// 756.4. FP8 3,026 ÷ 2. HBM2e 2.0 TB/s. PCIe 5 between the cards.
		{"h100-pcie", 1513e12, 756.5e12, 1513e12, 1024, 81559, 2.0e12, "pcie5", 8},
		// H100 NVL: 1,671 ÷ 2 = 835.5 (the tensor clock derived from it,
		// so the product is the rate again); FP8 3,341 ÷ 2; 94 GB HBM3 at
		// 3.9 TB/s.
		{"h100-nvl", 1671e12, 835.5e12, 1670.5e12, 1024, 95830, 3.9e12, "pcie5", 8},
		// H20: printed dense, 148 BF16 and 296 FP8; its tensor rate is
		// capped, not tensor cores × 1024 × a clock.
		{"h20", 0, 148e12, 296e12, 0, 97871, 4.0e12, "nvlink4", 8},
		// GH200: the H100 SXM's 1,979 ÷ 2 = 989.5, 528 × 1024 × 1.83 GHz =
		// 989.4; 96 GB HBM3 at 4 TB/s.
		{"gh200", 1979e12, 989.5e12, 1979e12, 1024, 97871, 4e12, "nvlink4", 8},
	} {
		g := MustGPU(c.id)
		bf16 := g.Peak[BF16]
		near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-3*want }
		if c.sparseBF16 > 0 && !near(c.sparseBF16/2, c.denseBF16) {
			t.Fatalf("%s: the table's own arithmetic: %g ÷ 2 ≠ %g", c.id, c.sparseBF16, c.denseBF16)
		}
		if !near(bf16, c.denseBF16) || g.Peak[FP16] != bf16 {
			t.Errorf("%s: BF16 %g, FP16 %g; want the datasheet's %g dense", c.id, bf16, g.Peak[FP16], c.denseBF16)
		}
		if c.perClock > 0 {
			if got := float64(g.TensorCores) * c.perClock * g.BoostClockHz; !near(got, c.denseBF16) {
				t.Errorf("%s: %d tensor cores × %g × %g Hz = %g, want %g", c.id, g.TensorCores, c.perClock, g.BoostClockHz, got, c.denseBF16)
			}
		}
		if fp8, ok := g.PeakFLOPS(FP8); ok != (c.fp8 > 0) || (ok && !near(fp8, c.fp8)) {
			t.Errorf("%s: FP8 %g (present %v), want %g", c.id, fp8, ok, c.fp8)
		}
		// TF32 is half of BF16 on every tensor core here.
		if !near(2*g.Peak[TF32], bf16) {
			t.Errorf("%s: TF32 %g, want half of BF16 %g", c.id, g.Peak[TF32], bf16)
		}
		if g.TensorCores != 4*g.SMs {
			t.Errorf("%s: %d tensor cores on %d SMs, want 4 an SM", c.id, g.TensorCores, g.SMs)
		}
		if g.HBMBytes != c.mib<<20 || g.HBMBandwidth != c.bandwidth {
			t.Errorf("%s: HBM %d MiB at %g B/s, want %d MiB at %g", c.id, g.HBMBytes>>20, g.HBMBandwidth, c.mib, c.bandwidth)
		}
		if g.Link != c.link || g.NVLinkGPUs != c.perNode {
			t.Errorf("%s: %d a node on %s, want %d on %s", c.id, g.NVLinkGPUs, g.Link, c.perNode, c.link)
		}
		for _, a := range g.Aliases {
			if h, _ := GPUByID(a); h.ID != c.id {
				t.Errorf("%s: alias %s finds %s", c.id, a, h.ID)
			}
		}
	}
	// The H20 is a quarter of an H100 a tensor core a clock at the H100's
	// assumed clock: 148 T ÷ (312 × 1.83 GHz) ≈ 259.
	h20 := MustGPU("h20")
	if got := h20.Peak[BF16] / (float64(h20.TensorCores) * h20.BoostClockHz); got < 255 || got > 262 {
		t.Errorf("H20: %.0f dense BF16 FLOP a tensor core a clock, want ≈ 259", got)
	}
	// The A100 40GB and the A800 differ from the A100 80GB only where
	// their datasheets say.
	a := MustGPU("a100-80gb")
	for _, id := range []string{"a100-40gb", "a800"} {
		g := MustGPU(id)
		if g.SMs != a.SMs || g.BoostClockHz != a.BoostClockHz || g.L2Bytes != a.L2Bytes || !maps.Equal(g.Peak, a.Peak) {
			t.Errorf("%s: compute differs from the A100 80GB's", id)
		}
	}
	if MustGPU("a800").HBMBytes != a.HBMBytes || MustGPU("a100-40gb").Link != a.Link {
		t.Error("A800's memory or the A100 40GB's NVLink differs from the A100 80GB's")
	}
	// GH200's GPU is the H100 SXM's compute.
	h, gh := MustGPU("h100"), MustGPU("gh200")
	if gh.SMs != h.SMs || gh.BoostClockHz != h.BoostClockHz || gh.VectorClockHz != h.VectorClockHz || !maps.Equal(gh.Peak, h.Peak) {
		t.Error("GH200's compute differs from the H100 SXM's")
	}
}

// Every GPU has its power: the published TDPs, and the node's share
// from its DGX's maximum by hand — DGX H100's 10.2 kW less 8 × 700 W,
// over 8 = 575 W; DGX A100's 6.5 kW less 8 × 400 W = 412.5 W; DGX
// B200's 14.3 kW less 8 × 1,000 W = 787.5 W.
func TestPower(t *testing.T) {
	for _, g := range gpus {
		p := g.Power()
		if !(p.TDPWatts > 0) || p.NodeWattsPerGPU < 0 || p.Source == "" {
			t.Errorf("%s: power %+v", g.ID, p)
		}
	}
	for _, tt := range []struct {
		id        string
		tdp, node float64
		assumed   bool
	}{
		{"h100", 700, 575, false}, {"h200", 700, 575, false}, {"h800", 700, 575, true},
		{"a100-80gb", 400, 412.5, false}, {"a800", 400, 412.5, true},
		{"b200", 1000, 787.5, false}, {"h100-pcie", 350, 412.5, true}, {"gh200", 1000, 0, true},
		// HGX B300 1,100 W as reported, its node the DGX B200's share;
		// GB300 1,400 W (NVIDIA's Blackwell Ultra blog), its rack ≈ 120 kW
		// as reported: 120,000 ÷ 72 − 1,400 = 266.67 W.
		{"b300", 1100, 787.5, true}, {"gb300", 1400, 120000.0/72 - 1400, true},
	} {
		p := MustGPU(tt.id).Power()
		if p.TDPWatts != tt.tdp || math.Abs(p.NodeWattsPerGPU-tt.node) > 1e-9 || p.NodeAssumed != tt.assumed {
			t.Errorf("%s: %+v; want TDP %g W, node %g W a GPU, assumed %v", tt.id, p, tt.tdp, tt.node, tt.assumed)
		}
	}
	if p := (GPU{ID: "none"}).Power(); p != (Power{}) {
		t.Errorf("a GPU outside the catalog: %+v", p)
	}
}

// Blackwell Ultra, each figure from its source by hand:
//
//   - HGX B300 (NVIDIA's HGX page, 8 GPUs): FP4 144 PFLOP/s sparse and 105
//     dense; FP8 72, BF16 36, TF32 18 sparse; FP32 600 TFLOP/s; up to 2.3
//     TB of HBM3e; NVLink 1.8 TB/s a GPU.
//   - GB300 NVL72 (NVIDIA's GB300 NVL72 page, 72 GPUs): FP4 1,440 sparse
//     and 1,080 dense; FP8 720, BF16 360, TF32 180 sparse; FP32 6 PFLOP/s;
//     up to 20 TB at 576 TB/s; NVLink 130 TB/s.
//   - NVIDIA's Blackwell Ultra blog: 288 GB HBM3e at 8 TB/s a GPU, 15
//     PFLOP/s dense NVFP4 (the GB300's), 1,400 W, NVLink 5 1.8 TB/s.
//
// Dense is sparse ÷ 2 for BF16, FP8 and TF32; NVIDIA prints FP4's dense
// figure apart, and Blackwell Ultra's FP4 sparse is not twice it.
func TestBlackwellUltra(t *testing.T) {
	for _, c := range []struct {
		id                  string
		gpus                float64
		fp4Sparse, fp4Dense float64 // the whole system
		fp8, bf16, tf32     float64 // sparse, the whole system
		fp32                float64 // the whole system
		hbmLabel            int64
	}{
		{"b300", 8, 144e15, 105e15, 72e15, 36e15, 18e15, 600e12, 288e9},
		{"gb300", 72, 1440e15, 1080e15, 720e15, 360e15, 180e15, 6e15, 288e9},
	} {
		g := MustGPU(c.id)
		near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want }
		for _, d := range []struct {
			d    Dtype
			want float64
		}{
			{FP4, c.fp4Dense / c.gpus}, {FP8, c.fp8 / c.gpus / 2}, {BF16, c.bf16 / c.gpus / 2},
			{FP16, c.bf16 / c.gpus / 2}, {TF32, c.tf32 / c.gpus / 2}, {FP32, c.fp32 / c.gpus},
		} {
			if got := g.Peak[d.d]; !near(got, d.want) {
				t.Errorf("%s %s = %g, want %g", c.id, d.d, got, d.want)
			}
		}
		// FP4 sparse is 1.37× dense on the HGX, 1.33× on the rack: not 2×,
		// so no dense figure is halved from it.
		if r := c.fp4Sparse / c.fp4Dense; r > 1.4 || r < 1.3 {
			t.Errorf("%s: FP4 sparse ÷ dense = %.2f", c.id, r)
		}
		if g.HBMDatasheet != c.hbmLabel || g.HBMBandwidth != 8e12 || g.Link != "nvlink5" || g.NVLinkGPUs != int(c.gpus) || !g.PairMMA {
			t.Errorf("%s: HBM label %d at %g B/s, %d a domain on %s, pair MMA %v; want %d at 8 TB/s, %g on nvlink5, true",
				c.id, g.HBMDatasheet, g.HBMBandwidth, g.NVLinkGPUs, g.Link, g.PairMMA, c.hbmLabel, c.gpus)
		}
		// The system's memory: 8 × 288 = 2,304 GB ("up to 2.3 TB"); 72 ×
		// 288 = 20,736 GB ("up to 20 TB").
		if tot := float64(g.HBMDatasheet) * c.gpus; math.Abs(tot-c.gpus*288e9) > 1 {
			t.Errorf("%s: %g bytes a system", c.id, tot)
		}
		// 148 SMs as CUDA reports the part (the blog's 160 is the full
		// die), 4 tensor cores and 128 lanes an SM; the derived tensor
		// clock gives back the BF16 peak at 2048 FLOP a tensor core a clock.
		if g.SMs != 148 || g.TensorCores != 592 || g.CUDACores != 18944 {
			t.Errorf("%s: %d SMs, %d tensor cores, %d lanes; want 148, 592, 18,944", c.id, g.SMs, g.TensorCores, g.CUDACores)
		}
		if got := float64(g.TensorCores) * 2048 * g.BoostClockHz; !near(got, g.Peak[BF16]) {
			t.Errorf("%s: 592 × 2048 × %g Hz = %g, want %g", c.id, g.BoostClockHz, got, g.Peak[BF16])
		}
		if g.Source == "" || g.Power().Source == "" {
			t.Errorf("%s: no source", c.id)
		}
	}
	// The B300 is the B200 at BF16, FP8, TF32 and FP32 (NVIDIA prints the
	// same HGX figures for both); FP4 13.125 against 9 PFLOP/s dense.
	b2, b3, gb3 := MustGPU("b200"), MustGPU("b300"), MustGPU("gb300")
	for _, d := range []Dtype{FP32, TF32, BF16, FP8} {
		if b3.Peak[d] != b2.Peak[d] {
			t.Errorf("B300 %s = %g, B200 %g; NVIDIA's HGX figures are the same", d, b3.Peak[d], b2.Peak[d])
		}
	}
	if b3.Peak[FP4] != 13.125e15 || b2.Peak[FP4] != 9e15 || gb3.Peak[FP4] != 15e15 {
		t.Errorf("FP4 dense: B300 %g, B200 %g, GB300 %g; want 13.125, 9 and 15 PFLOP/s", b3.Peak[FP4], b2.Peak[FP4], gb3.Peak[FP4])
	}
	// nvidia-smi on a B300 SXM6 AC, as publicly reported: 275,040 MiB =
	// 288,400,343,040 bytes, within 0.2% of the 288 GB label.
	if b3.HBMBytes != 288400343040 {
		t.Errorf("B300 HBM %d bytes, want 275,040 MiB = 288,400,343,040", b3.HBMBytes)
	}
	if gb3.HBMBytes != 288e9 {
		t.Errorf("GB300 HBM %d bytes, want the 288 GB label", gb3.HBMBytes)
	}
	// Ridge points by hand, peak ÷ bandwidth (FLOP a byte): B300 BF16 2.25
	// P ÷ 8 T = 281.25, FP8 562.5, FP4 13.125 P ÷ 8 T = 1,640.6; GB300
	// BF16 2.5 P ÷ 8 T = 312.5, FP8 625, FP4 15 P ÷ 8 T = 1,875.
	for _, r := range []struct {
		g    GPU
		d    Dtype
		want float64
	}{
		{b3, BF16, 281.25}, {b3, FP8, 562.5}, {b3, FP4, 1640.625},
		{gb3, BF16, 312.5}, {gb3, FP8, 625}, {gb3, FP4, 1875},
	} {
		if got := r.g.Peak[r.d] / r.g.HBMBandwidth; math.Abs(got-r.want) > 1e-9*r.want {
			t.Errorf("%s %s ridge = %g FLOP/byte, want %g", r.g.ID, r.d, got, r.want)
		}
	}
}
