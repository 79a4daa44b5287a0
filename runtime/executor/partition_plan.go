package executor

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

// The host's plan of a count in partitions (partition.go). The vertices
// are cut into chunks, contiguous id ranges of at most chunkCap entries of
// rows each, and the chunks into blocks as large as the block's room
// holds: its rows, their src and the longest work list of its pairs (the
// merge's). Every
// triangle u < v < w (the orientation is the id order) is counted once, by
// the edge u -> v, from N+(u) and N+(v): for the block a that holds u, the
// edges whose target v lies in a itself (the diagonal pair) or in one chunk
// c after a need only the rows of a and of c on the device. A block stays
// resident while the chunks after it stream through; the bytes copied per
// pass are the rows of every block once and, per block, the rows after
// it, so large blocks (and small chunks) copy least. For the pivot
// (partition_pivot.go) the diagonal is the block's own chunks, a pair
// each or joined into runs, chunks hold at most a quarter as many vertices
// as entries, and a block's room holds its rows (no src), the longest
// pair's tails and items (partition_cost.go).

// partition is the cut of one graph under one memory cap.
type partition struct {
	n          uint32
	cost       partCost
	chunks     []uint32 // chunk k is the vertices [chunks[k], chunks[k+1])
	blocks     []int    // block a is the chunks [blocks[a], blocks[a+1])
	blockRoom  uint64   // bytes of a block's rows and its pairs' lists
	chunkCap   uint64   // entries of one streamed chunk
	pairs      []pair   // the pairs with work, block by block, in target order
	maxList    uint64   // the longest pair's list: its edges (merge) or in-edges (pivot)
	maxItems   uint64   // the pivot: the most items a pair's bin may write, per class
	maxTarget  uint64   // the pivot: the most vertices of a pair's targets
	maxBlock   uint64   // the largest block's rows, entries
	maxChunk   uint64   // the largest chunk's rows, entries
	listedArcs uint64   // every pair's list: the oriented edges (merge) or the pivots' in-edges, each once
}

// pair is a block and a range of targets: the block itself (chunk -1, the
// merge's diagonal), one chunk after it, or for the pivot span chunks
// from chunk on among the block's own (own: already resident, nothing to
// copy; span 0 is one chunk).
type pair struct {
	block, chunk, span int
	own                bool
	edges              uint64 // the list's entries: edges (merge) or in-edges with a tail (pivot)
	wedges             uint64 // the pivot: the in-edges' tail entries
	items              uint64 // the pivot: its bin's most items per class
}

// streamed reports whether the pair's chunk is copied into a slot.
func (q pair) streamed() bool { return q.chunk >= 0 && !q.own }

// Per resident entry: adj and src (4 bytes each) and the work list's u64,
// when one pair takes every edge of the block (a block's room holds one
// chunk so); per streamed entry the adj word.
const (
	blockEntryBytes = 16
	blockRowBytes   = 8 // a block's entry: adj and src, its list aside
	listEntryBytes  = 8 // a work list's u64
	chunkEntryBytes = 4
	// chunkShare: without a chunk size given, the chunks get 1/32 of the
	// rows' memory: blocks are whole chunks, so at most a chunk of each
	// block's room is lost (1/32 of 31/32 split 16:4 leaves a block about 8
	// chunks), and a chunk of a few MiB still copies at full bandwidth.
	chunkShare = 32
	// minChunkBytes: a smaller chunk pays a copy's latency for little data.
	minChunkBytes = 64 << 10
)

// partitionFixed is the device memory of a count in partitions besides
// the rows: the offsets of every vertex, the counters, the list's fill
// and the pass's sum.
func partitionFixed(n uint64) uint64 {
	return (n+1)*8 + uint64(gen.CountsWords(1))*8 + 16 + 32 // 32: adjBytes' tile padding
}

