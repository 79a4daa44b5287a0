package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// A pivot variant is split over devices by the in-edges' sources: device
// k counts the in-edges (u, v) with u in its range [lo, hi) of vertices,
// so it counts the triangles u < v < w whose lowest vertex u is its own,
// each once, with the core's among them. The preparation's count and
// scatter kernels and the core kernel walk the lists of n vertices from an
// offsets pointer: given off + lo and hi - lo, they walk the lists of
// [lo, hi) (ids in adj stay absolute, and so do wrk, end, top and the
// matrix), on grids sized for hi - lo. sums, scan and bin walk every pivot,
// as on one device: they are O(n) and cheap beside the tails (0.4 ms of a
// 60 ms pass on RMAT-24), and bin writes absolute pivot ids into the item
// lists; a pivot base would save nothing on the first device, whose range
// starts at 0. No kernel changes.
//
// One exception: scatter also writes the core's bit matrix, the rows of
// the core vertices [top, n), from the same offsets and n. The rows do not
// depend on the pass, so a split device writes them once in setup, with a
// whole preparation; in its passes count leaves the matrix alone (cw 0)
// and scatter's row loop, which then reads the lists of vertices lo + x
// for x in [top, hi - lo), all core vertices whose entries lie in the
// core, writes into a sink of one row (cw 0) instead.

// pivotSplit is a device's range of in-edge sources.
type pivotSplit struct {
	lo, hi uint32
	sink   gpu.Buffer // the row loop's sink in the passes: one core row (nil without a core)
}

// pivotSpan is what the preparation's count and scatter kernels and the
// core kernel are given: the offsets from the first vertex walked, how many
// are walked, the matrix arguments of count (zeroed) and scatter (rows
// written), and their grids for those vertices.
type pivotSpan struct {
	off               any
	n                 uint32
	countMat, rowsMat any
	countCW, rowsCW   uint32
	grid, sgrid       uint32
}

// span is the whole graph on one device, the device's range when split.
func (ph *pivotFamily) span(pr *Prepared) pivotSpan {
	sp := ph.split
	if sp == nil {
		return ph.fullSpan(pr)
	}
	grid, sgrid := ph.walkGrids(uint64(sp.hi-sp.lo), pr.sms)
	return pivotSpan{off: pr.off.Ptr() + uint64(sp.lo)*8, n: sp.hi - sp.lo, countMat: uint64(0), rowsMat: bufArg(sp.sink), grid: grid, sgrid: sgrid}
}

// fullSpan walks every vertex and writes the core's matrix.
func (ph *pivotFamily) fullSpan(pr *Prepared) pivotSpan {
	return pivotSpan{off: pr.off, n: ph.n, countMat: bufArg(ph.mat), rowsMat: bufArg(ph.mat), countCW: ph.cw, rowsCW: ph.cw, grid: ph.grid, sgrid: ph.sgrid}
}

// splitBuffers is the sink of a split device's row loop: one core row.
func (ph *pivotFamily) splitBuffers() []bufferSpec {
	if ph.split == nil || ph.cw == 0 {
		return nil
	}
	return []bufferSpec{{name: "core row sink", bytes: uint64(ph.cw) * 4, dst: &ph.split.sink}}
}

// setupSplit writes a split device's core matrix with one whole
// preparation (the passes leave it as it is).
func (ph *pivotFamily) setupSplit(pr *Prepared) error {
	if ph.split == nil || ph.cw == 0 {
		return nil
	}
	if err := ph.prepareSpan(pr, false, ph.fullSpan(pr)); err != nil {
		return fmt.Errorf("%w (the core's matrix, once)", err)
	}
	return nil
}
