package executor

import (
	"fmt"
	"math/bits"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// ClassWork is the work one class of a plan must do on a graph: what
// docs/performance.md turns into a floor (issue 5). It is computed on the
// CPU from the oriented graph and the plan's work lists, without a GPU.
type ClassWork struct {
	Slot         int             `json:"slot"`
	Name         string          `json:"name"`
	Skip         bool            `json:"skip,omitempty"`
	Iterator     ir.Iterator     `json:"iterator,omitempty"`
	Intersection ir.Intersection `json:"intersection,omitempty"`
	Items        uint64          `json:"items"`
	// Intersections is the number of list pairs the class intersects: one
	// per oriented edge (u, v) of its items.
	Intersections uint64 `json:"intersections"`
	// Probes counts the shorter-list lookups: sum over those pairs of
	// min(d+u, d+v). Every intersection must look at least this many
	// elements up, whatever the method (the "shorter-list probes").
	Probes uint64 `json:"probes"`
	// Accesses estimates the element reads of the class's own method:
	// merge d+u + d+v; binary search min * ceil(log2(max+1)); a hash or
	// bitmap of N+(u) built once per vertex item (d+u) and probed by every
	// 2-hop neighbour (sum of d+v); edge hash: the shorter list built, the
	// longer probed; the wedge search: per wedge (v, w) of N+(u) a search of
	// N+(v), ceil(log2(d+v+1)) (the matrix's single reads not told apart).
	Accesses uint64 `json:"accesses"`
	// UniqueBytes is what must be read from device memory at least once:
	// the offsets (8 B) and the out-lists (4 B per entry) of every vertex
	// whose list the class reads, each counted once.
	UniqueBytes uint64 `json:"unique_bytes"`
}

// Workload returns the plan's per-class work on g, the guard variant
// chosen as the executor would choose it on a GPU of dram GB/s, and the
// guard features measured to choose it (nil without a guard).
func Workload(p ir.Plan, g *graph.Graph, dram float64) (variant int, features map[string]float64, work []ClassWork, err error) {
	out, err := gen.Generate(p, gen.Target{MaxSharedPerBlock: 227 << 10})
	if err != nil {
		return 0, nil, nil, err
	}
	m := out.Manifest
	made := map[ir.Orientation]*graph.Oriented{} // the features' orientation, kept for the variant's
	orient := func(o ir.Orientation) (*graph.Oriented, error) {
		if x, ok := made[o]; ok {
			return x, nil
		}
		by, err := orientation(o)
		if err != nil {
			return nil, err
		}
		made[o] = graph.Orient(g, by, p.Relabel)
		return made[o], nil
	}
	if variant, features, err = chooseVariant(&m, g, dram, func() (*graph.Oriented, error) { return orient(m.Orientation) }); err != nil {
		return 0, nil, nil, err
	}
	o, err := orient(m.VariantOrientation(variant))
	if err != nil {
		return 0, nil, nil, err
	}
	v := m.Variants[variant]
	if variantHasPivot(v) {
		return variant, features, pivotWork(o, v, m.Pivot.VariantCore(variant)), nil
	}
	lists, err := BuildWorkLists(o, v)
	if err != nil {
		return 0, nil, nil, err
	}
	if err := targetLists(o, v, lists, 0); err != nil {
		return 0, nil, nil, err
	}
	seen := make([]uint64, (o.N()+63)/64) // per class: lists already counted
	for i, c := range v.Classes {
		l := &lists[i]
		w := ClassWork{Slot: c.Slot, Name: c.Name, Skip: c.Skip, Iterator: c.Iterator, Intersection: c.Intersection, Items: l.Count}
		if !c.Skip {
			clear(seen)
			countWork(&w, o, c, l, seen)
		}
		work = append(work, w)
	}
	return variant, features, work, nil
}

// countWork adds the work of class c over its items l on o to w; seen
// marks the vertices whose lists were read (clear on entry).
func countWork(w *ClassWork, o *graph.Oriented, c gen.Class, l *WorkList, seen []uint64) {
	touch := func(x uint32) {
		if seen[x/64]&(1<<(x%64)) == 0 {
			seen[x/64] |= 1 << (x % 64)
			w.UniqueBytes += 8 + 4*o.Degree(x)
		}
	}
	edge := func(u uint32, e uint64) {
		x := o.Adj[e]
		du, dv := o.Degree(u), o.Degree(x)
		w.Intersections++
		w.Probes += min(du, dv)
		if c.Kind == gen.KindWedge { // the wedges (x, w), w after x in N+(u): a search of N+(x) each
			w.Accesses += (o.Offsets[u+1] - e - 1) * uint64(bits.Len64(dv))
		} else {
			w.Accesses += accesses(c, du, dv)
		}
		touch(x)
	}
	vertex := func(u uint32) {
		touch(u)
		if c.Iterator == ir.IterVertex && (c.Intersection == ir.Hash || c.Intersection == ir.Bitmap) {
			w.Accesses += o.Degree(u) // the build
		}
		for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
			edge(u, e)
		}
	}
	switch {
	case c.Target: // targetitems.go: the edges not last in N+(u), costed as in CSR order
		for _, it := range l.Edges {
			e := it >> gen.TargetLenBits
			u := edgeSource(o, e)
			touch(u)
			edge(u, e)
		}
	case l.Items == gen.ItemsVertices && l.All:
		for u := range o.N() {
			vertex(uint32(u))
		}
	case l.Items == gen.ItemsVertices:
		for _, u := range l.Vertices {
			vertex(u)
		}
	case l.All:
		for u := range o.N() {
			touch(uint32(u))
			for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
				edge(uint32(u), e)
			}
		}
	default:
		for _, e := range l.Edges {
			u := edgeSource(o, e)
			touch(u)
			edge(u, e)
		}
	}
}

