package hw

import (
	"maps"
	"sort"
)

// Dtype names a number format a GPU computes in.
type Dtype string

// Dtypes with a peak rate in the catalog. FP32 is the CUDA cores' rate;
// TF32, FP16, BF16, FP8 and FP4 are the tensor cores' dense (no
// sparsity) rates. NVIDIA's headline tensor figures are often for 2:4
// structured sparsity, twice the dense rate: the catalog halves them.
// FP4 (NVFP4, MXFP4) is Blackwell's; Hopper and Ampere have no FP4 unit.
const (
	FP32 Dtype = "fp32"
	TF32 Dtype = "tf32"
	FP16 Dtype = "fp16"
	BF16 Dtype = "bf16"
	FP8  Dtype = "fp8"
	FP4  Dtype = "fp4"
)

// Dtypes lists the dtypes in catalog order.
var Dtypes = []Dtype{FP32, TF32, FP16, BF16, FP8, FP4}

// GPU is one accelerator model.
type GPU struct {
	ID      string   // stable id for URLs and CLI flags
	Aliases []string // other accepted ids
	Name    string   // short Latin name for labels

	SMs         int
	TensorCores int
	CUDACores   int // FP32 lanes: 64 per SM on A100, 128 on Hopper and Blackwell
	// BoostClockHz is the clock the tensor cores' peak rates assume;
	// VectorClockHz the (higher) clock the CUDA cores' FP32 peak assumes:
	// NVIDIA quotes the H100 SXM at 1.83 GHz for low-precision tensor
	// math and 1.98 GHz for FP32 and FP64 vector math, and its datasheet's
	// 66.9 TFLOP/s FP32 is 16,896 lanes × 2 FLOP × 1.98 GHz.
	BoostClockHz      float64
	VectorClockHz     float64
	WarpSchedulers    int // per SM
	MaxWarpsPerSM     int
	MaxBlocksPerSM    int
	RegistersPerSM    int // 32-bit registers
	SharedMemPerSM    int // bytes, maximum carve-out
	SharedMemPerBlock int // bytes, maximum a block may use
	L2Bytes           int64

	// HBMBytes is the capacity as the GPU reports it (nvidia-smi's total,
	// MiB × 2^20): a datasheet's "80GB" is binary, 81,559 MiB = 85.5 GB on
	// an H100 SXM (the engine's GB are 10^9 bytes).
	HBMBytes int64
	// HBMDatasheet is the capacity the datasheet prints ("80GB"), for
	// labels naming the part; HBMBytes is what a job fills.
	HBMDatasheet int64
	HBMBandwidth float64 // bytes per second
	// HBMLatency is a load's round trip to HBM on a cache miss, roughly:
	// several hundred cycles, as pointer-chasing microbenchmarks of these
	// parts measure (order of 500–700 ns). An approximation for teaching,
	// not a datasheet figure.
	HBMLatency float64 // seconds

	// Peak dense throughput per dtype, FLOP per second; absent when the
	// GPU has no such unit (A100 has no FP8).
	Peak map[Dtype]float64

	// Link is the link inside a node (a Link id): the GPU's NVLink, or
	// PCIe 5 for the PCIe cards (H100 PCIe, H100 NVL), whose NVLink
	// bridges join pairs only.
	Link string
	// NVLinkGPUs is how many GPUs share one node on Link — one NVLink
	// domain — in the system the entry stands for: 8 on an HGX board, 72
	// in a GB200 NVL72 rack, 8 PCIe cards in a server.
	NVLinkGPUs int
	// PairMMA: the tensor cores of two SMs compute one 256×256 tile
	// together (Blackwell's 2-SM UMMA, the accumulators in tensor memory,
	// not registers), where Hopper's warpgroup MMA computes 128×128 on
	// one SM (engine/kernel's tensor-tiled GEMM).
	PairMMA bool
	Source  string
}

