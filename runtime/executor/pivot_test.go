package executor_test

import (
	"context"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The pivot classes run on the fake device (pivot_fake_test.go,
// pivot_fake_class_test.go), their counts checked against the CPU oracle.

type pivotGraph struct {
	name string
	g    *graph.Graph
}

func pivotGraphs(t *testing.T) []pivotGraph {
	t.Helper()
	var gs []pivotGraph
	for _, x := range []struct {
		name string
		gen  graph.Generator
	}{
		{"rmat9", graph.DefaultRMAT(9)},
		{"rmat12", graph.DefaultRMAT(12)}, // more vertices than pv::HUBS
		{"er", graph.ErdosRenyi{N: 200, M: 2500, Seed: 5}},
		{"k70", graph.Complete{N: 70}},
		{"wheel", graph.Wheel{Rim: 300}},
		{"grid", graph.Grid{Rows: 15, Cols: 17, Diagonals: true}},
		{"star", graph.Star{Leaves: 40}},
	} {
		g, _, err := graph.Generate(x.gen)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, pivotGraph{x.name, g})
	}
	for _, x := range []struct {
		name  string
		pairs [][2]uint64
	}{
		{"empty", nil},
		{"one-edge", [][2]uint64{{3, 9}}},
		{"triangle", [][2]uint64{{0, 1}, {1, 2}, {0, 2}}},
	} {
		g, _, err := graph.FromPairs(x.pairs)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, pivotGraph{x.name, g})
	}
	return gs
}

