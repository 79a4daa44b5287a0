package executor

import (
	"math/bits"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// devicePart is one device's share of a run on several devices: a
// contiguous slice of each class's items (lists), or for a pivot variant a
// range [lo, hi) of the vertices whose in-edges it counts (multi_pivot.go).
// Slices and ranges are cut where the modelled work (itemWork) reaches
// k/parts of the total, so that the devices finish together.
type devicePart struct {
	lists  []WorkList
	pivot  bool
	lo, hi uint32
	items  uint64 // the items of its slices (pivot: vertices of its range)
	work   uint64 // their modelled work
}

// splitChunk is the items whose work one worker sums at a time when
// cutting: enough to amortise claiming a chunk; the cut's search walks one
// chunk item by item.
const splitChunk = 1 << 14

// walkFunc visits the modelled work of items [lo, hi) in order.
type walkFunc func(lo, hi uint64, visit func(uint64))

// splitWork cuts the work of v's classes on o (lists: the whole work
// lists) into parts shares. For a pivot variant it also returns what a
// measured rebalance cuts again with (multi_balance.go); nil otherwise.
func splitWork(o *graph.Oriented, v gen.Variant, lists []WorkList, core int, parts int) ([]devicePart, *pivotCutter) {
	ps := make([]devicePart, parts)
	if variantHasPivot(v) {
		n := uint64(o.N())
		pc := &pivotCutter{o: o, n: n, top: uint32(n - min(n, uint64(core)))}
		pc.sums = chunkSums(n, pc.walk)
		cuts, works := cutChunks(n, parts, pc.sums, pc.walk)
		pc.apply(ps, lists, cuts, works)
		return ps, pc
	}
	for k := range ps {
		ps[k].lists = make([]WorkList, len(lists))
	}
	for i, c := range v.Classes {
		l := &lists[i]
		cuts, works := cutByWork(l.Count, parts, func(lo, hi uint64, visit func(uint64)) {
			if c.Skip {
				for range hi - lo {
					visit(1) // never launched: the items are only counted
				}
				return
			}
			walkItems(o, c, l, lo, hi, visit)
		})
		for k := range ps {
			ps[k].lists[i] = sliceList(l, cuts[k], cuts[k+1])
			ps[k].items += cuts[k+1] - cuts[k]
			if !c.Skip {
				ps[k].work += works[k]
			}
		}
	}
	return ps, nil
}

// cutByWork cuts the items [0, count) into parts contiguous ranges of
// about equal work: cut k is the first item whose middle lies past k/parts
// of the total (an item goes where most of it lies). walk visits the work
// of items [lo, hi) in order. It returns the cuts (parts+1, from 0 to
// count) and each range's work.
func cutByWork(count uint64, parts int, walk walkFunc) ([]uint64, []uint64) {
	return cutChunks(count, parts, chunkSums(count, walk), walk)
}

// chunkSums is the work of each splitChunk items of [0, count), summed on
// all cores.
func chunkSums(count uint64, walk walkFunc) []uint64 {
	chunks := int((count + splitChunk - 1) / splitChunk)
	sums := make([]uint64, chunks)
	parallelChunks(chunks, func(ch int) {
		lo := uint64(ch) * splitChunk
		walk(lo, min(lo+splitChunk, count), func(w uint64) { sums[ch] += w })
	})
	return sums
}

// cutChunks is cutByWork given the chunks' sums (chunkSums): it walks one
// chunk per cut.
func cutChunks(count uint64, parts int, sums []uint64, walk walkFunc) ([]uint64, []uint64) {
	chunks := len(sums)
	var total uint64
	for _, s := range sums {
		total += s
	}
	cuts := make([]uint64, parts+1)
	at := make([]uint64, parts+1) // the work before each cut
	cuts[parts], at[parts] = count, total
	ch, before := 0, uint64(0) // the chunk searched and the work before it
	for k := 1; k < parts; k++ {
		// 2 x work to the middle of an item against 2 x target: integers.
		hi, lo := bits.Mul64(total, uint64(k))
		target2, _ := bits.Div64(hi, lo, uint64(parts))
		target2 *= 2
		for ch < chunks && 2*(before+sums[ch]) <= target2 {
			before += sums[ch]
			ch++
		}
		cuts[k], at[k] = count, total
		if ch == chunks {
			continue
		}
		j, w := uint64(ch)*splitChunk, before
		found := false
		walk(j, min(j+splitChunk, count), func(x uint64) {
			if found {
				return
			}
			if 2*w+x > target2 {
				found = true
				cuts[k], at[k] = j, w
				return
			}
			j, w = j+1, w+x
		})
		if !found {
			cuts[k], at[k] = j, w
		}
		cuts[k], at[k] = max(cuts[k], cuts[k-1]), max(at[k], at[k-1])
	}
	works := make([]uint64, parts)
	for k := range works {
		works[k] = at[k+1] - at[k]
	}
	return cuts, works
}

// walkItems visits the modelled work of items [lo, hi) of class c's list
// l, in order.
func walkItems(o *graph.Oriented, c gen.Class, l *WorkList, lo, hi uint64, visit func(uint64)) {
	if lo >= hi {
		return
	}
	if l.Items == gen.ItemsVertices {
		for j := lo; j < hi; j++ {
			u := uint32(j)
			if !l.All {
				u = l.Vertices[j]
			}
			visit(vertexItemWork(o, c, u))
		}
		return
	}
	if c.Target { // targetitems.go: e and the length of N+(u) after v
		for j := lo; j < hi; j++ {
			it := l.Edges[j]
			e, a := it>>gen.TargetLenBits, it&(1<<gen.TargetLenBits-1)
			visit(accesses(c, a, o.Degree(o.Adj[e])) + 1)
		}
		return
	}
	edge := func(j uint64) uint64 {
		if l.All {
			return j
		}
		return l.Edges[j]
	}
	u := edgeSource(o, edge(lo)) // edges increase, and so do their sources
	for j := lo; j < hi; j++ {
		e := edge(j)
		for o.Offsets[u+1] <= e {
			u++
		}
		visit(edgeItemWork(o, c, u, o.Adj[e]))
	}
}

// vertexItemWork is a vertex item's work (ClassWork.Accesses per item,
// workmodel.go): the build of a hash or bitmap of N+(u) and an
// intersection per out-edge; a wedge class's wedges; plus one for the item
// itself.
func vertexItemWork(o *graph.Oriented, c gen.Class, u uint32) uint64 {
	du := o.Degree(u)
	if c.Iterator == ir.IterWedge {
		return du*(du-1)/2 + du + 1
	}
	w := uint64(1)
	if c.Iterator == ir.IterVertex && (c.Intersection == ir.Hash || c.Intersection == ir.Bitmap) {
		w += du
	}
	for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
		w += accesses(c, du, o.Degree(o.Adj[e]))
	}
	return w
}

