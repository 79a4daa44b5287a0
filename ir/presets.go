package ir

// The twelve published designs of DESIGN.md, and WeTriC's, as Plans. Numbers
// come from the seed papers under shared/seeds; where a seed leaves a number
// open the Doc says so and the value is tcgen's default (params.go gives its
// source).
//
// Papers: the comparative study (Li et al., shared/seeds/comparative-study-
// grouptc.txt) for polak, green, bisson, tricore, fox, hu, trust, grouptc;
// h-index-hashing.txt, skiff-lockfree-hash.txt, tcbw-bitwise.txt and
// radix-binning.txt for the next four; wetric from WeTriC's public code as
// ../shared/peerbench runs it (Euro-Par 2025, DESIGN.md's "Beyond the seeds").

func all(key Key) Selector { return Selector{Key: key, Lo: 0} }

func one(name string, sel Selector, s Strategy) Class {
	return Class{Name: name, Select: sel, Strategy: s}
}

// presetList returns the presets in the order `tcgen list` shows them.
func presetList() []Plan {
	return append(mergeSearchPresets(), hashAndOtherPresets()...)
}

// mergeSearchPresets: polak and green (merges), bisson (bitmap), tricore,
// fox and hu (binary search).
func mergeSearchPresets() []Plan {
	return []Plan{
		{
			Prefix: "polak",
			Doc: "Polak (comparative study §III-A): edge iterator, one thread per edge, sequential merge of N+(u) and N+(v); " +
				"vertices ordered by degree (TCBW §4.2: \"Adam et al. uses vertex sorting by the size of vertex degree\"). Block size not given: tcgen default.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdge, Intersection: Merge, Width: 1, Block: 256,
			})},
		},
		{
			Prefix: "green",
			Doc: "Green (comparative study §III-B): edge iterator, merge-path partitioned merge with the same number of threads for every edge; " +
				"§IV program configuration: blockSize 512 and 32 threads per intersection (\"optimal in most cases\").",
			Orientation: OrientDegree,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdge, Intersection: MergePath, Width: 32, Block: 512,
			})},
		},
		{
			Prefix: "bisson",
			Doc: "Bisson (comparative study §III-C): vertex iterator, bitmap of N(u) probed with each 2-hop list; " +
				"one thread per vertex when the average out-degree is below 3.8, a warp between 3.8 and 38, a block above 38 " +
				"(bitmap in shared memory when it fits). Block size not given: tcgen default.",
			Orientation: OrientDegree,
			Guard: &Guard{
				Feature: FeatureAvgOutDeg,
				Variants: []Variant{
					{Lo: 0, Hi: 3.8, Classes: []Class{one("thread", all(KeyOutDegree), Strategy{
						Iterator: IterVertex, Intersection: Bitmap, Width: 1, Block: 256,
					})}},
					{Lo: 3.8, Hi: 38, Classes: []Class{one("warp", all(KeyOutDegree), Strategy{
						Iterator: IterVertex, Intersection: Bitmap, Width: 32, Block: 256,
					})}},
					{Lo: 38, Classes: []Class{one("block", all(KeyOutDegree), Strategy{
						Iterator: IterVertex, Intersection: Bitmap, Width: 256, Block: 256,
						Params: map[string]int64{ParamBitmapBits: 1 << 18},
					})}},
				},
			},
		},
		{
			Prefix: "tricore",
			Doc: "TriCore (comparative study §III-D): edge iterator, a warp per edge, each neighbour of the shorter list searched in the longer one, " +
				"top levels of the search tree in shared memory \"as many as allowed\": 48 KiB per block (§IV) over 8 warps = 6 KiB per warp = 2^10-1 keys.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdge, Intersection: BinarySearch, Width: 32, Block: 256,
				Params: map[string]int64{ParamLevels: 10},
			})},
		},
		{
			Prefix: "fox",
			Doc: "Fox (comparative study §III-E): edge iterator, binary search (reported faster than merge, §IV), edges binned by estimated work " +
				"min * ceil(log2(max+1)) into six bins of exponentially increasing work, 2^n threads per edge in bin n (at most 32). " +
				"The seeds do not give the cut points: bin n holds work in [32*2^n, 32*2^(n+1)) (bin 0 from 0, bin 5 unbounded), " +
				"so a thread of bins 1..4 does 32..64 units and work varies less than 2x inside a bin, as the study describes.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes:     FoxClasses(6, 32, 256),
		},
		{
			Prefix: "hu",
			Doc: "Hu (comparative study §III-F, Algorithm 1): vertex iterator, a block per vertex, threads stride evenly over all 2-hop neighbours " +
				"and binary-search each in N(u), whose leading entries are cached in shared memory (as many as fit; 4096 ids = 16 KiB). " +
				"Block size not given: tcgen default.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterVertex, Intersection: BinarySearch, Width: 256, Block: 256,
				Params: map[string]int64{ParamCache: 4096},
			})},
		},
	}
}

