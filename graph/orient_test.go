package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// before reports whether u precedes v in the order by (ByID or ByDegree),
// straight from the definition, for checking Orient's rank-based version.
func before(c *CSR, by Orientation, u, v uint32) bool {
	if by == ByTCBW {
		return tcbwBefore(c, u, v) // orient_tcbw_test.go
	}
	if by == ByDegree {
		du, dv := c.Degree(u), c.Degree(v)
		if du != dv {
			return du < dv
		}
	}
	return u < v
}

// checkOriented verifies that o is a valid orientation of g under by:
// sorted out-lists, every undirected edge exactly once and in the right
// direction, and (when relabelled) Perm a bijection that follows the order.
func checkOriented(t *testing.T, g *Graph, o *Oriented, by Orientation, relabel bool) {
	t.Helper()
	if err := o.CheckStructure(); err != nil {
		t.Fatal(err)
	}
	if o.By != by || o.N() != g.N() || o.Arcs() != g.Edges() {
		t.Fatalf("%v relabel=%v: By=%v N=%d arcs=%d, want N=%d arcs=%d", by, relabel, o.By, o.N(), o.Arcs(), g.N(), g.Edges())
	}
	if (o.Perm != nil) != relabel {
		t.Fatalf("%v relabel=%v: Perm set = %v", by, relabel, o.Perm != nil)
	}
	n := g.N()
	old := make([]uint32, n) // new id -> old id
	if relabel {
		if len(o.Perm) != n {
			t.Fatalf("Perm has %d entries for %d vertices", len(o.Perm), n)
		}
		seen := make([]bool, n)
		for u, r := range o.Perm {
			if int(r) >= n || seen[r] {
				t.Fatalf("Perm is not a permutation: %d -> %d", u, r)
			}
			seen[r] = true
			old[r] = uint32(u)
		}
		for r := 1; r < n; r++ {
			if !before(&g.CSR, by, old[r-1], old[r]) {
				t.Fatalf("ranks %d and %d (old %d, %d) out of order", r-1, r, old[r-1], old[r])
			}
		}
	} else {
		for i := range old {
			old[i] = uint32(i)
		}
	}
	for r := range n {
		out := o.Neighbors(uint32(r))
		if !slices.IsSorted(out) {
			t.Fatalf("out-list of %d not sorted: %v", r, out)
		}
		for i, w := range out {
			if i > 0 && out[i-1] == w {
				t.Fatalf("out-list of %d repeats %d", r, w)
			}
			u, v := old[r], old[w]
			if !before(&g.CSR, by, u, v) {
				t.Fatalf("arc %d -> %d against the order", u, v)
			}
			if _, ok := slices.BinarySearch(g.Neighbors(u), v); !ok {
				t.Fatalf("arc %d -> %d is no edge of the graph", u, v)
			}
			if relabel && w <= uint32(r) {
				t.Fatalf("relabelled arc %d -> %d not low to high", r, w)
			}
		}
	}
	// Arcs = edges and every arc is an edge in the order's direction, with
	// no repeat: so each undirected edge appears exactly once.
}

func TestOrientRandom(t *testing.T) {
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		n := 1 + rng.IntN(200)
		g := graphOf(t, randomPairs(rng, n, rng.Float64()*0.3))
		for _, oc := range allOrientations {
			checkOriented(t, g, Orient(g, oc.by, oc.relabel), oc.by, oc.relabel)
		}
	}
}

