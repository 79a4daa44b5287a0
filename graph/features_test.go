package graph

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// naiveFeatures computes Features the slow, obvious way: from materialised
// orientations and float64 sums.
func naiveFeatures(g *Graph) Features {
	n := g.N()
	f := Features{Vertices: uint64(n), Edges: g.Edges(), DegreeHist: []uint64{}}
	if n == 0 {
		return f
	}
	var sum, sumSq float64
	for v := range n {
		d := g.Degree(uint32(v))
		sum += float64(d)
		sumSq += float64(d) * float64(d)
		f.DegreeMax = max(f.DegreeMax, d)
		k := 0
		for 1<<(k+1) <= d {
			k++
		}
		for len(f.DegreeHist) <= k {
			f.DegreeHist = append(f.DegreeHist, 0)
		}
		f.DegreeHist[k]++
		f.WedgesUndirected += d * (d - 1) / 2
	}
	f.DegreeMean = sum / float64(n)
	f.DegreeStddev = math.Sqrt(max(0, sumSq/float64(n)-f.DegreeMean*f.DegreeMean))
	side := func(by Orientation) (wedges, minWork, outMax uint64) {
		o := Orient(g, by, false)
		for u := range n {
			du := o.Degree(uint32(u))
			wedges += du * (du - 1) / 2
			outMax = max(outMax, du)
			for _, v := range o.Neighbors(uint32(u)) {
				minWork += min(du, o.Degree(v))
			}
		}
		return
	}
	for u := range n {
		words := map[uint32]bool{}
		for _, v := range g.Neighbors(uint32(u)) {
			words[v/32] = true
		}
		f.AdjWords += uint64(len(words))
	}
	f.WedgesByID, f.MinWorkByID, f.OutDegreeMaxByID = side(ByID)
	f.WedgesByDegree, f.MinWorkByDegree, f.OutDegreeMaxByDegree = side(ByDegree)
	return f
}

// sameFeatures compares exactly, but the two float fields to a relative
// 1e-9 (the naive ones are rounded differently).
func sameFeatures(t *testing.T, what string, got, want Features) {
	t.Helper()
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if !close(got.DegreeMean, want.DegreeMean) || !close(got.DegreeStddev, want.DegreeStddev) {
		t.Fatalf("%s: mean %g stddev %g, want %g and %g", what, got.DegreeMean, got.DegreeStddev, want.DegreeMean, want.DegreeStddev)
	}
	got.DegreeMean, got.DegreeStddev = want.DegreeMean, want.DegreeStddev
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func TestFeaturesMatchNaive(t *testing.T) {
	for seed := range 15 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		n := 2 + rng.IntN(300)
		g := graphOf(t, randomPairs(rng, n, rng.Float64()*0.2+0.005))
		want := naiveFeatures(g)
		sameFeatures(t, "random", ComputeFeatures(g), want)
		if got := AdjWords(g); got != want.AdjWords {
			t.Fatalf("AdjWords %d, want %d", got, want.AdjWords)
		}
	}
	for _, s := range []int{8, 13} {
		g := rmatGraph(t, s)
		sameFeatures(t, "rmat", ComputeFeatures(g), naiveFeatures(g))
	}
}

