package graph

import (
	"context"
	"slices"
)

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
// workers. A done ctx stops it between passes and buckets, leaving the
// order unfinished: the caller checks ctx and drops the result.
func radixSort(ctx context.Context, a, buf []uint64, keyBits int) (sorted, spare []uint64) {
	n := len(a)
	buf = buf[:n]
	p := workersFor(n, radixParallelMin)
	if n < msdMin || keyBits <= 2*radixDigitBits {
		return lsdSort(ctx, a, buf, keyBits, p)
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
			return lsdSort(ctx, a, buf, keyBits, p)
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
		if lo == hi || ctx.Err() != nil {
			return
		}
		s, _ := lsdSort(ctx, buf[lo:hi], a[lo:hi], int(shift), 1)
		if &s[0] != &a[lo] {
			copy(a[lo:hi], s)
		}
	})
	return a, buf
}

// lsdSort is an LSD radix sort on p workers; each pass is stable, so the
// result does not depend on p. It returns the sorted slice (a or buf) and
// the other one.
func lsdSort(ctx context.Context, a, buf []uint64, keyBits, p int) (sorted, spare []uint64) {
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
	for pass := 0; pass < passes && ctx.Err() == nil; pass++ {
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
