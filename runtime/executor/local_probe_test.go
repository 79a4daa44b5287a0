package executor_test

import (
	"strconv"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/templates"
)

// probePlans are the local plans of the lookup intersections, whose
// kernels find a closing vertex by a table, a bitmap or bit slices
// (templates/local.cu.tmpl, local_probe), each with output o: the presets
// hindex, trust, bisson, skiff and tcbw (every class of a guard), and
// classes of every kernel shape those pairs generate: bucket lists of 1,
// 4 and a block of lanes (the walk of one lane, of a team, of a block)
// with buckets that overflow, Skiff's trie and its organisations, bitmaps
// in shared and global memory, dense rows, bit slices of 8, 32 and 64 bits
// over P1 x P2 blocks, under degree order without relabelling and under id
// order.
func probePlans(t testing.TB, o ir.Output) []ir.Plan {
	t.Helper()
	out := presetsWithOutput(t, o, "hindex", "trust", "bisson", "skiff", "tcbw")
	V, E := ir.IterVertex, ir.IterEdge
	H, B := ir.SchemeHopscotch, ir.SchemeBuckets
	// 16 buckets of 1 slot: most lists overflow into the binary search.
	tiny := map[string]int64{ir.ParamBuckets: 16, ir.ParamSlots: 1}
	plans := []ir.Plan{
		oneClass("local_hash_lane", ir.OrientDegree, false, strat(V, ir.Hash, 1, 128, tiny)),
		oneClass("local_hash_team", ir.OrientID, false, strat(V, ir.Hash, 4, 128, tiny)),
		oneClass("local_hash_block", ir.OrientDegree, true, strat(V, ir.Hash, 128, 128, map[string]int64{ir.ParamBuckets: 64, ir.ParamSlots: 2})),
		oneClass("local_hash_edge", ir.OrientDegree, false, strat(E, ir.Hash, 8, 128, tiny)),
		oneClass("local_hash_edge_block", ir.OrientID, false, strat(E, ir.Hash, 64, 64, nil)),
		oneClass("local_skiff_fixed", ir.OrientDegree, false, strat(V, ir.Hash, 32, 128, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 4, ir.ParamBuckets: 16, ir.ParamSlots: 1})),
		oneClass("local_skiff_lane", ir.OrientID, false, strat(V, ir.Hash, 1, 64, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 4, ir.ParamBuckets: 16, ir.ParamSlots: 8})),
		oneClass("local_skiff_block_degree", ir.OrientDegree, true, strat(V, ir.Hash, 256, 256, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockDegree, ir.ParamHop: 16, ir.ParamBuckets: 1024, ir.ParamSlots: 8})),
		oneClass("local_skiff_block_index", ir.OrientDegree, true, strat(V, ir.Hash, 128, 128, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 512, ir.ParamSlots: 8})),
		oneClass("local_skiff_buckets_warp_index", ir.OrientID, false, strat(V, ir.Hash, 32, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTAWarpIndex})),
		oneClass("local_skiff_buckets_block_index", ir.OrientDegree, false, strat(V, ir.Hash, 256, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 256})),
		oneClass("local_skiff_edge", ir.OrientDegree, true, strat(E, ir.Hash, 32, 256, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 8, ir.ParamBuckets: 128, ir.ParamSlots: 4})),
		oneClass("local_skiff_edge_lanes", ir.OrientID, false, strat(E, ir.Hash, 8, 128, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 4, ir.ParamBuckets: 16, ir.ParamSlots: 1})),
		oneClass("local_bitmap_lane", ir.OrientID, false, strat(V, ir.Bitmap, 1, 128, nil)),
		oneClass("local_bitmap_team", ir.OrientDegree, false, strat(V, ir.Bitmap, 8, 128, map[string]int64{ir.ParamUnroll: 3})),
		// A shared bitmap of 1024 ids: the hubs' lists span more and use the global one.
		oneClass("local_bitmap_block", ir.OrientDegree, true, strat(V, ir.Bitmap, 256, 256, map[string]int64{ir.ParamBitmapBits: 1024, ir.ParamUnroll: 2})),
		oneClass("local_bitmap_group", ir.OrientDegree, true, strat(V, ir.Bitmap, 32, 64, map[string]int64{ir.ParamBitmapBits: 2048, ir.ParamBitmapShared: ir.BitmapSharedGroup})),
		oneClass("local_dense", ir.OrientDegree, true, strat(E, ir.Bitmap, 1, 128, map[string]int64{ir.ParamReverse: 1, ir.ParamUnroll: 1})),
		oneClass("local_dense_id", ir.OrientID, false, strat(E, ir.Bitmap, 1, 256, nil)),
		oneClass("local_bitwise_parts", ir.OrientTCBW, true, strat(E, ir.Bitwise, 4, 128, map[string]int64{ir.ParamP1: 3, ir.ParamP2: 5, ir.ParamSliceBits: 64})),
		oneClass("local_bitwise_id", ir.OrientID, false, strat(E, ir.Bitwise, 1, 128, map[string]int64{ir.ParamP2: 2, ir.ParamSliceBits: 8})),
		oneClass("local_bitwise_block", ir.OrientDegree, false, strat(E, ir.Bitwise, 128, 128, map[string]int64{ir.ParamP1: 2})),
	}
	return append(out, withOutput(t, o, plans)...)
}