// MustGPU is GPUByID for an id written in the program (a lesson's, a
// published row's); it panics on one that is not in the catalog.
func MustGPU(id string) GPU {
	g, ok := GPUByID(id)
	if !ok {
		panic("hw: no GPU " + id)
	}
	return g
}

// PeakFLOPS is the peak rate for a dtype; ok is false when the GPU has
// none.
func (g GPU) PeakFLOPS(d Dtype) (float64, bool) {
	v, ok := g.Peak[d]
	return v, ok && v > 0
}

// DtypeList names the dtypes g has a peak rate for, in catalog order:
// "fp32, tf32, fp16, bf16".
func (g *GPU) DtypeList() string {
	s := ""
	for _, d := range Dtypes {
		if g.Peak[d] > 0 {
			s += ", " + string(d)
		}
	}
	return s[2:]
}

var gpus = []GPU{
	a100,
	a100x40(),
	a800(),
	h100,
	h100PCIe,
	h100NVL(),
	h200(),
	h800(),
	h20,
	gh200(),
	b200,
	gb200(),
	b300(),
	gb300(),
}

var a100 = GPU{
	ID: "a100-80gb", Aliases: []string{"a100"}, Name: "A100 80GB",
	SMs: 108, TensorCores: 432, CUDACores: 6912, BoostClockHz: 1.41e9, VectorClockHz: 1.41e9,
	WarpSchedulers: 4, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32,
	RegistersPerSM: 65536, SharedMemPerSM: 164 << 10, SharedMemPerBlock: 163 << 10,
	L2Bytes:  40e6,
	HBMBytes: 81920 << 20, HBMDatasheet: 80e9, HBMBandwidth: 2.039e12, HBMLatency: 600e-9, // nvidia-smi: 81,920 MiB
	Peak: map[Dtype]float64{FP32: 19.5e12, TF32: 156e12, FP16: 312e12, BF16: 312e12},
	Link: "nvlink3", NVLinkGPUs: 8,
	// NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB) and the
	// Ampere architecture whitepaper: 108 SMs × 64 FP32 lanes, 4
	// tensor cores per SM, 164 KB shared memory per SM.
	Source: "NVIDIA A100 datasheet (SXM4 80GB); NVIDIA Ampere GA100 whitepaper",
}

// a100x40 is the first A100 (2020), the SXM4 40GB of DGX A100 and of
// many published runs before the 80GB: the same GA100 — 108 SMs, 1.41
// GHz, 312 TFLOP/s dense BF16 (432 tensor cores × 512 FLOP a clock ×
// 1.41 GHz), 40 MB of L2 — with five stacks of HBM2 (not HBM2e), 40 GB
// at 1,555 GB/s (NVIDIA A100 datasheet,
// https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf).
// nvidia-smi reports an A100-SXM4-40GB's total as 40,960 MiB.
func a100x40() GPU {
	g := a100
	g.ID, g.Aliases, g.Name = "a100-40gb", nil, "A100 40GB"
	g.HBMBytes, g.HBMDatasheet, g.HBMBandwidth = 40960<<20, 40e9, 1.555e12
	g.Peak = maps.Clone(a100.Peak)
	g.Source = "NVIDIA A100 datasheet (SXM4 40GB: HBM2 40 GB at 1,555 GB/s, the 80GB's compute); nvidia-smi: 40,960 MiB"
	return g
}

// a800 is the A100 SXM4 80GB sold in China under the October 2022 export
// rules: the same GA100, HBM2e and clocks, with NVLink cut from 600 GB/s
// two-way (12 NVLink 3 links) to 400 GB/s (8 links) — NVIDIA's A800
// datasheet and its statement to Reuters, November 2022 (reported e.g. at
// https://tweakers.net/nieuws/203182/). nvidia-smi reports an A800-SXM4-80GB as
// 81,920 MiB, as the A100 80GB. Many Chinese training runs of 2023 were
// on HGX A800 boards of 8.
func a800() GPU {
	g := a100
	g.ID, g.Aliases, g.Name = "a800", nil, "A800 SXM"
	g.Peak = maps.Clone(a100.Peak)
	g.Link = "nvlink3-a800"
	g.Source = "NVIDIA A800 datasheet (SXM4 80GB): A100's compute and 80 GB HBM2e at 2,039 GB/s, NVLink 400 GB/s two-way; nvidia-smi: 81,920 MiB"
	return g
}

