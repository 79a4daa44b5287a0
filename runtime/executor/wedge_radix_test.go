package executor_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The wedge/radix tests run the executor's radix path (runtime/executor/wedge_radix.go)
// on the fake device, whose phase kernels are the Go mirror of the CUDA ones
// (wedge_radix_fake_test.go), and compare every count with graph.Oracle.

func TestRadixUnrankPair(t *testing.T) {
	check := func(d, k uint64) {
		t.Helper()
		a, b := rxUnrankPair(d, k)
		if !(a < b && b < d && rxPairsBefore(a, d) <= k && k < rxPairsBefore(a+1, d) && b == a+1+k-rxPairsBefore(a, d)) {
			t.Fatalf("d %d k %d: pair (%d, %d)", d, k, a, b)
		}
	}
	for d := uint64(2); d <= 300; d++ {
		// Every pair, in row-major order.
		k := uint64(0)
		for a := uint64(0); a < d; a++ {
			for b := a + 1; b < d; b++ {
				if ga, gb := rxUnrankPair(d, k); ga != a || gb != b {
					t.Fatalf("d %d k %d: (%d, %d), want (%d, %d)", d, k, ga, gb, a, b)
				}
				k++
			}
		}
		if k != d*(d-1)/2 || rxPairsBefore(d-1, d) != k {
			t.Fatalf("d %d: %d pairs, pairs_before(d-1) = %d", d, k, rxPairsBefore(d-1, d))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		d := 2 + rng.Uint64N(1<<32-2)
		if rng.IntN(4) == 0 {
			d = 2 + rng.Uint64N(1<<20)
		}
		total := d * (d - 1) / 2
		for _, k := range []uint64{0, total - 1, rng.Uint64N(total), total - 1 - rng.Uint64N(min(total, d))} {
			check(d, k)
		}
	}
}

// radixPlan is one wedge/radix class over every vertex.
func radixPlan(prefix string, o ir.Orientation, relabel bool, block int, params map[string]int64) ir.Plan {
	return ir.Plan{Prefix: prefix, Orientation: o, Relabel: relabel, Classes: []ir.Class{{
		Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
		Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: block, Params: params},
	}}}
}

// radixPlans: the preset, both other orders (id; unrelabelled degree, which
// takes E from a second, id-ordered CSR), every radix width, thresholds
// from 1 up, blocks that are not powers of two, and hybrids in which the
// wedge class takes part of the vertices.
func radixPlans() []ir.Plan {
	pre, _ := ir.Preset("radixbin")
	ps := []ir.Plan{
		pre,
		radixPlan("rx_id", ir.OrientID, false, 256, nil),
		radixPlan("rx_degree", ir.OrientDegree, false, 128, nil),
		radixPlan("rx_b1_t2", ir.OrientDegree, true, 64, map[string]int64{ir.ParamRadixBits: 1, ir.ParamThreshold: 2}),
		radixPlan("rx_b3_t9", ir.OrientID, false, 96, map[string]int64{ir.ParamRadixBits: 3, ir.ParamThreshold: 9}),
		radixPlan("rx_b5_t32", ir.OrientDegree, false, 1024, map[string]int64{ir.ParamRadixBits: 5, ir.ParamThreshold: 32}),
		radixPlan("rx_b8_t256", ir.OrientDegree, true, 32, map[string]int64{ir.ParamRadixBits: 8, ir.ParamThreshold: 256}),
		radixPlan("rx_b4_big", ir.OrientID, false, 160, map[string]int64{ir.ParamRadixBits: 4, ir.ParamThreshold: 1 << 20, ir.ParamBudgetMiB: 1}),
		{
			Prefix: "rx_mixed", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
				{Name: "hash", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 256}},
				{Name: "wedge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamRadixBits: 2, ir.ParamThreshold: 16}}},
			},
		},
		{
			Prefix: "rx_mixed2", Orientation: ir.OrientDegree,
			Classes: []ir.Class{
				{Name: "wedge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamRadixBits: 6, ir.ParamThreshold: 64}}},
				{Name: "edge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16, Hi: 40},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 256}},
				{Name: "wedge2", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 40},
					Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 64,
						Params: map[string]int64{ir.ParamRadixBits: 2, ir.ParamThreshold: 1024}}},
			},
		},
		{
			Prefix: "rx_guard", Orientation: ir.OrientID,
			Guard: &ir.Guard{Feature: ir.FeatureAvgOutDeg, Variants: []ir.Variant{
				{Lo: 0, Hi: 6, Classes: []ir.Class{{Name: "wedge", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 128}}}},
				{Lo: 6, Classes: []ir.Class{{Name: "wedge", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterWedge, Intersection: ir.Radix, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamRadixBits: 7, ir.ParamThreshold: 130}}}}},
			}},
		},
	}
	return ps
}

