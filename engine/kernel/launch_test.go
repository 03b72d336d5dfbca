package kernel

import (
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// Hand-worked occupancy on an H100 (65,536 registers, 228 KB shared
// memory, 64 warps and 32 blocks per SM).
func TestPlace(t *testing.T) {
	h, _ := hw.GPUByID("h100")
	tests := []struct {
		name     string
		c        LaunchConfig
		perSM    int
		limit    string
		occ      float64
		waves    int
		tailUtil float64
	}{
		// 256 threads × 64 registers = 16,384 a block → 4 blocks, 32 warps, 50%.
		{"registers", LaunchConfig{h, 1000, 256, 64, 0}, 4, "registers", 0.5, 2, (1000 - 528) / 528.0},
		// 48 KB + 1 KB reserved a block → 228 KB holds 4.
		{"shared memory", LaunchConfig{h, 528, 128, 32, 48 << 10}, 4, "shared-memory", 16.0 / 64, 1, 1},
		// 1024 threads → 2 blocks fill the 2,048 thread slots: 100%.
		{"threads", LaunchConfig{h, 264, 1024, 32, 0}, 2, "threads", 1, 1, 1},
		// Tiny blocks: the 32-block limit bites first.
		{"blocks", LaunchConfig{h, 132*32 + 1, 32, 16, 0}, 32, "blocks", 0.5, 2, 1 / (132 * 32.0)},
	}
	for _, tt := range tests {
		l, err := Place(tt.c)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if l.BlocksPerSM != tt.perSM || l.Limit != tt.limit || math.Abs(l.Occupancy-tt.occ) > 1e-12 || l.Waves != tt.waves || math.Abs(l.TailUtilization-tt.tailUtil) > 1e-12 {
			t.Errorf("%s: %d blocks/SM (%s), occupancy %.3f, %d waves, tail %.4f; want %d (%s), %.3f, %d, %.4f",
				tt.name, l.BlocksPerSM, l.Limit, l.Occupancy, l.Waves, l.TailUtilization, tt.perSM, tt.limit, tt.occ, tt.waves, tt.tailUtil)
		}
	}
	// A block that cannot fit is an error naming the resource.
	if _, err := Place(LaunchConfig{h, 1, 1024, 255, 0}); err == nil {
		t.Error("1024 threads × 255 registers placed")
	}
	if _, err := Place(LaunchConfig{h, 1, 64, 32, 300 << 10}); err == nil {
		t.Error("300 KB of shared memory placed")
	}
}

// A branch that splits a warp runs both paths: with 8 of 32 lanes on a
// 10-instruction path and 24 on a 30-instruction path the warp issues 40,
// and (8·10 + 24·30)/(32·40) = 62.5% of lane-slots are busy.
func TestDivergence(t *testing.T) {
	d := Divergence{Taken: 8, CostA: 10, CostB: 30}
	if d.IssueSlots() != 40 || math.Abs(d.IdleLanes()-0.375) > 1e-12 {
		t.Errorf("split warp: %d slots, %.3f idle; want 40, 0.375", d.IssueSlots(), d.IdleLanes())
	}
	u := Divergence{Taken: 32, CostA: 10, CostB: 30}
	if u.IssueSlots() != 10 || u.IdleLanes() != 0 {
		t.Errorf("uniform warp: %d slots, %.3f idle; want 10, 0", u.IssueSlots(), u.IdleLanes())
	}
}

// What one block takes of its SM, as the picture's meters draw it: 256
// threads × 64 registers = 16,384 of the SM's 65,536 (four blocks fill
// them); 48 KB of shared memory is 49,152 + the runtime's 1,024 bytes.
func TestBlockFootprint(t *testing.T) {
	g, _ := hw.GPUByID("h100")
	l, err := Place(LaunchConfig{GPU: g, Blocks: 1000, ThreadsPerBlock: 256, RegistersPerThread: 64, SharedMemPerBlock: 48 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if l.RegistersPerBlock != 16384 || l.SharedMemPerBlock != 49152+1024 {
		t.Errorf("a block takes %d registers and %d bytes; want 16384 and 50176", l.RegistersPerBlock, l.SharedMemPerBlock)
	}
	if l.BlocksPerSM*l.RegistersPerBlock > g.RegistersPerSM || l.BlocksPerSM*l.SharedMemPerBlock > g.SharedMemPerSM {
		t.Errorf("%d blocks overfill the SM", l.BlocksPerSM)
	}
	// 33 registers round up to 40 a thread (1,280 a warp, five units).
	l, _ = Place(LaunchConfig{GPU: g, Blocks: 1, ThreadsPerBlock: 32, RegistersPerThread: 33})
	if l.RegistersPerBlock != 1280 {
		t.Errorf("33 registers × 32 threads: %d allocated, want 1280", l.RegistersPerBlock)
	}
}