// partitionCaps is the room in bytes of a block (its rows and its pairs'
// lists) and the entries of rows of a chunk under a cap of capBytes for a
// graph of n vertices whose longest row has maxRow entries, with chunks of
// chunkBytes (0: the default share, raised to hold the longest row), or an
// error when the cap cannot hold the offsets, a block and two chunks (and
// for the pivot, the counters of a chunk's vertices).
func partitionCaps(n, maxRow, capBytes, chunkBytes uint64, cost partCost) (blockRoom, chunkCap uint64, err error) {
	fixed := cost.fixed(n)
	if capBytes <= fixed {
		return 0, 0, fmt.Errorf("a cap of %d MiB does not hold the offsets of %d vertices and the counters (%d MiB)", capBytes>>20, n, fixed>>20)
	}
	rows := capBytes - fixed
	if chunkBytes == 0 {
		chunkBytes = max(rows/chunkShare, min(minChunkBytes, rows/8), chunkEntryBytes*max(maxRow, 1))
	}
	chunkCap = chunkBytes / chunkEntryBytes
	if chunkBytes > rows/3 || chunkCap == 0 { // two chunks and a block as large
		return 0, 0, fmt.Errorf("chunks of %d bytes leave no room for a block in %d bytes of rows", chunkBytes, rows)
	}
	worst := cost.blockBytes(chunkCap, cost.worstList(chunkCap)) // a block holds one chunk at least
	if side := cost.chunkSide(chunkCap); side >= rows || rows-side < worst {
		per, fix := cost.chunkSideLinear()
		if rows <= fix {
			return 0, 0, fmt.Errorf("%d bytes of rows hold no chunk", rows)
		}
		chunkCap = (rows - fix) / (per + cost.worstPerEntry())
		if chunkCap == 0 {
			return 0, 0, fmt.Errorf("%d bytes of rows hold no chunk", rows)
		}
	}
	return rows - cost.chunkSide(chunkCap), chunkCap, nil
}

// maxRow is the longest row of o.
func maxRow(o *graph.Oriented) uint64 {
	var d uint64
	for v := range o.N() {
		d = max(d, o.Offsets[v+1]-o.Offsets[v])
	}
	return d
}

// cutPartition cuts o under the caps: chunks of at most chunkCap entries
// (a vertex whose row alone is larger gets an error) and, for the pivot,
// its vertex cap; blocks of whole chunks within blockRoom bytes; then
// counts each pair's list.
func cutPartition(o *graph.Oriented, blockRoom, chunkCap uint64, cost partCost) (*partition, error) {
	n := o.N()
	p := &partition{n: uint32(n), cost: cost, blockRoom: blockRoom, chunkCap: chunkCap, chunks: []uint32{0}}
	off := o.Offsets
	start, first := uint64(0), 0
	verts := cost.vertCap(chunkCap)
	for v := range n {
		d := off[v+1] - off[v]
		if d > chunkCap {
			return nil, fmt.Errorf("vertex %d has %d out-neighbours, more than a chunk of %d entries holds", v, d, chunkCap)
		}
		if off[v+1]-start > chunkCap || (verts > 0 && uint64(v-first) >= verts) {
			p.chunks = append(p.chunks, uint32(v))
			start, first = off[v], v
		}
	}
	p.chunks = append(p.chunks, uint32(n))
	var ok bool
	if p.blocks, ok = p.cutBlocks(o, false); !ok {
		p.blocks, _ = p.cutBlocks(o, true)
	}
	for k := range p.numChunks() {
		lo, hi := p.chunkRange(k)
		p.maxChunk = max(p.maxChunk, off[hi]-off[lo])
	}
	for a := range p.numBlocks() {
		lo, hi := p.blockRange(a)
		p.maxBlock = max(p.maxBlock, off[hi]-off[lo])
	}
	p.countPairs(o)
	return p, nil
}

// chunkRange is chunk k's vertices.
func (p *partition) chunkRange(k int) (uint32, uint32) { return p.chunks[k], p.chunks[k+1] }

// blockRange is block a's vertices.
func (p *partition) blockRange(a int) (uint32, uint32) {
	return p.chunks[p.blocks[a]], p.chunks[p.blocks[a+1]]
}

// numChunks is the number of chunks.
func (p *partition) numChunks() int { return len(p.chunks) - 1 }

