package executor

import (
	"context"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// singleLaunch runs the classes launched once per pass with
// gen.KernelArgs: the vertex, edge and edge-chunk iterators with a merge,
// binary search, hash, merge path or vertex bitmap intersection. They need
// no buffers beyond the common ones.
type singleLaunch struct{ noStats }

func newSingleLaunch(*planning, []int) (family, error) { return singleLaunch{}, nil }

func (singleLaunch) buffers() []bufferSpec { return nil }
func (singleLaunch) setup(*Prepared) error { return nil }

func (singleLaunch) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	return pr.launchOne(pc)
}

// launchOne launches class pc's kernel once with gen.KernelArgs, and the
// local counters (gen.LocalArg) under a local output.
func (pr *Prepared) launchOne(pc *prepClass) error {
	return pr.launchWith(pc, pr.scratchArg(pc), pc.scratchWords)
}

// launchWith is launchOne with the scratch and scratch_words arguments
// given (the aligned copy: aligned.go).
func (pr *Prepared) launchWith(pc *prepClass, scratch any, words uint64) error {
	args := []any{pr.off, pr.adj, pr.srcArg(), pr.n, pr.m, pc.listArg(), pc.items, pr.counts, scratch, words}
	if pr.local != nil {
		args = append(args, pr.localArg()) // gen.LocalArg
	}
	err := pc.fn.Launch(gpu.Dim3{X: pc.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Block), Y: 1, Z: 1}, pc.shared, args...)
	if err != nil {
		return pr.kernelErr(pc, err)
	}
	return nil
}
