package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Generator produces raw edge records for Build. Every generator in this
// package is deterministic: the same parameters give the same records,
// whatever the number of cores.
type Generator interface {
	EdgeList() (*EdgeList, error)
}

// ClosedForm is implemented by the generators whose triangle count is known
// in closed form; the tests check the oracle against it.
type ClosedForm interface {
	Generator
	Triangles() uint64
}

// ContextGenerator is implemented by generators whose EdgeList can be
// stopped: EdgeListContext checks ctx as it goes and returns ctx.Err() once
// it is done. GenerateContext prefers it.
type ContextGenerator interface {
	Generator
	EdgeListContext(ctx context.Context) (*EdgeList, error)
}

// Sized is implemented by generators that can tell, before running, about how many bytes they and Build will allocate at peak.
type Sized interface{ EstimateBytes() uint64 }

// Generate runs gen and builds the canonical graph of its records. The
// Report says what Build dropped (RMAT's loops and duplicates, for example).
func Generate(gen Generator) (*Graph, Report, error) {
	return GenerateContext(context.Background(), gen)
}

// GenerateContext is Generate, stopped by ctx while the records are made
// (ContextGenerator; other generators run to the end) and while Build runs
// (BuildContext).
func GenerateContext(ctx context.Context, gen Generator) (*Graph, Report, error) {
	var el *EdgeList
	var err error
	if cg, ok := gen.(ContextGenerator); ok {
		el, err = cg.EdgeListContext(ctx)
	} else {
		el, err = gen.EdgeList()
	}
	if err != nil {
		return nil, Report{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Report{}, err
	}
	var rep Report
	g, err := BuildContext(ctx, el, &rep)
	return g, rep, err
}

// ErdosRenyi is the uniform random graph G(n, m): M distinct undirected
// non-loop edges on vertex labels 0..N-1, every such edge set equally likely.
// Labels no edge touches are dropped by Build, so the graph may have fewer
// than N vertices.
//
// Definition (so that it is the same on every machine): the unordered pairs
// are ranked k = v(v-1)/2 + u for u < v, K = C(N,2) of them. Candidate i
// draws a rank uniformly from its own splitmix64 stream, started at
// Seed*0x100000001B3 + i*0xD1B54A32D192ED03 like an RMAT sample, by
// Lemire's multiply-and-reject. When M <= K/2 the edges are the first M
// distinct ranks in candidate order; otherwise the first K-M distinct ranks
// are the non-edges, which keeps the expected candidates below 1.39*M
// (coupon collecting up to half of K).
type ErdosRenyi struct {
	N, M uint64
	Seed uint64
}

// Validate reports parameters that cannot describe a graph.
func (p ErdosRenyi) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("erdos-renyi: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	if k := choose2(p.N); p.M > k {
		return fmt.Errorf("erdos-renyi: %d edges asked, but %d vertices have only %d pairs", p.M, p.N, k)
	}
	return nil
}

// EdgeList returns the M edges as records (u, v) with u < v.
func (p ErdosRenyi) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator.
func (p ErdosRenyi) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	k := choose2(p.N)
	dense := p.M > k/2
	want := p.M
	if dense {
		want = k - p.M
	}
	ranks, err := erFirstDistinct(ctx, k, want, p.Seed)
	if err != nil {
		return nil, err
	}
	w := newRecords(p.M)
	if !dense {
		for _, r := range ranks {
			w.put(unrankPair(r))
		}
		return w.done(), nil
	}
	slices.Sort(ranks)
	// Walk all pairs in rank order (v outer, u inner), skipping the
	// non-edges; K < 2M here, so this is linear in the output.
	i := 0
	for v := uint64(1); v < p.N; v++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for u := uint64(0); u < v; u++ {
			if i < len(ranks) && ranks[i] == v*(v-1)/2+u {
				i++
				continue
			}
			w.put(u, v)
		}
	}
	return w.done(), nil
}

// erTask is the number of candidates a worker draws at a time: about a
// tenth of a millisecond of splitmix, far more than the cost of claiming.
const erTask = 1 << 14

