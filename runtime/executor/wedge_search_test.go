package executor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// wedgeSearchPlans: WeTriC's preset (a matrix of 8192 ids: all of a small
// graph), and wedge classes on work lists (the items a class selects, many
// of them without wedges), spreads 1 and 32, a matrix of 1024 ids (a part
// of the larger graphs), in an unrelabelled degree order (E is the
// executor's id-order copy) and in id order, and upper-triangle matrices
// of 1024 and 32768 ids (more than any test graph's) in the relabelled
// degree order.
func wedgeSearchPlans() []ir.Plan {
	pre, _ := ir.Preset("wetric")
	wedge := func(spread, block, matrix int) ir.Strategy {
		return ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.BinarySearch, Width: 1, Block: block,
			Params: map[string]int64{ir.ParamSpread: int64(spread), ir.ParamMatrix: int64(matrix)}}
	}
	upper := func(spread, block, matrix int) ir.Strategy {
		s := wedge(spread, block, matrix)
		s.Params[ir.ParamMatrixUpper] = 1
		return s
	}
	merge := ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 64}
	return []ir.Plan{pre,
		{Prefix: "ws_split", Orientation: ir.OrientDegree, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 4}, Strategy: wedge(1, 32, 0)},
			{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 4}, Strategy: wedge(32, 32, 1024)},
		}},
		{Prefix: "ws_id", Orientation: ir.OrientID, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8}, Strategy: merge},
			{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8}, Strategy: wedge(3, 64, 0)},
		}},
		{Prefix: "ws_upper", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 6}, Strategy: upper(2, 32, 32768)},
			{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 6}, Strategy: upper(8, 64, 1024)},
		}},
	}
}

// TestWedgeSearchFake counts with the wedge classes on the fake device,
// which runs their kernel as the GPU does (wedge_search_fake_test.go), at
// index base 0 and 2^32, against the oracle.
func TestWedgeSearchFake(t *testing.T) {
	for name, gen := range map[string]graph.Generator{
		"rmat11": graph.DefaultRMAT(11),
		"er":     graph.ErdosRenyi{N: 400, M: 5000, Seed: 7},
		"wheel":  graph.Wheel{Rim: 300},
		"star":   graph.Star{Leaves: 50},
		"k40":    graph.Complete{N: 40},
	} {
		g, _, err := graph.Generate(gen)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, p := range wedgeSearchPlans() {
			for _, base := range []uint64{0, 1 << 32} {
				d := newFakeDevice(t, p, 1<<40)
				res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 2, IndexBase: base})
				if err != nil {
					t.Fatalf("%s on %s (base %d): %v", p.Prefix, name, base, err)
				}
				if res.Triangles != want {
					t.Errorf("%s on %s (base %d): %d triangles, want %d: %+v", p.Prefix, name, base, res.Triangles, want, res.PerClass)
				}
				if !slices.ContainsFunc(d.launch, func(k string) bool { _, ok := d.kernels[k]; return ok && d.kernels[k].Kind == "wedge" }) {
					t.Errorf("%s on %s: no wedge kernel launched: %v", p.Prefix, name, d.launch)
				}
			}
		}
	}
}