// edgeItemWork is an edge item's work: its intersection (accesses), a
// fixed AND of two rows for the dense classes, plus one.
func edgeItemWork(o *graph.Oriented, c gen.Class, u, v uint32) uint64 {
	if c.Kind == gen.KindDense {
		return 2
	}
	return accesses(c, o.Degree(u), o.Degree(v)) + 1
}

// pivotItemWork is the modelled work of an in-edge source itself, beyond
// its entries (pivotSourceWork): a warp per vertex in count, scatter and
// the core kernel and each pivot's items in bin and the class kernels. A
// fit of pass time = a x work + b x vertices to the two devices of 2-GPU
// runs of the default plan (H100, RMAT oriented by degree and relabelled,
// where equal work took the low ids twice as long as the hubs) gave b/a =
// 1226 on RMAT-24 and 3120 on RMAT-26: 2048 lies between them. The
// measured rebalance (multi_balance.go) corrects what it misses.
const pivotItemWork = 2048

// pivotSourceWork is the work of the in-edges (u, v) that vertex u is the
// source of (pivotWork's probes and accesses, workmodel.go): the tail
// entries of N+(u) after each v below the core, the core kernel's word
// ANDs of u's core entries, and a read per entry in count and scatter.
// words is scratch for coreANDs, returned for the next vertex.
func pivotSourceWork(o *graph.Oriented, u uint32, top uint32, words []uint32) (uint64, []uint32) {
	lo, hi := o.Offsets[u], o.Offsets[u+1]
	w := hi - lo + 1
	e := lo
	for ; e+1 < hi && o.Adj[e] < top; e++ {
		w += hi - e - 1
	}
	if hi-lo < 2 || o.Adj[hi-2] < top {
		return w, words
	}
	// The core's entries from k0 on: each but the last ANDs the nonzero
	// words of S(u) from its own word on (coreWork).
	k0 := e
	for k0 > lo && o.Adj[k0-1] >= top {
		k0--
	}
	ands, words := coreANDs(o.Adj[k0:hi], top, words)
	return w + ands, words
}

// sliceList is items [a, b) of l as a list of their own: a slice of its
// ids, or the ids a..b-1 of a list that took every item.
func sliceList(l *WorkList, a, b uint64) WorkList {
	s := WorkList{Slot: l.Slot, Items: l.Items, Skip: l.Skip, Count: b - a}
	switch {
	case l.Skip:
	case !l.All && l.Items == gen.ItemsEdges:
		s.Edges = l.Edges[a:b]
	case !l.All:
		s.Vertices = l.Vertices[a:b]
	case l.Items == gen.ItemsEdges:
		s.Edges = make([]uint64, b-a)
		for i := range s.Edges {
			s.Edges[i] = a + uint64(i)
		}
	default:
		s.Vertices = make([]uint32, b-a)
		for i := range s.Vertices {
			s.Vertices[i] = uint32(a) + uint32(i)
		}
	}
	return s
}
