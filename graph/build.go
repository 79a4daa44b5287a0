package graph

import (
	"context"
	"math/bits"
	"runtime/debug"
	"slices"
	"sync/atomic"
)

// MaxVertices is the largest number of distinct vertices a graph may have:
// dense ids are uint32, and n itself must fit in a uint32 too.
const MaxVertices = 1<<32 - 1

// bitmapIDsPerRecord bounds the id range the bitmap compaction accepts: the
// bitmap plus its per-word uint32 rank costs 1.5 bits per possible id, so 16
// possible ids per non-loop record keeps it at 3 bytes per record, inside the
// conversion's memory budget. Sparser ids go through the sort-based path.
const bitmapIDsPerRecord = 16

// bitmapMinBits: id ranges up to 2^24 always use the bitmap (3 MiB at most),
// since a tiny graph with ids below 16M gains nothing from sorting.
const bitmapMinBits = 1 << 24

// freeOSThreshold: returning memory to the OS costs a full GC; do it only
// when the buffers that just died are big enough (64 MiB) to move the peak.
const freeOSThreshold = 64 << 20

// FromPairs builds the canonical graph of the given records (pairs of input
// ids). It is a convenience for tests and small generators.
func FromPairs(pairs [][2]uint64) (*Graph, Report, error) {
	var el EdgeList
	for _, p := range pairs {
		el.Add(p[0], p[1])
	}
	var rep Report
	g, err := Build(&el, &rep)
	return g, rep, err
}

// Build consumes el and returns the canonical graph: undirected, self loops
// and duplicate edges (in either direction) dropped, vertices that appear
// only in self loops dropped, and ids compacted to dense uint32 ids in
// increasing input-id order, with Graph.OrigIDs the kept input ids. It adds
// what it read and dropped to rep (InputEdges, SelfLoops, Duplicates,
// Isolated); rep may be nil. el is emptied: its chunks are released as they
// are consumed so that their memory can serve the later phases.
//
// The result does not depend on the record order or on GOMAXPROCS. Peak heap
// is about 24 bytes per record (the 16 of el while the 8-byte packed edges
// are written, then packed edges plus an equal radix scratch buffer), then 8
// per record plus 16 per vertex for the CSR.
func Build(el *EdgeList, rep *Report) (*Graph, error) {
	return BuildContext(context.Background(), el, rep)
}

// BuildContext is Build, stopped by ctx between its phases (each a pass or
// two over the records: about a second per 50M records on two cores); it
// then returns ctx.Err() and releases what it built.
func BuildContext(ctx context.Context, el *EdgeList, rep *Report) (*Graph, error) {
	if rep == nil {
		rep = &Report{}
	}
	if el == nil {
		el = &EdgeList{}
	}
	records, chunks, sum := el.n, el.chunks, el.sum
	el.chunks, el.n, el.sum = nil, 0, nil
	rep.InputEdges += records
	nseg := int((records + segRecords - 1) / segRecords)

	// Phase 1: per-segment stats (segmentStats), then their totals.
	stats, words := segmentStats(chunks, sum, records, nseg)
	sum = nil
	tot := sumSegStats(stats)
	rep.SelfLoops += tot.loops
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Phase 2: the set of kept ids, as a ranked bitmap or a sorted list.
	idx, err := newVertexIndex(chunks, nseg, stats, words, tot)
	if err != nil {
		return nil, err
	}
	n := idx.count()
	rep.Isolated += loopOnly(tot.loopIDs, idx)
	tot.loopIDs = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Phase 3: pack the records as dense keys, releasing the chunks.
	idBits := bits.Len64(n - 1)
	if n <= 1 {
		idBits = 1
	}
	packed := packEdges(chunks, nseg, stats, tot, idx, idBits)
	origIDs := idx.ids()
	idx = nil
	freeOS(records * 16)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Phase 4: sort and drop duplicates.
	scratch := make([]uint64, len(packed))
	sorted, spare := radixSort(ctx, packed, scratch, 2*idBits)
	packed, scratch = nil, nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sorted = uniqueSorted(sorted)
	rep.Duplicates += tot.edges - uint64(len(sorted))
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Phase 5: the symmetric CSR, with the sort's other buffer as scratch.
	g := &Graph{CSR: buildCSR(ctx, sorted, spare, n, idBits), OrigIDs: origIDs}
	sorted, spare = nil, nil
	freeOS(tot.edges * 16)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return g, nil
}

