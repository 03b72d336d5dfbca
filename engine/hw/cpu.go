package hw

// CPU is a server processor, for the comparison with a GPU.
type CPU struct {
	ID, Name string
	Cores    int
	ClockHz  float64
	// FLOPPerCycle is one core's peak FP32 FLOP per clock with its vector
	// units (FMA counts 2).
	FLOPPerCycle float64
	Source       string
}

// ServerCPU is the seed's "64-core server CPU".
var ServerCPU = CPU{
	ID: "cpu-64c", Name: "64-core CPU", Cores: 64, ClockHz: 3.5e9, FLOPPerCycle: 32,
	// A 64-core AMD EPYC 9554 (Zen 4) class part: two 256-bit FMA pipes
	// per core = 2 × 8 FP32 lanes × 2 FLOP = 32 FLOP per cycle; about 3.5
	// GHz with all cores busy.
	Source: "AMD EPYC 9554 class: 64 Zen 4 cores, 2 × 256-bit FMA per core, ~3.5 GHz all-core",
}

// PeakFLOPS is the CPU's FP32 peak.
func (c CPU) PeakFLOPS() float64 { return float64(c.Cores) * c.ClockHz * c.FLOPPerCycle }
