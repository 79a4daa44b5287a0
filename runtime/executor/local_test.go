package executor_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// localPlans are plans of every shape the local outputs are generated for
// (ir.LocalPairs), each with output o: the default plan's variant (its
// pivot lists fall back to the edge merge: ir.Plan.WithOutput), tiled and
// plain edge and vertex merges, vertex merges of 4, 32 and a block of
// lanes, binary searches of 1, 4 and a block of lanes (with cached
// splitters), under degree order without relabelling (whole lists, not the
// part after v) and under id order; then the merge path and edge chunks
// (sortedPlans), the pivot and radix shapes (localFamilyPlans).
func localPlans(t testing.TB, o ir.Output) []ir.Plan {
	t.Helper()
	def := defaultPlan(t)
	all := func(it ir.Iterator, w, blk int, params map[string]int64) []ir.Class {
		return []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
			Strategy: ir.Strategy{Iterator: it, Intersection: ir.Merge, Width: w, Block: blk, Params: params}}}
	}
	plans := []ir.Plan{
		{Prefix: "local_edge_tile", Orientation: ir.OrientDegree, Relabel: true,
			Classes: all(ir.IterEdge, 1, 128, map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1})},
		{Prefix: "local_edge_plain", Orientation: ir.OrientDegree, Classes: all(ir.IterEdge, 1, 256, nil)},
		{Prefix: "local_vertex", Orientation: ir.OrientDegree, Relabel: true,
			Classes: all(ir.IterVertex, 1, 256, map[string]int64{ir.ParamResident: 1})},
		{Prefix: "local_vertex_tile", Orientation: ir.OrientDegree, Relabel: true,
			Classes: all(ir.IterVertex, 1, 256, map[string]int64{ir.ParamTile: 4})}, // the default's short out-lists
		{Prefix: "local_vertex_w4_tile", Orientation: ir.OrientID,
			Classes: all(ir.IterVertex, 4, 128, map[string]int64{ir.ParamTile: 4})},
		{Prefix: "local_vertex_w32", Orientation: ir.OrientDegree, Classes: all(ir.IterVertex, 32, 256, nil)},
		{Prefix: "local_search_w4", Orientation: ir.OrientID, Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
			Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 4, Block: 128}}}},
		{Prefix: "local_search_levels", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyWork, Lo: 0, Hi: 64},
				Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 1, Block: 128}},
			{Name: "high", Select: ir.Selector{Key: ir.KeyWork, Lo: 64},
				Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 128, Block: 128,
					Params: map[string]int64{ir.ParamLevels: 4}}},
		}},
		{Prefix: "local_mixed", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "skip", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
			{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2, Hi: 32},
				Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 128}},
			{Name: "block", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 32},
				Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 128, Block: 128}},
		}},
	}
	out := make([]ir.Plan, 0, len(plans)+1)
	q, err := def.WithOutput(o)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, q)
	for _, p := range specPlans() {
		if p.Prefix == "spec_guard_orient" { // a variant oriented its own way
			plans = append(plans, p)
		}
	}
	for _, p := range plans {
		p.Output = o
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		out = append(out, p)
	}
	out = append(out, localFamilyPlans(t, o)...) // local_pivot_test.go
	out = append(out, sortedPlans(t, o)...)      // merge path, edge chunks (local_sorted_test.go)
	return append(out, probePlans(t, o)...)      // the lookup intersections (local_probe_test.go)
}

// checkLocal compares a local-output run's counts with the CPU oracle of
// the orientation it ran on: graph.CountPerVertex's per-vertex counts, or
// graph.CountPerEdge's supports.
func checkLocal(t *testing.T, res *executor.Result, name string) {
	t.Helper()
	if res.Oriented == nil {
		t.Errorf("%s on %s: output %q but no oriented graph in the result", res.Plan, name, res.Output)
		return
	}
	switch res.Output {
	case ir.OutputVertex:
		want := oracleLocal(name, res, func() []uint64 { _, c := graph.CountPerVertex(res.Oriented); return c })
		if got := res.LocalPerVertex(); !slices.Equal(got, want) {
			t.Errorf("%s on %s: per-vertex counts differ from the oracle at %d of %d vertices", res.Plan, name, diffs(got, want), len(want))
		}
	case ir.OutputEdge:
		want := oracleLocal(name, res, func() []uint32 { _, c := graph.CountPerEdge(res.Oriented); return c })
		if got := res.LocalSupport(); !slices.Equal(got, want) {
			t.Errorf("%s on %s: per-edge counts differ from the oracle at %d of %d edges", res.Plan, name, diffs(got, want), len(want))
		}
	default:
		t.Errorf("%s on %s: output %q, want a local one", res.Plan, name, res.Output)
	}
}

