package graph

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// orientChunk is the number of vertices a worker claims at a time while
// orienting. Per-vertex work is a binary search or a scan of one adjacency
// list, so a few thousand vertices keep the shared counter cold while still
// leaving enough chunks to balance a power-law degree distribution.
const orientChunk = 4096

// Orient keeps each undirected edge of g once, from the lower to the higher
// vertex of the order named by by:
//
//   - ByID: u -> v iff u < v.
//   - ByDegree: u -> v iff (deg u, u) < (deg v, v), ties broken by id. This
//     bounds every out-degree by about sqrt(2|E|), which is what makes
//     intersection-based counting fast on skewed graphs.
//   - ByTCBW: u -> v iff (center u, u) < (center v, v): non-center vertices
//     point at center vertices (TCBW §3.1, see orient_tcbw.go).
//   - Undirected: nothing is dropped; the result shares g's CSR.
//
// With relabel, vertices are renumbered by their rank in the order (new id =
// rank, recorded in Perm: new = Perm[old]), so the oriented graph is simply
// low -> high id and vertices of similar degree sit together in memory.
// Perm is non-nil exactly when relabel is asked for an oriented result
// (for ByID it is the identity, kept so callers can rely on it).
//
// Out-neighbour lists are sorted by (new) id. The work runs on GOMAXPROCS
// goroutines; the result does not depend on their number.
func Orient(g *Graph, by Orientation, relabel bool) *Oriented {
	o, _ := OrientContext(context.Background(), g, by, relabel)
	return o
}

// OrientContext is Orient, stopped by ctx: its workers check it at every
// chunk of vertices, and it then returns ctx.Err().
func OrientContext(ctx context.Context, g *Graph, by Orientation, relabel bool) (*Oriented, error) {
	switch by {
	case Undirected:
		return &Oriented{CSR: g.CSR, By: Undirected}, nil
	case ByID, ByDegree, ByTCBW:
	default:
		panic(fmt.Sprintf("graph.Orient: unknown orientation %d", by))
	}
	c := &g.CSR
	n := c.N()
	// Under ByDegree every comparison goes through the rank: one uint32
	// load per neighbour instead of two offsets and a tie-break. Under ByID
	// the rank is the id and rank stays nil.
	var rank, perm []uint32
	if by == ByDegree {
		rank = degreeRank(c)
	}
	if by == ByTCBW {
		rank = tcbwRank(c) // orient_tcbw.go
	}
	if relabel {
		perm = rank
		if perm == nil {
			perm = make([]uint32, n)
			for i := range perm {
				perm[i] = uint32(i)
			}
		}
	}
	// row maps an old id to the row of the result that holds its out-list.
	// It is an int so that row+1 cannot wrap when n is 2^32.
	row := func(u uint32) int {
		if perm == nil {
			return int(u)
		}
		return int(perm[u])
	}

	offsets := make([]uint64, n+1)
	parForCtx(ctx, n, orientChunk, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			offsets[row(uint32(u))+1] = uint64(outDegree(c, rank, uint32(u)))
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := 1; i <= n; i++ {
		offsets[i] += offsets[i-1]
	}

	adj := make([]uint32, offsets[n])
	parForCtx(ctx, n, orientChunk, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			r := row(uint32(u))
			out := adj[offsets[r]:offsets[r+1]]
			if rank == nil {
				// By id the out-list is a suffix of the sorted list, and
				// relabelling by id is the identity: a plain copy.
				nb := c.Neighbors(uint32(u))
				copy(out, nb[len(nb)-len(out):])
				continue
			}
			ru, k := rank[u], 0
			for _, v := range c.Neighbors(uint32(u)) {
				if rv := rank[v]; rv > ru {
					if relabel {
						out[k] = rv
					} else {
						out[k] = v
					}
					k++
				}
			}
			if relabel {
				slices.Sort(out) // ranks of id-sorted neighbours come in any order
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Oriented{CSR: CSR{Offsets: offsets, Adj: adj}, By: by, Perm: perm, Relabelled: relabel}, nil
}

// outDegree returns d+(u) counted from the symmetric CSR c: under the
// degree order when rank (from degreeRank) is given, else by id.
func outDegree(c *CSR, rank []uint32, u uint32) int {
	nb := c.Neighbors(u)
	if rank == nil {
		// Lists are sorted and hold no loop, so the out-list is the suffix
		// after u's insertion point.
		i, _ := slices.BinarySearch(nb, u)
		return len(nb) - i
	}
	ru, k := rank[u], 0
	for _, v := range nb {
		if rank[v] > ru {
			k++
		}
	}
	return k
}

// degreeRank returns each vertex's rank in the (degree, id) order.
func degreeRank(c *CSR) []uint32 {
	n := c.N()
	rank := make([]uint32, n)
	// Counting sort by degree, visiting ids in increasing order, is stable,
	// so ties come out by id: exactly the (degree, id) order, in O(n + maxdeg).
	maxDeg := uint64(0)
	for u := 0; u < n; u++ {
		maxDeg = max(maxDeg, c.Degree(uint32(u)))
	}
	start := make([]uint64, maxDeg+2)
	for u := 0; u < n; u++ {
		start[c.Degree(uint32(u))+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	for u := 0; u < n; u++ {
		d := c.Degree(uint32(u))
		rank[u] = uint32(start[d])
		start[d]++
	}
	return rank
}

// parFor calls body on consecutive ranges [lo, hi) of at most chunk items
// covering [0, n). GOMAXPROCS goroutines claim ranges through an atomic
// counter, so cheap and expensive ranges balance themselves. body must only
// write state owned by its range for the result to be deterministic.
func parFor(n, chunk int, body func(lo, hi int)) {
	parForCtx(context.Background(), n, chunk, body)
}

// parForCtx is parFor that stops claiming ranges once ctx is done.
func parForCtx(ctx context.Context, n, chunk int, body func(lo, hi int)) {
	parReduceCtx(ctx, n, chunk, func() struct{} { return struct{}{} },
		func(_ *struct{}, lo, hi int) { body(lo, hi) })
}

// parReduce is parFor with per-goroutine state: each goroutine makes its own
// accumulator with init (scratch space, partial sums) and hands it to body
// for every range it claims. The accumulators are returned for the caller to
// merge; merge them with an order-independent operation (integer sums, max)
// so the result does not depend on how ranges fell to goroutines.
func parReduce[T any](n, chunk int, init func() T, body func(acc *T, lo, hi int)) []T {
	return parReduceCtx(context.Background(), n, chunk, init, body)
}

// parReduceCtx is parReduce that stops claiming ranges once ctx is done;
// the caller must then check ctx and drop the results.
func parReduceCtx[T any](ctx context.Context, n, chunk int, init func() T, body func(acc *T, lo, hi int)) []T {
	if n <= 0 {
		return nil
	}
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	accs := make([]T, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			acc := init()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					break
				}
				lo := c * chunk
				body(&acc, lo, min(lo+chunk, n))
			}
			accs[w] = acc
		})
	}
	wg.Wait()
	return accs
}
