package graph

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// An undirected CSR file must store every edge both ways: a list entry
// u of vertex v with no entry v in u's list makes the counts wrong while
// every list is sorted, in range and free of loops. Checking each entry
// by a search in the other list reads memory at random; instead each
// entry adds a keyed hash of its unordered pair, with the sign of its
// direction (+ for v < u, - for v > u), into a 64-bit sum. With sorted
// lists (no repeated entry) the sum of a symmetric file is exactly 0; an
// asymmetric one leaves a sum that is 0 only if the hashes of the
// unmatched pairs cancel, about one chance in 2^64 for a key drawn per
// process (a file cannot be made to cancel without knowing it). The sums
// ride on the pass that checks the lists (AdjCheck.checkWords), so the
// check costs no extra read of the section. Only when a sum is not 0 are
// the lists searched, on all cores, for the first entry without its
// reverse, which the error names.

// symKeys key pairHash; drawn once per process.
var symKeys = [2]uint64{rand.Uint64(), rand.Uint64() | 1}

// pairHash mixes the pair lo < hi: the keyed pair times a key, the two
// halves of the 128-bit product folded (the mixer of wyhash): one
// multiply an entry, and every input bit moves about half the output
// bits, so unmatched pairs sum to 0 only by chance.
func pairHash(lo, hi uint32) uint64 {
	h, l := bits.Mul64((uint64(lo)<<32|uint64(hi))^symKeys[0], symKeys[1])
	return h ^ l
}

// sortedSym is sortedFrom for a list of an undirected file, fused with
// the signed sum of its entries' pair hashes: one pass, with branches that
// go one way but where the list crosses v.
func sortedSym(seg []uint32, v uint32, n uint64) (ok bool, sum uint64) {
	if len(seg) == 0 {
		return true, 0
	}
	bad := uint64(seg[len(seg)-1]) >= n
	for i, u := range seg {
		if i > 0 && u <= seg[i-1] || u == v {
			bad = true
		}
		if u < v {
			sum -= pairHash(u, v)
		} else {
			sum += pairHash(v, u)
		}
	}
	return !bad, sum
}

// firstAsymmetric returns the first position of the lists whose entry u
// of vertex v has no entry v in u's list, with v, or ok false when there
// is none. The lists are sorted and in range (checked before).
func firstAsymmetric(off []uint64, adj []uint32) (pos uint64, v uint32, ok bool) {
	n := len(off) - 1
	// 4096 vertices a chunk: lists of any degree mix, few chunks per core
	// even on small graphs.
	first := firstBad(n, 4096, func(lo, hi int) int {
		for x := lo; x < hi; x++ {
			for _, u := range adj[off[x]:off[x+1]] {
				if _, found := slices.BinarySearch(adj[off[u]:off[u+1]], uint32(x)); !found {
					return x
				}
			}
		}
		return -1
	})
	if first < 0 {
		return 0, 0, false
	}
	v = uint32(first)
	for p := off[v]; p < off[v+1]; p++ {
		u := adj[p]
		if _, found := slices.BinarySearch(adj[off[u]:off[u+1]], v); !found {
			return p, v, true
		}
	}
	return 0, 0, false
}

// entryMsg names an entry of the lists for an error: its vertex, its
// place in the vertex's list and in the section, then what is wrong.
func entryMsg(off []uint64, pos uint64, v uint32, what string, args ...any) string {
	return fmt.Sprintf("vertex %d, list position %d (entry %d): ", v, pos-off[v], pos) + fmt.Sprintf(what, args...)
}

// asymmetricMsg is the error of a file whose sum is not 0.
func (a *AdjCheck) asymmetricMsg() string {
	pos, v, ok := firstAsymmetric(a.off, a.adj)
	if !ok {
		return "the lists do not store every edge both ways" // unreachable: a nonzero sum has an entry without its reverse
	}
	u := a.adj[pos]
	return entryMsg(a.off, pos, v, "neighbour %d does not list %d back (an undirected file stores every edge both ways)", u, v)
}
