package executor

import (
	"fmt"
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
