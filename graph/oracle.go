package graph

import (
	"context"
	"fmt"
	"math/bits"
	"sort"
	"sync/atomic"
)

// oracleChunk is the number of vertices a counting worker claims at a time.
// Work per vertex varies by orders of magnitude on power-law graphs, so
// chunks are small; at 64 the shared counter is touched once per tens of
// microseconds of work at the least, far too rarely to contend.
const oracleChunk = 64

// inArc is an arc u -> v as stored in v's in-list: its tail u and v's index
// in N+(u), so that the part of N+(u) after v is found without a search.
// The index is below |V| <= 2^32, so 32 bits hold it even when the arc
// count needs 64.
type inArc struct{ u, i uint32 }

// inArcs returns the in-lists of c: for each v, the arcs u -> v, by
// increasing u. Costs 8 bytes per arc and 8 per vertex. It is serial: a
// parallel scatter through atomic cursors measured slower (cache lines of
// the cursors of popular vertices bounce between cores) and would leave the
// lists in a scheduling-dependent order; this pass is under a tenth of the
// count's time.
func inArcs(c *CSR) (offsets []uint64, arcs []inArc) {
	n := c.N()
	offsets = make([]uint64, n+1)
	for _, v := range c.Adj {
		offsets[int(v)+1]++
	}
	for v := 1; v <= n; v++ {
		offsets[v] += offsets[v-1]
	}
	cursor := make([]uint64, n)
	copy(cursor, offsets[:n])
	arcs = make([]inArc, len(c.Adj))
	for u := range n {
		for i, v := range c.Neighbors(uint32(u)) {
			arcs[cursor[v]] = inArc{uint32(u), uint32(i)}
			cursor[v]++
		}
	}
	return offsets, arcs
}

// CountTriangles returns the exact number of triangles of the graph o was
// oriented from. o must be an orientation (ByID, ByDegree or ByTCBW,
// relabelled or not); out-lists sorted, as Orient makes them. Each triangle
// has exactly one "middle" arc pattern u -> v -> w with u -> w, and is
// counted there once. ByDegree with relabelling is the fast choice (see Oracle).
//
// The scheme, per middle vertex v: mark N+(v) in a bitmap (|V|/8 bytes per
// goroutine), then for every in-arc u -> v scan the part of N+(u) after v
// and count the marked entries. The probes total the oriented wedges, sum
// over u of C(d+(u), 2) (Features.WedgesByDegree); the direct scheme (mark
// N+(u), scan N+(v) for every v in N+(u)) probes sum over arcs of d+(v)
// instead, several times more on skewed graphs, and takes more CPU time;
// merging the sorted lists is slower still. The price is the in-lists (8
// bytes per arc).
//
// It runs on GOMAXPROCS goroutines that claim chunks of middle vertices
// through an atomic counter; the count does not depend on their number.
func CountTriangles(o *Oriented) uint64 { return CountTrianglesProgress(o, nil) }

// Progress is told, as a count runs, how many of the graph's edges (arcs
// of the orientation) have been counted at their head, the middle vertex,
// out of all; it is called from several goroutines at once.
type Progress func(done, total int64)

// chunkDone reports the in-arcs of the middle vertices [lo, hi) as done.
func (p Progress) chunkDone(done *atomic.Int64, inOff []uint64, lo, hi, total int) {
	if p != nil {
		p(done.Add(int64(inOff[hi]-inOff[lo])), int64(total))
	}
}

// CountTrianglesProgress is CountTriangles telling progress (nil: nothing)
// after each chunk of middle vertices.
func CountTrianglesProgress(o *Oriented, progress Progress) uint64 {
	t, _ := CountTrianglesContext(context.Background(), o, progress)
	return t
}

// CountTrianglesContext is CountTrianglesProgress, stopped by ctx: its
// workers check it at every chunk of middle vertices, and it then returns
// ctx.Err().
func CountTrianglesContext(ctx context.Context, o *Oriented, progress Progress) (uint64, error) {
	return CountTrianglesShareContext(ctx, o, 0, 1, progress)
}

// CountTrianglesShareContext counts the triangles whose middle vertex lies
// in share k of parts: contiguous ranges of middle vertices cut where the
// in-arcs reach k/parts of all, so the shares' counts add up to
// CountTriangles' total (count --mpi: each process counts one). progress
// is told of the share's in-arcs.
func CountTrianglesShareContext(ctx context.Context, o *Oriented, k, parts int, progress Progress) (uint64, error) {
	mustBeOriented(o)
	if parts < 1 || k < 0 || k >= parts {
		return 0, fmt.Errorf("graph: share %d of %d", k, parts)
	}
	c := &o.CSR
	n := c.N()
	inOff, in := inArcs(c)
	first, last := shareRange(inOff, k, parts)
	skip := tailSkip(o)
	var done atomic.Int64
	words := (n + 63) / 64
	type acc struct {
		mark  []uint64
		count uint64
	}
	accs := parReduceCtx(ctx, last-first, oracleChunk, func() acc { return acc{mark: make([]uint64, words)} },
		func(a *acc, lo, hi int) {
			lo, hi = lo+first, hi+first
			mark := a.mark
			var count uint64
			for v := lo; v < hi; v++ {
				nv := c.Neighbors(uint32(v))
				ins := in[inOff[v]:inOff[v+1]]
				if len(nv) == 0 || len(ins) == 0 {
					continue // v is no middle vertex
				}
				for _, w := range nv {
					mark[w>>6] |= 1 << (w & 63)
				}
				for _, x := range ins {
					for _, w := range c.Adj[c.Offsets[x.u]+(uint64(x.i)+1)*skip : c.Offsets[x.u+1]] {
						count += (mark[w>>6] >> (w & 63)) & 1
					}
				}
				for _, w := range nv {
					mark[w>>6] = 0 // whole words: cheaper than a mask, and all set bits are ours
				}
			}
			a.count += count
			progress.chunkDone(&done, inOff, lo, hi, int(inOff[last]-inOff[first]))
		})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var total uint64
	for _, a := range accs {
		total += a.count
	}
	return total, nil
}

