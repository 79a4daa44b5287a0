package graph

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// checkPerEdge counts g's per-edge supports under every orientation and
// checks what holds for any graph: the supports sum to 3x the total, which
// is the oracle's; each vertex's count (CountPerVertex) is half the sum of
// its edges' supports; every orientation gives the same supports on g's
// symmetric CSR, and both ends of an edge carry the same one. It returns
// those symmetric supports.
func checkPerEdge(t *testing.T, g *Graph) []uint32 {
	t.Helper()
	want := Oracle(g)
	_, wantPer := CountPerVertex(Orient(g, ByID, false))
	var first []uint32
	for _, oc := range allOrientations {
		o := Orient(g, oc.by, oc.relabel)
		total, support := CountPerEdge(o)
		var sum uint64
		for _, s := range support {
			sum += uint64(s)
		}
		if total != want || sum != 3*want || len(support) != len(o.Adj) {
			t.Fatalf("%v relabel=%v: total %d, supports sum %d over %d arcs; want %d, 3x, %d arcs",
				oc.by, oc.relabel, total, sum, len(support), want, len(o.Adj))
		}
		sym := EdgeSupport(g, o, support)
		if per := PerVertexFromSupport(g, sym); !slices.Equal(per, wantPer) {
			t.Fatalf("%v relabel=%v: per-vertex from supports %v, CountPerVertex %v", oc.by, oc.relabel, per, wantPer)
		}
		if first == nil {
			first = sym
		} else if !slices.Equal(sym, first) {
			t.Fatalf("%v relabel=%v: supports differ from by-id", oc.by, oc.relabel)
		}
	}
	for u := range g.N() {
		for i, v := range g.Neighbors(uint32(u)) {
			e, _ := arcIndex(&g.CSR, v, uint32(u))
			if first[g.Offsets[u]+uint64(i)] != first[e] {
				t.Fatalf("edge %d-%d: support %d at one end, %d at the other", u, v, first[g.Offsets[u]+uint64(i)], first[e])
			}
		}
	}
	return first
}

// bruteSupport is the support of every edge {a, b} of the raw pairs, by
// trying every third vertex on an adjacency matrix.
func bruteSupport(n int, pairs [][2]uint64) map[[2]uint64]uint64 {
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			adj[p[0]][p[1]], adj[p[1]][p[0]] = true, true
		}
	}
	sup := map[[2]uint64]uint64{}
	for a := range n {
		for b := a + 1; b < n; b++ {
			if !adj[a][b] {
				continue
			}
			var s uint64
			for c := range n {
				if adj[a][c] && adj[b][c] {
					s++
				}
			}
			sup[[2]uint64{uint64(a), uint64(b)}] = s
		}
	}
	return sup
}

// supportsByLabel returns g's edges' supports keyed by their input labels,
// lower label first.
func supportsByLabel(g *Graph, sym []uint32) map[[2]uint64]uint64 {
	got := map[[2]uint64]uint64{}
	for u := range g.N() {
		for i, v := range g.Neighbors(uint32(u)) {
			if a, b := g.OrigID(uint32(u)), g.OrigID(v); a < b {
				got[[2]uint64{a, b}] = uint64(sym[g.Offsets[u]+uint64(i)])
			}
		}
	}
	return got
}

func TestPerEdgeBruteForce(t *testing.T) {
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for _, n := range []int{3, 5, 17, 64, 120} {
		for _, p := range []float64{0.05, 0.2, 0.6, 1} {
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(seed)*77+uint64(p*100)))
				pairs := randomPairs(rng, n, p)
				if len(pairs) == 0 {
					continue
				}
				g := graphOf(t, pairs)
				got := supportsByLabel(g, checkPerEdge(t, g))
				want := bruteSupport(n, pairs)
				if len(got) != len(want) {
					t.Fatalf("n=%d p=%g seed=%d: %d edges, brute force %d", n, p, seed, len(got), len(want))
				}
				for e, s := range want {
					if got[e] != s {
						t.Fatalf("n=%d p=%g seed=%d: edge %v support %d, brute force %d", n, p, seed, e, got[e], s)
					}
				}
			}
		}
	}
}

