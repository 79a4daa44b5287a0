package executor_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/tests/gputest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
)

// openGPU opens device 0 (or skips: tests/gputest) and NVRTC.
func openGPU(t *testing.T) (*cuda.Device, gpu.Compiler) {
	t.Helper()
	opts := cuda.Options{NVRTCPath: gputest.NVRTCPath()}
	dev := gputest.Open(t, func() (*cuda.Device, error) { return cuda.Open(0, opts) })
	comp, err := cuda.NewCompiler(opts)
	if err != nil {
		t.Fatalf("a GPU but no NVRTC: %v", err)
	}
	t.Logf("device %+v, NVRTC %v", dev.Facts(), comp.Path())
	return dev, &memoCompiler{inner: comp, cache: map[string]gpu.Image{}}
}

// memoCompiler compiles each source once per architecture: the tests run
// every plan on many graphs.
type memoCompiler struct {
	inner gpu.Compiler
	mu    sync.Mutex
	cache map[string]gpu.Image
}

func (c *memoCompiler) Version() (int, int) { return c.inner.Version() }

func (c *memoCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	key := in.Arch + "\x00" + strings.Join(in.Options, " ") + "\x00" + in.Source
	c.mu.Lock()
	defer c.mu.Unlock()
	if img, ok := c.cache[key]; ok {
		return img, nil
	}
	img, err := c.inner.Compile(in)
	if err == nil {
		c.cache[key] = img
	}
	return img, err
}

type testGraph struct {
	name string
	g    *graph.Graph
	want uint64
}

func mustGraph(t *testing.T, name string, gen graph.Generator) testGraph {
	t.Helper()
	g, _, err := graph.Generate(gen)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return testGraph{name: name, g: g, want: graph.Oracle(g)}
}

// hubGraph is an Erdos-Renyi graph on 1..n plus vertex 0 joined to all of
// them: a hub of degree n that id order makes the first vertex, so under id
// orientation its out-list holds every other vertex.
func hubGraph(t *testing.T, n, m uint64, seed uint64) testGraph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	pairs := make([][2]uint64, 0, n+m)
	for v := uint64(1); v <= n; v++ {
		pairs = append(pairs, [2]uint64{0, v})
	}
	for range m {
		pairs = append(pairs, [2]uint64{1 + rng.Uint64N(n), 1 + rng.Uint64N(n)})
	}
	g, _, err := graph.FromPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	return testGraph{name: fmt.Sprintf("hub%d+er%d", n, m), g: g, want: graph.Oracle(g)}
}

// smallGraphs covers sparse and dense random graphs, skewed RMAT graphs,
// hubs under both orientations and lists longer than any shared table.
func smallGraphs(t *testing.T) []testGraph {
	gs := []testGraph{
		mustGraph(t, "er2000", graph.ErdosRenyi{N: 2000, M: 20000, Seed: 1}),
		mustGraph(t, "er300dense", graph.ErdosRenyi{N: 300, M: 30000, Seed: 2}),
		mustGraph(t, "rmat12", graph.DefaultRMAT(12)),
		mustGraph(t, "rmat16", graph.DefaultRMAT(16)),
		mustGraph(t, "wheel5000", graph.Wheel{Rim: 5000}),
		mustGraph(t, "star3000", graph.Star{Leaves: 3000}),
		mustGraph(t, "k1500", graph.Complete{N: 1500}),
		hubGraph(t, 40000, 200000, 3),
	}
	return gs
}

