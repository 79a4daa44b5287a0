package gen

import (
	"fmt"

	"github.com/tcgen/tcgen/ir"
)

// lowerer fills what one pair adds to a class: its partials, constants,
// shared words per group and manifest entries. It runs after lowerClass has
// set what every class shares, on a strategy Validate accepted, so it
// re-checks none of Validate's rules.
type lowerer func(cd *classData, mc *Class, s ir.Strategy, t Target)

// lowerers holds a lowerer for every pair gen implements; a pair's
// lowerer lives in the file named after it (vertex_bitmap.go, ...), merge's
// and binary search's here. init registers the pairs with ir: Validate
// refuses the others and RandomPlan draws only these.
var lowerers = map[ir.Pair]lowerer{
	{Iterator: ir.IterVertex, Intersection: ir.Merge}:           vertexIter(lowerVertexMerge),
	{Iterator: ir.IterVertex, Intersection: ir.MergePath}:       vertexIter(lowerMergePath),
	{Iterator: ir.IterVertex, Intersection: ir.BinarySearch}:    vertexIter(lowerVertexSearch),
	{Iterator: ir.IterVertex, Intersection: ir.Hash}:            vertexIter(lowerHash),
	{Iterator: ir.IterVertex, Intersection: ir.Bitmap}:          vertexIter(lowerVertexBitmap),
	{Iterator: ir.IterEdge, Intersection: ir.Merge}:             edgeIter(lowerEdgeMerge),
	{Iterator: ir.IterEdge, Intersection: ir.MergePath}:         edgeIter(lowerMergePath),
	{Iterator: ir.IterEdge, Intersection: ir.BinarySearch}:      edgeIter(lowerEdgeSearch),
	{Iterator: ir.IterEdge, Intersection: ir.Hash}:              edgeIter(lowerHash),
	{Iterator: ir.IterEdge, Intersection: ir.Bitmap}:            edgeIter(lowerEdgeBitmap),
	{Iterator: ir.IterEdge, Intersection: ir.Bitwise}:           edgeIter(lowerBitwise),
	{Iterator: ir.IterEdgeChunk, Intersection: ir.BinarySearch}: lowerEdgeChunk,
	{Iterator: ir.IterWedge, Intersection: ir.BinarySearch}:     lowerWedgeSearch,
	{Iterator: ir.IterWedge, Intersection: ir.Radix}:            lowerRadix,
	{Iterator: ir.IterPivot, Intersection: ir.Hash}:             lowerPivot,
}

func init() {
	for p := range lowerers {
		ir.RegisterGenerated(p)
	}
}

// vertexIter runs f on the vertex iterator's items and kernel (f may
// replace the kernel).
func vertexIter(f lowerer) lowerer {
	return func(cd *classData, mc *Class, s ir.Strategy, t Target) {
		mc.Items, cd.iterPartial = ItemsVertices, "vertex"
		f(cd, mc, s, t)
	}
}

// edgeIter runs f on the edge iterator's items and kernel (f may replace
// the kernel); edge items need the src array.
func edgeIter(f lowerer) lowerer {
	return func(cd *classData, mc *Class, s ir.Strategy, t Target) {
		mc.Items, cd.iterPartial, mc.NeedsSrc = ItemsEdges, "edge", true
		f(cd, mc, s, t)
	}
}

