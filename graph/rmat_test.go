package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	rmatCacheMu sync.Mutex
	rmatCache   = map[int]*Graph{}
)

// rmatGraph returns the default (Graph500, seed 42) RMAT graph at scale,
// built once per test binary: several tests and benchmarks share it.
func rmatGraph(tb testing.TB, scale int) *Graph {
	tb.Helper()
	rmatCacheMu.Lock()
	defer rmatCacheMu.Unlock()
	if g, ok := rmatCache[scale]; ok {
		return g
	}
	g, _, err := Generate(DefaultRMAT(scale))
	if err != nil {
		tb.Fatal(err)
	}
	rmatCache[scale] = g
	return g
}

// refRMAT is the issue's definition transcribed literally: serial, one
// sample after another, to check the parallel generator against.
func refRMAT(p RMAT) [][2]uint64 {
	n := uint64(1) << p.Scale
	perm := make([]uint64, n)
	for i := range perm {
		perm[i] = uint64(i)
	}
	ps := p.Seed ^ 0xabcdef12345
	for i := n - 1; i >= 1; i-- {
		j := splitmix64(&ps) % (i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	a, b, c := p.A, p.B, p.C
	m := uint64(p.EdgeFactor) * n
	out := make([][2]uint64, m)
	for e := range m {
		st := p.Seed*0x100000001B3 + e*0xD1B54A32D192ED03
		var u, v uint64
		for range p.Scale {
			r := float64(splitmix64(&st)>>11) * math.Pow(2, -53)
			var bu, bv uint64
			if r < a {
			} else if r < a+b {
				bv = 1
			} else if r < a+b+c {
				bu = 1
			} else {
				bu, bv = 1, 1
			}
			u, v = 2*u+bu, 2*v+bv
		}
		out[e] = [2]uint64{perm[u], perm[v]}
	}
	return out
}

func TestSplitmix64KnownAnswer(t *testing.T) {
	// The first outputs of SplitMix64 from state 0, as published with the
	// reference implementation (Vigna's splitmix64.c).
	want := []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC}
	var x uint64
	for i, w := range want {
		if got := splitmix64(&x); got != w {
			t.Fatalf("output %d = %#x, want %#x", i, got, w)
		}
	}
}

func TestRMATMatchesDefinition(t *testing.T) {
	cases := []RMAT{
		DefaultRMAT(1), DefaultRMAT(5), DefaultRMAT(12),
		{Scale: 9, EdgeFactor: 3, Seed: 0, A: 0.45, B: 0.15, C: 0.15},
		{Scale: 8, EdgeFactor: 1, Seed: 7, A: 0.25, B: 0.25, C: 0.25},
		{Scale: 4, EdgeFactor: 2, Seed: math.MaxUint64, A: 1, B: 0, C: 0},
		{Scale: 4, EdgeFactor: 2, Seed: 3, A: 0, B: 0, C: 0},
		// More samples than one EdgeList chunk, so chunk boundaries are hit.
		{Scale: 16, EdgeFactor: 20, Seed: 42, A: 0.57, B: 0.19, C: 0.19},
	}
	for _, p := range cases {
		want := refRMAT(p)
		for _, procs := range []int{1, 2, 5} {
			var el *EdgeList
			var err error
			withProcs(procs, func() { el, err = p.EdgeList() })
			if err != nil {
				t.Fatalf("%+v: %v", p, err)
			}
			if el.Len() != uint64(len(want)) {
				t.Fatalf("%+v: %d records, want %d", p, el.Len(), len(want))
			}
			for i, w := range want {
				if u, v := el.At(uint64(i)); u != w[0] || v != w[1] {
					t.Fatalf("%+v GOMAXPROCS %d: record %d = (%d, %d), want (%d, %d)", p, procs, i, u, v, w[0], w[1])
				}
			}
		}
	}
}

func TestRMATDegenerateInitiators(t *testing.T) {
	// a = 1: every sample is (0, 0) before the shuffle, a loop, so the
	// canonical graph is empty. d = 1: every sample is (n-1, n-1), likewise.
	for _, p := range []RMAT{
		{Scale: 6, EdgeFactor: 4, Seed: 1, A: 1},
		{Scale: 6, EdgeFactor: 4, Seed: 1},
	} {
		g, rep, err := Generate(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.N() != 0 || rep.SelfLoops != p.Samples() {
			t.Fatalf("%+v: %d vertices, %d loops of %d samples", p, g.N(), rep.SelfLoops, p.Samples())
		}
	}
}

func TestRMATValidate(t *testing.T) {
	bad := map[string]RMAT{
		"scale":           {Scale: 0, EdgeFactor: 16, A: .57, B: .19, C: .19},
		"scale 33":        {Scale: 33, EdgeFactor: 16, A: .57, B: .19, C: .19},
		"edge factor":     {Scale: 10, EdgeFactor: 0, A: .57, B: .19, C: .19},
		"overflow":        {Scale: 32, EdgeFactor: 1 << 32, A: .57, B: .19, C: .19},
		"probabilities":   {Scale: 10, EdgeFactor: 16, A: -.1, B: .19, C: .19},
		"nan":             {Scale: 10, EdgeFactor: 16, A: math.NaN(), B: .19, C: .19},
		"sum exceeds one": {Scale: 10, EdgeFactor: 16, A: .6, B: .3, C: .2},
	}
	for name, p := range bad {
		if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "rmat: ") {
			t.Errorf("%s: Validate() = %v, want an rmat error", name, err)
		}
		if _, err := p.EdgeList(); err == nil {
			t.Errorf("%s: EdgeList accepted %+v", name, p)
		}
	}
	if err := DefaultRMAT(20).Validate(); err != nil {
		t.Errorf("default parameters rejected: %v", err)
	}
}

// rmatCheck holds the issue's check values (seed 42, edge factor 16, after
// cleaning).
var rmatCheck = map[int]struct{ vertices, edges, triangles uint64 }{
	18: {174221, 3805565, 83075942},
	20: {646096, 15700226, 424785436},
	22: {2395786, 64152172, 2112253002},
	24: {8871908, 260379699, 10282078419},
}

func testRMATCheckValues(t *testing.T, scale int) {
	want := rmatCheck[scale]
	g := rmatGraph(t, scale)
	if got := uint64(g.N()); got != want.vertices {
		t.Errorf("RMAT-%d: %d vertices, want %d", scale, got, want.vertices)
	}
	if got := g.Edges(); got != want.edges {
		t.Errorf("RMAT-%d: %d edges, want %d", scale, got, want.edges)
	}
	if got := Oracle(g); got != want.triangles {
		t.Errorf("RMAT-%d: %d triangles, want %d", scale, got, want.triangles)
	}
}

func TestRMATCheckValues18(t *testing.T) { testRMATCheckValues(t, 18) }

func TestRMATCheckValues20(t *testing.T) {
	if testing.Short() {
		t.Skip("RMAT-20 takes several seconds; skipped with -short")
	}
	testRMATCheckValues(t, 20)
}

// benchmarkRMATGenerate times generation and Build together (what `tcgen
// generate` does before writing), and generation alone as a sub-benchmark.
func benchmarkRMATGenerate(b *testing.B, scale int) {
	p := DefaultRMAT(scale)
	b.Run("records", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.EdgeList(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(p.Samples()), "records")
	})
	b.Run("records+build", func(b *testing.B) {
		var g *Graph
		runs := 0
		start := time.Now()
		for b.Loop() {
			var err error
			if g, _, err = Generate(p); err != nil {
				b.Fatal(err)
			}
			runs++
		}
		b.ReportMetric(time.Since(start).Seconds()/float64(runs), "s/graph")
		b.ReportMetric(float64(g.Edges()), "edges")
	})
}

