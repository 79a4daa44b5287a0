package graph

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// snapEdges are the edges of testdata/snap.txt, which the .npz fixtures
// (testdata/npz/make.py) hold as a 6 x 6 matrix.
var snapEdges = [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}}

// TestReadNPZ: every layout and index type SciPy writes reads as the text
// file of the same entries does; loops, duplicates and the vertex with no
// entry are reported.
func TestReadNPZ(t *testing.T) {
	want, _ := mustOpen(t, td("snap.txt"), ReadOptions{})
	for _, f := range []string{"csr-i4-deflate", "csr-i8-stored", "csr-be-unicode", "csc-i4", "coo-i4", "coo-coords-i8", "coo-coords-fortran"} {
		t.Run(f, func(t *testing.T) {
			g, rep := mustOpen(t, td("npz/"+f+".npz"), ReadOptions{})
			wantEdges(t, g, snapEdges)
			if !sameStructure(g, want) {
				t.Fatal("lists differ from the text file's")
			}
			if rep.Format != "npz" || rep.InputEdges != 7 || rep.SelfLoops != 1 || rep.Duplicates != 1 || rep.Isolated != 1 {
				t.Fatalf("report %+v", rep)
			}
		})
	}
}

// TestReadBadNPZ: refused files give one line naming the file and what
// is wrong.
func TestReadBadNPZ(t *testing.T) {
	cases := map[string]string{
		"bad-bsr.npz":       "format.npy: the bsr layout is not supported",
		"bad-nonsquare.npz": "shape.npy: matrix is 6 x 7: an adjacency matrix must be square",
		"bad-range.npz":     "row.npy: entry 0: index 6 is not below the shape's 6",
		"bad-negative.npz":  "col.npy: element 0 is negative",
		"bad-object.npz":    "format.npy: holds pickled Python objects, which tcgen does not read",
	}
	for f, msg := range cases {
		_, _, err := Open(td("npz/"+f), ReadOptions{})
		wantInputError(t, err, td("npz/"+f), 0, msg)
	}
	dir := t.TempDir()
	for name, c := range map[string]struct {
		data []byte
		msg  string
	}{
		"empty zip":    {[]byte("PK\x05\x06" + strings.Repeat("\x00", 18)), "no format.npy: not a SciPy sparse matrix"},
		"not a zip":    {[]byte("PK\x03\x04 and nothing else"), "not a readable zip (.npz) file"},
		"text as npz":  {[]byte("1 2\n"), "no zip signature: not a SciPy sparse .npz file"},
		"declared txt": {nil, "content is a zip (.npz) file, not a text edge list"},
	} {
		p := writeFile(t, dir, "x.npz", c.data)
		opt := ReadOptions{}
		if c.data == nil {
			good, _ := os.ReadFile(td("npz/csr-i4-deflate.npz"))
			p = writeFile(t, dir, "x.txt", good)
			opt.Format = "text"
		}
		_, _, err := Open(p, opt)
		wantInputError(t, err, p, 0, c.msg)
		_ = name
	}
}

// TestNPZCorrupt cuts a fixture at every length and flips each byte: the
// reader refuses the file with an *InputError, or reads the same graph
// (a byte that no check covers, such as an entry's date or an unread
// value, changes nothing that is read).
func TestNPZCorrupt(t *testing.T) {
	for _, f := range []string{"csr-i8-stored", "coo-i4"} {
		good, err := os.ReadFile(td("npz/" + f + ".npz"))
		if err != nil {
			t.Fatal(err)
		}
		check := func(data []byte, what string) {
			g, _, err := Read(bytes.NewReader(data), "x.npz", ReadOptions{})
			var ie *InputError
			switch {
			case err != nil && (!errors.As(err, &ie) || strings.Contains(err.Error(), "\n")):
				t.Fatalf("%s %s: %v", f, what, err)
			case err == nil && !slices.Equal(edgesOf(g), snapEdges):
				t.Fatalf("%s %s: read %v", f, what, edgesOf(g))
			}
		}
		for n := range good {
			check(good[:n], "cut")
		}
		for i := range good {
			bad := slices.Clone(good)
			bad[i] ^= 0x10
			check(bad, "flipped")
		}
	}
}

