package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

func maxDegree(g *Graph) uint64 {
	var m uint64
	for v := 0; v < g.N(); v++ {
		m = max(m, g.Degree(uint32(v)))
	}
	return m
}

func TestManifest(t *testing.T) {
	for _, row := range gputest.Manifest(t) {
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
