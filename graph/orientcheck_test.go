package graph

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// readOrientedAllWays reads a CSR file as a stream, mapped, and mapped
// with deferred checks: filled with the list checks (Fill), and filled
// with the checksum only under a bad verdict from elsewhere (as the GPU
// upload gives on lists it refuses), which Finish then checks itself.
func readOrientedAllWays(t *testing.T, p string) []error {
	t.Helper()
	_, _, errs := ReadCSR(p)
	_, _, errm := Open(p, ReadOptions{Map: true})
	errd := make([]error, 2)
	for i, sumOnly := range []bool{false, true} {
		g, _, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
		if err == nil && g.AdjCheck() != nil {
			ck := g.AdjCheck()
			fill := map[bool]func([]byte, uint64) error{false: ck.Fill, true: ck.FillChecksum}[sumOnly]
			_ = fill(make([]byte, ck.SectionBytes()), 0)
			if sumOnly {
				ck.ListsChecked(false)
			}
			err = ck.Finish()
		}
		errd[i] = err
	}
	return append([]error{errs, errm}, errd...)
}

// orientRule is the end of the refusal of a file of orientation by.
func orientRule(by Orientation, relabelled bool) string {
	switch {
	case by == ByDegree && !relabelled:
		return "a file oriented by degree stores each edge once, from its lower end in that order)"
	case relabelled:
		return fmt.Sprintf("a relabelled file oriented by %s stores each edge once, from its lower id)", by)
	}
	return fmt.Sprintf("a file oriented by %s stores each edge once, from its lower id)", by)
}

// TestCSROrientationRefused: oriented files whose lists are sorted, in
// range and loop-free, under a valid checksum, but are no orientation in
// their order (a triangle stored as a cycle, an arc backward, an edge
// stored both ways) are refused however they are read, packed or not,
// with the first backward arc named.
func TestCSROrientationRefused(t *testing.T) { forPacked(t, testCSROrientationRefused) }

func testCSROrientationRefused(t *testing.T, packed bool) {
	p := filepath.Join(t.TempDir(), "o.tcsr")
	csr := func(off []uint64, adj ...uint32) *Graph { return &Graph{CSR: CSR{Offsets: off, Adj: adj}} }
	// up: the message where entries must be above their vertex (by id,
	// or relabelled); degree: by degree without relabelling.
	cases := []struct {
		name       string
		g          *Graph
		up, degree string
	}{
		// 0->1, 1->2, 2->0: no order of the three keeps all.
		{"cycle", csr([]uint64{0, 1, 2, 3}, 1, 2, 0),
			"vertex 2, list position 0 (entry 2): neighbour 0 is below the vertex (",
			"vertex 2, list position 0 (entry 2): neighbour 0 (degree 2) comes before the vertex (degree 2) in the (degree, id) order ("},
		// The star 1-0, 1-2, 1-3 stored from the lower id: 1->2 goes
		// from degree 3 to degree 1.
		{"backward arc", csr([]uint64{0, 1, 2, 2, 3}, 1, 2, 1),
			"vertex 3, list position 0 (entry 2): neighbour 1 is below the vertex (",
			"vertex 1, list position 0 (entry 1): neighbour 2 (degree 1) comes before the vertex (degree 3) in the (degree, id) order ("},
		// 0->1, 1->0.
		{"both directions", csr([]uint64{0, 1, 2}, 1, 0),
			"vertex 1, list position 0 (entry 1): neighbour 0 is below the vertex (",
			"vertex 1, list position 0 (entry 1): neighbour 0 (degree 2) comes before the vertex (degree 2) in the (degree, id) order ("},
		// A triangle with the edge 1-2 stored both ways.
		{"triangle, an edge both ways", csr([]uint64{0, 2, 3, 4}, 1, 2, 2, 1),
			"vertex 2, list position 0 (entry 3): neighbour 1 is below the vertex (",
			"vertex 2, list position 0 (entry 3): neighbour 1 (degree 3) comes before the vertex (degree 3) in the (degree, id) order ("},
	}
	for _, c := range cases {
		for _, o := range []struct {
			by         Orientation
			relabelled bool
		}{{ByID, false}, {ByID, true}, {ByDegree, true}, {ByDegree, false}} {
			if err := WriteCSR(p, c.g, CacheMeta{Orientation: o.by, Relabelled: o.relabelled, Packed: packed}); err != nil {
				t.Fatal(err)
			}
			msg := c.up
			if o.by == ByDegree && !o.relabelled {
				msg = c.degree
			}
			msg = "corrupt tcgen CSR file: " + msg + orientRule(o.by, o.relabelled)
			for i, err := range readOrientedAllWays(t, p) {
				if err == nil || err.Error() != p+": "+msg {
					t.Errorf("%s, by %s, relabelled %v, read %d: %v\nwant %s: %s", c.name, o.by, o.relabelled, i, err, p, msg)
				}
			}
		}
	}
}