// specPlans are user-style hybrids: two intersections and widths split by
// out-degree (the README's example), a non-id-ordered mix, edge chunks
// larger than the block, a guard, and a hash table past 48 KiB of shared
// memory with one slot per bucket (most probes overflow).
func specPlans() []ir.Plan {
	return []ir.Plan{
		{
			Prefix: "spec_merge_hash", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "thread", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 256}},
				{Name: "warp", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 256}},
			},
		},
		{ // edges grouped by target (targetitems.go): a subset of the edges in each class; N+(v) from the
			// copy in the first two, the first on resident blocks reading its next items ahead (prefetch
			// 2), the second the default's skew class in bands of 2^10 positions, its items carrying
			// N+(v)'s word (carry), the third in id order reading ahead without the copy (prefetch 1)
			Prefix: "spec_target", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "short", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 4},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1, ir.ParamAlign: 1, ir.ParamTarget: 1, ir.ParamResident: 1, ir.ParamPrefetch: 2}}},
				{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 4, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamReverse: 1, ir.ParamAlign: 1, ir.ParamTarget: 1, ir.ParamBand: 10, ir.ParamCarry: 1}}},
				{Name: "long", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamTarget: 1, ir.ParamPrefetch: 1}}},
			},
		},
		{ // the default's classes on an H200 that carry N+(v)'s word: the resident tile-8 merge and the
			// tile-4 merge a block per 128 edges, on a subset of the edges each
			Prefix: "spec_carry_resident", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "short", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 6},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1, ir.ParamAlign: 1, ir.ParamTarget: 1, ir.ParamResident: 1, ir.ParamCarry: 1}}},
				{Name: "long", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 6},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamReverse: 1, ir.ParamAlign: 1, ir.ParamTarget: 1, ir.ParamCarry: 1}}},
			},
		},
		{ // vertex merges reading the next vertices ahead (iter_vertex's vertex_prefetch) on a subset of
			// the vertices each: the three-stage pipeline on resident blocks, the next bounds with groups
			// of 4 lanes, each lane its own first v
			Prefix: "spec_vertex_prefetch", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "short", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamResident: 1, ir.ParamPrefetch: 2}}},
				{Name: "long", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 4, Block: 128,
						Params: map[string]int64{ir.ParamResident: 1, ir.ParamPrefetch: 1}}},
			},
		},
		{ // the same without the id order (N+(u) whole for each v), tile-4 merges
			Prefix: "spec_vertex_prefetch_unordered", Orientation: ir.OrientDegree,
			Classes: []ir.Class{
				{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamResident: 1, ir.ParamPrefetch: 2}}},
			},
		},
		{ // N+(v) from the aligned copy, laid out for both tiles (aligned.go); the vertex class reads N+(u) there too
			Prefix: "spec_aligned", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "edge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1, ir.ParamAlign: 1}}},
				{Name: "vertex", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamAlign: 2}}},
			},
		},
		{ // the other values: both lists for the edges, N+(v) alone for the vertices
			Prefix: "spec_aligned_swap", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "edge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamAlign: 2}}},
				{Name: "vertex", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamAlign: 1}}},
			},
		},
		{ // the same, unordered ids (N+(u) whole for each v), both lists from the copy
			Prefix: "spec_aligned_unordered", Orientation: ir.OrientDegree,
			Classes: []ir.Class{
				{Name: "vertex", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamAlign: 2}}},
				{Name: "edge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamAlign: 2}}},
			},
		},
		{
			Prefix: "spec_unordered", Orientation: ir.OrientDegree,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
				{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2, Hi: 64},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 4, Block: 128}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 64},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Hash, Width: 128, Block: 128,
						Params: map[string]int64{ir.ParamBuckets: 256, ir.ParamSlots: 2}}},
			},
		},
		{
			Prefix: "spec_chunk_hu", Orientation: ir.OrientID,
			Classes: []ir.Class{
				{Name: "chunk", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterEdgeChunk, Intersection: ir.BinarySearch, Width: 256, Block: 256,
						Params: map[string]int64{ir.ParamChunk: 600}}},
				{Name: "hu", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.BinarySearch, Width: 8, Block: 64,
						Params: map[string]int64{ir.ParamCache: 64}}},
			},
		},
		{
			Prefix: "spec_guard", Orientation: ir.OrientDegree, Relabel: true,
			Guard: &ir.Guard{Feature: ir.FeatureAvgOutDeg, Variants: []ir.Variant{
				{Lo: 0, Hi: 8, Classes: []ir.Class{{Name: "merge", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 4, Block: 128}}}},
				{Lo: 8, Classes: []ir.Class{{Name: "levels", Select: ir.Selector{Key: ir.KeyWork},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 16, Block: 128,
						Params: map[string]int64{ir.ParamLevels: 5}}}}},
			}},
		},
		{
			// Local ids take TCBW's order and its bit slices, the rest the
			// degree order: the orientation follows the variant.
			Prefix: "spec_guard_orient", Orientation: ir.OrientDegree, Relabel: true,
			Guard: &ir.Guard{Feature: ir.FeatureWords, Variants: []ir.Variant{
				{Lo: 0, Hi: 0.4, Orientation: ir.OrientTCBW, Classes: []ir.Class{{Name: "bits", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitwise, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamP1: 1, ir.ParamP2: 1, ir.ParamSliceBits: 32}}}}},
				{Lo: 0.4, Classes: []ir.Class{{Name: "merge", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8}}}}},
			}},
		},
		{
			Prefix: "spec_dynshared", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
				Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 1024,
					Params: map[string]int64{ir.ParamBuckets: 256, ir.ParamSlots: 1}}}},
		},
	}
}

// runnable: the generator implements the plan and package graph its
// orientation (TCBW's is not there yet).
func runnable(p ir.Plan) bool {
	return gen.Check(p) == nil
}

