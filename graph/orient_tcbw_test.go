package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// tcbwBefore is TCBW's order straight from §3.1: a vertex whose degree is at
// least the average degree (the mean over all vertices) is a center,
// non-centers come first, ties by id. Computed in floating point from the
// definition, unlike TCBWCenter's integer form.
func tcbwBefore(c *CSR, u, v uint32) bool {
	avg := float64(c.Arcs()) / float64(c.N()) // the degrees sum to the arcs of the symmetric CSR
	cu, cv := float64(c.Degree(u)) >= avg, float64(c.Degree(v)) >= avg
	if cu != cv {
		return cv // the non-center first
	}
	return u < v
}

// TestOrientTCBWHubs: on a star the hub is the only center, so every leaf
// points at it and the hub's out-degree is 0 (as under ByDegree); on a graph
// with two hubs joined to each other and to shared leaves, the edge between
// the hubs goes from the lower id to the higher.
func TestOrientTCBWHubs(t *testing.T) {
	g := generated(t, Star{Leaves: 40})
	o := Orient(g, ByTCBW, false)
	checkOriented(t, g, o, ByTCBW, false)
	if o.Degree(0) != 0 {
		t.Errorf("hub out-degree %d, want 0", o.Degree(0))
	}
	for leaf := uint32(1); leaf <= 40; leaf++ {
		if nb := o.Neighbors(leaf); len(nb) != 1 || nb[0] != 0 {
			t.Fatalf("leaf %d -> %v, want [0]", leaf, nb)
		}
	}
	// Two hubs 0 and 1, joined, both adjacent to leaves 2..101; the leaves
	// form a path. Triangles: 0-1-leaf (100) + 0-leaf-leaf' and 1-leaf-leaf'
	// along the path (99 each).
	var pairs [][2]uint64
	pairs = append(pairs, [2]uint64{0, 1})
	for l := uint64(2); l < 102; l++ {
		pairs = append(pairs, [2]uint64{0, l}, [2]uint64{1, l})
		if l > 2 {
			pairs = append(pairs, [2]uint64{l - 1, l})
		}
	}
	g = graphOf(t, pairs)
	for _, relabel := range []bool{false, true} {
		o := Orient(g, ByTCBW, relabel)
		checkOriented(t, g, o, ByTCBW, relabel)
		if got := CountTriangles(o); got != 100+99+99 {
			t.Errorf("relabel=%v: %d triangles, want 298", relabel, got)
		}
	}
	o = Orient(g, ByTCBW, false)
	if nb := o.Neighbors(0); len(nb) != 1 || nb[0] != 1 {
		t.Errorf("hub 0 -> %v, want [1] (both hubs are centers: by id)", nb)
	}
}

// TestTCBWCenterBoundary: exactly at the average a vertex is a center
// (d(u) >= d̄), and the integer form agrees with the definition.
func TestTCBWCenterBoundary(t *testing.T) {
	if !TCBWCenter(3, 4, 12) || TCBWCenter(2, 4, 12) || !TCBWCenter(0, 5, 0) {
		t.Error("TCBWCenter boundary")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 10000 {
		n := 1 + rng.Uint64N(1000)
		e := rng.Uint64N(n * n)
		d := rng.Uint64N(n)
		if TCBWCenter(d, n, e) != (float64(d) >= float64(e)/float64(n)) {
			t.Fatalf("TCBWCenter(%d, %d, %d) disagrees with d >= e/n", d, n, e)
		}
	}
}

// TestOrientTCBWDatasets: on every shared dataset the TCBW orientation,
// with and without relabelling, is acyclic (arcs follow the order), keeps
// each edge once, and counts the manifest's triangles.
func TestOrientTCBWDatasets(t *testing.T) {
	rows := gputest.Manifest(t)
	if testing.Short() {
		rows = rows[:3]
	}
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) {
			g, _, err := Open(row.Path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, relabel := range []bool{false, true} {
				o := Orient(g, ByTCBW, relabel)
				checkOriented(t, g, o, ByTCBW, relabel)
				if got := CountTriangles(o); got != row.Triangles {
					t.Errorf("relabel=%v: %d triangles, manifest %d", relabel, got, row.Triangles)
				}
			}
		})
	}
}