// TestPerEdgeClosedForms: K_n (every edge in n-2 triangles), the wheel
// (spokes in 2, rim edges in 1) and the grid with diagonals (a diagonal in
// its cell's 2 halves, a side edge in one half of each cell it borders).
func TestPerEdgeClosedForms(t *testing.T) {
	cases := []struct {
		gen  Generator
		want func(a, b uint64) uint64 // support of the edge of labels a < b
	}{
		{Complete{N: 9}, func(a, b uint64) uint64 { return 7 }},
		{Wheel{Rim: 11}, func(a, b uint64) uint64 {
			if a == 0 {
				return 2
			}
			return 1
		}},
		{Grid{Rows: 7, Cols: 5, Diagonals: true}, func(a, b uint64) uint64 {
			const rows, cols = 7, 5
			r, c := a/cols, a%cols
			var s uint64
			switch b - a {
			case cols + 1: // diagonal
				return 2
			case 1: // horizontal: the cells below and above
				s = b2u(r+1 < rows) + b2u(r > 0)
			case cols: // vertical: the cells right and left
				s = b2u(c+1 < cols) + b2u(c > 0)
			}
			return s
		}},
	}
	for _, tc := range cases {
		g := generated(t, tc.gen)
		got := supportsByLabel(g, checkPerEdge(t, g))
		if uint64(len(got)) != g.Edges() {
			t.Fatalf("%#v: %d edges listed, %d in the graph", tc.gen, len(got), g.Edges())
		}
		for e, s := range got {
			if w := tc.want(e[0], e[1]); s != w {
				t.Errorf("%#v: edge %v support %d, want %d", tc.gen, e, s, w)
			}
		}
	}
}

// TestPerEdgeProcsIndependent: the supports are the same on 1 and 4 cores
// (and on more goroutines than cores).
func TestPerEdgeProcsIndependent(t *testing.T) {
	g := rmatGraph(t, 13)
	o := Orient(g, ByDegree, true)
	var t1 uint64
	var s1 []uint32
	withProcs(1, func() { t1, s1 = CountPerEdge(o) })
	for _, p := range []int{4, 7} {
		withProcs(p, func() {
			if tp, sp := CountPerEdge(o); tp != t1 || !slices.Equal(sp, s1) {
				t.Errorf("GOMAXPROCS %d: %d triangles, supports equal %v; GOMAXPROCS 1: %d", p, tp, slices.Equal(sp, s1), t1)
			}
		})
	}
	if t1 == 0 || t1 != Oracle(g) {
		t.Fatalf("%d triangles, oracle %d", t1, Oracle(g))
	}
}

func TestPerEdgeManifest(t *testing.T) {
	for _, row := range gputest.Manifest(t) {
		if row.EdgesUndirected > 200000 && testing.Short() {
			continue
		}
		t.Run(row.Name, func(t *testing.T) {
			g, _, err := Open(row.Path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			o := Orient(g, ByDegree, true)
			total, support := CountPerEdge(o)
			var sum uint64
			for _, s := range support {
				sum += uint64(s)
			}
			if total != row.Triangles || sum != 3*row.Triangles {
				t.Errorf("total %d, supports sum %d; manifest says %d triangles", total, sum, row.Triangles)
			}
			_, per := CountPerVertex(o)
			if got := PerVertexFromSupport(g, EdgeSupport(g, o, support)); !slices.Equal(got, per) {
				t.Error("per-vertex counts from the supports differ from CountPerVertex")
			}
		})
	}
}

func TestPerEdgeCancel(t *testing.T) {
	o := Orient(rmatGraph(t, 12), ByDegree, true)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := CountPerEdgeContext(done, o, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled count: %v", err)
	}
	total, support := CountPerEdge(Orient(generated(t, Complete{N: 0 + 2}), ByDegree, true))
	if total != 0 || len(support) != 1 || support[0] != 0 {
		t.Fatalf("K_2: %d triangles, supports %v", total, support)
	}
}

func BenchmarkCountPerEdgeRMAT16(b *testing.B) {
	o := Orient(rmatGraph(b, 16), ByDegree, true)
	for b.Loop() {
		CountPerEdge(o)
	}
}