// pivotPlanAsserts checks the static_asserts of p's pivot class kernels.
func pivotPlanAsserts(t *testing.T, p ir.Plan) error {
	t.Helper()
	out, err := gen.Generate(p, gen.Target{Arch: "compute_90", MaxSharedPerBlock: 227 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Manifest.Variants {
		for _, c := range v.Classes {
			if c.Kind == gen.KindPivot {
				if err := pivotAsserts(c); err != nil {
					return fmt.Errorf("class %s: %w", c.Name, err)
				}
			}
		}
	}
	return nil
}

func pivotOrient(t *testing.T, p ir.Plan, g *graph.Graph) *graph.Oriented {
	t.Helper()
	by := graph.ByDegree
	switch p.Orientation {
	case ir.OrientID:
		by = graph.ByID
	case ir.OrientTCBW:
		by = graph.ByTCBW
	case ir.OrientDegree, "":
	default:
		t.Fatalf("orientation %s", p.Orientation)
	}
	return graph.Orient(g, by, p.Relabel)
}

// middleCounts returns, per vertex v of o (ids in the order), the
// triangles u < v < w with v in the middle.
func middleCounts(o *graph.Oriented) []uint64 {
	at := make([]uint64, o.N())
	for u := range o.N() {
		nu := o.Neighbors(uint32(u))
		for i, v := range nu {
			nv := o.Neighbors(v)
			for _, w := range nu[i+1:] {
				if _, ok := slices.BinarySearch(nv, w); ok {
					at[v]++
				}
			}
		}
	}
	return at
}

// checkPivotRun runs p on g through the fake device, twice, and checks the
// count against the oracle, per class against the triangles whose middle
// vertex the class holds, the counters left at zero and the pass timing.
func checkPivotRun(t *testing.T, p ir.Plan, pg pivotGraph, seen *pivotSeen) *executor.Result {
	t.Helper()
	if err := gen.Check(p); err != nil {
		t.Fatalf("%s: %v", p.Prefix, err)
	}
	d := newFakeDevice(t, p, 1<<40)
	if d.pv == nil {
		t.Fatalf("%s: no pivot helpers in the manifest", p.Prefix)
	}
	const repeat = 2
	res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, pg.g, executor.RunOptions{Repeat: repeat})
	if err != nil {
		t.Errorf("%s on %s: %v", p.Prefix, pg.name, err)
		return nil
	}
	o := pivotOrient(t, p, pg.g)
	want := graph.CountTriangles(o)
	if res.Triangles != want {
		t.Errorf("%s on %s: %d triangles, want %d: %+v", p.Prefix, pg.name, res.Triangles, want, res.PerClass)
	}
	var sum uint64
	for _, c := range res.PerClass {
		sum += c.Triangles
	}
	if sum != res.Triangles {
		t.Errorf("%s on %s: classes sum to %d, total %d", p.Prefix, pg.name, sum, res.Triangles)
	}
	// Per class: the triangles of its pivots (the variant's classes by d+(v)).
	classes := p.Classes
	if p.Guard != nil {
		classes = p.Guard.Variants[res.Variant].Classes
	}
	if len(classes) != len(res.PerClass) {
		t.Fatalf("%s on %s: %d class results for %d classes", p.Prefix, pg.name, len(res.PerClass), len(classes))
	}
	if classes[0].Iterator == ir.IterPivot {
		// The core's pivots (the core highest ids) are counted by the core
		// kernel into the first class that has vertices.
		core := uint64(d.pv.h.VariantCore(res.Variant))
		top := uint64(o.N()) - min(uint64(o.N()), core)
		first := slices.IndexFunc(res.PerClass, func(c executor.ClassResult) bool { return c.Items > 0 })
		per := make([]uint64, len(classes))
		for v, x := range middleCounts(o) {
			if core > 0 && uint64(v) >= top {
				per[first] += x
				continue
			}
			dv := o.Degree(uint32(v))
			for i, c := range classes {
				if dv >= uint64(c.Select.Lo) && (c.Select.Hi == 0 || dv < uint64(c.Select.Hi)) {
					per[i] += x
					break
				}
			}
		}
		for i, c := range res.PerClass {
			if c.Triangles != per[i] {
				t.Errorf("%s on %s: class %s counted %d, its pivots hold %d", p.Prefix, pg.name, c.Name, c.Triangles, per[i])
			}
		}
	}
	if res.Runs != repeat || res.GPUMs.Median <= 0 || res.GPUMs.Min <= 0 {
		t.Errorf("%s on %s: runs %d, gpu %+v", p.Prefix, pg.name, res.Runs, res.GPUMs)
	}
	if pivotVariant := classes[0].Iterator == ir.IterPivot; pivotVariant != (res.PrepMs.Median > 0) {
		t.Errorf("%s on %s: pivot variant %v, preparation %+v", p.Prefix, pg.name, pivotVariant, res.PrepMs)
	}
	// Every pass prepares once, in order, before its class kernels; the
	// counters are zero after it.
	h := d.pv.h
	var prep []string
	for _, k := range d.launch {
		if d.isPivotKernel(k) {
			prep = append(prep, k)
		}
	}
	var wantPrep []string // none when the chosen variant has no pivot class
	perPass := h.Kernels()
	perPass = perPass[:5] // the preparation, then the variant's core kernel
	if k := h.VariantCore(res.Variant); k > 0 {
		perPass = append(perPass, h.CoreKernel(k))
	}
	if pg.g.N() > 0 && classes[0].Iterator == ir.IterPivot {
		for range repeat {
			wantPrep = append(wantPrep, perPass...)
		}
	}
	if !slices.Equal(prep, wantPrep) || d.pv.passes != len(wantPrep)/len(perPass) {
		t.Errorf("%s on %s: preparation launches %v (%d scatters), want %v", p.Prefix, pg.name, prep, d.pv.passes, wantPrep)
	}
	for _, b := range []*fakeBuf{d.pv.wrk} {
		if b != nil && slices.ContainsFunc(b.data, func(b byte) bool { return b != 0 }) {
			t.Errorf("%s on %s: counters not zero after the last pass", p.Prefix, pg.name)
		}
	}
	if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 {
		t.Errorf("%s on %s: %d buffers, %d modules, %d timers left", p.Prefix, pg.name, len(d.live), d.loaded, d.timers)
	}
	if seen != nil {
		seen.add(d.pv.seen)
	}
	return res
}

func pivotClass(name string, lo, hi int64, width, block int, table, itemWork, unroll, ratio int64) ir.Class {
	return ir.Class{
		Name:   name,
		Select: ir.Selector{Key: ir.KeyOutDegree, Lo: lo, Hi: hi},
		Strategy: ir.Strategy{Iterator: ir.IterPivot, Intersection: ir.Hash, Width: width, Block: block,
			Params: map[string]int64{ir.ParamTable: table, ir.ParamItemWork: itemWork, ir.ParamUnroll: unroll, ir.ParamBuildRatio: ratio}},
	}
}

// pivotPlans are hand-made pivot plans: one class; three with item_work 32
// and build_ratio 1 (the least: many items per pivot), 100 and 1<<24 (one
// item per pivot), unroll 1, 3 and 8, widths 1 to 32 and whole blocks, a
// table too small for the highest class (the binary search of a big pivot);
// both orientations; guards.
// queued gives every class of cs a work queue of 1, 4, 16... items a take.
func queued(cs []ir.Class) []ir.Class {
	for i := range cs {
		cs[i].Params[ir.ParamQueue] = int64(1) << (2 * i)
	}
	return cs
}

func pivotPlans() []ir.Plan {
	// Hub bitmaps: none in low and high (the table and the big path see
	// every id), 256 ids in mid (both paths on the same pivot).
	three := func(w1, w2, w3, table int) []ir.Class {
		cs := []ir.Class{
			pivotClass("low", 0, 4, w1, max(w1, 32), 64, 32, 1, 1),
			pivotClass("mid", 4, 16, w2, max(w2, 64), int64(table), 100, 3, 2),
			pivotClass("high", 16, 0, w3, max(w3, 32), int64(max(w3, 64)), 1<<24, 8, 16), // d+ > table/2: the big path
		}
		cs[0].Params[ir.ParamHubBits] = 0
		cs[1].Params[ir.ParamHubBits] = 256
		cs[2].Params[ir.ParamHubBits] = 0
		return cs
	}
	return []ir.Plan{
		{Prefix: "pv_one", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{pivotClass("all", 0, 0, 32, 64, 2048, 4096, 4, 16)}},
		{Prefix: "pv_one_w1", Orientation: ir.OrientID,
			Classes: []ir.Class{pivotClass("all", 0, 0, 1, 32, 64, 32, 2, 1)}},
		{Prefix: "pv_one_block", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{pivotClass("all", 0, 0, 128, 128, 256, 64, 1, 1)}},
		{Prefix: "pv_three_id", Orientation: ir.OrientID, Classes: three(1, 8, 32, 256)},
		{Prefix: "pv_three_deg", Orientation: ir.OrientDegree, Relabel: true, Classes: three(1, 8, 32, 256)},
		{Prefix: "pv_three_w32", Orientation: ir.OrientDegree, Relabel: true, Classes: three(32, 32, 32, 1024)},
		{Prefix: "pv_three_w1", Orientation: ir.OrientID, Classes: three(1, 1, 1, 64)},
		{Prefix: "pv_three_block", Orientation: ir.OrientID, Classes: three(64, 64, 64, 128)},
		{Prefix: "pv_guard", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 3, Classes: []ir.Class{pivotClass("a", 0, 2, 4, 64, 64, 40, 2, 1), pivotClass("b", 2, 0, 16, 64, 128, 50, 5, 3)}},
				{Lo: 3, Classes: three(2, 16, 32, 512)},
			},
		}},
		{Prefix: "pv_queue", Orientation: ir.OrientDegree, Relabel: true, Classes: queued(three(1, 8, 32, 256))},
		// A core of 1024 ids: the whole of rmat9 and the small graphs, part
		// of rmat12; the pivot classes take the rest.
		{Prefix: "pv_core", Orientation: ir.OrientDegree, Relabel: true, Core: 1024, Classes: queued(three(1, 8, 32, 256))},
		{Prefix: "pv_core_id", Orientation: ir.OrientID, Core: 1024, Classes: three(4, 32, 64, 128)},
		// A core in one guard variant only, and two sizes.
		{Prefix: "pv_guard_core", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 2, Core: 2048, Classes: three(2, 16, 32, 512)},
				{Lo: 2, Hi: 12, Classes: three(1, 8, 32, 256)},
				{Lo: 12, Core: 1024, Classes: queued(three(1, 8, 32, 256))},
			},
		}},
		{Prefix: "pv_guard_mixed", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 3, Classes: []ir.Class{{Name: "vh", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 128}}}},
				{Lo: 3, Classes: three(1, 4, 32, 64)},
			},
		}},
	}
}

