package graph

import (
	"context"
	"fmt"
	"math"
)

// ChungLu is a random graph with a power-law expected degree sequence:
// vertex i gets the weight w_i = (i + i0)^(-1/(Gamma-1)), and each of the
// m = round(N*Degree/2) records joins two endpoints drawn independently,
// each vertex with probability w_i/S (S the sum of the weights). So the
// expected number of record ends at i is Degree*N*w_i/S: the mean is
// Degree, the tail of the degree distribution falls as d^-Gamma, and
// vertex 0, the largest, expects MaxDegree. i0 > 0 is picked for that by
// bisection (on log i0, with S as the exact sum of its first 1024 terms
// plus the midpoint integral of the rest); MaxDegree 0 means
// min(N-1, sqrt(N*Degree)), the structural cutoff below which w_i*w_j/S
// stays at most 1, so that the expected degrees survive the merging of
// duplicates. Ids are in decreasing weight: the hubs come first.
//
// Definition of the draws: the endpoint probabilities form an alias table
// built by Vose's method from the float64 weights; record e uses the
// splitmix64 stream at (Seed XOR clKey)*0x100000001B3 +
// e*0xD1B54A32D192ED03 and, per endpoint, a bounded draw j < N and a
// uniform x (top 53 bits * 2^-53): the endpoint is j if x < prob[j], else
// alias[j] (prob[j] is stored as ceil(prob[j]*2^53), against which the 53
// bits compare exactly). Loops and repeated pairs (frequent between hubs) are dropped
// by Build, so hubs end with a little less than their weight. The result
// is the same whatever the number of cores; the weights use math.Pow,
// whose last bit may differ between architectures.
type ChungLu struct {
	N         uint64  // vertices, >= 2
	Degree    float64 // mean expected degree, in (0, N-1]
	Gamma     float64 // power-law exponent, in [2, 3]
	MaxDegree float64 // expected degree of the largest vertex, in [Degree, N-1]; 0: sqrt(N*Degree)
	Seed      uint64
}

// Validate reports parameters that cannot describe a graph.
func (p ChungLu) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("chung-lu: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	if p.N < 2 {
		return fmt.Errorf("chung-lu: %d vertices; need at least 2", p.N)
	}
	if !(p.Gamma >= 2 && p.Gamma <= 3) {
		return fmt.Errorf("chung-lu: exponent gamma = %g must lie in [2, 3]", p.Gamma)
	}
	top := float64(p.N - 1)
	if !(p.Degree > 0 && p.Degree <= top) {
		return fmt.Errorf("chung-lu: mean degree %g must lie in (0, %d]", p.Degree, p.N-1)
	}
	if p.MaxDegree != 0 && !(p.MaxDegree >= p.Degree && p.MaxDegree <= top) {
		return fmt.Errorf("chung-lu: max degree %g must lie in [%g, %d] (the mean degree to n-1)", p.MaxDegree, p.Degree, p.N-1)
	}
	return nil
}

// records is m = round(N*Degree/2).
func (p ChungLu) records() uint64 { return uint64(math.Round(float64(p.N) * p.Degree / 2)) }

// maxDegree is MaxDegree or its default.
func (p ChungLu) maxDegree() float64 {
	if p.MaxDegree != 0 {
		return p.MaxDegree
	}
	return min(float64(p.N-1), math.Sqrt(float64(p.N)*p.Degree))
}

// clHeadTerms: the weight sum in the bisection takes this many leading
// terms exactly and integrates the rest, which is smooth enough past them
// for the midpoint rule to be exact to about 1e-9 relative.
const clHeadTerms = 1024

