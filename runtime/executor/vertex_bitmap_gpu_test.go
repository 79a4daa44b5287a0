package executor_test

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// bissonGreenPlans are the shapes of Bisson's bitmap and Green's merge path
// that the presets alone do not reach on the test graphs: each Bisson
// variant on every graph (the guard picks one), under all three orders; a
// block class with a small shared bitmap, so vertices use both bitmaps; two
// bitmap classes sharing the scratch; merge path at every kind of width and
// on the vertex iterator.
func bissonGreenPlans() []ir.Plan {
	all := ir.Selector{Key: ir.KeyOutDegree}
	bm := func(w, b int, bits int64) ir.Strategy {
		s := ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Bitmap, Width: w, Block: b}
		if bits > 0 {
			s.Params = map[string]int64{ir.ParamBitmapBits: bits}
		}
		return s
	}
	one := func(prefix string, o ir.Orientation, relabel bool, s ir.Strategy) ir.Plan {
		return ir.Plan{Prefix: prefix, Orientation: o, Relabel: relabel, Classes: []ir.Class{{Name: "all", Select: all, Strategy: s}}}
	}
	var ps []ir.Plan
	for _, o := range []struct {
		name    string
		by      ir.Orientation
		relabel bool
	}{{"deg", ir.OrientDegree, false}, {"rel", ir.OrientDegree, true}, {"id", ir.OrientID, false}} {
		ps = append(ps,
			one("bisson_thread_"+o.name, o.by, o.relabel, bm(1, 256, 0)),
			one("bisson_warp_"+o.name, o.by, o.relabel, bm(32, 256, 0)),
			one("bisson_block_"+o.name, o.by, o.relabel, bm(256, 256, 0)),
			one("bisson_smallbm_"+o.name, o.by, o.relabel, bm(1024, 1024, 1<<10)),
			one("green_"+o.name, o.by, o.relabel, ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.MergePath, Width: 32, Block: 512}),
		)
	}
	ps = append(ps,
		ir.Plan{Prefix: "bisson_mixed", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
			{Name: "quad", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2, Hi: 16}, Strategy: bm(4, 128, 0)},
			{Name: "warp", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16, Hi: 300}, Strategy: bm(32, 64, 0)},
			{Name: "block", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 300}, Strategy: bm(512, 512, 1<<12)},
		}},
		one("green_w1", ir.OrientDegree, true, ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.MergePath, Width: 1, Block: 128}),
		one("green_w4", ir.OrientDegree, false, ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.MergePath, Width: 4, Block: 256}),
		one("green_block", ir.OrientID, false, ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.MergePath, Width: 512, Block: 512}),
		one("green_vertex_w8", ir.OrientDegree, true, ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.MergePath, Width: 8, Block: 256}),
		one("green_vertex_block", ir.OrientDegree, false, ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.MergePath, Width: 256, Block: 256}),
	)
	return ps
}

// TestBissonGreenGPU runs bissonGreenPlans on the small graphs and on an
// RMAT graph with more vertices than the default shared bitmap covers (so
// the block class uses both bitmaps), against the oracle.
func TestBissonGreenGPU(t *testing.T) {
	dev, comp := openGPU(t)
	gs := append(smallGraphs(t), mustGraph(t, "rmat19", graph.DefaultRMAT(19)))
	for _, tg := range gs {
		for _, p := range bissonGreenPlans() {
			if res := check(t, dev, comp, p, tg); res != nil {
				t.Logf("%-12s %-28s %12d triangles  kernel %8.3f ms  %d MiB", tg.name, res.Plan, res.Triangles, res.KernelMs.Median, res.DeviceBytes>>20)
			}
		}
	}
}

// TestBissonGreenPlansValid keeps the GPU test's plans valid and
// generatable on machines without a GPU.
func TestBissonGreenPlansValid(t *testing.T) {
	for _, p := range bissonGreenPlans() {
		if !runnable(p) {
			t.Errorf("%s: %v / %v", p.Prefix, p.Validate(), p.CheckGeneratable())
		}
	}
}

// TestCompileBissonGreen compiles, through NVRTC for every architecture of
// compileArchs, both presets, the GPU test's plans and merge-path and
// bitmap classes of every width kind and bitmap size (several classes per
// unit to keep the unit count small).
func TestCompileBissonGreen(t *testing.T) {
	comp := testCompiler(t)
	plans := bissonGreenPlans()
	for _, name := range []string{"bisson", "green"} {
		p, _ := ir.Preset(name)
		plans = append(plans, p)
	}
	for _, blk := range []int{32, 128, 1024} {
		var cs []ir.Class
		lo := int64(0)
		for i, w := range []int{1, 2, 4, 8, 16, 32, blk} {
			for j, s := range []ir.Strategy{
				{Iterator: ir.IterVertex, Intersection: ir.Bitmap, Width: w, Block: blk, Params: map[string]int64{ir.ParamBitmapBits: 1 << (10 + 4*(i%3))}},
				{Iterator: ir.IterVertex, Intersection: ir.MergePath, Width: w, Block: blk},
			} {
				cs = append(cs, ir.Class{Name: fmt.Sprintf("c%d_%d", i, j), Select: ir.Selector{Key: ir.KeyOutDegree, Lo: lo, Hi: lo + 1}, Strategy: s})
				lo++
			}
		}
		cs[len(cs)-1].Select.Hi = 0
		plans = append(plans, ir.Plan{Prefix: fmt.Sprintf("shapes_b%d", blk), Classes: cs})
		var es []ir.Class
		for i, w := range []int{1, 2, 4, 8, 16, 32, blk} {
			es = append(es, ir.Class{Name: fmt.Sprintf("e%d", i), Select: ir.Selector{Key: ir.KeyWork, Lo: int64(i), Hi: int64(i + 1)},
				Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.MergePath, Width: w, Block: blk}})
		}
		es[len(es)-1].Select.Hi = 0
		plans = append(plans, ir.Plan{Prefix: fmt.Sprintf("edges_b%d", blk), Orientation: ir.OrientID, Classes: es})
	}
	for _, p := range plans {
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		for _, arch := range compileArchs {
			tg := gen.DefaultTarget()
			tg.Arch = arch
			out, err := gen.Generate(p, tg)
			if err != nil {
				t.Errorf("%s: %v", p.Prefix, err)
				continue
			}
			if _, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: arch, Options: out.Manifest.Options}); err != nil {
				t.Errorf("%s for %s: %v", out.Manifest.Plan, arch, err)
			}
		}
	}
	t.Logf("compiled %d plans for %v", len(plans), compileArchs)
}