func TestPivotFakeExample(t *testing.T) {
	p, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasPivot() {
		t.Fatal("examples/pivot.yaml has no pivot class")
	}
	var seen pivotSeen
	for _, pg := range pivotGraphs(t) {
		checkPivotRun(t, p, pg, &seen)
	}
	t.Logf("class kernels: %+v", seen)
}

func TestPivotFakePlans(t *testing.T) {
	graphs := pivotGraphs(t)
	variants := map[string]map[int]bool{}
	var seen pivotSeen
	for _, p := range pivotPlans() {
		variants[p.Prefix] = map[int]bool{}
		for _, pg := range graphs {
			if res := checkPivotRun(t, p, pg, &seen); res != nil {
				variants[p.Prefix][res.Variant] = true
			}
		}
	}
	// The plans reach every path of the class kernel.
	t.Logf("class kernels: %+v", seen)
	if seen.split == 0 || seen.big == 0 || seen.teams == 0 || seen.unrolled == 0 || seen.split == seen.items || seen.big == seen.items ||
		seen.longs == 0 || seen.shorts == 0 || seen.hubEdges == 0 || seen.globalEdges == 0 || seen.queued == 0 || seen.overflow == 0 || seen.coreLists == 0 {
		t.Errorf("the plans miss a path of the class kernel: %+v", seen)
	}
	// The guards chose each variant on some graph.
	for _, name := range []string{"pv_guard", "pv_guard_mixed"} {
		if len(variants[name]) != 2 {
			t.Errorf("%s ran variants %v, want both", name, variants[name])
		}
	}
	if len(variants["pv_guard_core"]) != 3 {
		t.Errorf("pv_guard_core ran variants %v, want all three", variants["pv_guard_core"])
	}
}