// segmentStats returns, per segment, the largest id of a non-loop record,
// the number of non-loop records, and the ids of self loops (to find
// loop-only ids), with the endpoint bitmap when known. Readers gather these
// while they append (sum); other lists take a pass.
func segmentStats(chunks [][]uint64, sum *edgeSummary, records uint64, nseg int) ([]segStat, []uint64) {
	if sum != nil && sum.records == records && len(sum.segs) == nseg {
		return sum.segs, sum.words
	}
	stats := make([]segStat, nseg)
	parallelEach(nseg, func(i int) {
		stats[i].add(segIDs(chunks, i), nil)
	})
	return stats, nil
}

// segTotals sums the segments' stats.
type segTotals struct {
	maxID, edges, loops uint64
	segOff              []uint64 // where segment i's packed edges start
	loopIDs             []uint64 // all self loops' ids, moved out of stats
}

// sumSegStats totals stats and moves their loop ids into one list.
func sumSegStats(stats []segStat) segTotals {
	var t segTotals
	t.segOff = make([]uint64, len(stats))
	for i := range stats {
		t.segOff[i] = t.edges
		t.edges += stats[i].nonLoop
		t.maxID = max(t.maxID, stats[i].maxID)
		t.loops += uint64(len(stats[i].loopIDs))
	}
	t.loopIDs = make([]uint64, 0, t.loops)
	for i := range stats {
		t.loopIDs = append(t.loopIDs, stats[i].loopIDs...)
		stats[i].loopIDs = nil
	}
	return t
}

// newVertexIndex picks the bitmap index for dense enough ids (marking the
// bitmap unless words already covers maxID), else the sorted one.
func newVertexIndex(chunks [][]uint64, nseg int, stats []segStat, words []uint64, t segTotals) (vertexIndex, error) {
	switch {
	case t.edges > 0 && (t.maxID < bitmapMinBits || t.maxID/bitmapIDsPerRecord < t.edges):
		if uint64(len(words)) <= t.maxID/64 {
			words = markBitmap(chunks, nseg, t.maxID)
		}
		return newBitmapIndex(words)
	case t.edges > 0:
		return newSortedIndex(chunks, stats)
	default:
		return &sortedIndex{}, nil
	}
}

// loopOnly counts the distinct loop ids that are not kept; it sorts loopIDs.
func loopOnly(loopIDs []uint64, idx vertexIndex) uint64 {
	if len(loopIDs) == 0 {
		return 0
	}
	slices.Sort(loopIDs)
	var k uint64
	for _, x := range slices.Compact(loopIDs) {
		if !idx.has(x) {
			k++
		}
	}
	return k
}

// packEdges packs each non-loop record as (min<<idBits | max) of dense ids,
// releasing each chunk once packed. With idBits = bits.Len(n-1) the keys
// sort exactly like (min<<32 | max) but need fewer radix passes.
func packEdges(chunks [][]uint64, nseg int, stats []segStat, tot segTotals, idx vertexIndex, idBits int) []uint64 {
	packed := make([]uint64, tot.edges)
	// A chunk is released when the last of its segments is packed.
	left := make([]atomic.Int32, len(chunks))
	for i := 0; i < nseg; i++ {
		left[uint64(i)*segRecords/edgeChunkPairs].Add(1)
	}
	bm, _ := idx.(*bitmapIndex)
	parallelEach(nseg, func(i int) {
		ids := segIDs(chunks, i)
		out := packed[tot.segOff[i] : tot.segOff[i]+stats[i].nonLoop]
		if bm != nil {
			bm.pack(ids, out, idBits) // the common case, without interface calls
		} else {
			j := 0
			for t := 0; t+1 < len(ids); t += 2 {
				u, v := ids[t], ids[t+1]
				if u == v {
					continue
				}
				a, b := idx.id(u), idx.id(v)
				out[j] = uint64(min(a, b))<<idBits | uint64(max(a, b))
				j++
			}
		}
		if k := uint64(i) * segRecords / edgeChunkPairs; left[k].Add(-1) == 0 {
			chunks[k] = nil
		}
	})
	return packed
}