// accesses is the element reads of class c's intersection of lists of du
// and dv entries (ClassWork.Accesses).
func accesses(c gen.Class, du, dv uint64) uint64 {
	switch c.Intersection {
	case ir.Merge, ir.MergePath:
		return du + dv
	case ir.BinarySearch:
		return min(du, dv) * uint64(bits.Len64(max(du, dv)))
	case ir.Hash:
		if c.Iterator == ir.IterVertex {
			return dv
		}
		return du + dv
	}
	return dv
}

// edgeSource finds edge e's source by a binary search of the offsets.
func edgeSource(o *graph.Oriented, e uint64) uint32 {
	lo, hi := 0, o.N()
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if o.Offsets[mid] <= e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return uint32(lo)
}

// Floor is the least time a plan's work can take on a GPU: the larger of
// its unique bytes over DRAM bandwidth and its shorter-list probes (4 B
// each) over shared-memory bandwidth (issue 5; both bandwidths measured on
// the device).
func Floor(work []ClassWork, dramBytesPerSec, smemBytesPerSec float64) (ms, dramMs, probeMs float64) {
	var bytes, probes float64
	for _, w := range work {
		bytes += float64(w.UniqueBytes)
		probes += float64(w.Probes)
	}
	dramMs = bytes / dramBytesPerSec * 1e3
	probeMs = probes * 4 / smemBytesPerSec * 1e3
	return max(dramMs, probeMs), dramMs, probeMs
}

// String summarises a class's work.
func (w ClassWork) String() string {
	return fmt.Sprintf("%s: %d items, %d probes, %d accesses, %d unique bytes", w.Name, w.Items, w.Probes, w.Accesses, w.UniqueBytes)
}