// TestReadLigra: Ligra's adjacency graphs, weighted or not, whatever the
// whitespace, read as the edges they list; every kind of bad file names
// its line.
func TestReadLigra(t *testing.T) {
	good := []struct {
		name, in string
		edges    [][2]uint64
		isolated uint64
	}{
		{"lines", "AdjacencyGraph\n4\n5\n0\n2\n3\n5\n1\n2\n2\n3\n0\n", [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}}, 0},
		{"spaces", "  AdjacencyGraph 4 5\t0 2 3 5\r\n1 2 2 3 0", [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}}, 0},
		{"weighted", "WeightedAdjacencyGraph\n3\n2\n0\n1\n2\n1\n0\n7\n-3\n", [][2]uint64{{0, 1}}, 1},
		{"empty vertices", "AdjacencyGraph\n5\n2\n0\n0\n1\n2\n2\n4\n0\n", [][2]uint64{{0, 2}, {1, 4}}, 1},
		{"loop only", "AdjacencyGraph\n2\n1\n0\n1\n0\n", nil, 2},
		{"empty", "AdjacencyGraph\n0\n0\n", nil, 0},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			g, rep, err := Read(strings.NewReader(c.in), "g.adj", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := g.CheckCanonical(); err != nil {
				t.Fatal(err)
			}
			wantEdges(t, g, c.edges)
			if rep.Format != "adj" || rep.Isolated != c.isolated {
				t.Fatalf("report %+v, want %d isolated", rep, c.isolated)
			}
		})
	}
	bad := []struct {
		name, in string
		line     int64
		msg      string
	}{
		{"no header", "Adjacency\n1\n0\n0\n", 1, "no AdjacencyGraph header: not a Ligra adjacency graph"},
		{"no n", "AdjacencyGraph\n", 1, "truncated: the file ends after 0 of the 2 header values"},
		{"bad n", "AdjacencyGraph\nx\n", 2, `expected a number (header values), got "x"`},
		{"truncated offsets", "AdjacencyGraph\n3\n2\n0\n1\n", 5, "after 2 of the 3 offsets"},
		{"first offset", "AdjacencyGraph\n2\n1\n1\n1\n0\n", 4, "the first offset is 1, not 0"},
		{"offset decreases", "AdjacencyGraph\n3\n2\n0\n2\n1\n1\n0\n", 6, "offset of vertex 2 is 1, below vertex 1's 2"},
		{"offset past m", "AdjacencyGraph\n2\n1\n0\n2\n1\n", 5, "offset of vertex 1 is 2, past the 1 edges"},
		{"target range", "AdjacencyGraph\n2\n2\n0\n1\n1\n2\n", 7, "edge target 2 is not a vertex (n = 2)"},
		{"negative", "AdjacencyGraph\n2\n2\n0\n1\n1\n-1\n", 7, `negative value "-1" among the edges`},
		{"float", "AdjacencyGraph\n2\n2\n0\n1\n1\n0.5\n", 7, `expected a number (edges), got "0.5"`},
		{"truncated edges", "AdjacencyGraph\n2\n2\n0\n1\n1\n", 6, "after 1 of the 2 edges"},
		{"extra", "AdjacencyGraph\n2\n2\n0\n1\n1\n0\n9\n", 8, `more values than the header declares (2 vertices, 2 edges): "9"`},
		{"missing weights", "WeightedAdjacencyGraph\n2\n2\n0\n1\n1\n0\n5\n", 8, "after 1 of the 2 weights"},
		{"bad weight", "WeightedAdjacencyGraph\n2\n2\n0\n1\n1\n0\n5\nw\n", 9, `expected an integer weight, got "w"`},
		{"no vertices", "AdjacencyGraph\n0\n1\n0\n", 3, "1 edges but no vertices"},
		{"huge value", "AdjacencyGraph\n2\n1\n0\n1\n" + strings.Repeat("7", 100000) + "\n", 6, "value " + strings.Repeat("7", 40) + "... (100000 bytes) among the edges exceeds"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(c.in), "g.adj", ReadOptions{})
			wantInputError(t, err, "g.adj", c.line, c.msg)
		})
	}
	// Declared but something else.
	_, _, err := Read(strings.NewReader("1 2\n"), "g.txt", ReadOptions{Format: "adj"})
	wantInputError(t, err, "g.txt", 1, "no AdjacencyGraph header")
}

// TestFormatsRoundTrip: the shared datasets' small graphs, read from their
// text (or .mtx) files, written as .adj, .adj.gz and .npz and read back,
// give the same lists (over dense ids) and the manifest's triangles.
func TestFormatsRoundTrip(t *testing.T) {
	rows := gputest.Pick(t, gputest.Manifest(t), "karate", "jazz", "power-grid", "ca-GrQc", "lastfm_asia")
	dir := t.TempDir()
	for _, row := range rows {
		want, _ := mustOpen(t, row.Path, ReadOptions{})
		for _, ext := range []string{".adj", ".adj.gz", ".npz"} {
			p := filepath.Join(dir, row.Name+ext)
			if err := WriteEdgesFile(p, want); err != nil {
				t.Fatal(err)
			}
			g, rep := mustOpen(t, p, ReadOptions{})
			// Each edge is stored both ways: the second is a duplicate.
			if !sameStructure(g, want) || rep.InputEdges != want.Arcs() || rep.Duplicates != want.Edges() || rep.Isolated != 0 || rep.SelfLoops != 0 {
				t.Fatalf("%s%s: %d vertices, %d edges, report %+v; want %d, %d", row.Name, ext, g.N(), g.Edges(), rep, want.N(), want.Edges())
			}
			if got := Oracle(g); got != row.Triangles {
				t.Fatalf("%s%s: %d triangles, want %d", row.Name, ext, got, row.Triangles)
			}
		}
	}
}

// TestFormatsThroughStreams: .adj and .npz through a pipe and in short
// reads, as every format.
func TestFormatsThroughStreams(t *testing.T) {
	want, _, err := Generate(DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"adj", "npz"} {
		var b bytes.Buffer
		if err := WriteEdges(&b, want, format); err != nil {
			t.Fatal(err)
		}
		g, _ := readWithin(t, func() (*Graph, *Report, error) { return Open(pipePath(t, b.Bytes()), ReadOptions{Map: true}) })
		if !sameStructure(g, want) {
			t.Fatalf("%s through a pipe: another graph", format)
		}
		g, _, err := Read(&chunkReader{data: b.Bytes(), sizes: []int{1, 3, 1000}}, "stream", ReadOptions{})
		if err != nil || !sameStructure(g, want) {
			t.Fatalf("%s in short reads: %v", format, err)
		}
	}
}