// erFirstDistinct returns the first want distinct ranks in [0, k) among the
// candidates, ordered by the candidate that first drew each.
//
// Candidates are drawn in parallel by index; a stable radix sort by rank
// then puts each rank's first candidate at the head of its run, those heads
// are flagged in a bitmap over candidate indices, and one scan in index
// order collects them. (A comparison sort on (rank, index) measured
// several times slower.) A done ctx stops it between its passes.
func erFirstDistinct(ctx context.Context, k, want, seed uint64) ([]uint64, error) {
	if want == 0 {
		return nil, nil
	}
	var ranks []uint64 // ranks[i] is candidate i's draw
	// Expected draws to see want distinct values of k: k*ln(k/(k-want)).
	expect := -float64(k) * math.Log1p(-float64(want)/float64(k))
	total := uint64(expect*erDrawMargin) + 64
	for {
		have := uint64(len(ranks))
		ranks = append(ranks, make([]uint64, total-have)...)
		tasks := (total - have + erTask - 1) / erTask
		parForCtx(ctx, int(tasks), 1, func(t, _ int) {
			first := have + uint64(t)*erTask
			for i := first; i < min(first+erTask, total); i++ {
				st := seed*rmatSeedMul + i*rmatSampleMul
				ranks[i] = boundedDraw(&st, k)
			}
		})
		cands := make([]erCand, total)
		for i, r := range ranks {
			cands[i] = erCand{r, uint64(i)}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cands = radixSortCands(ctx, cands, bits.Len64(k-1))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		first := make([]uint64, (total+63)/64) // bit i: candidate i drew a rank first
		distinct := uint64(0)
		for j, c := range cands {
			if j == 0 || cands[j-1].rank != c.rank {
				first[c.idx/64] |= 1 << (c.idx % 64)
				distinct++
			}
		}
		if distinct >= want {
			out := make([]uint64, 0, want)
			for i := uint64(0); uint64(len(out)) < want; i++ {
				if first[i/64]>>(i%64)&1 != 0 {
					out = append(out, ranks[i])
				}
			}
			return out, nil
		}
		total += (want-distinct)*2 + 64
	}
}

// erDrawMargin scales the expected number of draws for the first round:
// two percent (and 64) over the expectation makes a second round rare. A
// variable so that tests can shrink it and exercise the later rounds, which
// must give the same graph.
var erDrawMargin = 1.02

// erCand is an Erdos-Renyi candidate: the rank it drew and its index.
type erCand struct{ rank, idx uint64 }

// radixSortCands sorts a by rank (keyBits wide), stably, so candidates with
// equal ranks stay in index order. Byte digits: 256 counters fit in L1. A
// done ctx stops it between passes.
func radixSortCands(ctx context.Context, a []erCand, keyBits int) []erCand {
	buf := make([]erCand, len(a))
	for shift := 0; shift < keyBits && ctx.Err() == nil; shift += 8 {
		var pos [256]int
		for _, c := range a {
			pos[(c.rank>>shift)&255]++
		}
		sum := 0
		for d, n := range pos {
			pos[d] = sum
			sum += n
		}
		for _, c := range a {
			d := (c.rank >> shift) & 255
			buf[pos[d]] = c
			pos[d]++
		}
		a, buf = buf, a
	}
	return a
}

// boundedDraw returns a uniform value in [0, k) from the stream *st
// (Lemire's nearly-divisionless method: the high word of x*k, redrawing the
// rare x whose low word falls in the biased sliver).
func boundedDraw(st *uint64, k uint64) uint64 {
	hi, lo := bits.Mul64(splitmix64(st), k)
	if lo < k {
		thresh := -k % k
		for lo < thresh {
			hi, lo = bits.Mul64(splitmix64(st), k)
		}
	}
	return hi
}

// unrankPair inverts r = v(v-1)/2 + u, 0 <= u < v.
func unrankPair(r uint64) (u, v uint64) {
	// The float estimate can be off by one either way near perfect squares;
	// the loops correct it exactly.
	v = uint64((1 + math.Sqrt(1+8*float64(r))) / 2)
	for v*(v-1)/2 > r {
		v--
	}
	for (v+1)*v/2 <= r {
		v++
	}
	return r - v*(v-1)/2, v
}

// Grid is a Rows x Cols 4-neighbour lattice, the shape of a road network:
// low, even degrees and no triangle. With Diagonals every cell also gets
// the edge from its top-left to its bottom-right corner, which splits it
// into two triangles. Vertex (r, c) is labelled r*Cols + c.
type Grid struct {
	Rows, Cols uint64
	Diagonals  bool
}

// Validate reports parameters that cannot describe a graph.
func (p Grid) Validate() error {
	if p.Rows == 0 || p.Cols == 0 {
		return errors.New("grid: rows and cols must be positive")
	}
	if hi, lo := bits.Mul64(p.Rows, p.Cols); hi != 0 || lo > MaxVertices {
		return fmt.Errorf("grid: %d x %d vertices exceed the %d a graph can have", p.Rows, p.Cols, uint64(MaxVertices))
	}
	return nil
}

// EdgeList returns the lattice edges, row by row.
func (p Grid) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator: ctx is checked every row.
func (p Grid) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := newRecords(p.records())
	for r := range p.Rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for c := range p.Cols {
			x := r*p.Cols + c
			if c+1 < p.Cols {
				w.put(x, x+1)
			}
			if r+1 < p.Rows {
				w.put(x, x+p.Cols)
				if p.Diagonals && c+1 < p.Cols {
					w.put(x, x+p.Cols+1)
				}
			}
		}
	}
	return w.done(), nil
}

// Triangles is 0 for the plain lattice (it is bipartite: colour by the
// parity of r+c) and 2(Rows-1)(Cols-1) with diagonals: each cell's two
// halves, and no other triangle, as the diagonals make a planar
// triangulation whose only 3-cycles are its faces.
func (p Grid) Triangles() uint64 {
	if !p.Diagonals {
		return 0
	}
	return 2 * (p.Rows - 1) * (p.Cols - 1)
}

