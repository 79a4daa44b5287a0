package executor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPivotWedges: the wedge sum over many chunks equals the plain sum, and
// a tail too long to pack names the first such vertex.
func TestPivotWedges(t *testing.T) {
	n := 3*workChunk + 17
	off := make([]uint64, n+1)
	var want uint64
	for u := range n {
		d := uint64(u*7919) % 50
		off[u+1] = off[u] + d
		want += d * (d - 1) / 2
	}
	if got, why := pivotWedges(off); why != "" || got != want {
		t.Fatalf("pivotWedges = %d, %q; want %d", got, why, want)
	}
	for _, u := range []int{2*workChunk + 5, workChunk + 3} { // the second is the first
		for v := u + 1; v <= n; v++ {
			off[v] += 1 << pivotLenBits
		}
	}
	_, why := pivotWedges(off)
	if !strings.Contains(why, fmt.Sprintf("vertex %d has out-degree", workChunk+3)) {
		t.Fatalf("pivotWedges: %q; want vertex %d named", why, workChunk+3)
	}
}

// TestPivotCounterFits: the packed counter's limit is on the edges, not the
// wedges: RMAT-27 (63078283 vertices, 2.11e9 oriented edges, 5.7e11 wedges)
// fits, and the text names the sizes where it does not.
func TestPivotCounterFits(t *testing.T) {
	if why := pivotCounterFits(63078283, 2_111_156_282); why != "" {
		t.Fatalf("RMAT-27: %s", why)
	}
	if why := pivotCounterFits(1<<31, 1<<32-1); why != "" { // 32 bits for the count, 32 for the tails
		t.Fatalf("2^31 vertices: %s", why)
	}
	want := "4294967296 oriented edges on 2147483648 vertices: pivot classes count a pivot's tail entries in 32 bits"
	if why := pivotCounterFits(1<<31, 1<<32); why != want {
		t.Fatalf("got %q, want %q", why, want)
	}
}

// TestPivotTailBound checks the bound pivotCounterFits relies on: on random
// oriented graphs, every pivot's tail entries (the entries of N+(u) after v,
// summed over its in-edges (u,v)) are fewer than the oriented edges.
func TestPivotTailBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	for range 20 {
		n := 2 + rng.IntN(60)
		var adj []uint32
		off := []uint64{0}
		for u := range n {
			for v := u + 1; v < n; v++ {
				if rng.IntN(3) > 0 || v == n-1 { // dense, and the last vertex a hub
					adj = append(adj, uint32(v))
				}
			}
			off = append(off, uint64(len(adj)))
		}
		tails := make([]uint64, n)
		for u := range n {
			for e := off[u]; e < off[u+1]; e++ {
				tails[adj[e]] += off[u+1] - e - 1
			}
		}
		if mx := slices.Max(tails); mx >= uint64(len(adj)) {
			t.Fatalf("n=%d: a pivot has %d tail entries, m=%d", n, mx, len(adj))
		}
	}
}
