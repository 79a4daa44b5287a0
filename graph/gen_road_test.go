package graph

import (
	"math"
	"testing"
)

// refRoad is the road definition transcribed serially.
func refRoad(p Road) [][2]uint64 {
	var out [][2]uint64
	keep := func(x, kind uint64) bool {
		st := refStream(p.Seed, 0xc2b2ae3d27d4eb4f, 3*x+kind)
		return refUnit(&st) >= p.Delete
	}
	for r := range p.Rows {
		for c := range p.Cols {
			x := r*p.Cols + c
			if c+1 < p.Cols && keep(x, 0) {
				out = append(out, [2]uint64{x, x + 1})
			}
			if r+1 < p.Rows && keep(x, 1) {
				out = append(out, [2]uint64{x, x + p.Cols})
			}
			if p.Diagonals && r+1 < p.Rows && c+1 < p.Cols && keep(x, 2) {
				out = append(out, [2]uint64{x, x + p.Cols + 1})
			}
		}
	}
	v := p.Rows * p.Cols
	for l := range p.Links {
		st := refStream(p.Seed, 0x94d049bb133111eb, l)
		u := boundedDraw(&st, v)
		w := boundedDraw(&st, v-1)
		if w >= u {
			w++
		}
		out = append(out, [2]uint64{u, w})
	}
	return out
}

func TestRoadMatchesDefinition(t *testing.T) {
	for _, p := range []Road{
		{Rows: 1, Cols: 1}, {Rows: 1, Cols: 7, Delete: 0.5, Links: 3}, {Rows: 9, Cols: 1, Diagonals: true},
		{Rows: 40, Cols: 30, Diagonals: true, Delete: 0.3, Links: 20, Seed: 1},
		{Rows: 300, Cols: 500, Delete: 0.1, Links: 100000, Seed: 2}, // several tasks of each kind
		{Rows: 5, Cols: 100000, Diagonals: true, Delete: 1, Seed: 3},
	} {
		want := refRoad(p)
		sameRecords(t, p, want)
	}
}

func TestRoadShape(t *testing.T) {
	// Without deletions it is Grid; without diagonals and links it stays
	// bipartite, triangle-free.
	for _, d := range []bool{false, true} {
		edges, tri := checkAgainstBrute(t, Road{Rows: 12, Cols: 17, Diagonals: d})
		grid := Grid{Rows: 12, Cols: 17, Diagonals: d}
		if edges != grid.records() || tri != grid.Triangles() {
			t.Errorf("diagonals %v: %d edges, %d triangles; want the grid's %d and %d", d, edges, tri, grid.records(), grid.Triangles())
		}
	}
	if _, tri := checkAgainstBrute(t, Road{Rows: 30, Cols: 30, Delete: 0.4, Seed: 4}); tri != 0 {
		t.Errorf("a thinned grid without diagonals has %d triangles", tri)
	}
	// A quarter deleted: 3/4 of the edges kept (binomial, 5 sd) and
	// (3/4)^3 of the cells' triangles (the links add few).
	p := Road{Rows: 500, Cols: 800, Diagonals: true, Delete: 0.25, Links: 100, Seed: 5}
	el, err := p.EdgeList()
	if err != nil {
		t.Fatal(err)
	}
	all := float64(p.gridEdges())
	kept := float64(el.Len() - p.Links)
	if sd := math.Sqrt(all * 0.25 * 0.75); math.Abs(kept-0.75*all) > 5*sd {
		t.Errorf("%.0f of %.0f grid edges kept, want %.0f +- %.0f", kept, all, 0.75*all, 5*sd)
	}
	tri := float64(Oracle(generated(t, p)))
	want := 2 * 499 * 799 * math.Pow(0.75, 3)
	if math.Abs(tri-want) > 0.01*want {
		t.Errorf("%.0f triangles, want about %.0f", tri, want)
	}
}
