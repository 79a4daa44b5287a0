package executor_test

import (
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// sortedPlans are the local plans of the merge path and of the binary
// searches of the edge chunks and the vertex iterator, whose kernels walk
// or search the sorted lists and so know both adj positions of a match,
// each with output o: the presets green, grouptc and hu, merge paths of 1,
// 4, 32 and a block of lanes per edge and per vertex, edge chunks shorter
// than the block, of the block and of several stages, vertex walks of 1,
// 8, 32 and a block of lanes with and without a cache of N+(u) (lists
// longer than it too), under degree order without relabelling (whole
// lists, not the part after v), relabelled (hubs at the highest ids) and
// under id order, and classes of the pairs split by out-degree.
func sortedPlans(t testing.TB, o ir.Output) []ir.Plan {
	t.Helper()
	out := presetsWithOutput(t, o, "green", "grouptc", "hu")
	V, E, C := ir.IterVertex, ir.IterEdge, ir.IterEdgeChunk
	MP, BS := ir.MergePath, ir.BinarySearch
	chunk := func(n int64) map[string]int64 { return map[string]int64{ir.ParamChunk: n} }
	cache := func(n int64) map[string]int64 { return map[string]int64{ir.ParamCache: n} }
	plans := []ir.Plan{
		oneClass("local_path_edge_lane", ir.OrientDegree, false, strat(E, MP, 1, 128, nil)),
		oneClass("local_path_edge_w4", ir.OrientID, false, strat(E, MP, 4, 128, nil)),
		oneClass("local_path_edge_block", ir.OrientDegree, true, strat(E, MP, 128, 128, nil)),
		oneClass("local_path_vertex_lane", ir.OrientDegree, true, strat(V, MP, 1, 256, nil)),
		oneClass("local_path_vertex_w8", ir.OrientID, false, strat(V, MP, 8, 128, nil)),
		oneClass("local_path_vertex_w32", ir.OrientDegree, false, strat(V, MP, 32, 256, nil)),
		oneClass("local_path_vertex_block", ir.OrientDegree, true, strat(V, MP, 256, 256, nil)),
		// A chunk of 40 edges staged in one step by 64 threads (keys spread
		// over fewer edges than threads), one of 1000 in 8 steps of 128.
		oneClass("local_chunk_small", ir.OrientDegree, false, strat(C, BS, 64, 64, chunk(40))),
		oneClass("local_chunk_stages", ir.OrientDegree, true, strat(C, BS, 128, 128, chunk(1000))),
		oneClass("local_chunk_id", ir.OrientID, false, strat(C, BS, 32, 32, chunk(0))),
		oneClass("local_search_vertex_lane", ir.OrientDegree, false, strat(V, BS, 1, 128, nil)),
		oneClass("local_search_vertex_w8", ir.OrientID, false, strat(V, BS, 8, 128, cache(16))),
		oneClass("local_search_vertex_w32", ir.OrientDegree, true, strat(V, BS, 32, 256, cache(64))),
		oneClass("local_search_vertex_block", ir.OrientDegree, true, strat(V, BS, 256, 256, nil)),
		oneClass("local_search_vertex_block_id", ir.OrientID, false, strat(V, BS, 128, 128, cache(32))),
		{Prefix: "local_path_chunk_mixed", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "skip", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 1}, Skip: true},
			{Name: "light", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 1, Hi: 8}, Strategy: strat(C, BS, 256, 256, chunk(512))},
			{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8, Hi: 64}, Strategy: strat(E, MP, 32, 256, nil)},
			{Name: "heavy", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 64}, Strategy: strat(V, BS, 256, 256, cache(256))},
		}},
	}
	return append(out, withOutput(t, o, plans)...)
}

// TestCompileLocalSorted compiles sortedPlans' kernels, per vertex and per
// edge, for each architecture of compileArchs (TestCompileAll compiles
// them too, among every other plan).
func TestCompileLocalSorted(t *testing.T) {
	comp := testCompiler(t)
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		for _, p := range sortedPlans(t, o) {
			for _, arch := range compileArchs {
				tg := gen.DefaultTarget()
				tg.Arch = arch
				out, err := gen.Generate(p, tg)
				if err != nil {
					t.Errorf("%s (%s): %v", p.Prefix, o, err)
					continue
				}
				img, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: arch, Options: out.Manifest.Options})
				if err != nil || len(img.Data) == 0 {
					t.Errorf("%s (%s) for %s: %v", p.Prefix, o, arch, err)
				}
			}
		}
	}
}

// TestLocalSortedOccupancy: sortedPlans' local kernels spill nothing
// (kernelRegs fails on a local plan's spill) and keep at least three
// quarters of their totals' resident warps on sm_90, which hide the
// merges' and searches' chains of dependent loads. NVRTC 11.8 gives the
// edge chunks the total's registers; a merge path per edge (the credit
// branch in its loop) 36 to 40 registers where the total takes 32 (48
// warps of 64), one lane per vertex 42 or 43 where it takes 40 (40 warps
// of 48); the vertex binary search's walks 37 to 40 where the total takes
// 32 (48 of 64) and 47 or 48 where it takes 40 (40 of 48).
func TestLocalSortedOccupancy(t *testing.T) {
	for _, p := range sortedPlans(t, ir.OutputVertex) {
		tp := p.Clone()
		tp.Output = ir.OutputTotal
		total, out := kernelRegs(t, tp, 0)
		for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
			q := p.Clone()
			q.Output = o
			local, lout := kernelRegs(t, q, 0)
			eachKernelPair(out, lout, func(_, ci int, tk, lk string, block int) {
				tw, lw := residentWarps(total[tk], block), residentWarps(local[lk], block)
				if lw < tw*3/4 {
					t.Errorf("%s output %s: kernel %s: %d registers, %d warps per SM; the total's %d registers, %d warps",
						p.Prefix, o, lk, local[lk], lw, total[tk], tw)
				}
				t.Logf("%-24s %-6s class %d: registers %3d -> %3d, warps per SM %2d -> %2d", p.Prefix, o, ci, total[tk], local[lk], tw, lw)
			})
		}
	}
}
