package executor

import (
	"math/rand/v2"
	"testing"

	"github.com/tcgen/tcgen/graph"
)

// TestTCBWPassesTile: for any P1 x P2 the passes of tcbwPasses tile the
// class's items times every slice index exactly once, rows in order, and
// P1 = P2 = 1 is one pass over everything.
func TestTCBWPassesTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for gi, gen := range []graph.Generator{
		graph.DefaultRMAT(9), graph.Star{Leaves: 300}, graph.Complete{N: 3}, graph.ErdosRenyi{N: 200, M: 900, Seed: 1},
	} {
		g, _, err := graph.Generate(gen)
		if err != nil {
			t.Fatal(err)
		}
		o := graph.Orient(g, graph.ByTCBW, gi%2 == 0)
		m := o.Arcs()
		// An "all" list and a sparse list of every third edge.
		all := WorkList{Count: m, All: true}
		var sparse WorkList
		for e := uint64(0); e < m; e += 3 {
			sparse.Edges = append(sparse.Edges, e)
		}
		sparse.Count = uint64(len(sparse.Edges))
		for _, l := range []*WorkList{&all, &sparse} {
			one := tcbwPasses(o, l, 32, 1, 1)
			if len(one) != 1 || one[0] != (tcbwPass{ibeg: 0, iend: l.Count, klo: 0, khi: allSlices}) {
				t.Fatalf("1x1: %+v", one)
			}
			for range 30 {
				p1, p2 := 1+rng.IntN(64), 1+rng.IntN(64)
				sb := 4 << rng.IntN(5)
				ps := tcbwPasses(o, l, sb, p1, p2)
				nsl := uint32((uint64(o.N()) + uint64(sb) - 1) / uint64(sb))
				// Every (item, slice index) in exactly one pass; indices past
				// the last slice too (khi of the last column is allSlices).
				for _, probe := range []uint32{0, nsl / 2, nsl - 1, nsl, allSlices - 1} {
					covered := make([]int, l.Count)
					for _, p := range ps {
						if p.ibeg >= p.iend || p.klo >= p.khi || p.iend > l.Count {
							t.Fatalf("%dx%d: bad pass %+v", p1, p2, p)
						}
						if probe >= p.klo && probe < p.khi {
							for i := p.ibeg; i < p.iend; i++ {
								covered[i]++
							}
						}
					}
					for i, c := range covered {
						if c != 1 {
							t.Fatalf("%dx%d bits %d: item %d, slice %d covered %d times", p1, p2, sb, i, probe, c)
						}
					}
				}
				if len(ps) > p1*p2 {
					t.Fatalf("%dx%d: %d passes", p1, p2, len(ps))
				}
			}
		}
	}
}
