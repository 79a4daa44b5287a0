package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// The pivot in partitions. Each triangle u < v < w is counted at its edge
// (u, v) by pivot v: N+(v) hashed, probed by N+(u) after v. A pair is the
// resident block and one chunk after it (streamed), or a run of the
// block's own chunks (joinOwn), and counts the in-edges (u, v) with u in
// the block and v in its targets: both lists lie in the window (the
// block's rows arrive in pieces behind which its own pairs count:
// partition_pivot_run.go). Per pair, tcgen_part_pivot_count and _scatter
// (templates/partition.cu) group those in-edges by v into the pair's
// tails, as the plan's count and scatter do for the whole graph, and the
// plan's own sums, scan and bin kernels bin the chunk's pivots, given the
// offsets from the chunk's first vertex on (off + tlo) and counters indexed
// from it, as the split over devices gives count and scatter a range of
// sources (multi_pivot.go); the class kernels then count the pair's items
// as in memory. Nothing of the plan's kernels changes.
//
// The core: the triangles whose middle vertex lies among the core's ids
// are counted per block by the plan's core kernel over the block's rows
// (a vertex's core entries are a suffix of its own row), with the core's
// bit matrix written once, on the host, when the partition is prepared
// (its rows do not change from one pass to the next); in-edges to the
// core are left out of the pairs, and a chunk of core vertices alone is
// never copied. The core is kept when the cut fits the cap with its matrix,
// else dropped (top = n: the pivot counts every triangle).

// partition.cu's pivot helpers.
const (
	partPivotCountKernel   = "tcgen_part_pivot_count"
	partPivotScatterKernel = "tcgen_part_pivot_scatter"
)

// partPivot is a count in partitions' pivot: the plan's kernels and the
// buffers every pair reuses.
type partPivot struct {
	h       *gen.PivotHelpers
	variant int
	classes []gen.Class // the variant's pivot classes
	index   []int       // each one's item list: its index in h.Classes
	fns     []gpu.Function
	grids   []uint32
	cost    *pivotCost
	coreIDs int    // the core kept (0: none)
	shift   uint32 // the packed counters' split (pivotShift)
	sms     int
	counts  []uint64 // each class's triangles in the last pass

	sums, scan, bin, core gpu.Function
	count, scatter        gpu.Function // partition.cu's
	// The pair's counters and lists (partition buffers) and the core's
	// matrix.
	wrk, end, inoff, csz, tiles, tails, items, nitems, mat, spill gpu.Buffer
}

// pivotCostOf is the cost model of variant vi's pivot classes on o, with
// its core (core: kept) or without.
func pivotCostOf(man *gen.Manifest, vi int, classes []gen.Class, o *graph.Oriented, sms int, core bool) *pivotCost {
	h := man.Pivot
	n := uint32(o.N())
	pc := &pivotCost{top: n, classes: uint64(len(h.Classes)), minWork: 1 << 62, tile: uint64(h.Tile),
		counts: uint64(gen.CountsWords(len(man.Variants[vi].Classes))) * 8}
	for _, c := range h.Classes {
		pc.minWork = min(pc.minWork, uint64(max(c.ItemWork, 1)))
	}
	if k := h.VariantCore(vi); core && k > 0 {
		pc.top, pc.core = n-min(n, uint32(k)), h.CoreMatrixBytes(vi)
	}
	pc.spill = pivotSpillBytes(classes, pivotGrids(classes, sms))
	return pc
}

// pivotGrids are the classes' grids: one wave of persistent blocks (the
// items are counted on the device), sized as if every pair had items.
func pivotGrids(classes []gen.Class, sms int) []uint32 {
	grids := make([]uint32, len(classes))
	for i, c := range classes {
		grids[i] = c.Grid.Blocks(1<<62, sms)
	}
	return grids
}

// cutPivot cuts o for the pivot under have bytes: with the variant's core
// if the cut fits so, else without it.
func cutPivot(man *gen.Manifest, vi int, classes []gen.Class, o *graph.Oriented, sms int, have, chunkBytes uint64) (*partition, error) {
	var err error
	for _, core := range []bool{true, false} {
		if !core && man.Pivot.VariantCore(vi) == 0 {
			break // no core to drop: the first cut's error
		}
		cost := partCost{pivot: pivotCostOf(man, vi, classes, o, sms, core)}
		var room, chunkCap uint64
		if room, chunkCap, err = partitionCaps(uint64(o.N()), maxRow(o), have, chunkBytes, cost); err == nil {
			var p *partition
			if p, err = cutPartition(o, room, chunkCap, cost); err == nil {
				return p, nil
			}
		}
	}
	return nil, err
}