// shareRange is the middle vertices [first, last) of share k of parts:
// the first vertex whose in-arcs start at or past k/parts of all, up to
// share k+1's.
func shareRange(inOff []uint64, k, parts int) (first, last int) {
	n := len(inOff) - 1
	cut := func(k int) int {
		if k >= parts {
			return n
		}
		// 128-bit product: arcs times parts may pass 2^64.
		hi, lo := bits.Mul64(inOff[n], uint64(k))
		target, _ := bits.Div64(hi, lo, uint64(parts))
		return sort.Search(n, func(v int) bool { return inOff[v] >= target })
	}
	return cut(k), cut(k + 1)
}

// CountPerVertex returns the triangle count and, for every vertex, the
// number of triangles it is in. perVertex is indexed by the dense ids of the
// Graph o came from (o.Perm, if any, is undone), and sums to 3*total.
//
// It uses CountTriangles' scheme with a uint32 array per goroutine (4|V|
// bytes) in place of the bitmap: slot[w] is 0 outside N+(v) and 1+hits
// inside it, so the triangles through each w found at middle vertex v are
// summed locally and published with one atomic add per arc rather than one
// per triangle. Likewise each tail u gets one add per in-arc, and v one.
func CountPerVertex(o *Oriented) (total uint64, perVertex []uint64) {
	return CountPerVertexProgress(o, nil)
}

// CountPerVertexProgress is CountPerVertex telling progress (nil: nothing)
// after each chunk of middle vertices.
func CountPerVertexProgress(o *Oriented, progress Progress) (total uint64, perVertex []uint64) {
	total, perVertex, _ = CountPerVertexContext(context.Background(), o, progress)
	return total, perVertex
}

// CountPerVertexContext is CountPerVertexProgress, stopped by ctx as
// CountTrianglesContext is.
func CountPerVertexContext(ctx context.Context, o *Oriented, progress Progress) (total uint64, perVertex []uint64, err error) {
	mustBeOriented(o)
	c := &o.CSR
	n := c.N()
	inOff, in := inArcs(c)
	skip := tailSkip(o)
	var done atomic.Int64
	counts := make([]uint64, n) // indexed by the ids of o
	type acc struct {
		slot  []uint32
		count uint64
	}
	accs := parReduceCtx(ctx, n, oracleChunk, func() acc { return acc{slot: make([]uint32, n)} },
		func(a *acc, lo, hi int) {
			slot := a.slot
			for v := lo; v < hi; v++ {
				nv := c.Neighbors(uint32(v))
				ins := in[inOff[v]:inOff[v+1]]
				if len(nv) == 0 || len(ins) == 0 {
					continue
				}
				for _, w := range nv {
					slot[w] = 1
				}
				var atV uint64
				for _, x := range ins {
					var atU uint64
					for _, w := range c.Adj[c.Offsets[x.u]+(uint64(x.i)+1)*skip : c.Offsets[x.u+1]] {
						if s := slot[w]; s != 0 {
							// At most one hit per in-arc of v, so s stays
							// below d-(v)+1 <= |V| and cannot wrap.
							slot[w] = s + 1
							atU++
						}
					}
					if atU != 0 {
						atomic.AddUint64(&counts[x.u], atU)
						atV += atU
					}
				}
				for _, w := range nv {
					if s := slot[w]; s > 1 {
						atomic.AddUint64(&counts[w], uint64(s-1))
					}
					slot[w] = 0
				}
				if atV != 0 {
					atomic.AddUint64(&counts[v], atV)
				}
				a.count += atV
			}
			progress.chunkDone(&done, inOff, lo, hi, len(in))
		})
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	for _, a := range accs {
		total += a.count
	}
	if o.Perm == nil {
		return total, counts, nil
	}
	perVertex = make([]uint64, n)
	for old, nw := range o.Perm {
		perVertex[old] = counts[nw]
	}
	return total, perVertex, nil
}

// Oracle returns the exact triangle count of g: degree orientation with
// relabelling (out-lists of about sqrt(2|E|) at most, and the heavy
// vertices' lists packed together), then CountTriangles.
func Oracle(g *Graph) uint64 {
	return CountTriangles(Orient(g, ByDegree, true))
}

// OracleContext is Oracle, stopped by ctx while orienting
// (OrientContext) and counting (CountTrianglesContext).
func OracleContext(ctx context.Context, g *Graph) (uint64, error) {
	o, err := OrientContext(ctx, g, ByDegree, true)
	if err != nil {
		return 0, err
	}
	return CountTrianglesContext(ctx, o, nil)
}

// tailSkip is 1 when the scan for w may start just past v in N+(u): ids
// follow the order (by id, or relabelled), so the entries after v in the
// sorted N+(u) are exactly those after v in the order, as w must be. It is
// 0, scan all of N+(u), for an unrelabelled degree orientation, whose lists
// are sorted by id but ordered by degree; that costs only time, since v is
// not in N+(v) and so is never counted.
func tailSkip(o *Oriented) uint64 {
	if o.By == ByID || o.Perm != nil || o.Relabelled {
		return 1
	}
	return 0
}

func mustBeOriented(o *Oriented) {
	if o.By != ByID && o.By != ByDegree && o.By != ByTCBW {
		// On a symmetric CSR every triangle would be counted six times over;
		// a silent wrong count is worse than a crash here.
		panic("graph: triangle count needs an oriented graph, got orientation " + o.By.String())
	}
}
