package graph

import (
	"math"
	"math/big"
	"math/bits"
)

// Features are the graph-level numbers the tuner keys on and the benchmark
// reports work against. All counts are exact; the three floating-point
// fields are derived from exact integer sums.
type Features struct {
	// Vertices is |V| of the canonical graph (no isolated vertices).
	Vertices uint64 `json:"vertices"`
	// Edges is |E|, each undirected edge counted once.
	Edges uint64 `json:"edges"`
	// DegreeMax is the largest degree.
	DegreeMax uint64 `json:"degree_max"`
	// DegreeMean is 2|E|/|V| (0 for the empty graph). Bisson's preset picks
	// its thread width by it.
	DegreeMean float64 `json:"degree_mean"`
	// DegreeStddev is the population standard deviation of the degrees: how
	// skewed the graph is, which decides whether load balancing pays.
	DegreeStddev float64 `json:"degree_stddev"`
	// DegreeHist is a log2 histogram: DegreeHist[k] counts the vertices
	// with degree in [2^k, 2^(k+1)). It is as long as the highest non-empty
	// bucket needs (empty for the empty graph); degree 0 cannot occur.
	DegreeHist []uint64 `json:"degree_hist"`
	// WedgesUndirected is the sum over v of C(deg v, 2): the paths of
	// length two, i.e. the work of a wedge-checking count on the
	// unoriented graph.
	WedgesUndirected uint64 `json:"wedges_undirected"`
	// WedgesByID and WedgesByDegree are the sum over v of C(d+(v), 2) under
	// each orientation: the candidate triangles a vertex or wedge iterator
	// examines, so the work measure of those iterators.
	WedgesByID     uint64 `json:"wedges_by_id"`
	WedgesByDegree uint64 `json:"wedges_by_degree"`
	// MinWorkByID and MinWorkByDegree are the sum over oriented edges
	// (u, v) of min(d+(u), d+(v)): a lower bound on the element visits of
	// an edge iterator that hashes or searches the shorter list, and the
	// benchmark's work measure.
	MinWorkByID     uint64 `json:"min_work_by_id"`
	MinWorkByDegree uint64 `json:"min_work_by_degree"`
	// OutDegreeMaxByID and OutDegreeMaxByDegree are the largest d+(v)
	// under each orientation: the longest list a kernel must hold (shared
	// memory hash tables and bitmaps are sized by it).
	OutDegreeMaxByID     uint64 `json:"out_degree_max_by_id"`
	OutDegreeMaxByDegree uint64 `json:"out_degree_max_by_degree"`
	// AdjWords is the sum over v of the 32-id words (id / 32) that v's
	// neighbour list touches: how local the input's ids are. AdjWords /
	// 2|E| is 1/32 when every list is a run of consecutive ids (grids,
	// geometric and small-world graphs in generation order) and near 1 for
	// random ids; bit-wise intersections (TCBW) pay per word, not per id.
	AdjWords uint64 `json:"adj_words"`
}

// featureChunk is the number of vertices a worker claims at a time; see
// orientChunk for the trade-off (the per-vertex work here is the same scan).
const featureChunk = orientChunk

// degreeHistBuckets is enough log2 buckets for any degree: degrees are below
// 2^32 (dense uint32 ids), but the array is sized for any uint64 so that
// bits.Len64 can index it without a check.
const degreeHistBuckets = 64

