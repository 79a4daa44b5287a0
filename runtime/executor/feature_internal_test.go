package executor

import (
	"math"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// TestFeatures: the guard features on graphs with known values, and the
// same value from a graph read oriented (no undirected graph at hand).
func TestFeatures(t *testing.T) {
	k10, _, err := graph.Generate(graph.Complete{N: 10})
	if err != nil {
		t.Fatal(err)
	}
	o := fixed(graph.Orient(k10, graph.ByDegree, true))
	// d+ runs 9, 8, ..., 0: sum of C(d+, 2) = 120 over 45 edges.
	if w, err := Feature(ir.FeatureWedges, k10, o); err != nil || math.Abs(w-120.0/45) > 1e-12 {
		t.Errorf("wedges_per_edge of K10 = %v, %v; want %v", w, err, 120.0/45)
	}
	if cv, err := Feature(ir.FeatureDegreeCV, k10, o); err != nil || cv != 0 {
		t.Errorf("degree_cv of K10 = %v, %v; want 0", cv, err)
	}
	// Ids 0-9 lie in one 32-id word: 10 words over 90 list entries.
	if w, err := Feature(ir.FeatureWords, k10, o); err != nil || math.Abs(w-1.0/9) > 1e-12 {
		t.Errorf("words_per_neighbour of K10 = %v, %v; want 1/9", w, err)
	}
	if _, err := Feature(ir.FeatureWords, nil, o); err == nil {
		t.Error("words_per_neighbour of a graph read oriented: no error")
	}
	for _, gen := range []graph.Generator{graph.DefaultRMAT(12), graph.Grid{Rows: 30, Cols: 40, Diagonals: true}, graph.Wheel{Rim: 50}} {
		g, _, err := graph.Generate(gen)
		if err != nil {
			t.Fatal(err)
		}
		// The direct definition, on the undirected degrees.
		var sum, sq float64
		for v := range g.N() {
			d := float64(g.Degree(uint32(v)))
			sum, sq = sum+d, sq+d*d
		}
		n := float64(g.N())
		want := math.Sqrt(sq/n-(sum/n)*(sum/n)) / (sum / n)
		for _, by := range []graph.Orientation{graph.ByDegree, graph.ByID} {
			o := fixed(graph.Orient(g, by, by == graph.ByDegree))
			for _, gg := range []*graph.Graph{g, nil} { // nil: read oriented
				if cv, err := Feature(ir.FeatureDegreeCV, gg, o); err != nil || math.Abs(cv-want) > 1e-9 {
					t.Errorf("%+v by %v (undirected %v): degree_cv %v, %v; want %v", gen, by, gg != nil, cv, err, want)
				}
			}
		}
	}
}

// TestChooseVariant: the first variant whose range and conditions hold is
// taken, and a condition's feature is measured only when a variant in
// range needs it.
func TestChooseVariant(t *testing.T) {
	g, _, err := graph.Generate(graph.Grid{Rows: 20, Cols: 20}) // 760 edges, average degree 3.8
	if err != nil {
		t.Fatal(err)
	}
	orients := 0
	o := func() (*graph.Oriented, error) {
		orients++
		return graph.Orient(g, graph.ByDegree, true), nil
	}
	m := &gen.Manifest{Feature: ir.FeatureEdges, Variants: []gen.Variant{
		{Lo: 0, Hi: 100},
		{Lo: 100, When: []ir.Cond{{Feature: ir.FeatureAvgDegree, Lo: 4}}},
		{Lo: 100, When: []ir.Cond{{Feature: ir.FeatureAvgDegree, Hi: 4}, {Feature: ir.FeatureDegreeCV, Hi: 1}}},
		{Lo: 100},
	}}
	v, vals, err := chooseVariant(m, g, 0, o)
	if err != nil || v != 2 {
		t.Fatalf("variant %d, %v; want 2", v, err)
	}
	if len(vals) != 3 || vals[ir.FeatureEdges] != 760 {
		t.Errorf("features measured: %v", vals)
	}
	if orients != 0 {
		t.Errorf("oriented %d times for features that do not depend on the orientation", orients)
	}
	m.Variants[1].When[0].Feature = ir.FeatureWedges // now it does
	if v, vals, _ := chooseVariant(m, g, 0, o); v != 2 || orients != 1 || vals[ir.FeatureWedges] == 0 {
		t.Errorf("variant %d, %d orientations, features %v; want 2, 1 and the wedges", v, orients, vals)
	}
	m.Variants[1].When[0].Feature = ir.FeatureAvgDegree
	m.Variants[2].When[1].Hi = 0.01 // the grid's degrees vary more: the catch-all
	if v, _, _ := chooseVariant(m, g, 0, o); v != 3 {
		t.Errorf("variant %d; want 3", v)
	}
	// the GPU's bandwidth is a condition like the graph's features: 0 (unknown) is below any bound.
	m.Variants[2].When[1] = ir.Cond{Feature: ir.FeatureDRAM, Lo: 4000}
	for _, c := range []struct {
		dram float64
		want int
	}{{4814, 2}, {3352, 3}, {0, 3}} {
		if v, vals, err := chooseVariant(m, g, c.dram, o); err != nil || v != c.want || vals[ir.FeatureDRAM] != c.dram {
			t.Errorf("%g GB/s: variant %d, features %v, %v; want %d", c.dram, v, vals, err, c.want)
		}
	}
	m.Variants[0].Hi, m.Variants[1].Lo, m.Variants[2].Lo, m.Variants[3].Lo = 1000, 1000, 1000, 1000
	if v, vals, _ := chooseVariant(m, g, 0, o); v != 0 || len(vals) != 1 {
		t.Errorf("variant %d, features %v; want 0 and the edge count alone", v, vals)
	}
}

// fixed is an orienter that returns o.
func fixed(o *graph.Oriented) func() (*graph.Oriented, error) {
	return func() (*graph.Oriented, error) { return o, nil }
}

// TestChooseVariantReadOriented: on a graph read oriented, a condition on a
// feature only the undirected graph gives does not hold (the variant is
// passed over, also when a later variant asks again), while the guard's
// own feature on it fails.
func TestChooseVariantReadOriented(t *testing.T) {
	g, _, err := graph.Generate(graph.ErdosRenyi{N: 300, M: 6000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	o := fixed(graph.Orient(g, graph.ByDegree, true))
	words := []ir.Cond{{Feature: ir.FeatureWords, Hi: 0.3}} // 0.244 on the undirected graph
	m := &gen.Manifest{Feature: ir.FeatureEdges, Variants: []gen.Variant{
		{Lo: 0, When: words}, {Lo: 0, When: words}, {Lo: 0},
	}}
	if v, _, err := chooseVariant(m, g, 0, o); err != nil || v != 0 {
		t.Errorf("undirected graph at hand: variant %d, %v; want 0", v, err)
	}
	if v, vals, err := chooseVariant(m, nil, 0, o); err != nil || v != 2 {
		t.Errorf("read oriented: variant %d, %v, features %v; want 2", v, err, vals)
	}
	m.Feature = ir.FeatureWords
	if _, _, err := chooseVariant(m, nil, 0, o); err == nil || !strings.Contains(err.Error(), ir.FeatureWords) {
		t.Errorf("the guard's own feature unmeasurable: %v, want an error naming it", err)
	}
}