func genGraph(t *testing.T, name string, g graph.Generator) testGraph {
	t.Helper()
	return mustGraph(t, name, g)
}

// radixGraphs: random graphs sparse and dense, a hub (under id order its
// out-list holds every other vertex; TestRadixFakeHub has a larger one),
// cliques, wheels, stars, grids, bipartite graphs (no triangle) and a graph
// of one edge.
func radixGraphs(t *testing.T) []testGraph {
	one, _, err := graph.FromPairs([][2]uint64{{3, 9}})
	if err != nil {
		t.Fatal(err)
	}
	return []testGraph{
		genGraph(t, "er300", graph.ErdosRenyi{N: 300, M: 3000, Seed: 1}),
		genGraph(t, "er2000", graph.ErdosRenyi{N: 2000, M: 20000, Seed: 2}),
		genGraph(t, "er150dense", graph.ErdosRenyi{N: 150, M: 8000, Seed: 3}),
		genGraph(t, "rmat12", graph.DefaultRMAT(12)),
		hubGraph(t, 3000, 9000, 4),
		genGraph(t, "k60", graph.Complete{N: 60}),
		genGraph(t, "wheel700", graph.Wheel{Rim: 700}),
		genGraph(t, "star500", graph.Star{Leaves: 500}),
		genGraph(t, "griddiag", graph.Grid{Rows: 30, Cols: 40, Diagonals: true}),
		genGraph(t, "bipartite", graph.CompleteBipartite{A: 30, B: 40}),
		{name: "oneedge", g: one, want: 0},
	}
}

// runRadixFake runs p on g through the fake device and checks the count,
// that everything was freed, and, for one wedge class over every vertex,
// that the batches cover the wedges. It returns the slot-0 class's batches
// and levels.
func runRadixFake(t *testing.T, p ir.Plan, tg testGraph, mem uint64) (batches, levels uint64) {
	t.Helper()
	return runRadixFakeN(t, p, tg, mem, 1)
}

// runRadixFakeN is runRadixFake with repeat passes (the executor checks
// that they count the same).
func runRadixFakeN(t *testing.T, p ir.Plan, tg testGraph, mem uint64, repeat int) (batches, levels uint64) {
	t.Helper()
	d := newFakeDevice(t, p, mem)
	comp := &fakeCompiler{}
	ctx := context.Background()
	pr, err := executor.Prepare(ctx, d, comp, p, tg.g, executor.RunOptions{})
	if err != nil {
		t.Fatalf("%s on %s: %v", p.Prefix, tg.name, err)
	}
	res, err := pr.Run(ctx, executor.RunOptions{Repeat: repeat})
	if err != nil {
		pr.Close()
		t.Fatalf("%s on %s: %v", p.Prefix, tg.name, err)
	}
	var capacity uint64
	if rs := res.PerClass[0].Radix; rs != nil {
		capacity, batches, levels = rs.Capacity, rs.Batches, rs.Levels
	}
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Triangles != tg.want {
		t.Errorf("%s (%s) on %s: %d triangles, want %d: %+v", p.Prefix, res.Plan, tg.name, res.Triangles, tg.want, res.PerClass)
	}
	if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 {
		t.Errorf("%s on %s: %d buffers, %d modules, %d timers left", p.Prefix, tg.name, len(d.live), d.loaded, d.timers)
	}
	if len(p.Classes) == 1 && p.Guard == nil {
		wedges := wedgesOf(p, tg.g)
		want := uint64(0)
		if wedges > 0 {
			want = (wedges + capacity - 1) / capacity
		}
		if batches != want {
			t.Errorf("%s on %s: %d batches of %d for %d wedges, want %d", p.Prefix, tg.name, batches, capacity, wedges, want)
		}
	}
	return batches, levels
}

// wedgesOf is sum C(d+(u), 2) over the vertices of g oriented as p's
// first class list says (for the batch counts of the tests).
func wedgesOf(p ir.Plan, g *graph.Graph) uint64 {
	by := graph.ByDegree
	if p.Orientation == ir.OrientID {
		by = graph.ByID
	}
	o := graph.Orient(g, by, false)
	var w uint64
	for u := range o.N() {
		d := o.Degree(uint32(u))
		w += d * (d - 1) / 2
	}
	return w
}

// TestRadixFake runs every plan of radixPlans on every graph of
// radixGraphs in one batch, about 3 and about 40 (the cap need not divide
// the wedges, so batches end inside vertices).
func TestRadixFake(t *testing.T) {
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(0))
	for _, tg := range radixGraphs(t) {
		for _, p := range radixPlans() {
			w := wedgesOf(p, tg.g)
			for i, parts := range []uint64{1, 3, 40} {
				executor.SetRadixMaxBatch(max(1, w/parts+parts/2))
				runRadixFakeN(t, p, tg, 1<<40, 2-min(i, 1))
			}
		}
	}
}