func generatablePresets() []ir.Plan {
	var ps []ir.Plan
	for _, p := range ir.Presets() {
		if gen.Check(p) == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// check runs p on tg and compares with the oracle.
func check(t *testing.T, dev gpu.Device, comp gpu.Compiler, p ir.Plan, tg testGraph) *executor.Result {
	t.Helper()
	return checkRuns(t, dev, comp, p, tg, 2, false)
}

// checkRuns is check with repeat timed runs; with fitOnly a plan that does
// not fit in the GPU's memory is logged and skipped (nil), not an error.
func checkRuns(t *testing.T, dev gpu.Device, comp gpu.Compiler, p ir.Plan, tg testGraph, repeat int, fitOnly bool) *executor.Result {
	t.Helper()
	res, err := executor.Run(context.Background(), dev, comp, p, tg.g, executor.RunOptions{Repeat: repeat})
	if fitOnly && errors.Is(err, executor.ErrTooLarge) {
		t.Logf("%s on %s skipped: %v", p.Prefix, tg.name, err)
		return nil
	}
	if err != nil {
		t.Errorf("%s on %s: %v", p.Prefix, tg.name, err)
		return nil
	}
	var sum uint64
	for _, c := range res.PerClass {
		sum += c.Triangles
	}
	if res.Triangles != tg.want || sum != tg.want {
		var per []string
		for _, c := range res.PerClass {
			per = append(per, fmt.Sprintf("%s=%d (%d items)", c.Name, c.Triangles, c.Items))
		}
		t.Errorf("%s (%s) on %s: %d triangles, want %d; per class: %s", p.Prefix, res.Plan, tg.name, res.Triangles, tg.want, strings.Join(per, ", "))
	}
	if repeat > 1 && !res.Graph && !strings.Contains(res.GraphError, "wedge/radix") {
		t.Errorf("%s on %s: the passes after the first were not replayed as a CUDA graph: %s", p.Prefix, tg.name, res.GraphError)
	}
	if res.Device.Name == "" || (tg.want > 0 && res.KernelMs.Median <= 0) {
		t.Errorf("%s on %s: no device name or kernel time: %+v", p.Prefix, tg.name, res)
	}
	return res
}

// TestExecGPU runs every generatable preset and the hybrid specs on small
// graphs and compares each count with the CPU oracle.
func TestExecGPU(t *testing.T) {
	dev, comp := openGPU(t)
	plans := append(generatablePresets(), specPlans()...)
	for _, tg := range smallGraphs(t) {
		for _, p := range plans {
			if res := check(t, dev, comp, p, tg); res != nil {
				t.Logf("%-12s %-22s v%d %12d triangles  kernel %8.3f ms  copy %7.3f ms", tg.name, res.Plan, res.Variant, res.Triangles, res.KernelMs.Median, res.CopyMs)
			}
		}
	}
}

// TestExecGPURandomPlans runs seeded random plans (TCGEN_PLAN_SEED replays
// another sample) on a skewed and a dense graph.
func TestExecGPURandomPlans(t *testing.T) {
	dev, comp := openGPU(t)
	seed := uint64(7)
	if s := os.Getenv("TCGEN_PLAN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	t.Logf("random plans from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	gs := []testGraph{
		mustGraph(t, "rmat14", graph.DefaultRMAT(14)),
		mustGraph(t, "er400dense", graph.ErdosRenyi{N: 400, M: 40000, Seed: 5}),
		hubGraph(t, 20000, 50000, 6),
	}
	for i := 0; i < 40; {
		p := ir.RandomPlan(rng)
		if !runnable(p) {
			continue
		}
		i++
		for _, tg := range gs {
			check(t, dev, comp, p, tg)
		}
	}
}

// datasetDir is where the shared datasets are (tests/gputest), or "".
func datasetDir() string {
	d, err := gputest.DatasetsDir()
	if err != nil {
		return ""
	}
	return d
}

// TestExecGPUDatasets runs every generatable preset and the specs on every
// shared dataset.
func TestExecGPUDatasets(t *testing.T) {
	dev, comp := openGPU(t)
	dir := datasetDir()
	if dir == "" {
		if gputest.Required() {
			t.Fatal("no datasets: set TCGEN_DATASETS")
		}
		t.Skip("no datasets found (set TCGEN_DATASETS)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no datasets in %s", dir)
	}
	plans := append(generatablePresets(), specPlans()...)
	for _, f := range files {
		g, _, err := graph.Open(f, graph.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		tg := testGraph{name: filepath.Base(f), g: g, want: graph.Oracle(g)}
		for _, p := range plans {
			if res := check(t, dev, comp, p, tg); res != nil {
				t.Logf("%-28s %-22s %12d triangles  kernel %8.3f ms", tg.name, res.Plan, res.Triangles, res.KernelMs.Median)
			}
		}
	}
}

// TestExecGPULarge runs the three presets of issue 3 on RMAT graphs of the
// scales in TCGEN_RMAT_SCALES (e.g. "18 20 22"); skipped when unset.
func TestExecGPULarge(t *testing.T) {
	scales := strings.Fields(os.Getenv("TCGEN_RMAT_SCALES"))
	if len(scales) == 0 {
		t.Skip("set TCGEN_RMAT_SCALES (e.g. \"18 20 22\") to run the large RMAT check")
	}
	dev, comp := openGPU(t)
	plans := append(generatablePresets(), specPlans()[0])
	// For comparison: GroupTC over the degree order, TRUST with 8 slots.
	if p, ok := ir.Preset("grouptc"); ok {
		p.Prefix, p.Orientation, p.Relabel = "grouptc_degree", ir.OrientDegree, true
		plans = append(plans, p)
	}
	if p, ok := ir.Preset("trust"); ok {
		p = p.Clone()
		p.Prefix = "trust_slots8"
		for i := range p.Classes {
			if p.Classes[i].Params != nil {
				p.Classes[i].Params[ir.ParamSlots] = 8
			}
		}
		plans = append(plans, p)
	}
	for _, s := range scales {
		scale, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		tg := mustGraph(t, "rmat"+s, graph.DefaultRMAT(scale))
		for _, p := range plans {
			if res := check(t, dev, comp, p, tg); res != nil {
				var per []string
				for _, c := range res.PerClass {
					if !c.Skip {
						per = append(per, fmt.Sprintf("%s %d items %.3f ms", c.Name, c.Items, c.Ms.Median))
					}
				}
				t.Logf("%-8s %-22s %14d triangles  kernel %9.3f ms  copy %8.3f ms  src %7.3f ms  [%s]", tg.name, res.Plan, res.Triangles, res.KernelMs.Median, res.CopyMs, res.SrcMs, strings.Join(per, "; "))
			}
		}
	}
}

// TestExecGPUOrientationCheck: the device check of an oriented file's
// arcs (templates/check_lists.cu), for every orientation, packed or not:
// RMAT-14's file counts exactly; with an arc reversed or stored both ways
// it gets the error reading the file gives.
func TestExecGPUOrientationCheck(t *testing.T) {
	dev, comp := openGPU(t)
	g, _, err := graph.Generate(graph.DefaultRMAT(14))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	path := filepath.Join(t.TempDir(), "o.tcsr")
	for _, by := range []graph.Orientation{graph.ByID, graph.ByDegree} {
		for _, relabel := range []bool{false, true} {
			p, o := orientPlan(t, by, relabel), graph.Orient(g, by, relabel)
			for _, packed := range []bool{false, true} {
				count := func(c graph.CSR) (*executor.Result, error) {
					meta := graph.CacheMeta{Orientation: by, Relabelled: relabel, Packed: packed}
					if err := graph.WriteCSR(path, &graph.Graph{CSR: c}, meta); err != nil {
						t.Fatal(err)
					}
					fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
					if err != nil {
						t.Fatal(err)
					}
					return executor.Run(context.Background(), dev, comp, p, nil, executor.RunOptions{Oriented: graph.FileOriented(fg, rep)})
				}
				if res, err := count(o.CSR); err != nil || res.Triangles != want {
					t.Fatalf("by %s, relabel %v, packed %v: %v, %v triangles, want %d", by, relabel, packed, err, res, want)
				}
				for _, both := range []bool{false, true} {
					res, err := count(reverseArc(o, both))
					_, _, wantErr := graph.ReadCSR(path)
					if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
						t.Fatalf("by %s, relabel %v, packed %v, an arc reversed (both ways %v): %v (%v), want %v", by, relabel, packed, both, err, res, wantErr)
					}
				}
			}
		}
	}
}

// TestExecGPUDeferredCheck: an oriented CSR file read with its list checks
// deferred is checked on the device after the upload (upload.go): a
// sound file counts exactly, and files whose lists are bad under a valid
// checksum (out of order, an id past n, a self loop, anywhere in the
// section) get the error reading the file would give, before any count.
func TestExecGPUDeferredCheck(t *testing.T) {
	dev, comp := openGPU(t)
	for _, packed := range []bool{false, true} { // packed: unpacked on the device (tcgen_unpack24)
		t.Run(map[bool]string{false: "words", true: "packed"}[packed], func(t *testing.T) { testExecGPUDeferredCheck(t, dev, comp, packed) })
	}
}

func testExecGPUDeferredCheck(t *testing.T, dev gpu.Device, comp gpu.Compiler, packed bool) {
	g, _, err := graph.Generate(graph.DefaultRMAT(14))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	o := graph.Orient(g, graph.ByDegree, true)
	spec, err := examples.FS.ReadFile("pivot.yaml") // embedded: the test binary runs anywhere
	if err != nil {
		t.Fatal(err)
	}
	pivot, err := ir.Parse(spec, "examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "o.tcsr")
	count := func(adj []uint32) (*executor.Result, error) {
		if err := graph.WriteCSR(path, &graph.Graph{CSR: graph.CSR{Offsets: o.Offsets, Adj: adj}},
			graph.CacheMeta{Orientation: graph.ByDegree, Relabelled: true, Packed: packed}); err != nil {
			t.Fatal(err)
		}
		fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		return executor.Run(context.Background(), dev, comp, pivot, nil, executor.RunOptions{Oriented: graph.FileOriented(fg, rep)})
	}
	if res, err := count(o.Adj); err != nil || res.Triangles != want {
		t.Fatalf("sound file: %v, %v triangles, want %d", err, res, want)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, bad := range []string{"out of order", "past n", "self loop"} {
		for range 3 {
			adj := append([]uint32(nil), o.Adj...)
			v := r.IntN(o.N())
			for o.Offsets[v+1]-o.Offsets[v] < 2 {
				v = r.IntN(o.N())
			}
			lo, hi := o.Offsets[v], o.Offsets[v+1]
			e := lo + uint64(r.IntN(int(hi-lo)))
			switch bad {
			case "out of order":
				adj[lo], adj[lo+1] = adj[lo+1], adj[lo]
			case "past n": // 24 bits hold it: RMAT-14
				adj[e] = uint32(o.N()) + uint32(r.IntN(5))
			case "self loop":
				adj[lo] = uint32(v)
			}
			res, err := count(adj)
			_, _, wantErr := graph.ReadCSR(path)
			if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%s at vertex %d: %v (%v), want %v", bad, v, err, res, wantErr)
			}
		}
	}
}

// highIndexPlans are the plans run at high indices: every generatable
// preset, the hybrid specs, every built-in example plan (the pivot and
// dense families among them) and a seeded sample of random plans.
func highIndexPlans(t *testing.T) []ir.Plan {
	plans := append(generatablePresets(), specPlans()...)
	for _, name := range examples.Names(examples.Plans) {
		data, err := examples.FS.ReadFile(name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := ir.Parse(data, "examples/"+name+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	// Local outputs: the per-edge counters are indexed by edge too.
	for _, out := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		for _, p := range plans[:len(plans):len(plans)] {
			if p.Output != ir.OutputTotal && p.Output != "" {
				continue
			}
			if lp, err := p.WithOutput(out); err == nil && lp.Name() != p.Name() {
				plans = append(plans, lp)
			}
		}
	}
	rng := rand.New(rand.NewPCG(32, 0))
	for n := len(plans) + 12; len(plans) < n; {
		if p := ir.RandomPlan(rng); runnable(p) {
			plans = append(plans, p)
		}
	}
	return plans
}

// TestExecGPUHighIndex runs highIndexPlans with RunOptions.IndexBase 2^32
// on a skewed and a dense graph: every kernel reads adj[off[v]] and src[e]
// at indices above 2^32, where an index kept in 32 bits reads 2^32 entries
// off (highindex.go), and the counts must be the oracle's.
func TestExecGPUHighIndex(t *testing.T) {
	dev, comp := openGPU(t)
	for _, tg := range []testGraph{
		mustGraph(t, "rmat14", graph.DefaultRMAT(14)),
		mustGraph(t, "er400dense", graph.ErdosRenyi{N: 400, M: 40000, Seed: 5}),
	} {
		for _, p := range highIndexPlans(t) {
			res, err := executor.Run(context.Background(), dev, comp, p, tg.g, executor.RunOptions{Repeat: 1, IndexBase: 1 << 32})
			if err != nil {
				t.Errorf("%s on %s: %v", p.Prefix, tg.name, err)
				if errors.Is(err, executor.ErrDeviceLost) {
					t.FailNow() // every later launch fails too
				}
				continue
			}
			if res.Triangles != tg.want {
				t.Errorf("%s (%s) on %s at index base 2^32: %d triangles, want %d", p.Prefix, res.Plan, tg.name, res.Triangles, tg.want)
			}
		}
	}
}