var h100 = GPU{
	ID: "h100", Aliases: []string{"h100-sxm"}, Name: "H100 SXM",
	SMs: 132, TensorCores: 528, CUDACores: 16896, BoostClockHz: 1.83e9, VectorClockHz: 1.98e9,
	WarpSchedulers: 4, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32,
	RegistersPerSM: 65536, SharedMemPerSM: 228 << 10, SharedMemPerBlock: 227 << 10,
	L2Bytes:  50e6,
	HBMBytes: 81559 << 20, HBMDatasheet: 80e9, HBMBandwidth: 3.35e12, HBMLatency: 550e-9, // nvidia-smi: 81,559 MiB
	// 528 tensor cores × 1024 dense BF16 FLOP/clock × 1.83 GHz =
	// 989.4 TFLOP/s; FP8 doubles it.
	Peak: map[Dtype]float64{FP32: 66.9e12, TF32: 494.7e12, FP16: 989.4e12, BF16: 989.4e12, FP8: 1978.9e12},
	Link: "nvlink4", NVLinkGPUs: 8,
	// The seed's "14,592 CUDA cores" is the H100 PCIe (114 SMs × 128);
	// the SXM part has 132 × 128 = 16,896.
	Source: "NVIDIA H100 datasheet (SXM5); NVIDIA Hopper architecture whitepaper",
}

// h100PCIe is the H100 on a PCIe card (NVIDIA H100 PCIe product brief
// PB-11133-001, 350 W; NVIDIA H100 datasheet,
// https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet;
// Hopper architecture whitepaper): 114 SMs (14,592 FP32 lanes, 456 tensor
// cores), 80 GB of HBM2e at 2.0 TB/s, the SXM's 50 MB of L2 and SM limits.
// Its datasheet rates with sparsity are BF16 1,513, FP8 3,026, TF32 756
// TFLOP/s: dense 756.5, 1,513 and 378. As on the SXM, the tensor rates
// assume a lower clock than the CUDA cores' peak: 456 × 1024 × 1.62 GHz
// = 756.4 TFLOP/s (1.62 GHz derived from the rate, as llm.c's MFU table,
// llmc/mfu.h, has it), and the FP32 51 TFLOP/s is 14,592 × 2 × 1.755
// GHz = 51.2, its maximum boost clock.
//
// Its in-node link: a PCIe card joins one other through an NVLink bridge
// (600 GB/s two-way) and the rest of the server through PCIe 5. The
// engine's node is one domain of NVLinkGPUs on one link, so pairs on a
// bridge with PCIe between pairs cannot be said: the node is 8 cards on
// PCIe 5 (64 GB/s each way a GPU), a TP 2 on a bridged pair made slower
// than it is. A bridged pair alone is --gpus-per-node 2 --intra nvlink3:
// 300 GB/s each way, the bridge's, though its links are NVLink 4's.
var h100PCIe = GPU{
	ID: "h100-pcie", Name: "H100 PCIe",
	SMs: 114, TensorCores: 456, CUDACores: 14592, BoostClockHz: 1.62e9, VectorClockHz: 1.755e9,
	WarpSchedulers: 4, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32,
	RegistersPerSM: 65536, SharedMemPerSM: 228 << 10, SharedMemPerBlock: 227 << 10,
	L2Bytes:  50e6,
	HBMBytes: 81559 << 20, HBMDatasheet: 80e9, HBMBandwidth: 2.0e12, HBMLatency: 550e-9, // nvidia-smi: 81,559 MiB, as the SXM
	Peak: map[Dtype]float64{FP32: 51.2e12, TF32: 378.2e12, FP16: 756.4e12, BF16: 756.4e12, FP8: 1512.9e12},
	Link: "pcie5", NVLinkGPUs: 8,
	Source: "NVIDIA H100 PCIe product brief (PB-11133-001) and H100 datasheet: 114 SMs, 80 GB HBM2e at 2.0 TB/s, BF16 1,513 and FP8 3,026 TFLOP/s sparse (dense ÷ 2), FP32 51, 350 W; NVLink bridge pairs not modelled: 8 a node on PCIe 5",
}