// hashAndOtherPresets: hindex and trust (hashing), grouptc (edge chunks),
// skiff (hash trie), tcbw (bit slices) and radixbin (wedges).
func hashAndOtherPresets() []Plan {
	return []Plan{
		{
			Prefix: "hindex",
			Doc: "H-INDEX (h-index-hashing.txt §III): edge iterator, the shorter list hashed into interleaved buckets, the longer list probing; " +
				"a warp per edge with 32 buckets (comparative study §IV: the block configuration miscounted, §IV-A: \"only 32\" buckets); " +
				"first entries of each bucket in shared memory.",
			Orientation: OrientDegree,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdge, Intersection: Hash, Width: 32, Block: 256,
				Params: map[string]int64{ParamBuckets: 32, ParamOverflow: OverflowInterleaved, ParamScheme: SchemeBuckets},
			})},
		},
		{
			Prefix: "trust",
			Doc: "TRUST (comparative study §III-H): vertex iterator, N+(u) hashed in shared memory, 2-hop neighbours probe it; " +
				"out-degree above 100: a block of 1024 threads and 1024 buckets; 2..100: a warp and 32 buckets; below 2: skipped; " +
				"vertices reordered by degree (Skiff §V-B). Block size of the warp class not given: tcgen default.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{
				{Name: "low", Select: Selector{Key: KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
				one("warp", Selector{Key: KeyOutDegree, Lo: 2, Hi: 101}, Strategy{
					Iterator: IterVertex, Intersection: Hash, Width: 32, Block: 256,
					Params: map[string]int64{ParamBuckets: 32},
				}),
				one("block", Selector{Key: KeyOutDegree, Lo: 101}, Strategy{
					Iterator: IterVertex, Intersection: Hash, Width: 1024, Block: 1024,
					Params: map[string]int64{ParamBuckets: 1024},
				}),
			},
		},
		{
			Prefix: "grouptc",
			Doc: "GroupTC (comparative study §V): edge chunks, a block of n threads on n consecutive edges, neighbours of v searched in N(u) " +
				"with a stride, partial 2-hop lists and offset reuse; assumes u < v for every edge (id order). Block size not given: tcgen default.",
			Orientation: OrientID,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdgeChunk, Intersection: BinarySearch, Width: 256, Block: 256,
				Params: map[string]int64{ParamChunk: 0},
			})},
		},
		{
			Prefix: "skiff",
			Doc: "Skiff (skiff-lockfree-hash.txt): vertex iterator, the shorter list in a lock-free hash trie of warp-wide nodes " +
				"(hopscotch neighbourhood H = 32, §III-A, §IV-C), CAS only when a node fills (§IV-A); CTA organisation Warp_Index, " +
				"best on most graphs (§V-D). Orientation not stated: degree order, no relabelling (§VI counts reordering against TRUST). " +
				"Shared memory not stated: 256 x 4 words = 4 KiB of trie per warp (32 KiB per block) holds N+(u) up to about 440 entries; " +
				"longer lists go to global memory.",
			Orientation: OrientDegree,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterVertex, Intersection: Hash, Width: 32, Block: 256,
				Params: map[string]int64{ParamScheme: SchemeHopscotch, ParamHop: 32, ParamCTA: CTAWarpIndex, ParamBuckets: 256, ParamSlots: 4},
			})},
		},
		{
			Prefix: "tcbw",
			Doc: "TCBW (tcbw-bitwise.txt): edge iterator, one thread per edge (§2.1, Algorithm 1), lists as bit slices ANDed and popcounted (§3.3); " +
				"center / non-center orientation by degree against the average (§3.1); P1 x P2 partitioning (§3.2), one partition when the graph fits. " +
				"Vertices renumbered by that order (§1, contribution 3: \"we optimize the distribution of values for each row in the CSR\" for the bit-wise operation): " +
				"the centers most lists point at get consecutive ids, so their slices are denser. Slice size 32 (one __popc per slice); block size not given: tcgen default.",
			Orientation: OrientTCBW,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterEdge, Intersection: Bitwise, Width: 1, Block: 256,
				Params: map[string]int64{ParamP1: 1, ParamP2: 1, ParamSliceBits: 32},
			})},
		},
		{
			Prefix: "radixbin",
			Doc: "Radix binning (radix-binning.txt): wedges of the oriented CSR give candidate closing edges E' with exact per-vertex offsets " +
				"(Algorithm 1), counted against E by MSD radix bucketing (Algorithm 2) with a direct intersection at or below thr = 1024 (§III-B); " +
				"iterative launches, not dynamic parallelism (§III-D), in batches under a memory budget. The paper does not fix the order: " +
				"degree order bounds |E'| = sum C(d+, 2), far fewer candidates than id order on skewed graphs, relabelled so that E is the CSR itself.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterWedge, Intersection: Radix, Width: 1, Block: 256,
				Params: map[string]int64{ParamRadixBits: 2, ParamThreshold: 1024},
			})},
		},
		{
			Prefix: "wetric",
			Doc: "WeTriC (Euro-Par 2025, jeffreyspaan/wedge-parallel-triangle-counting): the wedges of the degree-oriented, relabelled CSR split evenly " +
				"over the threads by prefix sums of C(d+, 2), 5 per thread (-s 5, as ../shared/peerbench runs it), 128 threads a block; a block generates " +
				"its wedges into shared memory and checks them transposed, each by a binary search of N+(v), or a bit of the matrix of the 8192 " +
				"highest ids (-a 8192) when both ends are among them.",
			Orientation: OrientDegree,
			Relabel:     true,
			Classes: []Class{one("all", all(KeyOutDegree), Strategy{
				Iterator: IterWedge, Intersection: BinarySearch, Width: 1, Block: 128,
				Params: map[string]int64{ParamSpread: 5, ParamMatrix: 8192},
			})},
		},
	}
}