// newPartPivot is the pivot of a cut made by cutPivot.
func newPartPivot(man *gen.Manifest, vi int, classes []gen.Class, part *partition, sms int) *partPivot {
	h := man.Pivot
	pv := &partPivot{h: h, variant: vi, classes: classes, cost: part.cost.pivot, shift: pivotShift(part.n), grids: pivotGrids(classes, sms), sms: sms}
	if pv.cost.core > 0 {
		pv.coreIDs = h.VariantCore(vi)
	}
	for _, c := range classes {
		pv.index = append(pv.index, h.Index(vi, c.Slot))
	}
	return pv
}

// load looks up the plan's pivot kernels in mod and partition.cu's in
// hmod.
func (pv *partPivot) load(mod, hmod gpu.Module) error {
	h := pv.h
	type kernel struct {
		m    gpu.Module
		name string
		fn   *gpu.Function
	}
	fns := []kernel{{mod, h.Sums, &pv.sums}, {mod, h.Scan, &pv.scan}, {mod, h.Bin, &pv.bin},
		{hmod, partPivotCountKernel, &pv.count}, {hmod, partPivotScatterKernel, &pv.scatter}}
	if pv.coreIDs > 0 {
		fns = append(fns, kernel{mod, h.CoreKernel(pv.coreIDs), &pv.core})
	}
	for _, f := range fns {
		var err error
		if *f.fn, err = f.m.Function(f.name); err != nil {
			return fmt.Errorf("kernel %s: %w", f.name, err)
		}
	}
	for i, c := range pv.classes {
		fn, err := mod.Function(c.Kernel)
		if err != nil {
			return fmt.Errorf("kernel %s: %w", c.Kernel, err)
		}
		if c.DynamicSharedBytes > 0 {
			if err := fn.SetMaxDynamicShared(c.DynamicSharedBytes); err != nil {
				return fmt.Errorf("kernel %s: %d bytes of dynamic shared memory: %w", c.Kernel, c.DynamicSharedBytes, err)
			}
		}
		pv.fns = append(pv.fns, fn)
		pv.grids[i] = residentGrid(fn, pv.grids[i], c.Block, c.DynamicSharedBytes, pv.sms) // at most what the tables were sized for
	}
	return nil
}

// buffers names where each pivot buffer goes.
func (pv *partPivot) buffers() map[partBuf]*gpu.Buffer {
	return map[partBuf]*gpu.Buffer{bufTails: &pv.tails, bufItems: &pv.items, bufWrk: &pv.wrk, bufEnd: &pv.end, bufCsz: &pv.csz,
		bufInoff: &pv.inoff, bufTiles: &pv.tiles, bufNitems: &pv.nitems, bufCore: &pv.mat, bufSpill: &pv.spill}
}

// writeCore writes the core's bit matrix from o's rows: row x - top holds
// bit y - top for every y in N+(x), x and y core ids (a core vertex's
// entries are core ids: ids follow the orientation).
func (pv *partPivot) writeCore(o *graph.Oriented) error {
	if pv.coreIDs == 0 {
		return nil
	}
	cw := uint64(pv.coreIDs / 32)
	top := uint64(pv.cost.top)
	mat := make([]uint32, pv.cost.core/4)
	for x := top; x < uint64(o.N()); x++ {
		for _, y := range o.Adj[o.Offsets[x]:o.Offsets[x+1]] {
			k := uint64(y) - top
			mat[(x-top)*cw+k/32] |= 1 << (k % 32)
		}
	}
	return gpu.WriteSlice(pv.mat, 0, mat)
}

// core queues on the compute stream the core kernel over the rows of the
// block's vertices [lo, hi) (their offsets rebased): the triangles whose
// lowest vertex is one of them and whose middle vertex is a core id, added
// to the first pivot class's count, as in memory.
func (pv *partPivot) coreRows(pt *Partitioned, lo, hi uint32) error {
	if pv.core == nil || hi <= lo {
		return nil
	}
	walk := gen.Grid{ItemsPerBlock: pv.h.Block / 32, BlocksPerSM: 2048 / pv.h.Block} // a warp per vertex, as pivotFamily.walkGrids
	grid := walk.Blocks(uint64(hi-lo), pt.sms)
	slot := pt.counts.Ptr() + uint64(pv.classes[0].Slot)*8
	err := pt.compute.Launch(pv.core, gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pv.h.Block), Y: 1, Z: 1}, 0,
		pt.off.Ptr()+uint64(lo)*8, pt.adj, hi-lo, pv.cost.top, pv.mat, slot)
	if err != nil {
		return fmt.Errorf("plan %s: core kernel %s (vertices %d to %d): %w", pt.name, pv.h.CoreKernel(pv.coreIDs), lo, hi, err)
	}
	return nil
}