// segRecords: Build's passes over the records work on segments of 64K
// records (1 MiB), so that even a one-chunk graph spreads over every core.
// It divides edgeChunkPairs, so no segment straddles two chunks.
const segRecords = 1 << 16

// segIDs returns segment i of the records in chunks, as ids u0 v0 u1 v1 ...
func segIDs(chunks [][]uint64, i int) []uint64 {
	first := uint64(i) * segRecords
	c := chunks[first/edgeChunkPairs]
	off := 2 * (first % edgeChunkPairs)
	return c[off:min(off+2*segRecords, uint64(len(c)))]
}

// segStat is what Build's first pass learns about one segment.
type segStat struct {
	maxID   uint64   // largest id of a non-loop record
	nonLoop uint64   // records u != v
	loopIDs []uint64 // ids of the self loops
}

// add accounts for the records in ids, marking the endpoints of non-loop
// records in b when b is not nil.
func (st *segStat) add(ids []uint64, b *growBitmap) {
	var words []uint64 // b.words, held locally so the marks stay inline
	if b != nil {
		words = b.words
	}
	for i := 0; i+1 < len(ids); i += 2 {
		u, v := ids[i], ids[i+1]
		if u == v {
			st.loopIDs = append(st.loopIDs, u)
			continue
		}
		st.nonLoop++
		st.maxID = max(st.maxID, u, v)
		if b == nil {
			continue
		}
		if w := u >> 6; w < uint64(len(words)) {
			words[w] |= 1 << (u & 63)
		} else {
			b.grow(u)
			words = b.words
		}
		if w := v >> 6; w < uint64(len(words)) {
			words[w] |= 1 << (v & 63)
		} else {
			b.grow(v)
			words = b.words
		}
	}
}

// edgeSummary is what a reader learns about an EdgeList while appending to
// it (appendPairs), so that Build can skip its first passes; on the
// reading side they overlap decompression and parsing. It is valid while
// records == EdgeList.n: records added another way (Add) make Build
// ignore it.
type edgeSummary struct {
	records uint64
	segs    []segStat
	bits    growBitmap
	words   []uint64 // bits.words once final
}

// specBitmapBits: while reading, the endpoint bitmap may grow to 2^27 bits
// (16 MiB) whatever the record count so far, or to 16 bits per record when
// that is more (Build's own density rule); past that the ids look sparse
// and the bitmap is dropped (Build decides again at the end).
const specBitmapBits = 1 << 27

// growBitmap is a bitmap of ids that grows as larger ids arrive, and gives
// up (words = nil, dropped) when they get too sparse.
type growBitmap struct {
	words   []uint64
	limit   uint64 // bits it may grow to now
	dropped bool
}

// grow makes room for x and marks it, or drops the bitmap; ids below
// len(words)*64 are marked inline by segStat.add.
func (b *growBitmap) grow(x uint64) {
	if b.dropped {
		return
	}
	if x >= b.limit {
		b.words, b.dropped = nil, true
		return
	}
	w := x >> 6
	want := min(max(2*uint64(len(b.words)), w+1, 1024), (b.limit+63)/64)
	b.words = append(b.words, make([]uint64, want-uint64(len(b.words)))...)
	b.words[w] |= 1 << (x & 63)
}

// summarize accounts for ids just appended at record index first.
func (s *edgeSummary) summarize(ids []uint64, first uint64) {
	seg := int(first / segRecords)
	for len(s.segs) <= seg {
		s.segs = append(s.segs, segStat{})
	}
	s.bits.limit = max(specBitmapBits, bitmapIDsPerRecord*(first+uint64(len(ids)/2)))
	s.segs[seg].add(ids, &s.bits)
	s.records = first + uint64(len(ids)/2)
	s.words = s.bits.words
}

// freeOS returns freed memory to the OS when the buffers that just died
// (dead bytes) are big enough for it to matter to the peak RSS.
func freeOS(dead uint64) {
	if dead >= freeOSThreshold {
		debug.FreeOSMemory()
	}
}
