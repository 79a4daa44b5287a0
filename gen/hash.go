package gen

import "github.com/tcgen/tcgen/ir"

// The vertex/hash and edge/hash pairs (lowerHash): bucket lists (H-INDEX,
// TRUST) unless the scheme or the CTA organisation asks for Skiff's.
//
// Skiff (skiff-lockfree-hash.txt): hash classes with scheme hopscotch build
// Skiff's lock-free hash trie (templates/skiff.cu.tmpl, isect_skiff), and
// vertex hash classes with a CTA organisation other than fixed run Skiff's
// thread organisations (§IV-B, §V-D; iter_skiff) over either table:
//
//   - fixed: a group of width threads per vertex (TRUST's organisation).
//   - block-degree: a block per vertex; the table of N+(u) is built once and
//     the block's warps take N+(u) in chunks of 32 edges, one thread per
//     edge (the paper's ceil(d(v)/32) per vertex, as warps of one block so
//     the table is not rebuilt per block).
//   - block-index, warp-index: the class's items are its oriented edges in
//     CSR order, and a block (a warp) takes block (32) consecutive ones, one
//     thread per edge, so ceil(sum d+ / 32) warps cover a contiguous range of
//     vertex indices; per vertex u of its range the group builds the table
//     of N+(u) and probes the 2-hop neighbours through its own edges of u.
//
// Where a trie lives: in the group's part of shared memory (buckets * slots
// u32 words, the shared budget the IR already counts for hash classes) when
// the table of the item fits, else in the group's slice of the global
// scratch (Scratch), which the executor sizes for the largest out-degree of
// the class's items; SkiffTableWords gives a table's size.
type skiffData struct {
	Trie       bool   // scheme hopscotch: Skiff's trie; else TRUST's bucket lists (isect_hash)
	Hop        int    // HOP: slots per node (hop)
	BuildWarps int    // warps inserting into one table at once: max(1, width / warp)
	CTA        string // the cta parameter's name (vertex iterator), "fixed" for edges
	Index      bool   // block-index or warp-index: edge items, WIDTH consecutive per group
}

// skiffHashMul is the hash multiplier of templates/skiff.cu.tmpl (HASH_MUL).
const skiffHashMul = 0x9E3779B1

// SkiffBucket is the kernel's bucket(x, lg): the top lg bits of x *
// 0x9E3779B1 (mod 2^32).
func SkiffBucket(x uint32, lg uint) uint32 {
	if lg == 0 {
		return 0
	}
	return (x * skiffHashMul) >> (32 - lg)
}

// SkiffTableWords mirrors the kernel's trie_open for a table of d >= 1 keys
// with nodes of hop slots and spares spare nodes: lg (2^lg level-0 nodes),
// the nodes it has room for (2^lg + floor(d / hop) + spares) and its u32
// words (nodes * hop slots, 2^lg fill counters, nodes links, the pool
// counter).
func SkiffTableWords(hop, spares int, d uint64) (lg uint, nodes, words uint64) {
	h := uint64(hop)
	q := (d + h - 1) / h
	for uint64(1)<<lg < q {
		lg++
	}
	nb := uint64(1) << lg
	nodes = nb + d/h + uint64(spares)
	return lg, nodes, nodes*h + nb + nodes + 1
}

// skiffScratch returns the per-group scratch of a trie class: u64 words
// Words + ceil(D * BitsPerOutDeg / 64) for tables of up to D keys. With
// nb = 2^lg <= 2 ceil(d / H) - 1 <= 2d/H + 1 (d >= 1) and nodes <= 3d/H + 1
// + S, a table takes at most d (3 + 5/H) + (1 + S)(H + 1) + 2 u32 words:
// 32 (3 + 5/H) = 96 + 160/H bits per key (an integer for H = 4..32) and
// (1 + S)(H + 1) + 2 fixed u32 words (TestSkiffScratchBound checks it).
func skiffScratch(groups, hop, spares int) *Scratch {
	fixed := uint64((1+spares)*(hop+1) + 2)
	return &Scratch{
		Groups:        groups,
		Words:         (fixed + 1) / 2,
		BitsPerOutDeg: uint64(96 + 160/hop),
	}
}

// lowerHash fills a vertex/hash or edge/hash class: a table of N+ in
// buckets of slots entries kept in shared memory (isect_hash), unless Skiff's
// trie or a CTA organisation replaces it (lowerSkiff).
func lowerHash(cd *classData, mc *Class, s ir.Strategy, t Target) {
	cd.isectPartial = "hash"
	b := ir.Get(s, ir.ParamBuckets) // a power of two
	cd.Hash.Buckets, cd.Hash.Mask = int(b), int(b-1)
	cd.Hash.Slots = int(ir.Get(s, ir.ParamSlots))
	cd.GroupWords = cd.Hash.Buckets * (cd.Hash.Slots + 1)
	cd.Lookup = s.Iterator == ir.IterVertex
	lowerSkiff(cd, mc, s, t)
}

// lowerSkiff finishes lowering a hash class when it uses Skiff's trie or a
// CTA organisation other than fixed; bucket lists with the fixed
// organisation stay with isect_hash and the plain iterators. Validate
// keeps hop a power of two in 4..32 and the width the organisation's.
func lowerSkiff(cd *classData, mc *Class, s ir.Strategy, t Target) {
	trie := ir.Get(s, ir.ParamScheme) == ir.SchemeHopscotch
	cta := ir.CTAFixed
	if s.Iterator == ir.IterVertex {
		cta = ir.Get(s, ir.ParamCTA)
	}
	if !trie && cta == ir.CTAFixed {
		return
	}
	sd := &skiffData{Trie: trie, BuildWarps: max(1, cd.Width/t.WarpSize), CTA: "fixed"}
	if s.Iterator == ir.IterVertex {
		ps, _ := ir.Spec(s, ir.ParamCTA)
		sd.CTA = ps.EnumName(cta)
	}
	if trie {
		sd.Hop = int(ir.Get(s, ir.ParamHop))
		cd.isectPartial = "skiff"
		cd.GroupWords = cd.Hash.Buckets * cd.Hash.Slots // the shared part of a group: buckets * slots words of trie
		mc.Scratch = skiffScratch(cd.Groups, sd.Hop, sd.BuildWarps)
		// Scratch is needed per resident group only: cap the grid at the
		// blocks an SM holds at once (gen/vertex_bitmap.go); kernels stride.
		cd.BlocksPerSM = max(1, residentThreadsPerSM/cd.Block)
	}
	switch s.Iterator {
	case ir.IterEdge:
		cd.iterPartial = "skiffedge"
	case ir.IterVertex:
		cd.iterPartial = "skiff"
		sd.Index = cta == ir.CTABlockIndex || cta == ir.CTAWarpIndex
		// The block walk's staging (layoutGroups: Lookup with width > warp)
		// serves the fixed and block-index organisations of a whole block;
		// block-degree's warps walk their own chunks.
		cd.Lookup = cd.Width > t.WarpSize && (cta == ir.CTAFixed || cta == ir.CTABlockIndex)
		if sd.Index {
			mc.Items, mc.NeedsSrc = ItemsEdges, true
		}
	}
	cd.Skiff = sd
}

// skiffGrid fixes the grid formula of an index organisation: a block takes
// BLOCK consecutive edges (GROUPS groups of WIDTH), not GROUPS items.
func skiffGrid(cd *classData, mc *Class) {
	if cd.Skiff != nil && cd.Skiff.Index {
		mc.Grid.ItemsPerBlock = cd.Block
	}
}