// FoxClasses builds Fox's work bins as classes over the work key: bin n
// holds edges with work in [first*2^n, first*2^(n+1)) and gives each 2^n
// threads (capped at 32); bin 0 starts at 0 and the last bin is unbounded.
// bins is clamped to 1..6 because the width cap of 32 = 2^5 is reached at
// bin 5.
func FoxClasses(bins int, first int64, block int) []Class {
	bins = min(max(bins, 1), 6)
	var cs []Class
	lo := int64(0)
	for n := range bins {
		hi := first << (n + 1)
		if n == bins-1 {
			hi = 0
		}
		cs = append(cs, Class{
			Name:   "bin" + string(rune('0'+n)),
			Select: Selector{Key: KeyWork, Lo: lo, Hi: hi},
			Strategy: Strategy{
				Iterator: IterEdge, Intersection: BinarySearch, Width: 1 << n, Block: block,
			},
		})
		lo = hi
	}
	return cs
}

// Presets returns the published designs, in the order of DESIGN.md's table.
// The plans are fresh copies: callers may modify them.
func Presets() []Plan { return presetList() }

// Preset returns the named preset (its Prefix).
func Preset(name string) (Plan, bool) {
	for _, p := range presetList() {
		if p.Prefix == name {
			return p, true
		}
	}
	return Plan{}, false
}

// PresetNames lists the preset names in table order.
func PresetNames() []string {
	ps := presetList()
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Prefix
	}
	return out
}