// TestRadixFakeHub: a hub of degree 12000 under id order, whose out-list
// holds every other vertex: 72e6 wedges of one vertex, in 5 batches.
func TestRadixFakeHub(t *testing.T) {
	if !radixLarge() {
		t.Skip("72e6 candidates through the Go mirror of the kernels: set TCGEN_RADIX_LARGE=1")
	}
	tg := genGraph(t, "hub12000", graph.Hub{Leaves: 12000, Extra: 40000, Seed: 5})
	ps := radixPlans()
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(0))
	for _, p := range []ir.Plan{ps[1], ps[4]} {
		executor.SetRadixMaxBatch(wedgesOf(p, tg.g)/5 + 1)
		if b, _ := runRadixFake(t, p, tg, 1<<40); b != 5 {
			t.Errorf("%s: %d batches", p.Prefix, b)
		}
	}
}

// TestRadixFakeOneCandidate runs batches of a single candidate: every
// batch is a root leaf.
func TestRadixFakeOneCandidate(t *testing.T) {
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(1))
	for _, tg := range []testGraph{
		genGraph(t, "k25", graph.Complete{N: 25}),
		genGraph(t, "er100", graph.ErdosRenyi{N: 100, M: 600, Seed: 9}),
	} {
		for _, p := range radixPlans()[:4] {
			if b, _ := runRadixFake(t, p, tg, 1<<40); b < 100 {
				t.Errorf("%s on %s: %d batches", p.Prefix, tg.name, b)
			}
		}
	}
}

