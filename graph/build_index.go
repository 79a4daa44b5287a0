package graph

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
)

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
		sorted, _ := radixSort(context.Background(), ids, make([]uint64, len(ids)), 64)
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
	sorted, _ := radixSort(context.Background(), all, make([]uint64, len(all)), 64)
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
