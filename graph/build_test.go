package graph

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// naiveBuild is the reference: a map-based canonicalisation, written for
// clarity rather than speed.
func naiveBuild(pairs [][2]uint64) (g *Graph, loops, dups, isolated uint64) {
	type edge struct{ a, b uint64 }
	seen := map[edge]bool{}
	kept := map[uint64]bool{}
	loopIDs := map[uint64]bool{}
	for _, p := range pairs {
		u, v := p[0], p[1]
		if u == v {
			loops++
			loopIDs[u] = true
			continue
		}
		if u > v {
			u, v = v, u
		}
		if seen[edge{u, v}] {
			dups++
			continue
		}
		seen[edge{u, v}] = true
		kept[u], kept[v] = true, true
	}
	for x := range loopIDs {
		if !kept[x] {
			isolated++
		}
	}
	ids := make([]uint64, 0, len(kept))
	for x := range kept {
		ids = append(ids, x)
	}
	slices.Sort(ids)
	dense := map[uint64]uint32{}
	for i, x := range ids {
		dense[x] = uint32(i)
	}
	adj := make([][]uint32, len(ids))
	for e := range seen {
		a, b := dense[e.a], dense[e.b]
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	g = &Graph{OrigIDs: ids}
	g.Offsets = []uint64{0}
	g.Adj = []uint32{}
	for _, l := range adj {
		slices.Sort(l)
		g.Adj = append(g.Adj, l...)
		g.Offsets = append(g.Offsets, uint64(len(g.Adj)))
	}
	return g, loops, dups, isolated
}

// checkCanonical asserts the invariants of a canonical graph.
func checkCanonical(t testing.TB, g *Graph) {
	t.Helper()
	if err := g.CheckCanonical(); err != nil {
		t.Fatal(err)
	}
}

func sameGraph(t *testing.T, got, want *Graph) {
	t.Helper()
	if !slices.Equal(got.Offsets, want.Offsets) {
		t.Fatalf("offsets differ:\n got %v\nwant %v", trim(got.Offsets), trim(want.Offsets))
	}
	if !slices.Equal(got.Adj, want.Adj) {
		t.Fatalf("adj differ:\n got %v\nwant %v", trim(got.Adj), trim(want.Adj))
	}
	if !slices.Equal(got.OrigIDs, want.OrigIDs) {
		t.Fatalf("orig ids differ:\n got %v\nwant %v", trim(got.OrigIDs), trim(want.OrigIDs))
	}
}

func trim[T any](s []T) []T {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

func buildAndCompare(t *testing.T, pairs [][2]uint64) *Graph {
	t.Helper()
	g, rep, err := FromPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, g)
	want, loops, dups, iso := naiveBuild(pairs)
	sameGraph(t, g, want)
	if rep.InputEdges != uint64(len(pairs)) || rep.SelfLoops != loops || rep.Duplicates != dups || rep.Isolated != iso {
		t.Fatalf("report %+v, want input %d loops %d dups %d isolated %d", rep, len(pairs), loops, dups, iso)
	}
	return g
}

func TestBuildSmall(t *testing.T) {
	// Triangle 10-20-30 given in both directions, a duplicate, loops on a
	// kept vertex (10) and on a loop-only vertex (99).
	pairs := [][2]uint64{{10, 20}, {20, 30}, {30, 10}, {20, 10}, {10, 20}, {10, 10}, {99, 99}, {99, 99}, {30, 40}}
	g := buildAndCompare(t, pairs)
	if g.N() != 4 || g.Edges() != 4 {
		t.Fatalf("got %d vertices %d edges, want 4 and 4", g.N(), g.Edges())
	}
	if !slices.Equal(g.OrigIDs, []uint64{10, 20, 30, 40}) {
		t.Fatalf("orig ids %v", g.OrigIDs)
	}
	if !slices.Equal(g.Neighbors(2), []uint32{0, 1, 3}) {
		t.Fatalf("neighbours of 30: %v", g.Neighbors(2))
	}
}

func TestBuildEmpty(t *testing.T) {
	for _, pairs := range [][][2]uint64{nil, {{5, 5}, {7, 7}, {5, 5}}} {
		g, rep, err := FromPairs(pairs)
		if err != nil {
			t.Fatal(err)
		}
		checkCanonical(t, g)
		if g.N() != 0 || g.Edges() != 0 || len(g.Offsets) != 1 {
			t.Fatalf("empty input gave %d vertices, %d edges, offsets %v", g.N(), g.Edges(), g.Offsets)
		}
		if len(pairs) > 0 && (rep.SelfLoops != 3 || rep.Isolated != 2) {
			t.Fatalf("report %+v", rep)
		}
	}
	g, err := Build(nil, nil)
	if err != nil || g.N() != 0 {
		t.Fatalf("Build(nil, nil) = %v, %v", g, err)
	}
}

func TestBuildSparseHugeIDs(t *testing.T) {
	const base = 1 << 62
	const top = 1<<63 - 1
	pairs := [][2]uint64{{base + 5, base + 1}, {base + 1, base + 5}, {top, base}, {base, base + 1}, {top, top}, {7, top}, {base + 3, base + 3}}
	g := buildAndCompare(t, pairs)
	if !slices.Equal(g.OrigIDs, []uint64{7, base, base + 1, base + 5, top}) {
		t.Fatalf("orig ids %v", g.OrigIDs)
	}
}

func TestBuildRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		n := 1 + r.IntN(300)
		m := r.IntN(2000)
		var off, scale uint64
		switch iter % 4 {
		case 1: // sparse ids: the sort-based path
			off, scale = 1<<40, 1<<20
		case 2: // ids at the top of the range
			off, scale = 1<<63-1-uint64(n)*3, 3
		case 3:
			off, scale = 1000, 7
		default:
			scale = 1
		}
		pairs := make([][2]uint64, m)
		for i := range pairs {
			pairs[i] = [2]uint64{off + scale*uint64(r.IntN(n)), off + scale*uint64(r.IntN(n))}
		}
		buildAndCompare(t, pairs)
	}
}

