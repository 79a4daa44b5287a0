package graph

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tcgen/tcgen/tests/gputest"
)

// graphOf builds the canonical graph of pairs through Build and checks it.
func graphOf(t testing.TB, pairs [][2]uint64) *Graph {
	t.Helper()
	g, _, err := FromPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckCanonical(); err != nil {
		t.Fatal(err)
	}
	return g
}

// generated builds the graph of a generator and checks it.
func generated(t testing.TB, gen Generator) *Graph {
	t.Helper()
	g, _, err := Generate(gen)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckCanonical(); err != nil {
		t.Fatal(err)
	}
	return g
}

// randomPairs returns the edges of G(n, p) on labels 0..n-1 (each pair
// present with probability p), some given twice and reversed and with a few
// self loops mixed in, so that cleaning is exercised too.
func randomPairs(rng *rand.Rand, n int, p float64) [][2]uint64 {
	var pairs [][2]uint64
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				pairs = append(pairs, [2]uint64{uint64(u), uint64(v)})
				if rng.IntN(8) == 0 {
					pairs = append(pairs, [2]uint64{uint64(v), uint64(u)})
				}
			}
		}
		if rng.IntN(16) == 0 {
			pairs = append(pairs, [2]uint64{uint64(u), uint64(u)})
		}
	}
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	return pairs
}

// bruteTriangles counts by trying every vertex triple of an adjacency matrix
// built from the raw pairs (independent of Build, Orient and the oracle).
// per is indexed by raw label.
func bruteTriangles(n int, pairs [][2]uint64) (total uint64, per []uint64) {
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			adj[p[0]][p[1]], adj[p[1]][p[0]] = true, true
		}
	}
	per = make([]uint64, n)
	for a := range n {
		for b := a + 1; b < n; b++ {
			if !adj[a][b] {
				continue
			}
			for c := b + 1; c < n; c++ {
				if adj[a][c] && adj[b][c] {
					total++
					per[a]++
					per[b]++
					per[c]++
				}
			}
		}
	}
	return total, per
}

// allOrientations lists every (orientation, relabel) the counters accept.
var allOrientations = []struct {
	by      Orientation
	relabel bool
}{{ByID, false}, {ByID, true}, {ByDegree, false}, {ByDegree, true}, {ByTCBW, false}, {ByTCBW, true}}

func TestOracleBruteForce(t *testing.T) {
	sizes := []int{1, 2, 3, 5, 17, 64, 150, 300}
	densities := []float64{0.01, 0.05, 0.2, 0.6, 1}
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for _, n := range sizes {
		for _, p := range densities {
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(n), uint64(seed)*1000+uint64(p*100)))
				pairs := randomPairs(rng, n, p)
				if len(pairs) == 0 {
					continue
				}
				want, wantPer := bruteTriangles(n, pairs)
				g := graphOf(t, pairs)
				if got := Oracle(g); got != want {
					t.Fatalf("n=%d p=%g seed=%d: Oracle = %d, brute force %d", n, p, seed, got, want)
				}
				for _, oc := range allOrientations {
					o := Orient(g, oc.by, oc.relabel)
					if got := CountTriangles(o); got != want {
						t.Fatalf("n=%d p=%g seed=%d %v relabel=%v: CountTriangles = %d, want %d",
							n, p, seed, oc.by, oc.relabel, got, want)
					}
					total, per := CountPerVertex(o)
					if total != want {
						t.Fatalf("n=%d p=%g seed=%d %v relabel=%v: CountPerVertex total = %d, want %d",
							n, p, seed, oc.by, oc.relabel, total, want)
					}
					for v, c := range per {
						if w := wantPer[g.OrigID(uint32(v))]; c != w {
							t.Fatalf("n=%d p=%g seed=%d %v relabel=%v: vertex %d (label %d) in %d triangles, want %d",
								n, p, seed, oc.by, oc.relabel, v, g.OrigID(uint32(v)), c, w)
						}
					}
				}
			}
		}
	}
}

func TestOracleClosedForms(t *testing.T) {
	cases := []ClosedForm{
		Complete{N: 3}, Complete{N: 4}, Complete{N: 10}, Complete{N: 57},
		CompleteBipartite{A: 1, B: 1}, CompleteBipartite{A: 7, B: 13}, CompleteBipartite{A: 40, B: 40},
		Wheel{Rim: 3}, Wheel{Rim: 4}, Wheel{Rim: 5}, Wheel{Rim: 100},
		Star{Leaves: 1}, Star{Leaves: 1000},
		Grid{Rows: 1, Cols: 2}, Grid{Rows: 7, Cols: 9}, Grid{Rows: 50, Cols: 3},
		Grid{Rows: 2, Cols: 2, Diagonals: true}, Grid{Rows: 7, Cols: 9, Diagonals: true},
		Grid{Rows: 1, Cols: 5, Diagonals: true}, Grid{Rows: 40, Cols: 60, Diagonals: true},
	}
	for _, c := range cases {
		g := generated(t, c)
		want := c.Triangles()
		for _, oc := range allOrientations {
			o := Orient(g, oc.by, oc.relabel)
			if got := CountTriangles(o); got != want {
				t.Errorf("%#v %v relabel=%v: %d triangles, closed form %d", c, oc.by, oc.relabel, got, want)
			}
			total, per := CountPerVertex(o)
			var sum uint64
			for _, x := range per {
				sum += x
			}
			if total != want || sum != 3*want {
				t.Errorf("%#v %v relabel=%v: per-vertex total %d sum %d, want %d and %d",
					c, oc.by, oc.relabel, total, sum, want, 3*want)
			}
		}
	}
}