// ComputeFeatures computes g's Features. It derives both orientations'
// out-degrees from g's symmetric CSR (three uint32 arrays of |V|: the two
// out-degrees and the degree order's ranks) instead of materialising the
// oriented graphs, in two parallel passes over the edges.
// The result does not depend on GOMAXPROCS.
func ComputeFeatures(g *Graph) Features {
	n := g.N()
	c := &g.CSR
	f := Features{Vertices: uint64(n), Edges: g.Edges(), DegreeHist: []uint64{}}
	if n == 0 {
		return f
	}
	outID := make([]uint32, n)
	outDeg := make([]uint32, n)
	rank := degreeRank(c)

	type pass1 struct {
		sumSqHi, sumSqLo uint64 // sum of deg^2 as a 128-bit integer
		maxDeg           uint64
		maxID, maxDeg2   uint64
		wu, wid, wdeg    uint64
		hist             [degreeHistBuckets]uint64
	}
	accs := parReduce(n, featureChunk, func() pass1 { return pass1{} },
		func(a *pass1, lo, hi int) {
			for u := lo; u < hi; u++ {
				d := c.Degree(uint32(u))
				sqHi, sqLo := bits.Mul64(d, d)
				var carry uint64
				a.sumSqLo, carry = bits.Add64(a.sumSqLo, sqLo, 0)
				a.sumSqHi += sqHi + carry
				a.maxDeg = max(a.maxDeg, d)
				if d > 0 { // always, in a canonical graph
					a.hist[bits.Len64(d)-1]++
				}
				a.wu += choose2(d)

				di := uint64(outDegree(c, nil, uint32(u)))
				dd := uint64(outDegree(c, rank, uint32(u)))
				outID[u], outDeg[u] = uint32(di), uint32(dd)
				a.maxID, a.maxDeg2 = max(a.maxID, di), max(a.maxDeg2, dd)
				a.wid += choose2(di)
				a.wdeg += choose2(dd)
			}
		})
	var sumSq big.Int
	var hist [degreeHistBuckets]uint64
	for _, a := range accs {
		var part big.Int
		part.SetUint64(a.sumSqHi)
		part.Lsh(&part, 64)
		part.Add(&part, new(big.Int).SetUint64(a.sumSqLo))
		sumSq.Add(&sumSq, &part)
		f.DegreeMax = max(f.DegreeMax, a.maxDeg)
		f.OutDegreeMaxByID = max(f.OutDegreeMaxByID, a.maxID)
		f.OutDegreeMaxByDegree = max(f.OutDegreeMaxByDegree, a.maxDeg2)
		f.WedgesUndirected += a.wu
		f.WedgesByID += a.wid
		f.WedgesByDegree += a.wdeg
		for k, h := range a.hist {
			hist[k] += h
		}
	}
	top := 0
	for k, h := range hist {
		if h != 0 {
			top = k + 1
		}
	}
	f.DegreeHist = append(f.DegreeHist, hist[:top]...)

	// Mean and variance from exact sums: var = (n*S2 - S1^2) / n^2, with
	// S1 = 2|E|. Doing the subtraction in integers avoids the cancellation
	// that E[d^2] - E[d]^2 suffers in floating point on regular graphs.
	sum := new(big.Int).SetUint64(uint64(len(c.Adj)))
	nn := new(big.Int).SetUint64(uint64(n))
	num := new(big.Int).Mul(nn, &sumSq)
	num.Sub(num, new(big.Int).Mul(sum, sum))
	vr, _ := new(big.Rat).SetFrac(num, new(big.Int).Mul(nn, nn)).Float64()
	f.DegreeStddev = math.Sqrt(vr)
	f.DegreeMean = float64(len(c.Adj)) / float64(n)

	f.MinWorkByID, f.MinWorkByDegree, f.AdjWords = edgePass(c, n, outID, outDeg, rank)
	return f
}

// edgePass is ComputeFeatures' second pass, over the edges: the two
// orientations' min work and the lists' 32-id words (Features.AdjWords).
func edgePass(c *CSR, n int, outID, outDeg, rank []uint32) (byID, byDeg, words uint64) {
	type pass2 struct{ byID, byDeg, words uint64 }
	accs2 := parReduce(n, featureChunk, func() pass2 { return pass2{} },
		func(a *pass2, lo, hi int) {
			for u := lo; u < hi; u++ {
				ui, ud, ru := outID[u], outDeg[u], rank[u]
				a.words += listWords(c.Neighbors(uint32(u)))
				for _, v := range c.Neighbors(uint32(u)) {
					if v > uint32(u) {
						a.byID += uint64(min(ui, outID[v]))
					}
					if rank[v] > ru {
						a.byDeg += uint64(min(ud, outDeg[v]))
					}
				}
			}
		})
	for _, a := range accs2 {
		byID += a.byID
		byDeg += a.byDeg
		words += a.words
	}
	return byID, byDeg, words
}

// choose2 returns C(d, 2). Callers pass d <= 2^32 (a degree, or a vertex
// count), so d*(d-1) < 2^64 fits.
func choose2(d uint64) uint64 {
	if d < 2 {
		return 0
	}
	return d * (d - 1) / 2
}

// AdjWords is Features.AdjWords alone, for a guard that tests the ids'
// locality without the other features' passes.
func AdjWords(g *Graph) uint64 {
	c := &g.CSR
	accs := parReduce(c.N(), featureChunk, func() uint64 { return 0 },
		func(a *uint64, lo, hi int) {
			for u := lo; u < hi; u++ {
				*a += listWords(c.Neighbors(uint32(u)))
			}
		})
	var words uint64
	for _, a := range accs {
		words += a
	}
	return words
}

// listWords is the 32-id words (id / 32) a sorted list touches.
func listWords(list []uint32) uint64 {
	var words uint64
	last := uint32(math.MaxUint32) // v >> 5 < 2^27: a word no id has
	for _, v := range list {
		if w := v >> 5; w != last { // sorted: equal words are adjacent
			words++
			last = w
		}
	}
	return words
}