// lowerClass lowers one class of variant vi at position ci, under the
// plan's local output ("" for the total): the data of its partials (nil
// for a skip class) and its manifest entry.
func lowerClass(name string, guarded bool, vi, ci int, cl ir.Class, idOrdered bool, local string, t Target) (*classData, Class, error) {
	mc := Class{Slot: ci, Name: cl.Name, Key: cl.Select.Key, Lo: cl.Select.Lo, Hi: cl.Select.Hi, Skip: cl.Skip}
	if cl.Skip {
		mc.Items = ItemsVertices
		return nil, mc, nil
	}
	s := cl.Strategy
	w, blk := s.EffectiveWidth(), s.EffectiveBlock()
	mc.Iterator, mc.Intersection, mc.Width, mc.Block = s.Iterator, s.Intersection, w, blk
	mc.Kind = KindSingle // the other kinds' lowerers set theirs
	if specs := ir.ParamsFor(s); len(specs) > 0 {
		mc.Params = map[string]int64{}
		for _, ps := range specs {
			mc.Params[ps.Name] = ir.Get(s, ps.Name)
		}
	}
	// Namespace and symbol: deterministic from the plan name and position.
	stem, sym := fmt.Sprintf("c%d", ci), fmt.Sprintf("c%d", ci)
	if guarded {
		stem, sym = fmt.Sprintf("v%dc%d", vi, ci), fmt.Sprintf("v%d_c%d", vi, ci)
	}
	mc.Kernel = "tc_" + name + "_" + sym
	team := min(w, t.WarpSize)
	cd := &classData{
		NS: stem, Kernel: mc.Kernel, Name: cl.Name, Guarded: guarded, Variant: vi, Index: ci,
		Select:   selectText(cl.Select),
		Iterator: string(s.Iterator), Intersection: string(s.Intersection),
		Width: w, Block: blk, Groups: blk / w, Team: team,
		TeamMask:  fmt.Sprintf("0x%08xu", uint64(1)<<team-1),
		Slot:      ci,
		IDOrdered: idOrdered,
		Warp:      t.WarpSize,
		Local:     local,
	}
	lowerers[s.Pair()](cd, &mc, s, t)

	// An edge-chunk block stages its chunk (lowerEdgeChunk), a wedge
	// search block its wedges (lowerWedgeSearch); the others hold GROUPS
	// items, each with its shared words.
	chunked := s.Iterator == ir.IterEdgeChunk || mc.Kind == KindWedge
	if !chunked {
		layoutGroups(cd, &mc, t)
	}
	// The count's reduction declares ir.ReduceSharedBytes of its own, an
	// edge iterator's per-vertex kernel its hub counters.
	fixed := ir.ReduceSharedBytes
	if local == string(ir.OutputVertex) && cd.iterPartial == "edge" {
		cd.HubCounters = ir.HubCounters
		fixed += ir.HubSharedBytes
	}
	switch {
	case cd.SharedBytes <= ir.SharedLimit-fixed:
		mc.StaticSharedBytes = cd.SharedBytes
	case cd.SharedBytes <= t.MaxSharedPerBlock-fixed && !chunked:
		cd.DynamicShared = true
		mc.DynamicSharedBytes = cd.SharedBytes
	default:
		return nil, mc, fmt.Errorf("class %s: kernel %s needs %d bytes of shared memory per block, more than the target's %d",
			cl.Name, mc.Kernel, cd.SharedBytes, t.MaxSharedPerBlock-fixed)
	}
	return cd, mc, nil
}

// layoutGroups sizes the shared array of a block of GROUPS items (GroupWords
// u32 words each, and the block walk's staging) and its grid.
func layoutGroups(cd *classData, mc *Class, t Target) {
	words32 := cd.Groups * cd.GroupWords
	cd.SharedWords = (words32 + 1) / 2
	if cd.Lookup && cd.Width > t.WarpSize {
		// The block walk stages, per v, the start of N+(v) and the prefix
		// sum of d+(v) (u64 each), plus one u64 per warp for the scan.
		cd.BlockWalk, cd.WalkAt = true, cd.SharedWords
		cd.SharedWords += 2*cd.Block + cd.Block/t.WarpSize
	}
	if cd.LocalWords > 0 { // a block's local counters (the pivot's, gen/pivot_hash.go)
		cd.LocalAt = cd.SharedWords
		cd.SharedWords += cd.LocalWords
	}
	cd.SharedBytes = cd.SharedWords * 8
	mc.Grid = Grid{ItemsPerBlock: cd.Groups, BlocksPerSM: cd.BlocksPerSM}
	if mc.Kind == KindPivot {
		mc.Grid = Grid{BlocksPerSM: cd.BlocksPerSM} // items are counted on the device
	}
	skiffGrid(cd, mc) // hash.go: index organisations take BLOCK edges per block
}

// lowerMerge: a merge of the two sorted lists, tile entries of each held in
// registers; with align, N+(v) from the aligned copy (the total's kernels:
// the local credits need each entry's CSR position).
func lowerMerge(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	cd.isectPartial = "merge"
	cd.Merge.Tile = int(ir.Get(s, ir.ParamTile))
	if a := int(ir.Get(s, ir.ParamAlign)); a > 0 && cd.Local == "" {
		cd.Merge.Align, cd.Merge.Bits = a, AlignDegreeBits
		mc.Kind = KindAligned
		mc.Aligned = &AlignedLaunch{Tile: cd.Merge.Tile, Copy: Helper{
			Kernel: cd.Kernel + "_align", Block: cd.Block,
			Grid: Grid{ItemsPerBlock: cd.Block / 32}, // a warp per vertex
			Args: AlignArgs,
		}}
	}
	cd.MinBlocks = int(ir.Get(s, ir.ParamMinBlocks))
	if ir.Get(s, ir.ParamResident) == 1 {
		// layoutGroups caps the grid by it; the executor caps it again at
		// what the compiled kernel fits (residentGrid).
		cd.BlocksPerSM = max(1, residentThreadsPerSM/cd.Block)
	}
}

