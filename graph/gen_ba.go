package graph

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
)

// BarabasiAlbert is preferential attachment: vertices 0..N-1 arrive in
// order and each vertex v >= 1 attaches M edges to earlier vertices, each
// to a vertex chosen with probability proportional to its degree so far.
//
// Definition (Batagelj and Brandes' edge-slot formulation, resolved so
// that every edge can be computed on its own): edge e = v*M + i (i < M) has
// two slots, 2e holding its source v and 2e+1 its target. Vertex 0's M
// edges are loops (target 0), which give it degree 2M for the first
// arrivals to attach to; they are not emitted. For v >= 1, edge e draws
// r uniformly in [0, 2vM) (Lemire's bounded draw from the splitmix64
// stream at (Seed XOR baKey)*0x100000001B3 + e*0xD1B54A32D192ED03) and its
// target is the value of slot r: r/(2M) for an even r, else the target of
// edge (r-1)/2, resolved the same way (a chain of strictly earlier edges,
// two draws long on average).
//
// So each of v's M targets is, independently given the graph of vertices
// 0..v-1 (as a multigraph, vertex 0's loops counting twice), vertex u with
// probability deg(u)/(2vM). The records are (v, target), (N-1)*M of them;
// when v draws one target twice Build merges the two, so the graph has at
// most (N-1)*M edges (exactly N-1 for M = 1, a tree). Low ids are the old
// vertices and hold the hubs: degrees follow a power law of exponent 3.
type BarabasiAlbert struct {
	N    uint64 // vertices
	M    uint64 // edges each vertex attaches on arrival, >= 1
	Seed uint64
}

// Validate reports parameters that cannot describe a graph.
func (p BarabasiAlbert) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("barabasi-albert: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	if p.M == 0 {
		return errors.New("barabasi-albert: m (edges per new vertex) must be at least 1")
	}
	// Slots run up to 2*N*M, which must fit in 64 bits.
	if hi, lo := bits.Mul64(p.N, p.M); hi != 0 || lo > 1<<63-1 {
		return fmt.Errorf("barabasi-albert: %d vertices times m = %d overflows the edge count", p.N, p.M)
	}
	return nil
}

// records is the number of raw records, (N-1)*M (saturated, for
// EstimateBytes on parameters Validate refuses).
func (p BarabasiAlbert) records() uint64 {
	if p.N < 2 {
		return 0
	}
	return satMul(p.N-1, p.M)
}

// EdgeList returns the records (v, target) in edge order, computed in
// parallel: each depends only on its edge index.
func (p BarabasiAlbert) EdgeList() (*EdgeList, error) {
	return p.EdgeListContext(context.Background())
}

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of records.
func (p BarabasiAlbert) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return fillByIndex(ctx, p.records(), func(first uint64, buf []uint64) {
		for k := 0; k < len(buf); k += 2 {
			e := p.M + first + uint64(k/2) // vertex 0's edges are not emitted
			buf[k], buf[k+1] = e/p.M, p.target(e)
		}
	})
}

// target resolves the target slot of edge e by following copied slots
// back until one holds a source.
func (p BarabasiAlbert) target(e uint64) uint64 {
	for e >= p.M {
		st := genStream(p.Seed, baKey, e)
		r := boundedDraw(&st, 2*(e/p.M)*p.M)
		if r&1 == 0 {
			return r / 2 / p.M
		}
		e = r / 2
	}
	return 0 // vertex 0's loops
}

// EstimateBytes is the peak of the records and of Build on them.
func (p BarabasiAlbert) EstimateBytes() uint64 {
	m := p.records()
	return peakBytes(satMul(m, recordBytes), m, p.N)
}