// TestPivotFakeRandom runs seeded random pivot plans that gen accepts.
func TestPivotFakeRandom(t *testing.T) {
	var graphs []pivotGraph
	for _, pg := range pivotGraphs(t) {
		if pg.name == "rmat9" || pg.name == "rmat12" || pg.name == "k70" || pg.name == "one-edge" {
			graphs = append(graphs, pg)
		}
	}
	rng := rand.New(rand.NewPCG(2024, 11))
	const want = 12
	got, draws := 0, 0
	var seen pivotSeen
	for got < want {
		if draws++; draws > 20000 {
			t.Fatalf("%d pivot plans in %d draws", got, draws)
		}
		p := ir.RandomPlan(rng)
		if !p.HasPivot() || gen.Check(p) != nil {
			continue
		}
		if err := pivotPlanAsserts(t, p); err != nil {
			// It would not compile: TestPivotRandomPlansCompile reports it.
			t.Logf("not run (TestPivotRandomPlansCompile): %v", err)
			continue
		}
		p.Prefix = fmt.Sprintf("pvrand%d", got)
		got++
		for _, pg := range graphs {
			checkPivotRun(t, p, pg, &seen)
		}
	}
	t.Logf("%d random pivot plans in %d draws; class kernels: %+v", got, draws, seen)
}

