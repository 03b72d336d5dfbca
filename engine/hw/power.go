package hw

// Power is what a GPU and its share of its server draw at most, watts,
// as their makers publish it: the figures a training run's energy is
// built from (engine/budget).
type Power struct {
	// TDPWatts is the GPU's maximum power (NVIDIA's "max TDP" or board
	// power): what it draws busy on dense matrix products.
	TDPWatts float64
	// NodeWattsPerGPU is the rest of the GPU's server at its maximum, a
	// GPU's share: the system's published maximum power less its GPUs'
	// TDPs, divided by its GPUs — CPUs, host memory, NICs, NVSwitches,
	// fans and power-supply losses. 0 where no figure is known.
	NodeWattsPerGPU float64
	// NodeAssumed: no system of this GPU publishes its power, and
	// NodeWattsPerGPU is another system's (Source says which), or 0.
	NodeAssumed bool
	Source      string
}

// Node maxima, watts, from NVIDIA's DGX datasheets (system power usage).
const (
	// DGX A100: "6.5 kW max" for 8 A100 SXM4 at 400 W (NVIDIA DGX A100
	// datasheet): (6,500 − 8 × 400) ÷ 8 = 412.5 W a GPU.
	dgxA100Watts = 6500
	// DGX H100 and DGX H200: "~10.2 kW max" for 8 GPUs at 700 W (NVIDIA
	// DGX H100 and DGX H200 datasheets): (10,200 − 8 × 700) ÷ 8 = 575 W
	// a GPU. Measured, an 8-GPU H100 node training Llama 2 13B drew at
	// most 8.4 kW (Latif et al. 2025, "Single-Node Power Demand During
	// AI Training: Measurements on an 8-GPU NVIDIA H100 System", IEEE
	// Access 13): the datasheet's maximum is an upper bound.
	dgxH100Watts = 10200
	// DGX B200: "~14.3 kW max" for 8 B200 at 1,000 W (NVIDIA DGX B200
	// datasheet): (14,300 − 8 × 1,000) ÷ 8 = 787.5 W a GPU.
	dgxB200Watts = 14300
	// A GB200 NVL72 rack, as reported (≈ 120 kW for 72 GPUs, 36 Grace
	// CPUs and 9 NVLink switch trays; NVIDIA's NVL72 page gives no
	// power): 120,000 ÷ 72 − 1,200 = 466.7 W a GPU.
	nvl72Watts = 120000
)

func nodeShare(systemWatts, gpus, tdp float64) float64 { return (systemWatts - gpus*tdp) / gpus }

