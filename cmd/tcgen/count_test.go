package main

import (
	"bytes"
	"cmp"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// The commands run end to end, on files in and out, in tests/ (the tcgen
// binary); these test count's pieces.

// TestDefaultPlan: the plan count runs without --preset or --spec is
// examples/default.yaml, valid, and its guard gives each shape its design:
// small graphs and the rest an edge merge, small graphs (at most 16384
// vertices) of long out-lists dense rows, short lists of even degree and
// graphs of short out-lists (uniform, block-model and preferential
// attachment ones, from a million edges, and geometric and uniform ones of
// degree 8 to 13 whose degrees spread little) a vertex merge (on the
// input's id order where the degrees barely vary and the ids are local;
// short out-lists from 12 million edges the resident edge merge),
// skewed graphs of any size the pivot, skewed ones below the pivot's wedges
// with long out-lists the tile-4 edge merge grouped by target, long even
// lists of local ids the bit slices; on a GPU of 4000 GB/s and more (an
// H200), the tile-4 edge merge on resident blocks where the tiled vertex merge,
// the edge merge or the resident tile-8 merge would run, from 500 000 edges
// (from 2 million where the out-lists stay below 33 or the average degree
// is 13 and more), and from 2 to 32 million edges on skewed graphs whose
// out-lists stay below 64 and where the bit slices would run below an
// average degree of 24, and every tiled edge merge grouped by target in a
// variant of its own whose items carry N+(v)'s word.
func TestDefaultPlan(t *testing.T) {
	p, err := PlanArg{}.plan()
	if err != nil || p.Prefix != "default" || gen.Check(p) != nil {
		t.Fatalf("default plan %s: %v, %v", p.Prefix, err, gen.Check(p))
	}
	for _, c := range []struct {
		name string
		gen  graph.Generator
		want int // on an H100 (3352 GB/s)
		h200 int // on an H200 (4814 GB/s); 0: the same
	}{
		{"small grid", graph.Grid{Rows: 100, Cols: 100, Diagonals: true}, 7, 6},
		{"small rmat", graph.DefaultRMAT(12), 7, 6},
		{"skewed small rmat", graph.DefaultRMAT(17), 0, 0},
		// 7103 vertices, 32.7 wedges per edge (BlogCatalog3-like): dense rows.
		{"small dense rmat", graph.RMAT{Scale: 13, EdgeFactor: 32, Seed: graph.DefaultRMATSeed,
			A: graph.DefaultRMATA, B: graph.DefaultRMATB, C: graph.DefaultRMATC}, 1, 0},
		// 10000 vertices but 17.8 wedges per edge: below dense rows' 21.
		{"small dense uniform", graph.ErdosRenyi{N: 10000, M: 300000, Seed: 1}, 7, 6},
		// 36.6 wedges per edge but 46821 vertices: above dense rows' 16384.
		{"small rmat below the pivot's wedges", graph.DefaultRMAT(16), 3, 2},
		{"small preferential attachment", graph.BarabasiAlbert{N: 300000, M: 4, Seed: 1}, 5, 4},
		{"small world, ids along the ring", graph.WattsStrogatz{N: 300000, K: 20, P: 0.05, Seed: 1}, 9, 8},
		{"rmat", graph.DefaultRMAT(18), 10, 0},
		{"power law with hubs", graph.ChungLu{N: 500000, Degree: 16, Gamma: 2.1, Seed: 1}, 13, 12},
		// Even degrees, ids along the grid: the input's id order.
		{"grid", graph.Grid{Rows: 1000, Cols: 1000, Diagonals: true}, 14, 0},
		// degree_cv 0.27 under an average degree of 7: the id order too.
		{"road", graph.Road{Rows: 1000, Cols: 1000, Diagonals: true, Delete: 0.3, Links: 1000, Seed: 1}, 15, 0},
		// degree_cv 0.29 at an average degree of 6, random ids: the degree order.
		{"small world rewired throughout", graph.WattsStrogatz{N: 700000, K: 6, P: 1, Seed: 1}, 16, 0},
		// degree_cv 0.29 at an average degree of 12: the tiled vertex merge (below 12 million edges).
		{"geometric", graph.RandomGeometric{N: 500000, Dim: 2, Degree: 12, Seed: 1}, 20, 17},
		{"sparse uniform", graph.ErdosRenyi{N: 1000000, M: 4000000, Seed: 1}, 20, 17},
		// Short out-lists from 12 million edges: the resident edge merge.
		{"large sparse uniform", graph.ErdosRenyi{N: 3000000, M: 12000000, Seed: 1}, 19, 17},
		{"uniform", graph.ErdosRenyi{N: 200000, M: 3000000, Seed: 1}, 23, 17},
		// degree_cv above 2.8 and an out-list of 33 or more: the skewed variant too; below 64 on an
		// H200 the tile-4 merge on resident blocks.
		{"power law", graph.ChungLu{N: 1000000, Degree: 6, Gamma: 2.5, Seed: 1}, 13, 11},
		{"power law of short out-lists", graph.ChungLu{N: 1000000, Degree: 6, Gamma: 3, Seed: 1}, 20, 17},
	} {
		g, _, err := graph.Generate(c.gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, gpu := range []struct {
			dram float64
			want int
		}{{3352, c.want}, {4814, cmp.Or(c.h200, c.want)}} {
			v, _, _, err := executor.Workload(p, g, gpu.dram)
			if err != nil || v != gpu.want {
				t.Errorf("%s (%d edges), %g GB/s: variant %d, %v; want %d", c.name, g.Edges(), gpu.dram, v, err, gpu.want)
			}
		}
	}
}

// TestPrintCountGPUPhases: a GPU count's text output splits the start to
// the first count: the context apart, and Prepare's phases with the
// graph's upload in the background.
func TestPrintCountGPUPhases(t *testing.T) {
	var out bytes.Buffer
	g := &Globals{stdout: &out}
	r := &countResult{Graph: "g.tcsr", Backend: "gpu", Device: "GPU", ContextMs: 250, PrepareMs: 100, TotalMs: 510,
		GPU: &executor.Result{UploadWallMs: 70, Phases: []executor.Phase{{Name: "generate", Ms: 2}, {Name: "orient", Ms: 0}, {Name: "host lists", Ms: 5}}}}
	if err := printCount(g, false, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"250.000 ms (driver and context)", "generate 2.0, host lists 5.0 ms; the graph's upload ran 70.0 ms of that in the background"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestPrintCountGuardedPlan: a guarded plan's line says which variant ran
// and the orientation it took.
func TestPrintCountGuardedPlan(t *testing.T) {
	var out bytes.Buffer
	g := &Globals{stdout: &out}
	r := &countResult{Graph: "g.tcsr", Backend: "gpu", Device: "GPU", Plan: "default_1",
		GPU: &executor.Result{Feature: ir.FeatureEdges, Variant: 3, Orientation: ir.OrientTCBW}}
	if err := printCount(g, false, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "default_1 (variant 3, oriented by tcbw)") {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestGPUCount: the driver starts ahead for a count that may use the GPU
// and not for a CPU count or another command.
func TestGPUCount(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"count", "g.txt"}, true},
		{[]string{"-q", "--no-store", "--cache-dir", "d", "count", "g.tcsr", "--backend", "gpu"}, true},
		{[]string{"count", "g.txt", "--backend", "cpu"}, false},
		{[]string{"count", "--backend=cpu", "g.txt"}, false},
		{[]string{"stats", "g.txt"}, false},
		{[]string{"convert", "--", "count"}, false},
	} {
		if got := gpuCount(c.args); got != c.want {
			t.Errorf("gpuCount(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
