package executor

import (
	"fmt"
	"sort"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

// The host's plan of a count in partitions (partition.go). The vertices
// are cut into chunks, contiguous id ranges of at most chunkCap entries of
// rows each, and the chunks into blocks as large as the block's room
// holds: its rows, their src and the longest work list of its pairs. Every
// triangle u < v < w (the orientation is the id order) is counted once, by
// the edge u -> v, from N+(u) and N+(v): for the block a that holds u, the
// edges whose target v lies in a itself (the diagonal pair) or in one chunk
// c after a need only the rows of a and of c on the device. A block stays
// resident while the chunks after it stream through; the bytes copied per
// pass are the rows of every block once and, per block, the rows after
// it, so large blocks (and small chunks) copy least.

// partition is the cut of one graph under one memory cap.
type partition struct {
	n          uint32
	chunks     []uint32 // chunk k is the vertices [chunks[k], chunks[k+1])
	blocks     []int    // block a is the chunks [blocks[a], blocks[a+1])
	blockRoom  uint64   // bytes of a block's rows, src and work list
	chunkCap   uint64   // entries of one streamed chunk
	pairs      []pair   // the pairs with edges, block by block, the diagonal first
	maxList    uint64   // the longest pair's edges (the work list's size)
	maxBlock   uint64   // the largest block's rows, entries
	maxChunk   uint64   // the largest chunk's rows, entries
	listedArcs uint64   // every pair's edges: the oriented edges, each once
}

// pair is a block and a range of targets: the block itself (diag) or one
// chunk after it.
type pair struct {
	block, chunk int // chunk: -1 for the diagonal
	edges        uint64
}

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

// partitionCaps is the room in bytes of a block (its rows, src and work
// list) and the entries of rows of a chunk under a cap of capBytes for a
// graph of n vertices whose longest row has maxRow entries, with chunks of
// chunkBytes (0: the default share, raised to hold the longest row), or an
// error when the cap cannot hold the offsets, a block and two chunks.
func partitionCaps(n, maxRow, capBytes, chunkBytes uint64) (blockRoom, chunkCap uint64, err error) {
	fixed := partitionFixed(n)
	if capBytes <= fixed {
		return 0, 0, fmt.Errorf("a cap of %d MiB does not hold the offsets of %d vertices (%d MiB)", capBytes>>20, n, fixed>>20)
	}
	rows := capBytes - fixed
	if chunkBytes == 0 {
		chunkBytes = max(rows/chunkShare, min(minChunkBytes, rows/8), chunkEntryBytes*max(maxRow, 1))
	}
	chunkCap = chunkBytes / chunkEntryBytes
	if chunkBytes > rows/3 || chunkCap == 0 { // two chunks and a block as large

		return 0, 0, fmt.Errorf("chunks of %d bytes leave no room for a block in %d bytes of rows", chunkBytes, rows)
	}
	blockRoom = rows - 2*chunkCap*chunkEntryBytes
	if blockRoom < chunkCap*blockEntryBytes { // a block holds one chunk at least
		chunkCap = rows / (blockEntryBytes + 2*chunkEntryBytes)
		blockRoom = chunkCap * blockEntryBytes
	}
	return blockRoom, chunkCap, nil
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
// (a vertex whose row alone is larger gets an error), blocks of whole
// chunks within blockRoom bytes; then counts each pair's edges.
func cutPartition(o *graph.Oriented, blockRoom, chunkCap uint64) (*partition, error) {
	n := o.N()
	p := &partition{n: uint32(n), blockRoom: blockRoom, chunkCap: chunkCap, chunks: []uint32{0}}
	off := o.Offsets
	start := uint64(0)
	for v := range n {
		d := off[v+1] - off[v]
		if d > chunkCap {
			return nil, fmt.Errorf("vertex %d has %d out-neighbours, more than a chunk of %d entries holds", v, d, chunkCap)
		}
		if off[v+1]-start > chunkCap {
			p.chunks = append(p.chunks, uint32(v))
			start = off[v]
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
	return p.chunkRange(q.chunk)
}

// countPairs counts each pair's edges, a block per worker: every entry of
// the block's rows falls in the diagonal or in one chunk after it. Pairs
// without edges are left out (nothing to copy or count).
func (p *partition) countPairs(o *graph.Oriented) {
	nb := p.numBlocks()
	per := make([][]uint64, nb) // per block: diagonal, then the chunks after it
	parallelChunks(nb, func(a int) {
		first := p.blocks[a+1]
		counts := make([]uint64, 1+p.numChunks()-first)
		lo, hi := p.blockRange(a)
		for u := lo; u < hi; u++ {
			row := o.Adj[o.Offsets[u]:o.Offsets[u+1]]
			for _, v := range row {
				if v < hi {
					counts[0]++
					continue
				}
				// the chunk holding v: the last start <= v
				k := sort.Search(len(p.chunks), func(i int) bool { return p.chunks[i] > v }) - 1
				counts[1+k-first]++
			}
		}
		per[a] = counts
	})
	for a, counts := range per {
		for i, e := range counts {
			if e == 0 {
				continue
			}
			q := pair{block: a, chunk: -1, edges: e}
			if i > 0 {
				q.chunk = p.blocks[a+1] + i - 1
			}
			p.pairs = append(p.pairs, q)
			p.maxList = max(p.maxList, e)
			p.listedArcs += e
		}
	}
}

// deviceBytes is what the partitioned count allocates: the fixed part,
// the window (the largest block and the largest chunk), src of the
// block's entries and the longest work list; at most the cap, since each
// is at most its cap's share.
func (p *partition) deviceBytes() uint64 {
	return partitionFixed(uint64(p.n)) - 32 + adjBytes(p.window()) + 4*max(p.maxBlock, 1) + 8*max(p.maxList, 1)
}

// window is the entries of the adjacency window: a block, then two
// chunks (one copied while the other counts).
func (p *partition) window() uint64 { return p.maxBlock + 2*p.maxChunk }

// copiedBytes is what one pass copies to the device: per block its rows
// and offsets, then the rows and offsets of each chunk it pairs with.
func (p *partition) copiedBytes(off []uint64) uint64 {
	var b uint64
	rows := func(lo, hi uint32) uint64 { return 4*(off[hi]-off[lo]) + 8*uint64(hi-lo+1) }
	last := -1
	for _, q := range p.pairs {
		if q.block != last {
			b += rows(p.blockRange(q.block))
			last = q.block
		}
		if q.chunk >= 0 {
			b += rows(p.chunkRange(q.chunk))
		}
	}
	return b
}

// cutBlocks groups the chunks into blocks, each as large as blockRoom
// holds the largest rows and the longest pair list of all the blocks so
// far (all share one window, src and list). worst takes a pair list as
// long as the block's rows, which every chunk fits; else the block's
// pairs are counted as it grows (blockLists), and false says a chunk did
// not fit a block of its own.
func (p *partition) cutBlocks(o *graph.Oriented, worst bool) ([]int, bool) {
	off := o.Offsets
	blocks := []int{0}
	var maxR, maxP uint64
	grow := newBlockLists(p, o)
	for k := 0; k < p.numChunks(); k++ {
		b0 := blocks[len(blocks)-1]
		r := off[p.chunks[k+1]] - off[p.chunks[b0]]
		l := r
		if !worst {
			l = grow.add(k)
		}
		if blockRowBytes*max(r, maxR)+listEntryBytes*max(l, maxP) <= p.blockRoom {
			continue
		}
		if k == b0 { // a chunk alone does not fit
			return nil, false
		}
		blocks = append(blocks, k) // the block ends before chunk k
		prev := off[p.chunks[k]] - off[p.chunks[b0]]
		if prevL := grow.last; worst {
			maxR, maxP = max(maxR, prev), max(maxP, prev)
		} else {
			maxR, maxP = max(maxR, prev), max(maxP, prevL)
		}
		grow.reset(k)
		k-- // chunk k starts the next block
	}
	return append(blocks, p.numChunks()), true
}

// blockLists follows the pairs of a block as it grows a chunk at a time:
// per chunk at or after the block's first, the edges from the block's
// rows into it.
type blockLists struct {
	p     *partition
	o     *graph.Oriented
	first int      // the block's first chunk
	into  []uint64 // edges into chunk first+i
	last  uint64   // the longest list of the block as it was before the last add
	cur   uint64
}

func newBlockLists(p *partition, o *graph.Oriented) *blockLists {
	b := &blockLists{p: p, o: o}
	b.reset(0)
	return b
}

// reset starts a block at chunk k.
func (b *blockLists) reset(k int) {
	b.first, b.into, b.last, b.cur = k, make([]uint64, b.p.numChunks()-k), 0, 0
}

// add adds chunk k, the block's last, and returns the longest list of
// the block's pairs: its diagonal (edges into its own chunks) or a chunk
// after it.
func (b *blockLists) add(k int) uint64 {
	p, o := b.p, b.o
	lo, hi := p.chunkRange(k)
	for _, v := range o.Adj[o.Offsets[lo]:o.Offsets[hi]] {
		c := sort.Search(len(p.chunks), func(i int) bool { return p.chunks[i] > v }) - 1
		b.into[c-b.first]++
	}
	var diag, after uint64
	for i, e := range b.into {
		if b.first+i <= k {
			diag += e
		} else {
			after = max(after, e)
		}
	}
	b.last, b.cur = b.cur, max(diag, after)
	return b.cur
}
