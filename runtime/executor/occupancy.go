package executor

import "github.com/tcgen/tcgen/runtime/gpu"

// occupancy is a Function that knows how many of its blocks an SM holds
// at once (cuda.Function).
type occupancy interface {
	MaxActiveBlocksPerSM(block, dynShared int) (int, error)
}

// residentGrid caps the grid of a persistent kernel (gen.Grid.BlocksPerSM:
// blocks that stride over the items) at the blocks the SMs hold at once.
// Each block's share of the items is fixed by the stride, so blocks beyond
// one wave would run their whole share after the first wave's (a grid
// sized by threads, when registers or shared memory hold fewer blocks per
// SM; docs/performance.md). A function that cannot tell keeps the grid.
func residentGrid(fn gpu.Function, grid uint32, block, dynShared, sms int) uint32 {
	oc, ok := fn.(occupancy)
	if !ok || grid == 0 {
		return grid
	}
	per, err := oc.MaxActiveBlocksPerSM(block, dynShared)
	if err != nil || per <= 0 {
		return grid
	}
	return uint32(min(uint64(grid), uint64(per)*uint64(max(sms, 1))))
}