// h100NVL is the H100 NVL (2023), a PCIe card with six stacks of HBM3,
// 94 GB at 3.9 TB/s, sold in bridged pairs for inference (NVIDIA H100
// datasheet, the H100 NVL column as revised per GPU: FP32 60, TF32 835,
// BF16 1,671, FP8 3,341 TFLOP/s with sparsity; 350–400 W; NVLink bridge
// 600 GB/s two-way; its launch figures were a pair's, the SXM's doubled).
// SMs: NVIDIA's sheet gives none; 132 (16,896 lanes, the SXM's) because
// FP32 60 TFLOP/s on the PCIe card's 114 SMs would need 2.06 GHz, above
// any Hopper part's 1.98. Both clocks are derived from the rates: 835.5
// T ÷ (528 × 1024) = 1.55 GHz for the tensor cores, 60 T ÷ (16,896 × 2) =
// 1.78 GHz for the CUDA cores. L2 and SM limits are taken as the SXM's.
// nvidia-smi reports 95,830 MiB. The in-node link as the H100 PCIe's: 8
// a node on PCIe 5, the bridge between pairs not modelled.
func h100NVL() GPU {
	g := h100
	g.ID, g.Aliases, g.Name = "h100-nvl", nil, "H100 NVL"
	g.BoostClockHz, g.VectorClockHz = 835.5e12/(528*1024), 60e12/(16896*2)
	g.HBMBytes, g.HBMDatasheet, g.HBMBandwidth = 95830<<20, 94e9, 3.9e12
	g.Peak = map[Dtype]float64{FP32: 60e12, TF32: 417.5e12, FP16: 835.5e12, BF16: 835.5e12, FP8: 1670.5e12}
	g.Link, g.NVLinkGPUs = "pcie5", 8
	g.Source = "NVIDIA H100 datasheet (H100 NVL, per GPU): 94 GB HBM3 at 3.9 TB/s, BF16 1,671 and FP8 3,341 TFLOP/s sparse (dense ÷ 2), FP32 60; 132 SMs derived from FP32; nvidia-smi: 95,830 MiB; NVLink bridge pairs not modelled: 8 a node on PCIe 5"
	return g
}

// h200 is the H100 with HBM3e: the same compute, "141GB" (143,771 MiB)
// at 4.8 TB/s.
func h200() GPU {
	g := h100
	g.ID, g.Aliases, g.Name = "h200", []string{"h200-sxm"}, "H200 SXM"
	g.HBMBytes, g.HBMDatasheet, g.HBMBandwidth = 143771<<20, 141e9, 4.8e12 // "141GB": nvidia-smi's 143,771 MiB
	g.Peak = maps.Clone(h100.Peak)
	g.Source = "NVIDIA H200 datasheet (SXM): H100's compute with 141 GB HBM3e at 4.8 TB/s"
	return g
}

// h800 is the H100 SXM with NVLink cut to 400 GB/s two-way (8
// links, not 18) for export: DeepSeek-V3 was trained on 2,048 of them.
// Its FP64 is cut too, which no lesson uses.
func h800() GPU {
	g := h100
	g.ID, g.Aliases, g.Name = "h800", []string{"h800-sxm"}, "H800 SXM"
	g.Peak = maps.Clone(h100.Peak)
	g.Link = "nvlink4-h800"
	g.Source = "NVIDIA H800 SXM5 datasheet: H100's compute and 80 GB HBM3 at 3.35 TB/s, NVLink 400 GB/s two-way; DeepSeek-V3 technical report (arXiv 2412.19437) §3.1"
	return g
}

