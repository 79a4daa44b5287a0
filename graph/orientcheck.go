package graph

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
)

// An oriented CSR file (convert --orient) must hold an orientation: every
// arc forward in its total order. Lists that are sorted, in range and free
// of loops may still store a triangle as a cycle (0->1, 1->2, 2->0), which
// counts 0 triangles instead of 1, or an edge both ways, which counts some
// twice. Each order below is strict and total, so an arc forward in it
// also excludes its reverse: no separate check for edges stored twice is
// needed.

// ArcOrder is what a CSR file's arcs must satisfy besides the lists'
// own checks (sorted, in range, no loop). Its values are those of
// TCGEN_ARCS_* in templates/check_lists.cu, the device's check.
type ArcOrder uint8

const (
	// ArcsAny: an undirected file, whose lists are checked for symmetry
	// instead (symcheck.go).
	ArcsAny ArcOrder = iota
	// ArcsUp: every entry above its vertex. Files oriented by id, and
	// relabelled files of any orientation, whose ids follow the order.
	// Lists are sorted, so it is one compare per list.
	ArcsUp
	// ArcsByDegree: every arc u -> v has (deg u, u) < (deg v, v), deg the
	// undirected degree, out-degree plus in-degree. Files oriented by
	// degree and not relabelled. The in-degrees take a pass over the lists
	// of their own, once they are checked (undirectedDegrees).
	ArcsByDegree
)

// arcOrderOf returns the order a file of orientation by (relabelled or
// not) must follow.
func arcOrderOf(by Orientation, relabelled bool) ArcOrder {
	switch {
	case by == Undirected:
		return ArcsAny
	case by == ByDegree && !relabelled:
		return ArcsByDegree
	}
	return ArcsUp
}

// ArcOrder is the order the section's arcs must follow, which a caller
// that checks the lists itself (ListsChecked) must check too.
func (a *AdjCheck) ArcOrder() ArcOrder { return a.order }

// orderRule says, for an error, how a file of a's orientation stores its
// edges.
func (a *AdjCheck) orderRule() string {
	switch {
	case a.order == ArcsByDegree:
		return "a file oriented by degree stores each edge once, from its lower end in that order"
	case a.relabelled:
		return fmt.Sprintf("a relabelled file oriented by %s stores each edge once, from its lower id", a.by)
	}
	return fmt.Sprintf("a file oriented by %s stores each edge once, from its lower id", a.by)
}

// belowMsg is the error of entry w of vertex v at pos, below v in an
// ArcsUp file.
func (a *AdjCheck) belowMsg(pos uint64, v, w uint32) string {
	return entryMsg(a.off, pos, v, "neighbour %d is below the vertex (%s)", w, a.orderRule())
}

// byDegreeMsg checks an ArcsByDegree section whose lists passed every
// other check and returns the error naming its first backward arc, or ""
// when every arc goes forward.
func (a *AdjCheck) byDegreeMsg() string {
	deg := undirectedDegrees(a.off, a.adj)
	pos, v, ok := firstByDegreeBackward(a.off, a.adj, deg)
	if !ok {
		return ""
	}
	w := a.adj[pos]
	return entryMsg(a.off, pos, v, "neighbour %d (degree %d) comes before the vertex (degree %d) in the (degree, id) order (%s)",
		w, deg[w], deg[v], a.orderRule())
}

// degreeParts bounds the private in-degree arrays undirectedDegrees
// fills: an array of n words each. Random increments wait on memory; plain
// ones overlap their misses (an atomic add waits for each: 3-4x slower on
// RMAT-22), and a few cores already keep the memory busy.
const degreeParts = 4

// UndirectedDegrees returns each vertex's degree in the undirected graph o
// orients: its out-degree plus its in-degree, on all cores. Entries out of
// range, which the list checks refuse later, are not counted.
func (o *Oriented) UndirectedDegrees() []uint32 { return undirectedDegrees(o.Offsets, o.Adj) }

// undirectedDegrees returns each vertex's out-degree plus in-degree in the
// lists (entries out of range are skipped: the checks report them). Up to degreeParts cores each
// count the in-degrees of a range of lists, of about equal arcs, into an
// array of their own; the arrays are then summed on all cores. Sorted lists
// hold an entry at most once, so an in-degree is below n; a degree wraps
// past 2^32 only in a file the order then refuses whatever the keys (any
// strict total order excludes an edge stored both ways).
func undirectedDegrees(off []uint64, adj []uint32) []uint32 {
	n := len(off) - 1
	parts := max(1, min(runtime.GOMAXPROCS(0), degreeParts))
	m := off[n]
	// starts[k]: the first list of part k, where its share of arcs begins.
	starts := make([]int, parts+1)
	for k := 1; k < parts; k++ {
		starts[k] = sort.Search(n, func(v int) bool { return off[v] >= m*uint64(k)/uint64(parts) })
	}
	starts[parts] = n
	in := make([][]uint32, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			c := make([]uint32, n)
			for _, w := range adj[off[starts[k]]:off[starts[k+1]]] {
				if int(w) < n {
					c[w]++
				}
			}
			in[k] = c
		})
	}
	wg.Wait()
	// Summed into in[0] (each word read before it is written), 64 Ki
	// words a chunk: sequential sums, few chunks.
	deg := in[0]
	parFor(n, 1<<16, func(lo, hi int) {
		for x := lo; x < hi; x++ {
			d := uint32(off[x+1] - off[x])
			for _, c := range in {
				d += c[x]
			}
			deg[x] = d
		}
	})
	return deg
}

// firstByDegreeBackward returns the first position of the lists whose arc
// v -> w has (deg w, w) < (deg v, v), with v, or ok false when there is
// none (w == v does not occur: loops are refused before).
func firstByDegreeBackward(off []uint64, adj []uint32, deg []uint32) (pos uint64, v uint32, ok bool) {
	// 4096 vertices a chunk, as firstAsymmetric: lists of any degree mix.
	first := firstBad(len(off)-1, 4096, func(lo, hi int) int {
		return byDegreeBackward(off, adj, deg, lo, hi)
	})
	if first < 0 {
		return 0, 0, false
	}
	v = uint32(first)
	i := byDegreeBackwardAt(adj[off[v]:off[v+1]], deg, v)
	return off[v] + uint64(i), v, true
}

// byDegreeBackward returns the first vertex of [lo, hi) with a backward
// arc, or -1.
func byDegreeBackward(off []uint64, adj []uint32, deg []uint32, lo, hi int) int {
	for x := lo; x < hi; x++ {
		if byDegreeBackwardAt(adj[off[x]:off[x+1]], deg, uint32(x)) >= 0 {
			return x
		}
	}
	return -1
}

// byDegreeBackwardAt returns the index of the first backward arc of v's
// list l, or -1.
func byDegreeBackwardAt(l []uint32, deg []uint32, v uint32) int {
	dv := deg[v]
	for i, w := range l {
		if dw := deg[w]; dw < dv || dw == dv && w < v {
			return i
		}
	}
	return -1
}