// kernelUsage compiles p for sm_90 with ptxas's verbose log and returns
// each kernel's registers and spill-store bytes.
func kernelUsage(t *testing.T, p ir.Plan) (regs, spills map[string]int, out *gen.Output) {
	t.Helper()
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	res, err := testCompiler(t).CompileAll(gpu.CompileInput{Name: out.FileName, Source: out.Source,
		Headers: templates.Headers(), Arch: "sm_90", Options: append(append([]string(nil), gen.Options...), "-Xptxas", "-v")})
	if err != nil {
		t.Fatal(err)
	}
	regs, spills = map[string]int{}, map[string]int{}
	fn := ""
	for _, m := range ptxasUsage.FindAllStringSubmatch(res.Log, -1) {
		switch {
		case m[1] != "":
			fn = m[1]
		case m[2] != "":
			spills[fn], _ = strconv.Atoi(m[2])
		case m[3] != "":
			regs[fn], _ = strconv.Atoi(m[3])
		}
	}
	return regs, spills, out
}

// TestLocalProbeOccupancy: the local kernels of the lookup presets keep
// most of their totals' resident warps, which hide the probes' latency:
// the credits run on hits only and must not take the loops' registers.
// The bounds are what NVRTC 11.8 gives: TCBW's and H-INDEX's per-edge
// kernels hold 48 warps where the totals hold 64 (3/4), and ptxas spills
// up to 28 bytes more beside the credit branches (Bisson's warp class per
// edge), so 32 bytes more than the total are allowed.
func TestLocalProbeOccupancy(t *testing.T) {
	for _, name := range []string{"hindex", "trust", "bisson", "skiff", "tcbw"} {
		p, _ := ir.Preset(name)
		total, totalSpill, out := kernelUsage(t, p)
		for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
			q, err := p.WithOutput(o)
			if err != nil {
				t.Fatal(err)
			}
			local, localSpill, lout := kernelUsage(t, q)
			eachKernelPair(out, lout, func(_, _ int, tk, lk string, block int) {
				tw, lw := residentWarps(total[tk], block), residentWarps(local[lk], block)
				if lw < tw*3/4 || localSpill[lk] > totalSpill[tk]+32 {
					t.Errorf("%s output %s: kernel %s: %d registers (%d warps per SM), %d bytes spilled; the total's %d registers (%d warps), %d bytes",
						name, o, lk, local[lk], lw, localSpill[lk], total[tk], tw, totalSpill[tk])
				}
				t.Logf("%-6s %-6s %-32s registers %3d -> %3d, spills %3d -> %3d bytes", name, o, lk, total[tk], local[lk], totalSpill[tk], localSpill[lk])
			})
		}
	}
}