// h20 is the Hopper part NVIDIA made for China under the October 2023
// rules (HGX H20, 8 a board on NVLink 4 through NVSwitch, 900 GB/s
// two-way; 400 W). NVIDIA publishes no datasheet outside its partners;
// the figures are the HGX H20 specification as reported (SemiAnalysis,
// November 2023; Tom's Hardware,
// https://www.tomshardware.com/pc-components/gpus/new-nvidia-ai-gpus-designed-to-get-around-us-export-bans-come-to-china-h20-l20-and-l2-to-fill-void-left-by-restricted-models):
// 96 GB of HBM3 at 4.0 TB/s, 60 MB of L2, dense BF16 148, FP8 296, TF32
// 74 TFLOP/s. SMs: 78, as CUDA reports them (PyTorch's
// get_device_properties on an H20: multi_processor_count=78, as printed
// in public code; Geekbench 6 showed the same, per Wccftech) — not
// derived: the tensor rates are capped, 148 T ÷ (312 tensor cores × 1.83
// GHz) = 259 dense BF16 FLOP a tensor core a clock, a quarter of an
// H100's 1024, by a mechanism NVIDIA does not publish. The clocks are
// assumed as the H100 SXM's (1.83 GHz tensor, 1.98 GHz vector), which
// gives FP32 9,984 × 2 × 1.98 GHz = 39.5 TFLOP/s; the reported 44 would
// need 2.2 GHz on 78 SMs, so the engine keeps 39.5. nvidia-smi reports
// 97,871 MiB, as the GH200's 96 GB.
var h20 = GPU{
	ID: "h20", Name: "H20",
	SMs: 78, TensorCores: 78 * 4, CUDACores: 78 * 128, BoostClockHz: 1.83e9, VectorClockHz: 1.98e9,
	WarpSchedulers: 4, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32,
	RegistersPerSM: 65536, SharedMemPerSM: 228 << 10, SharedMemPerBlock: 227 << 10,
	L2Bytes:  60e6,
	HBMBytes: 97871 << 20, HBMDatasheet: 96e9, HBMBandwidth: 4.0e12, HBMLatency: 550e-9,
	Peak: map[Dtype]float64{FP32: 78 * 128 * 2 * 1.98e9, TF32: 74e12, FP16: 148e12, BF16: 148e12, FP8: 296e12},
	Link: "nvlink4", NVLinkGPUs: 8,
	Source: "HGX H20 specification as reported (SemiAnalysis; Tom's Hardware): 96 GB HBM3 at 4.0 TB/s, BF16 148 and FP8 296 TFLOP/s dense, NVLink 900 GB/s two-way; 78 SMs as CUDA reports; clocks assumed as H100 SXM's, FP32 derived; nvidia-smi: 97,871 MiB",
}

// gh200 is the Hopper GPU of a GH200 Grace Hopper Superchip: the H100
// SXM's 132 SMs and clocks (an OpenCL probe of a GH200 reads 132 compute
// units at 1,980 MHz, 66.9 TFLOP/s FP32: mredenti/PowerCapping on
// GitHub) and its tensor rates (FP8 3,958,
// BF16 1,979 TFLOP/s with sparsity), with 96 GB of HBM3 at 4 TB/s (NVIDIA
// GH200 Grace Hopper Superchip datasheet,
// https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/);
// nvidia-smi reports 97,871 MiB. The later GH200 with 144 GB of HBM3e at
// 4.9 TB/s is not this entry. The Grace CPU's LPDDR5X (up to 480 GB over
// NVLink-C2C, 900 GB/s two-way) is not HBM and not counted. Between
// superchips: NVLink 4 (18 links, 900 GB/s two-way) through NVLink
// Switches in a GH200 NVL32 rack, two on an NVL2 board, or InfiniBand
// alone; the entry takes 8 a node on NVLink 4, as an HGX H100, which is
// none of them exactly — --gpus-per-node and --intra say the others.
func gh200() GPU {
	g := h100
	g.ID, g.Aliases, g.Name = "gh200", nil, "GH200"
	g.HBMBytes, g.HBMDatasheet, g.HBMBandwidth = 97871<<20, 96e9, 4e12
	g.Peak = maps.Clone(h100.Peak)
	g.Source = "NVIDIA GH200 Grace Hopper Superchip datasheet: H100's compute with 96 GB HBM3 at 4 TB/s (a 144 GB HBM3e, 4.9 TB/s variant not modelled); nvidia-smi: 97,871 MiB; 8 a node on NVLink 4 assumed"
	return g
}