// oracles holds the CPU oracle's local counts of the large graphs by graph
// name, output and orientation: every plan of one orientation gets the same
// oriented graph, and RMAT-22's per-edge oracle takes seconds.
var oracles sync.Map

// oracleLocal is count(), memoized in oracles for graphs of a million arcs
// and more.
func oracleLocal[T any](name string, res *executor.Result, count func() []T) []T {
	o := res.Oriented
	if len(o.Adj) < 1<<20 {
		return count()
	}
	key := fmt.Sprintf("%s/%s/%s/%v/%d", name, res.Output, o.By, o.Relabelled, len(o.Perm))
	if c, ok := oracles.Load(key); ok {
		return c.([]T)
	}
	c := count()
	oracles.Store(key, c)
	return c
}

// diffs counts the positions where a and b differ (a length apart counts all).
func diffs[T comparable](a, b []T) int {
	if len(a) != len(b) {
		return max(len(a), len(b))
	}
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// localGraphs are small graphs with what local counts get wrong first:
// vertices of degree 1 (a pendant, a star's leaves, a hub's lone leaves),
// a vertex in no triangle, hubs under both orientations, skew and density.
func localGraphs(t *testing.T) []testGraph {
	t.Helper()
	// Two triangles sharing the edge 1-2, a pendant 4 on 3, a path 5-6-7,
	// a K4 on 10..13 and ids 8 and 9 unused (dropped by cleaning).
	small, _, err := graph.FromPairs([][2]uint64{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {3, 4}, {5, 6}, {6, 7},
		{10, 11}, {10, 12}, {10, 13}, {11, 12}, {11, 13}, {12, 13}})
	if err != nil {
		t.Fatal(err)
	}
	empty, _, err := graph.FromPairs(nil) // no counters at all: still a result to compare
	if err != nil {
		t.Fatal(err)
	}
	return []testGraph{
		{name: "small", g: small, want: graph.Oracle(small)},
		{name: "empty", g: empty},
		mustGraph(t, "star", graph.Star{Leaves: 200}),
		mustGraph(t, "wheel", graph.Wheel{Rim: 300}),
		mustGraph(t, "hub", graph.Hub{Leaves: 5000, Extra: 1500, Seed: 4}),
		mustGraph(t, "rmat10", graph.DefaultRMAT(10)),
		mustGraph(t, "er", graph.ErdosRenyi{N: 300, M: 6000, Seed: 3}),
		hubGraph(t, 2000, 5000, 9),
	}
}

// TestLocalFake runs every local plan on the fake device, which credits
// each triangle as the kernels do (local_fake_test.go), and checks the
// executor's part: the counters' argument, size, zeroing before every
// pass, read-back and mapping to the graph's ids, with every pass launched
// kernel by kernel and with the passes after the first replayed.
func TestLocalFake(t *testing.T) {
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		plans := localPlans(t, o)
		for _, tg := range localGraphs(t) {
			for _, p := range plans {
				for _, replay := range []bool{false, true} {
					d := newFakeDevice(t, p, 1<<40)
					var dev gpu.Device = d
					if replay { // graph_fake_test.go
						dev = capturingFake{fakeDevice: d}
					}
					res, err := executor.Run(context.Background(), dev, &fakeCompiler{}, p, tg.g, executor.RunOptions{Repeat: 2, Warmup: 1})
					if err != nil {
						t.Fatalf("%s (%s) on %s: %v", p.Prefix, o, tg.name, err)
					}
					if replay && !res.Graph && !strings.Contains(res.GraphError, "wedge/radix") {
						t.Errorf("%s (%s) on %s: not replayed: %q", p.Prefix, o, tg.name, res.GraphError)
					}
					if res.Triangles != tg.want {
						t.Errorf("%s (%s) on %s: %d triangles, want %d", p.Prefix, o, tg.name, res.Triangles, tg.want)
					}
					checkLocal(t, res, tg.name)
					if d.allocBytes > res.DeviceBytes || len(d.live) != 0 {
						t.Errorf("%s on %s: allocated %d bytes, predicted %d; %d buffers left", p.Prefix, tg.name, d.allocBytes, res.DeviceBytes, len(d.live))
					}
				}
			}
		}
	}
}

