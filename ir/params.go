package ir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParamSpec declares one tunable of a strategy: its default, what values are
// allowed, and where the default comes from.
type ParamSpec struct {
	Name    string
	Default int64
	// Min and Max bound the value (inclusive).
	Min, Max int64
	// Pow2 requires a power of two (0 is allowed only when Min is 0 and
	// Values lists it).
	Pow2 bool
	// Values, when set, is the complete allowed set (Min/Max still hold).
	Values []int64
	// Enum names the values 0..len(Enum)-1 of an enumerated parameter.
	Enum []string
	// OmitDefault leaves the parameter out of the canonical form while it
	// holds its default, so plans written before it existed keep their
	// names (and their store entries).
	OmitDefault bool
	// Source is the paper and section, or the docs/ measurement, that chose
	// the default.
	Source string
	Doc    string
}

// Allowed reports whether v is a legal value of the parameter.
func (ps ParamSpec) Allowed(v int64) bool {
	if v < ps.Min || v > ps.Max {
		return false
	}
	if len(ps.Values) > 0 {
		return slices.Contains(ps.Values, v)
	}
	if ps.Pow2 && !isPow2(v) {
		return false
	}
	return true
}

// Range describes the allowed values for messages and `tcgen list`, e.g.
// "a power of two in 16..4096" or "one of 0 (interleaved), 1 (contiguous)".
func (ps ParamSpec) Range() string {
	if len(ps.Enum) > 0 {
		parts := make([]string, len(ps.Enum))
		for i, n := range ps.Enum {
			parts[i] = fmt.Sprintf("%d (%s)", i, n)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	if len(ps.Values) > 0 {
		parts := make([]string, len(ps.Values))
		for i, v := range ps.Values {
			parts[i] = strconv.FormatInt(v, 10)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	if ps.Pow2 {
		return fmt.Sprintf("a power of two in %d..%d", ps.Min, ps.Max)
	}
	return fmt.Sprintf("in %d..%d", ps.Min, ps.Max)
}

// EnumName returns the name of an enumerated value, or its decimal form.
func (ps ParamSpec) EnumName(v int64) string {
	if v >= 0 && v < int64(len(ps.Enum)) {
		return ps.Enum[v]
	}
	return strconv.FormatInt(v, 10)
}

func isPow2(v int64) bool { return v > 0 && v&(v-1) == 0 }

// Parameter names. The code generator reads them through Get.
const (
	// binary-search
	ParamLevels = "levels" // edge: top levels of the search tree cached in shared memory
	ParamCache  = "cache"  // vertex: entries of N+(u) cached in shared memory

	// hash
	ParamBuckets  = "buckets"
	ParamSlots    = "slots"
	ParamOverflow = "overflow"
	ParamScheme   = "scheme"
	ParamHop      = "hop"
	ParamCTA      = "cta" // vertex iterator only

	// bitmap
	ParamBitmapBits   = "bitmap_bits"
	ParamBitmapShared = "bitmap_shared"
	// unroll: ParamUnroll (ir/params_pivot_hash.go), a default per pair

	// bitwise
	ParamP1        = "p1"
	ParamP2        = "p2"
	ParamSliceBits = "slice_bits"

	// radix
	ParamRadixBits = "radix_bits"
	ParamThreshold = "threshold"
	ParamBudgetMiB = "budget_mib"

	// edge-chunk
	ParamChunk = "chunk"

	// wedge/binary-search
	ParamSpread      = "spread"
	ParamMatrix      = "matrix"
	ParamMatrixUpper = "matrix_upper"

	// merge
	ParamTile = "tile"
	// ParamMinBlocks: blocks per SM the compiler must fit (registers capped)
	ParamMinBlocks = "min_blocks"
	// ParamResident: a grid of one wave of resident blocks
	ParamResident = "resident"
	ParamReverse  = "reverse"
	// ParamAlign: the merge's lists read from a copy laid out for its tiles
	ParamAlign = "align"
	// ParamTarget: the edge merge's items grouped by their edge's target v
	ParamTarget = "target"
	// ParamBand: target items in bands of the CSR's positions (log2)
	ParamBand = "band"
	// ParamCarry: target items carry N+(v)'s word of the aligned copy
	ParamCarry = "carry"
	// ParamPrefetch: a thread's next items (target edges, vertices) read
	// while it merges one
	ParamPrefetch = "prefetch"
)

// Enumerated parameter values.
const (
	// overflow: how the hash entries past the shared-memory slots are laid
	// out in global memory.
	OverflowInterleaved int64 = 0 // i-th entry of every bucket adjacent (H-INDEX §III)
	OverflowContiguous  int64 = 1 // each bucket's entries adjacent

	// scheme: how collisions are resolved.
	SchemeBuckets   int64 = 0 // bucket lists, linear scan (H-INDEX, TRUST)
	SchemeHopscotch int64 = 1 // lock-free hopscotch trie nodes (Skiff)

	// bitmap_shared: which groups keep their bitmap in shared memory.
	BitmapSharedBlock int64 = 0 // a whole-block group only (Bisson §III-C)
	BitmapSharedGroup int64 = 1 // every group, GROUPS bitmaps per block

	// cta: how threads are organised over vertex items (Skiff §IV-B).
	CTAFixed       int64 = 0 // Width threads per vertex (TRUST)
	CTABlockDegree int64 = 1 // a block per vertex, its warps on 32-edge chunks of N+(u)
	CTABlockIndex  int64 = 2 // a block per BLOCK consecutive edges (a range of vertex indices)
	CTAWarpIndex   int64 = 3 // a warp per 32 consecutive edges: ceil(sum d+/32) warps
)

// SharedLimit is the static shared memory a block may declare without the
// opt-in attribute (48 KiB on every architecture NVRTC targets); Validate
// refuses strategies whose estimate (Strategy.SharedBytes) exceeds it.
const SharedLimit = 48 << 10

// MaxSpread bounds spread (WeTriC takes any): spread 16 was slower than 8
// on each of eleven corpus graphs (H200, 2026-11-27, an earlier form of the
// kernel; docs/results/wedge-search-nvidia-h200), so 32 leaves room to
// search beyond the default's 8 without drawing spreads that only lose.
const MaxSpread = 32

// ReduceSharedBytes is the shared memory every one-launch kernel declares
// besides its class's own: the count reduction's sum per warp (tc::
// finish_count, at most 32 warps of 8 bytes). A class's arrays get the rest.
const ReduceSharedBytes = 32 * 8

// HubCounters is how many of the highest ids an edge iterator's
// per-vertex kernel counts in shared memory, a block's own
// (templates/local.cu.tmpl, hubs_*): on the small skewed graphs the hubs
// close most triangles. 1024 u64 counters are 8 KiB a block, so 16 blocks
// of 128 threads still fit an SM's shared memory; with them BlogCatalog3's
// per-vertex count took 2.3x the total's time instead of 17.9x
// (docs/performance.md, "Local counts").
const HubCounters = 1024

// HubSharedBytes is the shared memory of those counters and the first
// hub's id.
const HubSharedBytes = HubCounters*8 + 8

// Defaults for Width and Block when a spec leaves them out (zero).
const (
	DefaultWidth = 1
	DefaultBlock = 256
)

// WidthSpec and BlockSpec declare the two scheduling fields every strategy
// has. Width may also equal Block (a whole block per item), which the range
// below does not show; Validate checks that relation.
var (
	WidthSpec = ParamSpec{
		Name: "width", Default: DefaultWidth, Min: 1, Max: 32, Pow2: true,
		Source: "Polak (comparative study §III-A): one thread per edge",
		Doc:    "threads that share one item: a power of two up to 32 (a group within a warp), or equal to block (a whole block per item)",
	}
	BlockSpec = ParamSpec{
		Name: "block", Default: DefaultBlock, Min: 32, Max: 1024,
		Source: "tcgen default: 256 threads let 8 blocks share an SM of 2048 threads (compute 7.0, 8.0, 9.0); no seed fixes it for every design",
		Doc:    "threads per CUDA block: a multiple of 32 in 32..1024, at least width",
	}
)

// Param specs, shared between the (iterator, intersection) pairs that use
// them.
var (
	specLevels = ParamSpec{
		Name: ParamLevels, Default: 0, Min: 0, Max: 12,
		Source: "Fox (comparative study §III-E) and GroupTC (§V) search global memory directly; TriCore (§III-D) caches levels, see preset tricore",
		Doc:    "top levels of the longer list's implicit search tree held in shared memory per item (2^levels-1 keys); 0 = no cache",
	}
	specCache = ParamSpec{
		Name: ParamCache, Default: 0, Min: 0, Max: 8192,
		Source: "no cache unless asked: Hu (comparative study §III-F) caches N(u) in shared memory, see preset hu",
		Doc:    "leading entries of N+(u) copied to shared memory per vertex item and searched there; the rest is searched in global memory; 0 = no cache",
	}
	specBuckets = ParamSpec{
		Name: ParamBuckets, Default: 32, Min: 16, Max: 4096, Pow2: true,
		Source: "H-INDEX and TRUST's warp class (comparative study §IV-A, §III-H): 32 buckets",
		Doc:    "hash buckets per item (hash = id & (buckets-1))",
	}
	specSlots = ParamSpec{
		Name: ParamSlots, Default: 4, Min: 1, Max: 32,
		Source: "tcgen default pending a docs/ measurement: H-INDEX (§III) keeps \"the first few elements\" of each bucket in shared memory; 4 slots x 1024 buckets x 4 B = 16 KiB fits TRUST's block class",
		Doc:    "entries per bucket kept in shared memory; later entries spill to global memory",
	}
	specOverflow = ParamSpec{
		Name: ParamOverflow, Default: OverflowInterleaved, Min: 0, Max: 1,
		Enum:   []string{"interleaved", "contiguous"},
		Source: "H-INDEX §III: interleaving buckets lets consecutive threads read adjacent entries (coalesced)",
		Doc:    "layout of the entries past the shared slots in global memory",
	}
	specScheme = ParamSpec{
		Name: ParamScheme, Default: SchemeBuckets, Min: 0, Max: 1,
		Enum:   []string{"buckets", "hopscotch"},
		Source: "H-INDEX §III and TRUST (comparative study §III-H): bucket lists scanned linearly",
		Doc:    "collision handling: bucket lists, or Skiff's lock-free hash trie of hop-slot nodes (CAS only when a node fills), held in buckets*slots words of shared memory per item when it fits, else in global scratch",
	}
	specHop = ParamSpec{
		Name: ParamHop, Default: 32, Min: 4, Max: 32, Pow2: true,
		Source: "Skiff §III-A, §IV-C: node (neighbourhood H) as wide as a warp, 32-way trie",
		Doc:    "hopscotch neighbourhood H (entries per trie node); used when scheme is hopscotch",
	}
	specCTA = ParamSpec{
		Name: ParamCTA, Default: CTAFixed, Min: 0, Max: 3,
		Enum:   []string{"fixed", "block-degree", "block-index", "warp-index"},
		Source: "TRUST (comparative study §III-H): a fixed group (the class width) per vertex",
		Doc:    "thread organisation over vertex items (Skiff §IV-B, gen/hash.go): fixed = width threads per vertex; block-degree = a block per vertex, its warps taking N+(u) 32 edges at a time (width = block); block-index / warp-index = a block / a warp per block / 32 consecutive oriented edges, ceil(sum d+/32) warps over a range of vertex indices (width = block / 32)",
	}
	specBitmapBits = ParamSpec{
		Name: ParamBitmapBits, Default: 1 << 18, Min: 1 << 10, Max: 1 << 18, Pow2: true,
		Source: "Bisson (comparative study §III-C): bitmap in shared memory \"when allowed by size\"; 2^18 bits = 32 KiB fits the 48 KiB static limit",
		Doc:    "ids a shared-memory bitmap covers when a whole block shares the vertex (width == block): a vertex whose N+(u) spans at most this many ids uses it; the others, and groups narrower than the block unless bitmap_shared is group, use the group's n-bit bitmap in global memory (gen/vertex_bitmap.go)",
	}
	specBitmapShared = ParamSpec{
		Name: ParamBitmapShared, Default: BitmapSharedBlock, Min: 0, Max: 1, OmitDefault: true,
		Enum:   []string{"block", "group"},
		Source: "Bisson (comparative study §III-C): only a block per vertex uses shared memory; narrower groups use global bitmaps",
		Doc:    "block = a shared bitmap only when a whole block shares the vertex; group = every group has one of bitmap_bits bits (groups x bitmap_bits / 8 bytes per block), for graphs whose lists span few ids",
	}
	specWalkUnroll = ParamSpec{
		Name: ParamUnroll, Default: 1, Min: 1, Max: 8, OmitDefault: true,
		Source: "Bisson (comparative study §III-C): one 2-hop neighbour per lane at a time",
		Doc:    "positions of the concatenated lists each lane of a team loads before testing them (independent loads in flight; the pivot's unroll and the dense rows' quads in flight likewise)",
	}
	specDenseUnroll = ParamSpec{
		Name: ParamUnroll, Default: 4, Min: 1, Max: 8, Values: []int64{1, 2, 4, 8},
		Source: "docs/performance.md, \"Dense rows\": with one quad per step, threads whose spans meet over hundreds of words wait on a chain of dependent loads; 4 in flight was the best of 1, 2, 4 and 8",
		Doc:    "aligned quads (4 words) of each of the two rows loaded per step of an edge's AND (independent loads in flight)",
	}
	specP1 = ParamSpec{
		Name: ParamP1, Default: 1, Min: 1, Max: 64,
		Source: "TCBW §3.2 partitions only to fit device memory; tcgen default: one partition when the graph fits",
		Doc:    "row partitions of the 2-D split (edge-list blocks are P1 x P1)",
	}
	specP2 = ParamSpec{
		Name: ParamP2, Default: 1, Min: 1, Max: 64,
		Source: "TCBW §3.2 partitions only to fit device memory; tcgen default: one partition when the graph fits",
		Doc:    "column partitions of the 2-D CSR split (CSR blocks are P1 x P2)",
	}
	specSliceBits = ParamSpec{
		Name: ParamSliceBits, Default: 32, Min: 4, Max: 64, Pow2: true,
		Source: "TCBW §3.3 leaves the slice size m free (example m = 4); 32 bits is one __popc per slice",
		Doc:    "bits per slice m: each list becomes (slice index, m-bit mask) pairs, ANDed and popcounted",
	}
	specRadixBits = ParamSpec{
		Name: ParamRadixBits, Default: 2, Min: 1, Max: 8, Values: []int64{1, 2, 3, 4, 5, 6, 7, 8}, // drawn evenly
		Source: "radix binning §I-E, Fig. 1: one bit of u and one of v per level, buckets r0..r3",
		Doc:    "key bits consumed per bucketing level (2^bits child buckets); a candidate's key is its source id above its target id (gen/wedge_radix.go)",
	}
	specThreshold = ParamSpec{
		Name: ParamThreshold, Default: 1024, Min: 1, Max: 1 << 20,
		Source: "radix binning §III-B: thr fixed at 1024",
		Doc:    "bucket size at or below which E' and E are intersected directly instead of bucketed further; at least 2^radix_bits",
	}
	specBudget = ParamSpec{
		Name: ParamBudgetMiB, Default: 0, Min: 0, Max: 1 << 20,
		Source: "tcgen default: E' is generated and counted in batches under a device-memory budget; 0 = half the device memory the graph leaves free at launch",
		Doc:    "device memory (MiB) for one batch of candidate edges E' and its bucketing buffers; 0 = automatic",
	}
	specSpread = ParamSpec{
		Name: ParamSpread, Default: 5, Min: 1, Max: MaxSpread,
		Source: "WeTriC as its authors run it (../shared/peerbench/README.md: -s 5): five wedges per thread amortise the search for a thread's first wedge",
		Doc:    "wedges a thread generates into shared memory (after a binary search of the wedge offsets for the first, the others by stepping); the block then checks them transposed, consecutive threads on consecutive wedges (gen/wedge_search.go)",
	}
	specMatrix = ParamSpec{
		Name: ParamMatrix, Default: 0, Min: 0, Max: 32768, Values: []int64{0, 1024, 2048, 4096, 8192, 16384, 24576, 32768},
		Source: "WeTriC's default without -a (no matrix); ../shared/peerbench runs it with -a 8192, the wetric preset",
		Doc:    "the highest ids whose edges among themselves the host writes into a bit matrix (a row of matrix bits per id, matrix^2 / 8 bytes, above 16384 ids only with matrix_upper, which halves it): a wedge (v, w) among them is one bit lookup instead of a search of N+(v); 0 = none",
	}
	specMatrixUpper = ParamSpec{
		Name: ParamMatrixUpper, Default: 0, Min: 0, Max: 1, Enum: []string{"square", "upper"}, OmitDefault: true,
		Source: "WeTriC: the full square of matrix^2 bits",
		Doc:    "the bit matrix's layout: square (a row of matrix bits per id), or upper (a wedge (v, w) has w > v, so each band of 32 rows keeps its words from the diagonal on: about half the bytes, (matrix/32)(matrix/32 + 1) * 64)",
	}
	specChunk = ParamSpec{
		Name: ParamChunk, Default: 0, Min: 0, Max: 8192,
		Source: "GroupTC (comparative study §V): a block of n threads on n consecutive edges",
		Doc:    "consecutive oriented edges per chunk (one chunk per block); 0 = block size",
	}
)

// specTile: the classic merge (tile 1) makes one dependent load per step,
// so a thread's chain of loads is as long as its two lists; on graphs of a
// few hundred thousand edges every thread is resident at once and the
// longest chains set the kernel time.
var specTile = ParamSpec{
	Name: ParamTile, Default: 1, Min: 1, Max: 8, Values: []int64{1, 4, 8}, OmitDefault: true,
	Source: "Polak (comparative study §III-A): one entry of each list at a time",
	Doc:    "entries of each list a merge holds in registers: aligned tiles read with 16-byte loads, every pair of the two tiles compared, the tile with the smaller last entry replaced (1 = the classic merge)",
}

// specReverse: the edge iterator's items are the CSR's edges in order, and
// after relabelling by degree the heaviest merges (high-degree endpoints)
// come last, so the blocks dispatched last carry the longest chains.
var specReverse = ParamSpec{
	Name: ParamReverse, Default: 0, Min: 0, Max: 1, Enum: []string{"forward", "reverse"}, OmitDefault: true,
	Source: "Polak (comparative study §III-A): a thread per edge in edge order",
	Doc:    "order in which the blocks take the items: forward, or reverse (the last items, the heaviest after relabelling by degree, dispatched first, the light ones filling the tail)",
}

// specMinBlocks: a merge over short lists waits on a chain of dependent
// loads, so the resident threads hide the latency; a second launch bound
// caps the registers so that more blocks fit on each SM (6 of 256 or 12
// of 128 threads: 40 registers; 8 of 256 or 16 of 128: 32).
var specMinBlocks = ParamSpec{
	Name: ParamMinBlocks, Default: 0, Min: 0, Max: 32, Values: []int64{0, 2, 4, 6, 8, 12, 16}, OmitDefault: true,
	Source: "tcgen default: the compiler's own register choice (__launch_bounds__ with the block size alone); 40 registers (12 of 128, 6 of 256) measured 0.97-1.07x the default's tiled merges, 32 (8 of 256) 1.05-1.21x (H200, docs/results/min-blocks/, wedge-target/)",
	Doc:    "blocks per SM the kernel must fit (__launch_bounds__'s second argument, which caps the registers per thread), at most 2048 threads per SM in all; 0 = the compiler's choice",
}

// specResident: a one-launch kernel ends each block with its count's
// reduction (a fence and a ticket); with a block per GROUPS items and
// short lists that epilogue is a large share of a block's time, so a grid
// of one wave of resident blocks, striding over the items, pays it once
// per block.
var specResident = ParamSpec{
	Name: ParamResident, Default: 0, Min: 0, Max: 1, Enum: []string{"off", "on"}, OmitDefault: true,
	Source: "tcgen default: a block per GROUPS items, as every published one-launch design",
	Doc:    "grid: off = a block per GROUPS items; on = one wave of the blocks that fit on the SMs at once, each thread striding over many items",
}

// specAlign: a merge walks the tiles of the global tile grid, so a list of
// d entries at a random position spans up to one tile more than ceil(d /
// tile), each one more step of tile^2 compares; N+(v), read whole, gains
// most (N+(u) after v starts mid-list anyway).
var specAlign = ParamSpec{
	Name: ParamAlign, Default: 0, Min: 0, Max: 2, Enum: []string{"off", "on", "both"}, OmitDefault: true,
	Source: "tcgen default: the lists where the CSR puts them, as every published merge reads them",
	Doc:    "on: N+(v) is read from a copy of the out-lists laid out so that each spans as few tiles as its length allows (a short list inside one tile, a longer one from a tile boundary), built on the device once before the passes (8 bytes a vertex and the lists with their padding, up to 40% more than the lists at tile 8); both: N+(u) read from the copy too, so the merges touch one copy of the lists; needs tile 4 or 8, width 1 and out-degrees below 2^24; ignored under a local output, whose credits need the CSR's positions",
}

// specTarget: a warp's lanes take edges into the same v, so they read one
// N+(v) through L1 instead of 32 different ones (a model of the 32-byte
// sectors a warp touches: 0.45x on cl-4m-g2.5, 0.70x on ba-1m-m8, 0.90x on
// er-1m-8m).
var specTarget = ParamSpec{
	Name: ParamTarget, Default: 0, Min: 0, Max: 1, Enum: []string{"source", "target"}, OmitDefault: true,
	Source: "tcgen default: the CSR's edges grouped by their source u, as every published edge iterator takes them",
	Doc:    "source: the items are the edges in CSR order, grouped by u; target: grouped by v (an explicit list of 8 bytes an edge, each edge's position and the length of N+(u) after v, so the kernel reads neither src nor offsets for u); not with align both; ignored without the id order (the degree order relabelled), where N+(u) after v is not a suffix, and under a local output",
}

// specBand: grouped by v, a warp's N+(u) suffixes lie anywhere in the
// CSR, so on graphs whose lists outgrow L2 each is read from DRAM; in bands
// of the CSR's positions, one band's suffixes stay in L2 while its edges
// run, and each N+(v) is read once a band.
var specBand = ParamSpec{
	Name: ParamBand, Default: 0, Min: 0, Max: 40, OmitDefault: true,
	Source: "tcgen default: one band; bands of 2^21-2^23 measured 0.98-1.08x on the resident merge, and on the tile-4 merge of two Chung-Lu graphs 0.95-0.96x with 2^22, 0.97-1.02x with 2^21 (H200, docs/results/band-nvidia-h200/)",
	Doc:    "0, or 10-40 with target: the items in bands of 2^band CSR positions (N+(u)'s place), the bands in order and each band's edges grouped by target, so the N+(u) suffixes of a band fit in L2 (2^21-2^23 entries, 8-32 MiB); ignored where target is (no id order, a local output); 0 = one band",
}

// specCarry: a thread's first tiles wait on a chain of four loads, its
// item, v = adj[e], v's word of the aligned copy, then the tiles; an item
// that carries the word takes two of them off the chain.
var specCarry = ParamSpec{
	Name: ParamCarry, Default: 0, Min: 0, Max: 1, Enum: []string{"off", "on"}, OmitDefault: true,
	Source: "tcgen default: items of 8 bytes, the edge's position and the length of N+(u) after v, as target items were first laid out",
	Doc:    "on, with target and align on and no prefetch: each target item also carries N+(v)'s word of the aligned copy (items of 16 bytes in place of 8: the 8-byte list is uploaded into the second half of the items' buffer and widened in place on the device once before the passes), so a thread reads its item and then both lists' first tiles, without reading v and its word between; ignored where target is (no id order, a local output)",
}

// specPrefetch: an item's merge waits on a chain of loads before its
// first tile (the item's word, v, N+(v)'s place, then the tiles); a thread
// that strides over many items (resident) can read the next items' words
// while it merges this one, so the chain is the tiles' alone.
var specPrefetch = ParamSpec{
	Name: ParamPrefetch, Default: 0, Min: 0, Max: 2, OmitDefault: true,
	Source: "tcgen default: each item's loads in turn, as every published edge iterator; prefetch 1 and 2 measured 1.01-1.35x slower on the resident merge of six graphs of 16-64 M edges, 0.95x on rgg2d-4m-d12 (H200, docs/results/prefetch/)",
	Doc:    docPrefetch,
}

// docPrefetch is both merges' prefetch: one parameter name, one text.
const docPrefetch = "how far ahead a thread reads its next items while it merges one; 0 = none. " +
	"Edge merge (needs target: 1): 1 = the next item's v and the item after it; 2 = also the next item's place of N+(v) in the aligned copy (needs align: 1). " +
	"Vertex merge (not with align): 1 = the next vertex's N+(u) bounds; 2 = a pipeline of three vertices (the next one's first N+(v) bounds, the one after's first v, the third's N+(u) bounds). " +
	"A local output runs without it. Meant for threads that take many items (resident), and measured slower there (docs/results/prefetch/, mesh-prefetch/)"

// specVertexPrefetch: on short even lists a vertex's merges wait on a
// chain of loads (N+(u)'s bounds, its first v, N+(v)'s bounds, then the
// lists), and the chain, not bandwidth, sets the time; a thread that
// strides over many vertices (resident) can read the next vertices' loads
// while it merges this one.
var specVertexPrefetch = ParamSpec{
	Name: ParamPrefetch, Default: 0, Min: 0, Max: 2, OmitDefault: true,
	Source: "tcgen default: each vertex's loads in turn, as every published vertex iterator",
	Doc:    docPrefetch,
}

// Iterators and Intersections list the enum values in a stable order.
var (
	Iterators     = []Iterator{IterVertex, IterEdge, IterEdgeChunk, IterWedge, IterPivot}
	Intersections = []Intersection{Merge, MergePath, BinarySearch, Hash, Bitmap, Bitwise, Radix}
	Orientations  = []Orientation{OrientDegree, OrientID, OrientTCBW}
	Keys          = []Key{KeyOutDegree, KeyWork}
)

// ParamsFor returns the parameters that apply to the strategy's (iterator,
// intersection) pair, in a stable order; nil for a pair with none or an
// invalid pair. The slice is a copy.
func ParamsFor(s Strategy) []ParamSpec {
	return slices.Clone(s.Pair().params())
}

// Spec returns the named parameter of the strategy's pair.
func Spec(s Strategy, name string) (ParamSpec, bool) {
	for _, ps := range s.Pair().params() {
		if ps.Name == name {
			return ps, true
		}
	}
	return ParamSpec{}, false
}

// Get returns the strategy's value of the named parameter, or its default.
// Derived defaults are resolved: chunk 0 reads as the block size. It panics
// on a name that does not apply to the strategy: that is a generator bug,
// and Validate rejects such names in plans.
func Get(s Strategy, name string) int64 {
	ps, ok := Spec(s, name)
	if !ok {
		panic(fmt.Sprintf("ir.Get: no parameter %q for %s/%s", name, s.Iterator, s.Intersection))
	}
	v, set := s.Params[name]
	if !set {
		v = ps.Default
	}
	if name == ParamChunk && v == 0 {
		v = int64(s.EffectiveBlock())
	}
	return v
}

// EffectiveWidth is Width, or DefaultWidth when left out.
func (s Strategy) EffectiveWidth() int {
	if s.Width == 0 {
		return DefaultWidth
	}
	return s.Width
}

// EffectiveBlock is Block, or DefaultBlock when left out.
func (s Strategy) EffectiveBlock() int {
	if s.Block == 0 {
		return DefaultBlock
	}
	return s.Block
}

// ItemsPerBlock is how many items one block works on at once.
func (s Strategy) ItemsPerBlock() int {
	w := s.EffectiveWidth()
	if w <= 0 {
		return 1
	}
	return max(1, s.EffectiveBlock()/w)
}

// SharedBytes estimates the static shared memory per block the strategy's
// parameters ask for (uint32 vertex ids), excluding small scratch such as
// reduction slots. Validate keeps it within SharedLimit less
// ReduceSharedBytes.
func (s Strategy) SharedBytes() int64 {
	if !s.Pair().Valid() {
		return 0
	}
	items := int64(s.ItemsPerBlock())
	switch {
	case s.Iterator == IterPivot:
		hub := Get(s, ParamHubBits) / 8
		if Get(s, ParamSpill) == SpillGlobal {
			return items * (Get(s, ParamTable) + hub) // the filter; the table is in global memory
		}
		return items * (Get(s, ParamTable)*5 + hub) // u32 slots and an 8-bit filter per slot
	case s.Intersection == Hash:
		// scheme hopscotch keeps buckets*slots entries as well: nodes of hop
		// entries are carved from the same table.
		return items * Get(s, ParamBuckets) * Get(s, ParamSlots) * 4
	case s.Iterator == IterEdge && s.Intersection == BinarySearch:
		return items * ((int64(1) << Get(s, ParamLevels)) - 1) * 4
	case s.Iterator == IterVertex && s.Intersection == BinarySearch:
		return items * Get(s, ParamCache) * 4
	case s.Intersection == Bitmap && s.Iterator == IterVertex:
		if s.EffectiveWidth() == s.EffectiveBlock() || Get(s, ParamBitmapShared) == BitmapSharedGroup {
			return items * Get(s, ParamBitmapBits) / 8
		}
	case s.Iterator == IterWedge && s.Intersection == BinarySearch:
		// Two u32 arrays of a tile's wedges, BLOCK * spread, spaced one
		// word in 32 (gen/wedge_search.go).
		t := int64(s.EffectiveBlock()) * Get(s, ParamSpread)
		return 8 * (t + t/32)
	case s.Intersection == Radix:
		// The scatter's rank counters, (warps + 1) x 2^radix_bits u32, and
		// its cursors, 2^radix_bits u64 (gen/wedge_radix.go): at most 35 KiB.
		d := int64(1) << Get(s, ParamRadixBits)
		return (int64(s.EffectiveBlock()/32)+1)*d*4 + d*8
	}
	return 0
}
