package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// RunOptions.IndexBase moves every edge index the kernels see up by a
// base, so that a small graph runs its kernels at indices above 2^32 (the
// 64-bit paths a graph of billions of edges takes, in a test): the offsets
// are uploaded with the base added to every entry, and the buffers indexed
// by edge (adj, src) are passed to the kernels as pointers shifted back by
// base entries, so adj[off[v]] and src[e] land where they did; the edge ids
// of the host's work lists are raised by the base. A kernel that keeps an
// edge index in 32 bits then reads 2^32 entries off (a fault or a wrong
// count). Vertex ids, item counts, wedge counts and buffer sizes stay
// small: it covers the edge indices only.

// shiftedBuffer is a buffer whose device pointer, as kernels get it, is
// by bytes before its start (RunOptions.IndexBase).
type shiftedBuffer struct {
	gpu.Buffer
	by uint64
}

// Ptr is the shifted pointer: wrapping arithmetic, as the kernels'.
func (b shiftedBuffer) Ptr() uint64 { return b.Buffer.Ptr() - b.by }

// Shift returns the buffer and the bytes its pointer is shifted by, for a
// device that resolves buffers by their value rather than their pointer.
func (b shiftedBuffer) Shift() (gpu.Buffer, uint64) { return b.Buffer, b.by }

// shift returns b shifted back by base entries of size bytes (b itself
// when base is 0 or b is nil).
func shift(b gpu.Buffer, base, size uint64) gpu.Buffer {
	if base == 0 || b == nil {
		return b
	}
	return shiftedBuffer{Buffer: b, by: base * size}
}

// raised returns xs with base added to every entry (xs itself for base 0).
func raised(xs []uint64, base uint64) []uint64 {
	if base == 0 {
		return xs
	}
	out := make([]uint64, len(xs))
	for i, x := range xs {
		out[i] = x + base
	}
	return out
}

// checkIndexBase refuses a base the uploads cannot honour: lists checked
// on the device read the offsets as the file holds them.
func checkIndexBase(base uint64, deferred bool) error {
	if base != 0 && deferred {
		return fmt.Errorf("an index base of %d needs lists checked on the host (no deferred checks)", base)
	}
	return nil
}

// listAllEdges lists the edges of the edge classes that take them all
// (WorkList.All): their kernels read item i as edge i, which no base
// raises, so under an index base they get the list, raised like the
// others. The implicit path's indices are the loop's own (u64).
func listAllEdges(lists []WorkList) {
	for i := range lists {
		l := &lists[i]
		if !l.All || l.Skip || l.Items != gen.ItemsEdges || l.Count == 0 {
			continue
		}
		l.All, l.Edges = false, make([]uint64, l.Count)
		for e := range l.Edges {
			l.Edges[e] = uint64(e)
		}
	}
}