// TestOracleClosedFormValues pins the closed forms themselves to hand-counted
// values, so a wrong formula cannot agree with a wrong count.
func TestOracleClosedFormValues(t *testing.T) {
	cases := []struct {
		c    ClosedForm
		want uint64
	}{
		{Complete{N: 0}, 0}, {Complete{N: 2}, 0}, {Complete{N: 3}, 1}, {Complete{N: 4}, 4},
		{Complete{N: 5}, 10}, {Complete{N: 10}, 120},
		{Wheel{Rim: 3}, 4}, {Wheel{Rim: 4}, 4}, {Wheel{Rim: 6}, 6},
		{Grid{Rows: 3, Cols: 3}, 0}, {Grid{Rows: 3, Cols: 3, Diagonals: true}, 8},
		{Grid{Rows: 2, Cols: 2, Diagonals: true}, 2},
		{CompleteBipartite{A: 3, B: 3}, 0}, {Star{Leaves: 5}, 0},
	}
	for _, c := range cases {
		if got := c.c.Triangles(); got != c.want {
			t.Errorf("%#v.Triangles() = %d, want %d", c.c, got, c.want)
		}
	}
}

func TestOracleWheelPerVertex(t *testing.T) {
	// Hub in every triangle, each rim vertex in the two on its two rim edges.
	const rim = 12
	g := generated(t, Wheel{Rim: rim})
	total, per := CountPerVertex(Orient(g, ByDegree, true))
	if total != rim {
		t.Fatalf("total %d, want %d", total, rim)
	}
	for v, c := range per {
		want := uint64(2)
		if g.OrigID(uint32(v)) == 0 {
			want = rim
		}
		if c != want {
			t.Errorf("vertex %d (label %d): %d triangles, want %d", v, g.OrigID(uint32(v)), c, want)
		}
	}
}

func TestOracleEmpty(t *testing.T) {
	g := graphOf(t, nil)
	if g.N() != 0 {
		t.Fatalf("empty input gave %d vertices", g.N())
	}
	if got := Oracle(g); got != 0 {
		t.Fatalf("empty graph: %d triangles", got)
	}
	total, per := CountPerVertex(Orient(g, ByDegree, true))
	if total != 0 || len(per) != 0 {
		t.Fatalf("empty graph: total %d, per-vertex %v", total, per)
	}
	// Only self loops: also empty after cleaning.
	g = graphOf(t, [][2]uint64{{5, 5}, {7, 7}})
	if got := Oracle(g); g.N() != 0 || got != 0 {
		t.Fatalf("loops only: %d vertices, %d triangles", g.N(), got)
	}
}

func TestOracleRejectsUnoriented(t *testing.T) {
	g := generated(t, Complete{N: 4})
	defer func() {
		if recover() == nil {
			t.Fatal("CountTriangles accepted a symmetric CSR")
		}
	}()
	CountTriangles(Orient(g, Undirected, false))
}

// withProcs runs f with GOMAXPROCS set to p.
func withProcs(p int, f func()) {
	old := runtime.GOMAXPROCS(p)
	defer runtime.GOMAXPROCS(old)
	f()
}

func TestOracleProcsIndependent(t *testing.T) {
	g := rmatGraph(t, 14)
	o := Orient(g, ByDegree, true)
	var t1, t2, c1, c2 uint64
	var p1, p2 []uint64
	withProcs(1, func() { t1 = CountTriangles(o); c1, p1 = CountPerVertex(o) })
	withProcs(2, func() { t2 = CountTriangles(o); c2, p2 = CountPerVertex(o) })
	// More goroutines than cores: chunks fall to goroutines in other ways.
	withProcs(7, func() {
		if got := CountTriangles(o); got != t1 {
			t.Errorf("GOMAXPROCS 7: %d triangles, GOMAXPROCS 1: %d", got, t1)
		}
	})
	if t1 != t2 || c1 != c2 || t1 != c1 {
		t.Fatalf("GOMAXPROCS 1: %d / %d, GOMAXPROCS 2: %d / %d", t1, c1, t2, c2)
	}
	if !slices.Equal(p1, p2) {
		t.Fatal("per-vertex counts differ between GOMAXPROCS 1 and 2")
	}
	var sum uint64
	for _, x := range p1 {
		sum += x
	}
	if sum != 3*t1 {
		t.Fatalf("per-vertex counts sum to %d, want 3*%d", sum, t1)
	}
	if t1 == 0 {
		t.Fatal("RMAT-14 has no triangle: the test checks nothing")
	}
}

