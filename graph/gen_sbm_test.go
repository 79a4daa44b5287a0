package graph

import (
	"math"
	"testing"
)

// sbmBlockOf returns the block of each vertex of an SBM's layout.
func sbmBlockOf(p SBM) []int {
	var sizes []uint64
	if len(p.Sizes) > 0 {
		sizes = p.Sizes
	}
	for b := range p.Blocks {
		if len(p.Sizes) == 0 {
			sizes = append(sizes, p.N/p.Blocks+b2u(b < p.N%p.Blocks))
		}
	}
	var of []int
	for b, s := range sizes {
		for range s {
			of = append(of, b)
		}
	}
	return of
}

func TestSBMPairFrequencies(t *testing.T) {
	// Every pair must appear with its block probability, independently of
	// how the ranks are cut into tasks: over 20000 seeds each pair's count
	// is binomial; 6 sd fail a correct generator about once in 10^8.
	old := sbmTaskEdges
	defer func() { sbmTaskEdges = old }()
	for _, taskEdges := range []float64{old, 0.5} { // 0.5: a task a pair or two
		sbmTaskEdges = taskEdges
		for _, p := range []SBM{
			{N: 7, Sizes: []uint64{3, 4}, DegreeIn: 2 * 9 * 0.6 / 7, DegreeOut: 2 * 12 * 0.25 / 7},
			{N: 8, Blocks: 3, DegreeIn: 2 * 7 * 0.3 / 8, DegreeOut: 2 * 21 * 0.7 / 8},
		} {
			pIn, pOut, err := p.probs()
			if err != nil {
				t.Fatal(err)
			}
			block := sbmBlockOf(p)
			const seeds = 20000
			hits := map[[2]uint64]int{}
			for s := range uint64(seeds) {
				p.Seed = s
				el, err := p.EdgeList()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range records(el) {
					if r[0] >= r[1] || r[1] >= p.N {
						t.Fatalf("%+v: record %v", p, r)
					}
					hits[r]++
				}
			}
			for v := range p.N {
				for u := range v {
					q := pOut
					if block[u] == block[v] {
						q = pIn
					}
					h := float64(hits[[2]uint64{u, v}])
					if sd := math.Sqrt(seeds * q * (1 - q)); math.Abs(h-seeds*q) > 6*sd+1e-9 {
						t.Errorf("%+v tasks of %g edges: pair (%d, %d) drawn %v times, want %.0f +- %.0f", p, taskEdges, u, v, h, seeds*q, 6*sd)
					}
				}
			}
		}
	}
}

func TestSBMShape(t *testing.T) {
	// p_in = 1: two complete blocks of 5, 2*C(5,3) triangles.
	edges, tri := checkAgainstBrute(t, SBM{N: 10, Blocks: 2, DegreeIn: 4})
	if edges != 20 || tri != 20 {
		t.Errorf("two K5: %d edges, %d triangles", edges, tri)
	}
	for _, p := range []SBM{
		{N: 100000, Blocks: 10, DegreeIn: 8, DegreeOut: 2, Seed: 1},
		{N: 100000, Sizes: []uint64{50000, 30000, 20000}, DegreeIn: 6, DegreeOut: 1, Seed: 2},
	} {
		g, rep, err := Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Duplicates != 0 || rep.SelfLoops != 0 {
			t.Errorf("%+v: %d duplicates, %d loops", p, rep.Duplicates, rep.SelfLoops)
		}
		// Isolated vertices are dropped, so count on the records.
		el, _ := p.EdgeList()
		block := sbmBlockOf(p)
		var in, out float64
		for _, r := range records(el) {
			if block[r[0]] == block[r[1]] {
				in++
			} else {
				out++
			}
		}
		// The counts are binomial: a few hundred of sd at most.
		n := float64(p.N)
		if math.Abs(2*in/n-p.DegreeIn) > 0.02*p.DegreeIn || math.Abs(2*out/n-p.DegreeOut) > 0.03*p.DegreeOut {
			t.Errorf("%+v: mean degree %.3f inside, %.3f across", p, 2*in/n, 2*out/n)
		}
		if f, want := in/(in+out), p.DegreeIn/(p.DegreeIn+p.DegreeOut); math.Abs(f-want) > 0.01 {
			t.Errorf("%+v: %.3f of the edges inside blocks, want %.3f", p, f, want)
		}
		if g.Edges() != el.Len() {
			t.Errorf("%+v: %d edges of %d records", p, g.Edges(), el.Len())
		}
	}
}
