package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// records returns the records of an EdgeList as pairs.
func records(el *EdgeList) [][2]uint64 {
	out := make([][2]uint64, el.Len())
	for i := range out {
		out[i][0], out[i][1] = el.At(uint64(i))
	}
	return out
}

// sameRecords checks that gen's records equal want (its definition,
// transcribed serially in the test) whatever the number of cores.
func sameRecords(t *testing.T, gen Generator, want [][2]uint64) {
	t.Helper()
	for _, procs := range []int{1, 3} {
		var el *EdgeList
		var err error
		withProcs(procs, func() { el, err = gen.EdgeList() })
		if err != nil {
			t.Fatal(err)
		}
		if got := records(el); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%+v GOMAXPROCS %d: records differ from the definition's", gen, procs)
		}
	}
}

// refErdosRenyi is the definition of ErdosRenyi transcribed serially: walk
// the candidates in order, keeping ranks not seen before, with a map.
func refErdosRenyi(p ErdosRenyi) map[[2]uint64]bool {
	k := p.N * (p.N - 1) / 2
	dense := p.M > k/2
	want := p.M
	if dense {
		want = k - p.M
	}
	picked := map[uint64]bool{}
	for i := uint64(0); uint64(len(picked)) < want; i++ {
		st := p.Seed*0x100000001B3 + i*0xD1B54A32D192ED03
		picked[boundedDraw(&st, k)] = true
	}
	edges := map[[2]uint64]bool{}
	for v := uint64(1); v < p.N; v++ {
		for u := range v {
			if picked[v*(v-1)/2+u] != dense {
				edges[[2]uint64{u, v}] = true
			}
		}
	}
	return edges
}

func TestErdosRenyiMatchesDefinition(t *testing.T) {
	cases := []ErdosRenyi{
		{N: 10, M: 0, Seed: 1}, {N: 10, M: 1, Seed: 1}, {N: 10, M: 22, Seed: 2}, // sparse side
		{N: 10, M: 23, Seed: 3}, {N: 10, M: 45, Seed: 4}, // dense side, and complete
		{N: 2, M: 1, Seed: 5}, {N: 1, M: 0, Seed: 6}, {N: 0, M: 0, Seed: 7},
		{N: 300, M: 2000, Seed: 42}, {N: 100, M: 4000, Seed: 42},
		{N: 3000, M: 200000, Seed: 9}, // several candidate tasks
	}
	for _, p := range cases {
		want := refErdosRenyi(p)
		for _, procs := range []int{1, 2, 5} {
			var el *EdgeList
			var err error
			withProcs(procs, func() { el, err = p.EdgeList() })
			if err != nil {
				t.Fatalf("%+v: %v", p, err)
			}
			got := records(el)
			if uint64(len(got)) != p.M {
				t.Fatalf("%+v: %d records", p, len(got))
			}
			for _, e := range got {
				if e[0] >= e[1] || e[1] >= p.N || !want[e] {
					t.Fatalf("%+v GOMAXPROCS %d: record %v not in the reference edge set", p, procs, e)
				}
				delete(want, e) // also catches a record given twice
			}
			want = refErdosRenyi(p)
		}
		g, rep, err := Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.Edges() != p.M || rep.Duplicates != 0 || rep.SelfLoops != 0 || uint64(g.N()) > p.N {
			t.Fatalf("%+v: graph of %d vertices, %d edges; report %+v", p, g.N(), g.Edges(), rep)
		}
	}
}

func TestErdosRenyiSeedsDiffer(t *testing.T) {
	a, _ := ErdosRenyi{N: 1000, M: 5000, Seed: 1}.EdgeList()
	b, _ := ErdosRenyi{N: 1000, M: 5000, Seed: 2}.EdgeList()
	if slices.Equal(records(a), records(b)) {
		t.Fatal("seeds 1 and 2 gave the same graph")
	}
}

func TestErdosRenyiUniform(t *testing.T) {
	// G(5, 3): 10 pairs, each in the graph with probability 3/10. Over
	// 20000 seeds each pair's count is Binomial(20000, 0.3): mean 6000,
	// sd 65; 6 sd either way fails a correct generator about once in 10^8.
	const seeds, n, m = 20000, 5, 3
	var hits [10]int
	for s := range uint64(seeds) {
		el, err := ErdosRenyi{N: n, M: m, Seed: s}.EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range records(el) {
			hits[e[1]*(e[1]-1)/2+e[0]]++
		}
	}
	mean := float64(seeds) * m / 10
	sd := math.Sqrt(float64(seeds) * 0.3 * 0.7)
	for r, h := range hits {
		if math.Abs(float64(h)-mean) > 6*sd {
			t.Errorf("pair rank %d chosen %d times, expected %.0f +- %.0f", r, h, mean, 6*sd)
		}
	}
}

