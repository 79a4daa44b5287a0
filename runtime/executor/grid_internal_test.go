package executor

import (
	"errors"
	"github.com/tcgen/tcgen/runtime/gpu"
	"testing"
)

// occFunc is a Function that reports a fixed occupancy (or fails).
type occFunc struct {
	gpu.Function
	per int
	err error
}

func (f occFunc) MaxActiveBlocksPerSM(block, dynShared int) (int, error) { return f.per, f.err }

// TestResidentGrid: a persistent kernel's grid is capped at one wave of
// the blocks the SMs hold; a function that cannot tell, or tells nothing
// useful, keeps the grid it was given.
func TestResidentGrid(t *testing.T) {
	for _, c := range []struct {
		fn         gpu.Function
		grid, want uint32
	}{
		{occFunc{per: 6}, 1056, 792}, // RMAT-20's pivot kernel on 132 SMs: 8 by threads, 6 by registers
		{occFunc{per: 8}, 1056, 1056},
		{occFunc{per: 6}, 100, 100}, // fewer blocks than a wave: unchanged
		{occFunc{per: 0}, 1056, 1056},
		{occFunc{per: 6, err: errors.New("no")}, 1056, 1056},
		{nil, 1056, 1056},
		{occFunc{per: 6}, 0, 0},
	} {
		if got := residentGrid(c.fn, c.grid, 256, 0, 132); got != c.want {
			t.Errorf("residentGrid(%+v, %d) = %d, want %d", c.fn, c.grid, got, c.want)
		}
	}
}