// Complete is K_N: every pair of N vertices joined.
type Complete struct{ N uint64 }

// EdgeList returns the C(N,2) edges.
func (p Complete) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// Validate reports a size no graph can have.
func (p Complete) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("complete: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	return nil
}

// EdgeListContext implements ContextGenerator: ctx is checked every vertex.
func (p Complete) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := newRecords(choose2(p.N))
	for u := range p.N {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for v := u + 1; v < p.N; v++ {
			w.put(u, v)
		}
	}
	return w.done(), nil
}

// Triangles is C(N,3): every 3-subset is a triangle.
func (p Complete) Triangles() uint64 {
	n := p.N
	if n < 3 {
		return 0
	}
	// Divide early to stay within 64 bits: of three consecutive integers
	// one is even (so n(n-1)/2 is exact) and the product of C(n,2) with
	// n-2 is divisible by 3.
	return choose2(n) * (n - 2) / 3
}

// CompleteBipartite is K_{A,B}: vertices 0..A-1 each joined to every one of
// A..A+B-1.
type CompleteBipartite struct{ A, B uint64 }

// EdgeList returns the A*B edges.
func (p CompleteBipartite) EdgeList() (*EdgeList, error) {
	return p.EdgeListContext(context.Background())
}

// Validate reports sizes no graph can have.
func (p CompleteBipartite) Validate() error {
	if p.A+p.B > MaxVertices || p.A+p.B < p.A {
		return fmt.Errorf("complete bipartite: %d+%d vertices exceed the %d a graph can have", p.A, p.B, uint64(MaxVertices))
	}
	return nil
}

// EdgeListContext implements ContextGenerator: ctx is checked every vertex
// of the first side.
func (p CompleteBipartite) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := newRecords(p.A * p.B)
	for u := range p.A {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for v := range p.B {
			w.put(u, p.A+v)
		}
	}
	return w.done(), nil
}

// Triangles is 0: a bipartite graph has no odd cycle.
func (p CompleteBipartite) Triangles() uint64 { return 0 }

// Wheel is a hub (vertex 0) joined to every vertex of a cycle of Rim
// vertices (1..Rim).
type Wheel struct{ Rim uint64 }

// EdgeList returns the 2*Rim edges: rim cycle, then spokes.
func (p Wheel) EdgeList() (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := newRecords(2 * p.Rim)
	for i := range p.Rim {
		w.put(1+i, 1+(i+1)%p.Rim)
	}
	for i := range p.Rim {
		w.put(0, 1+i)
	}
	return w.done(), nil
}

// Validate reports a rim too small for a wheel or too large for a graph.
func (p Wheel) Validate() error {
	if p.Rim < 3 || p.Rim >= MaxVertices {
		return fmt.Errorf("wheel: rim of %d vertices; need 3 to %d", p.Rim, uint64(MaxVertices-1))
	}
	return nil
}

// Triangles is Rim for Rim >= 4 (hub with each rim edge; the rim cycle is
// no triangle), and 4 for Rim = 3, where the rim is itself a triangle and
// the wheel is K_4.
func (p Wheel) Triangles() uint64 {
	if p.Rim == 3 {
		return 4
	}
	return p.Rim
}

// Star is a hub (vertex 0) joined to Leaves leaves (1..Leaves): the most
// skewed graph possible, and triangle-free.
type Star struct{ Leaves uint64 }

// EdgeList returns the Leaves spokes.
func (p Star) EdgeList() (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := newRecords(p.Leaves)
	for i := range p.Leaves {
		w.put(0, 1+i)
	}
	return w.done(), nil
}

// Validate reports more leaves than a graph can hold.
func (p Star) Validate() error {
	if p.Leaves >= MaxVertices {
		return fmt.Errorf("star: %d leaves exceed %d", p.Leaves, uint64(MaxVertices-1))
	}
	return nil
}

// Triangles is 0: every edge touches the hub, and two leaves never meet.
func (p Star) Triangles() uint64 { return 0 }

// recordWriter fills an EdgeList of a known number of records in order. Sizing
// the list up front matters for the small generators: EdgeList.Add starts
// with a whole chunk (16 MiB), which dominated generating a tiny graph.
type recordWriter struct {
	el *EdgeList
	i  uint64
}

func newRecords(m uint64) *recordWriter { return &recordWriter{el: newSizedEdgeList(m)} }

func (w *recordWriter) put(u, v uint64) {
	w.el.set(w.i, u, v)
	w.i++
}

// done returns the list, which must be exactly full: a short count is a
// generator bug and would leave (0, 0) records behind.
func (w *recordWriter) done() *EdgeList {
	if w.i != w.el.Len() {
		panic(fmt.Sprintf("graph: generator wrote %d of %d records", w.i, w.el.Len()))
	}
	return w.el
}
