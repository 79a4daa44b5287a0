package gen

import "github.com/tcgen/tcgen/ir"

// Bisson (comparative study §III-C): a group per vertex u sets one bit per
// entry of N+(u) in a bitmap, then probes every 2-hop neighbour w (w in
// N+(v), v in N+(u)) against it, and clears the bits it set
// (templates/isect_bitmap.cu.tmpl, templates/iter_bisson.cu.tmpl).
//
// Where the bitmap lives. It is indexed by w - min N+(u), so it must cover
// the span max N+(u) - min N+(u) + 1 of the vertex's list:
//
//   - A class with a whole block per vertex (width == block, Bisson's block
//     case) declares a shared bitmap of bitmap_bits bits and uses it for
//     every vertex whose span fits ("when allowed by size", §III-C); the
//     others use the block's global bitmap. With bitmap_shared group, every
//     group of a narrower class has its own shared bitmap likewise (small
//     graphs, where a warp's bitmap of all ids fits in a few KiB).
//   - Every group owns a bitmap of n bits in global memory (gen.Scratch, one
//     bit per vertex), enough for any span. n bits per group is what a
//     bitmap of ids costs; what bounds it is the number of groups: the grid
//     is capped at the blocks an SM can hold at once (residentThreadsPerSM /
//     block per SM) and the executor lowers it further until the bitmaps fit
//     the free device memory. The kernel strides over its vertices by the
//     grid, so the cap changes the parallelism only. (A windowed bitmap over
//     [min, max] of N+(u) needs as many bits in the worst case, a hub whose
//     list spans the graph, so it would bound nothing; the window is used
//     for indexing, which lets the shared bitmap serve every vertex whose
//     list is clustered, as relabelled graphs' lists often are.)
//
// The global bitmaps are zeroed once by the executor; each vertex clears
// only the words holding its own bits, so every bitmap is zero again
// between vertices and after the kernel (Scratch.Zeroed).
type bitmapData struct {
	Bits   int  // BITMAP_BITS: ids a shared bitmap covers (bitmap_bits)
	Shared bool // width == block or bitmap_shared group: the group's shared bitmap serves vertices whose span fits
	Unroll int  // UNROLL: positions a team lane loads before testing them (unroll)
}

// residentThreadsPerSM is the most threads an SM holds at once on compute
// capability 8.0 and 9.0; the per-group bitmaps are needed for resident
// groups only, so the grid of a bitmap class is capped at
// residentThreadsPerSM / block blocks per SM (on 8.6 and 8.9, 1536 threads,
// the extra blocks wait for a free slot).
const residentThreadsPerSM = 2048

// lowerVertexBitmap fills a vertex/bitmap class; bitmap_bits is a power of
// two of at least 2^10, so whole u32 (and u64) words.
func lowerVertexBitmap(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	bits := ir.Get(s, ir.ParamBitmapBits)
	cd.isectPartial, cd.iterPartial = "bitmap", "bisson"
	bd := &bitmapData{
		Bits:   int(bits),
		Shared: cd.Width == cd.Block || ir.Get(s, ir.ParamBitmapShared) == ir.BitmapSharedGroup,
		Unroll: int(ir.Get(s, ir.ParamUnroll)),
	}
	if bd.Shared {
		cd.GroupWords = int(bits / 32) // one u32 word per 32 ids per group
	}
	cd.Bitmap = bd
	cd.BlocksPerSM = max(1, residentThreadsPerSM/cd.Block)
	mc.Scratch = &Scratch{Groups: cd.Groups, BitsPerVertex: 1, Zeroed: true}
}