// b200 is the Blackwell GPU of an HGX (or DGX) B200, 8 a node on NVLink 5
// through NVSwitch: two dies of 74 enabled SMs each, 4 tensor cores and
// 128 FP32 lanes an SM as on Hopper. NVIDIA quotes the HGX B200's tensor
// rates for 8 GPUs with sparsity (BF16 36 PFLOP/s): ÷ 8 ÷ 2 = 2.25 dense.
var b200 = GPU{
	ID: "b200", Name: "B200",
	SMs: 148, TensorCores: 148 * 4, CUDACores: 148 * 128,
	// No clock in NVIDIA's briefs: both are derived from the peaks. The
	// tensor clock assumes the 5th-generation tensor core does 2048 dense
	// BF16 FLOP a clock (twice Hopper's 1024): 2.25 P ÷ (592 × 2048) =
	// 1.86 GHz; the vector clock is FP32 75 T ÷ (18,944 × 2) = 1.98 GHz.
	BoostClockHz: 2.25e15 / (592 * 2048), VectorClockHz: 75e12 / (18944 * 2),
	// Compute capability 10.0 (CUDA C++ Programming Guide): Hopper's
	// limits — 64 warps, 32 blocks, 64K registers, 228 KB shared memory.
	WarpSchedulers: 4, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32,
	RegistersPerSM: 65536, SharedMemPerSM: 228 << 10, SharedMemPerBlock: 227 << 10,
	L2Bytes: 126e6, // Chips and Cheese's B200 measurements
	// No nvidia-smi total in our references: HBMBytes is the datasheet's
	// 180 GB (DGX B200: 1,440 GB ÷ 8), an estimate, not what a job sees.
	HBMBytes: 180e9, HBMDatasheet: 180e9, HBMBandwidth: 8e12, HBMLatency: 600e-9,
	Peak: map[Dtype]float64{FP32: 75e12, TF32: 1.125e15, FP16: 2.25e15, BF16: 2.25e15, FP8: 4.5e15, FP4: 9e15},
	Link: "nvlink5", NVLinkGPUs: 8, PairMMA: true,
	Source: "NVIDIA HGX/DGX B200 datasheets (dense = sparse ÷ 2; 1000 W; HBM 180 GB as printed); Chips and Cheese: 148 SMs",
}

// gb200 is one Blackwell GPU of a GB200 NVL72 rack (two a Grace CPU, 72 on
// one NVLink domain): the B200's silicon at a higher power limit, so faster
// clocks and more HBM. Its SM count and limits are taken as the B200's.
func gb200() GPU {
	g := b200
	g.ID, g.Name = "gb200", "GB200"
	// Derived as the B200's: 2.5 P ÷ (592 × 2048) = 2.06 GHz; FP32 80 T
	// ÷ (18,944 × 2) = 2.11 GHz.
	g.BoostClockHz, g.VectorClockHz = 2.5e15/(592*2048), 80e12/(18944*2)
	// 13.4 TB of HBM3e ÷ 72 = 186 GB a GPU, the datasheet's figure
	// (HBMBytes the same: no nvidia-smi total in our references).
	g.HBMBytes, g.HBMDatasheet = 186e9, 186e9
	// 72 GPUs on one NVLink domain: 18 compute trays of 4 GPUs joined by
	// 9 NVLink Switch trays, 130 TB/s in all = 72 × 1.8 TB/s two-way.
	g.NVLinkGPUs = 72
	// The rack's 360 PFLOP/s BF16 and 720 FP8 with sparsity ÷ 72 ÷ 2;
	// FP32 5,760 TFLOP/s ÷ 72.
	g.Peak = map[Dtype]float64{FP32: 80e12, TF32: 1.25e15, FP16: 2.5e15, BF16: 2.5e15, FP8: 5e15, FP4: 10e15}
	g.Source = "NVIDIA GB200 NVL72 page, per GPU = rack ÷ 72 (dense = sparse ÷ 2; HBM 13.4 TB ÷ 72 as printed)"
	return g
}