// pivotWork is the work of a variant of pivot classes (ir/params_pivot_hash.go): a
// class's items are its pivots v with a non-empty tail among their in-edges;
// its intersections are those in-edges (u,v), its probes their tail entries
// (N+(u) after v), which are the wedges of u that start at v. Accesses add
// the table builds (d+(v) per pivot; items that rebuild it are not
// counted). Unique bytes: the offsets and out-list of every pivot, and of
// every u whose tail a class reads, each once per class.
//
// With a core (ir.ParamCore) the pivots among the core highest ids are left
// to the core kernel, reported as one more entry, "core": its items are the
// lists u with two core entries or more, its intersections their core
// entries but the last (each v ANDs its row with S(u)), its probes the
// 4-byte words those ANDs read (the nonzero words of S(u) from v's own on),
// its accesses those and the entries that build S(u), its unique bytes the
// lists it reads and the bit matrix.
func pivotWork(o *graph.Oriented, v gen.Variant, core int) []ClassWork {
	n := o.N()
	top := uint32(n - min(n, core)) // n without a core
	classOf := func(d uint64) int {
		for i, c := range v.Classes {
			if int64(d) >= c.Lo && (c.Hi == 0 || int64(d) < c.Hi) {
				return i
			}
		}
		return -1
	}
	work := make([]ClassWork, len(v.Classes))
	for i, c := range v.Classes {
		work[i] = ClassWork{Slot: c.Slot, Name: c.Name, Skip: c.Skip, Iterator: c.Iterator, Intersection: c.Intersection}
	}
	pivot := make([]bool, n)
	seen := make([][]uint64, len(v.Classes)) // per class: lists already counted
	for i := range seen {
		seen[i] = make([]uint64, (n+63)/64)
	}
	touch := func(c int, x uint32) {
		if seen[c][x/64]&(1<<(x%64)) == 0 {
			seen[c][x/64] |= 1 << (x % 64)
			work[c].UniqueBytes += 8 + 4*o.Degree(x)
		}
	}
	for u := range n {
		lo, hi := o.Offsets[u], o.Offsets[u+1]
		for e := lo; e+1 < hi && o.Adj[e] < top; e++ {
			x := o.Adj[e]
			dv := o.Degree(x)
			c := classOf(dv)
			if c < 0 || dv == 0 {
				continue
			}
			w := &work[c]
			w.Intersections++
			w.Probes += hi - e - 1
			w.Accesses += hi - e - 1
			if !pivot[x] {
				pivot[x] = true
				w.Items++
				w.Accesses += dv
			}
			touch(c, uint32(u))
			touch(c, x)
		}
	}
	if core > 0 {
		work = append(work, coreWork(o, top, core))
	}
	return work
}

// coreANDs is the word ANDs of one source's core entries (sorted, all at
// or above top): each entry but the last ANDs the nonzero words of S(u)
// from its own word on. words is scratch for those words, returned for
// reuse.
func coreANDs(entries []uint32, top uint32, words []uint32) (uint64, []uint32) {
	words = words[:0]
	for _, x := range entries {
		if k := (x - top) / 32; len(words) == 0 || words[len(words)-1] != k {
			words = append(words, k)
		}
	}
	var n uint64
	q := 0
	for _, x := range entries[:len(entries)-1] {
		for words[q] != (x-top)/32 {
			q++
		}
		n += uint64(len(words) - q)
	}
	return n, words
}

// coreWork is the core kernel's part of pivotWork.
func coreWork(o *graph.Oriented, top uint32, core int) ClassWork {
	w := ClassWork{Slot: -1, Name: "core", Iterator: ir.IterPivot, Intersection: ir.Bitmap,
		UniqueBytes: uint64(core) * uint64(core) / 8}
	words := make([]uint32, 0, 64) // the nonzero words of S(u), in order
	for u := range o.N() {
		lo, hi := o.Offsets[u], o.Offsets[u+1]
		if hi-lo < 2 || o.Adj[hi-2] < top {
			continue
		}
		k0 := hi - 1
		for k0 > lo && o.Adj[k0-1] >= top {
			k0--
		}
		w.Items++
		w.UniqueBytes += 8 + 4*(hi-lo)
		w.Accesses += hi - k0
		var probes uint64
		probes, words = coreANDs(o.Adj[k0:hi], top, words)
		w.Intersections += hi - 1 - k0
		w.Probes += probes
	}
	w.Accesses += w.Probes
	return w
}
