package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

// targetLists rewrites the lists of v's target classes (targetItems), their
// positions to be raised by base at the upload (RunOptions.IndexBase).
func targetLists(o *graph.Oriented, v gen.Variant, lists []WorkList, base uint64) error {
	for i, c := range v.Classes {
		if c.Target {
			if err := targetItems(o, &lists[i], base, c.TargetBand); err != nil {
				return fmt.Errorf("class %s: %w", c.Name, err)
			}
		}
	}
	return nil
}

// targetItems rewrites the list of a target class (gen.Class.Target): its
// edges grouped by their target v, in increasing v and CSR order within
// one v, each e << gen.TargetLenBits | the length of N+(u) after v (the
// kernel's N+(u) suffix, with no read of src or the offsets for u). Edges
// last in N+(u) are left out. base is what the upload adds to the positions.
// band > 0 (gen.Class.TargetBand) puts the items in bands of 2^band
// positions first, each band's items in that order.
func targetItems(o *graph.Oriented, l *WorkList, base uint64, band int) error {
	if l.Skip || l.Count == 0 {
		return nil
	}
	off, adj := o.Offsets, o.Adj
	n := o.N()
	if m := uint64(len(adj)); base+m >= 1<<(64-gen.TargetLenBits) {
		return &LimitError{Why: fmt.Sprintf("target items hold edge positions below 2^%d; the graph has %d edges (index base %d); use target: 0", 64-gen.TargetLenBits, m, base)}
	}
	// each calls f(u, e) for the class's edges in CSR order.
	each := func(f func(u uint32, e uint64)) {
		if l.All {
			for u := range n {
				for e := off[u]; e < off[u+1]; e++ {
					f(uint32(u), e)
				}
			}
			return
		}
		u := uint32(0)
		for _, e := range l.Edges {
			for off[u+1] <= e {
				u++
			}
			f(u, e)
		}
	}
	// Edges that are last in N+(u) close no triangle: left out.
	start := make([]uint64, n+1) // counting sort by v
	bad, count := false, uint64(0)
	each(func(u uint32, e uint64) {
		if e+1 < off[u+1] {
			start[adj[e]+1]++
			count++
		}
		bad = bad || off[u+1]-off[u] >= 1<<gen.TargetLenBits
	})
	if bad {
		return &LimitError{Why: fmt.Sprintf("target items hold out-degrees below 2^%d; use target: 0", gen.TargetLenBits)}
	}
	for v := range n {
		start[v+1] += start[v]
	}
	items := make([]uint64, count)
	each(func(u uint32, e uint64) {
		if e+1 < off[u+1] {
			v := adj[e]
			items[start[v]] = e<<gen.TargetLenBits | (off[u+1] - e - 1)
			start[v]++
		}
	})
	if band > 0 && uint64(len(adj)) > 1<<band {
		items = banded(items, band, uint64(len(adj)))
	}
	l.All, l.Edges, l.Count = false, items, count
	return nil
}

// banded is target items in bands of 2^band edge positions (e >> band), a
// stable counting sort: each band keeps its items' order (by v). m is the
// edge count, which bounds the bands.
func banded(items []uint64, band int, m uint64) []uint64 {
	shift := gen.TargetLenBits + band
	start := make([]uint64, (m>>band)+2)
	for _, it := range items {
		start[it>>shift+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	out := make([]uint64, len(items))
	for _, it := range items {
		b := it >> shift
		out[start[b]] = it
		start[b]++
	}
	return out
}