// TestRadixFakeLevels checks that the bucketing goes deep with one bit per
// level and threshold 2 on a dense graph: 120 vertices take 7 bits, keys 14;
// a bucket of two keys or fewer has at most 2 edges, so it is a leaf at
// level 13 at the latest.
func TestRadixFakeLevels(t *testing.T) {
	tg := genGraph(t, "k120", graph.Complete{N: 120})
	p := radixPlan("rx_deep", ir.OrientID, false, 64, map[string]int64{ir.ParamRadixBits: 1, ir.ParamThreshold: 2})
	d := newFakeDevice(t, p, 1<<40)
	pr, err := executor.Prepare(context.Background(), d, &fakeCompiler{}, p, tg.g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	res, err := pr.Run(context.Background(), executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := res.PerClass[0].Radix
	if res.Triangles != tg.want || rs.Batches != 1 || rs.MaxLevel != 13 || rs.Levels != 13 || rs.Wedges != 120*119*118/6 {
		t.Errorf("k120: %d triangles (want %d), %+v", res.Triangles, tg.want, rs)
	}
}

// TestRadixFakeDatasets runs the preset and both other orders on every
// shared dataset, in several batches.
func TestRadixFakeDatasets(t *testing.T) {
	dir := datasetDir()
	if dir == "" {
		t.Skip("no datasets found (set TCGEN_DATASETS)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Skipf("no datasets in %s", dir)
	}
	ps := radixPlans()
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(0))
	for _, f := range files {
		g, _, err := graph.Open(f, graph.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tg := testGraph{name: filepath.Base(f), g: g, want: graph.Oracle(g)}
		// The preset and E from a second CSR everywhere; id order (up to
		// 6.5e7 wedges) and one bit per level with threshold 2 (deep)
		// where they take seconds, not minutes, in Go.
		plans := []ir.Plan{ps[0], ps[2]}
		if radixLarge() || wedgesOf(ps[1], g) < 5e6 {
			plans = append(plans, ps[1])
		}
		if radixLarge() || wedgesOf(ps[3], g) < 1e6 {
			plans = append(plans, ps[3])
		}
		for i, p := range plans {
			// About a third of the wedges per batch: three or four
			// batches, ending inside vertices.
			w := wedgesOf(p, g)
			executor.SetRadixMaxBatch(max(1, w/3+uint64(i)))
			if b, _ := runRadixFake(t, p, tg, 1<<40); w > 2 && b < 3 {
				t.Errorf("%s on %s: %d batches", p.Prefix, tg.name, b)
			}
		}
	}
}

// radixLarge: TCGEN_RADIX_LARGE=1 adds the runs of a minute or more
// (RMAT-18, a hub of degree 12000 under id order).
func radixLarge() bool { return os.Getenv("TCGEN_RADIX_LARGE") == "1" }

// TestRadixFakeRMAT runs the preset on RMAT-16 (and RMAT-18 with
// TCGEN_RADIX_LARGE=1) under small budgets, so that the bucketing runs many
// batches.
func TestRadixFakeRMAT(t *testing.T) {
	scales := []int{16}
	if radixLarge() {
		scales = append(scales, 18)
	}
	for _, s := range scales {
		tg := mustGraph(t, fmt.Sprintf("rmat%d", s), graph.DefaultRMAT(s))
		for _, mib := range []int64{16, 1} {
			if s == 18 && mib == 1 {
				continue // 200e6 wedges in 60e3-candidate batches: minutes in Go
			}
			p := radixPlan(fmt.Sprintf("rx_rmat_%dmib", mib), ir.OrientDegree, true, 256, map[string]int64{ir.ParamBudgetMiB: mib})
			b, l := runRadixFake(t, p, tg, 1<<40)
			t.Logf("rmat%d, budget %d MiB: %d batches, %d levels", s, mib, b, l)
			if b < 5 {
				t.Errorf("rmat%d: %d batches", s, b)
			}
		}
	}
}

// TestRadixFakeBudget: an explicit budget beyond the device is refused
// before anything is allocated; the automatic one takes half of what the
// graph leaves; both only allocate what the graph's wedges need.
func TestRadixFakeBudget(t *testing.T) {
	tg := genGraph(t, "rmat14", graph.DefaultRMAT(14))
	mem := uint64(256<<20 + 64<<20) // the headroom and 64 MiB
	p := radixPlan("rx_big", ir.OrientID, false, 256, map[string]int64{ir.ParamBudgetMiB: 1 << 20})
	d := newFakeDevice(t, p, mem)
	_, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, tg.g, executor.RunOptions{})
	var tl *executor.TooLargeError
	if !errors.As(err, &tl) || d.allocs != 0 {
		t.Fatalf("1 TiB budget on 64 MiB: %v, %d allocations", err, d.allocs)
	}
	// The same budget on a graph whose wedges need little memory runs.
	small := genGraph(t, "er300", graph.ErdosRenyi{N: 300, M: 3000, Seed: 1})
	runRadixFake(t, p, small, mem)
	// Automatic: half of the 64 MiB at most, so several batches.
	auto := radixPlan("rx_auto", ir.OrientID, false, 256, nil)
	d = newFakeDevice(t, auto, mem)
	pr, err := executor.Prepare(context.Background(), d, &fakeCompiler{}, auto, tg.g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pr.Run(context.Background(), executor.RunOptions{})
	pr.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rs := res.PerClass[0].Radix; res.Triangles != tg.want || res.DeviceBytes > mem-256<<20 || rs.Bytes > 32<<20 || rs.Capacity*16 > rs.Bytes || rs.Batches < 2 {
		t.Errorf("auto budget: %+v, %+v", res, rs)
	}
}

// TestRadixRandomPlans runs random plans that hold a wedge/radix class.
func TestRadixRandomPlans(t *testing.T) {
	gs := []testGraph{
		hubGraph(t, 4200, 9000, 7),
		genGraph(t, "rmat10", graph.DefaultRMAT(10)),
		genGraph(t, "er400dense", graph.ErdosRenyi{N: 400, M: 20000, Seed: 8}),
	}
	rng := rand.New(rand.NewPCG(42, 0))
	n := 0
	for n < 40 {
		p := ir.RandomPlan(rng)
		if !runnable(p) || !strings.Contains(fmt.Sprint(p.Classes), string(ir.IterWedge)) {
			continue
		}
		n++
		for _, tg := range gs {
			d := newFakeDevice(t, p, 1<<40)
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, tg.g, executor.RunOptions{})
			if err != nil {
				t.Fatalf("%+v on %s: %v", p, tg.name, err)
			}
			if res.Triangles != tg.want {
				t.Errorf("%+v on %s: %d triangles, want %d", p, tg.name, res.Triangles, tg.want)
			}
		}
	}
}

// TestRadixManifest: the class lists its phases, each with its own
// arguments, and the tiles the host needs.
func TestRadixManifest(t *testing.T) {
	p, _ := ir.Preset("radixbin")
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	c := out.Manifest.Variants[0].Classes[0]
	if c.Radix == nil || len(c.Radix.Phases) != 9 || c.Radix.Phases[0].Kernel != c.Kernel || c.Radix.Phases[0].Phase != gen.PhaseGenerate {
		t.Fatalf("phases %+v", c.Radix)
	}
	for _, h := range c.Radix.Phases {
		if !strings.Contains(out.Source, "\n"+h.Kernel+"(") || len(h.Args) == 0 {
			t.Errorf("phase %s: kernel %s not in the source or no args", h.Phase, h.Kernel)
		}
	}
}
