package graph

import (
	"fmt"
	"math/bits"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
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
	if rep == nil {
		rep = &Report{}
	}
	if el == nil {
		el = &EdgeList{}
	}
	records := el.n
	chunks := el.chunks
	sum := el.sum
	el.chunks, el.n, el.sum = nil, 0, nil
	rep.InputEdges += records
	nseg := int((records + segRecords - 1) / segRecords)

	// Phase 1: per segment, the largest id of a non-loop record, the number
	// of non-loop records, and the ids of self loops (to find loop-only
	// ids). Readers gather these while they append (with a bitmap of the
	// endpoints); other lists take a pass.
	var stats []segStat
	var words []uint64
	if sum != nil && sum.records == records && len(sum.segs) == nseg {
		stats, words = sum.segs, sum.words
	} else {
		stats = make([]segStat, nseg)
		parallelEach(nseg, func(i int) {
			stats[i].add(segIDs(chunks, i), nil)
		})
	}
	sum = nil
	var maxID, edges, loops uint64
	segOff := make([]uint64, nseg) // where segment i's packed edges start
	for i := range stats {
		segOff[i] = edges
		edges += stats[i].nonLoop
		maxID = max(maxID, stats[i].maxID)
		loops += uint64(len(stats[i].loopIDs))
	}
	rep.SelfLoops += loops
	loopIDs := make([]uint64, 0, loops)
	for i := range stats {
		loopIDs = append(loopIDs, stats[i].loopIDs...)
		stats[i].loopIDs = nil
	}

	// Phase 2: the set of kept ids, as a ranked bitmap or a sorted list.
	var idx vertexIndex
	var err error
	if edges > 0 && (maxID < bitmapMinBits || maxID/bitmapIDsPerRecord < edges) {
		if uint64(len(words)) <= maxID/64 {
			words = markBitmap(chunks, nseg, maxID)
		}
		idx, err = newBitmapIndex(words)
	} else if edges > 0 {
		idx, err = newSortedIndex(chunks, stats)
	} else {
		idx = &sortedIndex{}
	}
	if err != nil {
		return nil, err
	}
	n := idx.count()

	// Loop-only ids: distinct loop ids that are not kept.
	if len(loopIDs) > 0 {
		slices.Sort(loopIDs)
		loopIDs = slices.Compact(loopIDs)
		for _, x := range loopIDs {
			if !idx.has(x) {
				rep.Isolated++
			}
		}
	}
	loopIDs = nil

	// Phase 3: pack each non-loop record as (min<<idBits | max) of dense ids,
	// releasing each chunk once packed. With idBits = bits.Len(n-1) the keys
	// sort exactly like (min<<32 | max) but need fewer radix passes.
	idBits := bits.Len64(n - 1)
	if n <= 1 {
		idBits = 1
	}
	packed := make([]uint64, edges)
	// A chunk is released when the last of its segments is packed.
	left := make([]atomic.Int32, len(chunks))
	for i := 0; i < nseg; i++ {
		left[uint64(i)*segRecords/edgeChunkPairs].Add(1)
	}
	bm, _ := idx.(*bitmapIndex)
	parallelEach(nseg, func(i int) {
		ids := segIDs(chunks, i)
		out := packed[segOff[i] : segOff[i]+stats[i].nonLoop]
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
	origIDs := idx.ids()
	idx = nil
	freeOS(records * 16)

	// Phase 4: sort and drop duplicates.
	scratch := make([]uint64, len(packed))
	sorted, spare := radixSort(packed, scratch, 2*idBits)
	packed, scratch = nil, nil
	sorted = uniqueSorted(sorted)
	rep.Duplicates += edges - uint64(len(sorted))

	// Phase 5: the symmetric CSR, with the sort's other buffer as scratch.
	g := &Graph{CSR: buildCSR(sorted, spare, n, idBits), OrigIDs: origIDs}
	sorted, spare = nil, nil
	freeOS(edges * 16)
	return g, nil
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

// vertexIndex maps kept input ids to dense ids.
type vertexIndex interface {
	count() uint64
	has(x uint64) bool
	id(x uint64) uint32 // x must be kept
	ids() []uint64      // the kept ids, increasing
}

// bitmapIndex: one bit per possible id and, per 64-bit word, the number of
// set bits before it, so a dense id is a rank: O(1) per lookup.
type bitmapIndex struct {
	words []uint64
	rank  []uint32
	n     uint64
}

// markBitmap marks the endpoints of the non-loop records in a bitmap of
// maxID+1 bits.
func markBitmap(chunks [][]uint64, nseg int, maxID uint64) []uint64 {
	words := make([]uint64, maxID/64+1)
	parallelEach(nseg, func(i int) {
		ids := segIDs(chunks, i)
		for t := 0; t+1 < len(ids); t += 2 {
			u, v := ids[t], ids[t+1]
			if u == v {
				continue
			}
			// Most ids repeat, so test before the (locked) atomic OR.
			if w, m := &words[u>>6], uint64(1)<<(u&63); atomic.LoadUint64(w)&m == 0 {
				atomic.OrUint64(w, m)
			}
			if w, m := &words[v>>6], uint64(1)<<(v&63); atomic.LoadUint64(w)&m == 0 {
				atomic.OrUint64(w, m)
			}
		}
	})
	return words
}

// newBitmapIndex ranks a bitmap of the kept ids.
func newBitmapIndex(words []uint64) (vertexIndex, error) {
	rank := make([]uint32, len(words))
	var n uint64
	for i, w := range words {
		if n > MaxVertices {
			break
		}
		rank[i] = uint32(n)
		n += uint64(bits.OnesCount64(w))
	}
	if n > MaxVertices {
		return nil, fmt.Errorf("graph: more than %d distinct vertices", uint64(MaxVertices))
	}
	return &bitmapIndex{words: words, rank: rank, n: n}, nil
}

func (b *bitmapIndex) count() uint64 { return b.n }

func (b *bitmapIndex) has(x uint64) bool {
	return x>>6 < uint64(len(b.words)) && b.words[x>>6]&(1<<(x&63)) != 0
}

func (b *bitmapIndex) id(x uint64) uint32 {
	w := x >> 6
	return b.rank[w] + uint32(bits.OnesCount64(b.words[w]&(1<<(x&63)-1)))
}

// pack writes the non-loop records of ids to out as dense keys
// (min<<idBits | max).
func (b *bitmapIndex) pack(ids, out []uint64, idBits int) {
	words, rank := b.words, b.rank
	j := 0
	for t := 0; t+1 < len(ids); t += 2 {
		u, v := ids[t], ids[t+1]
		if u == v {
			continue
		}
		a := rank[u>>6] + uint32(bits.OnesCount64(words[u>>6]&(1<<(u&63)-1)))
		c := rank[v>>6] + uint32(bits.OnesCount64(words[v>>6]&(1<<(v&63)-1)))
		out[j] = uint64(min(a, c))<<idBits | uint64(max(a, c))
		j++
	}
}

func (b *bitmapIndex) ids() []uint64 {
	out := make([]uint64, 0, b.n)
	for i, w := range b.words {
		for w != 0 {
			out = append(out, uint64(i)<<6|uint64(bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return out
}

// sortedIndex: the sorted distinct kept ids; a dense id is a position,
// found by binary search.
type sortedIndex struct {
	sorted []uint64
}

// newSortedIndex collects each segment's distinct endpoints (sorted per
// segment first, which shrinks them by the average degree), then sorts and
// deduplicates the union.
func newSortedIndex(chunks [][]uint64, stats []segStat) (vertexIndex, error) {
	per := make([][]uint64, len(stats))
	parallelEach(len(stats), func(k int) {
		c := segIDs(chunks, k)
		ids := make([]uint64, 0, 2*stats[k].nonLoop)
		for i := 0; i+1 < len(c); i += 2 {
			if c[i] != c[i+1] {
				ids = append(ids, c[i], c[i+1])
			}
		}
		sorted, _ := radixSort(ids, make([]uint64, len(ids)), 64)
		sorted = uniqueSorted(sorted)
		per[k] = slices.Clip(sorted)
	})
	total := 0
	for _, p := range per {
		total += len(p)
	}
	all := make([]uint64, 0, total)
	for k := range per {
		all = append(all, per[k]...)
		per[k] = nil
	}
	sorted, _ := radixSort(all, make([]uint64, len(all)), 64)
	sorted = uniqueSorted(sorted)
	if uint64(len(sorted)) > MaxVertices {
		return nil, fmt.Errorf("graph: more than %d distinct vertices", uint64(MaxVertices))
	}
	if cap(sorted) > 2*len(sorted) {
		sorted = slices.Clone(sorted)
	}
	return &sortedIndex{sorted: sorted}, nil
}

func (s *sortedIndex) count() uint64 { return uint64(len(s.sorted)) }

func (s *sortedIndex) has(x uint64) bool {
	_, ok := slices.BinarySearch(s.sorted, x)
	return ok
}

func (s *sortedIndex) id(x uint64) uint32 {
	// Hand-rolled lower bound: this is the hot loop of sparse compaction.
	lo, hi := 0, len(s.sorted)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.sorted[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return uint32(lo)
}

func (s *sortedIndex) ids() []uint64 { return s.sorted }

// uniqueSorted removes repeats from a sorted slice in place.
func uniqueSorted(a []uint64) []uint64 {
	if len(a) == 0 {
		return a
	}
	j := 1
	for i := 1; i < len(a); i++ {
		if a[i] != a[j-1] {
			a[j] = a[i]
			j++
		}
	}
	return a[:j]
}

// csrBucketBits: buildCSR groups vertices into at most 2^11 buckets of
// consecutive ids, so that each bucket's part of Adj (a 2048th of it: about
// 250 KiB for RMAT scale 22) stays in cache while it is written.
const csrBucketBits = 11

// buildCSR turns sorted, distinct keys (min<<idBits | max) into the
// symmetric CSR; spare (len >= len(keys)) is scratch. Vertex v's list is its
// smaller neighbours a (keys (a,v)) followed by its larger ones c (the run
// of keys (v,c), increasing). Writing the smaller ones straight from the
// keys would scatter over all of Adj, a cache miss per edge; instead a
// stable partition pass moves each (v, a) into v's bucket, keeping key
// order, so each a-list stays increasing, and every bucket is then filled
// from its own slices, in cache and in parallel. Positions depend only on
// the keys, so the result is the same for any number of workers.
func buildCSR(keys, spare []uint64, n uint64, idBits int) CSR {
	offsets := make([]uint64, n+1)
	adj := make([]uint32, 2*uint64(len(keys)))
	if len(keys) == 0 {
		return CSR{Offsets: offsets, Adj: adj}
	}
	mask := uint64(1)<<idBits - 1
	shift := max(0, idBits-csrBucketBits)
	nb := int((n-1)>>shift) + 1

	// Partition (v, a), v the larger end, by v's bucket, stably: worker w's
	// keys of bucket B go after those of workers before it.
	lower := spare[:len(keys)]
	p := workersFor(len(keys), radixParallelMin)
	hist := make([][]int, p)
	runWorkers(p, func(w int) {
		h := make([]int, nb)
		lo, hi := split(len(keys), p, w)
		for _, k := range keys[lo:hi] {
			h[(k&mask)>>shift]++
		}
		hist[w] = h
	})
	lowerStart := make([]int, nb+1)
	sum := 0
	for b := 0; b < nb; b++ {
		lowerStart[b] = sum
		for w := 0; w < p; w++ {
			c := hist[w][b]
			hist[w][b] = sum
			sum += c
		}
	}
	lowerStart[nb] = sum
	runWorkers(p, func(w int) {
		pos := hist[w]
		lo, hi := split(len(keys), p, w)
		for _, k := range keys[lo:hi] {
			v := k & mask
			b := v >> shift
			lower[pos[b]] = v<<idBits | k>>idBits
			pos[b]++
		}
	})
	// Bucket B's larger neighbours: the keys whose min lies in B.
	upperStart := make([]int, nb+1)
	for b := 0; b <= nb; b++ {
		upperStart[b], _ = slices.BinarySearch(keys, uint64(b)<<shift<<idBits)
	}

	// Degrees, per bucket (each writes only its own vertices' entries).
	parallelEach(nb, func(b int) {
		for _, t := range lower[lowerStart[b]:lowerStart[b+1]] {
			offsets[t>>idBits+1]++
		}
		for _, k := range keys[upperStart[b]:upperStart[b+1]] {
			offsets[k>>idBits+1]++
		}
	})
	for v := uint64(1); v <= n; v++ {
		offsets[v] += offsets[v-1]
	}
	// Fill, per bucket: smaller neighbours first, then larger.
	parallelEach(nb, func(b int) {
		v0 := uint64(b) << shift
		v1 := min(n, v0+1<<shift)
		cursor := slices.Clone(offsets[v0:v1])
		for _, t := range lower[lowerStart[b]:lowerStart[b+1]] {
			v := t >> idBits
			adj[cursor[v-v0]] = uint32(t & mask)
			cursor[v-v0]++
		}
		for _, k := range keys[upperStart[b]:upperStart[b+1]] {
			a := k >> idBits
			adj[cursor[a-v0]] = uint32(k & mask)
			cursor[a-v0]++
		}
	})
	return CSR{Offsets: offsets, Adj: adj}
}

// radixDigitBits: 11-bit digits give 2048-bucket histograms (16 KiB each),
// which stay in cache while scattering, and sort a 44-bit key (two 22-bit
// ids, RMAT scale 22) in 4 passes.
const radixDigitBits = 11

// radixParallelMin: below this many keys per worker, goroutines cost more
// than they save.
const radixParallelMin = 1 << 16

// msdMin: from 1M keys (8 MiB, past the caches) radixSort splits by the
// top digit first, so that the remaining passes run in cache per bucket.
const msdMin = 1 << 20

// radixSort sorts the low keyBits bits of a's values (higher bits must be
// zero), using buf (len(buf) >= len(a)) as scratch. It returns the sorted
// slice, which is a or buf[:len(a)], and the other one.
//
// Large inputs take one MSD pass on the top 11 bits, in parallel, then an
// LSD sort of each bucket (a 2048th of the data: about 250 KiB for RMAT
// scale 22), so only one pass goes through main memory instead of one per
// digit. Keys whose top bits barely vary (sparse ids, all near 2^62) go to
// the plain parallel LSD sort. The result is the same for any number of
// workers.
func radixSort(a, buf []uint64, keyBits int) (sorted, spare []uint64) {
	n := len(a)
	buf = buf[:n]
	p := workersFor(n, radixParallelMin)
	if n < msdMin || keyBits <= 2*radixDigitBits {
		return lsdSort(a, buf, keyBits, p)
	}
	shift := uint(keyBits - radixDigitBits)
	const buckets = 1 << radixDigitBits
	counts := make([][]int, p)
	runWorkers(p, func(w int) {
		cnt := make([]int, buckets)
		lo, hi := split(n, p, w)
		for _, x := range a[lo:hi] {
			cnt[x>>shift]++
		}
		counts[w] = cnt
	})
	start := make([]int, buckets+1)
	sum := 0
	for d := 0; d < buckets; d++ {
		start[d] = sum
		for w := 0; w < p; w++ {
			c := counts[w][d]
			counts[w][d] = sum
			sum += c
		}
		if sum-start[d] > n/2 {
			return lsdSort(a, buf, keyBits, p)
		}
	}
	start[buckets] = n
	runWorkers(p, func(w int) {
		pos := counts[w]
		lo, hi := split(n, p, w)
		for _, x := range a[lo:hi] {
			d := x >> shift
			buf[pos[d]] = x
			pos[d]++
		}
	})
	parallelEach(buckets, func(d int) {
		lo, hi := start[d], start[d+1]
		if lo == hi {
			return
		}
		s, _ := lsdSort(buf[lo:hi], a[lo:hi], int(shift), 1)
		if &s[0] != &a[lo] {
			copy(a[lo:hi], s)
		}
	})
	return a, buf
}

// lsdSort is an LSD radix sort on p workers; each pass is stable, so the
// result does not depend on p. It returns the sorted slice (a or buf) and
// the other one.
func lsdSort(a, buf []uint64, keyBits, p int) (sorted, spare []uint64) {
	n := len(a)
	if n < 256 {
		slices.Sort(a)
		return a, buf
	}
	if keyBits <= 0 {
		return a, buf
	}
	passes := (keyBits + radixDigitBits - 1) / radixDigitBits
	digit := (keyBits + passes - 1) / passes
	buckets := 1 << digit
	mask := uint64(buckets - 1)
	counts := make([][]int, p)
	for w := range counts {
		counts[w] = make([]int, buckets)
	}
	src, dst := a, buf
	for pass := 0; pass < passes; pass++ {
		shift := uint(pass * digit)
		runWorkers(p, func(w int) {
			cnt := counts[w]
			clear(cnt)
			lo, hi := split(n, p, w)
			for _, x := range src[lo:hi] {
				cnt[x>>shift&mask]++
			}
		})
		// A pass where every key has the same digit would only copy.
		skip := false
		for d := 0; d < buckets; d++ {
			t := 0
			for w := 0; w < p; w++ {
				t += counts[w][d]
			}
			if t == n {
				skip = true
				break
			}
			if t != 0 {
				break
			}
		}
		if skip {
			continue
		}
		// Exclusive prefix over (digit, worker): worker w's keys of digit d
		// go after all keys of smaller digits and after workers < w's.
		sum := 0
		for d := 0; d < buckets; d++ {
			for w := 0; w < p; w++ {
				c := counts[w][d]
				counts[w][d] = sum
				sum += c
			}
		}
		runWorkers(p, func(w int) {
			pos := counts[w]
			lo, hi := split(n, p, w)
			for _, x := range src[lo:hi] {
				d := x >> shift & mask
				dst[pos[d]] = x
				pos[d]++
			}
		})
		src, dst = dst, src
	}
	return src, dst
}

// workersFor returns how many goroutines to use for n items of work when
// each should get at least minPer items.
func workersFor(n, minPer int) int {
	p := runtime.GOMAXPROCS(0)
	if q := n / minPer; q < p {
		p = q
	}
	return max(p, 1)
}

// split returns worker w's half-open share of n items among p workers.
func split(n, p, w int) (lo, hi int) {
	return n * w / p, n * (w + 1) / p
}

// runWorkers runs fn(0..p-1) concurrently and waits.
func runWorkers(p int, fn func(w int)) {
	if p == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}

// parallelEach calls fn(i) for i in [0, n) on up to GOMAXPROCS goroutines,
// handing out indices dynamically (items may differ in cost). fn must only
// write state owned by item i.
func parallelEach(n int, fn func(i int)) {
	p := min(runtime.GOMAXPROCS(0), n)
	if p <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	runWorkers(p, func(int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i)
		}
	})
}

// CheckStructure verifies what any CSR must satisfy before it is indexed:
// Offsets starts at 0, never decreases and ends at len(Adj), and every
// neighbour id is a vertex. It returns a description of the first violation.
func (c *CSR) CheckStructure() error {
	if err := c.checkOffsets(); err != nil || len(c.Offsets) == 0 {
		return err
	}
	return c.checkIDs()
}

// checkOffsets checks the offsets alone: from 0, never decreasing, ending
// at the number of neighbours.
func (c *CSR) checkOffsets() error {
	if len(c.Offsets) == 0 {
		if len(c.Adj) != 0 {
			return fmt.Errorf("graph: %d neighbours but no offsets", len(c.Adj))
		}
		return nil
	}
	if c.Offsets[0] != 0 {
		return fmt.Errorf("graph: offsets start at %d, not 0", c.Offsets[0])
	}
	// On all cores (RMAT-24: 16.7 M offsets, mapped: their page faults too).
	if v := firstBad(len(c.Offsets)-1, 1<<18, func(lo, hi int) int {
		for v := lo; v < hi; v++ {
			if c.Offsets[v+1] < c.Offsets[v] {
				return v
			}
		}
		return -1
	}); v >= 0 {
		return fmt.Errorf("graph: offsets decrease at vertex %d", v)
	}
	if last := c.Offsets[len(c.Offsets)-1]; last != uint64(len(c.Adj)) {
		return fmt.Errorf("graph: offsets end at %d but there are %d neighbours", last, len(c.Adj))
	}
	return nil
}

// checkIDs checks that every neighbour is a vertex.
func (c *CSR) checkIDs() error {
	// Every neighbour a vertex, on all cores (RMAT-24 has 520M entries); the
	// error names the first bad position.
	n := uint64(c.N())
	if i := firstBad(len(c.Adj), 1<<20, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			if uint64(c.Adj[i]) >= n {
				return i
			}
		}
		return -1
	}); i >= 0 {
		return fmt.Errorf("graph: neighbour %d at position %d is not a vertex (n = %d)", c.Adj[i], i, n)
	}
	return nil
}

// firstBad returns the lowest bad index in [0, n), or -1: scan(lo, hi)
// returns the first bad one in [lo, hi) or -1, run on chunks of chunk
// indices on all cores (a chunk after a bad one already found is skipped).
func firstBad(n, chunk int, scan func(lo, hi int) int) int {
	firsts := parReduce(n, chunk, func() int { return -1 }, func(first *int, lo, hi int) {
		if *first >= 0 && *first < lo {
			return
		}
		if i := scan(lo, hi); i >= 0 {
			*first = i
		}
	})
	first := -1
	for _, f := range firsts {
		if f >= 0 && (first < 0 || f < first) {
			first = f
		}
	}
	return first
}

// CheckCanonical verifies every invariant of a canonical graph: a sound
// CSR, neighbour lists strictly increasing, no self loops, every edge
// present in both directions, no isolated vertex, and OrigIDs (when set)
// strictly increasing with one id per vertex. Meant for tests and for
// checking graphs that did not come from Build; it costs O(m log d).
func (g *Graph) CheckCanonical() error {
	if err := g.CheckStructure(); err != nil {
		return err
	}
	n := g.N()
	for v := 0; v < n; v++ {
		nb := g.Neighbors(uint32(v))
		if len(nb) == 0 {
			return fmt.Errorf("graph: vertex %d is isolated", v)
		}
		for i, u := range nb {
			if i > 0 && nb[i-1] >= u {
				return fmt.Errorf("graph: neighbours of %d not strictly increasing at %d", v, i)
			}
			if u == uint32(v) {
				return fmt.Errorf("graph: self loop at %d", v)
			}
			if _, ok := slices.BinarySearch(g.Neighbors(u), uint32(v)); !ok {
				return fmt.Errorf("graph: edge %d-%d stored in one direction only", v, u)
			}
		}
	}
	if g.OrigIDs != nil {
		if len(g.OrigIDs) != n {
			return fmt.Errorf("graph: %d original ids for %d vertices", len(g.OrigIDs), n)
		}
		for i := 1; i < n; i++ {
			if g.OrigIDs[i] <= g.OrigIDs[i-1] {
				return fmt.Errorf("graph: original ids not increasing at %d", i)
			}
		}
	}
	return nil
}
