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
	el.chunks, el.n = nil, 0
	rep.InputEdges += records

	// Phase 1: per chunk, the largest id of a non-loop record, the number of
	// non-loop records, and the ids of self loops (to find loop-only ids).
	stats := make([]chunkStat, len(chunks))
	parallelEach(len(chunks), func(k int) {
		c := chunks[k]
		st := &stats[k]
		for i := 0; i+1 < len(c); i += 2 {
			u, v := c[i], c[i+1]
			if u == v {
				st.loopIDs = append(st.loopIDs, u)
				continue
			}
			st.nonLoop++
			st.maxID = max(st.maxID, u, v)
		}
	})
	var maxID, edges, loops uint64
	chunkOff := make([]uint64, len(chunks)) // where chunk k's packed edges start
	for k := range stats {
		chunkOff[k] = edges
		edges += stats[k].nonLoop
		maxID = max(maxID, stats[k].maxID)
		loops += uint64(len(stats[k].loopIDs))
	}
	rep.SelfLoops += loops
	loopIDs := make([]uint64, 0, loops)
	for k := range stats {
		loopIDs = append(loopIDs, stats[k].loopIDs...)
		stats[k].loopIDs = nil
	}

	// Phase 2: the set of kept ids, as a ranked bitmap or a sorted list.
	var idx vertexIndex
	var err error
	if edges > 0 && (maxID < bitmapMinBits || maxID/bitmapIDsPerRecord < edges) {
		idx, err = newBitmapIndex(chunks, maxID)
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
	parallelEach(len(chunks), func(k int) {
		c := chunks[k]
		out := packed[chunkOff[k] : chunkOff[k]+stats[k].nonLoop]
		j := 0
		for i := 0; i+1 < len(c); i += 2 {
			u, v := c[i], c[i+1]
			if u == v {
				continue
			}
			a, b := idx.id(u), idx.id(v)
			if a > b {
				a, b = b, a
			}
			out[j] = uint64(a)<<idBits | uint64(b)
			j++
		}
		chunks[k] = nil
	})
	origIDs := idx.ids()
	idx = nil
	freeOS(records * 16)

	// Phase 4: sort and drop duplicates.
	scratch := make([]uint64, len(packed))
	sorted, _ := radixSort(packed, scratch, 2*idBits)
	packed, scratch = nil, nil
	sorted = uniqueSorted(sorted)
	rep.Duplicates += edges - uint64(len(sorted))
	freeOS(edges * 8)

	// Phase 5: the symmetric CSR.
	g := &Graph{CSR: buildCSR(sorted, n, idBits), OrigIDs: origIDs}
	sorted = nil
	freeOS(edges * 8)
	return g, nil
}

