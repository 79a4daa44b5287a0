package executor

import (
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

// SetRadixMaxBatch caps the candidates per batch of the wedge/radix classes
// (0: no cap) for the tests, which force many batches with it; it returns
// the previous cap.
func SetRadixMaxBatch(n uint64) uint64 {
	old := radixMaxBatch
	radixMaxBatch = n
	return old
}

// AdjBytes is the adjacency buffer's padded size (adjBytes), which the fake
// device checks its launches against.
func AdjBytes(m uint64) uint64 { return adjBytes(m) }

// CheckListsKernel and CheckListsFile name the GPU list check
// (upload.go), which the fake device emulates.
const (
	CheckListsKernel = checkListsKernel
	DegreesKernel    = degreesKernel
	UnpackKernel     = unpackKernel
	CheckListsFile   = checkListsFile
	PartitionFile    = partitionFile
	PartSrcKernel    = partSrcKernel
	PartListKernel   = partListKernel
	PartAddKernel    = partAddKernel
	PartRebaseKernel = partRebaseKernel

	PartPivotCountKernel   = partPivotCountKernel
	PartPivotScatterKernel = partPivotScatterKernel
)

// SplitWork is splitWork for the tests: each part's items, its modelled
// work, and for a pivot variant its range of vertices.
func SplitWork(o *graph.Oriented, v gen.Variant, lists []WorkList, core, parts int) (items, work []uint64, lo, hi []uint32) {
	ps, _ := splitWork(o, v, lists, core, parts)
	for _, p := range ps {
		items, work = append(items, p.items), append(work, p.work)
		lo, hi = append(lo, p.lo), append(hi, p.hi)
	}
	return items, work, lo, hi
}

// BlockVertices is the vertices of each block of a count in partitions.
func BlockVertices(pt *Partitioned) []uint32 {
	var vs []uint32
	for a := range pt.part.numBlocks() {
		lo, hi := pt.part.blockRange(a)
		vs = append(vs, hi-lo)
	}
	return vs
}
