package executor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// localFamilyPlans are the pivot and radix shapes of the local plans
// (localPlans): pivot-one (a core of 4096 ids: on the graphs of fewer
// vertices the core kernel counts every triangle, on hub and hubGraph both
// kernels count), pivotPlans' one class of a warp and of a block, three
// classes of 1 to 32 lanes under id order (hub bitmaps, the binary search
// of big pivots), the queued classes with a core of 1024 ids and the guard
// whose variants take cores of 2048, none and 1024; a spill-global table;
// and radixPlans' preset (degree order, relabelled), the unrelabelled
// degree order (E an id-ordered copy, so a triangle's edge (v, w) may be
// stored as w -> v), id order, one-bit levels down to threshold 2, a budget
// of 1 MiB, and the wedge classes beside an edge merge; and the wedge
// searches (wedgeSearchPlans: the matrix, work lists, both orders). Each
// plan counts output o.
func localFamilyPlans(t testing.TB, o ir.Output) []ir.Plan {
	t.Helper()
	one, err := ir.Load("../../examples/pivot-one.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plans := []ir.Plan{one}
	for _, p := range pivotPlans() {
		if slices.Contains([]string{"pv_one", "pv_one_block", "pv_three_id", "pv_core", "pv_guard_core"}, p.Prefix) {
			plans = append(plans, p)
		}
	}
	spill := pivotClass("all", 0, 0, 16, 64, 128, 64, 2, 2)
	spill.Params[ir.ParamSpill], spill.Params[ir.ParamHubBits] = ir.SpillGlobal, 256
	plans = append(plans, ir.Plan{Prefix: "pv_spill", Orientation: ir.OrientDegree, Relabel: true, Core: 1024, Classes: []ir.Class{spill}})
	for _, p := range radixPlans() {
		if slices.Contains([]string{"radixbin", "rx_degree", "rx_id", "rx_b1_t2", "rx_b4_big", "rx_mixed2"}, p.Prefix) {
			plans = append(plans, p)
		}
	}
	plans = append(plans, wedgeSearchPlans()...) // wedge_search_test.go
	out := make([]ir.Plan, 0, len(plans))
	for _, p := range plans {
		q, err := p.WithOutput(o)
		if err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		out = append(out, q)
	}
	return out
}

// TestLocalPlansCoverPairs: the local plans (TestLocalFake, TestLocalGPU,
// TestCompileAll) hold a class of every pair that counts each output.
func TestLocalPlansCoverPairs(t *testing.T) {
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		seen := map[ir.Pair]bool{}
		for _, p := range localPlans(t, o) {
			lists := [][]ir.Class{p.Classes}
			if p.Guard != nil {
				for _, v := range p.Guard.Variants {
					lists = append(lists, v.Classes)
				}
			}
			for _, cs := range lists {
				for _, c := range cs {
					if !c.Skip {
						seen[c.Pair()] = true
					}
				}
			}
		}
		for _, pr := range ir.LocalPairs(o) {
			if pr.Generated() && !seen[pr] {
				t.Errorf("output %s: no local plan has a %s class", o, pr)
			}
		}
	}
}

// TestLocalFakeFamilies: on RMAT-13 (more vertices than the cores), the
// pivot's core kernel and class kernels both credit on the fake device; on
// RMAT-10 the radix's wedge indices survive about 30 batches, ending inside
// vertices.
func TestLocalFakeFamilies(t *testing.T) {
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(0))
	rmat13, rmat10 := mustGraph(t, "rmat13", graph.DefaultRMAT(13)), mustGraph(t, "rmat10", graph.DefaultRMAT(10))
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		for _, p := range localFamilyPlans(t, o) {
			d := newFakeDevice(t, p, 1<<40)
			tg := rmat13
			if d.pv == nil { // the radix and wedge search plans
				tg = rmat10
			}
			executor.SetRadixMaxBatch(wedgesOf(p, tg.g)/29 + 1)
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, tg.g, executor.RunOptions{Repeat: 1})
			if err != nil {
				t.Fatalf("%s (%s): %v", p.Prefix, o, err)
			}
			if res.Triangles != tg.want {
				t.Errorf("%s (%s): %d triangles, want %d", p.Prefix, o, res.Triangles, tg.want)
			}
			checkLocal(t, res, tg.name)
			if d.pv != nil && p.Core > 0 && (d.pv.seen.coreLists == 0 || d.pv.seen.items == 0) {
				t.Errorf("%s (%s): %d core lists, %d pivot items: want both kernels to count", p.Prefix, o, d.pv.seen.coreLists, d.pv.seen.items)
			}
		}
	}
}

// TestLocalPivotEmpty: a graph without triangles, and one whose vertices
// all lie in the core, count zero or every triangle in the core kernel.
func TestLocalPivotEmpty(t *testing.T) {
	star := mustGraph(t, "star", graph.Star{Leaves: 50})
	k5, _, err := graph.FromPairs([][2]uint64{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		p := localFamilyPlans(t, o)[0] // pivot-one: a core of 4096
		for _, tg := range []testGraph{star, {name: "k5", g: k5, want: 10}} {
			res, err := executor.Run(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, tg.g, executor.RunOptions{})
			if err != nil {
				t.Fatalf("%s on %s: %v", o, tg.name, err)
			}
			if res.Triangles != tg.want {
				t.Errorf("%s on %s: %d triangles, want %d", o, tg.name, res.Triangles, tg.want)
			}
			checkLocal(t, res, tg.name)
		}
	}
}

// TestLocalMultiRefused: a local output is counted on one device; on
// several each would hold a part of every counter, so it is refused before
// anything is allocated.
func TestLocalMultiRefused(t *testing.T) {
	p := localFamilyPlans(t, ir.OutputVertex)[0]
	g := mustGraph(t, "rmat8", graph.DefaultRMAT(8)).g
	a, b := newFakeDevice(t, p, 1<<40), newFakeDevice(t, p, 1<<40)
	_, err := executor.PrepareMulti(context.Background(), []gpu.Device{a, b}, []int{0, 1}, &fakeCompiler{}, p, g, executor.RunOptions{})
	want := "plan " + p.Name() + ": output vertex is counted on one device, not 2"
	if err == nil || err.Error() != want || a.allocs+b.allocs != 0 {
		t.Errorf("got %v after %d allocations, want %q", err, a.allocs+b.allocs, want)
	}
}
