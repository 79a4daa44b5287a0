package graph

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCSRMapped: Open with Map reads a plain CSR file as ReadCSR does (with
// original ids, an odd arc count's padding, oriented and empty graphs), the
// result's lists are views of the mapping, writes to them do not reach the
// file, and every flipped byte or cut is refused as by ReadCSR.
func TestCSRMapped(t *testing.T) {
	dir := t.TempDir()
	g, rep := sampleGraph(t)
	p := filepath.Join(dir, "g.tcsr")
	if err := WriteCSR(p, g, CacheMeta{Report: *rep}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	got, r, err := Open(p, ReadOptions{Map: true})
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, g)
	if r.Format != "csr" || r.Header != rep.Header || r.InputEdges != rep.InputEdges {
		t.Fatalf("report %+v", r)
	}
	got.Adj[0] ^= 1 // copy on write: the file keeps its bytes
	if now, _ := os.ReadFile(p); !slices.Equal(now, good) {
		t.Fatal("a write to the mapped graph reached the file")
	}

	odd := &Graph{CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{1}}}
	empty := &Graph{CSR: CSR{Offsets: []uint64{0}, Adj: []uint32{}}}
	for _, h := range []*Graph{odd, empty} {
		q := filepath.Join(dir, "h.tcsr")
		if err := WriteCSR(q, h, CacheMeta{Orientation: ByDegree, Relabelled: true}); err != nil {
			t.Fatal(err)
		}
		got, r, err := Open(q, ReadOptions{Map: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Offsets, h.Offsets) || !slices.Equal(got.Adj, h.Adj) || r.Orientation != ByDegree || !r.Relabelled {
			t.Fatalf("got %+v report %+v", got, r)
		}
	}
}