// TestLocalTooLarge: the local counters are part of the memory plan.
func TestLocalTooLarge(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	p := localPlans(t, ir.OutputEdge)[1]
	total := p.Clone()
	total.Output = ir.OutputTotal
	res, err := executor.Run(context.Background(), newFakeDevice(t, total, 1<<40), &fakeCompiler{}, total, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	loc, err := executor.Run(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.DeviceBytes + 8*res.Edges; loc.DeviceBytes != want {
		t.Errorf("per-edge run planned %d bytes, want the total's %d + 8 per edge = %d", loc.DeviceBytes, res.DeviceBytes, want)
	}
	if res.Local != nil || loc.LocalDownloadMs < 0 || len(loc.Local) != int(res.Edges) {
		t.Errorf("local counts: total run %d, edge run %d for %d edges", len(res.Local), len(loc.Local), res.Edges)
	}
}

// runLocalGPU is checkLocal on a GPU (local_gpu_test.go).
func runLocalGPU(t *testing.T, dev gpu.Device, comp gpu.Compiler, p ir.Plan, tg testGraph, repeat int, fitOnly bool) *executor.Result {
	t.Helper()
	res := checkRuns(t, dev, comp, p, tg, repeat, fitOnly)
	if res != nil {
		checkLocal(t, res, tg.name)
	}
	return res
}

// defaultPlan is the built-in default plan (examples/default.yaml).
func defaultPlan(t testing.TB) ir.Plan {
	t.Helper()
	p, err := examples.Default()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// presetsWithOutput are the named presets with output o.
func presetsWithOutput(t testing.TB, o ir.Output, names ...string) []ir.Plan {
	t.Helper()
	var out []ir.Plan
	for _, name := range names {
		p, ok := ir.Preset(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		q, err := p.WithOutput(o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, q)
	}
	return out
}

// oneClass is a plan of one class, every vertex, with strategy s.
func oneClass(prefix string, or ir.Orientation, relabel bool, s ir.Strategy) ir.Plan {
	return ir.Plan{Prefix: prefix, Orientation: or, Relabel: relabel, Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree}, Strategy: s}}}
}

// strat is a strategy.
func strat(it ir.Iterator, is ir.Intersection, w, blk int, params map[string]int64) ir.Strategy {
	return ir.Strategy{Iterator: it, Intersection: is, Width: w, Block: blk, Params: params}
}

// eachKernelPair calls f with each class kernel of a plan's total (out)
// and the same class's kernel in its local variant (lout), skip classes
// left out.
func eachKernelPair(out, lout *gen.Output, f func(vi, ci int, total, local string, block int)) {
	for vi, v := range out.Manifest.Variants {
		for ci, c := range v.Classes {
			if c.Kernel != "" {
				f(vi, ci, c.Kernel, lout.Manifest.Variants[vi].Classes[ci].Kernel, c.Block)
			}
		}
	}
}

// withOutput sets output o on each of plans, which must then be valid.
func withOutput(t testing.TB, o ir.Output, plans []ir.Plan) []ir.Plan {
	t.Helper()
	out := make([]ir.Plan, 0, len(plans))
	for _, p := range plans {
		p.Output = o
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		out = append(out, p)
	}
	return out
}

// TestRadixLocalHighIndex: radix binning's local counts under an index
// base, with and without relabelling, as one class and beside other
// classes: the leaf's local arguments carry the raised offsets, whether E
// is the plan's CSR (relabelled, shifted) or its copy in id order (not
// shifted); every count equal to the oracle's.
func TestRadixLocalHighIndex(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	radix := ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 64,
		Params: map[string]int64{ir.ParamBudgetMiB: 44, ir.ParamRadixBits: 7, ir.ParamThreshold: 1024}}
	merge := ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128}
	for _, relabel := range []bool{false, true} {
		for _, out := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
			one := ir.Plan{Prefix: "rx_high", Orientation: ir.OrientDegree, Relabel: relabel, Output: out,
				Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree}, Strategy: radix}}}
			mixed := one
			mixed.Prefix = "rx_high_mixed"
			mixed.Classes = []ir.Class{
				{Name: "lo", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 25}, Strategy: merge},
				{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 25, Hi: 72}, Strategy: radix},
				{Name: "hi", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 72}, Strategy: merge}}
			for _, p := range []ir.Plan{one, mixed} {
				d := newFakeDevice(t, p, 1<<40)
				res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 1, IndexBase: 1 << 32})
				if err != nil {
					t.Errorf("%s (relabel %v, %s): %v", p.Prefix, relabel, out, err)
					continue
				}
				if res.Triangles != want {
					t.Errorf("%s (relabel %v, %s): %d triangles, want %d", p.Prefix, relabel, out, res.Triangles, want)
				}
				checkLocal(t, res, "rmat10")
			}
		}
	}
}