// b300 is the Blackwell Ultra GPU of an HGX (or DGX) B300, 8 a node on
// NVLink 5 through NVSwitch (NVIDIA HGX page, https://www.nvidia.com/en-us/data-center/hgx/:
// 8 GPUs, FP4 144 PFLOP/s with sparsity and 105 without, FP8 72, BF16 36
// and TF32 18 with sparsity, FP32 600 TFLOP/s, FP64 10, "up to 2.3 TB" of
// HBM3e, 1.8 TB/s of NVLink a GPU). NVIDIA's Blackwell Ultra blog
// (https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era)
// gives the die: 160 SMs in the full implementation, 128 FP32 lanes and 4
// tensor cores an SM, 288 GB of HBM3e in 8 stacks at 8 TB/s, NVLink 5 at
// 1.8 TB/s two-way, FP64 cut. The part as shipped enables fewer: CUDA on
// an "NVIDIA B300 SXM6 AC" (compute capability 10.3) reports 148 SMs, as
// on the B200, 126 MB of L2 and 232,448 bytes of opt-in shared memory a
// block (227 KB, the B200's), in public benchmark reports of the part;
// the same reports read nvidia-smi's total as 275,040 MiB, 288.4 GB.
//
// Per GPU it is the B200 at BF16, FP8 and TF32 — the HGX B300 page prints
// the HGX B200's 36, 72 and 18 PFLOP/s sparse for 8 GPUs, ÷ 8 ÷ 2 = 2.25,
// 4.5 and 1.125 dense — and FP32 600 T ÷ 8 = 75 TFLOP/s; only FP4 gains:
// 105 P ÷ 8 = 13.125 dense. NVIDIA quotes FP4 dense and sparse apart for
// Blackwell Ultra (sparse 144 ÷ 8 = 18, not twice 13.125), so FP4 is
// taken from the dense figure, not halved from the sparse one. The "15
// PFLOPS dense NVFP4" of the blog is the GB300's (1,400 W), not this
// part's.
func b300() GPU {
	g := b200
	g.ID, g.Name = "b300", "B300"
	// Compute capability 10.3: the limits as 10.0's (B200's).
	g.Peak = map[Dtype]float64{FP32: 75e12, TF32: 1.125e15, FP16: 2.25e15, BF16: 2.25e15, FP8: 4.5e15, FP4: 105e15 / 8}
	// Clocks derived as the B200's, from the same rates on the same 148
	// SMs: 2.25 P ÷ (592 × 2048) = 1.86 GHz; FP32 75 T ÷ (18,944 × 2) =
	// 1.98 GHz. (Reports read a maximum SM clock of 2,032 MHz.)
	g.BoostClockHz, g.VectorClockHz = 2.25e15/(592*2048), 75e12/(18944*2)
	// nvidia-smi's 275,040 MiB as publicly reported; the label's 288 GB
	// (HGX page: "up to 2.3 TB" ÷ 8 = 288).
	g.HBMBytes, g.HBMDatasheet, g.HBMBandwidth = 275040<<20, 288e9, 8e12
	g.Source = "NVIDIA HGX B300 page, per GPU = board ÷ 8 (BF16, FP8, TF32 dense = sparse ÷ 2; FP4 105 PFLOP/s dense as printed; 2.3 TB HBM3e); NVIDIA Blackwell Ultra technical blog (288 GB at 8 TB/s, NVLink 5 1.8 TB/s, 160 SMs full die); 148 SMs and 275,040 MiB as CUDA and nvidia-smi report in public benchmarks"
	return g
}