func TestErdosRenyiValidate(t *testing.T) {
	for _, p := range []ErdosRenyi{{N: 10, M: 46}, {N: 1, M: 1}, {N: 1<<32 + 1, M: 1}} {
		if _, err := p.EdgeList(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestUnrankPair(t *testing.T) {
	r := uint64(0)
	for v := uint64(1); v < 2000; v++ {
		for u := range v {
			if gu, gv := unrankPair(r); gu != u || gv != v {
				t.Fatalf("unrankPair(%d) = (%d, %d), want (%d, %d)", r, gu, gv, u, v)
			}
			r++
		}
	}
	// Near the top of the range float64 cannot hold the rank exactly.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := 1 + rng.Uint64N(1<<32-1)
		u := rng.Uint64N(v)
		for _, x := range [][2]uint64{{u, v}, {0, v}, {v - 1, v}} {
			if gu, gv := unrankPair(x[1]*(x[1]-1)/2 + x[0]); gu != x[0] || gv != x[1] {
				t.Fatalf("round trip of (%d, %d) gave (%d, %d)", x[0], x[1], gu, gv)
			}
		}
	}
}

func TestBoundedDrawRange(t *testing.T) {
	// k = 3 has a biased sliver (2^64 mod 3 = 1), k = 2^63+1 a huge one:
	// both must stay in range.
	for _, k := range []uint64{1, 2, 3, 10, 1<<63 + 1, math.MaxUint64} {
		st := uint64(99)
		for range 10000 {
			if x := boundedDraw(&st, k); x >= k {
				t.Fatalf("boundedDraw(k=%d) = %d", k, x)
			}
		}
	}
}

// TestSmallGeneratorsShape checks vertex and edge counts against closed
// forms (the triangle counts are checked in TestOracleClosedForms).
func TestSmallGeneratorsShape(t *testing.T) {
	cases := []struct {
		gen           Generator
		vertices, edg uint64
	}{
		{Complete{N: 7}, 7, 21},
		{CompleteBipartite{A: 3, B: 5}, 8, 15},
		{Wheel{Rim: 3}, 4, 6},
		{Wheel{Rim: 9}, 10, 18},
		{Star{Leaves: 6}, 7, 6},
		{Grid{Rows: 4, Cols: 6}, 24, 4*5 + 3*6},
		{Grid{Rows: 4, Cols: 6, Diagonals: true}, 24, 4*5 + 3*6 + 3*5},
		{Grid{Rows: 1, Cols: 1}, 0, 0}, // a lone vertex is isolated, so dropped
		{Complete{N: 1}, 0, 0},
		{Star{Leaves: 0}, 0, 0},
	}
	for _, c := range cases {
		g, rep, err := Generate(c.gen)
		if err != nil {
			t.Fatalf("%#v: %v", c.gen, err)
		}
		if uint64(g.N()) != c.vertices || g.Edges() != c.edg {
			t.Errorf("%#v: %d vertices, %d edges; want %d and %d", c.gen, g.N(), g.Edges(), c.vertices, c.edg)
		}
		if rep.Duplicates != 0 || rep.SelfLoops != 0 || rep.InputEdges != c.edg {
			t.Errorf("%#v: generator emitted loops or duplicates: %+v", c.gen, rep)
		}
	}
	// Grid degrees: corners 2, border 3, inside 4 (+2 with diagonals for
	// inner vertices, +1 on the corners the diagonal touches).
	g := generated(t, Grid{Rows: 5, Cols: 5})
	if d := []uint64{g.Degree(0), g.Degree(2), g.Degree(12)}; !slices.Equal(d, []uint64{2, 3, 4}) {
		t.Errorf("grid corner/border/inner degrees %v, want [2 3 4]", d)
	}
	g = generated(t, Grid{Rows: 5, Cols: 5, Diagonals: true})
	if d := []uint64{g.Degree(0), g.Degree(4), g.Degree(12)}; !slices.Equal(d, []uint64{3, 2, 6}) {
		t.Errorf("diagonal grid degrees %v, want [3 2 6]", d)
	}
}

func TestSmallGeneratorsValidate(t *testing.T) {
	for _, gen := range []Generator{
		Wheel{Rim: 2}, Wheel{Rim: 0}, Grid{Rows: 0, Cols: 3}, Grid{Rows: 1 << 17, Cols: 1 << 17},
		Complete{N: 1<<32 + 1}, CompleteBipartite{A: 1 << 32, B: 1}, Star{Leaves: 1 << 32},
	} {
		if _, err := gen.EdgeList(); err == nil {
			t.Errorf("%#v accepted", gen)
		}
	}
}

func BenchmarkErdosRenyi(b *testing.B) {
	p := ErdosRenyi{N: 1 << 20, M: 1 << 24, Seed: 42}
	for b.Loop() {
		if _, err := p.EdgeList(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestErdosRenyiLaterRounds(t *testing.T) {
	// With a first round of a fifth of the expected draws, the generator
	// must extend its candidates several times and still pick the same
	// edges, in the same order, as with one round.
	for _, p := range []ErdosRenyi{{N: 200, M: 9000, Seed: 3}, {N: 200, M: 15000, Seed: 4}, {N: 5000, M: 100000, Seed: 5}} {
		one, err := p.EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		old := erDrawMargin
		erDrawMargin = 0.2
		many, err := p.EdgeList()
		erDrawMargin = old
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(records(one), records(many)) {
			t.Fatalf("%+v: extending the candidates changed the graph", p)
		}
	}
}
