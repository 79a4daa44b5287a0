package executor_test

import (
	"context"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// skiffGPUPlans are Skiff's organisations and schemes on the GPU (the preset
// runs with the other presets): every cta value over the trie and over
// TRUST's bucket lists, every hop, widths from a lane to a block, shared
// parts from too small for any table (every trie in the global scratch) to
// large, and the trie on edges; each under degree order relabelled and
// under id order (hubs first: lists of thousands).
func skiffGPUPlans() []ir.Plan {
	H, B := ir.SchemeHopscotch, ir.SchemeBuckets
	type shape struct {
		name   string
		it     ir.Iterator
		w, blk int
		params map[string]int64
	}
	shapes := []shape{
		{"warpidx_h4_tiny", ir.IterVertex, 32, 64, map[string]int64{"scheme": H, "cta": ir.CTAWarpIndex, "hop": 4, "buckets": 16, "slots": 1}},
		{"warpidx_h16", ir.IterVertex, 32, 512, map[string]int64{"scheme": H, "cta": ir.CTAWarpIndex, "hop": 16, "buckets": 128, "slots": 4}},
		{"blockidx_h16", ir.IterVertex, 128, 128, map[string]int64{"scheme": H, "cta": ir.CTABlockIndex, "hop": 16, "buckets": 1024, "slots": 8}},
		{"blockidx_32", ir.IterVertex, 32, 32, map[string]int64{"scheme": H, "cta": ir.CTABlockIndex, "buckets": 16, "slots": 2}},
		{"blockdeg_h8", ir.IterVertex, 256, 256, map[string]int64{"scheme": H, "cta": ir.CTABlockDegree, "hop": 8, "buckets": 32, "slots": 4}},
		{"blockdeg_1024", ir.IterVertex, 1024, 1024, map[string]int64{"scheme": H, "cta": ir.CTABlockDegree, "buckets": 2048, "slots": 4}},
		{"fixed_1_h4", ir.IterVertex, 1, 64, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "hop": 4, "buckets": 16, "slots": 4}},
		{"fixed_4_h8", ir.IterVertex, 4, 64, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "hop": 8}},
		{"fixed_16", ir.IterVertex, 16, 128, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "buckets": 16, "slots": 2}},
		{"fixed_block", ir.IterVertex, 512, 512, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "buckets": 1024, "slots": 4}},
		{"buckets_warpidx", ir.IterVertex, 32, 128, map[string]int64{"scheme": B, "cta": ir.CTAWarpIndex, "buckets": 32, "slots": 2}},
		{"buckets_blockidx", ir.IterVertex, 256, 256, map[string]int64{"scheme": B, "cta": ir.CTABlockIndex, "buckets": 64, "slots": 1}},
		{"buckets_blockdeg", ir.IterVertex, 128, 128, map[string]int64{"scheme": B, "cta": ir.CTABlockDegree, "buckets": 128, "slots": 2}},
		{"edge_32", ir.IterEdge, 32, 128, map[string]int64{"scheme": H, "buckets": 32, "slots": 4}},
		{"edge_1_h8", ir.IterEdge, 1, 32, map[string]int64{"scheme": H, "hop": 8, "buckets": 16, "slots": 1}},
		{"edge_block", ir.IterEdge, 256, 256, map[string]int64{"scheme": H, "hop": 16, "buckets": 256, "slots": 4}},
	}
	var ps []ir.Plan
	for _, sh := range shapes {
		for _, o := range []ir.Orientation{ir.OrientDegree, ir.OrientID} {
			ps = append(ps, ir.Plan{Prefix: fmt.Sprintf("skiff_%s_%s", sh.name, o), Orientation: o, Relabel: o == ir.OrientDegree,
				Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: sh.it, Intersection: ir.Hash, Width: sh.w, Block: sh.blk, Params: sh.params}}}})
		}
	}
	return ps
}

// TestExecGPUSkiff runs skiffGPUPlans on the small graphs, RMAT 18 and a hub
// of degree 20000 (id order: an out-list of 20000, a trie in global memory)
// and compares each count with the oracle.
func TestExecGPUSkiff(t *testing.T) {
	dev, comp := openGPU(t)
	graphs := append(smallGraphs(t), mustGraph(t, "rmat18", graph.DefaultRMAT(18)), hubGraph(t, 20000, 60000, 9))
	for _, p := range skiffGPUPlans() {
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		for _, tg := range graphs {
			if res := check(t, dev, comp, p, tg); res != nil && testing.Verbose() {
				t.Logf("%-12s %-36s %12d triangles  kernel %8.3f ms", tg.name, p.Prefix, res.Triangles, res.KernelMs.Median)
			}
		}
	}
}

// TestExecFakeSkiff runs skiffGPUPlans through the executor on the fake
// device (the CPU computation each kernel stands for): the index
// organisations' edge lists and src, the scratch and the launch shapes.
func TestExecFakeSkiff(t *testing.T) {
	gs := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"er":     graph.ErdosRenyi{N: 300, M: 6000, Seed: 3},
		"star":   graph.Star{Leaves: 100},
	}
	for name, gg := range gs {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, p := range skiffGPUPlans() {
			d := newFakeDevice(t, p, 1<<40)
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 2})
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Prefix, name, err)
			}
			if res.Triangles != want {
				t.Errorf("%s on %s: %d triangles, want %d", p.Prefix, name, res.Triangles, want)
			}
			if len(d.live) != 0 {
				t.Errorf("%s on %s: %d buffers left", p.Prefix, name, len(d.live))
			}
		}
	}
}