func TestFeaturesClosedForms(t *testing.T) {
	// Star with L leaves: the hub has degree L, leaves 1. By id the hub (id
	// 0) points at all leaves; by degree every leaf points at the hub.
	const l = 40
	f := ComputeFeatures(generated(t, Star{Leaves: l}))
	want := Features{
		Vertices: l + 1, Edges: l, DegreeMax: l,
		DegreeMean:       2.0 * l / (l + 1),
		DegreeStddev:     math.Sqrt(float64(l*l+l)/(l+1) - math.Pow(2.0*l/(l+1), 2)),
		DegreeHist:       []uint64{l, 0, 0, 0, 0, 1}, // 40 is in [32, 64)
		WedgesUndirected: l * (l - 1) / 2,
		WedgesByID:       l * (l - 1) / 2, WedgesByDegree: 0,
		MinWorkByID: 0, MinWorkByDegree: 0, // every arc ends at a vertex of out-degree 0
		OutDegreeMaxByID: l, OutDegreeMaxByDegree: 1,
		AdjWords: 2 + l, // the hub's leaves 1..40 lie in words 0 and 1; a leaf's list is one word
	}
	sameFeatures(t, "star", f, want)

	// K_n is regular: stddev exactly 0, and the exact integer variance
	// must not turn rounding noise into a positive number.
	const n = 1001
	f = ComputeFeatures(generated(t, Complete{N: n}))
	if f.DegreeStddev != 0 || f.DegreeMean != n-1 || f.DegreeMax != n-1 {
		t.Errorf("K_%d: mean %g stddev %g max %d", n, f.DegreeMean, f.DegreeStddev, f.DegreeMax)
	}
	// By id (and by degree, ties by id) vertex i points at the n-1-i
	// above it: wedges sum C(n-1-i, 2) = C(n, 3); min over (i, j>i) is
	// n-1-j, summing to sum_j j*(n-1-j) = C(n, 3) as well.
	c3 := Complete{N: n}.Triangles()
	if f.WedgesByID != c3 || f.WedgesByDegree != c3 || f.MinWorkByID != c3 || f.MinWorkByDegree != c3 {
		t.Errorf("K_%d: wedges %d/%d, min work %d/%d, want all %d", n, f.WedgesByID, f.WedgesByDegree, f.MinWorkByID, f.MinWorkByDegree, c3)
	}
	// Ids 0..1000 fill words 0..31, and a list without one id still
	// touches all 32.
	if f.AdjWords != n*32 {
		t.Errorf("K_%d: adj words %d, want %d", n, f.AdjWords, n*32)
	}
	if f.WedgesUndirected != n*(n-1)*(n-2)/2 {
		t.Errorf("K_%d: undirected wedges %d, want %d", n, f.WedgesUndirected, n*(n-1)*(n-2)/2)
	}
}

func TestFeaturesEmpty(t *testing.T) {
	f := ComputeFeatures(graphOf(t, nil))
	if !reflect.DeepEqual(f, Features{DegreeHist: []uint64{}}) {
		t.Fatalf("empty graph: %+v", f)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	// An empty histogram is [] rather than null, so consumers can index it.
	if !strings.Contains(string(b), `"degree_hist":[]`) {
		t.Fatalf("empty features marshal to %s", b)
	}
}

func TestFeaturesJSON(t *testing.T) {
	f := ComputeFeatures(rmatGraph(t, 10))
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"vertices", "edges", "degree_max", "degree_mean", "degree_stddev", "degree_hist",
		"wedges_undirected", "wedges_by_id", "wedges_by_degree", "min_work_by_id", "min_work_by_degree",
		"out_degree_max_by_id", "out_degree_max_by_degree", "adj_words"}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != len(keys) {
		t.Errorf("%d JSON keys, want %d: %s", len(m), len(keys), b)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	var back Features
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, f) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, back, f)
	}
}

func TestFeaturesProcsIndependent(t *testing.T) {
	g := rmatGraph(t, 14)
	var a, b Features
	withProcs(1, func() { a = ComputeFeatures(g) })
	withProcs(4, func() { b = ComputeFeatures(g) })
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("GOMAXPROCS 1: %+v\nGOMAXPROCS 4: %+v", a, b)
	}
}

func BenchmarkFeaturesRMAT20(b *testing.B) {
	g := rmatGraph(b, 20)
	runs := 0
	start := time.Now()
	for b.Loop() {
		ComputeFeatures(g)
		runs++
	}
	b.ReportMetric(float64(g.Edges())*float64(runs)/time.Since(start).Seconds(), "edges/s")
}
