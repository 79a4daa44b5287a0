package executor

import (
	"fmt"
	"math/bits"
	goruntime "runtime"
	"slices"

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
// positions first, each band's items in that order. The sort runs on
// GOMAXPROCS goroutines (a count's host time on large graphs: one core
// took seconds on 32 million edges).
func targetItems(o *graph.Oriented, l *WorkList, base uint64, band int) error {
	if l.Skip || l.Count == 0 {
		return nil
	}
	adj := o.Adj
	if m := uint64(len(adj)); base+m >= 1<<(64-gen.TargetLenBits) {
		return &LimitError{Why: fmt.Sprintf("target items hold edge positions below 2^%d; the graph has %d edges (index base %d); use target: 0", 64-gen.TargetLenBits, m, base)}
	}
	items, ok := sortByTarget(o, l)
	if !ok {
		return &LimitError{Why: fmt.Sprintf("target items hold out-degrees below 2^%d; use target: 0", gen.TargetLenBits)}
	}
	if band > 0 && uint64(len(adj)) > 1<<band {
		items = banded(items, band, uint64(len(adj)))
	}
	l.All, l.Edges, l.Count = false, items, uint64(len(items))
	return nil
}

// targetBucketBits bounds the buckets of sortByTarget's first pass to
// 2^16: parts x buckets counters (8 MiB on 16 cores), and a bucket holds
// 2^s ids, so the second pass's counters total n.
const targetBucketBits = 16

// sortByTarget is the target items of l's edges (targetItems) by a stable
// two-pass counting sort: contiguous parts of the edges in CSR order
// scatter their items by buckets of 2^s targets (v >> s), part after part
// within a bucket, then each bucket is sorted by v's low s bits. false:
// an edge's source has an out-degree of 2^gen.TargetLenBits or more.
func sortByTarget(o *graph.Oriented, l *WorkList) ([]uint64, bool) {
	off, adj := o.Offsets, o.Adj
	n := uint64(max(o.N(), 1))
	s := max(0, bits.Len64(n-1)-targetBucketBits)
	nb := (n-1)>>s + 1
	total := l.Count // the class's edges, l.Edges or all of them
	parts := int(min(uint64(goruntime.GOMAXPROCS(0)), max(total/(1<<16), 1)))
	// each calls f(e, a) for part p's edges that are not last in N+(u), in
	// CSR order, a the length of N+(u) after e.
	each := func(p int, f func(e, a uint64)) {
		lo, hi := total*uint64(p)/uint64(parts), total*uint64(p+1)/uint64(parts)
		if lo == hi {
			return
		}
		edge := func(j uint64) uint64 {
			if l.All {
				return j
			}
			return l.Edges[j]
		}
		u := edgeSource(o, edge(lo))
		for j := lo; j < hi; j++ {
			e := edge(j)
			for off[u+1] <= e {
				u++
			}
			if e+1 < off[u+1] {
				f(e, off[u+1]-e-1)
			}
		}
	}
	// Pass 1: each part's items per bucket; then each part's first slot
	// in each bucket (buckets in order, parts in order within one).
	counts := make([][]uint64, parts)
	longest := make([]uint64, parts) // the longest suffix a part's edges hold
	parallelChunks(parts, func(p int) {
		c, long := make([]uint64, nb), uint64(0) // a part's own: no line shared between cores per edge
		each(p, func(e, a uint64) {
			c[adj[e]>>s]++
			long = max(long, a)
		})
		counts[p], longest[p] = c, long
	})
	if slices.Max(longest) >= 1<<gen.TargetLenBits-1 {
		return nil, false
	}
	starts := make([]uint64, nb+1) // each bucket's first slot
	at := uint64(0)
	for b := range nb {
		starts[b] = at
		for p := range parts {
			c := counts[p][b]
			counts[p][b] = at // part p's next slot in bucket b
			at += c
		}
	}
	starts[nb] = at
	items := make([]uint64, at)
	parallelChunks(parts, func(p int) {
		next := counts[p]
		each(p, func(e, a uint64) {
			b := adj[e] >> s
			items[next[b]] = e<<gen.TargetLenBits | a
			next[b]++
		})
	})
	if s == 0 {
		return items, true // a bucket per target
	}
	// Pass 2: each bucket by v's low bits, stable, through a scratch copy.
	const bucketsPerChunk = 256
	mask := uint32(1)<<s - 1
	parallelChunks(int((nb+bucketsPerChunk-1)/bucketsPerChunk), func(ch int) {
		var scratch []uint64
		c := make([]uint64, 1<<s+1)
		for b := uint64(ch) * bucketsPerChunk; b < min(uint64(ch+1)*bucketsPerChunk, nb); b++ {
			part := items[starts[b]:starts[b+1]]
			if len(part) < 2 {
				continue
			}
			scratch = append(scratch[:0], part...)
			clear(c)
			for _, it := range scratch {
				c[adj[it>>gen.TargetLenBits]&mask+1]++
			}
			for k := 1; k < len(c); k++ {
				c[k] += c[k-1]
			}
			for _, it := range scratch {
				k := adj[it>>gen.TargetLenBits] & mask
				part[c[k]] = it
				c[k]++
			}
		}
	})
	return items, true
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
