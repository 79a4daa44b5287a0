package graph

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// manifestRow is one row of ../shared/datasets/MANIFEST.tsv, every column
// parsed. Path is the dataset file's full path.
type manifestRow struct {
	Name            string
	File            string
	Format          string
	SourceRepo      string
	SourcePath      string
	Vertices        uint64
	EdgesUndirected uint64
	MaxDegree       uint64
	Triangles       uint64
	SNAPTriangles   string // SNAP's published count, or an "n/a ..." note
	SHA256          string
	Path            string
}

// datasetsDir locates the shared datasets: $TCGEN_DATASETS, else
// <repo root>/../shared/datasets. When missing, the test fails under CI=true
// and is skipped elsewhere.
func datasetsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TCGEN_DATASETS")
	if dir == "" {
		root, err := filepath.Abs("..") // tests run in <repo root>/graph
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "datasets")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared datasets missing (CI=true): %v", err)
		}
		t.Skipf("shared datasets not found (%v); set TCGEN_DATASETS to run this test", err)
	}
	return dir
}

// manifestRows parses MANIFEST.tsv (tab-separated, CSV quoting).
func manifestRows(t testing.TB) []manifestRow {
	t.Helper()
	dir := datasetsDir(t)
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("MANIFEST.tsv: %v", err)
	}
	if len(recs) < 2 {
		t.Fatal("MANIFEST.tsv has no rows")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"name", "file", "format", "source_repo", "source_path", "vertices", "edges_undirected",
		"max_degree", "triangles", "snap_published_triangles", "sha256"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("MANIFEST.tsv: no column %q", h)
		}
	}
	var rows []manifestRow
	for i, rec := range recs[1:] {
		num := func(h string) uint64 {
			x, err := strconv.ParseUint(rec[col[h]], 10, 64)
			if err != nil {
				t.Fatalf("MANIFEST.tsv row %d: %s: %v", i+2, h, err)
			}
			return x
		}
		rows = append(rows, manifestRow{
			Name: rec[col["name"]], File: rec[col["file"]], Format: rec[col["format"]],
			SourceRepo: rec[col["source_repo"]], SourcePath: rec[col["source_path"]],
			Vertices: num("vertices"), EdgesUndirected: num("edges_undirected"),
			MaxDegree: num("max_degree"), Triangles: num("triangles"),
			SNAPTriangles: rec[col["snap_published_triangles"]], SHA256: rec[col["sha256"]],
			Path: filepath.Join(dir, rec[col["file"]]),
		})
	}
	return rows
}

func maxDegree(g *Graph) uint64 {
	var m uint64
	for v := 0; v < g.N(); v++ {
		m = max(m, g.Degree(uint32(v)))
	}
	return m
}

func TestManifest(t *testing.T) {
	for _, row := range manifestRows(t) {
		t.Run(row.Name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(row.Path)
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != row.SHA256 {
				t.Fatalf("%s: sha256 %x, manifest says %s", row.File, sum, row.SHA256)
			}
			g, rep, err := Open(row.Path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := g.CheckCanonical(); err != nil {
				t.Fatal(err)
			}
			if uint64(g.N()) != row.Vertices || g.Edges() != row.EdgesUndirected || maxDegree(g) != row.MaxDegree {
				t.Fatalf("got %d vertices, %d edges, max degree %d; manifest says %d, %d, %d (report %+v)",
					g.N(), g.Edges(), maxDegree(g), row.Vertices, row.EdgesUndirected, row.MaxDegree, rep)
			}
			if !rep.Gzip {
				t.Errorf("gzip input not reported as such")
			}
		})
	}
}