func TestOrientSkewed(t *testing.T) {
	// Star: under ByDegree every leaf (degree 1) points at the hub, so the
	// hub's out-degree drops from n-1 (ByID) to 0.
	g := generated(t, Star{Leaves: 50})
	checkOriented(t, g, Orient(g, ByDegree, false), ByDegree, false)
	if d := Orient(g, ByID, false).Degree(0); d != 50 {
		t.Errorf("ByID: hub out-degree %d, want 50", d)
	}
	o := Orient(g, ByDegree, true)
	if o.Perm[0] != 50 || o.Degree(50) != 0 {
		t.Errorf("ByDegree relabelled: hub rank %d with out-degree %d, want rank 50, out-degree 0", o.Perm[0], o.Degree(50))
	}
	for leaf := uint32(1); leaf <= 50; leaf++ {
		if r := o.Perm[leaf]; r != leaf-1 || !slices.Equal(o.Neighbors(r), []uint32{50}) {
			t.Fatalf("leaf %d: rank %d, out-list %v; want rank %d -> [50]", leaf, r, o.Neighbors(r), leaf-1)
		}
	}
	g = rmatGraph(t, 12)
	for _, oc := range allOrientations {
		checkOriented(t, g, Orient(g, oc.by, oc.relabel), oc.by, oc.relabel)
	}
}

func TestOrientByIDRelabelIsIdentity(t *testing.T) {
	g := rmatGraph(t, 10)
	a, b := Orient(g, ByID, false), Orient(g, ByID, true)
	if !slices.Equal(a.Offsets, b.Offsets) || !slices.Equal(a.Adj, b.Adj) {
		t.Fatal("relabelling by id changed the graph")
	}
	for i, r := range b.Perm {
		if int(r) != i {
			t.Fatalf("Perm[%d] = %d under ByID", i, r)
		}
	}
}

func TestOrientUndirectedShares(t *testing.T) {
	g := generated(t, Complete{N: 5})
	o := Orient(g, Undirected, true)
	if o.By != Undirected || o.Perm != nil || &o.Adj[0] != &g.Adj[0] || o.Arcs() != 2*g.Edges() {
		t.Fatalf("Undirected: By=%v Perm=%v arcs=%d; want the graph's own CSR", o.By, o.Perm, o.Arcs())
	}
}

func TestOrientEmpty(t *testing.T) {
	g := graphOf(t, nil)
	for _, oc := range allOrientations {
		o := Orient(g, oc.by, oc.relabel)
		if o.N() != 0 || o.Arcs() != 0 || len(o.Offsets) != 1 {
			t.Fatalf("%v relabel=%v on the empty graph: N=%d arcs=%d offsets=%v", oc.by, oc.relabel, o.N(), o.Arcs(), o.Offsets)
		}
	}
}

func TestOrientProcsIndependent(t *testing.T) {
	g := rmatGraph(t, 14)
	for _, oc := range allOrientations {
		var a, b *Oriented
		withProcs(1, func() { a = Orient(g, oc.by, oc.relabel) })
		withProcs(3, func() { b = Orient(g, oc.by, oc.relabel) })
		if !slices.Equal(a.Offsets, b.Offsets) || !slices.Equal(a.Adj, b.Adj) || !slices.Equal(a.Perm, b.Perm) {
			t.Fatalf("%v relabel=%v differs between GOMAXPROCS 1 and 3", oc.by, oc.relabel)
		}
	}
}

func TestOrientUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Orient accepted orientation 99")
		}
	}()
	Orient(generated(t, Complete{N: 3}), Orientation(99), false)
}

func benchmarkOrient(b *testing.B, scale int, by Orientation, relabel bool) {
	g := rmatGraph(b, scale)
	runs := 0
	start := time.Now()
	for b.Loop() {
		Orient(g, by, relabel)
		runs++
	}
	b.ReportMetric(float64(g.Edges())*float64(runs)/time.Since(start).Seconds(), "edges/s")
}

func BenchmarkOrientDegreeRelabelRMAT16(b *testing.B) { benchmarkOrient(b, 16, ByDegree, true) }
func BenchmarkOrientDegreeRelabelRMAT20(b *testing.B) { benchmarkOrient(b, 20, ByDegree, true) }
func BenchmarkOrientIDRMAT20(b *testing.B)            { benchmarkOrient(b, 20, ByID, false) }