// TestCSROrientationAccepted: the files Orient writes, for every
// orientation and relabelling, packed or not, are accepted however they
// are read (with a good verdict from elsewhere too) and count what the
// oracle counts: RMAT-12 and a shared dataset.
func TestCSROrientationAccepted(t *testing.T) {
	rm, _, err := Generate(DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	graphs := map[string]*Graph{"rmat12": rm}
	row := gputest.Pick(t, gputest.Manifest(t), "ca-GrQc")[0]
	if graphs["ca-GrQc"], _, err = Open(row.Path, ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "o.tcsr")
	for name, g := range graphs {
		want := Oracle(g)
		if name == "ca-GrQc" && want != row.Triangles {
			t.Fatalf("ca-GrQc: oracle %d, manifest %d", want, row.Triangles)
		}
		for _, by := range []Orientation{ByID, ByDegree} {
			for _, relabel := range []bool{false, true} {
				for _, packed := range []bool{false, true} {
					o := Orient(g, by, relabel)
					meta := CacheMeta{Orientation: by, Relabelled: relabel, Packed: packed}
					if err := WriteCSR(p, &Graph{CSR: o.CSR}, meta); err != nil {
						t.Fatal(err)
					}
					for i, err := range readOrientedAllWays(t, p) {
						if err != nil {
							t.Fatalf("%s by %s, relabel %v, packed %v, read %d: %v", name, by, relabel, packed, i, err)
						}
					}
					fg, rep, err := Open(p, ReadOptions{Map: true})
					if err != nil {
						t.Fatal(err)
					}
					if got := CountTriangles(FileOriented(fg, rep)); got != want {
						t.Fatalf("%s by %s, relabel %v, packed %v: %d triangles, want %d", name, by, relabel, packed, got, want)
					}
				}
			}
		}
	}
}

// TestCSRByDegreeVerdict: a by-degree file's good verdict from elsewhere
// (ListsChecked(true), the GPU's) covers the degree order too: Finish
// takes it, as it takes one on the lists' order.
func TestCSRByDegreeVerdict(t *testing.T) {
	p := filepath.Join(t.TempDir(), "o.tcsr")
	g := &Graph{CSR: CSR{Offsets: []uint64{0, 1, 2, 3}, Adj: []uint32{1, 2, 0}}} // a cycle
	if err := WriteCSR(p, g, CacheMeta{Orientation: ByDegree}); err != nil {
		t.Fatal(err)
	}
	fg, _, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	ck := fg.AdjCheck()
	if ck == nil || ck.ArcOrder() != ArcsByDegree {
		t.Fatalf("pending %v, order %v", ck != nil, ck.ArcOrder())
	}
	if err := ck.FillChecksum(make([]byte, ck.SectionBytes()), 0); err != nil {
		t.Fatal(err)
	}
	ck.ListsChecked(true)
	if err := ck.Finish(); err != nil {
		t.Fatalf("a good verdict: %v", err)
	}
	for _, c := range []struct {
		by      Orientation
		relabel bool
		want    ArcOrder
	}{{Undirected, false, ArcsAny}, {Undirected, true, ArcsAny}, {ByID, false, ArcsUp}, {ByID, true, ArcsUp}, {ByDegree, true, ArcsUp}, {ByDegree, false, ArcsByDegree}} {
		if got := arcOrderOf(c.by, c.relabel); got != c.want {
			t.Errorf("by %s, relabelled %v: order %d, want %d", c.by, c.relabel, got, c.want)
		}
	}
}