// TestBuildLarge crosses the chunk size and the parallel thresholds, on both
// compaction paths, and checks the result does not depend on GOMAXPROCS.
func TestBuildLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large build")
	}
	for _, sparse := range []bool{false, true} {
		r := rand.New(rand.NewPCG(3, 4))
		pairs := make([][2]uint64, 3*edgeChunkPairs/2)
		for i := range pairs {
			u, v := uint64(r.IntN(50000)), uint64(r.IntN(50000))
			if sparse {
				u, v = u*1e9+1e12, v*1e9+1e12
			}
			pairs[i] = [2]uint64{u, v}
		}
		g := buildAndCompare(t, pairs)
		old := runtime.GOMAXPROCS(1)
		g1, _, err := FromPairs(pairs)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g1, g)
	}
}

func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// Sizes below and above msdMin (the MSD path), and keys whose top
	// digit is constant (the MSD path's fallback to LSD).
	for _, n := range []int{0, 1, 255, 256, 1000, 300000, msdMin + 12345} {
		for _, keyBits := range []int{1, 11, 23, 44, 64, -44} {
			skewed := keyBits < 0
			keyBits = max(keyBits, -keyBits)
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64()
				if keyBits < 64 {
					a[i] &= 1<<keyBits - 1
				}
				if skewed {
					a[i] = a[i]>>12 | 1<<(keyBits-1)
				}
			}
			want := slices.Sorted(slices.Values(a))
			got, _ := radixSort(context.Background(), a, make([]uint64, n), keyBits)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d bits=%d: not sorted", n, keyBits)
			}
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	// 4M records over 256K vertices: the shape of an RMAT graph, scaled down.
	const records = 1 << 22
	r := rand.New(rand.NewPCG(7, 8))
	pairs := make([]uint64, 2*records)
	for i := range pairs {
		pairs[i] = uint64(r.IntN(1 << 18))
	}
	b.SetBytes(16 * records)
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		var el EdgeList
		for i := 0; i < len(pairs); i += 2 {
			el.Add(pairs[i], pairs[i+1])
		}
		b.StartTimer()
		if _, err := Build(&el, nil); err != nil {
			b.Fatal(err)
		}
	}
}