// countPair queues on the compute stream pair q's preparation and class
// kernels: the in-edges from block q.block into its targets [tlo, thi)
// below the core, counted (part_pivot_count), binned (the plan's sums,
// scan and bin over the targets, from off + tlo), placed
// (part_pivot_scatter) and counted by each pivot class into counts. Their
// sources are the block's vertices, of an own pair those before thi alone
// (ids follow the orientation).
func (pv *partPivot) countPair(pt *Partitioned, q pair, tlo, thi uint32) error {
	lo, hi := pt.part.blockRange(q.block)
	if q.own {
		hi = thi
	}
	thi = min(thi, pv.cost.top) // countPairs made the pair only if some target lies below it
	nt := thi - tlo
	blk := gpu.Dim3{X: uint32(pv.h.Block), Y: 1, Z: 1}
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	tiles := gpu.Dim3{X: (nt + uint32(pv.h.Tile) - 1) / uint32(pv.h.Tile), Y: 1, Z: 1}
	helpers := gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}
	offT := pt.off.Ptr() + uint64(tlo)*8
	if err := pt.compute.Zero(pv.nitems); err != nil { // the item counts and the class kernels' queues
		return fmt.Errorf("plan %s: zeroing the item counts: %w", pt.name, err)
	}
	steps := []struct {
		name      string
		fn        gpu.Function
		grid, blk gpu.Dim3
		args      []any
	}{
		{partPivotCountKernel, pv.count, pt.helperGrid(hi - lo), helpers, []any{pt.off, pt.adj, lo, hi - lo, tlo, thi, pv.wrk, pv.shift}},
		{pv.h.Sums, pv.sums, tiles, blk, []any{pv.wrk, nt, pv.shift, pv.tiles}},
		{pv.h.Scan, pv.scan, one, blk, []any{pv.tiles, tiles.X}},
		{pv.h.Bin, pv.bin, tiles, blk, []any{offT, pv.end, pv.wrk, nt, uint32(pv.variant), pv.tiles, tiles.X, pv.inoff, pv.csz, pv.items,
			max(pt.part.maxItems, 1), pv.nitems, pv.shift}},
		{partPivotScatterKernel, pv.scatter, pt.helperGrid(hi - lo), helpers, []any{pt.off, pt.adj, lo, hi - lo, tlo, thi, pv.end, pv.tails}},
	}
	for _, st := range steps {
		if err := pt.compute.Launch(st.fn, st.grid, st.blk, 0, st.args...); err != nil {
			return fmt.Errorf("plan %s: pivot kernel %s (block %d, targets %d to %d): %w", pt.name, st.name, q.block, tlo, thi, err)
		}
	}
	k := uint64(len(pv.h.Classes))
	for i, c := range pv.classes {
		j := uint64(pv.index[i])
		items := pv.items.Ptr() + j*max(pt.part.maxItems, 1)*8
		nitems, queue := pv.nitems.Ptr()+j*8, pv.nitems.Ptr()+(k+j)*8
		err := pt.compute.Launch(pv.fns[i], gpu.Dim3{X: pv.grids[i], Y: 1, Z: 1}, gpu.Dim3{X: uint32(c.Block), Y: 1, Z: 1}, uint32(c.DynamicSharedBytes),
			offT, pt.adj, pv.inoff, pv.csz, pv.tails, items, nitems, pt.counts, bufArg(pv.spill), pt.part.n, queue)
		if err != nil {
			return fmt.Errorf("plan %s: kernel %s (block %d, targets %d to %d, %d in-edges, grid %d x %d): %w",
				pt.name, c.Kernel, q.block, tlo, thi, q.edges, pv.grids[i], c.Block, err)
		}
	}
	return nil
}

// finish queues the adds of the pivot classes' counts to the pass's sum.
func (pv *partPivot) finish(pt *Partitioned) error {
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	for _, c := range pv.classes {
		if err := pt.compute.Launch(pt.addFn, one, one, 0, pt.counts, uint32(c.Slot), pt.sum); err != nil {
			return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partAddKernel, err)
		}
	}
	return nil
}