// chunkStat is what Build's first pass learns about one EdgeList chunk.
type chunkStat struct {
	maxID   uint64   // largest id of a non-loop record
	nonLoop uint64   // records u != v
	loopIDs []uint64 // ids of the self loops
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

func newBitmapIndex(chunks [][]uint64, maxID uint64) (vertexIndex, error) {
	words := make([]uint64, maxID/64+1)
	parallelEach(len(chunks), func(k int) {
		c := chunks[k]
		for i := 0; i+1 < len(c); i += 2 {
			u, v := c[i], c[i+1]
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

// newSortedIndex collects each chunk's distinct endpoints (sorted per chunk
// first, which shrinks them by the average degree), then sorts and
// deduplicates the union.
func newSortedIndex(chunks [][]uint64, stats []chunkStat) (vertexIndex, error) {
	per := make([][]uint64, len(chunks))
	parallelEach(len(chunks), func(k int) {
		c := chunks[k]
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

// buildCSR turns sorted, distinct keys (min<<idBits | max) into the
// symmetric CSR. Vertex v's list is its smaller neighbours a (from keys
// (a,v), in key order, hence increasing) followed by its larger ones c (the
// run of keys (v,c), also increasing), so every list comes out sorted.
//
// In parallel: the keys are split into P ranges at run boundaries (a run is
// the keys sharing a min), so each vertex's larger neighbours are written by
// one worker. Smaller neighbours are scattered; worker w counts them per
// vertex (lower[w]) and writes them after those of workers before it, which
// are exactly the smaller ids. Positions depend only on the keys, so the
// result is the same for any P.
func buildCSR(keys []uint64, n uint64, idBits int) CSR {
	mask := uint64(1)<<idBits - 1
	offsets := make([]uint64, n+1)
	adj := make([]uint32, 2*uint64(len(keys)))
	p := workersFor(len(keys), radixParallelMin)
	// Each worker's per-vertex counts cost 4 bytes a vertex; beyond one
	// worker, spend that only while it stays below 4 bytes per edge, so the
	// counts never outweigh the keys.
	if uint64(p)*n > uint64(len(keys)) {
		p = 1
	}
	bounds := make([]int, p+1)
	for w := 1; w < p; w++ {
		i := max(len(keys)*w/p, bounds[w-1])
		for i > 0 && i < len(keys) && keys[i]>>idBits == keys[i-1]>>idBits {
			i++
		}
		bounds[w] = i
	}
	bounds[p] = len(keys)
	lower := make([][]uint32, p)
	// Count: runs give each min's larger-neighbour count (written into
	// offsets[a+1]: runs are disjoint across workers), lower[w] the rest.
	runWorkers(p, func(w int) {
		cnt := make([]uint32, n)
		ks := keys[bounds[w]:bounds[w+1]]
		for i := 0; i < len(ks); {
			a := ks[i] >> idBits
			j := i
			for ; j < len(ks) && ks[j]>>idBits == a; j++ {
				cnt[ks[j]&mask]++
			}
			offsets[a+1] = uint64(j - i)
			i = j
		}
		lower[w] = cnt
	})
	// Degrees, then each worker's starting position (relative to the
	// vertex's offset) for smaller neighbours.
	for v := uint64(0); v < n; v++ {
		var rel uint32
		for w := 0; w < p; w++ {
			c := lower[w][v]
			lower[w][v] = rel
			rel += c
		}
		offsets[v+1] += offsets[v] + uint64(rel)
	}
	runWorkers(p, func(w int) {
		pos := lower[w]
		ks := keys[bounds[w]:bounds[w+1]]
		for i := 0; i < len(ks); {
			a := ks[i] >> idBits
			j := i
			for ; j < len(ks) && ks[j]>>idBits == a; j++ {
			}
			up := adj[offsets[a+1]-uint64(j-i) : offsets[a+1]]
			for t, k := range ks[i:j] {
				c := k & mask
				up[t] = uint32(c)
				adj[offsets[c]+uint64(pos[c])] = uint32(a)
				pos[c]++
			}
			i = j
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

// radixSort sorts the low keyBits bits of a's values (higher bits must be
// zero) with an LSD radix sort, using buf (len(buf) >= len(a)) as scratch.
// It returns the sorted slice, which is a or buf[:len(a)], and the other one.
// The result is the same for any number of workers: each pass is stable.
func radixSort(a, buf []uint64, keyBits int) (sorted, spare []uint64) {
	n := len(a)
	buf = buf[:n]
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
	p := workersFor(n, radixParallelMin)
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
	if len(c.Offsets) == 0 {
		if len(c.Adj) != 0 {
			return fmt.Errorf("graph: %d neighbours but no offsets", len(c.Adj))
		}
		return nil
	}
	if c.Offsets[0] != 0 {
		return fmt.Errorf("graph: offsets start at %d, not 0", c.Offsets[0])
	}
	for v := 1; v < len(c.Offsets); v++ {
		if c.Offsets[v] < c.Offsets[v-1] {
			return fmt.Errorf("graph: offsets decrease at vertex %d", v-1)
		}
	}
	if last := c.Offsets[len(c.Offsets)-1]; last != uint64(len(c.Adj)) {
		return fmt.Errorf("graph: offsets end at %d but there are %d neighbours", last, len(c.Adj))
	}
	n := uint64(c.N())
	for i, u := range c.Adj {
		if uint64(u) >= n {
			return fmt.Errorf("graph: neighbour %d at position %d is not a vertex (n = %d)", u, i, n)
		}
	}
	return nil
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
