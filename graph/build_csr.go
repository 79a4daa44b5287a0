package graph

import (
	"context"
	"slices"
)

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
// the keys, so the result is the same for any number of workers. A done
// ctx stops it between buckets, leaving the CSR unfinished: the caller
// checks ctx and drops it.
func buildCSR(ctx context.Context, keys, spare []uint64, n uint64, idBits int) CSR {
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
		if ctx.Err() != nil {
			return
		}
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
		if ctx.Err() != nil {
			return
		}
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