// gb300 is one Blackwell Ultra GPU of a GB300 NVL72 rack (four GPUs and
// two Grace CPUs a board, 72 GPUs on one NVLink domain): the B300's
// silicon at 1,400 W (NVIDIA's Blackwell Ultra blog; Tom's Hardware on
// NVIDIA's Hot Chips 2025 talk), so faster clocks. NVIDIA's GB300 NVL72
// page (https://www.nvidia.com/en-us/data-center/gb300-nvl72/) gives
// the rack: FP4 1,440 PFLOP/s with sparsity and 1,080 without, FP8/FP6
// 720, FP16/BF16 360 and TF32 180 with sparsity, FP32 6 PFLOP/s, FP64
// 100 TFLOP/s, up to 20 TB of HBM3e at 576 TB/s, 130 TB/s of NVLink. The
// blog's "15 PetaFLOPS dense NVFP4" is 1,080 ÷ 72. SMs as the B300's
// (public kernel notes read 148 on a GB300).
func gb300() GPU {
	g := b300()
	g.ID, g.Name = "gb300", "GB300"
	// The rack's sparse figures ÷ 72 ÷ 2; FP4 1,080 dense ÷ 72; FP32 6 P ÷
	// 72 = 83.3 T (Tom's Hardware's table of NVIDIA's figures: 0.083).
	g.Peak = map[Dtype]float64{FP32: 6e15 / 72, TF32: 1.25e15, FP16: 2.5e15, BF16: 2.5e15, FP8: 5e15, FP4: 1080e15 / 72}
	// Derived: 2.5 P ÷ (592 × 2048) = 2.06 GHz, as the GB200's; FP32
	// 83.3 T ÷ (18,944 × 2) = 2.20 GHz.
	g.BoostClockHz, g.VectorClockHz = 2.5e15/(592*2048), 6e15/72/(18944*2)
	// 288 GB a GPU (the blog; 72 × 288 = 20.7 TB, the page's "up to 20
	// TB"); no nvidia-smi total in our references, so HBMBytes is the
	// label, an estimate as the GB200's.
	g.HBMBytes, g.HBMDatasheet = 288e9, 288e9
	// 72 GPUs on one NVLink domain: 18 compute trays of 4 GPUs, 9 NVLink
	// Switch trays, 130 TB/s = 72 × 1.8 TB/s two-way, as the GB200 NVL72.
	g.NVLinkGPUs = 72
	g.Source = "NVIDIA GB300 NVL72 page, per GPU = rack ÷ 72 (BF16, FP8, TF32 dense = sparse ÷ 2; FP4 1,080 PFLOP/s dense as printed; FP32 6 PFLOP/s); NVIDIA Blackwell Ultra technical blog (288 GB HBM3e at 8 TB/s, 15 PFLOP/s dense NVFP4, NVLink 5 1.8 TB/s); SMs as the B300's; HBM the label (no nvidia-smi total)"
	return g
}

// GPUByID finds a GPU by its id or an alias.
func GPUByID(id string) (GPU, bool) {
	for _, g := range gpus {
		if g.ID == id {
			return g, true
		}
		for _, a := range g.Aliases {
			if a == id {
				return g, true
			}
		}
	}
	return GPU{}, false
}

// GPUIDs lists the GPUs' ids and aliases, sorted.
func GPUIDs() []string {
	var ids []string
	for _, g := range gpus {
		ids = append(ids, g.ID)
		ids = append(ids, g.Aliases...)
	}
	sort.Strings(ids)
	return ids
}