// power is the table Power reads, by GPU id.
var power = map[string]Power{
	// NVIDIA A100 datasheet: SXM4 80GB and 40GB, "Max TDP Power 400W".
	"a100-80gb": {400, nodeShare(dgxA100Watts, 8, 400), false, "NVIDIA A100 datasheet (SXM4: 400 W); DGX A100 datasheet (6.5 kW max for 8)"},
	"a100-40gb": {400, nodeShare(dgxA100Watts, 8, 400), false, "NVIDIA A100 datasheet (SXM4: 400 W); DGX A100 datasheet (6.5 kW max for 8)"},
	// The A800 SXM4 is the A100's silicon and board (400 W, NVIDIA A800
	// datasheet) on HGX A800 boards, whose servers are HGX A100's.
	"a800": {400, nodeShare(dgxA100Watts, 8, 400), true, "NVIDIA A800 datasheet (SXM4: 400 W); the node as a DGX A100's (6.5 kW max for 8), assumed"},
	// NVIDIA H100 datasheet: SXM5 "up to 700W (configurable)".
	"h100": {700, nodeShare(dgxH100Watts, 8, 700), false, "NVIDIA H100 datasheet (SXM5: up to 700 W); DGX H100 datasheet (~10.2 kW max for 8)"},
	// NVIDIA H100 PCIe product brief (PB-11133-001): 350 W; H100 NVL:
	// 350–400 W configurable, its maximum taken. No NVIDIA system of 8
	// PCIe cards publishes its power: the DGX A100's share (two CPUs,
	// NICs, fans, no NVSwitch with the cards' own) is taken.
	"h100-pcie": {350, nodeShare(dgxA100Watts, 8, 400), true, "NVIDIA H100 PCIe product brief (350 W); the node as a DGX A100's share (412.5 W a GPU), assumed"},
	"h100-nvl":  {400, nodeShare(dgxA100Watts, 8, 400), true, "NVIDIA H100 datasheet (H100 NVL: 350–400 W, the maximum); the node as a DGX A100's share (412.5 W a GPU), assumed"},
	// NVIDIA H200 datasheet: SXM "up to 700W (configurable)".
	"h200": {700, nodeShare(dgxH100Watts, 8, 700), false, "NVIDIA H200 datasheet (SXM: up to 700 W); DGX H200 datasheet (~10.2 kW max for 8)"},
	// The H800 SXM5 is the H100 SXM's board (700 W) with its NVLink cut;
	// DGX H800 is the DGX H100.
	"h800": {700, nodeShare(dgxH100Watts, 8, 700), true, "NVIDIA H800 SXM5 (the H100 SXM's 700 W); the node as a DGX H100's (~10.2 kW max for 8), assumed"},
	// HGX H20 as reported (SemiAnalysis, November 2023): 400 W, on an
	// HGX board like the H100's.
	"h20": {400, nodeShare(dgxH100Watts, 8, 700), true, "HGX H20 as reported (400 W); the node as a DGX H100's share (575 W a GPU), assumed"},
	// NVIDIA GH200 datasheet: the superchip "programmable from 450W to
	// 1000W", Grace CPU and its LPDDR5X included; the maximum taken. The
	// rest of its node (NICs, fans) has no published figure and is not
	// counted.
	"gh200": {1000, 0, true, "NVIDIA GH200 datasheet (the superchip, Grace CPU included: 450–1,000 W, the maximum); the rest of the node not counted (no figure)"},
	// NVIDIA DGX B200 datasheet: 1,000 W a GPU (the catalog's source).
	"b200": {1000, nodeShare(dgxB200Watts, 8, 1000), false, "NVIDIA DGX B200 datasheet (1,000 W a GPU; ~14.3 kW max for 8)"},
	// GB200 as reported: 1,200 W a GPU (the superchip's 2,700 W less its
	// Grace, halved); the NVL72 rack ≈ 120 kW.
	"gb200": {1200, nvl72Watts/72.0 - 1200, true, "GB200 as reported (1,200 W a GPU; an NVL72 rack ≈ 120 kW for 72); no NVIDIA datasheet figure"},
	// HGX B300 as reported: 1,100 W a GPU (NVIDIA's HGX page gives no
	// power; cloud providers' B300 tables and B300 servers' TGP read
	// 1,100 W). No DGX B300 maximum in our references: the node as a DGX
	// B200's share (787.5 W a GPU), assumed.
	"b300": {1100, nodeShare(dgxB200Watts, 8, 1000), true, "HGX B300 as reported (1,100 W a GPU; no NVIDIA figure in our references); the node as a DGX B200's share (787.5 W a GPU), assumed"},
	// GB300: 1,400 W a GPU (NVIDIA's Blackwell Ultra blog; Tom's Hardware
	// on NVIDIA's Hot Chips 2025 talk). The rack's power is not on
	// NVIDIA's page; ≈ 120 kW as reported for the NVL72, the GB200's
	// figure: 120,000 ÷ 72 − 1,400 = 266.7 W a GPU, assumed.
	"gb300": {1400, nvl72Watts/72.0 - 1400, true, "GB300: 1,400 W a GPU (NVIDIA Blackwell Ultra blog; Hot Chips 2025); an NVL72 rack ≈ 120 kW for 72 as reported, assumed"},
}

// Power is g's power figures; zero for a GPU outside the catalog.
func (g GPU) Power() Power { return power[g.ID] }