// numBlocks is the number of blocks.
func (p *partition) numBlocks() int { return len(p.blocks) - 1 }

// targets is pair q's target vertices.
func (p *partition) targets(q pair) (uint32, uint32) {
	if q.chunk < 0 {
		return p.blockRange(q.block)
	}
	return p.chunks[q.chunk], p.chunks[q.chunk+max(q.span, 1)]
}

// countPairs counts each pair's list, a block per worker: every entry of
// the block's rows falls in one chunk at or after the block's first.
// Pairs without a list are left out (nothing to copy or count).
func (p *partition) countPairs(o *graph.Oriented) {
	nb := p.numBlocks()
	per := make([][]chunkLoad, nb) // per block: each chunk from its first on
	parallelChunks(nb, func(a int) {
		into := make([]chunkLoad, p.numChunks()-p.blocks[a])
		lo, hi := p.blockRange(a)
		p.loadRows(o, lo, hi, p.blocks[a], into)
		per[a] = into
	})
	for a, into := range per {
		for _, q := range p.blockPairs(a, into) {
			p.pairs = append(p.pairs, q)
			p.maxList, p.maxItems = max(p.maxList, q.edges), max(p.maxItems, q.items)
			p.listedArcs += q.edges
		}
	}
	if p.cost.pivot != nil {
		p.joinOwn()
		for _, q := range p.pairs {
			lo, hi := p.targets(q)
			p.maxTarget = max(p.maxTarget, uint64(min(hi, p.cost.top(p.n))-lo))
		}
	}
}

// joinOwn joins the pivot's pairs of consecutive own chunks of a block
// into one while the joined targets hold at most the chunks' vertex cap
// below the core and its list fits the longest pair's: the memory the cut
// planned does not grow, and every pair saved saves its walks of the
// block's vertices (on RMAT-24 under a quarter of its memory, a block of
// 8.8 million vertices had 24 own chunks).
func (p *partition) joinOwn() {
	verts := p.cost.vertCap(p.chunkCap)
	var out []pair
	for _, q := range p.pairs {
		if n := len(out); n > 0 && q.own && out[n-1].own && out[n-1].block == q.block {
			last := out[n-1]
			j := pair{block: q.block, chunk: last.chunk, span: q.chunk + max(q.span, 1) - last.chunk, own: true,
				edges: last.edges + q.edges, wedges: last.wedges + q.wedges}
			lo, hi := p.targets(j)
			v := uint64(min(hi, p.cost.top(p.n)) - lo)
			j.items = p.cost.need(chunkLoad{in: j.edges, wedges: j.wedges}, v).items
			if v <= verts && j.edges <= p.maxList && j.items <= p.maxItems {
				out[n-1] = j
				continue
			}
		}
		out = append(out, q)
	}
	p.pairs = out
}

// blockPairs is block a's pairs from its rows' loads into the chunks from
// its first on: the merge's diagonal (its own chunks) and the chunks after
// it with edges, or the pivot's chunks with in-edges.
func (p *partition) blockPairs(a int, into []chunkLoad) []pair {
	first, own := p.blocks[a], p.blocks[a+1]
	var qs []pair
	if p.cost.pivot != nil {
		for i, ld := range into {
			if c := first + i; ld.in > 0 {
				l := p.cost.need(ld, p.pivotVerts(c))
				qs = append(qs, pair{block: a, chunk: c, own: c < own, edges: l.entries, wedges: ld.wedges, items: l.items})
			}
		}
		return qs
	}
	var diag uint64
	for _, ld := range into[:own-first] {
		diag += ld.edges
	}
	if diag > 0 {
		qs = append(qs, pair{block: a, chunk: -1, edges: diag})
	}
	for i, ld := range into[own-first:] {
		if ld.edges > 0 {
			qs = append(qs, pair{block: a, chunk: own + i, edges: ld.edges})
		}
	}
	return qs
}

// pivotVerts is the pivot's targets in chunk k: its vertices below the core.
func (p *partition) pivotVerts(k int) uint64 {
	lo, hi := p.chunkRange(k)
	return uint64(max(lo, min(hi, p.cost.top(p.n))) - lo)
}