// TestPivotRandomPlansCompile: every random pivot plan that gen.Check
// accepts passes the static_asserts of its kernels.
func TestPivotRandomPlansCompile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	got, bad := 0, 0
	for draws := 0; got < 200 && draws < 100000; draws++ {
		p := ir.RandomPlan(rng)
		if !p.HasPivot() || gen.Check(p) != nil {
			continue
		}
		got++
		if err := pivotPlanAsserts(t, p); err != nil {
			if bad++; bad <= 3 {
				t.Errorf("gen.Check accepts %s, whose kernel does not compile: %v; classes %+v", p.Name(), err, p.Classes)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d random pivot plans that gen.Check accepts do not compile", bad, got)
	}
}

// TestPivotFakeBounds: a buffer too small for what a kernel writes fails
// the launch instead of panicking, and so does an address outside every
// buffer.
func TestPivotFakeBounds(t *testing.T) {
	p := pivotPlans()[0]
	d := newFakeDevice(t, p, 1<<40)
	h := d.pv.h
	alloc := func(n uint64) *fakeBuf {
		b, _ := d.Alloc(n)
		return b.(*fakeBuf)
	}
	g, _, err := graph.Generate(graph.Complete{N: 5})
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, graph.ByID, false)
	n, m := uint64(o.N()), o.Arcs()
	off, adj := alloc((n+1)*8), alloc(m*4)
	if err := gpu.WriteSlice(off, 0, o.Offsets); err != nil {
		t.Fatal(err)
	}
	if err := gpu.WriteSlice(adj, 0, o.Adj); err != nil {
		t.Fatal(err)
	}
	launch := func(name string, grid uint32, args ...any) error {
		f := &fakeFunc{d: d, name: name}
		return f.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}, 0, args...)
	}
	end, wrk, nitems := alloc(n*8), alloc(n*8), alloc(16) // the item count and the queue counter
	shift := uint32(bits.Len64(n))
	if err := launch(h.Count, 1, off, adj, uint32(n), wrk, nitems, shift, uint64(0), uint32(n), uint32(0)); err != nil {
		t.Fatal(err)
	}
	sums, inoff, csz := alloc(16), alloc((n+1)*8), alloc(n*4)
	for _, k := range []struct {
		name string
		args []any
	}{{h.Sums, []any{wrk, uint32(n), shift, sums}}, {h.Scan, []any{sums, uint32(1)}}} {
		if err := launch(k.name, 1, k.args...); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", what, err, want)
		}
	}
	// Items for one class sized one short (pivots 1, 2 and 3 get an item
	// each).
	expect("bin past the item list's capacity",
		launch(h.Bin, 1, off, end, wrk, uint32(n), uint32(0), sums, uint32(1), inoff, csz, alloc(16), uint64(2), nitems, shift),
		"overflows its capacity")
	// Tails one short (K5 by id has 6 in-edges with a tail): scatter writes
	// past the buffer.
	expect("scatter past the tails", launch(h.Scatter, 1, off, adj, uint32(n), end, alloc(5*8), uint64(0), uint32(n), uint32(0)), "index out of range")
	// A class kernel given an items address outside every buffer.
	if len(d.pv.classes) != 1 {
		t.Fatalf("%d pivot classes", len(d.pv.classes))
	}
	for _, c := range d.pv.classes {
		d.pv.ready = true
		f := &fakeFunc{d: d, name: c.Kernel}
		expect("class kernel with items at address 1",
			f.Launch(gpu.Dim3{X: 4, Y: 1, Z: 1}, gpu.Dim3{X: uint32(c.Block), Y: 1, Z: 1}, uint32(c.DynamicSharedBytes),
				off, adj, inoff, csz, alloc(6*8), uint64(1), nitems.Ptr(), alloc(8), uint64(0), uint32(n), nitems.Ptr()+8),
			"lies in no live buffer")
	}
}

// TestPivotFakePassOnly: with PassOnly a pass records only its own two
// events, counts the same, and reports no class or preparation times.
func TestPivotFakePassOnly(t *testing.T) {
	p, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pg := pivotGraphs(t)[0]
	d := newFakeDevice(t, p, 1<<40)
	res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, pg.g, executor.RunOptions{Repeat: 3, PassOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.CountTriangles(pivotOrient(t, p, pg.g)); res.Triangles != want {
		t.Errorf("%d triangles, want %d", res.Triangles, want)
	}
	if res.PrepKernels != nil || res.PrepMs.Median != 0 {
		t.Errorf("preparation timed: %+v, %+v", res.PrepMs, res.PrepKernels)
	}
	for _, c := range res.PerClass {
		if c.Ms.Median != 0 {
			t.Errorf("class %s timed: %+v", c.Name, c.Ms)
		}
	}
	if res.GPUMs.Median <= 0 || res.KernelMs != res.GPUMs {
		t.Errorf("kernel %+v, pass %+v: want the pass alone", res.KernelMs, res.GPUMs)
	}
}
