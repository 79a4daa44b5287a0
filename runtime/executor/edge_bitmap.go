package executor

import (
	"context"
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// edgeBitmap runs the dense rows classes (iterator edge, intersection
// bitmap; gen/edge_bitmap.go). In every pass the first of them with items writes
// the rows of the n x n bit matrix (the common square buffer, scratch.go)
// with its rows kernel, inside its own time; then each launches once with
// gen.KernelArgs, the matrix as its scratch.
type edgeBitmap struct {
	noStats
	slots []int

	first int          // the class that writes the rows (-1: none has items)
	rows  *gen.Helper  // its rows kernel
	fn    gpu.Function // loaded
	grid  uint32       // a warp per vertex
}

func newEdgeBitmap(_ *planning, slots []int) (family, error) {
	return &edgeBitmap{slots: slots, first: -1}, nil
}

func (*edgeBitmap) buffers() []bufferSpec { return nil } // the matrix is common: scratchPlan sizes it

func (f *edgeBitmap) setup(pr *Prepared) error {
	for _, i := range f.slots {
		if pc := &pr.classes[i]; pc.items > 0 {
			f.first, f.rows = i, denseRows(pc.c)
			break
		}
	}
	if f.first < 0 {
		return nil
	}
	var err error
	if f.fn, err = pr.mod.Function(f.rows.Kernel); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, f.rows.Kernel, err)
	}
	f.grid = f.rows.Grid.Blocks(uint64(pr.n), pr.sms)
	return nil
}

func (f *edgeBitmap) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	if pc.c.Slot == f.first && f.grid > 0 {
		if err := f.fn.Launch(gpu.Dim3{X: f.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(f.rows.Block), Y: 1, Z: 1}, 0,
			pr.off, pr.adj, pr.n, pr.square, pc.scratchWords); err != nil {
			return pr.kernelErr(pc, err)
		}
	}
	return pr.launchOne(pc)
}
