package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refRGG is the random geometric graph by its definition: every pair of
// points tried, ids from sorting the points by (cell, index).
func refRGG(p RandomGeometric, r float64) map[[2]uint64]bool {
	n, d := p.N, p.Dim
	g := uint64(max(1, math.Floor(1/(r*(1+1e-9)))))
	for pow(g, d) > n && g > 1 {
		g-- // at most the integer d-th root of N
	}
	if g == 2 && p.Torus {
		g = 1
	}
	pts := make([][]float64, n)
	type key struct{ cell, i uint64 }
	keys := make([]key, n)
	for i := range n {
		st := refStream(p.Seed, 0x5bd1e9955bd1e995, i)
		cell, mul := uint64(0), uint64(1)
		for range d {
			x := refUnit(&st)
			pts[i] = append(pts[i], x)
			cell += mul * min(uint64(math.Floor(x*float64(g))), g-1)
			mul *= g
		}
		keys[i] = key{cell, i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.cell != b.cell {
			return int(a.cell) - int(b.cell)
		}
		return int(a.i) - int(b.i)
	})
	id := make([]uint64, n)
	perm := newPermuter(n, p.Seed)
	for rank, k := range keys {
		id[k.i] = uint64(rank)
		if p.Shuffle {
			id[k.i] = perm.at(uint64(rank))
		}
	}
	set := map[[2]uint64]bool{}
	for i := range n {
		for j := i + 1; j < n; j++ {
			d2 := 0.0
			for k := range d {
				x := math.Abs(pts[i][k] - pts[j][k])
				if p.Torus && 1-x < x {
					x = 1 - x
				}
				d2 += float64(x * x)
			}
			if d2 < float64(r*r) {
				set[[2]uint64{min(id[i], id[j]), max(id[i], id[j])}] = true
			}
		}
	}
	return set
}

func TestRGGMatchesDefinition(t *testing.T) {
	for _, p := range []RandomGeometric{
		{N: 0, Dim: 2, Radius: 0.1}, {N: 1, Dim: 3, Radius: 0.1}, {N: 2, Dim: 2, Radius: 1},
		{N: 800, Dim: 2, Degree: 10, Seed: 1},
		{N: 800, Dim: 3, Degree: 10, Seed: 2},
		{N: 800, Dim: 2, Degree: 10, Torus: true, Seed: 3},
		{N: 800, Dim: 3, Radius: 0.12, Torus: true, Shuffle: true, Seed: 4},
		{N: 300, Dim: 2, Radius: 0.45, Torus: true, Seed: 5}, // one cell, as two a side would wrap onto each other
		{N: 300, Dim: 3, Radius: 0.34, Torus: true, Seed: 6}, // the smallest torus grid, 3 cells a side, in 3D
		{N: 300, Dim: 3, Radius: 0.4, Torus: true, Seed: 9},  // one cell
		{N: 100, Dim: 2, Radius: 0.9, Seed: 7},               // one cell
		{N: 500, Dim: 2, Radius: 0.001, Shuffle: true, Seed: 8},
	} {
		want := refRGG(p, p.radius())
		el, err := p.EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		got := records(el)
		if set := edgeSet(got); len(set) != len(got) || len(set) != len(want) {
			t.Errorf("%+v: %d records, %d distinct, want %d edges", p, len(got), len(set), len(want))
			continue
		}
		for _, e := range got {
			if !want[[2]uint64{min(e[0], e[1]), max(e[0], e[1])}] {
				t.Errorf("%+v: record %v is no edge of the definition", p, e)
				break
			}
		}
	}
}

func TestRGGRadiusForDegree(t *testing.T) {
	// The area formulas against Monte Carlo: the fraction of random pairs
	// within r, 500000 pairs, 5 sd.
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []RandomGeometric{
		{Dim: 2, Radius: 0.3}, {Dim: 2, Radius: 0.9}, {Dim: 3, Radius: 0.25}, {Dim: 3, Radius: 0.8},
		{Dim: 2, Radius: 0.4, Torus: true}, {Dim: 3, Radius: 0.5, Torus: true},
	} {
		const pairs = 500000
		hit := 0
		for range pairs {
			d2 := 0.0
			for range p.Dim {
				x := math.Abs(rng.Float64() - rng.Float64())
				if p.Torus {
					x = min(x, 1-x)
				}
				d2 += x * x
			}
			hit += int(b2u(d2 < p.Radius*p.Radius))
		}
		a := p.area(p.Radius)
		if sd := math.Sqrt(a * (1 - a) / pairs); math.Abs(float64(hit)/pairs-a) > 5*sd {
			t.Errorf("%+v: %.5f of pairs within r, formula %.5f", p, float64(hit)/pairs, a)
		}
	}
	for _, p := range []RandomGeometric{{N: 1000, Dim: 2, Degree: 900}, {N: 10, Dim: 3, Degree: 0.01, Torus: true}} {
		if got := float64(p.N-1) * p.area(p.radius()); math.Abs(got-p.Degree) > 1e-9*p.Degree {
			t.Errorf("%+v: radius %g gives degree %g", p, p.radius(), got)
		}
	}
}

func TestRGGMeanDegreeAndLocality(t *testing.T) {
	for _, p := range []RandomGeometric{
		{N: 200000, Dim: 2, Degree: 10, Seed: 1},
		{N: 200000, Dim: 3, Degree: 12, Seed: 2},
		{N: 100000, Dim: 3, Degree: 6, Torus: true, Seed: 3},
	} {
		g := generated(t, p)
		if d := 2 * float64(g.Edges()) / float64(p.N); math.Abs(d-p.Degree) > 0.02*p.Degree {
			t.Errorf("%+v: mean degree %.3f", p, d)
		}
	}
	// Neighbours' ids lie within a few rows of cells (about N/g ids a
	// row, here N/177); shuffled, a third of N apart on average.
	gap := func(p RandomGeometric) float64 {
		el, err := p.EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, e := range records(el) {
			sum += math.Abs(float64(e[0]) - float64(e[1]))
		}
		return sum / float64(el.Len())
	}
	p := RandomGeometric{N: 100000, Dim: 2, Degree: 10, Seed: 4}
	if d := gap(p); d > float64(p.N)/50 {
		t.Errorf("mean id gap of an edge %.0f of %d ids: no locality", d, p.N)
	}
	p.Shuffle = true
	if d := gap(p); d < float64(p.N)/4 {
		t.Errorf("mean id gap of an edge %.0f of %d ids when shuffled", d, p.N)
	}
}

func TestPermuterIsPermutation(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 3, 5, 64, 1000, 1<<16 + 3} {
		p := newPermuter(n, n*7)
		seen := make([]bool, n)
		fixed := 0
		for x := range n {
			y := p.at(x)
			if y >= n || seen[y] {
				t.Fatalf("n=%d: %d maps to %d, out of range or taken", n, x, y)
			}
			seen[y] = true
			fixed += int(b2u(x == y))
		}
		if n >= 1000 && fixed > 10 {
			t.Errorf("n=%d: %d fixed points; a random permutation has about 1", n, fixed)
		}
	}
}