// chunkLoad is what rows send into one chunk: their edges into it and,
// for the pivot, those with a tail (not a row's last entry) whose target
// lies below the core, and their tails' entries.
type chunkLoad struct{ edges, in, wedges uint64 }

// loadRows adds the rows of the vertices [lo, hi) to into, chunk k's load
// at into[k - first] (the rows' targets lie in chunk first or after).
func (p *partition) loadRows(o *graph.Oriented, lo, hi uint32, first int, into []chunkLoad) {
	off, adj := o.Offsets, o.Adj
	top := p.cost.top(p.n)
	for u := lo; u < hi; u++ {
		a, b := off[u], off[u+1]
		if a == b {
			continue
		}
		// the chunk holding the row's first target: the last start <= it;
		// the row is sorted, so the next targets' chunks follow it
		k := sort.Search(len(p.chunks), func(i int) bool { return p.chunks[i] > adj[a] }) - 1
		for e := a; e < b; e++ {
			v := adj[e]
			for p.chunks[k+1] <= v {
				k++
			}
			ld := &into[k-first]
			ld.edges++
			if e+1 < b && v < top {
				ld.in++
				ld.wedges += b - e - 1
			}
		}
	}
}

// deviceBytes is what the partitioned count allocates (partitionBuffers).
func (p *partition) deviceBytes() uint64 {
	var b uint64
	for _, sp := range p.buffers() {
		b += sp.bytes
	}
	return b
}

// window is the entries of the adjacency window: a block, then two
// chunks (one copied while the other counts).
func (p *partition) window() uint64 { return p.maxBlock + 2*p.maxChunk }

// copiedBytes is what one pass copies to the device: per block its rows
// and offsets, then the rows and offsets of each chunk it streams.
func (p *partition) copiedBytes(off []uint64) uint64 {
	var b uint64
	rows := func(lo, hi uint32) uint64 { return 4*(off[hi]-off[lo]) + 8*uint64(hi-lo+1) }
	for a := range p.numBlocks() {
		if p.visited(a) {
			b += rows(p.blockRange(a))
		}
	}
	for _, q := range p.pairs {
		if q.streamed() {
			b += rows(p.chunkRange(q.chunk))
		}
	}
	return b
}

// visited reports whether a pass brings block a to the device: when it
// has pairs, or for the pivot's core kernel (every block, when the core
// is kept).
func (p *partition) visited(a int) bool {
	if pc := p.cost.pivot; pc != nil && pc.core > 0 {
		return true
	}
	return slices.ContainsFunc(p.pairs, func(q pair) bool { return q.block == a })
}

// cutBlocks groups the chunks into blocks, each as large as blockRoom
// holds the largest rows and the longest pair list of all the blocks so
// far (all share one window and list). worst takes a pair list as long
// as the block's rows, which every chunk fits; else the block's pairs are
// counted as it grows (blockLists), and false says a chunk did not fit a
// block of its own.
func (p *partition) cutBlocks(o *graph.Oriented, worst bool) ([]int, bool) {
	off := o.Offsets
	blocks := []int{0}
	var maxR uint64   // entries
	var maxP listNeed // the lists of every block so far
	grow := newBlockLists(p, o)
	cost := p.cost
	for k := 0; k < p.numChunks(); k++ {
		b0 := blocks[len(blocks)-1]
		r := off[p.chunks[k+1]] - off[p.chunks[b0]]
		l := cost.worstList(r)
		if !worst {
			l = grow.add(k)
		}
		if cost.blockBytes(max(r, maxR), l.or(maxP)) <= p.blockRoom {
			continue
		}
		if k == b0 { // a chunk alone does not fit
			return nil, false
		}
		blocks = append(blocks, k) // the block ends before chunk k
		prev := off[p.chunks[k]] - off[p.chunks[b0]]
		maxR = max(maxR, prev)
		if worst {
			maxP = maxP.or(cost.worstList(prev))
		} else {
			maxP = maxP.or(grow.last)
		}
		grow.reset(k)
		k-- // chunk k starts the next block
	}
	return append(blocks, p.numChunks()), true
}

