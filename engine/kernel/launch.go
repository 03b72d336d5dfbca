package kernel

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// WarpSize is the number of threads that issue together (SIMT).
const WarpSize = 32

// Allocation rules of NVIDIA GPUs since Volta (CUDA occupancy calculator):
// registers are granted per warp in units of 256, and the runtime reserves
// 1 KB of shared memory per block.
const (
	regAllocUnit         = 256
	smemReservedPerBlock = 1 << 10
)

// LaunchConfig is a kernel launch: a grid of blocks, each of
// ThreadsPerBlock threads with their registers and shared memory.
type LaunchConfig struct {
	GPU                hw.GPU
	Blocks             int
	ThreadsPerBlock    int
	RegistersPerThread int
	SharedMemPerBlock  int // bytes
}

// Launch is how a grid lands on the SMs.
type Launch struct {
	Config        LaunchConfig
	WarpsPerBlock int
	// BlocksPerSM is how many blocks one SM holds at once, and Limit the
	// resource that caps it: "threads", "registers", "shared-memory" or
	// "blocks".
	BlocksPerSM int
	Limit       string
	WarpsPerSM  int
	Occupancy   float64 // resident warps ÷ the SM's maximum
	Waves       int
	// TailBlocks run in the last wave; TailUtilization is the share of the
	// GPU's block slots they fill (1 when the grid divides evenly).
	TailBlocks      int
	TailUtilization float64
	// What one block takes of its SM, as allocated: registers in whole
	// units of 256 a warp, shared memory with the runtime's 1 KB.
	RegistersPerBlock int
	SharedMemPerBlock int
}

// Place computes occupancy and waves. It returns an error naming the field
// when a block cannot fit on an SM at all.
func Place(c LaunchConfig) (Launch, error) {
	g := c.GPU
	l := Launch{Config: c}
	maxThreads := g.MaxWarpsPerSM * WarpSize
	switch {
	case c.Blocks < 1:
		return l, fmt.Errorf("blocks: %d; at least 1", c.Blocks)
	case c.ThreadsPerBlock < 1 || c.ThreadsPerBlock > 1024:
		return l, errs.Range("threads-per-block", c.ThreadsPerBlock, 1, 1024, "")
	case c.RegistersPerThread < 1 || c.RegistersPerThread > 255:
		return l, errs.Range("registers-per-thread", c.RegistersPerThread, 1, 255, "")
	case c.SharedMemPerBlock < 0 || c.SharedMemPerBlock > g.SharedMemPerBlock:
		return l, errs.F("smem", "shared-memory-per-block: %d bytes; allowed 0–%d on %s", "smem max gpu", c.SharedMemPerBlock, g.SharedMemPerBlock, g.Name)
	}
	l.WarpsPerBlock = ceilDiv(c.ThreadsPerBlock, WarpSize)
	regsPerWarp := ceilDiv(c.RegistersPerThread*WarpSize, regAllocUnit) * regAllocUnit
	limits := []struct {
		name string
		n    int
	}{
		{"threads", maxThreads / (l.WarpsPerBlock * WarpSize)},
		{"registers", g.RegistersPerSM / (regsPerWarp * l.WarpsPerBlock)},
		{"shared-memory", g.SharedMemPerSM / (c.SharedMemPerBlock + smemReservedPerBlock)},
		{"blocks", g.MaxBlocksPerSM},
	}
	l.RegistersPerBlock = regsPerWarp * l.WarpsPerBlock
	l.SharedMemPerBlock = c.SharedMemPerBlock + smemReservedPerBlock
	l.BlocksPerSM = limits[0].n
	l.Limit = limits[0].name
	for _, lim := range limits[1:] {
		if lim.n < l.BlocksPerSM {
			l.BlocksPerSM, l.Limit = lim.n, lim.name
		}
	}
	if l.BlocksPerSM == 0 {
		return l, errs.F("block_fit", "%s: one block of %d threads × %d registers and %d bytes of shared memory does not fit an SM of %s", "limit_id threads registers smem gpu", l.Limit, c.ThreadsPerBlock, c.RegistersPerThread, c.SharedMemPerBlock, g.Name)
	}
	l.WarpsPerSM = l.BlocksPerSM * l.WarpsPerBlock
	l.Occupancy = float64(l.WarpsPerSM) / float64(g.MaxWarpsPerSM)
	slots := g.SMs * l.BlocksPerSM
	l.Waves = ceilDiv(c.Blocks, slots)
	l.TailBlocks = c.Blocks - (l.Waves-1)*slots
	l.TailUtilization = float64(l.TailBlocks) / float64(slots)
	return l, nil
}

// SMOfBlock is where the block scheduler puts block b in the first wave:
// round-robin over the SMs, as the picture draws it.
func (l Launch) SMOfBlock(b int) int { return b % l.Config.GPU.SMs }

// Divergence is a branch inside a warp: Taken of its 32 lanes run path A
// (CostA instructions), the others path B (CostB).
type Divergence struct {
	Taken        int
	CostA, CostB int
}

// IssueSlots is how many instructions the warp issues for the branch: when
// its lanes disagree it runs both paths one after the other, each with the
// other path's lanes masked off (SIMT serialisation).
func (d Divergence) IssueSlots() int {
	switch {
	case d.Taken <= 0:
		return d.CostB
	case d.Taken >= WarpSize:
		return d.CostA
	}
	return d.CostA + d.CostB
}

// IdleLanes is the share of lane-slots wasted over the branch.
func (d Divergence) IdleLanes() float64 {
	slots := d.IssueSlots() * WarpSize
	if slots == 0 {
		return 0
	}
	taken := min(max(d.Taken, 0), WarpSize)
	busy := taken*d.CostA + (WarpSize-taken)*d.CostB
	return 1 - float64(busy)/float64(slots)
}