func BenchmarkRMATGenerate16(b *testing.B) { benchmarkRMATGenerate(b, 16) }
func BenchmarkRMATGenerate20(b *testing.B) { benchmarkRMATGenerate(b, 20) }
func BenchmarkRMATGenerate22(b *testing.B) { benchmarkRMATGenerate(b, 22) }

// ExampleRMAT generates the seeded scale-10 Graph500 graph and counts it.
func ExampleRMAT() {
	g, rep, err := Generate(DefaultRMAT(10))
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.InputEdges, "records,", g.N(), "vertices,", g.Edges(), "edges,", Oracle(g), "triangles")
	// Output: 16384 records, 887 vertices, 10412 edges, 74968 triangles
}

func TestRMATThresholdExact(t *testing.T) {
	// k < rmatThreshold(t) must agree with the definition's float compare
	// for every k, in particular the integers next to t*2^53.
	ts := []float64{0, 1, 0.5, 0.57, 0.57 + 0.19, 0.57 + 0.19 + 0.19, 0.95, 0.1, 1.0 / 3, math.Nextafter(1, 0), 5e-324, 0x1p-53, 3 * 0x1p-54}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		ts = append(ts, rng.Float64())
	}
	for _, th := range ts {
		kt := rmatThreshold(th)
		mid := uint64(th * 0x1p53)
		for k := mid - min(mid, 3); k <= mid+3 && k < 1<<53; k++ {
			if want, got := float64(k)*0x1p-53 < th, k < kt; want != got {
				t.Fatalf("t=%v k=%d: float compare %v, integer compare %v (threshold %d)", th, k, want, got, kt)
			}
		}
	}
}

func TestRMATSumRoundingAccepted(t *testing.T) {
	// (0.34+0.55)+0.11 is 1.0000000000000002 in float64: d = 0, not an
	// error.
	p := RMAT{Scale: 8, EdgeFactor: 2, Seed: 1, A: 0.34, B: 0.55, C: 0.11}
	if p.A+p.B+p.C <= 1 {
		t.Fatalf("a+b+c = %v: the case no longer rounds above 1", p.A+p.B+p.C)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	el, err := p.EdgeList()
	if err != nil {
		t.Fatal(err)
	}
	want := refRMAT(p)
	for i, w := range want {
		if u, v := el.At(uint64(i)); u != w[0] || v != w[1] {
			t.Fatalf("record %d = (%d, %d), want (%d, %d)", i, u, v, w[0], w[1])
		}
	}
}