// blockLists follows the pairs of a block as it grows a chunk at a time:
// per chunk at or after the block's first, the load from the block's rows.
type blockLists struct {
	p     *partition
	o     *graph.Oriented
	first int         // the block's first chunk
	into  []chunkLoad // the load into chunk first+i
	last  listNeed    // the lists of the block as it was before the last add
	cur   listNeed
}

func newBlockLists(p *partition, o *graph.Oriented) *blockLists {
	b := &blockLists{p: p, o: o}
	b.reset(0)
	return b
}

// reset starts a block at chunk k.
func (b *blockLists) reset(k int) {
	b.first, b.into, b.last, b.cur = k, make([]chunkLoad, b.p.numChunks()-k), listNeed{}, listNeed{}
}

// add adds chunk k, the block's last, and returns the lists of the
// block's pairs: the merge's diagonal (edges into its own chunks) and the
// chunks after it, or the pivot's pairs of every chunk.
func (b *blockLists) add(k int) listNeed {
	p := b.p
	lo, hi := p.chunkRange(k)
	p.loadRows(b.o, lo, hi, b.first, b.into)
	var diag uint64
	var l listNeed
	for i, ld := range b.into {
		c := b.first + i
		switch {
		case p.cost.pivot != nil:
			l = l.or(p.cost.need(ld, p.pivotVerts(c)))
		case c <= k:
			diag += ld.edges
		default:
			l = l.or(p.cost.need(ld, 0))
		}
	}
	b.last, b.cur = b.cur, l.or(listNeed{entries: diag})
	return b.cur
}

// buffers are the device buffers of a count in partitions, in
// allocation order: the merge's (offsets, window, src, list, counts, the
// list's fill, the sum) or the pivot's.
func (p *partition) buffers() []partBuffer {
	n := uint64(p.n)
	bs := []partBuffer{{bufOff, "offsets", (n + 1) * 8}, {bufAdj, "adjacency window", adjBytes(p.window())}}
	pc := p.cost.pivot
	if pc == nil {
		return append(bs, partBuffer{bufSrc, "src", 4 * max(p.maxBlock, 1)}, partBuffer{bufList, "work list", 8 * max(p.maxList, 1)},
			partBuffer{bufCounts, "counts", uint64(gen.CountsWords(1)) * 8}, partBuffer{bufFill, "list fill", 8}, partBuffer{bufSum, "sum", 8})
	}
	t := max(p.maxTarget, 1)
	bs = append(bs, partBuffer{bufTails, "tails", 8 * max(p.maxList, 1)}, partBuffer{bufItems, "items", 8 * pc.classes * max(p.maxItems, 1)},
		partBuffer{bufWrk, "work counters", 8 * t}, partBuffer{bufEnd, "in-edge ends", 8 * t}, partBuffer{bufCsz, "in-edges per item", 4 * t},
		partBuffer{bufInoff, "in-edge offsets", 8 * (t + 1)}, partBuffer{bufTiles, "tile sums", 8 * ((t+pc.tile-1)/pc.tile + 1)},
		partBuffer{bufNitems, "item counts", 16 * pc.classes}, partBuffer{bufCounts, "counts", pc.counts}, partBuffer{bufSum, "sum", 8})
	if pc.core > 0 {
		bs = append(bs, partBuffer{bufCore, "core matrix", pc.core})
	}
	if pc.spill > 0 {
		bs = append(bs, partBuffer{bufSpill, "global tables", pc.spill})
	}
	return bs
}

// partBuf names a buffer of a count in partitions.
type partBuf int

const (
	bufOff partBuf = iota
	bufAdj
	bufSrc
	bufList
	bufCounts
	bufFill
	bufSum
	bufTails
	bufItems
	bufWrk
	bufEnd
	bufCsz
	bufInoff
	bufTiles
	bufNitems
	bufCore
	bufSpill
)

// partBuffer is one buffer of a count in partitions.
type partBuffer struct {
	id    partBuf
	name  string
	bytes uint64
}
