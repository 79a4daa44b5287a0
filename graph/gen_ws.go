package graph

import (
	"context"
	"fmt"
)

// WattsStrogatz is the small-world graph: a ring of N vertices, each joined
// to its K/2 nearest neighbours on either side, with each edge's far end
// rewired to a random vertex with probability P.
//
// Definition: ring edge e = v*(K/2) + (j-1), for v < N and 1 <= j <= K/2,
// joins v and (v+j) mod N. With the splitmix64 stream at
// (Seed XOR wsKey)*0x100000001B3 + e*0xD1B54A32D192ED03 it draws
// x = top 53 bits * 2^-53; if x < P its far end becomes w, drawn uniformly
// among the N-1 vertices other than v (Lemire's bounded draw w < N-1, then
// w+1 if w >= v). Every edge decides on its own, so unlike Watts and
// Strogatz's sequential rewiring a rewired edge may land on an existing
// one; Build merges the two (about P*K/N of the edges: a few per million
// at realistic sizes). No loops arise. P = 0 is the ring lattice, with
// N*C(K/2, 2) triangles when N > 3K/2; P = 1 is close to a random graph.
type WattsStrogatz struct {
	N    uint64  // vertices
	K    uint64  // ring degree: even, 2 <= K < N
	P    float64 // rewiring probability, in [0, 1]
	Seed uint64
}

// Validate reports parameters that cannot describe a graph.
func (p WattsStrogatz) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("watts-strogatz: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	if p.K < 2 || p.K%2 != 0 {
		return fmt.Errorf("watts-strogatz: ring degree k = %d must be even and at least 2", p.K)
	}
	// K < N keeps the ring's N*K/2 edges distinct (j = N/2 would give
	// each edge twice).
	if p.K >= p.N {
		return fmt.Errorf("watts-strogatz: ring degree k = %d needs more than %d vertices", p.K, p.K)
	}
	if !validProb(p.P) {
		return fmt.Errorf("watts-strogatz: rewiring probability p = %g must lie in [0, 1]", p.P)
	}
	return nil
}

// records is N*K/2 (saturated, for EstimateBytes on refused parameters).
func (p WattsStrogatz) records() uint64 { return satMul(p.N, p.K/2) }

// EdgeList returns the N*K/2 records in ring-edge order, in parallel.
func (p WattsStrogatz) EdgeList() (*EdgeList, error) {
	return p.EdgeListContext(context.Background())
}

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of records.
func (p WattsStrogatz) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	half := p.K / 2
	// x < P on x = k*2^-53 is k < ceil(P*2^53), exactly (see rmatThreshold).
	thresh := rmatThreshold(p.P)
	return fillByIndex(ctx, p.records(), func(first uint64, buf []uint64) {
		v, j := first/half, first%half+1
		for k := 0; k < len(buf); k += 2 {
			e := first + uint64(k/2)
			st := genStream(p.Seed, wsKey, e)
			w := v + j
			if w >= p.N {
				w -= p.N
			}
			if splitmix64(&st)>>11 < thresh {
				w = boundedDraw(&st, p.N-1)
				if w >= v {
					w++
				}
			}
			buf[k], buf[k+1] = v, w
			if j++; j > half {
				v, j = v+1, 1
			}
		}
	})
}

// EstimateBytes is the peak of the records and of Build on them.
func (p WattsStrogatz) EstimateBytes() uint64 {
	m := p.records()
	return peakBytes(satMul(m, recordBytes), m, p.N)
}
