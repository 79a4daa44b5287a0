package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/tests/gputest"
)

// orientation is one way convert --orient writes a file.
type orientation struct {
	by      string // --orient
	relabel bool
}

var orientations = []orientation{{"id", false}, {"id", true}, {"degree", true}, {"degree", false}}

func (o orientation) args() []string {
	if o.relabel {
		return []string{"--orient", o.by, "--relabel"}
	}
	return []string{"--orient", o.by}
}

// spec writes a plan for files of orientation o into dir: count --spec
// runs it on the GPU where one opens (the file's lists then checked on
// the device), else on the CPU.
func (o orientation) spec(t *testing.T, dir string) string {
	return writeFile(t, dir, fmt.Sprintf("%s-%v.yaml", o.by, o.relabel), fmt.Sprintf(
		"prefix: o\norientation: %s\nrelabel: %v\nclasses:\n  - select: {key: outdeg, lo: 0}\n    iterator: vertex\n    intersection: merge\n", o.by, o.relabel))
}

// TestCountNotAnOrientation: oriented CSR files whose lists are sorted, in
// range and loop-free under a valid checksum, but whose arcs do not follow
// their orientation (a triangle stored as a cycle, which counted 0
// triangles, an arc backward, an edge stored both ways) are refused with
// exit 3 and one line naming the file, the vertex, the list position and
// the entry, for every orientation, packed or not, on the CPU and through
// a plan of the file's orientation.
func TestCountNotAnOrientation(t *testing.T) {
	dir := t.TempDir()
	csr := func(off []uint64, adj ...uint32) *graph.Graph {
		return &graph.Graph{CSR: graph.CSR{Offsets: off, Adj: adj}}
	}
	// up: the refusal where entries must be above their vertex (by id, or
	// relabelled); degree: by degree without relabelling.
	cases := []struct {
		name       string
		g          *graph.Graph
		up, degree string
	}{
		{"cycle", csr([]uint64{0, 1, 2, 3}, 1, 2, 0),
			"vertex 2, list position 0 (entry 2): neighbour 0 is below the vertex",
			"vertex 2, list position 0 (entry 2): neighbour 0 (degree 2) comes before the vertex (degree 2) in the (degree, id) order"},
		{"backward arc", csr([]uint64{0, 1, 2, 2, 3}, 1, 2, 1), // the star 1-0, 1-2, 1-3
			"vertex 3, list position 0 (entry 2): neighbour 1 is below the vertex",
			"vertex 1, list position 0 (entry 1): neighbour 2 (degree 1) comes before the vertex (degree 3) in the (degree, id) order"},
		{"both directions", csr([]uint64{0, 2, 3, 4}, 1, 2, 2, 1), // a triangle, 1-2 both ways
			"vertex 2, list position 0 (entry 3): neighbour 1 is below the vertex",
			"vertex 2, list position 0 (entry 3): neighbour 1 (degree 3) comes before the vertex (degree 3) in the (degree, id) order"},
	}
	for i, c := range cases {
		for j, o := range orientations {
			by := map[string]graph.Orientation{"id": graph.ByID, "degree": graph.ByDegree}[o.by]
			p := filepath.Join(dir, fmt.Sprintf("bad-%d-%d.tcsr", i, j))
			meta := graph.CacheMeta{Orientation: by, Relabelled: o.relabel, Packed: (i+j)%2 == 1}
			if err := graph.WriteCSR(p, c.g, meta); err != nil {
				t.Fatal(err)
			}
			msg, rule := c.up, fmt.Sprintf("a file oriented by %s stores each edge once, from its lower id", o.by)
			switch {
			case o.by == "degree" && !o.relabel:
				msg, rule = c.degree, "a file oriented by degree stores each edge once, from its lower end in that order"
			case o.relabel:
				rule = "a relabelled " + strings.TrimPrefix(rule, "a ")
			}
			want := fmt.Sprintf("tcgen: %s: corrupt tcgen CSR file: %s (%s)\n", p, msg, rule)
			for _, args := range [][]string{{"count", p, "--backend", "cpu"}, {"count", p, "--spec", o.spec(t, dir)}} {
				code, out, errs := tcgen(t, append([]string{"-q", "--no-cache"}, args...)...)
				if code != exitBadInput || errs != want || out != "" {
					t.Errorf("%s, %v: %q: exit %d, stdout %q, stderr\n%q, want exit %d and\n%q", c.name, o.args(), args, code, out, errs, exitBadInput, want)
				}
			}
		}
	}
}

// TestConvertOrientedDatasets: the files convert --orient writes are
// accepted and counted exactly (the manifest's triangles and edges) for
// every orientation, on the CPU and through a plan of the file's
// orientation: shared datasets of flat and skewed degrees.
func TestConvertOrientedDatasets(t *testing.T) {
	dir := t.TempDir()
	for _, row := range gputest.Pick(t, gputest.Manifest(t), "karate", "ca-GrQc", "as20000102") {
		for _, o := range orientations {
			p := filepath.Join(dir, row.Name+".tcsr")
			if code, _, errs := tcgen(t, append([]string{"-q", "--no-cache", "convert", row.Path, "-o", p}, o.args()...)...); code != exitOK {
				t.Fatalf("convert %s %v: exit %d: %s", row.Name, o.args(), code, errs)
			}
			for _, args := range [][]string{{"--backend", "cpu"}, {"--spec", o.spec(t, dir)}} {
				code, out, errs := tcgen(t, append([]string{"-q", "--no-cache", "count", p, "--json"}, args...)...)
				if r := decodeCount(t, code, out, errs); r.Triangles != row.Triangles || r.Edges != row.EdgesUndirected || r.Vertices != row.Vertices {
					t.Errorf("%s %v, count %v: %d triangles, %d edges, %d vertices; want %d, %d, %d",
						row.Name, o.args(), args, r.Triangles, r.Edges, r.Vertices, row.Triangles, row.EdgesUndirected, row.Vertices)
				}
			}
		}
	}
}
