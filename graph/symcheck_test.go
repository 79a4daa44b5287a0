package graph

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// bumpEntry returns a copy of g with one list entry raised by 1 where the
// lists stay sorted, in range and free of loops: a graph only the
// symmetry check refuses. It returns the entry's vertex and position.
func bumpEntry(t *testing.T, g *Graph) (*Graph, uint32, uint64) {
	t.Helper()
	n := uint32(g.N())
	for v := uint32(0); v < n; v++ {
		for p := g.Offsets[v]; p < g.Offsets[v+1]; p++ {
			w := g.Adj[p] + 1
			if w < n && w != v && (p+1 == g.Offsets[v+1] || w < g.Adj[p+1]) {
				adj := slices.Clone(g.Adj)
				adj[p] = w
				return &Graph{CSR: CSR{Offsets: g.Offsets, Adj: adj}, OrigIDs: g.OrigIDs}, v, p
			}
		}
	}
	t.Fatal("no entry can be raised")
	return nil, 0, 0
}

// readAllWays reads an undirected CSR file as a stream, mapped, and
// mapped with deferred checks whose caller vouches for the lists (as the
// GPU upload does): each must refuse it with the same message.
func readAllWays(t *testing.T, p string) []error {
	t.Helper()
	_, _, errs := ReadCSR(p)
	_, _, errm := Open(p, ReadOptions{Map: true})
	gd, _, errd := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
	if errd == nil && gd.AdjCheck() != nil {
		ck := gd.AdjCheck()
		buf := make([]byte, ck.SectionBytes())
		if err := ck.FillChecksum(buf, 0); err != nil {
			t.Fatal(err)
		}
		ck.ListsChecked(true)
		errd = ck.Finish()
	}
	return []error{errs, errm, errd}
}

// TestCSRAsymmetric: a checksum-valid undirected file whose lists are
// sorted, in range and loop-free but not symmetric is refused, however it
// is read, packed or not, with its first entry without a reverse named.
func TestCSRAsymmetric(t *testing.T) { forPacked(t, testCSRAsymmetric) }

func testCSRAsymmetric(t *testing.T, packed bool) {
	p := filepath.Join(t.TempDir(), "a.tcsr")
	// 0-1, 0-2, 1-2, 2-3, and 3 lists 1 where 1 does not list 3.
	g := &Graph{CSR: CSR{Offsets: []uint64{0, 2, 4, 7, 9}, Adj: []uint32{1, 2, 0, 2, 0, 1, 3, 1, 2}}}
	if err := WriteCSR(p, g, CacheMeta{Packed: packed}); err != nil {
		t.Fatal(err)
	}
	for i, err := range readAllWays(t, p) {
		wantInputError(t, err, p, 0, "corrupt tcgen CSR file: vertex 3, list position 0 (entry 7): neighbour 1 does not list 3 back")
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("read %d: %v is not ErrCorrupt", i, err)
		}
	}
	// Oriented lists store each edge once: not checked for symmetry, but
	// for going up (orientcheck.go): the lists above refused, their upper
	// halves accepted.
	if err := WriteCSR(p, g, CacheMeta{Packed: packed, Orientation: ByID}); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadCSR(p)
	wantInputError(t, err, p, 0, "corrupt tcgen CSR file: vertex 1, list position 0 (entry 2): neighbour 0 is below the vertex")
	up := &Graph{CSR: CSR{Offsets: []uint64{0, 2, 3, 4, 4}, Adj: []uint32{1, 2, 2, 3}}}
	if err := WriteCSR(p, up, CacheMeta{Packed: packed, Orientation: ByID}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadCSR(p); err != nil {
		t.Fatalf("oriented: %v", err)
	}
}

// TestCSRListMessages: the other list checks name vertex, list position,
// entry and value too.
func TestCSRListMessages(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.tcsr")
	cases := []struct {
		g   *Graph
		msg string
	}{
		{&Graph{CSR: CSR{Offsets: []uint64{0, 1, 3}, Adj: []uint32{1, 0, 5}}}, "vertex 1, list position 1 (entry 2): neighbour 5 is not a vertex (n = 2)"},
		{&Graph{CSR: CSR{Offsets: []uint64{0, 1, 3}, Adj: []uint32{1, 0, 1}}}, "vertex 1, list position 1 (entry 2): neighbour 1 is the vertex itself (a self loop)"},
		{&Graph{CSR: CSR{Offsets: []uint64{0, 2, 3, 4}, Adj: []uint32{2, 1, 0, 0}}}, "vertex 0, list position 1 (entry 1): neighbour 1 does not follow 2"},
	}
	for _, c := range cases {
		if err := WriteCSR(p, c.g, CacheMeta{}); err != nil {
			t.Fatal(err)
		}
		for _, err := range readAllWays(t, p)[:2] {
			wantInputError(t, err, p, 0, c.msg)
		}
	}
}

// TestCSRAsymmetricDataset: ca-HepPh with one entry raised by 1 and a
// valid checksum (counted as 3358496 triangles, not 3358499, when it was
// trusted) is refused as a file and as a cache entry, which is rebuilt.
func TestCSRAsymmetricDataset(t *testing.T) {
	row := gputest.Pick(t, gputest.Manifest(t), "ca-HepPh")[0]
	g, _, err := Open(row.Path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad, v, pos := bumpEntry(t, g)
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.tcsr")
	if err := WriteCSR(p, bad, CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	for _, err := range readAllWays(t, p) {
		wantInputError(t, err, p, 0, entryMsg(bad.Offsets, pos, v, "neighbour %d does not list", bad.Adj[pos]))
	}

	// A cache entry with the same lists and a valid checksum: rebuilt.
	c := &Cache{Dir: filepath.Join(dir, "cache")}
	_, rep, err := c.Load(row.Path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entry, meta, err := ReadCSR(rep.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	tampered, _, _ := bumpEntry(t, entry)
	if err := WriteCSR(rep.CachePath, tampered, meta); err != nil {
		t.Fatal(err)
	}
	g2, rep2, err := c.Load(row.Path, ReadOptions{Map: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.FromCache || !strings.Contains(rep2.CacheNote, "does not list") || !strings.Contains(rep2.CacheNote, "rebuilt") {
		t.Fatalf("tampered cache entry: %+v", rep2)
	}
	if got := Oracle(g2); got != row.Triangles {
		t.Fatalf("%d triangles, want %d", got, row.Triangles)
	}
	if _, _, err := ReadCSR(rep.CachePath); err != nil {
		t.Fatalf("entry not rewritten: %v", err)
	}
	os.Remove(p)
}