// offset returns i0: the bisection on log i0 in [-40, 60] (i0 from 4e-18,
// where vertex 0 holds nearly all the weight, to 1e26, where all weights
// are equal to 1e-16) of N*w_0/S = MaxDegree/Degree, which falls as i0
// grows.
func (p ChungLu) offset() float64 {
	alpha := 1 / (p.Gamma - 1)
	want := p.maxDegree() / p.Degree
	ratio := func(i0 float64) float64 {
		n := float64(p.N)
		head := min(p.N, clHeadTerms)
		s := 0.0
		for i := range head {
			s += math.Pow(float64(i)+i0, -alpha)
		}
		// The integral of x^-alpha from a to b, written so that it keeps
		// its precision when i0 dwarfs N (b/a near 1).
		a := float64(head) + i0 - 0.5
		l := math.Log1p((n - float64(head)) / a) // log(b/a)
		if alpha == 1 {
			s += l
		} else {
			s += math.Pow(a, 1-alpha) * math.Expm1((1-alpha)*l) / (1 - alpha)
		}
		return n * math.Pow(i0, -alpha) / s
	}
	lo, hi := -40.0, 60.0
	for range 100 { // far past float64's resolution of the interval
		mid := (lo + hi) / 2
		if ratio(math.Exp(mid)) > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// clTask is how many weights a worker sums at a time; partial sums are
// added in task order, so S does not depend on the number of cores.
const clTask = 1 << 16

// aliasTable is Walker's alias method: draw j uniformly, keep it with
// probability prob[j], else take alias[j]. An entry holds both, so a
// draw costs one cache miss rather than two.
type aliasTable []aliasEntry

type aliasEntry struct {
	keep  uint64 // keep j when the top 53 bits of a draw are below keep: prob[j] = keep/2^53
	alias uint32
}

// newAliasTable builds the table of the weights w (overwritten) with
// Vose's method, in one deterministic sequential pass; sum is their sum.
func newAliasTable(w []float64, sum float64) aliasTable {
	n := len(w)
	scale := float64(n) / sum
	t := make(aliasTable, n)
	// One buffer holds both worklists: the small ones grow from the front,
	// the large ones from the back; an index is in at most one.
	work := make([]uint32, n)
	ns, nl := 0, 0
	for i := range w {
		w[i] *= scale
		t[i].alias = uint32(i)
		if w[i] < 1 {
			work[ns] = uint32(i)
			ns++
		} else {
			nl++
			work[n-nl] = uint32(i)
		}
	}
	for ns > 0 && nl > 0 {
		ns--
		s := work[ns]
		l := work[n-nl]
		t[s].alias = l
		w[l] += w[s] - 1
		if w[l] < 1 {
			nl--
			work[ns] = l
			ns++
		}
	}
	// What is left has probability 1 up to rounding.
	for _, i := range work[:ns] {
		w[i] = 1
	}
	for _, i := range work[n-nl:] {
		w[i] = 1
	}
	for i, p := range w {
		t[i].keep = rmatThreshold(min(max(p, 0), 1))
	}
	return t
}

// prob is entry j's probability of keeping j.
func (t aliasTable) prob(j int) float64 { return float64(t[j].keep) * 0x1p-53 }

// draw returns one alias draw from the stream st.
func (t aliasTable) draw(st *uint64) uint64 {
	j := boundedDraw(st, uint64(len(t)))
	e := &t[j]
	if splitmix64(st)>>11 < e.keep {
		return j
	}
	return uint64(e.alias)
}

// table returns the alias table of the weights, or ctx.Err() once ctx is
// done.
func (p ChungLu) table(ctx context.Context) (aliasTable, error) {
	alpha := 1 / (p.Gamma - 1)
	i0 := p.offset()
	w := make([]float64, p.N)
	tasks := int((p.N + clTask - 1) / clTask)
	partial := make([]float64, tasks)
	parForCtx(ctx, tasks, 1, func(t, _ int) {
		s := 0.0
		for i := uint64(t) * clTask; i < min(uint64(t+1)*clTask, p.N); i++ {
			w[i] = math.Pow(float64(i)+i0, -alpha)
			s += w[i]
		}
		partial[t] = s
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sum := 0.0
	for _, s := range partial {
		sum += s
	}
	return newAliasTable(w, sum), nil
}

// EdgeList returns the m records in order, drawn in parallel.
func (p ChungLu) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of weights and of records.
func (p ChungLu) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t, err := p.table(ctx)
	if err != nil {
		return nil, err
	}
	return fillByIndex(ctx, p.records(), func(first uint64, buf []uint64) {
		for k := 0; k < len(buf); k += 2 {
			st := genStream(p.Seed, clKey, first+uint64(k/2))
			buf[k] = t.draw(&st)
			buf[k+1] = t.draw(&st)
		}
	})
}

// EstimateBytes is the peak of the weights, the alias table and its
// worklist, the records and Build.
func (p ChungLu) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m := p.records()
	gen := satAdd(satMul(p.N, 8+16+4), satMul(m, recordBytes)) // weights, table, worklist
	return peakBytes(gen, m, p.N)
}
