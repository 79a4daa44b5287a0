package graph

import (
	"testing"
)

// refBA is Batagelj and Brandes' sequential algorithm as the definition
// states it: an array of 2NM slots filled in order, each target copying
// the slot its draw picks.
func refBA(p BarabasiAlbert) [][2]uint64 {
	slots := make([]uint64, 2*p.N*p.M)
	var out [][2]uint64
	for e := range p.N * p.M {
		v := e / p.M
		slots[2*e] = v
		if v == 0 {
			continue // vertex 0's loops: target 0, not emitted
		}
		st := refStream(p.Seed, 0x8a5cd789635d2dff, e)
		slots[2*e+1] = slots[boundedDraw(&st, 2*v*p.M)]
		out = append(out, [2]uint64{v, slots[2*e+1]})
	}
	return out
}

func TestBAMatchesDefinition(t *testing.T) {
	for _, p := range []BarabasiAlbert{
		{N: 0, M: 3}, {N: 1, M: 3}, {N: 2, M: 1}, {N: 2, M: 5}, {N: 10, M: 1, Seed: 1},
		{N: 100, M: 3, Seed: 2}, {N: 30, M: 40, Seed: 3},
		{N: 50000, M: 3, Seed: 4}, // several tasks
	} {
		want := refBA(p)
		sameRecords(t, p, want)
	}
}

func TestBATreeAndShape(t *testing.T) {
	// M = 1: each vertex's one edge goes to an earlier vertex, a tree.
	g := generated(t, BarabasiAlbert{N: 5000, M: 1, Seed: 9})
	if g.N() != 5000 || g.Edges() != 4999 || Oracle(g) != 0 {
		t.Errorf("M=1: %d vertices, %d edges, %d triangles; want a tree of 5000", g.N(), g.Edges(), Oracle(g))
	}
	// M = 4 on 200000 vertices: every vertex present, hardly any repeated
	// target, and the degree tail of preferential attachment,
	// P(deg >= k) ~ M(M+1)/k^2 (Bollobas et al.): from k = 16 to 64 it
	// falls about 15-fold, where a uniform attachment tail would fall
	// exponentially (thousands-fold).
	const n, m = 200000, 4
	p := BarabasiAlbert{N: n, M: m, Seed: 10}
	g, rep, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != n || g.Edges() < (n-1)*m*99/100 || g.Edges()+rep.Duplicates != (n-1)*m || rep.SelfLoops != 0 {
		t.Errorf("%d edges, %d duplicates, %d loops of %d records", g.Edges(), rep.Duplicates, rep.SelfLoops, (n-1)*m)
	}
	var ge16, ge64, maxDeg uint64
	for v := range uint32(g.N()) {
		d := g.Degree(v)
		ge16 += b2u(d >= 16)
		ge64 += b2u(d >= 64)
		maxDeg = max(maxDeg, d)
	}
	if r := float64(ge16) / float64(ge64); r < 10 || r > 24 {
		t.Errorf("P(deg>=16)/P(deg>=64) = %d/%d = %.1f, want about 15 (a power law of exponent 3)", ge16, ge64, r)
	}
	if maxDeg < 100*2*m {
		t.Errorf("largest degree %d; preferential attachment makes hubs of about M*sqrt(N) = %d", maxDeg, m*447)
	}
}