// lowerVertexMerge: lowerMerge over vertices, whose next vertices' loads
// a thread may read while it merges one (prefetch: the offsets' path, not
// the aligned copy's, nor a local output's credits).
func lowerVertexMerge(cd *classData, mc *Class, s ir.Strategy, t Target) {
	lowerMerge(cd, mc, s, t)
	if cd.Merge.Align == 0 && cd.Local == "" {
		cd.Prefetch = int(ir.Get(s, ir.ParamPrefetch))
	}
}

// lowerEdgeMerge: lowerMerge over edges, which the blocks may take last to
// first.
func lowerEdgeMerge(cd *classData, mc *Class, s ir.Strategy, t Target) {
	lowerMerge(cd, mc, s, t)
	cd.Reverse = ir.Get(s, ir.ParamReverse) == 1
	// Target items carry N+(u) after v, which is a suffix only in the id
	// order; the local credits need u.
	if ir.Get(s, ir.ParamTarget) == 1 && cd.IDOrdered && cd.Local == "" {
		cd.TargetBits, mc.Target, mc.NeedsSrc = TargetLenBits, true, false
		mc.TargetBand = int(ir.Get(s, ir.ParamBand))
		// prefetch 2 reads the aligned copy's words (validation asks for
		// align: 1; a local output, which drops the copy, drops target too).
		cd.Prefetch = int(ir.Get(s, ir.ParamPrefetch))
		if cd.Merge.Align == 0 {
			cd.Prefetch = min(cd.Prefetch, 1)
		}
		if ir.Get(s, ir.ParamCarry) == 1 && cd.Merge.Align == 1 {
			cd.Carry = true
			mc.Aligned.Carry = &Helper{
				Kernel: cd.Kernel + "_carry", Block: cd.Block,
				Grid: Grid{ItemsPerBlock: cd.Block}, // a thread per item
				Args: CarryArgs,
			}
		}
	}
}

// lowerVertexSearch: each N+(v) is binary-searched for the entries of
// N+(u), whose first cache entries are copied to shared memory.
func lowerVertexSearch(cd *classData, _ *Class, s ir.Strategy, _ Target) {
	cd.isectPartial = "bsearch"
	cd.Lookup = true
	cd.Search.Cache = int(ir.Get(s, ir.ParamCache))
	cd.GroupWords = cd.Search.Cache
}

// lowerEdgeSearch: the shorter list's entries are binary-searched in the
// longer one, whose search tree's top levels are cached in shared memory.
func lowerEdgeSearch(cd *classData, _ *Class, s ir.Strategy, _ Target) {
	cd.isectPartial = "bsearch"
	if l := int(ir.Get(s, ir.ParamLevels)); l > 0 {
		cd.Search.Levels, cd.Search.Splitters = l, 1<<l-1
		cd.GroupWords = cd.Search.Splitters
	}
}

// edgeChunkBytesPerItem is what the edge-chunk kernel stages per edge: table
// start, key start and prefix sum (u64 each) and the table length (u32).
const edgeChunkBytesPerItem = 3*8 + 4

// lowerEdgeChunk: a block per chunk of consecutive edges (GroupTC), staged
// in shared memory, their lists intersected by binary search.
func lowerEdgeChunk(cd *classData, mc *Class, s ir.Strategy, t Target) {
	mc.Items, cd.iterPartial, mc.NeedsSrc = ItemsEdges, "edgechunk", true
	cd.isectPartial = "bsearch"
	cd.Chunk.Size = int(ir.Get(s, ir.ParamChunk))
	cd.Chunk.Sub = min(cd.Chunk.Size, cd.Block)
	cd.SharedBytes = cd.Chunk.Sub*edgeChunkBytesPerItem + cd.Block/t.WarpSize*8
	if cd.Local != "" {
		cd.SharedBytes += cd.Chunk.Sub * 4 // each staged edge's triangles (u32), credited once per edge
	}
	mc.Grid = Grid{ItemsPerBlock: cd.Chunk.Size}
}