// TestOraclePerVertexRMAT cross-checks per-vertex counts under relabelling on
// a skewed graph: every orientation must give the same per-vertex vector.
func TestOraclePerVertexRMAT(t *testing.T) {
	g := rmatGraph(t, 12)
	var first []uint64
	for _, oc := range allOrientations {
		total, per := CountPerVertex(Orient(g, oc.by, oc.relabel))
		if total != Oracle(g) {
			t.Fatalf("%v relabel=%v: total %d, Oracle %d", oc.by, oc.relabel, total, Oracle(g))
		}
		if first == nil {
			first = per
		} else if !slices.Equal(per, first) {
			t.Fatalf("%v relabel=%v: per-vertex counts differ from by-id", oc.by, oc.relabel)
		}
	}
}

func benchmarkOracle(b *testing.B, scale int, perVertex bool) {
	g := rmatGraph(b, scale)
	o := Orient(g, ByDegree, true)
	runs := 0
	start := time.Now()
	for b.Loop() {
		if perVertex {
			CountPerVertex(o)
		} else {
			CountTriangles(o)
		}
		runs++
	}
	b.ReportMetric(float64(g.Edges())*float64(runs)/time.Since(start).Seconds(), "edges/s")
}

func BenchmarkOracleRMAT16(b *testing.B)         { benchmarkOracle(b, 16, false) }
func BenchmarkOracleRMAT18(b *testing.B)         { benchmarkOracle(b, 18, false) }
func BenchmarkOracleRMAT20(b *testing.B)         { benchmarkOracle(b, 20, false) }
func BenchmarkCountPerVertexRMAT16(b *testing.B) { benchmarkOracle(b, 16, true) }
func BenchmarkCountPerVertexRMAT20(b *testing.B) { benchmarkOracle(b, 20, true) }

// BenchmarkOracleEndToEndRMAT20 times Oracle including the orientation, the
// way `tcgen count` runs it (count + prepare).
func BenchmarkOracleEndToEndRMAT20(b *testing.B) {
	g := rmatGraph(b, 20)
	runs := 0
	start := time.Now()
	for b.Loop() {
		Oracle(g)
		runs++
	}
	b.ReportMetric(float64(g.Edges())*float64(runs)/time.Since(start).Seconds(), "edges/s")
}

// TestOracleManifest checks the oracle against the shared datasets' known
// triangle counts (MANIFEST.tsv, most also published by SNAP), and the
// features against their vertex, edge and max-degree columns.
func TestOracleManifest(t *testing.T) {
	for _, row := range gputest.Manifest(t) {
		t.Run(row.Name, func(t *testing.T) {
			g, _, err := Open(row.Path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := Oracle(g); got != row.Triangles {
				t.Errorf("%d triangles, manifest says %d", got, row.Triangles)
			}
			total, per := CountPerVertex(Orient(g, ByID, false))
			var sum uint64
			for _, x := range per {
				sum += x
			}
			if total != row.Triangles || sum != 3*row.Triangles {
				t.Errorf("per-vertex (by id): total %d, sum %d; want %d and 3x", total, sum, row.Triangles)
			}
			f := ComputeFeatures(g)
			if f.Vertices != row.Vertices || f.Edges != row.EdgesUndirected || f.DegreeMax != row.MaxDegree {
				t.Errorf("features: %d vertices, %d edges, max degree %d; manifest says %d, %d, %d",
					f.Vertices, f.Edges, f.DegreeMax, row.Vertices, row.EdgesUndirected, row.MaxDegree)
			}
		})
	}
}

// TestOracleProgress: a count tells its progress once per chunk of middle
// vertices, up to all of the graph's arcs, and counts what it counts
// without.
func TestOracleProgress(t *testing.T) {
	g := rmatGraph(t, 12)
	o := Orient(g, ByDegree, true)
	for _, perVertex := range []bool{false, true} {
		var mu sync.Mutex
		var last, calls, total int64
		progress := func(done, tot int64) {
			mu.Lock()
			defer mu.Unlock()
			last, total = max(last, done), tot
			calls++
		}
		var got uint64
		if perVertex {
			got, _ = CountPerVertexProgress(o, progress)
		} else {
			got = CountTrianglesProgress(o, progress)
		}
		if got != Oracle(g) || last != int64(o.Arcs()) || total != int64(o.Arcs()) || calls != int64((o.N()+oracleChunk-1)/oracleChunk) {
			t.Errorf("per vertex %v: %d triangles (oracle %d), progress %d of %d in %d calls; want %d arcs in %d calls",
				perVertex, got, Oracle(g), last, total, calls, o.Arcs(), (o.N()+oracleChunk-1)/oracleChunk)
		}
	}
}
